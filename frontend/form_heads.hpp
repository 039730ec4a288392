// The names whose list forms the analyzer handles itself: special forms
// (if, let, fn, ...), the macros (when, cond, ->, for, ...) and the internal
// heads the analyzer's own expansions use ("fn ", "let ", ...). A call whose
// head is none of them goes straight to a function call, past the chains of
// name comparisons in analyze_list and analyze_macro (about 40 string
// compares for every call form otherwise). tests/frontend/form_heads_test.cpp
// checks that every name those chains compare against is listed here.
#pragma once

#include <array>
#include <string_view>

#include "frontend/analyzer_impl.hpp"  // kIfHead, kLetHead, ...

namespace ptc::analysis {

inline constexpr std::array<std::string_view, 43> kFormHeads = {
    // special forms (analyze_list)
    "if", "let", "loop", "recur", "fn", "fn*", "def", "defonce", "defn", "defn-", "do", "quote",
    kIfHead, kLetHead, kFnHead, kDoHead,
    // macros (analyze_macro)
    "when", "when-not", "if-not", "cond", "case", "condp", "and", "or", "if-let", "when-let",
    "if-some", "when-some", "when-first", "->", "->>", "as->", "cond->", "cond->>", "some->",
    "some->>", "for", "doseq", "dotimes", "return", "fail", "comment", "task"};

// The first characters of the heads: most calls' heads (+, *, str, map) are
// turned away by this table, inline, before the search of the list.
inline constexpr std::array<bool, 256> kFormHeadFirstChars = [] {
  std::array<bool, 256> first{};
  for (std::string_view h : kFormHeads)
    first[static_cast<unsigned char>(h[0])] = true;
  return first;
}();
bool is_listed_form_head(std::string_view name);  // the search (form_heads.cpp)
inline bool is_form_head(std::string_view name) {
  return !name.empty() && kFormHeadFirstChars[static_cast<unsigned char>(name[0])] &&
         is_listed_form_head(name);
}

}  // namespace ptc::analysis
