#include "runtime/roots.hpp"

#include "runtime/ctx.hpp"

namespace ptc {

RootScope::RootScope(Ctx& ctx) : stack_(ctx.roots), mark_(ctx.roots.size()) {}

RootScope::~RootScope() {
  stack_.truncate(mark_);
}

}  // namespace ptc
