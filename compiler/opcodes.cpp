#include "compiler/opcodes.hpp"

namespace ptc {

namespace {
constexpr OpInfo kInfo[] = {
#define PTC_X(name, form, meaning) {#name, meaning},
    PTC_OPCODES(PTC_X)
#undef PTC_X
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == kOpCount);
}  // namespace

const OpInfo& op_info(Op op) {
  return kInfo[static_cast<int>(op)];
}

}  // namespace ptc
