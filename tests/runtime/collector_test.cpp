// The collector's roots, one kind at a time (runtime/roots.hpp): a value
// kept only by that root survives a forced collection, and a value kept by
// nothing is gone (its granules unmarked, free for the next allocation).
// The VM's roots are tested in tests/vm/collector_roots_test.cpp.
#include "runtime/collector.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/regex.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {
namespace {

class Collector : public ::testing::Test {
 protected:
  Collector() : ctx(limits()) { ctx.start_collecting(); }
  static Limits limits() {
    Limits l;
    l.max_heap_bytes = 4 << 20;
    return l;
  }
  bool live(Value v) const { return ctx.arena.space()->is_marked(v.obj()); }
  bool live(const Obj* o) const { return ctx.arena.space()->is_marked(o); }
  // A vector of n fresh strings ("s0" ...), none shared with anything else.
  Value strings(int n) {
    VecBuilder b(ctx.arena);
    for (int i = 0; i < n; ++i)
      b.push(ctx.string("s" + std::to_string(i)));
    return Value::object(b.finish());
  }
  bool holds_strings(Value v, int n) {
    if (!v.is_vector() || v.vec()->count != static_cast<uint32_t>(n)) return false;
    for (int i = 0; i < n; ++i)
      if (v.vec()->nth(i).str()->view() != "s" + std::to_string(i)) return false;
    return true;
  }
  // Fills the heap's holes with other data, so a dead object's memory is reused.
  void churn() {
    for (int i = 0; i < 2000; ++i)
      ctx.string(std::string(40, 'x'));
  }
  Ctx ctx;
};

TEST_F(Collector, AValueKeptByNothingIsGone) {
  Value dead = strings(100);
  const Obj* dead_item = dead.vec()->nth(7).obj();
  ctx.collect();
  EXPECT_FALSE(live(dead));
  EXPECT_FALSE(live(dead_item));
  EXPECT_EQ(ctx.arena.live_at_last_collection(), 0u);
  EXPECT_EQ(ctx.arena.stats().collections, 1u);
}

TEST_F(Collector, ContextRootsInternerBudgetAndFail) {
  const KeywordObj* k = ctx.interner.keyword("only-interned");
  ctx.budget = strings(3);
  ctx.failed_with = strings(4);
  Value dead = strings(5);
  ctx.collect();
  EXPECT_TRUE(live(k));
  EXPECT_TRUE(live(ctx.budget));
  EXPECT_TRUE(live(*ctx.failed_with));
  EXPECT_FALSE(live(dead));
  churn();
  EXPECT_TRUE(holds_strings(ctx.budget, 3));
  EXPECT_TRUE(holds_strings(*ctx.failed_with, 4));
  EXPECT_EQ(ctx.interner.keyword("only-interned"), k);
}

TEST_F(Collector, RootScopeValueAndObjectPointer) {
  Value kept = strings(10);
  const VecObj* pointer = strings(11).vec();
  Value gone;
  {
    RootScope roots(ctx);
    roots.add(kept);
    roots.add(pointer);
    gone = strings(12);
    ctx.collect();
    EXPECT_TRUE(live(kept));
    EXPECT_TRUE(live(pointer));
    EXPECT_FALSE(live(gone));
    churn();
    EXPECT_TRUE(holds_strings(kept, 10));
    EXPECT_TRUE(holds_strings(Value::object(pointer), 11));
    // A variable added once is read at each collection: its new value is kept.
    kept = strings(13);
    ctx.collect();
    EXPECT_TRUE(holds_strings(kept, 13));
  }
  ctx.collect();  // the scope closed: nothing keeps them
  EXPECT_FALSE(live(kept));
  EXPECT_FALSE(live(pointer));
}

TEST_F(Collector, RootScopeArraysAndVectors) {
  Value fixed[2] = {strings(2), strings(3)};
  std::vector<Value> growing;
  RootScope roots(ctx);
  roots.add(fixed, 2);
  roots.add(growing);
  for (int i = 0; i < 50; ++i)
    growing.push_back(strings(i % 7));  // reallocates: the vector is read, not its data
  ctx.collect();
  churn();
  EXPECT_TRUE(holds_strings(fixed[0], 2));
  EXPECT_TRUE(holds_strings(fixed[1], 3));
  for (int i = 0; i < 50; ++i)
    EXPECT_TRUE(holds_strings(growing[i], i % 7)) << i;
}

TEST_F(Collector, RootScopeBuildersKeepWhatTheyHold) {
  VecBuilder vb(ctx.arena);
  HashBuilder small(ctx.arena, Type::Map);
  HashBuilder large(ctx.arena, Type::Map);
  RootScope roots(ctx);
  roots.add(vb);
  roots.add(small);
  roots.add(large);
  for (int i = 0; i < 100; ++i)  // several leaves, the last one partly filled
    vb.push(ctx.string("v" + std::to_string(i)));
  small.put(ctx.keyword("a"), strings(3));
  for (int i = 0; i < 40; ++i)  // past the small form: the hashed table
    large.put(ctx.string("k" + std::to_string(i)), strings(i % 5));
  ctx.collect();
  churn();
  ctx.collect();
  const VecObj* v = vb.finish();
  ASSERT_EQ(v->count, 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(v->nth(i).str()->view(), "v" + std::to_string(i));
  const MapObj* s = finish_map(small);
  EXPECT_TRUE(holds_strings(map_get(s, ctx.keyword("a")), 3));
  const MapObj* l = finish_map(large);
  ASSERT_EQ(l->count, 40u);
  for (int i = 0; i < 40; ++i)
    EXPECT_TRUE(holds_strings(map_get(l, ctx.string("k" + std::to_string(i))), i % 5)) << i;
}

TEST_F(Collector, RootScopeSeqIterKeepsItsCollectionAndMadeEntry) {
  HashBuilder b(ctx.arena, Type::Map);
  for (int i = 0; i < 20; ++i)
    b.put(ctx.string("k" + std::to_string(i)), strings(2));
  Value m = Value::object(finish_map(b));
  SeqIter it(ctx, m, "test");
  RootScope roots(ctx);
  roots.add(it);
  it.next();
  Value entry = it.value();  // a [k v] vector made for the iterator, held by nothing else
  ctx.collect();
  EXPECT_TRUE(live(m));
  EXPECT_TRUE(live(entry));
  churn();
  EXPECT_EQ(entry.vec()->nth(0).str()->view(), "k1");
  EXPECT_TRUE(holds_strings(entry.vec()->nth(1), 2));
}

TEST_F(Collector, RootSourcesAndTracedBy) {
  struct Holder final : RootSource {
    Value v;
    void trace_roots(Tracer& t) override { t.value(v); }
  } holder;
  holder.v = strings(6);
  ctx.add_root_source(&holder);
  std::vector<const VecObj*> stack{strings(7).vec()};
  TracedBy pending([&stack](Tracer& t) {
    for (const VecObj* v : stack)
      t.object(v);
  });
  {
    RootScope roots(ctx);
    roots.add(pending);
    ctx.collect();
    EXPECT_TRUE(live(holder.v));
    EXPECT_TRUE(live(stack[0]));
  }
  ctx.remove_root_source(&holder);
  ctx.collect();
  EXPECT_FALSE(live(holder.v));
  EXPECT_FALSE(live(stack[0]));
}

// Shared structure: versions of one vector share trie nodes, leaves and tail
// buffers; each keeps what it shows, whichever version dies.
TEST_F(Collector, VectorVersionsKeepWhatTheyShare) {
  const VecObj* base = empty_vector();
  for (int i = 0; i < 100; ++i)
    base = vec_conj(ctx.arena, base, ctx.string("b" + std::to_string(i)));
  const VecObj* popped = vec_pop(ctx.arena, base);
  const VecObj* longer = vec_conj(ctx.arena, base, ctx.string("extra"));  // appends in place
  const VecObj* changed = vec_assoc(ctx.arena, base, 3, ctx.string("three"));
  const VecObj* suffix = vec_slice(ctx.arena, base, 40, 100);
  RootScope roots(ctx);
  roots.add(popped);
  roots.add(longer);
  roots.add(changed);
  roots.add(suffix);
  ctx.collect();
  EXPECT_FALSE(live(base));  // the version itself died; its structure lives on
  churn();
  ctx.collect();
  churn();
  for (int i = 0; i < 99; ++i)
    EXPECT_EQ(popped->nth(i).str()->view(), "b" + std::to_string(i));
  EXPECT_EQ(longer->nth(100).str()->view(), "extra");
  EXPECT_EQ(longer->nth(99).str()->view(), "b99");
  EXPECT_EQ(changed->nth(3).str()->view(), "three");
  EXPECT_EQ(changed->nth(4).str()->view(), "b4");
  EXPECT_EQ(suffix->nth(0).str()->view(), "b40");
  // conj on the popped version must not write where `longer` keeps "extra".
  const VecObj* again = vec_conj(ctx.arena, popped, ctx.string("again"));
  EXPECT_EQ(again->nth(99).str()->view(), "again");
  EXPECT_EQ(longer->nth(99).str()->view(), "b99");
}

TEST_F(Collector, LargeMapsKeepEntriesAndIndex) {
  const MapObj* m = empty_map();
  for (int i = 0; i < 3000; ++i)
    m = map_assoc(ctx.arena, m, Value::integer(i), ctx.string("v" + std::to_string(i)));
  for (int i = 0; i < 3000; i += 3)
    m = map_dissoc(ctx.arena, m, Value::integer(i));
  RootScope roots(ctx);
  roots.add(m);
  ctx.collect();
  churn();
  EXPECT_EQ(m->count, 2000u);
  for (int i = 0; i < 3000; ++i) {
    Value v = map_get(m, Value::integer(i));
    if (i % 3 == 0)
      EXPECT_TRUE(v.is_nil()) << i;
    else
      EXPECT_EQ(v.str()->view(), "v" + std::to_string(i)) << i;
  }
}

TEST_F(Collector, DeadRegexesAreFinalizedAndUncharged) {
  size_t before = ctx.arena.charged();
  Value kept = make_regex(ctx, "a+b");
  Value dead = make_regex(ctx, "c+d");
  (void)dead;
  size_t with_both = ctx.arena.charged();
  EXPECT_GT(with_both, before);
  RootScope roots(ctx);
  roots.add(kept);
  ctx.collect();
  EXPECT_EQ(ctx.regexes.count("a+b"), 1u);
  EXPECT_EQ(ctx.regexes.count("c+d"), 0u);
  EXPECT_LT(ctx.arena.charged(), with_both);
  // The pattern compiles again when asked for after it died.
  Value again = make_regex(ctx, "c+d");
  EXPECT_TRUE(again.is(Type::Regex));
  EXPECT_EQ(ctx.regexes.count("c+d"), 1u);
}

TEST_F(Collector, MoreLiveThanTheCapIsAMemoryLimitSayingHowMuch) {
  RootScope roots(ctx);
  std::vector<Value> held;
  roots.add(held);
  try {
    for (int i = 0; i < 100; ++i) {
      held.push_back(ctx.string(std::string(100000, 'x')));
      ctx.collect();
    }
    FAIL() << "5 MB kept under a 4 MB cap";
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::MemoryLimit);
    EXPECT_NE(e.error().message.find("still reachable after a collection"), std::string::npos)
        << e.error().message;
    EXPECT_NE(e.error().message.find("4.0 MB"), std::string::npos) << e.error().message;
  }
}

TEST_F(Collector, ABudgetOfAllocationAsksForACollection) {
  EXPECT_FALSE(ctx.collection_due());
  for (int i = 0; i < 1000; ++i)
    ctx.string(std::string(5000, 'y'));  // 5 MB of garbage: past the 4 MB budget
  EXPECT_TRUE(ctx.collection_due());
  ctx.collect_if_due();
  EXPECT_FALSE(ctx.collection_due());
  EXPECT_EQ(ctx.arena.stats().collections, 1u);
  EXPECT_GE(ctx.arena.stats().allocated_bytes, 5000000u);
}

// Inside NoCollection a due collection waits.
TEST_F(Collector, NoCollectionDefersIt) {
  strings(3);  // a run that allocated nothing has nothing to collect
  ctx.collection_wanted();
  {
    Ctx::NoCollection hold(ctx);
    ctx.collect_if_due();
    EXPECT_EQ(ctx.arena.stats().collections, 0u);
  }
  ctx.collect_if_due();
  EXPECT_EQ(ctx.arena.stats().collections, 1u);
}

}  // namespace
}  // namespace ptc
