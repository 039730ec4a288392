// Working vectors of the reader, analyzer and compiler, borrowed from a
// per-thread pool for the length of one job and given back cleared but with
// their capacity. A program is compiled once and run once, so these stacks
// and lists were a third of the allocations of compiling `(+ 1 2)`; in a host
// whose malloc is glibc's (node, Python) each malloc/free pair costs about
// 120 instructions, twice mimalloc's. Borrowing nests (a compile inside a
// compile takes another vector) and keeps memory bounded: the pool holds a
// few vectors per element type, and one grown past kKeepElements goes back to the
// allocator instead of being kept.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ptc {

template <class T>
class ScratchVector {
  using Container = std::vector<T>;

 public:
  ScratchVector() {
    auto& free_list = pool();
    if (free_list.empty()) {
      if (free_list.capacity() == 0) free_list.reserve(kPoolSize);  // the one allocation per thread
      return;
    }
    c_ = std::move(free_list.back());
    free_list.pop_back();
  }
  ~ScratchVector() {
    auto& free_list = pool();
    if (c_.capacity() > kKeepElements || free_list.size() >= free_list.capacity()) return;
    c_.clear();
    free_list.push_back(std::move(c_));  // within capacity: cannot throw
  }
  ScratchVector(const ScratchVector&) = delete;
  ScratchVector& operator=(const ScratchVector&) = delete;

  Container& operator*() { return c_; }
  Container* operator->() { return &c_; }
  const Container& operator*() const { return c_; }
  const Container* operator->() const { return &c_; }

 private:
  static constexpr size_t kPoolSize = 16;
  static constexpr size_t kKeepElements = 4096;
  static std::vector<Container>& pool() {
    thread_local std::vector<Container> free_list;
    return free_list;
  }
  Container c_;
};

}  // namespace ptc
