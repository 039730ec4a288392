// The special forms: the names the analyzer handles itself instead of calling
// a function (if, let, fn, loop, cond, ->, for, ...; spec §5 and §6), with the
// signature and one-line doc that (doc if) and docs/language.md show. The
// analyzer's dispatch (frontend/analyzer.cpp, macros.cpp) implements them;
// this table is what the rest of the engine knows about them: the "special
// form cannot be used as a value" error, did-you-mean hints and discovery.
#pragma once

#include <span>
#include <string_view>

namespace ptc {

struct SpecialForm {
  std::string_view name;       // as written: "if", "->", "when-let"
  std::string_view signature;  // e.g. "(if test then else?)"
  std::string_view doc;        // one line, written for this project
};

std::span<const SpecialForm> special_forms();
bool is_special_form(std::string_view name);

}  // namespace ptc
