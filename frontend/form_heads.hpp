// The names whose list forms the analyzer handles itself: special forms
// (if, let, fn, ...), the macros (when, cond, ->, for, ...) and the internal
// heads the analyzer's own expansions use ("fn ", "let ", ...). A call whose
// head is none of them goes straight to a function call, past the chains of
// name comparisons in analyze_list and analyze_macro (about 40 string
// compares for every call form otherwise). tests/frontend/form_heads_test.cpp
// checks that every name those chains compare against is listed here.
#pragma once

#include <string_view>

namespace ptc::analysis {

bool is_form_head(std::string_view name);

}  // namespace ptc::analysis
