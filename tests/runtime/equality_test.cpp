#include "runtime/equality.hpp"

#include <gtest/gtest.h>

#include "support/runtime_fixture.hpp"

#include "support/build_info.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/vector.hpp"

namespace ptc {
namespace {

using testing::F;
using testing::I;
using testing::kInf;
using testing::kMax;
using testing::kMin;

class Equality : public testing::RuntimeFixture {
 protected:
  // equals must be symmetric, and equal values must hash alike.
  void expect_equal(Value a, Value b) {
    EXPECT_TRUE(equals(a, b)) << print_to_string(a) << " vs " << print_to_string(b);
    EXPECT_TRUE(equals(b, a)) << print_to_string(b) << " vs " << print_to_string(a);
    EXPECT_EQ(hash_value(a), hash_value(b)) << print_to_string(a) << " vs " << print_to_string(b);
  }
  void expect_unequal(Value a, Value b) {
    EXPECT_FALSE(equals(a, b)) << print_to_string(a) << " vs " << print_to_string(b);
    EXPECT_FALSE(equals(b, a)) << print_to_string(b) << " vs " << print_to_string(a);
  }
};

TEST_F(Equality, Scalars) {
  expect_equal(Value::nil(), Value::nil());
  expect_equal(Value::boolean(true), Value::boolean(true));
  expect_unequal(Value::boolean(true), Value::boolean(false));
  expect_unequal(Value::nil(), Value::boolean(false));
  expect_unequal(Value::nil(), I(0));
  expect_unequal(I(0), Value::boolean(false));
  expect_equal(I(42), I(42));
  expect_unequal(I(42), I(43));
  expect_equal(Value::builtin(3), Value::builtin(3));
  expect_unequal(Value::builtin(3), Value::builtin(4));
}

TEST_F(Equality, NumbersAreTypeIndependent) {
  expect_equal(I(1), F(1.0));
  expect_equal(I(0), F(-0.0));
  expect_equal(F(0.0), F(-0.0));
  expect_equal(I(-7), F(-7.0));
  expect_unequal(I(1), F(1.5));
  expect_unequal(I(1), F(1.0000000000000002));
  expect_equal(I(kMin), F(-9223372036854775808.0));
  expect_unequal(I(kMax), F(9223372036854775808.0));  // the double is 2^63 exactly
  Value two63 = num_add(ctx.arena, I(kMax), I(1));
  expect_equal(two63, F(9223372036854775808.0));
  // 2^53 + 1 is not representable: the double 2^53 differs from it.
  expect_unequal(I(9007199254740993), F(9007199254740992.0));
  expect_equal(I(9007199254740992), F(9007199254740992.0));
  // A huge integral double equals the bignum of the same value.
  Value b = big("1" + std::string(30, '0'));
  double d = 1e30;  // not exactly 10^30
  expect_unequal(b, F(d));
  Mpz z;
  mpz_set_d(z.get(), d);
  Value exact = integer_from_mpz(ctx.arena, z.get());
  expect_equal(exact, F(d));
  expect_equal(num_neg(ctx.arena, exact), F(-d));
  expect_unequal(num_add(ctx.arena, exact, I(1)), F(d));
  // Bignums equal by value, not identity.
  expect_equal(big("123456789012345678901234567890"), big("123456789012345678901234567890"));
  expect_unequal(big("123456789012345678901234567890"), big("-123456789012345678901234567890"));
  expect_unequal(big("123456789012345678901234567890"), I(5));
  expect_unequal(F(kInf), big("1" + std::string(400, '0')));
  expect_equal(F(kInf), F(kInf));
  expect_unequal(F(kInf), F(-kInf));
}

TEST_F(Equality, NaNNeverEqual) {
  Value nan = F(NAN);
  EXPECT_FALSE(equals(nan, nan));
  EXPECT_FALSE(equals(nan, F(NAN)));
  EXPECT_FALSE(equals(nan, I(0)));
  EXPECT_FALSE(equals(I(0), nan));
  EXPECT_FALSE(numbers_equal(nan, nan));
  bool unordered = false;
  EXPECT_EQ(compare_numbers(nan, I(1), &unordered), 0);
  EXPECT_TRUE(unordered);
  compare_numbers(I(1), I(2), &unordered);
  EXPECT_FALSE(unordered);
  EXPECT_FALSE(equals(vec({I(1), nan}), vec({I(1), nan})));
  EXPECT_EQ(hash_value(nan), hash_value(F(-NAN)));  // hashing NaN is still stable
}

TEST_F(Equality, HashAgreesWithNumericEquality) {
  EXPECT_EQ(hash_value(I(1)), hash_value(F(1.0)));
  EXPECT_EQ(hash_value(I(0)), hash_value(F(-0.0)));
  EXPECT_EQ(hash_value(F(0.0)), hash_value(F(-0.0)));
  EXPECT_EQ(hash_value(I(kMin)), hash_value(F(-9223372036854775808.0)));
  for (double d : {1e19, -1e19, 1e30, 1.7976931348623157e308, -4.5e300, 18446744073709551616.0}) {
    Mpz z;
    mpz_set_d(z.get(), d);
    Value b = integer_from_mpz(ctx.arena, z.get());
    ASSERT_TRUE(b.is(Type::BigInt));
    EXPECT_EQ(hash_value(b), hash_value(F(d))) << d;
  }
  // Collections containing equal numbers of different types hash alike.
  expect_equal(vec({I(1), F(2.0)}), vec({F(1.0), I(2)}));
  expect_equal(map({{I(1), F(2.0)}}), map({{F(1.0), I(2)}}));
  expect_equal(set({I(1), I(2)}), set({F(2.0), F(1.0)}));
  // Distinct small numbers should (almost always) hash differently.
  EXPECT_NE(hash_value(I(1)), hash_value(I(2)));
  EXPECT_NE(hash_value(F(1.5)), hash_value(F(2.5)));
}

TEST_F(Equality, Strings) {
  expect_equal(str("abc"), str("abc"));
  expect_equal(str(""), str(""));
  expect_unequal(str("abc"), str("abd"));
  expect_unequal(str("abc"), str("ab"));
  expect_unequal(str("a"), kw("a"));
  expect_unequal(str("1"), I(1));
  // Byte equality: e + combining accent differs from the precomposed é.
  expect_unequal(str("e\xCC\x81"), str("\xC3\xA9"));
  std::string with_nul("a\0b", 3);
  expect_equal(ctx.string(with_nul), ctx.string(with_nul));
  expect_unequal(ctx.string(with_nul), ctx.string(std::string("a\0c", 3)));
  // A cached hash does not confuse comparison.
  Value a = str("hello"), b = str("hello"), c = str("hellp");
  hash_value(a);
  hash_value(c);
  expect_equal(a, b);
  expect_unequal(a, c);
}

TEST_F(Equality, KeywordsAcrossInterners) {
  Ctx other(lim);
  Value a1 = kw("alpha"), a2 = other.keyword("alpha");
  ASSERT_NE(a1.obj(), a2.obj());
  expect_equal(a1, a2);
  expect_unequal(a1, other.keyword("beta"));
  expect_equal(vec({a1, I(1)}),
               Value::object(vec_from(other.arena, std::vector<Value>{a2, I(1)}.data(), 2)));
  EXPECT_EQ(compare(a1, a2), 0);
  // Map lookups work with a keyword from the other interner.
  Value m = map({{a1, I(9)}});
  ASSERT_NE(map_find(m.map(), a2), nullptr);
  EXPECT_EQ(map_find(m.map(), a2)->as_int(), 9);
  // Symbols are not keywords.
  Value sym = Value::object(ctx.interner.symbol("alpha"));
  expect_unequal(sym, a1);
  expect_equal(sym, Value::object(other.interner.symbol("alpha")));
}

TEST_F(Equality, Vectors) {
  expect_equal(vec({}), vec({}));
  expect_equal(vec({I(1), str("a"), kw("k")}), vec({I(1), str("a"), kw("k")}));
  expect_unequal(vec({I(1), I(2)}), vec({I(2), I(1)}));
  expect_unequal(vec({I(1), I(2)}), vec({I(1), I(2), I(3)}));
  expect_unequal(vec({}), map({}));
  expect_unequal(vec({}), Value::nil());
  expect_equal(vec({vec({I(1)}), map({{kw("a"), I(1)}})}),
               vec({vec({F(1.0)}), map({{kw("a"), F(1.0)}})}));
  // Large vectors built differently are equal and hash alike.
  VecBuilder b(ctx.arena);
  const VecObj* c = empty_vector();
  for (int i = 0; i < 2000; ++i) {
    b.push(I(i));
    c = vec_conj(ctx.arena, c, F(i));
  }
  Value bv = vec_value(b.finish()), cv = vec_value(c);
  expect_equal(bv, cv);
  expect_unequal(bv, vec_value(vec_assoc(ctx.arena, c, 1999, I(0))));
  expect_unequal(bv, vec_value(vec_assoc(ctx.arena, c, 0, I(-1))));
}

TEST_F(Equality, MapsAndSetsIgnoreOrder) {
  expect_equal(map({}), map({}));
  expect_equal(map({{kw("a"), I(1)}, {kw("b"), I(2)}}), map({{kw("b"), I(2)}, {kw("a"), I(1)}}));
  expect_unequal(map({{kw("a"), I(1)}}), map({{kw("a"), I(2)}}));
  expect_unequal(map({{kw("a"), I(1)}}), map({{kw("b"), I(1)}}));
  expect_unequal(map({{kw("a"), Value::nil()}}), map({{kw("b"), Value::nil()}}));
  expect_unequal(map({{kw("a"), I(1)}}), map({{str("a"), I(1)}}));
  expect_unequal(map({{kw("a"), I(1)}}), set({kw("a")}));
  expect_equal(set({}), set({}));
  expect_equal(set({I(1), I(2), I(3)}), set({I(3), I(1), I(2)}));
  expect_unequal(set({I(1), I(2)}), set({I(1), I(3)}));
  expect_unequal(set({}), map({}));
  // Large ones, built in opposite orders, with tombstones in one of them.
  const MapObj* m1 = empty_map();
  const MapObj* m2 = empty_map();
  const SetObj* s1 = empty_set();
  const SetObj* s2 = empty_set();
  for (int i = 0; i < 300; ++i) {
    m1 = map_assoc(ctx.arena, m1, I(i), str(std::to_string(i).c_str()));
    m2 = map_assoc(ctx.arena, m2, I(299 - i), str(std::to_string(299 - i).c_str()));
    s1 = set_conj(ctx.arena, s1, vec({I(i)}));
    s2 = set_conj(ctx.arena, s2, vec({I(299 - i)}));
  }
  m2 = map_assoc(ctx.arena, m2, kw("extra"), I(0));
  s2 = set_conj(ctx.arena, s2, kw("extra"));
  expect_unequal(Value::object(m1), Value::object(m2));
  expect_unequal(Value::object(s1), Value::object(s2));
  m2 = map_dissoc(ctx.arena, m2, kw("extra"));
  s2 = set_disj(ctx.arena, s2, kw("extra"));
  expect_equal(Value::object(m1), Value::object(m2));
  expect_equal(Value::object(s1), Value::object(s2));
  Value changed = Value::object(map_assoc(ctx.arena, m2, I(150), str("x")));
  expect_unequal(Value::object(m1), changed);
}

TEST_F(Equality, FunctionsEqualOnlyThemselves) {
  static const FnHeader fn{"f", "x"};
  auto make = [&] {
    auto* c = ctx.arena.make<ClosureObj>();
    c->type = Type::Closure;
    c->fn = &fn;
    return Value::object(c);
  };
  Value f = make(), g = make();
  EXPECT_TRUE(equals(f, f));
  EXPECT_FALSE(equals(f, g));
  EXPECT_EQ(hash_value(f), hash_value(f));
}

TEST_F(Equality, CompareNumbers) {
  EXPECT_LT(compare(I(1), I(2)), 0);
  EXPECT_GT(compare(I(2), I(1)), 0);
  EXPECT_EQ(compare(I(2), F(2.0)), 0);
  EXPECT_LT(compare(I(2), F(2.5)), 0);
  EXPECT_GT(compare(F(-1.5), I(-2)), 0);
  EXPECT_LT(compare(I(9007199254740992), I(9007199254740993)), 0);
  EXPECT_LT(compare(F(9007199254740992.0), I(9007199254740993)), 0);
  EXPECT_GT(compare(I(9007199254740993), F(9007199254740992.0)), 0);
  EXPECT_LT(compare(I(kMax), F(9223372036854775808.0)), 0);
  EXPECT_GT(compare(I(kMin), F(-9223372036854777856.0)), 0);
  EXPECT_LT(compare(I(kMax), F(kInf)), 0);
  EXPECT_GT(compare(I(kMin), F(-kInf)), 0);
  Value huge = big("1" + std::string(400, '0'));
  EXPECT_LT(compare(huge, F(kInf)), 0);
  EXPECT_GT(compare(huge, F(1.7976931348623157e308)), 0);
  EXPECT_LT(compare(num_neg(ctx.arena, huge), F(-1e308)), 0);
  EXPECT_GT(compare(huge, I(kMax)), 0);
  EXPECT_LT(compare(I(kMax), huge), 0);
  EXPECT_LT(compare(num_neg(ctx.arena, huge), huge), 0);
  EXPECT_LT(compare(F(-0.5), I(0)), 0);
  EXPECT_GT(compare(F(0.5), I(0)), 0);
  EXPECT_LT(compare(F(-2.5), I(-2)), 0);
}

TEST_F(Equality, CompareTotalOrderAcrossTypes) {
  static const FnHeader fn{"f", "x"};
  auto* clo = ctx.arena.make<ClosureObj>();
  clo->type = Type::Closure;
  clo->fn = &fn;
  // numbers < nil/booleans/keywords (by name) < functions < maps/sets < vectors < strings
  std::vector<Value> ordered = {
      F(-kInf),
      I(-5),
      F(0.5),
      big("100000000000000000000"),
      kw("a"),  // "a" < "false"
      Value::boolean(false),
      kw("m"),  // "false" < "m" < "nil"
      Value::nil(),
      kw("o"),  // "nil" < "o" < "true"
      Value::boolean(true),
      kw("zz"),
      Value::object(clo),
      Value::builtin(1),
      map({}),
      map({{I(1), I(2)}}),
      vec({}),
      vec({I(1)}),
      vec({I(1), I(2)}),
      vec({I(2)}),
      vec({str("a")}),
      str(""),
      str("a"),
      str("ab"),
      str("b"),
  };
  for (size_t i = 0; i < ordered.size(); ++i) {
    EXPECT_EQ(compare(ordered[i], ordered[i]), 0) << print_to_string(ordered[i]);
    for (size_t j = i + 1; j < ordered.size(); ++j) {
      EXPECT_LT(compare(ordered[i], ordered[j]), 0)
          << print_to_string(ordered[i]) << " < " << print_to_string(ordered[j]);
      EXPECT_GT(compare(ordered[j], ordered[i]), 0)
          << print_to_string(ordered[j]) << " > " << print_to_string(ordered[i]);
    }
  }
  // Keywords compare by their name text, so :b sorts before nil ("b" < "nil").
  EXPECT_LT(compare(kw("b"), Value::nil()), 0);
  EXPECT_GT(compare(kw("z"), Value::nil()), 0);
  EXPECT_LT(compare(Value::boolean(false), Value::nil()), 0);
  EXPECT_LT(compare(Value::nil(), Value::boolean(true)), 0);
  EXPECT_LT(compare(kw("apple"), kw("banana")), 0);
}

TEST_F(Equality, CompareMapsAndSets) {
  // Size first, then keys in order, then values.
  EXPECT_LT(compare(map({{I(5), I(5)}}), map({{I(1), I(1)}, {I(2), I(2)}})), 0);
  EXPECT_LT(compare(map({{I(1), I(9)}}), map({{I(2), I(0)}})), 0);
  EXPECT_LT(compare(map({{I(1), I(1)}}), map({{I(1), I(2)}})), 0);
  EXPECT_EQ(compare(map({{I(1), I(1)}, {I(2), I(2)}}), map({{I(2), I(2)}, {I(1), I(1)}})), 0);
  EXPECT_LT(compare(set({I(1), I(2)}), set({I(1), I(3)})), 0);
  EXPECT_EQ(compare(set({I(3), I(1)}), set({I(1), I(3)})), 0);
}

TEST_F(Equality, SortWithCompareIsConsistent) {
  std::mt19937 rng(3);
  std::vector<Value> vals;
  for (int i = 0; i < 300; ++i) {
    switch (rng() % 6) {
      case 0:
        vals.push_back(I(static_cast<int64_t>(rng() % 100) - 50));
        break;
      case 1:
        vals.push_back(F(static_cast<double>(rng() % 1000) / 10.0 - 50));
        break;
      case 2:
        vals.push_back(str(std::string(1, static_cast<char>('a' + rng() % 26)).c_str()));
        break;
      case 3:
        vals.push_back(kw(std::string(1, static_cast<char>('a' + rng() % 26)).c_str()));
        break;
      case 4:
        vals.push_back(
            vec({I(static_cast<int64_t>(rng() % 5)), I(static_cast<int64_t>(rng() % 5))}));
        break;
      default:
        vals.push_back(rng() % 2 ? Value::nil() : Value::boolean(rng() % 2));
    }
  }
  std::sort(vals.begin(), vals.end(), [](Value a, Value b) { return compare(a, b) < 0; });
  for (size_t i = 1; i < vals.size(); ++i)
    EXPECT_LE(compare(vals[i - 1], vals[i]), 0);
  // Antisymmetry and transitivity on a sample.
  for (size_t i = 0; i < vals.size(); i += 7)
    for (size_t j = 0; j < vals.size(); j += 11)
      EXPECT_EQ(compare(vals[i], vals[j]), -compare(vals[j], vals[i]));
}

// Random values from a small domain, each built in one of several equal
// representations, so that equal pairs are common.
class RandomValues {
 public:
  RandomValues(Ctx& ctx, uint32_t seed) : ctx_(ctx), rng_(seed) {}

  Value make(int depth) {
    switch (rng_() % (depth > 0 ? 8 : 5)) {
      case 0: {
        int64_t n = static_cast<int64_t>(rng_() % 5) - 2;
        switch (rng_() % 3) {
          case 0:
            return Value::integer(n);
          case 1:
            return Value::floating(static_cast<double>(n));
          default:
            return Value::floating(n + 0.5);
        }
      }
      case 1: {
        // 2^64 + k as a bignum, or as the double when k = 0.
        int64_t k = static_cast<int64_t>(rng_() % 2);
        Value b = num_add(
            ctx_.arena,
            num_mul(ctx_.arena, Value::integer(int64_t{1} << 32), Value::integer(int64_t{1} << 32)),
            Value::integer(k));
        return k == 0 && rng_() % 2 ? Value::floating(18446744073709551616.0) : b;
      }
      case 2:
        return ctx_.string(std::string(1, static_cast<char>('a' + rng_() % 3)));
      case 3:
        return ctx_.keyword(std::string(1, static_cast<char>('a' + rng_() % 3)));
      case 4:
        return rng_() % 2 ? Value::nil() : Value::boolean(rng_() % 2);
      case 5: {
        uint32_t n = rng_() % 3;
        std::vector<Value> items;
        for (uint32_t i = 0; i < n; ++i)
          items.push_back(make(depth - 1));
        if (rng_() % 2) return vec_value(vec_from(ctx_.arena, items.data(), items.size()));
        const VecObj* v = empty_vector();
        for (Value x : items)
          v = vec_conj(ctx_.arena, v, x);
        return vec_value(v);
      }
      default: {
        // A map or set, built forwards, backwards or with removals (a large
        // form with tombstones when padding is used).
        bool is_set = rng_() % 3 == 0;
        uint32_t n = rng_() % 3;
        std::vector<std::pair<Value, Value>> kvs;
        for (uint32_t i = 0; i < n; ++i)
          kvs.emplace_back(make(0), make(depth - 1));
        if (rng_() % 2) std::reverse(kvs.begin(), kvs.end());
        bool pad = rng_() % 3 == 0;
        const HashObj* h = is_set ? static_cast<const HashObj*>(empty_set()) : empty_map();
        auto put = [&](Value k, Value v) {
          h = is_set ? static_cast<const HashObj*>(
                           set_conj(ctx_.arena, static_cast<const SetObj*>(h), k))
                     : map_assoc(ctx_.arena, static_cast<const MapObj*>(h), k, v);
        };
        auto drop = [&](Value k) {
          h = is_set ? static_cast<const HashObj*>(
                           set_disj(ctx_.arena, static_cast<const SetObj*>(h), k))
                     : map_dissoc(ctx_.arena, static_cast<const MapObj*>(h), k);
        };
        if (pad)
          for (int i = 0; i < 12; ++i)
            put(Value::integer(1000 + i), Value::nil());
        // Keys are unique by =: later duplicates are dropped, as in a model.
        std::vector<Value> seen;
        for (auto& [k, v] : kvs) {
          bool dup = false;
          for (Value x : seen)
            dup = dup || equals(x, k);
          if (dup) continue;
          seen.push_back(k);
          put(k, v);
        }
        if (pad)
          for (int i = 0; i < 12; ++i)
            drop(Value::integer(1000 + i));
        return Value::object(h);
      }
    }
  }

 private:
  Ctx& ctx_;
  std::mt19937 rng_;
};

// A map and a set with the same keys tie in compare without being equal.
bool holds_hash_coll(Value v) {
  return print_to_string(v).find('{') != std::string::npos;
}

TEST_F(Equality, RandomValuesKeepEqualsHashAndCompareConsistent) {
  RandomValues gen(ctx, 11);
  std::vector<Value> vals;
  for (int i = 0; i < 400; ++i)
    vals.push_back(gen.make(2));
  int equal_pairs = 0;
  for (size_t i = 0; i < vals.size(); ++i) {
    for (size_t j = 0; j < vals.size(); ++j) {
      Value a = vals[i], b = vals[j];
      bool eq = equals(a, b);
      ASSERT_EQ(eq, equals(b, a)) << print_to_string(a) << " / " << print_to_string(b);
      int c = compare(a, b);
      ASSERT_EQ(c, -compare(b, a)) << print_to_string(a) << " / " << print_to_string(b);
      if (eq) {
        ++equal_pairs;
        ASSERT_EQ(hash_value(a), hash_value(b))
            << print_to_string(a) << " / " << print_to_string(b);
        ASSERT_EQ(c, 0) << print_to_string(a) << " / " << print_to_string(b);
      } else if (!holds_hash_coll(a) && !holds_hash_coll(b)) {
        // Unequal values are ordered (maps and sets aside, see above).
        ASSERT_NE(c, 0) << print_to_string(a) << " / " << print_to_string(b);
      }
    }
  }
  EXPECT_GT(equal_pairs, static_cast<int>(vals.size()) * 2);  // the domain produces many ties
  // Transitivity of the order on a sorted sample.
  std::vector<Value> sorted = vals;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](Value a, Value b) { return compare(a, b) < 0; });
  for (size_t i = 0; i + 1 < sorted.size(); ++i)
    for (size_t j = i + 1; j < sorted.size(); j += 13)
      ASSERT_LE(compare(sorted[i], sorted[j]), 0)
          << print_to_string(sorted[i]) << " / " << print_to_string(sorted[j]);
}

// Nesting deep enough to exhaust any native stack: every recursive walk must
// fail with CallDepthExceeded instead of crashing.
class DeepNesting : public ::testing::Test {
 protected:
  static Limits big_limits() {
    Limits l;
    l.max_heap_bytes = size_t{1} << 30;
    return l;
  }
  DeepNesting() : lim(big_limits()), ctx(lim) {}

  Value nest_vectors(int depth, Value leaf) {
    Value v = leaf;
    for (int i = 0; i < depth; ++i)
      v = vec_value(vec_from(ctx.arena, &v, 1));
    return v;
  }
  Value nest_maps(int depth, Value leaf) {
    Value v = leaf;
    Value k = ctx.keyword("k");
    for (int i = 0; i < depth; ++i)
      v = Value::object(map_assoc(ctx.arena, empty_map(), k, v));
    return v;
  }
  Value nest_sets(int depth) {
    Value v = I(0);
    for (int i = 0; i < depth; ++i)
      v = Value::object(set_conj(ctx.arena, empty_set(), v));
    return v;
  }
  void expect_depth_error(const std::function<void()>& f, const char* what) {
    try {
      f();
      ADD_FAILURE() << what << ": no error";
    } catch (const LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::CallDepthExceeded) << what;
      EXPECT_NE(e.error().message.find("nest"), std::string::npos) << e.error().message;
    }
  }
  static constexpr int kDepth = 1000000;
  Limits lim;
  Ctx ctx;
};

TEST_F(DeepNesting, Vectors) {
  Value a = nest_vectors(kDepth, I(1));
  Value b = nest_vectors(kDepth, I(1));
  expect_depth_error([&] { equals(a, b); }, "equals");
  expect_depth_error([&] { hash_value(a); }, "hash_value");
  expect_depth_error([&] { compare(a, b); }, "compare");
  expect_depth_error([&] { print_to_string(a); }, "print");
  expect_depth_error([&] { display_value(a); }, "display");
  expect_depth_error(
      [&] {
        std::string out;
        str_append(out, a);
      },
      "str");
  // The same value as a map key hashes first, which must fail cleanly too.
  const MapObj* large = empty_map();
  for (int i = 0; i < 20; ++i)
    large = map_assoc(ctx.arena, large, I(i), I(i));
  expect_depth_error([&] { map_assoc(ctx.arena, large, a, I(1)); }, "map key");
  // Identity still short-cuts.
  EXPECT_TRUE(equals(a, a));
}

TEST_F(DeepNesting, MapsAndSets) {
  Value a = nest_maps(kDepth / 4, I(1));
  Value b = nest_maps(kDepth / 4, I(1));
  expect_depth_error([&] { equals(a, b); }, "equals maps");
  expect_depth_error([&] { hash_value(a); }, "hash maps");
  expect_depth_error([&] { compare(a, b); }, "compare maps");
  expect_depth_error([&] { print_to_string(a); }, "print maps");
  Value s = nest_sets(kDepth / 4);
  Value t = nest_sets(kDepth / 4);
  expect_depth_error([&] { print_to_string(s); }, "print sets");
  expect_depth_error([&] { hash_value(s); }, "hash sets");
  expect_depth_error([&] { equals(s, t); }, "equals sets");
  expect_depth_error([&] { compare(s, t); }, "compare sets");
}

TEST_F(DeepNesting, ModeratelyNestedDataStillWorks) {
  const int depth = 2000 / ptc::testing::kDepthScale;
  Value a = nest_vectors(depth, I(1));
  Value b = nest_vectors(depth, I(1));
  Value c = nest_vectors(depth, I(2));
  EXPECT_TRUE(equals(a, b));
  EXPECT_FALSE(equals(a, c));
  EXPECT_EQ(hash_value(a), hash_value(b));
  EXPECT_LT(compare(a, c), 0);
  std::string p = print_to_string(a);
  EXPECT_EQ(p, std::string(depth, '[') + "1" + std::string(depth, ']'));
}

}  // namespace
}  // namespace ptc
