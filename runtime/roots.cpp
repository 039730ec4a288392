#include "runtime/roots.hpp"

#include "runtime/ctx.hpp"

namespace ptc {

void RootStack::push_more(RootEntry e) {
  more_.push_back(e);
  ++size_;
}

}  // namespace ptc
