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
  std::vector<Region> free;
  bool gone = false;
  ~RegionPool() {
    gone = true;
    for (const Region& r : free)
      unmap(r);
  }
};
thread_local RegionPool t_regions;

Region acquire(size_t span) {
  auto& pool = t_regions.free;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (pool[i].span != span) continue;
    Region r = pool[i];
    pool.erase(pool.begin() + static_cast<ptrdiff_t>(i));
    return r;
  }
  Region r;
  r.span = span;
  r.base = static_cast<char*>(map_range(span));
  r.bits_bytes = span / CollectedSpace::kGranule / 8;
  try {
    r.bits = static_cast<uint64_t*>(map_range(r.bits_bytes));
  } catch (...) {
    ::munmap(r.base, span);
    throw;
  }
  return r;
}

void release(const Region& r, size_t touched) {
#if defined(PTC_SANITIZER_ADDRESS)
  ASAN_UNPOISON_MEMORY_REGION(r.base, touched);
#endif
  if (t_regions.gone || t_regions.free.size() >= kPoolRegions) {
    unmap(r);
    return;
  }
  if (touched > kKeepTouched) {
    ::madvise(r.base + kKeepTouched, touched - kKeepTouched, MADV_DONTNEED);
    size_t keep_bits = kKeepTouched / CollectedSpace::kGranule / 8;
    size_t bits_touched = touched / CollectedSpace::kGranule / 8;
    ::madvise(reinterpret_cast<char*>(r.bits) + keep_bits, bits_touched - keep_bits, MADV_DONTNEED);
  }
  t_regions.free.push_back(r);
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
  high_ = base_;
  cap_ = std::min(footprint_cap, span_);
  // A pooled region's bitmap may hold bits of its last run.
  std::memset(bits_, 0, std::min(bits_bytes_, kKeepTouched / kGranule / 8));
}

CollectedSpace::~CollectedSpace() {
  Region r{base_, span_, bits_, bits_bytes_};
  release(r, footprint());
}

void CollectedSpace::set_bits(size_t from, size_t to) {
  while (from < to && from % 64) {
    bits_[from / 64] |= uint64_t{1} << (from % 64);
    ++from;
  }
  for (; from + 64 <= to; from += 64)
    bits_[from / 64] = ~uint64_t{0};
  for (; from < to; ++from)
    bits_[from / 64] |= uint64_t{1} << (from % 64);
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

bool CollectedSpace::find_run(size_t* scan, size_t need, size_t* from, size_t* to) const {
  size_t limit = granule_of(high_);
  size_t g = *scan;
  while (g < limit) {
    g = next_clear(g, limit);
    if (g >= limit) break;
    size_t e = next_set(g, limit);
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
  *begin = high_;
  set_bits(granule_of(high_), granule_of(high_) + granules(bytes));
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
  if (find_run(&hole_scan_, granules(min_bytes), &from, &to)) {
    to = std::min(to, from + granules(piece));
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
  if (find_run(&fit_scan_, need, &from, &to)) {
    set_bits(from, from + need);
    fit_scan_ = from + need;
    return base_ + from * kGranule;
  }
  return grow(bytes, &p) ? p : nullptr;
}

void CollectedSpace::begin_collection() {
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
