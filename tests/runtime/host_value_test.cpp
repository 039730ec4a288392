#include "runtime/host_value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/equality.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/vector.hpp"
#include "support/host_builders.hpp"

namespace ptc {
namespace {

using H = HostValue;
using Kind = HostValue::Kind;
using namespace testing::host;
std::string named(const char* prefix, size_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

Value rvec(Ctx& ctx, std::vector<Value> items) {
  return vec_value(vec_from(ctx.arena, items.data(), items.size()));
}
Value rmap(Ctx& ctx, std::vector<std::pair<Value, Value>> entries) {
  HashBuilder b(ctx.arena, Type::Map);
  for (auto& [k, v] : entries)
    b.put(k, v);
  return Value::object(finish_map(b));
}
Value rset(Ctx& ctx, std::vector<Value> items) {
  HashBuilder b(ctx.arena, Type::Set);
  for (Value x : items)
    b.put(x);
  return Value::object(finish_set(b));
}

ErrorKind error_kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const LispError& e) {
    return e.error().kind;
  }
  ADD_FAILURE() << "expected a LispError";
  return ErrorKind::Fail;
}

// ---------------------------------------------------------------------------
// Construction and accessors

TEST(HostValue, ScalarsAndAccessors) {
  EXPECT_EQ(H().kind(), Kind::Nil);
  EXPECT_TRUE(H::nil().is_nil());
  EXPECT_TRUE(H::boolean(true).as_bool());
  EXPECT_FALSE(H::boolean(false).as_bool());
  EXPECT_EQ(H::integer(-42).as_int(), -42);
  EXPECT_EQ(H::floating(2.5).as_float(), 2.5);
  EXPECT_EQ(H::bigint("123456789012345678901234567890").text(), "123456789012345678901234567890");
  EXPECT_EQ(H::string("héllo").text(), "héllo");
  EXPECT_EQ(H::keyword("name").kind(), Kind::Keyword);
  EXPECT_EQ(H::keyword("name").text(), "name");
  EXPECT_EQ(H::opaque("#fn[x]").text(), "#fn[x]");
  // Accessors of the wrong kind answer empty rather than crash.
  EXPECT_EQ(H::integer(1).text(), "");
  EXPECT_TRUE(H::string("x").items().empty());
  EXPECT_EQ(H::string("abc").size(), 0u);
}

TEST(HostValue, CollectionsKeepOrderAndSize) {
  H v = vec({num(3), num(1), num(2)});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v.items()[0].as_int(), 3);
  EXPECT_EQ(v.items()[2].as_int(), 2);

  H m = map({{kw("b"), num(1)}, {str("a"), num(2)}});
  EXPECT_EQ(m.kind(), Kind::Map);
  ASSERT_EQ(m.size(), 2u);
  ASSERT_EQ(m.items().size(), 4u);
  EXPECT_EQ(m.items()[0], kw("b"));
  EXPECT_EQ(m.items()[1], num(1));
  EXPECT_EQ(m.items()[2], str("a"));
  EXPECT_EQ(m.items()[3], num(2));

  H s = set({str("x"), str("y")});
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(H::vector({}).size(), 0u);
  EXPECT_EQ(H::map({}).size(), 0u);
}

TEST(HostValue, GetByStringOrKeyword) {
  H m = map({{kw("a"), num(1)}, {str("b"), num(2)}, {num(7), num(3)}});
  ASSERT_NE(m.get("a"), nullptr);
  EXPECT_EQ(*m.get("a"), num(1));
  ASSERT_NE(m.get("b"), nullptr);
  EXPECT_EQ(*m.get("b"), num(2));
  EXPECT_EQ(m.get("c"), nullptr);
  EXPECT_EQ(m.get("7"), nullptr);  // only string and keyword keys match
  EXPECT_EQ(num(1).get("a"), nullptr);
  EXPECT_EQ(vec({str("a")}).get("a"), nullptr);

  // The exact string key wins over a keyword of the same name, whatever the order.
  H both = map({{kw("k"), str("keyword")}, {str("k"), str("string")}});
  ASSERT_NE(both.get("k"), nullptr);
  EXPECT_EQ(both.get("k")->text(), "string");
  H both2 = map({{str("k"), str("string")}, {kw("k"), str("keyword")}});
  EXPECT_EQ(both2.get("k")->text(), "string");
}

// ---------------------------------------------------------------------------
// Equality

TEST(HostValueEquality, NumbersCompareByValue) {
  EXPECT_EQ(num(1), H::floating(1.0));
  EXPECT_EQ(H::floating(1.0), num(1));
  EXPECT_NE(num(1), H::floating(1.5));
  EXPECT_NE(num(1), num(2));
  EXPECT_EQ(H::floating(0.0), H::floating(-0.0));
  EXPECT_EQ(num(0), H::floating(-0.0));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(H::floating(nan) == H::floating(nan));
  EXPECT_NE(num(0), H::floating(nan));
  // Exact, not rounded: 2^53 + 1 is not the double 2^53.
  EXPECT_NE(num((int64_t{1} << 53) + 1), H::floating(9007199254740992.0));
  EXPECT_EQ(num(int64_t{1} << 53), H::floating(9007199254740992.0));

  EXPECT_EQ(H::bigint("123456789012345678901234567890"),
            H::bigint("123456789012345678901234567890"));
  EXPECT_NE(H::bigint("123456789012345678901234567890"),
            H::bigint("-123456789012345678901234567890"));
  EXPECT_EQ(H::bigint("1180591620717411303424"), H::floating(std::ldexp(1.0, 70)));  // 2^70
  EXPECT_NE(H::bigint("1180591620717411303425"), H::floating(std::ldexp(1.0, 70)));
  // Non-canonical big integer text from a host still compares by value.
  EXPECT_EQ(H::bigint("+0005"), num(5));
  EXPECT_EQ(num(5), H::bigint("5"));
}

TEST(HostValueEquality, KindsMatter) {
  EXPECT_NE(str("a"), kw("a"));
  EXPECT_NE(H::nil(), H::boolean(false));
  EXPECT_NE(num(1), str("1"));
  EXPECT_NE(vec({num(1)}), set({num(1)}));
  EXPECT_EQ(H::opaque("#fn[x]"), H::opaque("#fn[x]"));
  EXPECT_NE(H::opaque("#fn[x]"), str("#fn[x]"));
}

TEST(HostValueEquality, CollectionsAreStructural) {
  EXPECT_EQ(vec({num(1), vec({str("a")})}), vec({H::floating(1.0), vec({str("a")})}));
  EXPECT_NE(vec({num(1), num(2)}), vec({num(2), num(1)}));  // vectors are ordered
  EXPECT_NE(vec({num(1)}), vec({num(1), num(1)}));

  EXPECT_EQ(map({{kw("a"), num(1)}, {kw("b"), num(2)}}),
            map({{kw("b"), num(2)}, {kw("a"), num(1)}}));
  EXPECT_NE(map({{kw("a"), num(1)}}), map({{kw("a"), num(2)}}));
  EXPECT_NE(map({{kw("a"), num(1)}}), map({{str("a"), num(1)}}));
  EXPECT_NE(map({{kw("a"), num(1)}}), map({{kw("a"), num(1)}, {kw("b"), num(1)}}));
  // Number keys match across int and float, as in `=`.
  EXPECT_EQ(map({{num(1), str("x")}}), map({{H::floating(1.0), str("x")}}));

  EXPECT_EQ(set({num(1), num(2), num(3)}), set({num(3), num(1), num(2)}));
  EXPECT_NE(set({num(1), num(2)}), set({num(1), num(3)}));
}

TEST(HostValueEquality, LargeShuffledMapsAndSets) {
  std::vector<std::pair<H, H>> a, b;
  std::vector<H> sa, sb;
  for (int i = 0; i < 500; ++i) {
    a.emplace_back(H::string(named("k", static_cast<size_t>(i))), vec({num(i), kw("v")}));
    sa.push_back(map({{kw("id"), num(i)}}));
  }
  for (int i = 499; i >= 0; --i) {
    b.emplace_back(H::string(named("k", static_cast<size_t>(i))), vec({H::floating(i), kw("v")}));
    sb.push_back(map({{kw("id"), num(i)}}));
  }
  H ma = map(a), mb = map(b);
  EXPECT_EQ(ma, mb);
  EXPECT_EQ(set(sa), set(sb));
  b[250].second = vec({num(-1), kw("v")});
  EXPECT_NE(ma, map(b));
}

// ---------------------------------------------------------------------------
// Export: runtime value -> host value

TEST(HostValueExport, Scalars) {
  Limits lim;
  Ctx ctx(lim);
  EXPECT_EQ(export_value(Value::nil()).kind(), Kind::Nil);
  EXPECT_EQ(export_value(Value::boolean(true)), H::boolean(true));
  H i = export_value(Value::integer(-5));
  EXPECT_EQ(i.kind(), Kind::Int);
  EXPECT_EQ(i.as_int(), -5);
  H f = export_value(Value::floating(2.25));
  EXPECT_EQ(f.kind(), Kind::Float);
  EXPECT_EQ(f.as_float(), 2.25);
  H big = export_value(integer_from_decimal(ctx.arena, "-123456789012345678901234567890"));
  EXPECT_EQ(big.kind(), Kind::BigInt);
  EXPECT_EQ(big.text(), "-123456789012345678901234567890");
  H s = export_value(ctx.string("héllo"));
  EXPECT_EQ(s.kind(), Kind::String);
  EXPECT_EQ(s.text(), "héllo");
  H k = export_value(ctx.keyword("user-name"));
  EXPECT_EQ(k.kind(), Kind::Keyword);
  EXPECT_EQ(k.text(), "user-name");
}

TEST(HostValueExport, CollectionsKeepInsertionOrder) {
  Limits lim;
  Ctx ctx(lim);
  // Enough entries for the large (HAMT) map form too.
  std::vector<std::pair<Value, Value>> entries;
  for (int i = 19; i >= 0; --i)
    entries.emplace_back(ctx.keyword(named("k", static_cast<size_t>(i))), Value::integer(i));
  H m = export_value(rmap(ctx, entries));
  ASSERT_EQ(m.kind(), Kind::Map);
  ASSERT_EQ(m.size(), 20u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(m.items()[2 * i], H::keyword(named("k", 19 - i)));
    EXPECT_EQ(m.items()[2 * i + 1].as_int(), static_cast<int64_t>(19 - i));
  }

  H s = export_value(rset(ctx, {ctx.string("z"), ctx.string("a"), Value::integer(3)}));
  ASSERT_EQ(s.kind(), Kind::Set);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.items()[0], str("z"));
  EXPECT_EQ(s.items()[1], str("a"));
  EXPECT_EQ(s.items()[2], num(3));

  std::vector<Value> many;
  for (int i = 0; i < 100; ++i)
    many.push_back(Value::integer(i));  // spans trie and tail
  H v = export_value(rvec(ctx, many));
  ASSERT_EQ(v.size(), 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(v.items()[static_cast<size_t>(i)].as_int(), i);

  H nested = export_value(rvec(ctx, {rmap(ctx, {{ctx.keyword("a"), rvec(ctx, {Value::nil()})}})}));
  EXPECT_EQ(nested, vec({map({{kw("a"), vec({H::nil()})}})}));
}

TEST(HostValueExport, FunctionsAndSymbolsBecomeOpaque) {
  Limits lim;
  Ctx ctx(lim);
  Value b = Value::builtin(3);
  H hb = export_value(b);
  EXPECT_EQ(hb.kind(), Kind::Opaque);
  EXPECT_EQ(hb.text(), print_to_string(b));
  EXPECT_FALSE(hb.text().empty());

  Value sym = Value::object(ctx.interner.symbol("foo"));
  H hs = export_value(sym);
  EXPECT_EQ(hs.kind(), Kind::Opaque);
  EXPECT_EQ(hs.text(), print_to_string(sym));

  H inside = export_value(rvec(ctx, {Value::integer(1), b}));
  ASSERT_EQ(inside.size(), 2u);
  EXPECT_EQ(inside.items()[1].kind(), Kind::Opaque);
}

TEST(HostValueExport, DeepNestingIsAnErrorNotACrash) {
  Limits lim;
  lim.max_heap_bytes = size_t{512} << 20;
  Ctx ctx(lim);
  Value v = rvec(ctx, {});
  for (int i = 0; i < 400000; ++i)
    v = rvec(ctx, {v});
  EXPECT_EQ(error_kind_of([&] { export_value(v); }), ErrorKind::CallDepthExceeded);
}

// ---------------------------------------------------------------------------
// Import: host value -> runtime value

TEST(HostValueImport, Scalars) {
  Limits lim;
  Ctx ctx(lim);
  EXPECT_TRUE(import_value(ctx, H::nil()).is_nil());
  Value b = import_value(ctx, H::boolean(true));
  ASSERT_TRUE(b.is_bool());
  EXPECT_TRUE(b.as_bool());
  Value i = import_value(ctx, num(42));
  ASSERT_TRUE(i.is_int());
  EXPECT_EQ(i.as_int(), 42);
  Value f = import_value(ctx, H::floating(-0.5));
  ASSERT_TRUE(f.is_float());
  EXPECT_EQ(f.as_float(), -0.5);
  Value big = import_value(ctx, H::bigint("123456789012345678901234567890"));
  ASSERT_EQ(big.type(), Type::BigInt);
  EXPECT_EQ(bigint_to_string(big.big()), "123456789012345678901234567890");
  // A "bigint" that fits int64 becomes an Int, as everywhere in the runtime.
  Value small = import_value(ctx, H::bigint("77"));
  ASSERT_TRUE(small.is_int());
  EXPECT_EQ(small.as_int(), 77);
  Value s = import_value(ctx, str("héllo"));
  ASSERT_TRUE(s.is_string());
  EXPECT_EQ(s.str()->view(), "héllo");
  Value k = import_value(ctx, kw("id"));
  ASSERT_TRUE(k.is_keyword());
  EXPECT_TRUE(k.identical(ctx.keyword("id")));  // interned in this run
  Value o = import_value(ctx, H::opaque("#fn[x]"));
  ASSERT_TRUE(o.is_string());
  EXPECT_EQ(o.str()->view(), "#fn[x]");
}

TEST(HostValueImport, Collections) {
  Limits lim;
  Ctx ctx(lim);
  Value m = import_value(ctx, map({{kw("b"), num(1)}, {str("a"), vec({num(1), num(2)})}}));
  ASSERT_TRUE(m.is_map());
  EXPECT_EQ(m.map()->count, 2u);
  HashIter it(m.map());
  EXPECT_TRUE(equals(it.key(), ctx.keyword("b")));
  it.next();
  EXPECT_TRUE(equals(it.key(), ctx.string("a")));
  EXPECT_TRUE(equals(it.val(), rvec(ctx, {Value::integer(1), Value::integer(2)})));
  EXPECT_TRUE(equals(map_get(m.map(), ctx.keyword("b")), Value::integer(1)));

  // Duplicate keys from a host: the last value wins, the first position stays.
  Value d = import_value(ctx, map({{kw("a"), num(1)}, {kw("b"), num(2)}, {kw("a"), num(3)}}));
  ASSERT_EQ(d.map()->count, 2u);
  HashIter di(d.map());
  EXPECT_TRUE(equals(di.key(), ctx.keyword("a")));
  EXPECT_EQ(di.val().as_int(), 3);

  Value s = import_value(ctx, set({num(1), num(2), num(1)}));
  ASSERT_TRUE(s.is_set());
  EXPECT_EQ(s.set()->count, 2u);
  EXPECT_TRUE(set_contains(s.set(), Value::integer(2)));

  Value e = import_value(ctx, H::vector({}));
  ASSERT_TRUE(e.is_vector());
  EXPECT_EQ(e.vec()->count, 0u);
}

TEST(HostValueImport, InvalidHostDataIsAnError) {
  Limits lim;
  Ctx ctx(lim);
  EXPECT_EQ(error_kind_of([&] { import_value(ctx, H::string("bad \xff byte")); }),
            ErrorKind::RuntimeError);
  EXPECT_EQ(error_kind_of([&] { import_value(ctx, vec({H::keyword("\xc3")})); }),
            ErrorKind::RuntimeError);
  EXPECT_EQ(error_kind_of([&] { import_value(ctx, H::bigint("12ab")); }), ErrorKind::RuntimeError);
}

// ---------------------------------------------------------------------------
// Round trips

TEST(HostValueRoundTrip, RuntimeToHostToRuntime) {
  Limits lim;
  Ctx ctx(lim);
  std::vector<Value> big;
  for (int i = 0; i < 70; ++i)
    big.push_back(ctx.string(named("s", static_cast<size_t>(i))));
  Value original = rmap(
      ctx,
      {
          {ctx.keyword("nil"), Value::nil()},
          {ctx.keyword("bools"), rvec(ctx, {Value::boolean(true), Value::boolean(false)})},
          {ctx.string("int"), Value::integer(std::numeric_limits<int64_t>::min())},
          {ctx.keyword("big"), integer_from_decimal(ctx.arena, "98765432109876543210987654321")},
          {ctx.keyword("float"), Value::floating(3.25)},
          {ctx.keyword("str"), ctx.string("naïve ☃ \"q\"")},
          {Value::integer(7), ctx.keyword("seven")},
          {ctx.keyword("set"), rset(ctx, {ctx.keyword("x"), Value::integer(1)})},
          {ctx.keyword("vec"), rvec(ctx, big)},
          {rvec(ctx, {Value::integer(1)}), ctx.string("vector key")},
      });
  H host = export_value(original);
  Limits lim2;
  Ctx ctx2(lim2);  // the copy outlives the first run's arena
  Value back = import_value(ctx2, host);
  EXPECT_TRUE(equals(original, back));
  EXPECT_EQ(print_to_string(original), print_to_string(back));  // same insertion order
  EXPECT_EQ(export_value(back), host);
}

TEST(HostValueRoundTrip, HostToRuntimeToHost) {
  Limits lim;
  Ctx ctx(lim);
  H host =
      map({{str("users"), vec({map({{kw("name"), str("Ann")}, {kw("age"), num(31)}}),
                               map({{kw("name"), str("Bob")}, {kw("score"), H::floating(9.5)}})})},
           {kw("tags"), set({kw("a"), kw("b")})},
           {kw("big"), H::bigint("-170141183460469231731687303715884105728")},
           {kw("none"), H::nil()}});
  H again = export_value(import_value(ctx, host));
  EXPECT_EQ(again, host);
  // Order survives too, not just equality.
  ASSERT_EQ(again.items().size(), host.items().size());
  for (size_t i = 0; i < host.items().size(); i += 2)
    EXPECT_EQ(again.items()[i], host.items()[i]);
}

// ---------------------------------------------------------------------------
// Deeply nested host values

TEST(HostValueDeep, NestedValuesFreeAndFailCleanly) {
  H deep = H::vector({});
  for (int i = 0; i < 1000000; ++i)
    deep = H::vector({std::move(deep)});
  H other = deep;  // shared, cheap copy
  EXPECT_EQ(deep.size(), 1u);
  EXPECT_EQ(error_kind_of([&] { (void)(deep == H::vector({std::move(other)})); }),
            ErrorKind::CallDepthExceeded);
  Limits lim;
  lim.max_heap_bytes = size_t{512} << 20;
  Ctx ctx(lim);
  EXPECT_EQ(error_kind_of([&] { import_value(ctx, deep); }), ErrorKind::CallDepthExceeded);
  EXPECT_EQ(error_kind_of([&] { to_json(deep); }), ErrorKind::CallDepthExceeded);
  deep = H::nil();  // frees a million levels without recursing
  SUCCEED();
}

}  // namespace
}  // namespace ptc
