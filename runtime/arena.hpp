// One arena per run. Allocation is a bump of a pointer, checked against a
// budget, and never collects.
//
// The arena has two modes.
//
// - Chunk mode, for what lives as long as the arena: a program being read,
//   analyzed and compiled (forms, IR, bytecode, constants), a compiled
//   program, a prepared context. Objects are bump-allocated from chunks
//   (mimalloc memory), nothing is freed individually, and the arena ends by
//   releasing its chunks in one call. Chunks go back to a small per-thread
//   pool so the next run on the thread does not pay for fresh memory. Every
//   byte handed out is counted against the cap.
// - Collecting mode (start_collecting), for what a run's program makes: the
//   objects go to a CollectedSpace (collected_space.hpp), and the cap bounds
//   the live heap. When the bytes taken in since the last collection reach a
//   budget, the arena asks its run for a collection (Ctx::collection_wanted),
//   which the VM makes at its next safe point (runtime/collector.hpp).
//   Allocation goes on meanwhile, up to the space's footprint cap (twice the
//   cap): past it, or when what might still be live could never fit, the
//   request fails with memory_limit.
//
// What was allocated in chunk mode stays and is never traced: it cannot
// point at collected objects (see runtime/roots.hpp for the one exception,
// vector tails, and how it is handled).
//
// Built with PTC_ARENA_USE_MALLOC (the sanitizer builds) each chunk-mode
// allocation is a separate malloc, so AddressSanitizer sees object
// boundaries; in collecting mode every object is followed by a poisoned
// granule and freed granules are poisoned.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/collected_space.hpp"

namespace ptc {

// What a run's collections did, for RunUsage.
struct HeapStats {
  size_t peak_live_bytes = 0;  // the most a collection found live (see Arena::peak_live)
  size_t allocated_bytes = 0;  // every byte handed out in collecting mode
  uint64_t collections = 0;
  uint64_t collect_ns = 0;
};

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
    // tiny size. Within left_ (at most kMaxCap), rounding cannot overflow.
    if (bytes > left_) [[unlikely]]
      return alloc_past_budget(bytes);
    bytes = (bytes + 15) & ~size_t{15};
    if (bytes > left_) [[unlikely]]
      return alloc_past_budget(bytes);
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

  // A value-initialised T followed by `extra` uninitialised trailing bytes
  // (an object with its elements after it: a closure's captured values).
  // No finalizer is registered, so T must not need one.
  template <class T>
  T* make_with_tail(size_t extra) {
    static_assert(std::is_trivially_destructible_v<T>);
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
  // a huge request (range of 10^9 elements) before doing any work. Inline:
  // text builders ask before every piece they add.
  void reserve_check(size_t bytes) const {
    if (bytes > remaining()) [[unlikely]]
      throw_over_cap(bytes);
  }

  // Counts `bytes` the run keeps outside the arena (captured prints, a
  // compiled regex) against the cap, as if allocated here; uncharge gives
  // them back.
  void charge(size_t bytes);
  void uncharge(size_t bytes);

  // Chunk mode: bytes handed out plus charged. Collecting mode: what the
  // arena may hold now (what chunk mode took, what the last collection found
  // live, everything allocated since, and the charges).
  size_t used() const;
  size_t cap() const { return cap_; }
  void set_cap(size_t cap);  // chunk mode
  // What may still be allocated before a request fails. Collecting mode: a
  // request alone may take the cap less the charges, and all that might
  // still be live may reach the footprint cap.
  size_t remaining() const {
    if (!collecting_) return left_;
    // room_base_ + left_: the footprint cap less what might be live
    // (refreshed whenever anything but left_ changes: room()).
    int64_t room = room_base_ + static_cast<int64_t>(left_);
    if (room <= 0) return 0;
    return static_cast<size_t>(room) < alone_ ? static_cast<size_t>(room) : alone_;
  }

  // Objects that own memory outside the arena (compiled regexes) register a
  // finalizer that runs when the arena is destroyed, or, for an object in the
  // collected space, when a collection finds it dead.
  void add_finalizer(void (*fn)(void*), void* p);

  // ---- collecting mode
  // From now on objects go to a collected space whose live heap is capped at
  // `cap` bytes. `wanted(arg)` is told when a collection is due.
  void start_collecting(size_t cap, void (*wanted)(void*), void* arg);
  bool collecting() const { return collecting_; }
  CollectedSpace* space() { return space_; }
  const CollectedSpace* space() const { return space_; }
  // Whether `p` is an object of the collected space (not of chunk mode, nor
  // of another arena, nor static).
  bool in_collected_space(const void* p) const;
  // Bytes handed out since the last collection.
  size_t allocated_since_collection() const { return taken_ + (window_ - left_); }
  size_t live_at_last_collection() const { return live_; }
  size_t charged() const { return external_; }
  // Called by the collector with the live bytes it found; runs the
  // finalizers of dead objects first (`dead(p)` answers for an object).
  void collection_done(size_t live_bytes, uint64_t ns);
  // The same for a collection outside the schedule (a suspended execution
  // parking): memory is reused, but the budget and its next collection stay
  // where they were, so that the run's later collections, and what they
  // find, do not depend on where it waited.
  void collection_between(size_t live_bytes, uint64_t ns);
  template <class IsDead>
  void finalize_dead(IsDead&& dead) {
    size_t kept = 0;
    for (auto& f : collected_finalizers_) {
      if (dead(f.second))
        f.first(f.second);
      else
        collected_finalizers_[kept++] = f;
    }
    collected_finalizers_.resize(kept);
  }
  // The run's statistics so far (allocation since the last collection
  // counted as live for the peak).
  HeapStats stats() const;
  // Throws memory_limit saying how much a collection found live.
  [[noreturn]] void throw_live_over_cap(size_t live) const;

 private:
  [[noreturn]] void throw_over_cap(size_t bytes) const;
  void* alloc_slow(size_t bytes);
  void* alloc_past_budget(size_t bytes);
  void* alloc_collected(size_t bytes);
  void reset_budget();
  void refresh_room();  // room_base_ and alone_, after a change to the accounting

  struct Block {  // header of every chunk and large block
    Block* next;
    size_t size;
  };
  Block* blocks_head_ = nullptr;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  // Chunk mode: what the cap still allows. Every allocation takes from it,
  // and the bytes used are limit_ - left_ (limit_ moves only when the cap
  // does). Collecting mode: what the budget still allows before a
  // collection is asked for.
  size_t cap_;
  size_t left_;
  size_t limit_;
  size_t next_chunk_ = 4096;
  std::vector<std::pair<void (*)(void*), void*>> finalizers_;
#ifdef PTC_ARENA_USE_MALLOC
  std::vector<void*> blocks_;
  char* asan_cur_ = nullptr;  // collecting mode: the claimed hole being filled
  char* asan_end_ = nullptr;
#endif

  // Collecting mode.
  CollectedSpace* space_ = nullptr;  // CollectedSpace::take's, given back when the arena ends
  size_t footprint_request_ = 0;     // what take() is asked for, at the first allocation
  bool collecting_ = false;
  size_t footprint_cap_ = 0;
  void (*wanted_)(void*) = nullptr;
  void* wanted_arg_ = nullptr;
  size_t chunk_used_ = 0;  // what chunk mode had taken
  size_t window_ = 0;      // left_ when the budget was last set
  size_t taken_ = 0;       // allocated since the last collection, before window_
  size_t live_ = 0;        // what the last collection found live
  // allocated_since_collection() when a collection between the scheduled
  // ones ran (what it found is in live_), 0 after a scheduled one.
  size_t between_ = 0;
  size_t external_ = 0;    // charged bytes
  int64_t room_base_ = 0;  // remaining(): footprint cap - live - taken - window - charged
  size_t alone_ = 0;       // remaining(): the cap less the charges
  HeapStats stats_;
  std::vector<std::pair<void (*)(void*), void*>> collected_finalizers_;
};

}  // namespace ptc
