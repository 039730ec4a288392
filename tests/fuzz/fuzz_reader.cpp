// The reader: any bytes either read as forms or fail with a parse_error, and
// forms printed back (frontend/form_printer.cpp) read as the same forms. The
// REPL's input_status agrees: Blank or Complete for text that reads, never
// Blank for text that fails.
#include <string>
#include <vector>

#include "frontend/form.hpp"
#include "frontend/reader.hpp"
#include "runtime/arena.hpp"
#include "runtime/error.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

std::string print_all(ptc::FormList forms) {
  std::string out;
  for (const ptc::Form* f : forms) {
    ptc::print_form(*f, out);
    out += '\n';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return -1;
  std::string_view source = ptc::fuzz::as_text(data, size);
  ptc::ReaderOptions options;
  options.max_nesting_depth = 64;
  ptc::Arena arena(size_t{64} << 20);
  ptc::FormList forms;
  ptc::InputStatus status = ptc::input_status(source, options);
  try {
    forms = ptc::read_program(arena, source, options);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(e.error().kind == ptc::ErrorKind::ParseError, e.error().describe());
    PTC_FUZZ_CHECK(status != ptc::InputStatus::Blank, "input_status Blank for text that fails");
    return 0;
  }
  PTC_FUZZ_CHECK(status == (forms.empty() ? ptc::InputStatus::Blank : ptc::InputStatus::Complete),
                 "input_status disagrees with read_program");
  // Printing may spell a form differently ('x as (quote x) and back), so allow
  // a little more nesting when reading the printed text.
  std::string printed = print_all(forms);
  options.max_nesting_depth *= 2;
  ptc::FormList again;
  try {
    again = ptc::read_program(arena, printed, options);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(
        false, "printed forms do not read back: " + e.error().describe() + "\nprinted: " + printed);
  }
  PTC_FUZZ_CHECK(again.size() == forms.size(), printed);
  std::string reprinted = print_all(again);
  PTC_FUZZ_CHECK(reprinted == printed, printed + "\nreprinted: " + reprinted);
  return 0;
}
