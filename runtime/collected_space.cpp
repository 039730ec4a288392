#include "runtime/collected_space.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <vector>

#include "runtime/sanitizers.hpp"

#if defined(PTC_SANITIZER_ADDRESS)
#include <sanitizer/asan_interface.h>
#endif

namespace ptc {

namespace {

// Address space is cheap and pooled regions are reused by the next run of
// any cap up to this size, so small caps all share one size.
constexpr size_t kMinSpan = size_t{64} << 20;
// A "no limit" cap still needs an end to its range.
constexpr size_t kMaxSpan = size_t{64} << 30;
// Pages a pooled region keeps touched (the next run on the thread reuses them
// warm); the rest goes back to the kernel when the region is pooled.
constexpr size_t kKeepTouched = size_t{2} << 20;
constexpr size_t kPoolRegions = 4;

struct Region {
  char* base = nullptr;
  size_t span = 0;
  uint64_t* bits = nullptr;
  size_t bits_bytes = 0;
};

void* map_range(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap(const Region& r) {
  ::munmap(r.base, r.span);
  ::munmap(r.bits, r.bits_bytes);
}

size_t span_for(size_t cap) {
  size_t span = kMinSpan;
  while (span < cap && span < kMaxSpan)
    span *= 2;
  return span;
}

// Regions for later runs on this thread. A suspended execution may end on
// another thread than it started on: its region then joins that thread's pool.
struct RegionPool {
  Region free[kPoolRegions];
  size_t count = 0;
  bool gone = false;
  ~RegionPool() {
    gone = true;
    for (size_t i = 0; i < count; ++i)
      unmap(free[i]);
  }
};
thread_local RegionPool t_regions;

Region acquire(size_t span) {
  RegionPool& pool = t_regions;
  for (size_t i = pool.count; i-- > 0;) {
    if (pool.free[i].span != span) continue;
    Region r = pool.free[i];
    pool.free[i] = pool.free[--pool.count];
    return r;
  }
  Region r;
  r.span = span;
  r.base = static_cast<char*>(map_range(span));
  // Huge pages where the kernel gives them on request: a heap's objects are
  // reached at random (a map's trie), and with 4 KB pages the TLB misses
  // made assoc_50000 (bench/gc) 1.5 times slower. Advice only: refused, the
  // region works as before.
  ::madvise(r.base, span, MADV_HUGEPAGE);
  r.bits_bytes = span / CollectedSpace::kGranule / 8;
  try {
    r.bits = static_cast<uint64_t*>(map_range(r.bits_bytes));
  } catch (...) {
    ::munmap(r.base, span);
    throw;
  }
  return r;
}

// `marked`: a collection ran, so bits may be set (claims of holes only
// happen after one).
void release(const Region& r, size_t touched, bool marked) {
#if defined(PTC_SANITIZER_ADDRESS)
  ASAN_UNPOISON_MEMORY_REGION(r.base, touched);
#endif
  RegionPool& pool = t_regions;
  if (pool.gone || pool.count >= kPoolRegions) {
    unmap(r);
    return;
  }
  // The next run finds the bitmap clear: what is kept is cleared here, what
  // is given back reads as zero pages.
  size_t keep_bits = kKeepTouched / CollectedSpace::kGranule / 8;
  size_t bits_touched = (touched / CollectedSpace::kGranule + 63) / 64 * sizeof(uint64_t);
  if (marked) std::memset(r.bits, 0, std::min(bits_touched, keep_bits));
  if (touched > kKeepTouched) {
    ::madvise(r.base + kKeepTouched, touched - kKeepTouched, MADV_DONTNEED);
    ::madvise(reinterpret_cast<char*>(r.bits) + keep_bits, bits_touched - keep_bits, MADV_DONTNEED);
  }
  pool.free[pool.count++] = r;
}

constexpr size_t granules(size_t bytes) {
  return (bytes + CollectedSpace::kGranule - 1) / CollectedSpace::kGranule;
}

}  // namespace

CollectedSpace::CollectedSpace(size_t footprint_cap) {
  Region r = acquire(span_for(footprint_cap));
  base_ = r.base;
  span_ = r.span;
  bits_ = r.bits;
  bits_bytes_ = r.bits_bytes;
  high_ = swept_ = base_;
  cap_ = cap_for(footprint_cap);
}

CollectedSpace::~CollectedSpace() {
  Region r{base_, span_, bits_, bits_bytes_};
  release(r, footprint(), swept_ != base_ || collected_);
}

namespace {
// The space this thread's last run used, ready for the next one: taking it
// is a pointer swap, where a new one would look through the region pool.
struct SpareSpace {
  CollectedSpace* space = nullptr;
  bool gone = false;
  ~SpareSpace() {
    gone = true;
    delete space;
  }
};
thread_local SpareSpace t_spare;
}  // namespace

size_t CollectedSpace::cap_for(size_t footprint_cap) {
  return std::min(footprint_cap, span_for(footprint_cap));
}

CollectedSpace* CollectedSpace::take(size_t footprint_cap) {
  SpareSpace& spare = t_spare;
  if (spare.space && spare.space->span_ == span_for(footprint_cap)) {
    CollectedSpace* s = spare.space;
    spare.space = nullptr;
    s->cap_ = cap_for(footprint_cap);
    return s;
  }
  return new CollectedSpace(footprint_cap);
}

void CollectedSpace::give(CollectedSpace* space) {
  SpareSpace& spare = t_spare;
  if (spare.gone || spare.space || space->footprint() > kKeepTouched) {
    delete space;  // its region goes back to the pool (trimmed)
    return;
  }
  space->clean();
  spare.space = space;
}

void CollectedSpace::clean() {
#if defined(PTC_SANITIZER_ADDRESS)
  ASAN_UNPOISON_MEMORY_REGION(base_, footprint());
#endif
  if (swept_ != base_ || collected_)
    std::memset(bits_, 0, (granule_of(high_) + 63) / 64 * sizeof(uint64_t));
  high_ = swept_ = base_;
  collected_ = false;
  hole_scan_ = fit_scan_ = 0;
}

void CollectedSpace::set_bits(size_t from, size_t to) {
  if (from >= to) return;
  size_t first = from / 64, last = (to - 1) / 64;
  uint64_t head = ~uint64_t{0} << (from % 64);
  uint64_t tail = ~uint64_t{0} >> (63 - (to - 1) % 64);
  if (first == last) {
    bits_[first] |= head & tail;
    return;
  }
  bits_[first] |= head;
  for (size_t w = first + 1; w < last; ++w)
    bits_[w] = ~uint64_t{0};
  bits_[last] |= tail;
}

size_t CollectedSpace::next_clear(size_t g, size_t limit) const {
  while (g < limit) {
    uint64_t w = ~bits_[g / 64] >> (g % 64);
    if (w) return std::min(limit, g + static_cast<size_t>(std::countr_zero(w)));
    g = (g / 64 + 1) * 64;
  }
  return limit;
}

size_t CollectedSpace::next_set(size_t g, size_t limit) const {
  while (g < limit) {
    uint64_t w = bits_[g / 64] >> (g % 64);
    if (w) return std::min(limit, g + static_cast<size_t>(std::countr_zero(w)));
    g = (g / 64 + 1) * 64;
  }
  return limit;
}

bool CollectedSpace::find_run(size_t* scan, size_t need, size_t want, size_t* from,
                              size_t* to) const {
  size_t limit = granule_of(swept_);
  size_t g = *scan;
  while (g < limit) {
    g = next_clear(g, limit);
    if (g >= limit) break;
    // The end of the run, looked for no further than `want` granules: a
    // free heap is one long run, and a claim needs only its start.
    size_t e = next_set(g, std::min(limit, g + want));
    if (e - g >= need) {
      *from = g;
      *to = e;
      return true;
    }
    g = e;
  }
  *scan = limit;
  return false;
}

bool CollectedSpace::grow(size_t bytes, char** begin) {
  if (bytes > cap_ - footprint()) return false;
  *begin = high_;  // past swept_: no bits needed, nothing looks there for holes
#if defined(PTC_SANITIZER_ADDRESS)
  ASAN_POISON_MEMORY_REGION(high_, bytes);
#endif
  high_ += bytes;
  return true;
}

bool CollectedSpace::claim_hole(size_t min_bytes, size_t piece, char** begin, char** end) {
  piece = std::max(piece, min_bytes);
  // Fresh memory first under the sanitizers, so freed granules stay poisoned
  // as long as the footprint cap allows.
  if (kRedzones) {
    size_t bytes = std::max(min_bytes, std::min(piece, cap_ - footprint()));
    if (grow(bytes, begin)) {
      *end = *begin + bytes;
      return true;
    }
  }
  size_t from, to;
  if (find_run(&hole_scan_, granules(min_bytes), granules(piece), &from, &to)) {
    set_bits(from, to);
    hole_scan_ = to;
    *begin = base_ + from * kGranule;
    *end = base_ + to * kGranule;
    return true;
  }
  size_t bytes = std::max(min_bytes, std::min(piece, cap_ - footprint()));
  if (!grow(bytes, begin)) return false;
  *end = *begin + bytes;
  return true;
}

char* CollectedSpace::claim_fit(size_t bytes) {
  char* p = nullptr;
  if (kRedzones && grow(bytes, &p)) return p;
  size_t from, to;
  size_t need = granules(bytes);
  if (find_run(&fit_scan_, need, need, &from, &to)) {
    set_bits(from, from + need);
    fit_scan_ = from + need;
    return base_ + from * kGranule;
  }
  return grow(bytes, &p) ? p : nullptr;
}

void CollectedSpace::begin_collection() {
  collected_ = true;
  std::memset(bits_, 0, (granule_of(high_) + 63) / 64 * sizeof(uint64_t));
}

bool CollectedSpace::mark(const void* p, size_t bytes) {
  size_t g = granule_of(p);
  if (test(g)) return false;
  set_bits(g, g + granules(bytes));
  return true;
}

void CollectedSpace::mark_range(const void* p, size_t bytes) {
  size_t g = granule_of(p);
  set_bits(g, g + granules(bytes));
}

size_t CollectedSpace::end_collection() {
  size_t words = (granule_of(high_) + 63) / 64;
  size_t live = 0;
  for (size_t i = 0; i < words; ++i)
    live += static_cast<size_t>(std::popcount(bits_[i]));
  hole_scan_ = fit_scan_ = 0;
  swept_ = high_;
  poison_free();
  return live * kGranule;
}

void CollectedSpace::poison_free() const {
#if defined(PTC_SANITIZER_ADDRESS)
  size_t limit = granule_of(high_);
  for (size_t g = 0; g < limit;) {
    size_t from = next_clear(g, limit);
    size_t to = next_set(from, limit);
    if (to > from) ASAN_POISON_MEMORY_REGION(base_ + from * kGranule, (to - from) * kGranule);
    g = to;
  }
#endif
}

}  // namespace ptc
