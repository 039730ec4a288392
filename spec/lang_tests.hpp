// tests/lang/*.clj: the language's own tests, each program followed by its
// expectation in a comment (the format: tests/lang/README.md). Read and run
// by ptc_conformance --lang DIR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spec {

struct LangCase {
  enum class Expect { Value, Printed, Error };
  std::string file;
  int line = 0;  // the program's first line (the directive's when the program is empty)
  std::string program;
  Expect expect = Expect::Value;
  bool has_expectation = false;  // one of expect, expect-printed, expect-error was given
  std::string expected;          // expect: VALUE, expect-printed: TEXT
  // expect-error: REASON [at LINE:COL] [: MESSAGE-PART]
  std::string reason;
  uint32_t error_line = 0;  // 0 = the location is not checked
  uint32_t error_col = 0;
  std::string message_part;
  std::vector<std::string> hint_parts;         // expect-hint:
  std::vector<std::string> absent_hint_parts;  // expect-no-hint:
  std::optional<std::string> output;           // expect-output: [LINE ...]
  std::string no_gc_stress;                    // why the case is left out under --gc-stress
};

// The cases of one file; what cannot be read goes to `problems` as
// "file:line: why".
std::vector<LangCase> parse_lang_file(std::string_view text, const std::string& file,
                                      std::vector<std::string>& problems);

// Runs the case as its own program with default options (under gc_stress a
// longer timeout): nullopt when every expectation holds, else the expected
// and actual lines of a report.
std::optional<std::string> check_lang_case(const LangCase& c, bool gc_stress = false);

struct LangOptions {
  std::string dir;
  std::string filter;  // only cases whose file:line or program contains it
  bool gc_stress = false;
  bool trace = false;
};

// Every DIR/*.clj; the process exit code (1 when a case fails or a file is
// malformed).
int run_lang_tests(const LangOptions& options);

}  // namespace spec
