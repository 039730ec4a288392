// The analyzer: forms to core IR (frontend/ir.hpp). It expands the special
// forms of spec §5 and the threading forms of §6, destructuring, and `#()`;
// resolves symbols (locals, then user globals, then builtins; Appendix A);
// and reports malformed programs as analysis errors with line:column and a
// hint. Nothing is evaluated here.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "frontend/form.hpp"
#include "frontend/ir.hpp"

namespace ptc {

class Ctx;

struct AnalyzerOptions {
  // Names already bound in the user namespace (memory from earlier turns).
  std::vector<std::string> known_globals;
  // When set (validation), undefined names are collected here, each once, and
  // analysis goes on as if they were nil instead of failing at the first.
  std::vector<std::string>* undefined = nullptr;
  // Functions that memory carries from earlier runs: given a global name the
  // program (or a restorer) uses, appends the forms of the Restorer factories
  // its memory value needs. Each is analyzed after the program as a top-level
  // expression in the same namespace; names it uses that nothing defines
  // become globals that fail only if called (the def that made them may not
  // have run). A factory that does not analyze is left out, not an error: the
  // run then reports that memory name as a function that could not be kept.
  std::function<void(std::string_view name, std::vector<const Form*>& out)> restorers_for;
  // When set, called with the name of every tool/<name> the program calls; it
  // throws LispError to reject the program before anything runs (the error
  // gets the call's line:column).
  std::function<void(std::string_view tool)> check_tool;
};

// Constants are created in ctx's arena; IR nodes too. Throws LispError.
AnalyzedProgram analyze_program(Ctx& ctx, std::span<const Form* const> forms,
                                const AnalyzerOptions& options = {});

}  // namespace ptc
