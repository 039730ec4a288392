#include "frontend/form_heads.hpp"

#include <array>
#include <unordered_set>

#include "frontend/analyzer_impl.hpp"

namespace ptc::analysis {

namespace {

constexpr std::array<std::string_view, 43> kFormHeads = {
    // special forms (analyze_list)
    "if", "let", "loop", "recur", "fn", "fn*", "def", "defonce", "defn", "defn-", "do", "quote",
    kIfHead, kLetHead, kFnHead, kDoHead,
    // macros (analyze_macro)
    "when", "when-not", "if-not", "cond", "case", "condp", "and", "or", "if-let", "when-let",
    "if-some", "when-some", "when-first", "->", "->>", "as->", "cond->", "cond->>", "some->",
    "some->>", "for", "doseq", "dotimes", "return", "fail", "comment", "task"};

}  // namespace

bool is_form_head(std::string_view name) {
  // Built once, then only read: safe from any thread.
  static const std::unordered_set<std::string_view> heads(kFormHeads.begin(), kFormHeads.end());
  return heads.contains(name);
}

}  // namespace ptc::analysis
