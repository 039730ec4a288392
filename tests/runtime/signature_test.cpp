#include "runtime/signature.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "support/host_builders.hpp"

namespace ptc {
namespace {

using H = HostValue;
using K = SigType::Kind;
using namespace testing::host;

// The signature rendered back, which also checks the round trip.
std::string parsed(std::string_view text) {
  Signature sig = parse_signature(text);
  std::string out = to_string(sig);
  EXPECT_EQ(to_string(parse_signature(out)), out) << "round trip of " << text;
  return out;
}

struct ParseFailure {
  std::string message;
  std::string hint;
  SourceLoc loc;
};

ParseFailure parse_failure(std::string_view text) {
  try {
    parse_signature(text);
  } catch (const LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ArgsError);
    return {e.error().message, e.error().hint, e.error().loc};
  }
  ADD_FAILURE() << "parsed: " << text;
  return {};
}

SignatureCheck out(std::string_view sig, const H& value) {
  return check_output(parse_signature(sig), value);
}

SignatureCheck in(std::string_view sig, const H& args) {
  return check_inputs(parse_signature(sig), args);
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

TEST(SignatureParse, Primitives) {
  struct Case {
    const char* text;
    K kind;
  };
  for (Case c : {Case{":string", K::String}, Case{":int", K::Int}, Case{":float", K::Float},
                 Case{":bool", K::Bool}, Case{":boolean", K::Bool}, Case{":keyword", K::Keyword},
                 Case{":datetime", K::DateTime}, Case{":any", K::Any}, Case{":map", K::Map}}) {
    Signature sig = parse_signature(c.text);
    EXPECT_TRUE(sig.inputs.empty()) << c.text;
    ASSERT_TRUE(sig.output) << c.text;
    EXPECT_EQ(sig.output->kind, c.kind) << c.text;
    EXPECT_FALSE(sig.output->optional) << c.text;
    EXPECT_EQ(sig.text, c.text);
  }
  EXPECT_EQ(parsed(":boolean"), ":bool");
  EXPECT_EQ(parsed("{ok :boolean}"), "{ok :bool}");
}

TEST(SignatureParse, OptionalTypes) {
  Signature top = parse_signature(":string?");
  EXPECT_EQ(top.output->kind, K::String);
  EXPECT_TRUE(top.output->optional);

  Signature field = parse_signature("{id :int, email :string?}");
  ASSERT_EQ(field.output->kind, K::Struct);
  ASSERT_EQ(field.output->fields.size(), 2u);
  EXPECT_EQ(field.output->fields[0].first, "id");
  EXPECT_FALSE(field.output->fields[0].second->optional);
  EXPECT_EQ(field.output->fields[1].first, "email");
  EXPECT_TRUE(field.output->fields[1].second->optional);

  Signature param = parse_signature("(email :string?) -> :string");
  ASSERT_EQ(param.inputs.size(), 1u);
  EXPECT_TRUE(param.inputs[0].second->optional);

  EXPECT_EQ(parsed("[:string?]"), "[:string?]");
  EXPECT_EQ(parsed("{m :map?, a :any?, at :datetime?}"), "{m :map?, a :any?, at :datetime?}");
}

TEST(SignatureParse, Lists) {
  Signature ints = parse_signature("[:int]");
  ASSERT_EQ(ints.output->kind, K::List);
  EXPECT_EQ(ints.output->element->kind, K::Int);
  EXPECT_EQ(parsed("[:string]"), "[:string]");
  EXPECT_EQ(parsed("[:map]"), "[:map]");
  EXPECT_EQ(parsed("[:any]"), "[:any]");
  EXPECT_EQ(parsed("[{id :int, name :string}]"), "[{id :int, name :string}]");
  EXPECT_EQ(parsed("[[:int]]"), "[[:int]]");
  EXPECT_EQ(parsed("[{}]"), "[{}]");
  EXPECT_EQ(parsed("[:datetime]"), "[:datetime]");
}

TEST(SignatureParse, Maps) {
  Signature empty = parse_signature("{}");
  EXPECT_EQ(empty.output->kind, K::Struct);
  EXPECT_TRUE(empty.output->fields.empty());
  EXPECT_EQ(parsed("{id :int}"), "{id :int}");
  EXPECT_EQ(parsed("{id :int, name :string}"), "{id :int, name :string}");
  EXPECT_EQ(parsed("{customer {id :int, name :string}}"), "{customer {id :int, name :string}}");
  EXPECT_EQ(parsed("{user {id :int, address {city :string, zip :string}}}"),
            "{user {id :int, address {city :string, zip :string}}}");
  EXPECT_EQ(parsed("{user {profile {settings {theme {colors {primary :string}}}}}}"),
            "{user {profile {settings {theme {colors {primary :string}}}}}}");
  EXPECT_EQ(parsed("{summary :string, count :int, _email_ids [:int]}"),
            "{summary :string, count :int, _email_ids [:int]}");
  EXPECT_EQ(parsed("{user-id :int, user_id :int, q1_total :float, X9 :any}"),
            "{user-id :int, user_id :int, q1_total :float, X9 :any}");
}

TEST(SignatureParse, InputsAndOutput) {
  Signature sig = parse_signature("(a :int, b [:string]) -> {total :float}");
  ASSERT_EQ(sig.inputs.size(), 2u);
  EXPECT_EQ(sig.inputs[0].first, "a");
  EXPECT_EQ(sig.inputs[0].second->kind, K::Int);
  EXPECT_EQ(sig.inputs[1].first, "b");
  EXPECT_EQ(sig.inputs[1].second->kind, K::List);
  EXPECT_EQ(sig.inputs[1].second->element->kind, K::String);
  EXPECT_EQ(sig.output->kind, K::Struct);
  EXPECT_EQ(to_string(*sig.output), "{total :float}");

  // "() -> T" is the shorthand "T".
  Signature none = parse_signature("() -> {name :string, price :float}");
  EXPECT_TRUE(none.inputs.empty());
  EXPECT_EQ(to_string(none), "{name :string, price :float}");
  EXPECT_EQ(parsed("() -> :any"), ":any");

  EXPECT_EQ(parsed("(query :string, limit :int) -> {count :int, items [{id :int}]}"),
            "(query :string, limit :int) -> {count :int, items [{id :int}]}");
  EXPECT_EQ(parsed("(user {id :int, name :string}, limit :int) -> [{order_id :int}]"),
            "(user {id :int, name :string}, limit :int) -> [{order_id :int}]");
  EXPECT_EQ(parsed("(user_id :int) -> {name :string, orders [:map]}"),
            "(user_id :int) -> {name :string, orders [:map]}");
  EXPECT_EQ(parsed("(id :int, name :string) -> :bool"), "(id :int, name :string) -> :bool");
}

TEST(SignatureParse, WhitespaceAndCommas) {
  EXPECT_EQ(parsed("  :string"), ":string");
  EXPECT_EQ(parsed(":string  "), ":string");
  EXPECT_EQ(parsed("( id :int ) -> :string"), "(id :int) -> :string");
  EXPECT_EQ(parsed("{ id :int , name :string }"), "{id :int, name :string}");
  EXPECT_EQ(parsed("(\n  id :int\n) -> :string"), "(id :int) -> :string");
  EXPECT_EQ(parsed("\t{a\t:int,\r\nb :int}\n"), "{a :int, b :int}");
  EXPECT_EQ(parsed("(a :int)->:int"), "(a :int) -> :int");
  EXPECT_EQ(parsed("{id:int,tags[:string],m{x:int}}"), "{id :int, tags [:string], m {x :int}}");
  EXPECT_EQ(parsed("[ :int ]"), "[:int]");
  EXPECT_EQ(parsed("(  ) -> :int"), ":int");
  // The spec's multi-line example.
  EXPECT_EQ(parsed("(query :string, options {limit :int?, sort :string?}) ->\n"
                   "{results [{id :int, score :float, metadata :map}], total :int}\n"),
            "(query :string, options {limit :int?, sort :string?}) -> "
            "{results [{id :int, score :float, metadata :map}], total :int}");
}

TEST(SignatureParse, DeepNestingUpToTheCap) {
  std::string lists(kMaxSignatureDepth, '[');
  lists += ":int";
  lists += std::string(kMaxSignatureDepth, ']');
  Signature sig = parse_signature(lists);
  const SigType* t = sig.output.get();
  for (size_t i = 0; i < kMaxSignatureDepth; ++i) {
    ASSERT_EQ(t->kind, K::List);
    t = t->element.get();
  }
  EXPECT_EQ(t->kind, K::Int);
  EXPECT_EQ(to_string(sig), lists);

  std::string maps;
  for (size_t i = 0; i < kMaxSignatureDepth; ++i)
    maps += "{a ";
  maps += ":int";
  maps += std::string(kMaxSignatureDepth, '}');
  EXPECT_NO_THROW(parse_signature(maps));
}

TEST(SignatureParse, NestingBeyondTheCapIsAnError) {
  std::string lists(kMaxSignatureDepth + 1, '[');
  lists += ":int";
  lists += std::string(kMaxSignatureDepth + 1, ']');
  ParseFailure f = parse_failure(lists);
  EXPECT_EQ(f.message, "types nest more than 64 levels deep at column 65");
  EXPECT_EQ(f.loc.col, 65u);
  EXPECT_NE(f.hint.find(":map"), std::string::npos);

  // Far deeper input fails the same way instead of exhausting the stack.
  std::string huge(200000, '[');
  EXPECT_EQ(parse_failure(huge).loc.col, 65u);
  std::string maps;
  for (int i = 0; i < 100000; ++i)
    maps += "{a ";
  ParseFailure m = parse_failure(maps);
  EXPECT_EQ(m.loc.col, 64u * 3 + 1);
}

// Each malformed signature with its message (column included) and hint.
TEST(SignatureParse, Errors) {
  struct Case {
    const char* text;
    const char* message;
    const char* hint_part;
  };
  const Case cases[] = {
      {"", "expected a signature at column 1, got end of input", "empty string"},
      {"   ", "expected a signature at column 4, got end of input", "empty string"},
      {"invalid syntax here", "expected a type at column 1, got \"invalid\"", "valid types"},
      {"(id :int -> :string", "expected ',' or ')' at column 10, got \"->\"", ""},
      {"(id :)", "expected a type name after ':' at column 6, got \")\"", "valid types"},
      {"(id :int) -> :string extra",
       "expected the end of the signature at column 22, got \"extra\"", "one output type"},
      {":unknown", "unknown type :unknown at column 1", "valid types"},
      {"(items :list) -> :bool", "unknown type :list at column 8", "[:int]"},
      {"{pair :tuple}", "unknown type :tuple at column 7", "no tuples"},
      {"{x :object}", "unknown type :object at column 4", "{field :type}"},
      {":integer", "unknown type :integer at column 1", "did you mean :int?"},
      {":Int", "unknown type :Int at column 1", "lower-case: :int"},
      {"[]", "expected the element type of the list at column 2, got \"]\"", "[:any]"},
      {"[:int :string]", "expected ']' at column 7, got \":string\"", "one element type"},
      {"[:int", "expected ']' at column 6, got end of input", "close the list"},
      {"{id :int name :string}", "expected ',' or '}' at column 10, got \"name\"",
       "separate fields with commas"},
      {"{id :int,}", "expected a field name at column 10, got \"}\"", "trailing comma"},
      {"(a :int, ) -> :int", "expected a parameter name at column 10, got \")\"", "trailing comma"},
      {"{a :int", "expected ',' or '}' at column 8, got end of input", "close the map"},
      {"{email? :string}", "expected the type of field email at column 7, got \"?\"",
       "email :string?"},
      {"{:id :int}", "expected a field name or '}' at column 2, got \":id\"", "bare words"},
      {"(:id :int) -> :int", "expected a parameter name or ')' at column 2, got \":id\"",
       "bare words"},
      {"{1a :int}", "expected a field name or '}' at column 2, got \"1a\"", "starts with a letter"},
      {"{id int}", "expected a type at column 5, got \"int\"", "start with a colon: :int"},
      {"{id :int, tags :array}", "unknown type :array at column 16", "[:type]"},
      {"[:int]?", "expected the end of the signature at column 7, got \"?\"",
       "only the primitive types can be optional"},
      {"{a [:int]?}", "expected ',' or '}' at column 10, got \"?\"",
       "only the primitive types can be optional"},
      {"{a {b :int}?}", "expected ',' or '}' at column 12, got \"?\"",
       "only the primitive types can be optional"},
      {":int ?", "expected the end of the signature at column 6, got \"?\"",
       "right after the type"},
      {"(a :int)", "expected \"->\" after the parameter list at column 9, got end of input",
       "(name :type, ...) -> output"},
      {"(a :int) :int", "expected \"->\" after the parameter list at column 10, got \":int\"",
       "-> output"},
      {"-> {count :int}", "expected a type at column 1, got \"->\"", "() -> {count :int}"},
      {":int -> :string", "expected the end of the signature at column 6, got \"->\"",
       "inputs go in parentheses"},
      {"(a :int) ->", "expected a type at column 12, got end of input", "valid types"},
      {"{prix€ :int}", "expected a type at column 6, got \"€\"", "valid types"},
      {"{\"id\" :int}", "expected a field name or '}' at column 2, got '\"'", ""},
      {":", "expected a type name after ':' at column 2, got end of input", "valid types"},
      {"{a :int}}", "expected the end of the signature at column 9, got \"}\"", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ParseFailure f = parse_failure(c.text);
    EXPECT_EQ(f.message, c.message);
    EXPECT_NE(f.hint.find(c.hint_part), std::string::npos) << f.hint;
    EXPECT_EQ(f.loc.line, 1u);
  }
}

TEST(SignatureParse, ErrorLocationOnLaterLine) {
  ParseFailure f = parse_failure("{a :int,\n b int}");
  EXPECT_EQ(f.message, "expected a type at line 2, column 4, got \"int\"");
  EXPECT_EQ(f.loc.line, 2u);
  EXPECT_EQ(f.loc.col, 4u);
}

TEST(SignatureParse, ErrorColumnsCountCodePoints) {
  // "é" is two bytes but one column.
  ParseFailure f = parse_failure(" \t{a :int, é :int}");
  EXPECT_EQ(f.message, "expected a field name at column 12, got \"é\"");
  ParseFailure g = parse_failure("{a :é}");
  EXPECT_EQ(g.message, "expected a type name after ':' at column 5, got \"é\"");
}

TEST(SignatureRender, Types) {
  EXPECT_EQ(to_string(*SigType::primitive(K::Int)), ":int");
  EXPECT_EQ(to_string(*SigType::primitive(K::DateTime, true)), ":datetime?");
  EXPECT_EQ(to_string(*SigType::list_of(SigType::primitive(K::Keyword))), "[:keyword]");
  EXPECT_EQ(to_string(*SigType::structure(
                {{"id", SigType::primitive(K::Int)}, {"tags", SigType::list_of(nullptr)}})),
            "{id :int, tags [:any]}");
  EXPECT_EQ(to_string(*SigType::structure({})), "{}");
  Signature sig;
  EXPECT_EQ(to_string(sig), ":any");
}

// ---------------------------------------------------------------------------
// Output checking (strict)
// ---------------------------------------------------------------------------

TEST(SignatureCheckOutput, Success) {
  H value = map({{kw("count"), num(5)}, {kw("items"), vec({str("a"), str("b")})}});
  SignatureCheck c = out("() -> {count :int, items [:string]}", value);
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.value, value);
  EXPECT_TRUE(c.path.empty());
  EXPECT_TRUE(c.message.empty());
  EXPECT_TRUE(c.warnings.empty());

  EXPECT_TRUE(out("{answer :int}", map({{kw("answer"), num(42)}})).ok);
  EXPECT_TRUE(
      out("{name :string, price :float, in_stock :bool}", map({{kw("name"), str("Widget")},
                                                               {kw("price"), H::floating(99.99)},
                                                               {kw("in_stock"), H::boolean(true)}}))
          .ok);
  EXPECT_TRUE(out("[{id :int, title :string}]",
                  vec({map({{kw("id"), num(1)}, {kw("title"), str("First")}}),
                       map({{kw("id"), num(2)}, {kw("title"), str("Second")}})}))
                  .ok);
  EXPECT_TRUE(out("[:int]", vec({})).ok);
  EXPECT_TRUE(out("{}", map({{kw("anything"), num(1)}})).ok);
  EXPECT_TRUE(out("[{}]", vec({map({})})).ok);
  EXPECT_TRUE(out(":keyword", kw("pending")).ok);
  EXPECT_TRUE(out(":map", map({{num(1), num(2)}})).ok);
}

TEST(SignatureCheckOutput, FieldKeysMatchFlexibly) {
  // String or keyword keys; '-' and '_' are interchangeable.
  EXPECT_TRUE(out("{total :float}", map({{str("total"), H::floating(1.5)}})).ok);
  EXPECT_TRUE(out("{total :float}", map({{kw("total"), H::floating(1.5)}})).ok);
  EXPECT_TRUE(out("{order_count :int}", map({{kw("order-count"), num(5)}})).ok);
  EXPECT_TRUE(out("{order_count :int}", map({{str("order-count"), num(5)}})).ok);
  EXPECT_TRUE(out("{user-id :int}", map({{str("user_id"), num(5)}})).ok);
  EXPECT_TRUE(out("{user-id :int}", map({{kw("user-id"), num(5)}})).ok);
  // The keyword form of the exact (underscored) name is found first.
  SignatureCheck c =
      out("{a_b :int}", map({{str("a-b"), str("no")}, {kw("a_b"), num(1)}, {str("a_b"), num(2)}}));
  EXPECT_TRUE(c.ok) << c.message;
  // A key of another type does not count.
  SignatureCheck d = out("{total :int}", map({{num(1), num(2)}}));
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.path, "total");
}

TEST(SignatureCheckOutput, ExtraKeysAreAllowed) {
  SignatureCheck c =
      out("{id :int}", map({{kw("id"), num(1)}, {kw("extra"), str("x")}, {str("more"), num(2)}}));
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.value.size(), 3u);
}

TEST(SignatureCheckOutput, OptionalFields) {
  const char* sig = "{id :int, email :string?}";
  EXPECT_TRUE(out(sig, map({{kw("id"), num(1)}})).ok);
  EXPECT_TRUE(out(sig, map({{kw("id"), num(1)}, {kw("email"), H::nil()}})).ok);
  EXPECT_TRUE(out(sig, map({{kw("id"), num(1)}, {kw("email"), str("a@b.c")}})).ok);
  SignatureCheck c = out(sig, map({{kw("id"), num(1)}, {kw("email"), num(7)}}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.path, "email");
  EXPECT_EQ(c.message, "expected :string? at email, got int 7");
  EXPECT_TRUE(out(":int?", H::nil()).ok);
  EXPECT_TRUE(out("[:int?]", vec({num(1), H::nil()})).ok);
}

TEST(SignatureCheckOutput, AnyMatchesEverything) {
  for (const H& v : {H::nil(), num(1), str("s"), vec({H::nil()}), H::set({num(1)}),
                     H::opaque("#<fn f>"), map({})})
    EXPECT_TRUE(out(":any", v).ok);
  EXPECT_TRUE(out("{x :any}", map({{kw("x"), H::nil()}})).ok);
  SignatureCheck missing = out("{x :any}", map({}));
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.message, "missing required field x (:any)");
}

TEST(SignatureCheckOutput, NumbersAreStrict) {
  // Integers (of any size) match :float and stay integers: no coercion.
  SignatureCheck i = out("{price :float}", map({{kw("price"), num(42)}}));
  EXPECT_TRUE(i.ok);
  EXPECT_EQ(i.value.get("price")->kind(), H::Kind::Int);
  EXPECT_TRUE(out(":float", H::bigint("123456789012345678901234567890")).ok);
  EXPECT_TRUE(out(":int", H::bigint("-123456789012345678901234567890")).ok);

  SignatureCheck f = out(":int", H::floating(42.0));
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.message, "expected :int, got float 42.0");
  SignatureCheck s = out("{count :int}", map({{kw("count"), str("42")}}));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message, "expected :int at count, got string \"42\"");
  EXPECT_FALSE(out(":float", str("3.14")).ok);
  EXPECT_FALSE(out(":bool", str("true")).ok);
  EXPECT_FALSE(out(":int", H::boolean(true)).ok);
  EXPECT_FALSE(out(":string", kw("a")).ok);
}

TEST(SignatureCheckOutput, Keywords) {
  EXPECT_TRUE(out(":keyword", kw("active")).ok);
  // Strings that are valid keyword names pass (unchanged).
  SignatureCheck s = out(":keyword", str("active"));
  EXPECT_TRUE(s.ok);
  EXPECT_EQ(s.value, str("active"));
  EXPECT_TRUE(out(":keyword", str("valid?")).ok);
  SignatureCheck bad = out(":keyword", str("has space"));
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.message, "expected :keyword, got string \"has space\"");
  EXPECT_FALSE(out(":keyword", str("")).ok);
  EXPECT_FALSE(out(":keyword", str("a/b")).ok);
  EXPECT_FALSE(out(":keyword", H::nil()).ok);
}

TEST(SignatureCheckOutput, MismatchKindsWithPaths) {
  struct Case {
    const char* sig;
    H value;
    const char* path;
    const char* message;
  };
  H customer_bad = map({{kw("customer"), map({{kw("id"), str("abc")}})}});
  const Case cases[] = {
      {":int", str("abc"), "", "expected :int, got string \"abc\""},
      {":string", num(5), "", "expected :string, got int 5"},
      {":bool", H::nil(), "", "expected :bool, got nil"},
      {":map", vec({num(1)}), "", "expected :map, got vector [1]"},
      {"{a :int}", vec({}), "", "expected {a :int}, got vector []"},
      {"[:int]", map({{kw("a"), num(1)}}), "", "expected [:int], got map {:a 1}"},
      {"[:int]", H::set({num(1)}), "", "expected [:int], got set #{1}"},
      {"[:int]", str("1 2"), "", "expected [:int], got string \"1 2\""},
      {"{n :int}", map({{kw("n"), H::nil()}}), "n", "expected :int at n, got nil"},
      {"{f :float}", map({{kw("f"), kw("x")}}), "f", "expected :float at f, got keyword :x"},
      {"{f :float}", map({{kw("f"), H::opaque("#<fn f>")}}), "f",
       "expected :float at f, got #<fn f>"},
      {"{items [{price :float}]}",
       map({{kw("items"), vec({map({{kw("price"), num(1)}}), map({{kw("price"), H::floating(2.5)}}),
                               map({{kw("price"), str("abc")}})})}}),
       "items[2].price", "expected :float at items[2].price, got string \"abc\""},
      {"{results [{customer {id :int}}]}", map({{kw("results"), vec({customer_bad})}}),
       "results[0].customer.id", "expected :int at results[0].customer.id, got string \"abc\""},
      {"[[:int]]", vec({vec({num(1)}), vec({num(2), str("x")})}), "[1][1]",
       "expected :int at [1][1], got string \"x\""},
      {"{items [{price :float}]}",
       map({{kw("items"), vec({map({{kw("price"), num(1)}}), map({})})}}), "items[1].price",
       "missing required field price (:float) in items[1]"},
      {"{count :int, items [:string]}", map({{kw("items"), vec({})}}), "count",
       "missing required field count (:int)"},
      {"{user {profile {name :string}}}", map({{kw("user"), map({{kw("profile"), map({})}})}}),
       "user.profile.name", "missing required field name (:string) in user.profile"},
      {"{user {id :int}}", map({{kw("user"), num(3)}}), "user",
       "expected {id :int} at user, got int 3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sig);
    SignatureCheck r = out(c.sig, c.value);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.path, c.path);
    EXPECT_EQ(r.message, c.message);
    EXPECT_TRUE(r.value.is_nil());
  }
}

TEST(SignatureCheckOutput, FirstMismatchWins) {
  // Fields in signature order, depth first.
  SignatureCheck c = out("{a {x :int}, b :int, c :int}",
                         map({{kw("c"), str("c")}, {kw("b"), str("b")}, {kw("a"), map({})}}));
  EXPECT_EQ(c.path, "a.x");
  SignatureCheck d = out("{a :int, b :int}", map({{kw("b"), str("b")}, {kw("a"), str("a")}}));
  EXPECT_EQ(d.path, "a");
  SignatureCheck e = out("[:int]", vec({num(1), str("x"), str("y")}));
  EXPECT_EQ(e.path, "[1]");
}

TEST(SignatureCheckOutput, LongValuesAreCutInMessages) {
  std::string long_text(500, 'x');
  SignatureCheck c = out(":int", H::string(long_text));
  EXPECT_FALSE(c.ok);
  EXPECT_LT(c.message.size(), 120u);
  EXPECT_NE(c.message.find("..."), std::string::npos);
  std::vector<H> many(1000, num(123456));
  SignatureCheck d = out(":map", H::vector(many));
  EXPECT_LT(d.message.size(), 120u);
  // Deeply nested values print in bounded space (and stack).
  H deep = num(1);
  for (int i = 0; i < 10000; ++i)
    deep = vec({deep});
  SignatureCheck e = out(":int", deep);
  EXPECT_FALSE(e.ok);
  EXPECT_LT(e.message.size(), 120u);
  // :any does not descend into the value at all.
  EXPECT_TRUE(out("[:any]", deep).ok);
}

TEST(SignatureCheckOutput, DeepTypes) {
  std::string sig(kMaxSignatureDepth, '[');
  sig += ":int";
  sig += std::string(kMaxSignatureDepth, ']');
  H value = num(7);
  for (size_t i = 0; i < kMaxSignatureDepth; ++i)
    value = vec({value});
  EXPECT_TRUE(out(sig, value).ok);
  H bad = str("x");
  for (size_t i = 0; i < kMaxSignatureDepth; ++i)
    bad = vec({bad});
  SignatureCheck c = out(sig, bad);
  EXPECT_FALSE(c.ok);
  std::string path;
  for (size_t i = 0; i < kMaxSignatureDepth; ++i)
    path += "[0]";
  EXPECT_EQ(c.path, path);
}

TEST(SignatureCheckOutput, LargeMapsUseTheIndex) {
  std::vector<std::pair<H, H>> entries;
  for (int i = 0; i < 100; ++i)
    entries.emplace_back(H::string("k" + std::to_string(i)), num(i));
  entries.emplace_back(kw("wanted-key"), str("yes"));
  H value = H::map(entries);
  EXPECT_TRUE(out("{k0 :int, k99 :int, wanted_key :string}", value).ok);
  SignatureCheck c = out("{k5 :int, k100 :int}", value);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.path, "k100");
}

TEST(SignatureCheckOutput, DateTimes) {
  SignatureCheck z = out(":datetime", str("2026-05-03T09:14:00Z"));
  EXPECT_TRUE(z.ok);
  EXPECT_EQ(z.value, str("2026-05-03T09:14:00Z"));
  // Offsets are normalized to UTC (PtcRunner hands back a UTC DateTime).
  EXPECT_EQ(out(":datetime", str("2026-05-03T11:14:00+02:00")).value, str("2026-05-03T09:14:00Z"));
  EXPECT_EQ(out(":datetime", str("2026-01-01T01:30:00+0200")).value, str("2025-12-31T23:30:00Z"));
  EXPECT_EQ(out(":datetime", str("2024-02-28T23:00:00-05")).value, str("2024-02-29T04:00:00Z"));
  EXPECT_EQ(out(":datetime", str("2026-05-03 09:14:00.123z")).value,
            str("2026-05-03T09:14:00.123Z"));
  EXPECT_EQ(out(":datetime", str("2026-05-03T09:14:00.1234567Z")).value,
            str("2026-05-03T09:14:00.123456Z"));
  EXPECT_TRUE(out("{at :datetime?}", map({})).ok);

  SignatureCheck naive = out("{at :datetime}", map({{kw("at"), str("2026-05-03T09:14:00")}}));
  EXPECT_FALSE(naive.ok);
  EXPECT_EQ(naive.path, "at");
  EXPECT_EQ(naive.message,
            "expected :datetime at at, got string \"2026-05-03T09:14:00\"; a timezone offset is "
            "required: end it with Z or +HH:MM");
  for (const char* bad :
       {"2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-05-03T24:00:00Z", "2026-05-03",
        "2026-05-03T09:14Z", "2026-05-03T09:14:00+2:00", "2026-05-03T09:14:00Zjunk", "yesterday"}) {
    SignatureCheck c = out(":datetime", str(bad));
    EXPECT_FALSE(c.ok) << bad;
    EXPECT_NE(c.message.find("not an ISO 8601 date-time"), std::string::npos) << c.message;
  }
  EXPECT_TRUE(out(":datetime", str("2024-02-29T00:00:00Z")).ok);
  EXPECT_FALSE(out(":datetime", str("2023-02-29T00:00:00Z")).ok);
  EXPECT_FALSE(out(":datetime", num(1714727640)).ok);
}

TEST(SignatureCheckOutput, NullOutputMeansAny) {
  Signature sig;
  SignatureCheck c = check_output(sig, str("x"));
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.value, str("x"));
}

// ---------------------------------------------------------------------------
// Input checking (lenient coercion)
// ---------------------------------------------------------------------------

TEST(SignatureCheckInputs, DocumentedCoercions) {
  // Signature: (id :int, name :string) -> :bool; call {:id "42" :name "Alice"}.
  SignatureCheck c = in("(id :int, name :string) -> :bool",
                        map({{kw("id"), str("42")}, {kw("name"), str("Alice")}}));
  ASSERT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.value, map({{kw("id"), num(42)}, {kw("name"), str("Alice")}}));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "id: coerced string \"42\" to int");

  SignatureCheck f = in("(x :float) -> :any", map({{kw("x"), str("3.14")}}));
  EXPECT_EQ(f.value.get("x")->as_float(), 3.14);
  EXPECT_EQ(f.warnings, std::vector<std::string>{"x: coerced string \"3.14\" to float"});

  SignatureCheck b = in("(flag :bool) -> :any", map({{kw("flag"), str("true")}}));
  EXPECT_EQ(*b.value.get("flag"), H::boolean(true));
  EXPECT_EQ(b.warnings, std::vector<std::string>{"flag: coerced string \"true\" to bool"});
  EXPECT_EQ(*in("(flag :bool) -> :any", map({{kw("flag"), str("false")}})).value.get("flag"),
            H::boolean(false));

  // int -> float is silent.
  SignatureCheck w = in("(x :float) -> :any", map({{kw("x"), num(42)}}));
  ASSERT_TRUE(w.ok);
  EXPECT_EQ(w.value.get("x")->kind(), H::Kind::Float);
  EXPECT_EQ(w.value.get("x")->as_float(), 42.0);
  EXPECT_TRUE(w.warnings.empty());

  EXPECT_EQ(*in("(n :int) -> :any", map({{kw("n"), str("-5")}})).value.get("n"), num(-5));
  EXPECT_EQ(*in("(n :int) -> :any", map({{kw("n"), str("+007")}})).value.get("n"), num(7));
  SignatureCheck big = in("(n :int) -> :any", map({{kw("n"), str("-000123456789012345678901")}}));
  EXPECT_EQ(*big.value.get("n"), H::bigint("-123456789012345678901"));
  EXPECT_EQ(in("(n :float) -> :any", map({{kw("n"), str(" 42 ")}})).value.get("n")->as_float(),
            42.0);
  EXPECT_EQ(in("(n :float) -> :any", map({{kw("n"), str("-1.5e3")}})).value.get("n")->as_float(),
            -1500.0);

  SignatureCheck s = in("(s :string) -> :any", map({{kw("s"), kw("atom")}}));
  EXPECT_EQ(*s.value.get("s"), str("atom"));
  EXPECT_EQ(s.warnings, std::vector<std::string>{"s: coerced keyword :atom to string"});
  SignatureCheck k = in("(k :keyword) -> :any", map({{kw("k"), str("pending")}}));
  EXPECT_EQ(*k.value.get("k"), kw("pending"));
  EXPECT_EQ(k.warnings, std::vector<std::string>{"k: coerced string \"pending\" to keyword"});
}

TEST(SignatureCheckInputs, UncoercibleValues) {
  struct Case {
    const char* sig;
    H value;
    const char* message;
  };
  const Case cases[] = {
      {"(n :int) -> :any", str("hello"), "expected :int at n, got string \"hello\""},
      {"(n :int) -> :any", H::floating(42.0), "expected :int at n, got float 42.0"},
      {"(n :int) -> :any", str(" 42"), "expected :int at n, got string \" 42\""},
      {"(n :int) -> :any", str("4.2"), "expected :int at n, got string \"4.2\""},
      {"(n :float) -> :any", str("12abc"), "expected :float at n, got string \"12abc\""},
      {"(n :float) -> :any", str("1e999"), "expected :float at n, got string \"1e999\""},
      {"(n :float) -> :any", str("nan"), "expected :float at n, got string \"nan\""},
      {"(n :bool) -> :any", str("TRUE"), "expected :bool at n, got string \"TRUE\""},
      {"(n :bool) -> :any", num(1), "expected :bool at n, got int 1"},
      {"(n :keyword) -> :any", str("two words"),
       "expected :keyword at n, got string \"two words\""},
      {"(n :string) -> :any", num(1), "expected :string at n, got int 1"},
      {"(n [:int]) -> :any", vec({num(1), str("x")}), "expected :int at n[1], got string \"x\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    SignatureCheck r = in(c.sig, map({{kw("n"), c.value}}));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.message, c.message);
  }
}

TEST(SignatureCheckInputs, NestedCoercionKeepsKeysAndExtras) {
  // Signature [{id :int, name :string}], input [{"id" "42", "name" "Alice"}].
  H input = vec({map({{str("id"), str("42")}, {str("name"), str("Alice")}, {str("x"), str("7")}})});
  SignatureCheck c =
      check_value(*parse_signature("[{id :int, name :string}]").output, input, CheckMode::Lenient);
  ASSERT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.value,
            vec({map({{str("id"), num(42)}, {str("name"), str("Alice")}, {str("x"), str("7")}})}));
  EXPECT_EQ(c.warnings, std::vector<std::string>{"[0].id: coerced string \"42\" to int"});
  // The input is not modified in place.
  EXPECT_EQ(*input.items()[0].get("id"), str("42"));
}

TEST(SignatureCheckInputs, ArgumentMaps) {
  EXPECT_TRUE(in("() -> {count :int}", H::nil()).ok);
  EXPECT_TRUE(in("{count :int}", map({})).ok);
  EXPECT_TRUE(in("(limit :int?) -> :any", H::nil()).ok);
  SignatureCheck missing =
      in("(query :string, limit :int) -> :any", map({{kw("query"), str("q")}}));
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.path, "limit");
  EXPECT_EQ(missing.message, "missing required field limit (:int)");
  SignatureCheck positional = in("(url :string) -> :any", str("https://example.com"));
  EXPECT_FALSE(positional.ok);
  EXPECT_EQ(positional.message, "expected {url :string}, got string \"https://example.com\"");
  // Hyphenated keys written in PTC-Lisp match underscored parameters.
  SignatureCheck hy = in("(user_id :int) -> :any", map({{kw("user-id"), str("9")}}));
  ASSERT_TRUE(hy.ok);
  EXPECT_EQ(hy.value, map({{kw("user-id"), num(9)}}));
  EXPECT_EQ(hy.warnings, std::vector<std::string>{"user_id: coerced string \"9\" to int"});
}

TEST(SignatureCheckInputs, DateTimeNormalizationWarns) {
  SignatureCheck c =
      in("(at :datetime) -> :any", map({{kw("at"), str("2026-05-03T11:14:00+02:00")}}));
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(*c.value.get("at"), str("2026-05-03T09:14:00Z"));
  EXPECT_EQ(c.warnings, std::vector<std::string>{
                            "at: normalized datetime \"2026-05-03T11:14:00+02:00\" to UTC"});
  SignatureCheck utc =
      in("(at :datetime) -> :any", map({{kw("at"), str("2026-05-03T09:14:00+00:00")}}));
  EXPECT_EQ(*utc.value.get("at"), str("2026-05-03T09:14:00Z"));
  EXPECT_TRUE(utc.warnings.empty());
}

}  // namespace
}  // namespace ptc
