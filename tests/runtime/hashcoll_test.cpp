#include "runtime/hashcoll.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/ctx.hpp"
#include "runtime/equality.hpp"
#include "runtime/hamt.hpp"
#include "runtime/hash.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"

namespace ptc {
namespace {

// ---------------------------------------------------------------------------
// HAMT

using Multi = std::map<uint32_t, std::set<uint32_t>>;  // hash -> slots

std::set<uint32_t> candidates(const HamtNode* root, uint32_t hash) {
  std::set<uint32_t> out;
  hamt_for_each_candidate(root, hash, [&](uint32_t slot) {
    EXPECT_TRUE(out.insert(slot).second) << "slot " << slot << " reported twice";
    return false;
  });
  return out;
}

void check_hamt(const HamtNode* root, const Multi& model, const std::vector<uint32_t>& probes) {
  for (const auto& [h, slots] : model)
    ASSERT_EQ(candidates(root, h), slots) << "hash " << std::hex << h;
  for (uint32_t h : probes) {
    auto it = model.find(h);
    ASSERT_EQ(candidates(root, h), it == model.end() ? std::set<uint32_t>{} : it->second)
        << "probe " << std::hex << h;
  }
}

// Hashes chosen to share prefixes at every level: equal hashes, hashes that
// differ only in the top two bits (the last, partial level), only in bit 0, and
// in one bit of each 5-bit chunk.
std::vector<uint32_t> tricky_hashes() {
  std::vector<uint32_t> hs = {0u,          1u,          0x80000000u, 0x40000000u, 0xC0000000u,
                              0x12345678u, 0x12345679u, 0x52345678u, 0x92345678u, 0xD2345678u,
                              0xFFFFFFFFu, 0x7FFFFFFFu, 0xBFFFFFFFu, 0xFFFFFFFEu};
  for (uint32_t bit = 0; bit < 32; ++bit)
    hs.push_back(0xA5A5A5A5u ^ (1u << bit));
  hs.push_back(0xA5A5A5A5u);
  return hs;
}

TEST(Hamt, EmptyAndSingle) {
  Limits lim;
  Ctx ctx(lim);
  EXPECT_TRUE(candidates(nullptr, 5).empty());
  const HamtNode* r = hamt_insert(ctx.arena, nullptr, 0xDEADBEEFu, 7);
  EXPECT_EQ(candidates(r, 0xDEADBEEFu), std::set<uint32_t>{7});
  EXPECT_TRUE(candidates(r, 0xDEADBEEEu).empty());
  EXPECT_EQ(hamt_remove(ctx.arena, r, 0xDEADBEEFu, 7), nullptr);
  // Removing an absent entry leaves the node as it is.
  EXPECT_EQ(hamt_remove(ctx.arena, r, 0xDEADBEEFu, 8), r);
  EXPECT_EQ(hamt_remove(ctx.arena, r, 0xDEADBEEEu, 7), r);
  std::vector<HamtEntry> none;
  EXPECT_EQ(hamt_build(ctx.arena, none), nullptr);
}

TEST(Hamt, EarlyStopReturnsTrue) {
  Limits lim;
  Ctx ctx(lim);
  const HamtNode* r = nullptr;
  for (uint32_t s = 0; s < 5; ++s)
    r = hamt_insert(ctx.arena, r, 42u, s);  // a collision node of five
  int calls = 0;
  EXPECT_TRUE(hamt_for_each_candidate(r, 42u, [&](uint32_t slot) {
    ++calls;
    return slot == 2;
  }));
  EXPECT_LE(calls, 5);
  EXPECT_FALSE(hamt_for_each_candidate(r, 42u, [&](uint32_t) { return false; }));
  EXPECT_FALSE(hamt_for_each_candidate(r, 43u, [&](uint32_t) { return true; }));
}

TEST(Hamt, FullCollisionsInsertRemove) {
  Limits lim;
  Ctx ctx(lim);
  const HamtNode* r = nullptr;
  Multi model;
  std::vector<const HamtNode*> roots;
  std::vector<Multi> models;
  for (uint32_t s = 0; s < 20; ++s) {
    r = hamt_insert(ctx.arena, r, 0x0BADF00Du, s);
    model[0x0BADF00Du].insert(s);
    roots.push_back(r);
    models.push_back(model);
  }
  std::vector<uint32_t> probes = {0x0BADF00Cu, 0x8BADF00Du, 0x4BADF00Du};
  check_hamt(r, model, probes);
  for (uint32_t s : {5u, 0u, 19u, 7u}) {
    r = hamt_remove(ctx.arena, r, 0x0BADF00Du, s);
    model[0x0BADF00Du].erase(s);
    check_hamt(r, model, probes);
  }
  // Old versions are unchanged.
  for (size_t i = 0; i < roots.size(); ++i)
    check_hamt(roots[i], models[i], probes);
  for (uint32_t s = 0; s < 20; ++s)
    r = hamt_remove(ctx.arena, r, 0x0BADF00Du, s);
  EXPECT_EQ(r, nullptr);
}

TEST(Hamt, RandomOperationsOnTrickyHashes) {
  Limits lim;
  lim.max_heap_bytes = size_t{256} << 20;
  Ctx ctx(lim);
  std::mt19937 rng(7);
  std::vector<uint32_t> pool = tricky_hashes();
  for (int i = 0; i < 30; ++i)
    pool.push_back(static_cast<uint32_t>(rng()));
  const HamtNode* r = nullptr;
  Multi model;
  std::vector<std::pair<const HamtNode*, Multi>> snapshots;
  std::vector<std::pair<uint32_t, uint32_t>> live;  // (hash, slot)
  uint32_t next_slot = 0;
  for (int step = 0; step < 6000; ++step) {
    if (live.empty() || rng() % 100 < 60) {
      uint32_t h = pool[rng() % pool.size()];
      uint32_t s = next_slot++;
      r = hamt_insert(ctx.arena, r, h, s);
      model[h].insert(s);
      live.emplace_back(h, s);
    } else {
      size_t k = rng() % live.size();
      auto [h, s] = live[k];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      r = hamt_remove(ctx.arena, r, h, s);
      model[h].erase(s);
      if (model[h].empty()) model.erase(h);
    }
    if (step % 50 == 0) {
      check_hamt(r, model, pool);
      snapshots.emplace_back(r, model);
    }
  }
  check_hamt(r, model, pool);
  for (auto& [root, m] : snapshots)
    check_hamt(root, m, pool);
  // Remove everything: the index empties completely.
  for (auto [h, s] : live)
    r = hamt_remove(ctx.arena, r, h, s);
  EXPECT_EQ(r, nullptr);
}

TEST(Hamt, BuildMatchesInserts) {
  Limits lim;
  lim.max_heap_bytes = size_t{64} << 20;
  Ctx ctx(lim);
  std::mt19937 rng(99);
  std::vector<uint32_t> pool = tricky_hashes();
  for (size_t n : {1u, 2u, 3u, 33u, 100u, 2000u}) {
    std::vector<HamtEntry> entries;
    Multi model;
    const HamtNode* inserted = nullptr;
    for (uint32_t s = 0; s < n; ++s) {
      uint32_t h = rng() % 3 == 0 ? pool[rng() % pool.size()] : static_cast<uint32_t>(rng());
      entries.push_back(HamtEntry{h, s});
      model[h].insert(s);
      inserted = hamt_insert(ctx.arena, inserted, h, s);
    }
    const HamtNode* built = hamt_build(ctx.arena, entries);
    check_hamt(built, model, pool);
    check_hamt(inserted, model, pool);
    // A built index supports removal of everything.
    for (const auto& [h, slots] : model)
      for (uint32_t s : slots)
        built = hamt_remove(ctx.arena, built, h, s);
    EXPECT_EQ(built, nullptr);
  }
}

// ---------------------------------------------------------------------------
// Maps and sets

struct Model {
  std::vector<std::pair<Value, Value>> entries;  // insertion order
  int find(Value k) const {
    for (size_t i = 0; i < entries.size(); ++i)
      if (equals(entries[i].first, k)) return static_cast<int>(i);
    return -1;
  }
  void assoc(Value k, Value v) {
    int i = find(k);
    if (i >= 0)
      entries[static_cast<size_t>(i)].second = v;
    else
      entries.emplace_back(k, v);
  }
  void dissoc(Value k) {
    int i = find(k);
    if (i >= 0) entries.erase(entries.begin() + i);
  }
};

void check_map(const MapObj* m, const Model& model, const std::vector<Value>& probes) {
  ASSERT_EQ(m->type, Type::Map);
  ASSERT_EQ(m->count, model.entries.size());
  size_t i = 0;
  for (HashIter it(m); !it.done(); it.next(), ++i) {
    ASSERT_LT(i, model.entries.size());
    ASSERT_TRUE(equals(it.key(), model.entries[i].first)) << "order differs at " << i;
    ASSERT_TRUE(it.key().identical(model.entries[i].first)) << "stored key replaced at " << i;
    ASSERT_TRUE(it.val().identical(model.entries[i].second)) << "value differs at " << i;
  }
  ASSERT_EQ(i, model.entries.size());
  for (Value k : probes) {
    int at = model.find(k);
    const Value* got = map_find(m, k);
    if (at < 0) {
      ASSERT_EQ(got, nullptr) << print_to_string(k);
    } else {
      ASSERT_NE(got, nullptr) << print_to_string(k);
      ASSERT_TRUE(got->identical(model.entries[static_cast<size_t>(at)].second));
    }
  }
}

void check_set(const SetObj* s, const Model& model, const std::vector<Value>& probes) {
  ASSERT_EQ(s->type, Type::Set);
  ASSERT_EQ(s->count, model.entries.size());
  size_t i = 0;
  for (HashIter it(s); !it.done(); it.next(), ++i) {
    ASSERT_LT(i, model.entries.size());
    ASSERT_TRUE(it.key().identical(model.entries[i].first)) << "order differs at " << i;
    ASSERT_TRUE(it.val().identical(it.key()));
  }
  ASSERT_EQ(i, model.entries.size());
  for (Value k : probes) {
    int at = model.find(k);
    const Value* got = set_find(s, k);
    ASSERT_EQ(set_contains(s, k), at >= 0);
    if (at >= 0) {
      ASSERT_NE(got, nullptr);
      ASSERT_TRUE(got->identical(model.entries[static_cast<size_t>(at)].first));
    }
  }
}

// A pool of distinct keys of many types; several pairs are equal across types
// (1 and 1.0, the bignum and its double) to check that = decides identity.
std::vector<Value> key_pool(Ctx& ctx, int n_ints) {
  std::vector<Value> keys;
  for (int i = 0; i < n_ints; ++i)
    keys.push_back(Value::integer(i * 7 - 100));
  for (int i = 0; i < 40; ++i) {
    keys.push_back(ctx.string("s" + std::to_string(i)));
    keys.push_back(ctx.keyword("k" + std::to_string(i)));
    keys.push_back(Value::floating(i + 0.5));
  }
  keys.push_back(Value::nil());
  keys.push_back(Value::boolean(true));
  keys.push_back(Value::boolean(false));
  keys.push_back(ctx.string(""));
  Value v12[2] = {Value::integer(1), Value::integer(2)};
  keys.push_back(vec_value(vec_from(ctx.arena, v12, 2)));
  keys.push_back(vec_value(empty_vector()));
  keys.push_back(Value::object(empty_map()));
  keys.push_back(Value::object(empty_set()));
  return keys;
}

// Keys equal to pool members but of another representation.
std::vector<Value> equal_twins(Ctx& ctx) {
  Value v12[2] = {Value::floating(1.0), Value::integer(2)};
  return {Value::floating(-100.0), Value::floating(-93.0), Value::floating(-0.0),
          ctx.string("s3"),        ctx.string("k3"),       vec_value(vec_from(ctx.arena, v12, 2))};
}

TEST(Map, EmptyMapAndSet) {
  EXPECT_EQ(empty_map()->type, Type::Map);
  EXPECT_EQ(empty_set()->type, Type::Set);
  EXPECT_EQ(empty_map()->count, 0u);
  EXPECT_TRUE(HashIter(empty_map()).done());
  EXPECT_TRUE(HashIter(empty_set()).done());
  EXPECT_EQ(map_find(empty_map(), Value::integer(1)), nullptr);
  EXPECT_FALSE(set_contains(empty_set(), Value()));
  Limits lim;
  Ctx ctx(lim);
  EXPECT_EQ(map_dissoc(ctx.arena, empty_map(), Value::integer(1)), empty_map());
  EXPECT_EQ(set_disj(ctx.arena, empty_set(), Value::integer(1)), empty_set());
}

TEST(Map, SmallToLargeAndBackKeepsOrder) {
  Limits lim;
  Ctx ctx(lim);
  Model model;
  const MapObj* m = empty_map();
  std::vector<Value> keys;
  for (int i = 0; i < 20; ++i)
    keys.push_back(ctx.keyword("key" + std::to_string(19 - i)));
  for (int i = 0; i < 20; ++i) {
    m = map_assoc(ctx.arena, m, keys[i], Value::integer(i));
    model.assoc(keys[i], Value::integer(i));
    check_map(m, model, keys);
    EXPECT_EQ(m->small(), i < static_cast<int>(kSmallMax));
  }
  // Re-assoc keeps the position, in both forms.
  m = map_assoc(ctx.arena, m, keys[3], Value::integer(-3));
  model.assoc(keys[3], Value::integer(-3));
  check_map(m, model, keys);
  for (int i = 0; i < 20; i += 2) {
    m = map_dissoc(ctx.arena, m, keys[i]);
    model.dissoc(keys[i]);
    check_map(m, model, keys);
  }
  for (int i = 1; i < 20; i += 2) {
    m = map_dissoc(ctx.arena, m, keys[i]);
    model.dissoc(keys[i]);
    check_map(m, model, keys);
  }
  EXPECT_EQ(m->count, 0u);
}

TEST(Map, AssocSameValueReturnsSameMap) {
  Limits lim;
  Ctx ctx(lim);
  const MapObj* m = empty_map();
  for (int i = 0; i < 12; ++i)
    m = map_assoc(ctx.arena, m, Value::integer(i), Value::integer(i));
  EXPECT_EQ(map_assoc(ctx.arena, m, Value::integer(5), Value::integer(5)), m);
  const MapObj* m2 = map_assoc(ctx.arena, m, Value::integer(5), Value::integer(6));
  EXPECT_NE(m2, m);
  EXPECT_EQ(map_get(m, Value::integer(5)).as_int(), 5);
  EXPECT_EQ(map_get(m2, Value::integer(5)).as_int(), 6);
  EXPECT_TRUE(map_get(m2, Value::integer(99), Value::boolean(false)).is_bool());
}

TEST(Map, NumericKeysAreEqualAcrossTypes) {
  Limits lim;
  Ctx ctx(lim);
  for (int size : {3, 30}) {
    const MapObj* m = empty_map();
    for (int i = 0; i < size; ++i)
      m = map_assoc(ctx.arena, m, Value::integer(i), Value::integer(i));
    const Value* v = map_find(m, Value::floating(1.0));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->as_int(), 1);
    EXPECT_NE(map_find(m, Value::floating(-0.0)), nullptr);
    EXPECT_EQ(map_find(m, Value::floating(1.5)), nullptr);
    // assoc with 2.0 replaces the value of 2 and keeps the key 2.
    m = map_assoc(ctx.arena, m, Value::floating(2.0), ctx.string("two"));
    EXPECT_EQ(m->count, static_cast<uint32_t>(size));
    for (HashIter it(m); !it.done(); it.next())
      EXPECT_TRUE(it.key().is_int());
    EXPECT_TRUE(map_get(m, Value::integer(2)).is_string());
    m = map_dissoc(ctx.arena, m, Value::floating(0.0));
    EXPECT_EQ(map_find(m, Value::integer(0)), nullptr);
    EXPECT_EQ(m->count, static_cast<uint32_t>(size - 1));
  }
}

TEST(Map, RandomOperationsAgainstModel) {
  Limits lim;
  lim.max_heap_bytes = size_t{256} << 20;
  Ctx ctx(lim);
  std::mt19937 rng(2024);
  std::vector<Value> keys = key_pool(ctx, 300);
  std::vector<Value> probes = keys;
  for (Value t : equal_twins(ctx))
    probes.push_back(t);
  probes.push_back(Value::integer(1000000));
  probes.push_back(ctx.string("absent"));
  Model model;
  const MapObj* m = empty_map();
  std::vector<std::pair<const MapObj*, Model>> snapshots;
  for (int step = 0; step < 8000; ++step) {
    uint32_t r = rng() % 100;
    // Phases grow and shrink the map so that it crosses the small/large and
    // compaction thresholds many times.
    bool growing = (step / 1000) % 2 == 0;
    Value k = keys[rng() % (growing ? keys.size() : std::min<size_t>(keys.size(), 60))];
    if (r < (growing ? 70u : 30u)) {
      Value v = Value::integer(static_cast<int64_t>(rng()));
      m = map_assoc(ctx.arena, m, k, v);
      model.assoc(k, v);
    } else {
      if (rng() % 4 == 0 && !model.entries.empty())
        k = model.entries[rng() % model.entries.size()].first;
      m = map_dissoc(ctx.arena, m, k);
      model.dissoc(k);
    }
    ASSERT_EQ(m->count, model.entries.size()) << "step " << step;
    if (step % 97 == 0) {
      check_map(m, model, probes);
      snapshots.emplace_back(m, model);
    }
  }
  check_map(m, model, probes);
  for (auto& [sm, smodel] : snapshots)
    check_map(sm, smodel, probes);
}

TEST(Set, RandomOperationsAgainstModel) {
  Limits lim;
  lim.max_heap_bytes = size_t{256} << 20;
  Ctx ctx(lim);
  std::mt19937 rng(77);
  std::vector<Value> keys = key_pool(ctx, 200);
  std::vector<Value> probes = keys;
  for (Value t : equal_twins(ctx))
    probes.push_back(t);
  Model model;
  const SetObj* s = empty_set();
  std::vector<std::pair<const SetObj*, Model>> snapshots;
  for (int step = 0; step < 6000; ++step) {
    bool growing = (step / 800) % 2 == 0;
    Value k = keys[rng() % keys.size()];
    if (rng() % 100 < (growing ? 75u : 25u)) {
      const SetObj* before = s;
      bool had = model.find(k) >= 0;
      s = set_conj(ctx.arena, s, k);
      if (had) {
        ASSERT_EQ(s, before) << "conj of a present element must not copy";
      }
      if (!had) model.entries.emplace_back(k, k);
    } else {
      s = set_disj(ctx.arena, s, k);
      model.dissoc(k);
    }
    ASSERT_EQ(s->count, model.entries.size());
    if (step % 101 == 0) {
      check_set(s, model, probes);
      snapshots.emplace_back(s, model);
    }
  }
  check_set(s, model, probes);
  for (auto& [ss, smodel] : snapshots)
    check_set(ss, smodel, probes);
}

// Pins the hash seed for one test and restores the process seed after it.
struct SeedGuard {
  explicit SeedGuard(uint64_t seed) : saved(hash_seed()) { set_hash_seed_for_testing(seed); }
  ~SeedGuard() { set_hash_seed_for_testing(saved); }
  SeedGuard(const SeedGuard&) = delete;
  SeedGuard& operator=(const SeedGuard&) = delete;
  uint64_t saved;
};

// Finds integer keys whose hashes collide (32-bit birthday search).
std::vector<std::pair<int64_t, int64_t>> colliding_ints(size_t want) {
  std::unordered_map<uint32_t, int64_t> seen;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t i = 0; out.size() < want && i < 4000000; ++i) {
    uint32_t h = hash_value(Value::integer(i));
    auto [it, fresh] = seen.emplace(h, i);
    if (!fresh) out.emplace_back(it->second, i);
  }
  return out;
}

TEST(Map, CollidingHashes) {
  SeedGuard seed(0x1234567890ABCDEFull);
  auto pairs = colliding_ints(6);
  ASSERT_GE(pairs.size(), 3u);
  Limits lim;
  Ctx ctx(lim);
  std::vector<Value> probes;
  for (auto [a, b] : pairs) {
    ASSERT_EQ(hash_value(Value::integer(a)), hash_value(Value::integer(b)));
    probes.push_back(Value::integer(a));
    probes.push_back(Value::integer(b));
    probes.push_back(Value::integer(a + 1));
  }
  for (int filler : {0, 20}) {
    Model model;
    const MapObj* m = empty_map();
    for (int i = 0; i < filler; ++i) {
      m = map_assoc(ctx.arena, m, ctx.keyword("f" + std::to_string(i)), Value::integer(i));
      model.assoc(ctx.keyword("f" + std::to_string(i)), Value::integer(i));
    }
    for (auto [a, b] : pairs) {
      m = map_assoc(ctx.arena, m, Value::integer(a), Value::integer(1));
      model.assoc(Value::integer(a), Value::integer(1));
      m = map_assoc(ctx.arena, m, Value::integer(b), Value::integer(2));
      model.assoc(Value::integer(b), Value::integer(2));
    }
    check_map(m, model, probes);
    // Updating one of a colliding pair leaves the other.
    m = map_assoc(ctx.arena, m, Value::integer(pairs[0].second), Value::integer(3));
    model.assoc(Value::integer(pairs[0].second), Value::integer(3));
    check_map(m, model, probes);
    // Removing one of each pair keeps its twin reachable.
    for (auto [a, b] : pairs) {
      m = map_dissoc(ctx.arena, m, Value::integer(a));
      model.dissoc(Value::integer(a));
      check_map(m, model, probes);
    }
    // The builder handles the same collisions.
    HashBuilder hb(ctx.arena, Type::Map);
    Model bmodel;
    for (auto [a, b] : pairs) {
      hb.put(Value::integer(b), Value::integer(5));
      hb.put(Value::integer(a), Value::integer(6));
      bmodel.assoc(Value::integer(b), Value::integer(5));
      bmodel.assoc(Value::integer(a), Value::integer(6));
    }
    for (int i = 0; i < filler; ++i) {
      hb.put(Value::integer(100000 + i), Value::nil());
      bmodel.assoc(Value::integer(100000 + i), Value::nil());
    }
    check_map(finish_map(hb), bmodel, probes);
  }
}

TEST(Map, IterationOrderIndependentOfHashSeed) {
  auto build = [](uint64_t seed) {
    set_hash_seed_for_testing(seed);
    Limits lim;
    Ctx ctx(lim);
    const MapObj* m = empty_map();
    const SetObj* s = empty_set();
    for (int i = 0; i < 300; ++i) {
      Value k = i % 3 == 0   ? ctx.keyword("k" + std::to_string(i))
                : i % 3 == 1 ? ctx.string("s" + std::to_string(i))
                             : Value::integer(i * 31);
      m = map_assoc(ctx.arena, m, k, Value::integer(i));
      s = set_conj(ctx.arena, s, k);
    }
    for (int i = 0; i < 300; i += 7) {
      m = map_dissoc(ctx.arena, m, Value::integer(i * 31));
      s = set_disj(ctx.arena, s, ctx.string("s" + std::to_string(i)));
    }
    m = map_assoc(ctx.arena, m, Value::integer(62), ctx.string("re"));
    HashBuilder hb(ctx.arena, Type::Map);
    for (int i = 20; i > 0; --i)
      hb.put(Value::integer(i), Value::integer(i));
    PrintOptions opts;
    return print_to_string(Value::object(m), opts) + "|" + print_to_string(Value::object(s), opts) +
           "|" + print_to_string(Value::object(finish_map(hb)), opts);
  };
  SeedGuard seed(hash_seed());
  std::string a = build(1), b = build(0xFFFFFFFF00000000ull), c = build(0x9E3779B97F4A7C15ull);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a.substr(0, 10), "{:k0 0 \"s1");
}

TEST(Map, HashBuilderLastValueWinsFirstPositionKept) {
  Limits lim;
  Ctx ctx(lim);
  for (int n : {3, 8, 9, 50}) {
    HashBuilder b(ctx.arena, Type::Map);
    Model model;
    for (int round = 0; round < 3; ++round)
      for (int i = 0; i < n; ++i) {
        Value k = ctx.keyword("k" + std::to_string((i * 7) % n));
        Value v = Value::integer(round * 1000 + i);
        b.put(k, v);
        model.assoc(k, v);
      }
    EXPECT_EQ(b.size(), static_cast<size_t>(n));
    const MapObj* m = finish_map(b);
    check_map(m, model, {});
    EXPECT_EQ(m->small(), n <= static_cast<int>(kSmallMax));
    // put_all continues from an existing map, then later puts override.
    HashBuilder b2(ctx.arena, Type::Map);
    b2.put(ctx.keyword("first"), Value::integer(0));
    b2.put_all(m);
    Value fresh = ctx.string("new");
    b2.put(ctx.keyword("k0"), fresh);
    Model model2;
    model2.assoc(ctx.keyword("first"), Value::integer(0));
    for (auto& [k, v] : model.entries)
      model2.assoc(k, v);
    model2.assoc(ctx.keyword("k0"), fresh);
    check_map(finish_map(b2), model2, {});
  }
  HashBuilder empty(ctx.arena, Type::Set);
  EXPECT_EQ(finish_set(empty), empty_set());
  HashBuilder sb(ctx.arena, Type::Set);
  for (int i = 0; i < 30; ++i)
    sb.put(Value::integer(i % 12));
  const SetObj* s = finish_set(sb);
  EXPECT_EQ(s->count, 12u);
  int expect = 0;
  for (HashIter it(s); !it.done(); it.next())
    EXPECT_EQ(it.key().as_int(), expect++);
}

TEST(Map, DissocCompactsAndStaysCorrect) {
  Limits lim;
  lim.max_heap_bytes = size_t{64} << 20;
  Ctx ctx(lim);
  const MapObj* m = empty_map();
  Model model;
  for (int i = 0; i < 500; ++i) {
    m = map_assoc(ctx.arena, m, Value::integer(i), Value::integer(-i));
    model.assoc(Value::integer(i), Value::integer(-i));
  }
  std::vector<Value> probes;
  for (int i = -5; i < 505; ++i)
    probes.push_back(Value::integer(i));
  for (int i = 0; i < 495; ++i) {
    m = map_dissoc(ctx.arena, m, Value::integer(i));
    model.dissoc(Value::integer(i));
    // Tombstones never grow without bound.
    ASSERT_LE(m->small() ? m->count : m->slots, 2 * m->count + 16);
    if (i % 37 == 0) check_map(m, model, probes);
  }
  check_map(m, model, probes);
  EXPECT_TRUE(m->small());
  // Re-adding after compaction appends at the end.
  m = map_assoc(ctx.arena, m, Value::integer(0), Value::integer(0));
  model.assoc(Value::integer(0), Value::integer(0));
  check_map(m, model, probes);
}

TEST(Map, ValuesMayBeNilAndKeysMayBeNil) {
  Limits lim;
  Ctx ctx(lim);
  for (int filler : {0, 12}) {
    const MapObj* m = empty_map();
    for (int i = 0; i < filler; ++i)
      m = map_assoc(ctx.arena, m, Value::integer(i + 100), Value::integer(i));
    m = map_assoc(ctx.arena, m, Value::nil(), Value::integer(1));
    m = map_assoc(ctx.arena, m, ctx.keyword("a"), Value::nil());
    const Value* v = map_find(m, ctx.keyword("a"));
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->is_nil());
    ASSERT_NE(map_find(m, Value::nil()), nullptr);
    EXPECT_EQ(map_find(m, Value::nil())->as_int(), 1);
    EXPECT_EQ(map_find(m, Value::boolean(false)), nullptr);
  }
}

// ---------------------------------------------------------------------------
// Flexible key access (spec §7.5)

const MapObj* map_of(Ctx& ctx, const std::vector<std::pair<Value, Value>>& kvs, int filler) {
  const MapObj* m = empty_map();
  for (int i = 0; i < filler; ++i)
    m = map_assoc(ctx.arena, m, ctx.keyword("filler" + std::to_string(i)), Value::integer(-i));
  for (auto& [k, v] : kvs)
    m = map_assoc(ctx.arena, m, k, v);
  return m;
}

int64_t flex(const MapObj* m, Value k) {
  const Value* v = map_find_flex(m, k);
  return v ? v->as_int() : -999;
}

class Flex : public ::testing::TestWithParam<int> {};

TEST_P(Flex, KeywordFindsStringAndViceVersa) {
  Limits lim;
  Ctx ctx(lim);
  int filler = GetParam();
  const MapObj* m = map_of(
      ctx, {{ctx.string("a"), Value::integer(1)}, {ctx.keyword("b"), Value::integer(2)}}, filler);
  EXPECT_EQ(flex(m, ctx.keyword("a")), 1);
  EXPECT_EQ(flex(m, ctx.string("a")), 1);
  EXPECT_EQ(flex(m, ctx.keyword("b")), 2);
  EXPECT_EQ(flex(m, ctx.string("b")), 2);
  EXPECT_EQ(flex(m, ctx.keyword("c")), -999);
  EXPECT_EQ(map_find(m, ctx.keyword("a")), nullptr);  // exact lookup stays exact
  const Value* k = map_find_flex_key(m, ctx.keyword("a"));
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->is_string());
  k = map_find_flex_key(m, ctx.string("b"));
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->is_keyword());
  // Non-name keys are exact.
  const MapObj* n = map_of(ctx, {{Value::integer(1), Value::integer(10)}}, filler);
  EXPECT_EQ(flex(n, Value::integer(1)), 10);
  EXPECT_EQ(flex(n, Value::floating(1.0)), 10);
  EXPECT_EQ(flex(n, ctx.string("1")), -999);
}

TEST_P(Flex, ExactTypeWins) {
  Limits lim;
  Ctx ctx(lim);
  int filler = GetParam();
  for (bool string_first : {true, false}) {
    std::vector<std::pair<Value, Value>> kvs = {{ctx.string("x"), Value::integer(1)},
                                                {ctx.keyword("x"), Value::integer(2)}};
    if (!string_first) std::swap(kvs[0], kvs[1]);
    const MapObj* m = map_of(ctx, kvs, filler);
    EXPECT_EQ(flex(m, ctx.string("x")), 1);
    EXPECT_EQ(flex(m, ctx.keyword("x")), 2);
  }
}

TEST_P(Flex, HyphenFallsBackToUnderscore) {
  Limits lim;
  Ctx ctx(lim);
  int filler = GetParam();
  const MapObj* m1 = map_of(ctx, {{ctx.string("turn_summaries"), Value::integer(1)}}, filler);
  const MapObj* m2 = map_of(ctx, {{ctx.keyword("turn_summaries"), Value::integer(2)}}, filler);
  EXPECT_EQ(flex(m1, ctx.keyword("turn-summaries")), 1);
  EXPECT_EQ(flex(m2, ctx.keyword("turn-summaries")), 2);
  EXPECT_EQ(flex(m1, ctx.string("turn-summaries")), 1);
  EXPECT_EQ(flex(m2, ctx.string("turn-summaries")), 2);
  // The hyphenated key itself wins over the fallback.
  const MapObj* m3 = map_of(ctx,
                            {{ctx.keyword("turn_summaries"), Value::integer(1)},
                             {ctx.string("turn-summaries"), Value::integer(3)}},
                            filler);
  EXPECT_EQ(flex(m3, ctx.keyword("turn-summaries")), 3);
  // Underscores are not turned into hyphens.
  const MapObj* m4 = map_of(ctx, {{ctx.keyword("a-b"), Value::integer(4)}}, filler);
  EXPECT_EQ(flex(m4, ctx.keyword("a_b")), -999);
  // Mixed separators normalise every hyphen.
  const MapObj* m5 = map_of(ctx, {{ctx.string("a_b_c"), Value::integer(5)}}, filler);
  EXPECT_EQ(flex(m5, ctx.keyword("a-b_c")), 5);
  EXPECT_EQ(flex(m5, ctx.keyword("a-b-c")), 5);
  EXPECT_EQ(flex(m5, ctx.keyword("a-b-d")), -999);
}

TEST_P(Flex, UnderscoreFallbackPrefersTheAccessorsType) {
  // Reference implementation: a keyword accessor tries the normalised keyword
  // first, a string accessor the normalised string first.
  Limits lim;
  Ctx ctx(lim);
  int filler = GetParam();
  for (bool string_first : {true, false}) {
    std::vector<std::pair<Value, Value>> kvs = {{ctx.string("a_b"), Value::integer(1)},
                                                {ctx.keyword("a_b"), Value::integer(2)}};
    if (!string_first) std::swap(kvs[0], kvs[1]);
    const MapObj* m = map_of(ctx, kvs, filler);
    EXPECT_EQ(flex(m, ctx.keyword("a-b")), 2);
    EXPECT_EQ(flex(m, ctx.string("a-b")), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(SmallAndLarge, Flex, ::testing::Values(0, 20));

// A keyword remembers the slot where it last matched in a map of string keys
// (rows of JSON); maps whose keys are in another order, fewer or missing must
// still answer right, whatever the hint says.
TEST(KeywordSlotHint, RowsInAnyOrderAnswerRight) {
  Limits lim;
  Ctx ctx(lim);
  const std::vector<std::vector<std::string>> shapes = {
      {"id", "status", "total"},
      {"total", "id", "status"},
      {"status"},
      {"id", "total"},
      {"a", "b", "c", "d", "e", "f", "g", "status"}};
  std::vector<const MapObj*> rows;
  for (const auto& keys : shapes) {
    std::vector<Value> kv;
    for (const std::string& k : keys) {
      kv.push_back(ctx.string(k));
      kv.push_back(ctx.string("v-" + k));
    }
    const MapObj* m =
        small_map_of_distinct(ctx.arena, kv.data(), static_cast<uint32_t>(keys.size()));
    ASSERT_TRUE(m->flags & HashObj::kStringKeys);
    rows.push_back(m);
  }
  std::mt19937 rng(7);
  const char* names[] = {"id", "status", "total", "missing", "g"};
  for (int round = 0; round < 2000; ++round) {
    size_t r = rng() % rows.size();
    std::string name = names[rng() % 5];
    const Value* got = map_lookup(rows[r], ctx.keyword(name));
    const auto& keys = shapes[r];
    bool present = std::find(keys.begin(), keys.end(), name) != keys.end();
    ASSERT_EQ(got != nullptr, present) << name << " in shape " << r;
    if (present) {
      EXPECT_EQ(print_to_string(*got), "\"v-" + name + "\"") << name << " in shape " << r;
    }
  }
}

}  // namespace
}  // namespace ptc
