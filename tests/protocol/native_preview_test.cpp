// Previews of cached native tool results (our versions of the reference's
// facts 83-91): metadata inferred from the first rows, verbatim rows, a
// host's own preview with its fallbacks, and the cache hint.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "protocol/lisp_eval/native_preview.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::to_json;
using ptc::protocol::cache_hint;
using ptc::protocol::native_preview;
using ptc::protocol::NativePreview;
using ptc::protocol::NativeResultOptions;

NativeResultOptions rows(size_t limit = 20) {
  return {NativeResultOptions::Kind::Rows, limit, {}};
}

NativeResultOptions custom(std::function<HostValue(const HostValue&)> fn) {
  return {NativeResultOptions::Kind::Custom, 20, std::move(fn)};
}

NativePreview preview(const std::string& result_json, const NativeResultOptions& options = {},
                      const std::string& tool = "t") {
  return native_preview(tool, parse_json(result_json), parse_json(R"({"q":"x"})"), options);
}

// The payload as sorted JSON, without the cache fields every preview has
// (checked once, below).
std::string shape(const NativePreview& p) {
  EXPECT_EQ(p.payload.kind(), HostValue::Kind::Map);
  std::vector<std::pair<HostValue, HostValue>> kept;
  const auto& items = p.payload.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& k = items[i].text();
    if (k == "status" || k == "full_result_cached" || k == "cache_hint") continue;
    kept.emplace_back(items[i], items[i + 1]);
  }
  return to_json(HostValue::map(std::move(kept)), true);
}

std::string rows_of(int n) {
  std::string out = "[";
  for (int i = 1; i <= n; ++i)
    out += (i > 1 ? "," : "") + std::string(R"({"id":)") + std::to_string(i) + R"(,"msg":"m"})";
  return out + "]";
}

std::string keys_30(const std::string& prefix = "") {
  std::string out = "{";
  for (int i = 1; i <= 30; ++i)
    out += (i > 1 ? "," : "") + std::string("\"k") + std::to_string(i) + "\":" + std::to_string(i);
  return prefix + out + "}";
}

TEST(NativePreview, EveryPreviewCarriesTheCacheFields) {
  for (const NativeResultOptions& o :
       {NativeResultOptions{}, rows(5), custom([](const HostValue&) { return HostValue::map({}); }),
        custom([](const HostValue&) -> HostValue { throw std::runtime_error("x"); })}) {
    NativePreview p = preview("[1]", o, "search_logs");
    EXPECT_EQ(*p.payload.get("status"), HostValue::string("ok"));
    EXPECT_EQ(*p.payload.get("full_result_cached"), HostValue::boolean(true));
    EXPECT_EQ(p.payload.get("cache_hint")->text(),
              "Call lisp_eval and then call (tool/search_logs {:q \"x\"}) to process the full "
              "cached result.");
  }
}

// Fact 83.
TEST(NativePreview, ListOfMapsHasCountSchemaAndSampleKeys) {
  NativePreview p = preview(R"([{"id":1,"msg":"a"},{"id":2,"msg":"b"},{"id":3,"msg":"c"}])");
  EXPECT_EQ(shape(p),
            R"({"result_count":3,"sample_keys":["id","msg"],"schema":{"items":{"properties":)"
            R"({"id":"integer","msg":"string"},"type":"object"},"type":"array"}})");
  EXPECT_FALSE(p.fell_back);
  EXPECT_FALSE(p.truncated);
}

// Fact 84.
TEST(NativePreview, RowsWithDifferentKeysGetAnUntypedObject) {
  EXPECT_EQ(shape(preview(R"([{"a":1},{"b":2},{"c":3}])")),
            R"({"result_count":3,"schema":{"items":{"type":"object"},"type":"array"}})");
}

// Fact 85.
TEST(NativePreview, ListsOfScalars) {
  EXPECT_EQ(shape(preview("[1,2,3]")),
            R"({"result_count":3,"schema":{"items":{"type":"integer"},"type":"array"}})");
  EXPECT_EQ(shape(preview(R"([1,"two",true])")),
            R"({"result_count":3,"schema":{"items":{"type":"any"},"type":"array"}})");
  EXPECT_EQ(shape(preview("[]")), R"({"result_count":0,"schema":{"items":{},"type":"array"}})");
  EXPECT_EQ(shape(preview("[[1],[2]]")),
            R"({"result_count":2,"schema":{"items":{"type":"array"},"type":"array"}})");
}

// Fact 86.
TEST(NativePreview, MapsAndScalars) {
  EXPECT_EQ(shape(preview(R"({"name":"Alice","age":30})")),
            R"({"sample_keys":["age","name"],"schema":{"properties":{"age":"integer",)"
            R"("name":"string"},"type":"object"}})");
  EXPECT_EQ(shape(preview("{}")), R"({"sample_keys":[],"schema":{"type":"object"}})");
  EXPECT_EQ(shape(preview("42")), R"({"schema":{"type":"integer"}})");
  EXPECT_EQ(shape(preview("1.5")), R"({"schema":{"type":"number"}})");
  EXPECT_EQ(shape(preview(R"("text")")), R"({"schema":{"type":"string"}})");
  EXPECT_EQ(shape(preview("null")), R"({"schema":{"type":"null"}})");
}

// Every JSON type a property can have; `false` is typed boolean (PtcRunner's
// preview says null there: the one deliberate difference).
TEST(NativePreview, PropertyTypes) {
  EXPECT_EQ(
      shape(preview(R"([{"i":1,"f":2.5,"s":"x","t":true,"no":false,"n":null,"l":[],"m":{}}])")),
      R"({"result_count":1,"sample_keys":["f","i","l","m","n","no","s","t"],"schema":{"items":)"
      R"({"properties":{"f":"number","i":"integer","l":"array","m":"object","n":"null",)"
      R"("no":"boolean","s":"string","t":"boolean"},"type":"object"},"type":"array"}})");
  // Keyword keys and values, as a host may build them.
  HostValue row = HostValue::map({{HostValue::keyword("kind"), HostValue::keyword("error")}});
  NativePreview p = native_preview("t", HostValue::vector({row}), HostValue::map({}), {});
  EXPECT_EQ(shape(p), R"({"result_count":1,"sample_keys":["kind"],"schema":{"items":)"
                      R"({"properties":{"kind":"string"},"type":"object"},"type":"array"}})");
}

// Fact 87: at most 20 properties, "truncated" inside the schema.
TEST(NativePreview, WideRowsAreCutAtTwentyKeys) {
  NativePreview list = preview("[" + keys_30() + "]");
  std::string expected_keys =
      R"(["k1","k10","k11","k12","k13","k14","k15","k16","k17","k18","k19","k2","k20","k21",)"
      R"("k22","k23","k24","k25","k26","k27"])";
  EXPECT_EQ(to_json(*list.payload.get("sample_keys")), expected_keys);
  const HostValue& items = *list.payload.get("schema")->get("items");
  EXPECT_EQ(*items.get("truncated"), HostValue::boolean(true));
  EXPECT_EQ(items.get("properties")->size(), 20u);
  EXPECT_EQ(list.payload.get("truncated"), nullptr) << "never at the top level";
  EXPECT_TRUE(list.truncated);

  NativePreview map = preview(keys_30());
  EXPECT_EQ(*map.payload.get("schema")->get("truncated"), HostValue::boolean(true));
  EXPECT_EQ(map.payload.get("schema")->get("properties")->size(), 20u);
  EXPECT_EQ(to_json(*map.payload.get("sample_keys")), expected_keys);
  EXPECT_TRUE(map.truncated);

  EXPECT_FALSE(preview(rows_of(3)).truncated);
}

// Fact 88.
TEST(NativePreview, RowsPreviewShowsTheFirstRows) {
  NativePreview five = preview(rows_of(50), rows(5));
  EXPECT_EQ(*five.payload.get("result_count"), HostValue::integer(50));
  EXPECT_EQ(*five.payload.get("rows"), parse_json(rows_of(5)));
  EXPECT_EQ(to_json(*five.payload.get("schema"), true),
            R"({"items":{"properties":{"id":"integer","msg":"string"},"type":"object"},)"
            R"("type":"array"})");
  EXPECT_EQ(to_json(*five.payload.get("sample_keys")), R"(["id","msg"])");

  NativePreview twenty = preview(rows_of(50), rows());
  EXPECT_EQ(*twenty.payload.get("rows"), parse_json(rows_of(20)));
  NativePreview all = preview(rows_of(3), rows(10));
  EXPECT_EQ(*all.payload.get("rows"), parse_json(rows_of(3)));
  EXPECT_EQ(shape(preview("[]", rows(5))),
            R"({"result_count":0,"rows":[],"schema":{"items":{},"type":"array"}})");
  // Not a list: the metadata preview.
  EXPECT_EQ(shape(preview(R"({"a":1})", rows(5))),
            R"({"sample_keys":["a"],"schema":{"properties":{"a":"integer"},"type":"object"}})");
}

// Where PtcRunner turns dates into ISO text, our host values have no dates;
// what JSON cannot carry becomes text (opaque values) or null (NaN, Inf).
TEST(NativePreview, RowsAreAlwaysJson) {
  HostValue r = HostValue::vector({HostValue::map(
      {{HostValue::string("f"), HostValue::opaque("#'user/f")},
       {HostValue::string("x"), HostValue::floating(std::numeric_limits<double>::quiet_NaN())},
       {HostValue::keyword("k"), HostValue::keyword("v")}})});
  NativePreview p = native_preview("t", r, HostValue::map({}), rows());
  EXPECT_EQ(to_json(*p.payload.get("rows"), true), R"([{"f":"#'user/f","k":"v","x":null}])");
}

// Fact 89.
TEST(NativePreview, CustomPreviewIsMergedUnderTheCacheFields) {
  NativePreview p =
      preview("[1,2,3]", custom([](const HostValue& full) {
                return HostValue::map({{HostValue::string("summary"),
                                        HostValue::string("got " + std::to_string(full.size()))},
                                       {HostValue::keyword("extra"), HostValue::integer(1)},
                                       {HostValue::string("status"), HostValue::string("mine")},
                                       {HostValue::string("cache_hint"), HostValue::nil()}});
              }));
  EXPECT_FALSE(p.fell_back);
  EXPECT_EQ(shape(p), R"({"extra":1,"summary":"got 3"})");
  EXPECT_EQ(*p.payload.get("status"), HostValue::string("ok")) << "the cache fields win";
  EXPECT_EQ(p.payload.get("cache_hint")->kind(), HostValue::Kind::String);
}

TEST(NativePreview, CustomPreviewFallsBackToMetadata) {
  struct Case {
    std::function<HostValue(const HostValue&)> fn;
    const char* category;
  };
  Case cases[] = {
      {[](const HostValue&) -> HostValue { throw std::runtime_error("preview exploded"); },
       "raised"},
      {[](const HostValue&) -> HostValue { throw 42; }, "raised"},
      {[](const HostValue&) { return HostValue::string("not a map"); }, "non_map"},
      {[](const HostValue&) { return HostValue::vector({}); }, "non_map"},
      {[](const HostValue&) {
         return HostValue::map({{HostValue::string("pid"), HostValue::opaque("#<fn>")}});
       },
       "non_encodable"},
      {[](const HostValue&) {
         return HostValue::map({{HostValue::string("x"), HostValue::floating(INFINITY)}});
       },
       "non_encodable"},
      {[](const HostValue&) {
         return HostValue::map({{HostValue::vector({}), HostValue::integer(1)}});
       },
       "non_encodable"},
  };
  for (const Case& c : cases) {
    NativePreview p = preview("[1,2,3]", custom(c.fn), "t");
    EXPECT_TRUE(p.fell_back) << c.category;
    EXPECT_EQ(p.fallback_category, c.category);
    EXPECT_EQ(*p.payload.get("result_count"), HostValue::integer(3));
    EXPECT_EQ(*p.payload.get("status"), HostValue::string("ok"));
    EXPECT_NE(p.fallback_message.find("tool \"t\""), std::string::npos) << p.fallback_message;
    EXPECT_NE(p.fallback_message.find(std::string("category=") + c.category), std::string::npos)
        << p.fallback_message;
  }
  NativePreview raised = preview("[1]", custom(cases[0].fn));
  EXPECT_NE(raised.fallback_message.find("preview exploded"), std::string::npos);
}

// Fact 90: canonical arguments in PTC-Lisp syntax.
TEST(CacheHint, RendersCanonicalArgumentsAsPtcLisp) {
  auto hint = [](const std::string& args_json) {
    std::string h = cache_hint("q", parse_json(args_json));
    std::string head = "Call lisp_eval and then call (tool/q ";
    std::string tail = ") to process the full cached result.";
    EXPECT_TRUE(h.starts_with(head) && h.ends_with(tail)) << h;
    return h.substr(head.size(), h.size() - head.size() - tail.size());
  };
  EXPECT_EQ(cache_hint("search_logs", parse_json(R"({"query":"error code 42"})")),
            "Call lisp_eval and then call (tool/search_logs {:query \"error code 42\"}) to process "
            "the full cached result.");
  EXPECT_EQ(hint(R"({"filter":{"name":"alice"}})"), R"({:filter {:name "alice"}})");
  EXPECT_EQ(hint(R"({"text":"she said \"hi\"\n\ttab\\"})"),
            R"({:text "she said \"hi\"\n\ttab\\"})");
  EXPECT_EQ(hint(R"({"ids":[1,2,3]})"), "{:ids [1 2 3]}");
  EXPECT_EQ(hint(R"({"n":1.0})"), "{:n 1}");
  EXPECT_EQ(hint(R"({"n":1.5,"m":-3.0,"z":0.0})"), "{:m -3 :n 1.5 :z 0}");
  EXPECT_EQ(hint(R"({"b":2,"a":1})"), "{:a 1 :b 2}");
  EXPECT_EQ(hint(R"({"x":null,"y":true,"z":false})"), "{:x nil :y true :z false}");
  EXPECT_EQ(hint(R"({"was-improved":true,"outer-key":{"inner-key":1}})"),
            "{:outer_key {:inner_key 1} :was_improved true}");
  EXPECT_EQ(hint(R"({"error code":1,"":2})"), R"({"" 2 "error code" 1})")
      << "no keyword can carry these names";
  EXPECT_EQ(hint("{}"), "{}");
  // Keyword and string keys render alike.
  EXPECT_EQ(cache_hint("q", HostValue::map({{HostValue::keyword("a"), HostValue::integer(1)}})),
            cache_hint("q", parse_json(R"({"a":1})")));
  // No arguments: what a program's (tool/q) passes.
  EXPECT_EQ(cache_hint("q", HostValue::nil()), cache_hint("q", parse_json("{}")));
}

// The hint is a program that works: run it against a tool that records its
// arguments, whose canonical key is the native call's.
TEST(CacheHint, IsAProgramWithTheSameCacheKey) {
  HostValue native_args =
      parse_json(R"({"query":"error \"42\"","since":1.0,"opts":{"max-rows":10,"tags":["a"]}})");
  std::string hint = cache_hint("search_logs", native_args);
  size_t from = hint.find("(tool/");
  std::string program = hint.substr(from, hint.find(") to process") + 1 - from);
  HostValue seen;
  ptc::RunOptions opts;
  opts.tools["search_logs"] = {[&](const HostValue& args) {
    seen = args;
    return ptc::ToolResult::success(HostValue::integer(1));
  }};
  ptc::Step step = ptc::run(program, opts);
  ASSERT_TRUE(step.ok) << ptc::format_error(step.error) << "\n" << program;
  EXPECT_EQ(ptc::canonical_args_key(seen), ptc::canonical_args_key(native_args)) << program;
}

// Fact 91: keys must agree over the first five rows only.
TEST(NativePreview, KeyConsistencyLooksAtTheFirstFiveRows) {
  EXPECT_EQ(shape(preview(R"([{"a":1}])")),
            R"({"result_count":1,"sample_keys":["a"],"schema":{"items":{"properties":)"
            R"({"a":"integer"},"type":"object"},"type":"array"}})");
  std::string same5 = R"([{"a":1,"b":2},{"b":3,"a":4},{"a":5,"b":6},{"a":7,"b":8},{"a":9,"b":0}])";
  EXPECT_NE(preview(same5).payload.get("sample_keys"), nullptr);
  std::string third_differs =
      R"([{"a":1,"b":2},{"a":1,"b":2},{"a":1,"c":2},{"a":1,"b":2},{"a":1,"b":2}])";
  EXPECT_EQ(shape(preview(third_differs)),
            R"({"result_count":5,"schema":{"items":{"type":"object"},"type":"array"}})");
  std::string sixth_differs = R"([{"a":1},{"a":2},{"a":3},{"a":4},{"a":5},{"z":6}])";
  EXPECT_NE(preview(sixth_differs).payload.get("sample_keys"), nullptr);
  EXPECT_EQ(shape(preview(R"([{"a":1},2])")),
            R"({"result_count":2,"schema":{"items":{"type":"object"},"type":"array"}})");
}

// The metadata preview never shows a value from the result.
TEST(NativePreview, MetadataCarriesNoRowValues) {
  NativePreview p = preview(R"([{"secret":"hunter2","n":98765},{"secret":"swordfish","n":12345}])");
  std::string json = to_json(p.payload, true);
  for (const char* value : {"hunter2", "swordfish", "98765", "12345"})
    EXPECT_EQ(json.find(value), std::string::npos) << value << " leaked: " << json;
  EXPECT_EQ(p.payload.get("rows"), nullptr);
  EXPECT_EQ(p.payload.get("result"), nullptr);
}

}  // namespace
