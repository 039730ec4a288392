// Exposure of app tools in an agent (our versions of the reference's facts
// 92-94): per-mode defaults, which layer may call a tool, the checks on a
// tool's configuration, native names and native schemas.
#include <gtest/gtest.h>

#include "protocol/lisp_eval/exposure.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::to_json;
using ptc::protocol::AgentTool;
using ptc::protocol::check_tool;
using ptc::protocol::check_tools;
using ptc::protocol::default_expose;
using ptc::protocol::effective_expose;
using ptc::protocol::Expose;
using ptc::protocol::expose_from_name;
using ptc::protocol::expose_name;
using ptc::protocol::find_by_native_name;
using ptc::protocol::native_callable;
using ptc::protocol::native_tool_name;
using ptc::protocol::native_tool_schema;
using ptc::protocol::NativeResultOptions;
using ptc::protocol::OutputMode;
using ptc::protocol::program_callable;

AgentTool tool(std::string name, std::optional<Expose> expose = std::nullopt) {
  AgentTool t;
  t.name = std::move(name);
  t.expose = expose;
  t.tool.fn = [](const HostValue&) { return ptc::ToolResult::success({}); };
  return t;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Exposure, NamesRoundTrip) {
  for (Expose e : {Expose::Native, Expose::PtcLisp, Expose::Both})
    EXPECT_EQ(expose_from_name(expose_name(e)), e);
  EXPECT_EQ(expose_name(Expose::PtcLisp), "ptc_lisp");
  EXPECT_FALSE(expose_from_name("wrong"));
  EXPECT_FALSE(expose_from_name(":both"));
}

// Fact 92.
TEST(Exposure, DefaultsFollowTheOutputModeAndExplicitValuesWin) {
  EXPECT_EQ(default_expose(OutputMode::Text), Expose::Native);
  EXPECT_EQ(default_expose(OutputMode::PtcLisp), Expose::PtcLisp);
  AgentTool unset = tool("t");
  EXPECT_EQ(effective_expose(unset, OutputMode::Text), Expose::Native);
  EXPECT_EQ(effective_expose(unset, OutputMode::PtcLisp), Expose::PtcLisp);
  for (Expose e : {Expose::Native, Expose::PtcLisp, Expose::Both})
    for (OutputMode m : {OutputMode::Text, OutputMode::PtcLisp})
      EXPECT_EQ(effective_expose(tool("t", e), m), e);
}

std::vector<std::string> names_where(const std::vector<AgentTool>& tools,
                                     bool (*pred)(const AgentTool&, OutputMode), OutputMode m) {
  std::vector<std::string> out;
  for (const AgentTool& t : tools)
    if (pred(t, m)) out.push_back(t.name);
  return out;
}

// Fact 93: combined mode's native side and program side, and ptc_lisp mode's
// program side (order kept).
TEST(Exposure, WhichLayerMayCallEachTool) {
  std::vector<AgentTool> tools = {tool("native_only", Expose::Native),
                                  tool("ptc_only", Expose::PtcLisp),
                                  tool("both_layer", Expose::Both), tool("default_text")};
  using V = std::vector<std::string>;
  EXPECT_EQ(names_where(tools, native_callable, OutputMode::Text),
            (V{"native_only", "both_layer", "default_text"}));
  EXPECT_EQ(names_where(tools, program_callable, OutputMode::Text), (V{"ptc_only", "both_layer"}));
  EXPECT_EQ(names_where(tools, program_callable, OutputMode::PtcLisp),
            (V{"ptc_only", "both_layer", "default_text"}));
  std::reverse(tools.begin(), tools.end());
  EXPECT_EQ(names_where(tools, program_callable, OutputMode::PtcLisp),
            (V{"default_text", "both_layer", "ptc_only"}));
}

TEST(CheckTool, AcceptsUsableConfigurations) {
  EXPECT_EQ(check_tool(tool("search-logs")), "");
  EXPECT_EQ(check_tool(tool("get_user", Expose::Both)), "");
  AgentTool both = tool("search_logs", Expose::Both);
  both.cache = true;
  both.signature = "(query :string) -> [:any]";
  both.native_result = NativeResultOptions{};
  EXPECT_EQ(check_tool(both), "");
  both.native_result->kind = NativeResultOptions::Kind::Rows;
  both.native_result->limit = 5;
  EXPECT_EQ(check_tool(both), "");
  // expose both without cache and without native_result is legal.
  EXPECT_EQ(check_tool(tool("plain", Expose::Both)), "");
}

TEST(CheckTool, TheProgramToolsNameIsReserved) {
  EXPECT_EQ(check_tool(tool("lisp_eval")),
            "tool name \"lisp_eval\" is reserved for the program tool; choose another name");
  std::string kebab = check_tool(tool("lisp-eval", Expose::Native));
  EXPECT_TRUE(contains(kebab, "\"lisp-eval\" is reserved")) << kebab;
}

TEST(CheckTool, NamesMustBeWritableAsToolSlashName) {
  EXPECT_NE(check_tool(tool("")), "");
  for (const char* bad : {"two words", "a/b", "naïve", "x(y)", "q\"", "a;b", "{x}"}) {
    std::string problem = check_tool(tool(bad));
    EXPECT_TRUE(contains(problem, std::string("tool \"") + bad + "\"")) << bad << ": " << problem;
    EXPECT_TRUE(contains(problem, "tool/")) << problem;
  }
  for (const char* good : {"x", "get-user", "get_user", "v2", "list.items", "ok?"})
    EXPECT_EQ(check_tool(tool(good)), "") << good;
}

TEST(CheckTool, NeedsAFunctionAndASignatureThatParses) {
  AgentTool t = tool("t");
  t.tool.fn = nullptr;
  EXPECT_EQ(check_tool(t), "tool \"t\" has no function");
  AgentTool sig = tool("s");
  sig.signature = "(q :strin) -> :int";
  std::string problem = check_tool(sig);
  EXPECT_TRUE(contains(problem, "tool \"s\": signature")) << problem;
  EXPECT_TRUE(contains(problem, "does not parse")) << problem;
}

// Fact 94: native_result needs expose both and cache true; its options are
// checked.
TEST(CheckTool, NativeResultNeedsExposeBothAndCache) {
  struct Case {
    std::optional<Expose> expose;
    bool cache;
  };
  for (Case c : {Case{Expose::Native, true}, Case{Expose::PtcLisp, true}, Case{std::nullopt, true},
                 Case{Expose::Both, false}}) {
    AgentTool t = tool("r", c.expose);
    t.cache = c.cache;
    t.native_result = NativeResultOptions{};
    std::string problem = check_tool(t);
    for (const char* word : {"tool \"r\"", "native_result", "expose", "both", "cache"})
      EXPECT_TRUE(contains(problem, word)) << word << " in " << problem;
  }
  AgentTool rows = tool("r", Expose::Both);
  rows.cache = true;
  rows.native_result = NativeResultOptions{NativeResultOptions::Kind::Rows, 0, {}};
  EXPECT_TRUE(contains(check_tool(rows), "positive integer")) << check_tool(rows);
  AgentTool custom = rows;
  custom.native_result = NativeResultOptions{NativeResultOptions::Kind::Custom, 20, {}};
  EXPECT_TRUE(contains(check_tool(custom), "needs a function")) << check_tool(custom);
  custom.native_result->custom = [](const HostValue& v) { return v; };
  EXPECT_EQ(check_tool(custom), "");
}

TEST(CheckTools, NamesAndNativeNamesAreUnique) {
  std::vector<AgentTool> tools = {tool("a"), tool("b"), tool("a")};
  EXPECT_EQ(check_tools(tools, OutputMode::Text), "two tools are named \"a\"");
  tools = {tool("search-logs"), tool("search_logs")};
  EXPECT_EQ(check_tools(tools, OutputMode::Text),
            "tools \"search-logs\" and \"search_logs\" have the same native name \"search_logs\"; "
            "rename one of them");
  // Only native-callable tools have native names.
  EXPECT_EQ(check_tools(tools, OutputMode::PtcLisp), "");
  tools[0].expose = Expose::PtcLisp;
  EXPECT_EQ(check_tools(tools, OutputMode::Text), "");
  std::vector<AgentTool> long_name = {tool(std::string(65, 'x'))};
  EXPECT_TRUE(contains(check_tools(long_name, OutputMode::Text), "at most 64"));
  EXPECT_EQ(check_tools(long_name, OutputMode::PtcLisp), "") << "programs take any length";
  tools.push_back(tool("lisp_eval"));
  EXPECT_TRUE(contains(check_tools(tools, OutputMode::Text), "reserved"));
}

TEST(NativeNames, CharactersProvidersRejectBecomeUnderscores) {
  EXPECT_EQ(native_tool_name("search-logs"), "search_logs");
  EXPECT_EQ(native_tool_name("get_user"), "get_user");
  EXPECT_EQ(native_tool_name("list.items?"), "list_items_");
  EXPECT_EQ(native_tool_name("naïve"), "na_ve") << "one _ per character, not per byte";
  EXPECT_EQ(native_tool_name("Tool2"), "Tool2");
}

TEST(NativeNames, MapBackToTheTool) {
  std::vector<AgentTool> tools = {tool("search-logs"), tool("fetch"), tool("get_user")};
  EXPECT_EQ(find_by_native_name(tools, "search_logs"), &tools[0]);
  EXPECT_EQ(find_by_native_name(tools, "fetch"), &tools[1]);
  EXPECT_EQ(find_by_native_name(tools, "get_user"), &tools[2]);
  EXPECT_EQ(find_by_native_name(tools, "search-logs"), &tools[0]) << "the name as given works too";
  EXPECT_EQ(find_by_native_name(tools, "ghost"), nullptr);
  // An exact name beats a sanitised one.
  std::vector<AgentTool> clash = {tool("a-b"), tool("a_b")};
  EXPECT_EQ(find_by_native_name(clash, "a_b"), &clash[1]);
}

TEST(NativeSchema, ParametersComeFromTheSignaturesInputs) {
  AgentTool t = tool("search-logs", Expose::Both);
  t.description = "Search log events.";
  t.signature =
      "(query :string, limit :int?, ratio :float, verbose :bool, level :keyword, since :datetime,"
      " tags [:string], filter {field :string, depth :int?}, extra :map, anything :any)"
      " -> [:any]";
  EXPECT_EQ(to_json(native_tool_schema(t), true),
            R"({"function":{"description":"Search log events.","name":"search_logs","parameters":)"
            R"({"properties":{"anything":{},"extra":{"type":"object"},)"
            R"("filter":{"properties":{"depth":{"type":"integer"},"field":{"type":"string"}},)"
            R"("required":["field"],"type":"object"},"level":{"type":"string"},)"
            R"("limit":{"type":"integer"},"query":{"type":"string"},"ratio":{"type":"number"},)"
            R"("since":{"format":"date-time","type":"string"},)"
            R"("tags":{"items":{"type":"string"},"type":"array"},"verbose":{"type":"boolean"}},)"
            R"("required":["query","ratio","verbose","level","since","tags","filter","extra",)"
            R"("anything"],"type":"object"}},"type":"function"})");
}

TEST(NativeSchema, AnyObjectWithoutInputs) {
  AgentTool t = tool("ping");
  EXPECT_EQ(to_json(native_tool_schema(t), true),
            R"({"function":{"name":"ping","parameters":{"type":"object"}},"type":"function"})");
  t.signature = ":int";
  t.description = "Pings.";
  EXPECT_EQ(to_json(native_tool_schema(t), true),
            R"({"function":{"description":"Pings.","name":"ping","parameters":{"type":"object"}},)"
            R"("type":"function"})");
  t.signature = "(x :nope) -> :int";  // check_tool reports it; the schema stays usable
  EXPECT_EQ(native_tool_schema(t).get("function")->get("parameters")->size(), 1u);
}

}  // namespace
