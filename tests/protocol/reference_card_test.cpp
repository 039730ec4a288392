// The compact PTC-Lisp card and the inventory of program-callable tools. The
// card's function names come from the builtin table: every name it presents
// as code must resolve, every name it calls unsupported must not, and its
// example must run.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "frontend/resolve.hpp"
#include "protocol/lisp_eval/reference_card.hpp"

namespace {

using ptc::HostValue;
using ptc::protocol::AgentTool;
using ptc::protocol::compact_reference_card;
using ptc::protocol::Expose;
using ptc::protocol::OutputMode;
using ptc::protocol::program_tool_inventory;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// What a name means to the engine.
ptc::Resolution resolve(const std::string& name) {
  static const ptc::DefinedNames kNone;
  return ptc::resolve_symbol(name, kNone);
}

bool is_function_or_form(const std::string& name) {
  return ptc::is_special_form(name) || resolve(name).kind == ptc::Resolution::Builtin;
}

// The text between backticks, in order.
std::vector<std::string> backticked(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = s.find('`', at)) != std::string::npos) {
    size_t end = s.find('`', at + 1);
    if (end == std::string::npos) break;
    out.push_back(s.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  return out;
}

// The first symbol after every "(" (keywords, literals and nested forms
// skipped): what the card shows being called.
std::vector<std::string> call_heads(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '(') continue;
    size_t end = i + 1;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) &&
           std::string_view("()[]{}\"`,").find(s[end]) == std::string_view::npos)
      ++end;
    std::string head = s.substr(i + 1, end - i - 1);
    if (head.empty() || head[0] == ':') continue;
    out.push_back(head);
  }
  return out;
}

// Backticked text that is prose about the protocol, not PTC-Lisp code.
const std::set<std::string> kProtocolWords = {"lisp_eval", "program"};

TEST(ReferenceCard, IsWrappedAndFitsTheBudget) {
  std::string card = compact_reference_card();
  EXPECT_TRUE(card.starts_with("<ptc_lisp_reference>\n")) << card;
  EXPECT_TRUE(card.ends_with("\n</ptc_lisp_reference>")) << card;
  EXPECT_LE(card.size(), 2200u) << card;
  EXPECT_EQ(card, compact_reference_card()) << "the same text every time";
}

// Our version of fact 95 (the card's part of the combined prompt).
TEST(ReferenceCard, CoversTheTopicsAModelNeeds) {
  std::string card = compact_reference_card();
  for (const char* part :
       {"`lisp_eval`", "`program`", "`(return v)`", "`let`", "`fn`", "#(", "`def`",
        "No `let*`, `lambda`", "macros", "lazy", "atoms", "try/catch", "data/orders",
        "(data/orders)", "ns, require or import", "(tool/name {:arg value})", "full_result_cached",
        "string keys", "Example:\n(def rows (tool/search_logs"})
    EXPECT_TRUE(contains(card, part)) << part << "\n" << card;
  for (const char* absent : {"tool/call", ":json-null", "upstream_calls"})
    EXPECT_FALSE(contains(card, absent)) << absent;
}

TEST(ReferenceCard, EveryNameItPresentsAsCodeExists) {
  std::string card = compact_reference_card();
  std::string unsupported = card.substr(card.find("No `"));
  unsupported = unsupported.substr(0, unsupported.find('\n'));
  std::set<std::string> said_unsupported;
  for (const std::string& name : backticked(unsupported))
    said_unsupported.insert(name);
  ASSERT_EQ(said_unsupported, (std::set<std::string>{"let*", "lambda"}));

  size_t functions = 0;
  for (const std::string& token : backticked(card)) {
    if (kProtocolWords.count(token) || said_unsupported.count(token)) continue;
    if (token.starts_with("(")) continue;  // a call: its head is checked below
    EXPECT_TRUE(is_function_or_form(token)) << "`" << token << "` is not a function or form";
    ++functions;
  }
  EXPECT_GE(functions, 60u) << "the lists came out nearly empty:\n" << card;

  for (const std::string& head : call_heads(card)) {
    ptc::Resolution r = resolve(head);
    bool ok = is_function_or_form(head) || r.kind == ptc::Resolution::Tool ||
              r.kind == ptc::Resolution::Data;
    EXPECT_TRUE(ok) << "(" << head << " ...) calls nothing that exists";
  }
}

TEST(ReferenceCard, WhatItCallsUnsupportedIsUnsupported) {
  for (const char* name : {"let*", "lambda"}) {
    EXPECT_FALSE(is_function_or_form(name)) << name;
    EXPECT_FALSE(ptc::run(std::string("(") + name + " [x 1] x)").ok) << name;
  }
}

TEST(ReferenceCard, ItsExampleRuns) {
  std::string card = compact_reference_card();
  size_t from = card.find("Example:\n") + 9;
  std::string example = card.substr(from, card.rfind("\n</ptc_lisp_reference>") - from);
  ptc::RunOptions opts;
  opts.tools["search_logs"] = {[](const HostValue&) {
    return ptc::ToolResult::success(ptc::parse_json(
        R"([{"level":"error","msg":"a"},{"level":"info","msg":"b"},{"level":"error","msg":"c"}])"));
  }};
  ptc::Step step = ptc::run(example, opts);
  ASSERT_TRUE(step.ok) << ptc::format_error(step.error) << "\n" << example;
  EXPECT_EQ(step.value, HostValue::integer(2));
  EXPECT_TRUE(step.returned);

  ptc::RunOptions with_context;
  with_context.context = ptc::parse_json(R"({"orders":[{"id":1},{"id":2}]})");
  ptc::Step context = ptc::run("(count data/orders)", with_context);
  ASSERT_TRUE(context.ok);
  EXPECT_EQ(context.value, HostValue::integer(2));
  ptc::Step row = ptc::run(R"((let [row {"id" 7}] [(:id row) (get row "id")]))");
  ASSERT_TRUE(row.ok);
  EXPECT_EQ(ptc::format_value(row.value), "[7 7]") << "string keys read both ways, as it says";
}

AgentTool tool(std::string name, std::optional<Expose> expose, std::string signature = "",
               std::string description = "") {
  AgentTool t;
  t.name = std::move(name);
  t.expose = expose;
  t.signature = std::move(signature);
  t.description = std::move(description);
  t.tool.fn = [](const HostValue&) { return ptc::ToolResult::success({}); };
  return t;
}

// Fact 95's inventory part, in our format.
TEST(ToolInventory, ListsProgramCallableToolsSortedByName) {
  std::vector<AgentTool> tools = {
      tool("search_logs", Expose::Both, "(query :string) -> [:any]", "Search log events."),
      tool("native_only", Expose::Native, "", "Not for programs."),
      tool("default_text", std::nullopt),
      tool("fetch-user", Expose::PtcLisp, "", "Looks a user up\nby id."),
      tool("count_rows", Expose::PtcLisp, "(table :string) -> :int"),
  };
  EXPECT_EQ(program_tool_inventory(tools, OutputMode::Text),
            "<ptc_tools>\n"
            "App tools a lisp_eval program can call, each as (tool/name {...}):\n"
            "- `(tool/count_rows {...})` — `(table :string) -> :int`\n"
            "- `(tool/fetch-user {...})` — Looks a user up by id.\n"
            "- `(tool/search_logs {...})` — `(query :string) -> [:any]` — Search log events.\n"
            "</ptc_tools>");
  // Under ptc_lisp output, a tool that does not say is program-callable.
  std::string lisp = program_tool_inventory(tools, OutputMode::PtcLisp);
  EXPECT_TRUE(contains(lisp, "- `(tool/default_text {...})`\n")) << lisp;
  EXPECT_FALSE(contains(lisp, "native_only"));
}

TEST(ToolInventory, IsEmptyWhenNoToolIsProgramCallable) {
  std::vector<AgentTool> tools = {tool("a", std::nullopt), tool("b", Expose::Native)};
  EXPECT_EQ(program_tool_inventory(tools, OutputMode::Text), "");
  EXPECT_EQ(program_tool_inventory({}, OutputMode::PtcLisp), "");
}

}  // namespace
