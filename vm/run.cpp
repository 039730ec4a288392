#include "vm/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <new>

#include "compiler/compiler.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"
#include "vm/vm.hpp"

namespace ptc {

namespace {

// Reading, analysis and compilation get their own memory budget, proportional
// to the source size, so a large but valid program is not charged against the
// run's heap.
size_t compile_budget(size_t source_bytes) {
  return (size_t{64} << 20) + source_bytes * 64;
}

void check_size(std::string_view source, const Limits& limits) {
  if (source.size() > limits.max_program_bytes)
    throw_error(ErrorKind::ProgramTooLarge,
                fmt::format("program is {} bytes, more than the limit of {} bytes", source.size(),
                            limits.max_program_bytes),
                "send a shorter program; large data belongs in the context, not the source");
}

struct Compiled {
  std::unique_ptr<CompiledProgram> program;
};

Compiled compile_source(Ctx& ctx, std::string_view source) {
  ReaderOptions ro;
  ro.max_nesting_depth = ctx.limits.max_nesting_depth;
  std::vector<const Form*> forms = read_program(ctx.arena, source, ro);
  AnalyzedProgram analyzed = analyze_program(ctx, forms);
  return Compiled{compile_program(ctx, analyzed)};
}

// Builds the data/ map: every key the program reads (or all of them).
Value import_context(Ctx& ctx, const RunOptions& options, const CompiledProgram& program) {
  const HostValue& c = options.context;
  if (c.kind() != HostValue::Kind::Map) return Value();
  HashBuilder b(ctx.arena, Type::Map);
  const auto& items = c.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const HostValue& k = items[i];
    if (options.filter_context) {
      bool wanted = false;
      if (k.kind() == HostValue::Kind::String || k.kind() == HostValue::Kind::Keyword) {
        for (const std::string& key : program.data_keys) {
          std::string underscored = key;
          for (char& ch : underscored)
            if (ch == '-') ch = '_';
          if (k.text() == key || k.text() == underscored) wanted = true;
        }
      }
      if (!wanted) continue;
    }
    b.put(import_value(ctx, k), import_value(ctx, items[i + 1]));
  }
  return Value::object(b.finish());
}

}  // namespace

RunResult run(std::string_view source, const RunOptions& options) {
  auto start = std::chrono::steady_clock::now();
  RunResult result;
  Limits limits = options.limits;
  limits.loop_limit = std::min(limits.loop_limit, Limits::kLoopLimitHardCap);
  limits.max_heap_bytes = compile_budget(source.size());
  try {
    check_size(source, options.limits);
    Ctx ctx(limits);
    ctx.limits.max_heap_bytes = options.limits.max_heap_bytes;
    CurrentRun current(ctx);
    try {
      Compiled compiled = compile_source(ctx, source);
      ctx.arena.set_cap(ctx.arena.used() + options.limits.max_heap_bytes);
      size_t base_used = ctx.arena.used();
      VM vm(ctx, *compiled.program);
      vm.data = import_context(ctx, options, *compiled.program);
      for (const HostValue& h : options.turn_history)
        vm.turn_history.push_back(import_value(ctx, h));
      ctx.start_clock();
      Value v = vm.run();
      // Copying the result out is bounded like the run: a value built from
      // shared structure can be far larger than the heap it occupies.
      result.value = export_value(v, options.limits.max_heap_bytes);
      result.printed =
          display_value(v, options.display_limit, &result.truncated, options.limits.max_heap_bytes);
      result.ok = true;
      result.memory_bytes = ctx.arena.used() - base_used;
    } catch (LispError& e) {
      result.error = e.error();
    } catch (std::bad_alloc&) {
      result.error = Error{ErrorKind::MemoryLimit, "out of memory", "", {}, ""};
    }
    result.prints = std::move(ctx.prints);
    result.reductions = ctx.reductions();
  } catch (LispError& e) {
    result.error = e.error();
  }
  result.duration_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string disassemble_source(std::string_view source, const RunOptions& options) {
  check_size(source, options.limits);
  Limits limits = options.limits;
  limits.max_heap_bytes = compile_budget(source.size());
  Ctx ctx(limits);
  Compiled compiled = compile_source(ctx, source);
  return disassemble(*compiled.program);
}

}  // namespace ptc
