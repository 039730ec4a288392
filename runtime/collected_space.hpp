// The memory a run's collected objects live in: one range of address space
// reserved for the run, with a mark bitmap beside it (one bit per 16-byte
// granule). Objects never move. Between collections the allocator claims
// free runs of granules ("holes") and bumps through them; a collection
// clears the bitmap, marks what is reachable, and every unmarked granule is
// free again.
//
// Why a range of its own: whether a pointer is in the run's collected heap
// is then one comparison, which the tracer asks for every pointer it meets
// (values of other heaps, frozen shared values and static objects are
// neither marked nor traced into). The range is reserved, not committed:
// only the pages an allocation touches cost memory, and regions go back to a
// small per-thread pool so that the next run on the thread pays no system
// call.
//
// The bitmap's rule: between collections, a set bit means "claimed" (the
// allocator set it when it took the granule); during a collection, "marked
// live". A collection starts by clearing it, so both meanings never mix.
// Holes are looked for only below the high mark of the last collection;
// memory past it is handed out fresh, in order, and needs no bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptc {

class CollectedSpace {
 public:
  static constexpr size_t kGranule = 16;

  // A space whose footprint (memory ever handed out) may reach
  // `footprint_cap` bytes: the one this thread kept from its last run when
  // it fits, else a new one. Throws std::bad_alloc when no address range can
  // be reserved. give() ends its use (it is kept for the next run).
  static CollectedSpace* take(size_t footprint_cap);
  // The footprint cap a space asked for `footprint_cap` gets.
  static size_t cap_for(size_t footprint_cap);
  static void give(CollectedSpace* space);
  explicit CollectedSpace(size_t footprint_cap);
  ~CollectedSpace();
  CollectedSpace(const CollectedSpace&) = delete;
  CollectedSpace& operator=(const CollectedSpace&) = delete;

  bool contains(const void* p) const {
    return static_cast<size_t>(static_cast<const char*>(p) - base_) < span_;
  }

  // A free run of at least `min_bytes` (a whole hole, or up to `piece`
  // bytes of a larger one), claimed; fresh memory when no hole below the
  // high-water mark fits. False when the footprint cap leaves no room.
  bool claim_hole(size_t min_bytes, size_t piece, char** begin, char** end);
  // Exactly `bytes` from the first free run that holds them, claimed;
  // nullptr when none does within the footprint cap.
  char* claim_fit(size_t bytes);
  // `bytes` of fresh memory past the high mark (a run's first hole), or
  // nullptr.
  char* take_fresh(size_t bytes) {
    if (kRedzones || bytes > cap_ - footprint()) return nullptr;
    char* p = high_;
    high_ += bytes;
    return p;
  }

  // ---- collection
  void begin_collection();  // every bit cleared
  // Marks the granules of [p, p + bytes). Returns false when the first one
  // was marked already (the object was visited).
  bool mark(const void* p, size_t bytes);
  void mark_range(const void* p, size_t bytes);
  bool is_marked(const void* p) const { return test(granule_of(p)); }
  // Live bytes (marked granules); resets the allocation cursors.
  size_t end_collection();

  size_t footprint() const { return static_cast<size_t>(high_ - base_); }
  size_t footprint_cap() const { return cap_; }
  // Sanitizer builds keep a poisoned granule after every object and prefer
  // fresh memory to holes, so a stale pointer meets poison, not a new object.
  static constexpr bool kRedzones =
#if defined(PTC_ARENA_USE_MALLOC)
      true;
#else
      false;
#endif

 private:
  size_t granule_of(const void* p) const {
    return static_cast<size_t>(static_cast<const char*>(p) - base_) / kGranule;
  }
  bool test(size_t g) const {
    return (bits_[g / 64] >> (g % 64)) & 1;
  }
  void set_bits(size_t from, size_t to);
  size_t next_clear(size_t g, size_t limit) const;
  size_t next_set(size_t g, size_t limit) const;
  // A free run of at least `need` granules at or after *scan, below swept_;
  // *to is at most `want` (>= need) granules past *from.
  bool find_run(size_t* scan, size_t need, size_t want, size_t* from, size_t* to) const;
  bool grow(size_t bytes, char** begin);  // fresh memory past the high mark
  void poison_free() const;
  void clean();  // what give does before keeping it

  char* base_ = nullptr;
  size_t span_ = 0;        // bytes of address space reserved
  size_t cap_ = 0;         // the footprint may not pass this
  char* high_ = nullptr;   // end of the memory ever handed out
  char* swept_ = nullptr;  // high_ when the last collection ended
  bool collected_ = false;
  uint64_t* bits_ = nullptr;
  size_t bits_bytes_ = 0;
  size_t hole_scan_ = 0;  // granule where claim_hole looks next
  size_t fit_scan_ = 0;   // granule where claim_fit looks next
};

}  // namespace ptc
