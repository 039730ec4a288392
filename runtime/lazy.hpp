// A container made on first use. The compile path keeps several hash tables
// that most programs leave empty (the analyzer's, memory's), and an empty
// unordered container still costs its constructor and destructor on every
// run; wrapped in Lazy they cost neither until something is put in them.
#pragma once

#include <optional>

namespace ptc {

template <class C>
class Lazy {
 public:
  C& operator*() {
    if (!c_) c_.emplace();
    return *c_;
  }
  C* operator->() { return &**this; }

 private:
  std::optional<C> c_;
};

}  // namespace ptc
