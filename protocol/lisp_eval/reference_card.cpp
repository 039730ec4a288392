#include "protocol/lisp_eval/reference_card.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "frontend/resolve.hpp"

namespace ptc::protocol {

namespace {

// The names the card would like to show, by purpose. Only those the engine
// resolves are printed (see `present`), so a renamed or removed builtin drops
// out of the card instead of misleading the model.
constexpr std::string_view kForms[] = {"def",   "defn", "let",   "fn",  "if", "when",
                                       "cond",  "case", "do",    "and", "or", "loop",
                                       "recur", "for",  "doseq", "->",  "->>"};
constexpr std::string_view kSequences[] = {
    "count",  "first",   "last",     "nth",         "map",      "filter", "remove",
    "reduce", "sort-by", "group-by", "frequencies", "distinct", "take",   "drop",
    "concat", "mapcat",  "some",     "every?",      "range",    "into"};
constexpr std::string_view kMaps[] = {"get",    "get-in", "assoc", "assoc-in", "update",
                                      "dissoc", "merge",  "keys",  "vals",     "select-keys"};
constexpr std::string_view kStrings[] = {
    "str",           "subs",           "str/join",    "str/split", "str/trim",
    "str/includes?", "str/lower-case", "str/replace", "format"};
constexpr std::string_view kNumbers[] = {"+",   "-",     "*",   "/",   "inc", "mod",   "max",
                                         "min", "round", "abs", "sum", "avg", "sum-by"};
constexpr std::string_view kSetsRegexParsing[] = {
    "set",          "contains?",         "set/union",           "re-find", "re-seq", "parse-long",
    "parse-double", "json/parse-string", "json/generate-string"};
constexpr std::string_view kInspecting[] = {"describe", "pr-str", "println"};

struct Group {
  std::string_view purpose;
  std::span<const std::string_view> names;
};
constexpr Group kFunctions[] = {
    {"sequences", kSequences},
    {"maps", kMaps},
    {"strings", kStrings},
    {"numbers", kNumbers},
    {"sets, regex, parsing", kSetsRegexParsing},
    {"inspecting", kInspecting},
};
// Java-style names a model might doubt (the card shows str/, set/ and json/ ones
// among the functions).
constexpr std::string_view kNamespaced[] = {"Double/parseDouble", "LocalDate/parse"};

bool is_builtin(std::string_view name) {
  static const DefinedNames kNoGlobals;
  return resolve_symbol(name, kNoGlobals).kind == Resolution::Builtin;
}

// `a` `b` ... for the names that exist (special forms or builtins).
std::string present(std::span<const std::string_view> names, bool special_forms,
                    std::string_view separator = " ") {
  std::string out;
  for (std::string_view n : names) {
    if (special_forms ? !is_special_form(n) : !is_builtin(n)) continue;
    if (!out.empty()) out += separator;
    out += fmt::format("`{}`", n);
  }
  return out;
}

std::string build_card() {
  std::string functions;
  for (const Group& g : kFunctions)
    functions += fmt::format("- {}: {}\n", g.purpose, present(g.names, false));
  return fmt::format(
      "<ptc_lisp_reference>\n"
      "PTC-Lisp is a small, sandboxed Clojure subset. To count, filter, join or aggregate data, "
      "or to call several tools in one step, call the native tool `lisp_eval` with a `program` "
      "string.\n"
      "A program is one or more forms; the last value is the result, and `(return v)` ends it "
      "early with v. Bind with `let`, write functions with `fn` or #(* % 2); names made with "
      "`def` and `defn` last across calls.\n"
      "No `let*`, `lambda`, macros, lazy or infinite sequences, atoms or refs, futures, "
      "try/catch/throw, transients, metadata, files or network.\n"
      "Forms: {}\n"
      "Functions:\n{}"
      "Data: [1 2] {{:k 1}} #{{1 2}} \"text\" :kw nil true. JSON data has string keys; (:id row) "
      "and (get row \"id\") both read them.\n"
      "Context: each input is the value data/<key>, e.g. (count data/orders); never "
      "(data/orders).\n"
      "Namespaces are fixed; no ns, require or import: {} work as written.\n"
      "App tools: (tool/name {{:arg value}}) returns the tool's result. If a native tool result "
      "says full_result_cached: true, the same call in a program reuses the cached result; the "
      "tool does not run again.\n"
      "Example:\n"
      "(def rows (tool/search_logs {{:query \"timeout\"}}))\n"
      "(def errors (filter #(= \"error\" (:level %)) rows))\n"
      "(return (count errors))\n"
      "</ptc_lisp_reference>",
      present(kForms, true), functions, present(kNamespaced, false, " and "));
}

// Descriptions go on one line each.
std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

}  // namespace

std::string compact_reference_card() {
  static const std::string kCard = build_card();
  return kCard;
}

std::string program_tool_inventory(const std::vector<AgentTool>& tools, OutputMode mode) {
  std::vector<const AgentTool*> callable;
  for (const AgentTool& t : tools)
    if (program_callable(t, mode)) callable.push_back(&t);
  if (callable.empty()) return "";
  std::sort(callable.begin(), callable.end(),
            [](const AgentTool* a, const AgentTool* b) { return a->name < b->name; });
  std::string out =
      "<ptc_tools>\nApp tools a lisp_eval program can call, each as (tool/name {...}):\n";
  for (const AgentTool* t : callable) {
    out += fmt::format("- `(tool/{} {{...}})`", t->name);
    if (!t->signature.empty()) out += fmt::format(" — `{}`", one_line(t->signature));
    if (!t->description.empty()) out += fmt::format(" — {}", one_line(t->description));
    out += '\n';
  }
  out += "</ptc_tools>";
  return out;
}

}  // namespace ptc::protocol
