#include "runtime/vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/arena.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"

namespace ptc {
namespace {

constexpr uint32_t kSizes[] = {
    0,     1,    2,    31,   32,   33,           63,    64,    65,    1023,
    1024,  1025, 1055, 1056, 1057, 32 * 32 + 64, 32768, 32800, 32801, 32 * 32 * 32 + 33,
    100000};

Limits big_limits() {
  Limits lim;
  lim.max_heap_bytes = size_t{512} << 20;
  return lim;
}

const VecObj* by_conj(Arena& a, uint32_t n, int64_t base = 0) {
  const VecObj* v = empty_vector();
  for (uint32_t i = 0; i < n; ++i)
    v = vec_conj(a, v, Value::integer(base + i));
  return v;
}

const VecObj* by_builder(Arena& a, uint32_t n, int64_t base = 0) {
  VecBuilder b(a);
  for (uint32_t i = 0; i < n; ++i)
    b.push(Value::integer(base + i));
  EXPECT_EQ(b.size(), n);
  return b.finish();
}

// The shift a well-formed vector of `count` elements must have: the trie holds
// tail_offset() values and its root must be the smallest level that fits them.
uint32_t expected_shift(uint32_t count) {
  if (count <= kVecWidth) return kVecBits;
  uint32_t in_trie = ((count - 1) >> kVecBits) << kVecBits;
  uint32_t shift = kVecBits;
  uint64_t capacity = uint64_t{1} << (shift + kVecBits);
  while (in_trie > capacity) {
    shift += kVecBits;
    capacity <<= kVecBits;
  }
  return shift;
}

// Checks the structural invariants of the trie: every leaf of the trie is full,
// there are no stray children past the last used slot, and the tail holds
// between 1 and 32 values.
void check_node(const VecNode* node, uint32_t level, uint64_t first, uint64_t trie_count,
                uint64_t* seen) {
  ASSERT_NE(node, nullptr);
  if (level == 0) {
    *seen += kVecWidth;
    return;
  }
  uint64_t span = uint64_t{1} << level;
  for (uint32_t i = 0; i < kVecWidth; ++i) {
    uint64_t start = first + i * span;
    const auto* child = static_cast<const VecNode*>(node->slots[i]);
    if (start < trie_count) {
      ASSERT_NE(child, nullptr) << "missing child at level " << level << " slot " << i;
      check_node(child, level - kVecBits, start, trie_count, seen);
    } else {
      ASSERT_EQ(child, nullptr) << "stray child at level " << level << " slot " << i;
    }
  }
}

void check_shape(const VecObj* v) {
  ASSERT_EQ(v->type, Type::Vector);
  if (v->count == 0) return;
  ASSERT_GE(v->tail_len(), 1u);
  ASSERT_LE(v->tail_len(), kVecWidth);
  ASSERT_NE(v->tail, nullptr);
  // Trie shape depends on the absolute end: a suffix view keeps its base's trie.
  if (v->end() <= kVecWidth) {
    EXPECT_EQ(v->root, nullptr);
    return;
  }
  EXPECT_EQ(v->shift(), expected_shift(v->end())) << "end " << v->end();
  uint64_t seen = 0;
  check_node(v->root, v->shift(), 0, v->tail_offset(), &seen);
  EXPECT_EQ(seen, v->tail_offset());
}

// Contents 0..n-1 (plus base), through nth, VecIter and chunk_at.
void check_ints(const VecObj* v, uint32_t n, int64_t base = 0) {
  ASSERT_EQ(v->count, n);
  for (uint32_t i = 0; i < n; ++i) {
    Value x = v->nth(i);
    ASSERT_TRUE(x.is_int()) << i;
    ASSERT_EQ(x.as_int(), base + i) << "nth " << i << " of " << n;
  }
  uint32_t expect = 0;
  for (VecIter it(v); !it.done(); it.next()) {
    ASSERT_EQ(it.index(), expect);
    ASSERT_EQ(it.value().as_int(), base + expect);
    ++expect;
  }
  ASSERT_EQ(expect, n);
  // Chunks tile the vector and stop at leaf boundaries.
  uint32_t i = 0;
  while (i < n) {
    uint32_t len = 0;
    const Value* c = v->chunk_at(i, &len);
    ASSERT_GE(len, 1u);
    ASSERT_LE(i + len, n);
    if (v->origin + i < v->tail_offset()) {
      ASSERT_EQ((v->origin + i + len) % kVecWidth, 0u) << "chunk crosses a leaf";
    }
    for (uint32_t k = 0; k < len; ++k)
      ASSERT_EQ(c[k].as_int(), base + i + k);
    i += len;
  }
}

TEST(Vector, EmptyVector) {
  const VecObj* e = empty_vector();
  EXPECT_EQ(e->type, Type::Vector);
  EXPECT_EQ(e->count, 0u);
  EXPECT_TRUE(VecIter(e).done());
  EXPECT_EQ(empty_vector(), e);
  Limits lim;
  Ctx ctx(lim);
  EXPECT_EQ(vec_from(ctx.arena, nullptr, 0)->count, 0u);
  VecBuilder b(ctx.arena);
  EXPECT_EQ(b.finish()->count, 0u);
}

TEST(Vector, ConjAtEveryBoundary) {
  Limits lim = big_limits();
  for (uint32_t n : kSizes) {
    Ctx ctx(lim);
    const VecObj* v = by_conj(ctx.arena, n);
    SCOPED_TRACE(n);
    check_shape(v);
    check_ints(v, n);
  }
}

TEST(Vector, BuilderAtEveryBoundaryMatchesConj) {
  Limits lim = big_limits();
  for (uint32_t n : kSizes) {
    Ctx ctx(lim);
    SCOPED_TRACE(n);
    const VecObj* b = by_builder(ctx.arena, n);
    const VecObj* c = by_conj(ctx.arena, n);
    check_shape(b);
    check_ints(b, n);
    EXPECT_EQ(b->count, c->count);
    EXPECT_EQ(b->shift(), c->shift());
    EXPECT_EQ(b->tail_len(), c->tail_len());
    // A builder result keeps growing correctly with conj.
    const VecObj* more = b;
    for (uint32_t i = 0; i < 70; ++i)
      more = vec_conj(ctx.arena, more, Value::integer(n + i));
    check_shape(more);
    check_ints(more, n + 70);
    check_ints(b, n);
  }
}

TEST(Vector, VecFromCopiesItems) {
  Limits lim;
  Ctx ctx(lim);
  std::vector<Value> items;
  for (int i = 0; i < 100; ++i)
    items.push_back(Value::integer(i));
  const VecObj* v = vec_from(ctx.arena, items.data(), items.size());
  items.assign(items.size(), Value::integer(-1));
  check_shape(v);
  check_ints(v, 100);
}

TEST(Vector, SmallVecFromDoesNotReserveAFullLeaf) {
  // A two-element vector must not cost a 32-slot leaf against the memory cap
  // (the 16 bytes on top are the claimable tail's header).
  Limits lim;
  Ctx ctx(lim);
  Value items[2] = {Value::integer(1), Value::integer(2)};
  size_t before = ctx.arena.used();
  const VecObj* v = vec_from(ctx.arena, items, 2);
  EXPECT_LE(ctx.arena.used() - before, sizeof(VecObj) + 4 * sizeof(Value) + 16);
  check_ints(v, 2, 1);
  VecBuilder b(ctx.arena);
  before = ctx.arena.used();
  b.push(Value::integer(7));
  const VecObj* w = b.finish();
  EXPECT_LE(ctx.arena.used() - before, sizeof(VecObj) + 4 * sizeof(Value) + 16);
  check_ints(w, 1, 7);
}

TEST(Vector, BuilderPushAll) {
  Limits lim;
  Ctx ctx(lim);
  const VecObj* a = by_conj(ctx.arena, 40);
  const VecObj* b = by_builder(ctx.arena, 1000, 40);
  VecBuilder bl(ctx.arena);
  bl.push_all(a);
  bl.push_all(empty_vector());
  bl.push_all(b);
  EXPECT_EQ(bl.size(), 1040u);
  const VecObj* all = bl.finish();
  check_shape(all);
  check_ints(all, 1040);
}

TEST(Vector, PersistenceOfConj) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  std::vector<const VecObj*> versions{empty_vector()};
  constexpr uint32_t kN = 1100;
  for (uint32_t i = 0; i < kN; ++i)
    versions.push_back(vec_conj(ctx.arena, versions.back(), Value::integer(i)));
  for (uint32_t n = 0; n <= kN; ++n)
    check_ints(versions[n], n);
  // Branching: conj onto an old version leaves the newer versions untouched.
  const VecObj* branch = vec_conj(ctx.arena, versions[40], Value::integer(-5));
  EXPECT_EQ(branch->nth(40).as_int(), -5);
  EXPECT_EQ(versions[41]->nth(40).as_int(), 40);
  const VecObj* branch2 = vec_conj(ctx.arena, versions[1024], Value::integer(-6));
  EXPECT_EQ(branch2->nth(1024).as_int(), -6);
  check_ints(versions[1025], 1025);
}

TEST(Vector, AssocAtEveryIndexOfMultiLevelVector) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  constexpr uint32_t kN = 32 * 32 * 32 + 33;  // three trie levels plus a tail
  const VecObj* v = by_builder(ctx.arena, kN);
  ASSERT_EQ(v->shift(), 3 * kVecBits);
  for (uint32_t i = 0; i < kN; ++i) {
    const VecObj* w = vec_assoc(ctx.arena, v, i, Value::integer(-1));
    ASSERT_EQ(w->count, kN);
    ASSERT_EQ(w->nth(i).as_int(), -1);
    if (i > 0) {
      ASSERT_EQ(w->nth(i - 1).as_int(), i - 1);
    }
    if (i + 1 < kN) {
      ASSERT_EQ(w->nth(i + 1).as_int(), i + 1);
    }
    ASSERT_EQ(v->nth(i).as_int(), i) << "assoc modified its input";
  }
  check_ints(v, kN);
  // Chained assoc rewrites every index; the original stays intact.
  const VecObj* w = v;
  for (uint32_t i = 0; i < kN; ++i)
    w = vec_assoc(ctx.arena, w, i, Value::integer(int64_t{i} + 1000000));
  check_shape(w);
  check_ints(w, kN, 1000000);
  check_ints(v, kN);
}

TEST(Vector, AssocInTailAndSmallVectors) {
  Limits lim;
  Ctx ctx(lim);
  for (uint32_t n : {1u, 5u, 32u, 33u, 64u, 65u}) {
    const VecObj* v = by_conj(ctx.arena, n);
    for (uint32_t i = 0; i < n; ++i) {
      const VecObj* w = vec_assoc(ctx.arena, v, i, Value::integer(99));
      ASSERT_EQ(w->nth(i).as_int(), 99);
      ASSERT_EQ(v->nth(i).as_int(), i);
      // conj after assoc in the tail must not disturb the assoc'd vector.
      const VecObj* x = vec_conj(ctx.arena, w, Value::integer(7));
      ASSERT_EQ(x->nth(n).as_int(), 7);
      ASSERT_EQ(w->count, n);
      ASSERT_EQ(x->nth(i).as_int(), 99);
    }
  }
}

TEST(Vector, PopDownToEmpty) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  constexpr uint32_t kN = 32 * 32 * 32 + 33;
  const VecObj* full = by_conj(ctx.arena, kN);
  const VecObj* v = full;
  for (uint32_t n = kN; n > 0; --n) {
    const VecObj* p = vec_pop(ctx.arena, v);
    ASSERT_EQ(p->count, n - 1);
    ASSERT_EQ(v->count, n) << "pop modified its input";
    ASSERT_EQ(v->nth(n - 1).as_int(), n - 1);
    if (n > 1) {
      ASSERT_EQ(p->nth(n - 2).as_int(), n - 2);
    }
    // Around the boundaries check the whole structure.
    uint32_t m = n - 1;
    if (m % kVecWidth <= 1 || m % 1024 <= 1 || m < 70) {
      check_shape(p);
      if (m % 1024 <= 1 || m < 70) check_ints(p, m);
    }
    v = p;
  }
  EXPECT_EQ(v->count, 0u);
  check_ints(full, kN);
}

TEST(Vector, PopThenConjRebuildsTheSameVector) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  for (uint32_t n : {33u, 64u, 65u, 1056u, 1057u, 1089u, 32801u}) {
    SCOPED_TRACE(n);
    const VecObj* v = by_conj(ctx.arena, n);
    const VecObj* p = v;
    for (int k = 0; k < 40 && p->count > 0; ++k)
      p = vec_pop(ctx.arena, p);
    check_shape(p);
    uint32_t m = p->count;
    for (uint32_t i = m; i < n; ++i)
      p = vec_conj(ctx.arena, p, Value::integer(i));
    check_shape(p);
    check_ints(p, n);
  }
}

TEST(Vector, Slices) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  const VecObj* v = by_builder(ctx.arena, 2000);
  EXPECT_EQ(vec_slice(ctx.arena, v, 0, 2000), v);
  EXPECT_EQ(vec_slice(ctx.arena, v, 5, 5)->count, 0u);
  EXPECT_EQ(vec_slice(ctx.arena, v, 7, 3)->count, 0u);
  // An end past the count is clamped instead of reading past the end.
  check_ints(vec_slice(ctx.arena, v, 1990, 5000), 10, 1990);
  EXPECT_EQ(vec_slice(ctx.arena, v, 2500, 5000)->count, 0u);
  const std::pair<uint32_t, uint32_t> ranges[] = {{0, 1},     {0, 32},     {1, 33},      {31, 64},
                                                  {32, 1056}, {100, 1157}, {1999, 2000}, {1, 2000}};
  for (auto [from, to] : ranges) {
    const VecObj* s = vec_slice(ctx.arena, v, from, to);
    SCOPED_TRACE(from);
    check_shape(s);
    check_ints(s, to - from, from);
  }
  check_ints(v, 2000);
}

TEST(Vector, SuffixSlicesShareStructureAndStayPersistent) {
  Limits lim;
  Ctx ctx(lim);
  const VecObj* v = by_builder(ctx.arena, 1000);
  size_t before = ctx.arena.used();
  const VecObj* rest = vec_slice(ctx.arena, v, 1, v->count);
  EXPECT_LE(ctx.arena.used() - before, sizeof(VecObj)) << "a suffix is a view, not a copy";
  check_ints(rest, 999, 1);
  check_shape(rest);
  // Walking a vector with rest costs O(1) per step.
  const VecObj* cur = v;
  before = ctx.arena.used();
  for (int i = 0; i < 999; ++i)
    cur = vec_slice(ctx.arena, cur, 1, cur->count);
  EXPECT_LE(ctx.arena.used() - before, 999 * sizeof(VecObj));
  check_ints(cur, 1, 999);
  // Updating a view leaves the base untouched, and vice versa.
  const VecObj* c = vec_conj(ctx.arena, rest, Value::integer(1000));
  check_ints(c, 1000, 1);
  check_ints(v, 1000, 0);
  const VecObj* a = vec_assoc(ctx.arena, rest, 0, Value::integer(-1));
  EXPECT_EQ(a->nth(0).as_int(), -1);
  EXPECT_EQ(rest->nth(0).as_int(), 1);
  const VecObj* p = vec_pop(ctx.arena, rest);
  check_ints(p, 998, 1);
  check_ints(rest, 999, 1);
  // Views of views, down to the tail and past it.
  const VecObj* deep = vec_slice(ctx.arena, vec_slice(ctx.arena, v, 500, 1000), 490, 500);
  check_ints(deep, 10, 990);
  check_shape(deep);
}

TEST(Vector, ConjOnTheNewestVersionAppendsInPlace) {
  Limits lim;
  Ctx ctx(lim);
  const VecObj* v = empty_vector();
  size_t before = ctx.arena.used();
  for (int i = 0; i < 10000; ++i)
    v = vec_conj(ctx.arena, v, Value::integer(i));
  // About one header per conj, the leaves, and the trie path copies every 32
  // conj; no tail copy each time (which cost ~300 bytes per conj).
  EXPECT_LE(ctx.arena.used() - before, 10000 * (sizeof(VecObj) + 3 * sizeof(Value)));
  check_ints(v, 10000, 0);
  check_shape(v);
  // Branching from an older version copies instead of overwriting.
  const VecObj* base = by_builder(ctx.arena, 40);
  const VecObj* b1 = vec_conj(ctx.arena, base, Value::integer(100));
  const VecObj* b2 = vec_conj(ctx.arena, base, Value::integer(200));
  EXPECT_EQ(b1->nth(40).as_int(), 100);
  EXPECT_EQ(b2->nth(40).as_int(), 200);
  check_ints(base, 40, 0);
  // pop then conj must not clobber the popped-off element of the original.
  const VecObj* popped = vec_pop(ctx.arena, b1);
  const VecObj* again = vec_conj(ctx.arena, popped, Value::integer(300));
  EXPECT_EQ(b1->nth(40).as_int(), 100);
  EXPECT_EQ(again->nth(40).as_int(), 300);
}

TEST(Vector, IterFromOffsets) {
  Limits lim;
  Ctx ctx(lim);
  const VecObj* v = by_builder(ctx.arena, 1100);
  for (uint32_t start : {0u, 1u, 31u, 32u, 33u, 1055u, 1056u, 1057u, 1099u, 1100u, 2000u}) {
    uint32_t expect = start;
    for (VecIter it(v, start); !it.done(); it.next()) {
      ASSERT_EQ(it.value().as_int(), expect);
      ++expect;
    }
    EXPECT_EQ(expect, std::max(start, 1100u));
  }
}

TEST(Vector, RandomOperationsAgainstModel) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  std::mt19937 rng(12345);
  std::vector<int64_t> model;
  const VecObj* v = empty_vector();
  std::vector<std::pair<const VecObj*, std::vector<int64_t>>> snapshots;
  for (int step = 0; step < 20000; ++step) {
    uint32_t r = rng() % 100;
    if (r < 55 || model.empty()) {
      int64_t x = static_cast<int64_t>(rng());
      v = vec_conj(ctx.arena, v, Value::integer(x));
      model.push_back(x);
    } else if (r < 80) {
      uint32_t i = rng() % model.size();
      int64_t x = static_cast<int64_t>(rng());
      v = vec_assoc(ctx.arena, v, i, Value::integer(x));
      model[i] = x;
    } else if (r < 98) {
      // Pop a run, to move back across leaf and level boundaries.
      uint32_t k = 1 + rng() % 40;
      for (uint32_t j = 0; j < k && !model.empty(); ++j) {
        v = vec_pop(ctx.arena, v);
        model.pop_back();
      }
    } else {
      uint32_t a = rng() % (model.size() + 1), b = rng() % (model.size() + 1);
      if (a > b) std::swap(a, b);
      v = vec_slice(ctx.arena, v, a, b);
      model = std::vector<int64_t>(model.begin() + a, model.begin() + b);
    }
    ASSERT_EQ(v->count, model.size());
    if (!model.empty()) {
      ASSERT_EQ(v->nth(static_cast<uint32_t>(model.size() - 1)).as_int(), model.back());
    }
    if (step % 500 == 0) snapshots.emplace_back(v, model);
  }
  for (auto& [sv, sm] : snapshots) {
    check_shape(sv);
    ASSERT_EQ(sv->count, sm.size());
    uint32_t i = 0;
    for (VecIter it(sv); !it.done(); it.next(), ++i)
      ASSERT_EQ(it.value().as_int(), sm[i]);
  }
}

TEST(Vector, HundredThousandElements) {
  Limits lim = big_limits();
  Ctx ctx(lim);
  const VecObj* v = by_builder(ctx.arena, 100000);
  check_shape(v);
  EXPECT_EQ(v->shift(), 3 * kVecBits);
  int64_t sum = 0;
  for (VecIter it(v); !it.done(); it.next())
    sum += it.value().as_int();
  EXPECT_EQ(sum, int64_t{99999} * 100000 / 2);
  const VecObj* w = vec_assoc(ctx.arena, v, 54321, Value::integer(-1));
  EXPECT_EQ(w->nth(54321).as_int(), -1);
  EXPECT_EQ(v->nth(54321).as_int(), 54321);
}

TEST(Vector, ArenaCapStopsGrowth) {
  Limits lim;
  lim.max_heap_bytes = 64 * 1024;
  Ctx ctx(lim);
  try {
    by_conj(ctx.arena, 100000);
    FAIL() << "expected a memory limit error";
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::MemoryLimit);
  }
  EXPECT_LE(ctx.arena.used(), ctx.arena.cap());
  Ctx ctx2(lim);
  EXPECT_THROW(by_builder(ctx2.arena, 100000), LispError);
}

}  // namespace
}  // namespace ptc
