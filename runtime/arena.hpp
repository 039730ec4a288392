// One arena per run. Objects are bump-allocated from chunks (mimalloc
// memory); nothing is freed individually, and the run ends by releasing all
// its chunks in one call. Chunks go back to a small per-thread pool so that
// the next run on the thread does not pay for fresh memory (creating and
// destroying a mimalloc heap per run cost about a third of a tiny run).
// Every byte handed out is counted against a cap, so a program cannot
// allocate past its max_heap.
//
// Built with PTC_ARENA_USE_MALLOC (the sanitizer build) each allocation is a
// separate malloc, so AddressSanitizer sees object boundaries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ptc {

class Arena {
 public:
  // cap_bytes: allocations beyond this many bytes throw ErrorKind::MemoryLimit.
  // Caps are held to kMaxCap (no machine has that much), which keeps every
  // request alloc lets through far from overflowing when rounded.
  explicit Arena(size_t cap_bytes);
  static constexpr size_t kMaxCap = SIZE_MAX / 4;
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // 16-byte aligned, uninitialised storage.
  void* alloc(size_t bytes) {
    // Checked before rounding too: a request near SIZE_MAX would round to a
    // tiny size. Within left_ (at most the cap), rounding cannot overflow.
    if (bytes > left_) [[unlikely]]
      throw_over_cap(bytes);
    bytes = (bytes + 15) & ~size_t{15};
    if (bytes > left_) [[unlikely]]
      throw_over_cap(bytes);
    left_ -= bytes;
    if (static_cast<size_t>(end_ - cur_) >= bytes) [[likely]] {
      void* p = cur_;
      cur_ += bytes;
      return p;
    }
    return alloc_slow(bytes);
  }

  // Objects with a non-trivial destructor (IR nodes holding std::vector)
  // get it run when the arena is destroyed.
  template <class T, class... Args>
  T* make(Args&&... args) {
    T* p = new (alloc(sizeof(T))) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>)
      add_finalizer([](void* q) { static_cast<T*>(q)->~T(); }, p);
    return p;
  }

  // Storage for a T followed by `extra` trailing bytes (flexible array objects).
  template <class T>
  T* make_with_tail(size_t extra) {
    return new (alloc(sizeof(T) + extra)) T();
  }

  template <class T>
  T* alloc_array(size_t n) {
    size_t bytes;
    if (__builtin_mul_overflow(sizeof(T), n ? n : 1, &bytes)) [[unlikely]]
      throw_over_cap(SIZE_MAX);
    return static_cast<T*>(alloc(bytes));
  }

  // Throws MemoryLimit now if `bytes` more would not fit; lets a builtin refuse
  // a huge request (range of 10^9 elements) before doing any work.
  void reserve_check(size_t bytes) const;

  // Counts `bytes` the run keeps outside the arena (captured prints) against
  // the cap, as if allocated here.
  void charge(size_t bytes) {
    if (bytes > left_) [[unlikely]]
      throw_over_cap(bytes);
    left_ -= bytes;
  }

  size_t used() const { return limit_ - left_; }
  size_t cap() const { return cap_; }
  void set_cap(size_t cap) {
    size_t u = used();
    cap_ = cap = std::min(cap, kMaxCap);
    left_ = u < cap ? cap - u : 0;
    limit_ = u + left_;
  }
  size_t remaining() const { return left_; }

  // Objects that own memory outside the arena (compiled regexes) register a
  // finalizer that runs when the arena is destroyed.
  void add_finalizer(void (*fn)(void*), void* p);

 private:
  [[noreturn]] void throw_over_cap(size_t bytes) const;
  void* alloc_slow(size_t bytes);

  struct Block {  // header of every chunk and large block
    Block* next;
    size_t size;
  };
  Block* blocks_head_ = nullptr;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  // What the cap still allows: every allocation takes from it, and the bytes
  // used are limit_ - left_ (limit_ moves only when the cap does).
  size_t cap_;
  size_t left_;
  size_t limit_;
  size_t next_chunk_ = 4096;
  std::vector<std::pair<void (*)(void*), void*>> finalizers_;
#ifdef PTC_ARENA_USE_MALLOC
  std::vector<void*> blocks_;
#endif
};

}  // namespace ptc
