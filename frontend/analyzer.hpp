// The analyzer: forms to core IR (frontend/ir.hpp). It expands the special
// forms of spec §5 and the threading forms of §6, destructuring, and `#()`;
// resolves symbols (locals, then user globals, then builtins; Appendix A);
// and reports malformed programs as analysis errors with line:column and a
// hint. Nothing is evaluated here.
#pragma once

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
};

// Constants are created in ctx's arena; IR nodes too. Throws LispError.
AnalyzedProgram analyze_program(Ctx& ctx, std::span<const Form* const> forms,
                                const AnalyzerOptions& options = {});

}  // namespace ptc
