#include "runtime/arena.hpp"

#include <mimalloc.h>

#include <fmt/format.h>
#include <cstdlib>

#include "runtime/collected_space.hpp"
#include "runtime/error.hpp"
#include "runtime/sanitizers.hpp"
#include "runtime/strings.hpp"

#if defined(PTC_SANITIZER_ADDRESS)
#include <sanitizer/asan_interface.h>
#endif

namespace ptc {

namespace {
#ifndef PTC_ARENA_USE_MALLOC
constexpr size_t kFirstChunk = 4096;
constexpr size_t kMaxChunk = size_t{1} << 20;
constexpr size_t kHeader = 16;  // Block header, keeps payloads 16-byte aligned
constexpr int kClasses = 9;     // chunk sizes 4 KB .. 1 MB
// Per thread: pool threads are many (up to 64), and what they keep is RSS.
constexpr size_t kPoolBytes = size_t{512} << 10;

int size_class(size_t chunk) {
  int c = 0;
  for (size_t s = kFirstChunk; s < chunk; s <<= 1)
    ++c;
  return c;
}

// Set once this thread's pool is destroyed (a plain flag, so that it can be
// read after thread-locals are gone): an arena that outlives the pool (one in
// static storage, freed at exit) then frees its chunks directly.
thread_local bool t_pool_gone = false;

// Chunks kept for the next run on this thread, by size class.
struct ChunkPool {
  void* free[kClasses][4] = {};
  int count[kClasses] = {};
  size_t bytes = 0;
  ~ChunkPool() {
    t_pool_gone = true;
    for (int c = 0; c < kClasses; ++c)
      for (int i = 0; i < count[c]; ++i)
        mi_free(free[c][i]);
  }
  void* take(size_t chunk) {
    int c = size_class(chunk);
    if (count[c] == 0) return nullptr;
    bytes -= chunk;
    return free[c][--count[c]];
  }
  bool give(void* p, size_t chunk) {
    int c = size_class(chunk);
    if (count[c] == 4 || bytes + chunk > kPoolBytes) return false;
    free[c][count[c]++] = p;
    bytes += chunk;
    return true;
  }
};
thread_local ChunkPool t_pool;
#endif

// Collecting mode: the hole the bump pointer fills is claimed this much at a
// time; a request this large (or one that finds a good part of the hole
// left, kKeepRemainder in alloc_past_budget) is placed exactly instead, so a
// hole is not given up for it.
constexpr size_t kHolePiece = size_t{64} << 10;
constexpr size_t kFitBytes = 2048;
// Collecting mode: a collection is not asked for before this much was
// allocated, however small the cap's headroom (tiny caps would collect at
// every safe point).
constexpr size_t kMinBudget = 4096;
constexpr size_t kPacedBudget = size_t{1} << 20;
// The footprint (memory handed out since the run began) may reach this many
// times the cap: the live heap plus a budget's worth of garbage, with room
// for holes too small to reuse. Sanitizer builds add a granule to every
// object.
constexpr size_t kFootprintFactor = CollectedSpace::kRedzones ? 4 : 2;
constexpr size_t kRedzone = CollectedSpace::kRedzones ? CollectedSpace::kGranule : 0;

const char* const kOverCapHint =
    "process data in smaller pieces, or keep fewer intermediate collections alive";
}  // namespace

Arena::Arena(size_t cap_bytes) : cap_(std::min(cap_bytes, kMaxCap)), left_(cap_), limit_(cap_) {}

Arena::~Arena() {
  // Objects of the collected space first, while it is mapped.
  for (auto it = collected_finalizers_.rbegin(); it != collected_finalizers_.rend(); ++it)
    it->first(it->second);
  if (space_) CollectedSpace::give(space_);
  for (auto it = finalizers_.rbegin(); it != finalizers_.rend(); ++it)
    it->first(it->second);
#ifdef PTC_ARENA_USE_MALLOC
  for (void* p : blocks_)
    std::free(p);
#else
  for (Block* b = blocks_head_; b;) {
    Block* next = b->next;
    bool chunk = b->size >= kFirstChunk && b->size <= kMaxChunk && (b->size & (b->size - 1)) == 0;
    if (!(chunk && !t_pool_gone && t_pool.give(b, b->size))) mi_free(b);
    b = next;
  }
#endif
}

size_t Arena::used() const {
  if (!collecting_) return limit_ - left_;
  return chunk_used_ + live_ + (allocated_since_collection() - between_) + external_;
}

void Arena::set_cap(size_t cap) {
  size_t u = used();
  cap_ = cap = std::min(cap, kMaxCap);
  left_ = u < cap ? cap - u : 0;
  limit_ = u + left_;
}

void Arena::throw_over_cap(size_t bytes) const {
  // A request that could never fit says only that: what the heap holds
  // besides depends on when the last collection ran.
  if (collecting_ && bytes > cap_ - std::min(cap_, external_))
    throw_error(ErrorKind::MemoryLimit,
                fmt::format("memory limit exceeded: the program needs more than {} of heap "
                            "(asked for {} at once)",
                            human_bytes(cap_), human_bytes(bytes)),
                kOverCapHint);
  if (collecting_)
    throw_error(ErrorKind::MemoryLimit,
                fmt::format("memory limit exceeded: the program needs more than {} of heap "
                            "({} live after the last collection, {} allocated since, asked for "
                            "{} more)",
                            human_bytes(cap_), human_bytes(live_ + external_),
                            human_bytes(allocated_since_collection()), human_bytes(bytes)),
                kOverCapHint);
  throw_error(ErrorKind::MemoryLimit,
              fmt::format("memory limit exceeded: the program needs more than {} of heap "
                          "(used {}, asked for {} more)",
                          human_bytes(cap_), human_bytes(used()), human_bytes(bytes)),
              kOverCapHint);
}

void Arena::throw_live_over_cap(size_t live) const {
  throw_error(ErrorKind::MemoryLimit,
              fmt::format("memory limit exceeded: {} is still reachable after a collection, "
                          "more than the heap cap of {}",
                          human_bytes(live), human_bytes(cap_)),
              "the program keeps more data alive at once than max_heap allows: process data "
              "in smaller pieces, keep only the fields you need, or raise max_heap");
}

void Arena::charge(size_t bytes) {
  if (collecting_) {
    if (bytes > cap_ - std::min(cap_, external_)) throw_over_cap(bytes);
    external_ += bytes;
    refresh_room();
    return;
  }
  if (bytes > left_) [[unlikely]]
    throw_over_cap(bytes);
  left_ -= bytes;
}

void Arena::uncharge(size_t bytes) {
  external_ -= std::min(bytes, external_);
  if (collecting_) refresh_room();
}

void Arena::add_finalizer(void (*fn)(void*), void* p) {
  if (in_collected_space(p))
    collected_finalizers_.emplace_back(fn, p);
  else
    finalizers_.emplace_back(fn, p);
}

bool Arena::in_collected_space(const void* p) const {
  return space_ && space_->contains(p);
}

void Arena::start_collecting(size_t cap, void (*wanted)(void*), void* arg) {
  chunk_used_ = used();
  cap_ = std::min(cap, kMaxCap);
  size_t footprint;
  if (__builtin_mul_overflow(cap_, kFootprintFactor, &footprint)) footprint = SIZE_MAX;
  // The space itself is taken at the first allocation: a run that makes
  // nothing (arithmetic) needs none.
  footprint_request_ = footprint;
  collecting_ = true;
  footprint_cap_ = CollectedSpace::cap_for(footprint);
  wanted_ = wanted;
  wanted_arg_ = arg;
  cur_ = end_ = nullptr;
  live_ = external_ = taken_ = between_ = 0;
  reset_budget();
}

void Arena::refresh_room() {
  // Every term is at most about kMaxCap (a quarter of the range): no overflow.
  auto s = [](size_t x) { return static_cast<int64_t>(x); };
  room_base_ = s(footprint_cap_) - s(live_) - s(taken_) - s(window_) + s(between_) - s(external_);
  alone_ = cap_ > external_ ? cap_ - external_ : 0;
}

// The budget: what the cap leaves (cap - live), but no more than twice what
// is live, nor less than 1 MB: a heap that stays near what is live stays in
// the caches, and a run that holds little collects often, cheaply (a
// collection costs about what is live). Measured on bench/gc's programs, a
// budget of the whole headroom made them 2 to 20 times slower than this
// (20 MB of cold memory per run). At least half the live heap too, so the
// work stays linear in what the program allocates even near the cap.
void Arena::reset_budget() {
  size_t held = live_ + external_;
  size_t headroom = held < cap_ ? cap_ - held : 0;
  size_t budget = std::min(headroom, std::max(kPacedBudget, 2 * held));
  budget = std::max({budget, held / 2, kMinBudget});
  left_ = window_ = std::min(budget, kMaxCap);
  taken_ = 0;
  refresh_room();
}

void* Arena::alloc_past_budget(size_t bytes) {
  if (!collecting_ || bytes > kMaxCap) throw_over_cap(bytes);
  // The budget is spent: a collection is due at the next safe point. Until
  // then allocation goes on, held by the footprint cap alone.
  taken_ += window_ - left_;
  left_ = window_ = kMaxCap;
  refresh_room();
  if (wanted_) wanted_(wanted_arg_);
  return alloc(bytes);
}

void* Arena::alloc_collected(size_t bytes) {
  if (bytes > cap_ - std::min(cap_, external_)) {
    left_ += bytes;  // not allocated
    throw_over_cap(bytes);
  }
  if (!space_) [[unlikely]] {
    space_ = CollectedSpace::take(footprint_request_);
#ifndef PTC_ARENA_USE_MALLOC
    // The first hole is fresh memory: most runs never leave it.
    size_t first = std::min(kHolePiece, footprint_cap_);
    if (bytes <= first) {
      cur_ = space_->take_fresh(first);
      if (cur_) {
        end_ = cur_ + first;
        void* p = cur_;
        cur_ += bytes;
        return p;
      }
    }
#endif
  }
#ifdef PTC_ARENA_USE_MALLOC
  size_t need = bytes + kRedzone;
  char* p;
  if (static_cast<size_t>(asan_end_ - asan_cur_) >= need) {
    p = asan_cur_;
    asan_cur_ += need;
  } else if (need >= kFitBytes) {
    p = space_->claim_fit(need);
  } else if (space_->claim_hole(need, kHolePiece, &asan_cur_, &asan_end_)) {
    p = asan_cur_;
    asan_cur_ += need;
  } else {
    p = nullptr;
  }
  if (!p) {
    left_ += bytes;
    throw_over_cap(bytes);
  }
#if defined(PTC_SANITIZER_ADDRESS)
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#endif
  return p;
#else
  (void)kRedzone;
  constexpr size_t kKeepRemainder = 256;
  char* p = nullptr;
  if (bytes >= kFitBytes || static_cast<size_t>(end_ - cur_) >= kKeepRemainder) {
    p = space_->claim_fit(bytes);
  } else if (space_->claim_hole(bytes, kHolePiece, &cur_, &end_)) {
    p = cur_;
    cur_ += bytes;
  }
  if (!p) {
    left_ += bytes;
    throw_over_cap(bytes);
  }
  return p;
#endif
}

void Arena::collection_between(size_t live_bytes, uint64_t ns) {
  live_ = live_bytes;
  between_ = allocated_since_collection();
  refresh_room();
  stats_.collections += 1;
  stats_.collect_ns += ns;
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_ + external_);
  cur_ = end_ = nullptr;
#ifdef PTC_ARENA_USE_MALLOC
  asan_cur_ = asan_end_ = nullptr;
#endif
}

void Arena::collection_done(size_t live_bytes, uint64_t ns) {
  stats_.allocated_bytes += allocated_since_collection();
  live_ = live_bytes;
  between_ = 0;
  stats_.collections += 1;
  stats_.collect_ns += ns;
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_ + external_);
  cur_ = end_ = nullptr;  // the hole being filled is free again unless marked
#ifdef PTC_ARENA_USE_MALLOC
  asan_cur_ = asan_end_ = nullptr;
#endif
  reset_budget();
}

HeapStats Arena::stats() const {
  HeapStats s = stats_;
  if (!collecting_) return s;
  size_t since = allocated_since_collection();
  s.allocated_bytes += since;
  s.peak_live_bytes = std::max(s.peak_live_bytes, live_ + (since - between_) + external_);
  return s;
}

void* Arena::alloc_slow(size_t bytes) {
  if (collecting_) return alloc_collected(bytes);
#ifdef PTC_ARENA_USE_MALLOC
  void* p = std::aligned_alloc(16, bytes);
  if (!p) throw std::bad_alloc();
  blocks_.push_back(p);
  return p;
#else
  // Large objects get their own block; the current chunk keeps serving small ones.
  if (bytes > next_chunk_ / 4) {
    auto* b = static_cast<Block*>(mi_malloc_aligned(bytes + kHeader, 16));
    if (!b) throw std::bad_alloc();
    b->next = blocks_head_;
    b->size = bytes + kHeader + 1;  // never a pooled chunk size
    blocks_head_ = b;
    return reinterpret_cast<char*>(b) + kHeader;
  }
  size_t chunk = next_chunk_;
  if (next_chunk_ < kMaxChunk) next_chunk_ *= 2;
  auto* b = t_pool_gone ? nullptr : static_cast<Block*>(t_pool.take(chunk));
  if (!b) b = static_cast<Block*>(mi_malloc_aligned(chunk, 16));
  if (!b) throw std::bad_alloc();
  b->next = blocks_head_;
  b->size = chunk;
  blocks_head_ = b;
  char* mem = reinterpret_cast<char*>(b) + kHeader;
  cur_ = mem + bytes;
  end_ = reinterpret_cast<char*>(b) + chunk;
  return mem;
#endif
}

}  // namespace ptc
