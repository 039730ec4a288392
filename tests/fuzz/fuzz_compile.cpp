// Reader + analyzer + compiler + disassembler, as ptc::run compiles a program
// (vm/run.cpp compile_source) under compile_timeout: any source either compiles
// or fails with a LispError; nothing runs. A program with undefined names is
// analyzed again collecting them, as ptc::validate does.
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.hpp"
#include "compiler/proto.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

// Names a host's memory would bind, so programs may read them.
const std::vector<std::string> kKnownGlobals = {"mem-a", "mem-f", "counter"};

void compile(std::string_view source, std::vector<std::string>* undefined) {
  ptc::Limits limits = ptc::fuzz::tight_limits();
  limits.max_heap_bytes = size_t{64} << 20;  // the compile budget of a small program
  ptc::Ctx ctx(limits);
  ptc::CurrentRun current(ctx);
  ctx.start_clock(limits.compile_timeout_ms, "compilation");
  ptc::ReaderOptions ro;
  ro.max_nesting_depth = limits.max_nesting_depth;
  ptc::FormList forms = ptc::read_program(ctx.arena, source, ro);
  ptc::AnalyzerOptions ao;
  ao.known_globals = kKnownGlobals;
  ao.undefined = undefined;
  ptc::AnalyzedProgram analyzed = ptc::analyze_program(ctx, forms, ao);
  std::unique_ptr<ptc::CompiledProgram> program = ptc::compile_program(ctx, analyzed);
  std::string listing = ptc::disassemble(*program);
  PTC_FUZZ_CHECK(!listing.empty(), std::string(source));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > ptc::fuzz::tight_limits().max_program_bytes) return -1;
  std::string_view source = ptc::fuzz::as_text(data, size);
  try {
    compile(source, nullptr);
  } catch (ptc::LispError& e) {
    if (e.error().kind != ptc::ErrorKind::UnboundVar) return 0;
    std::vector<std::string> undefined;
    try {
      compile(source, &undefined);
    } catch (ptc::LispError&) {}
  }
  return 0;
}
