// The collector of a run's heap: precise, non-moving, mark and reuse.
//
// A collection marks every object reachable from the run's roots
// (runtime/roots.hpp) in the collected space's bitmap, finalizes the dead
// objects that own memory outside the arena (compiled regexes), and leaves
// every unmarked granule to the allocator, which bumps through the holes
// (runtime/collected_space.hpp). Its work is proportional to what is live.
//
// Why marking in place rather than copying: native frames (a builtin that
// calls back into the VM, an iterator walking a vector's leaves, a std::sort
// holding an element) keep raw pointers to objects across the calls during
// which a collection may happen. Moving objects would make every such
// pointer stale; marking in place only asks that what they point to be
// reachable from a root, which root scopes make explicit. See
// runtime/README.md for the measurements behind the choice.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/collected_space.hpp"
#include "runtime/value.hpp"

namespace ptc {

class Ctx;

// Marks objects and the buffers that belong to them. Objects are queued when
// first marked and scanned by drain(); buffers (vector tails and leaves,
// trie nodes, builders' storage) are scanned where they are met, by the
// functions that know their layout (vector.cpp, hamt.cpp, hashcoll.cpp).
class Tracer {
 public:
  explicit Tracer(CollectedSpace& space) : space_(space) {}

  // Whether `p` is in the space being collected (else it is neither marked
  // nor traced into).
  bool ours(const void* p) const { return space_.contains(p); }

  void value(Value v) {
    if (v.is_object()) object(v.obj());
  }
  void values(const Value* v, size_t n) {
    for (size_t i = 0; i < n; ++i)
      value(v[i]);
  }
  void object(const Obj* o);
  // Marks `bytes` of a buffer at `p` (ours) and says whether its first granule
  // was unmarked: structures visited once (trie and HAMT nodes) test it.
  bool mark(const void* p, size_t bytes) { return space_.mark(p, bytes); }
  // Marks without the test: a buffer that several views see with different
  // extents (a vector tail) is marked by each.
  void mark_range(const void* p, size_t bytes) { space_.mark_range(p, bytes); }
  void drain();

 private:
  CollectedSpace& space_;
  std::vector<const Obj*> stack_;
};

// Bytes of a heap object, from its header (what its allocation holds).
size_t object_bytes(const Obj* o);

// A collection of ctx's heap (Ctx::collect). A scheduled one (its budget was
// spent, or the stress mode) sets the next budget and throws memory_limit
// when what is live, with the bytes charged to the run, is more than the
// cap. One between (a suspended execution parking) only frees memory: the
// schedule, the regex cache and any verdict stay with the scheduled ones, so
// an execution ends as ptc::run ends the same program.
enum class Collection { Scheduled, Between };
void collect_heap(Ctx& ctx, Collection kind);

// The stress mode of the test builds: every run started afterwards collects
// at every safe point. Only test programs set it (their main reads
// PTC_GC_STRESS; the conformance runner has --gc-stress); nothing the `ptc`
// command or the libraries read turns it on.
void set_collect_stress_for_testing(bool on);
bool collect_stress_for_testing();

}  // namespace ptc
