// ptc::run: one program end to end. Read, analyze and compile under the
// compile limits; bring the context, memory and turn history into the run's
// arena; execute; copy the result and the new memory out; validate the
// signature. Every failure becomes an error Step, and a failed run hands back
// the memory it was given.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <new>
#include <unordered_map>

#include "compiler/compiler.hpp"
#include "embedding/compiled_hook.hpp"
#include "embedding/execution.hpp"
#include "embedding/memory_functions.hpp"
#include "embedding/run_telemetry.hpp"
#include "embedding/shared_inputs.hpp"
#include "embedding/tool_broker.hpp"
#include "embedding/validators.hpp"
#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/freeze.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"
#include "runtime/signature.hpp"
#include "scheduler/parallel.hpp"
#include "vm/vm.hpp"

namespace ptc {

namespace {
thread_local CompiledHook t_compiled_hook = nullptr;
thread_local void* t_compiled_data = nullptr;
}  // namespace

void set_compiled_hook(CompiledHook hook, void* data) {
  t_compiled_hook = hook;
  t_compiled_data = data;
}

void notify_compiled() {
  if (t_compiled_hook) t_compiled_hook(t_compiled_data);
}

namespace {

using Clock = std::chrono::steady_clock;

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

// The limits of reading, analysis and compilation on their own (compile(),
// validate, disasm), once the source is known not to be too large.
Limits compile_limits(std::string_view source, const Limits& limits) {
  check_size(source, limits);
  Limits compiling = limits;
  compiling.max_heap_bytes = compile_budget(source.size());
  return compiling;
}

constexpr std::string_view kCallers[] = {"in_process_v1", "text_mode", "mcp"};
constexpr std::string_view kProfiles[] = {"", "mcp_no_tools", "mcp_aggregator", "in_process_v1",
                                          "text_mode"};

template <size_t N>
void check_tag(std::string_view what, const std::string& tag, const std::string_view (&set)[N]) {
  if (std::find(std::begin(set), std::end(set), tag) != std::end(set)) return;
  std::string allowed;
  for (std::string_view s : set)
    if (!s.empty()) allowed += (allowed.empty() ? "" : ", ") + std::string(s);
  throw_error(ErrorKind::ArgsError,
              fmt::format("{} \"{}\" is not one of the known tags", what, tag),
              fmt::format("use one of: {}", allowed));
}

// Memory entries as (name, value); keys may be strings, keywords or symbols' text.
MemoryEntries memory_entries(const HostValue& memory) {
  MemoryEntries out;
  if (memory.kind() != HostValue::Kind::Map) {
    if (!memory.is_nil())
      throw_error(ErrorKind::ArgsError, "memory must be a map from names to values");
    return out;
  }
  const auto& items = memory.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    auto k = items[i].kind();
    if (k != HostValue::Kind::String && k != HostValue::Kind::Keyword)
      throw_error(ErrorKind::ArgsError, "memory keys must be names (strings or keywords)");
    out.entries.emplace_back(items[i].text(), &items[i + 1]);
  }
  // Built once the entries are in place: the views point into their names.
  for (size_t i = 0; i < out.entries.size(); ++i)
    out.index[out.entries[i].first] = i;
  return out;
}

std::unique_ptr<CompiledProgram> compile_source(Ctx& ctx, std::string_view source,
                                                const AnalyzerOptions& options) {
  ReaderOptions ro;
  ro.max_nesting_depth = ctx.limits.max_nesting_depth;
  FormList forms = read_program(ctx.arena, source, ro);
  AnalyzedProgram analyzed = analyze_program(ctx, forms, options);
  return compile_program(ctx, analyzed);
}

// How the analyzer sees a run's options: memory names are defined globals,
// functions in memory bring their kept source along, tools must exist.
AnalyzerOptions analyzer_options_for(const RunOptions& options, const MemoryEntries& memory,
                                     MemoryFunctions* memory_functions) {
  AnalyzerOptions analyzer_options;
  for (const auto& [name, _] : memory.entries)
    analyzer_options.known_globals.push_back(name);
  if (memory_functions)
    analyzer_options.restorers_for = [memory_functions](std::string_view name,
                                                        std::vector<const Form*>& out) {
      memory_functions->forms_for(name, out);
    };
  analyzer_options.check_tool = [&options](std::string_view name) {
    if (!knows_tool(options.tools, options.deferred_tools, name))
      throw_unknown_tool(name, options.tools, options.unavailable_tools);
  };
  return analyzer_options;
}

// Whether a host value holds a function kept in memory (a Restorer).
bool holds_function(const HostValue& h) {
  std::vector<const HostValue*> todo{&h};
  while (!todo.empty()) {
    const HostValue* v = todo.back();
    todo.pop_back();
    if (v->restorer()) return true;
    for (const HostValue& x : v->items())
      todo.push_back(&x);
  }
  return false;
}

// A compiled program has no restorers for functions in memory: a run whose
// memory holds one under a name the program reads compiles the source again.
bool reads_memory_functions(const CompiledProgram& code, const MemoryEntries& memory) {
  for (uint32_t id = 0; id < code.globals.size(); ++id) {
    if (code.global_defined[id]) continue;
    auto found = memory.index.find(code.globals[id]);
    if (found != memory.index.end() && holds_function(*memory.entries[found->second].second))
      return true;
  }
  return false;
}

// A context value is kept when the program reads its key, or when it is a
// scalar (metadata such as a prompt is cheap and often read dynamically).
bool program_reads_key(std::string_view key, const CompiledProgram& program) {
  // data/order-items also reads a key written order_items (compared in place:
  // this runs for every context key against every key the program reads).
  auto underscored = [](std::string_view written, std::string_view read) {
    if (written.size() != read.size()) return false;
    for (size_t i = 0; i < read.size(); ++i)
      if (written[i] != (read[i] == '-' ? '_' : read[i])) return false;
    return true;
  };
  for (const std::string& k : program.data_keys)
    if (key == k || underscored(key, k)) return true;
  return false;
}

bool wanted_context_key(const HostValue& key, const HostValue& value,
                        const CompiledProgram& program) {
  using K = HostValue::Kind;
  if (value.kind() != K::Vector && value.kind() != K::Map && value.kind() != K::Set) return true;
  if (key.kind() != K::String && key.kind() != K::Keyword) return false;
  return program_reads_key(key.text(), program);
}

// The same for a key of a JSON context.
bool wanted_key(std::string_view key, bool collection, const RunOptions& options,
                const CompiledProgram& program) {
  return !options.filter_context || !collection || program_reads_key(key, program);
}

// Builds the data/ map: every key the program reads (or all of them). A
// prepared context is read in place.
Value import_context(Ctx& ctx, const RunOptions& options, const CompiledProgram& program) {
  if (options.prepared_context) return options.prepared_context->data;
  if (!options.context_json.empty()) {
    Value v = import_json(ctx, options.context_json, [&](std::string_view key, bool collection) {
      return wanted_key(key, collection, options, program);
    });
    if (!v.is_map()) throw_error(ErrorKind::ArgsError, "context must be a map");
    return v;
  }
  const HostValue& c = options.context;
  if (c.kind() != HostValue::Kind::Map) {
    if (!c.is_nil()) throw_error(ErrorKind::ArgsError, "context must be a map");
    return Value();
  }
  HashBuilder b(ctx.arena, Type::Map);
  const auto& items = c.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (options.filter_context && !wanted_context_key(items[i], items[i + 1], program)) continue;
    b.put(import_value(ctx, items[i]), import_value(ctx, items[i + 1]));
  }
  return Value::object(b.finish());
}

// Rounds every float to `digits` decimals (float_precision); map keys stay.
HostValue round_floats(const HostValue& v, int digits) {
  double scale = std::pow(10.0, digits);
  auto round_leaf = [scale](const HostValue& x) {
    if (x.kind() != HostValue::Kind::Float || !std::isfinite(x.as_float())) return x;
    double r = std::round(x.as_float() * scale) / scale;
    return std::isfinite(r) ? HostValue::floating(r) : x;
  };
  return map_host_value(v, round_leaf, [](const HostValue& k) { return k; });
}

// Phase 1: the options that are checked before anything runs. Returns the
// parsed signature, if any.
std::optional<Signature> check_options(std::string_view source, const RunOptions& options) {
  check_tag("caller", options.caller, kCallers);
  check_tag("profile", options.profile, kProfiles);
  std::optional<Signature> signature;
  if (!options.signature.empty()) {
    try {
      signature = parse_signature(options.signature);
    } catch (LispError& e) {
      throw_error(ErrorKind::ParseError, "invalid signature: " + e.error().message, e.error().hint);
    }
  }
  if (options.float_precision && (*options.float_precision < 0 || *options.float_precision > 17))
    throw_error(ErrorKind::ArgsError,
                fmt::format("float_precision {} is out of range", *options.float_precision),
                "give a number of decimals from 0 to 17, or none for full precision");
  check_size(source, options.limits);
  return signature;
}

// Phase 2: the compiled program, `program`'s or compiled here into
// `compiled_here` (under compile_timeout and a compile budget; the run's heap
// cap starts after it).
const CompiledProgram* compile_or_reuse(Ctx& ctx, std::string_view source, const Program* program,
                                        const RunOptions& options, const MemoryEntries& memory,
                                        MemoryFunctions& memory_functions,
                                        std::unique_ptr<CompiledProgram>& compiled_here,
                                        Clock::time_point started) {
  if (program) {
    ctx.interner.set_parent(&program->ctx.interner);
    notify_compiled();
    return program->code.get();
  }
  AnalyzerOptions analyzer_options = analyzer_options_for(options, memory, &memory_functions);
  ctx.start_clock_at(started, options.limits.compile_timeout_ms, "compilation");
  compiled_here = compile_source(ctx, source, analyzer_options);
  ctx.start_clock();
  notify_compiled();
  return compiled_here.get();
}

// Phase 3: context, turn history, budget and memory into the run. Returns the
// imported memory value per global (what the run did not change is not
// exported again).
std::vector<Value> import_inputs(Ctx& ctx, VM& vm, const RunOptions& options,
                                 const CompiledProgram& code, const MemoryEntries& memory,
                                 MemoryFunctions& memory_functions) {
  // Restoring a function in memory runs code, while the values being
  // imported are held only by C++ frames.
  Ctx::NoCollection importing(ctx);
  vm.data = import_context(ctx, options, code);
  for (auto it = options.turn_history.rbegin(); it != options.turn_history.rend(); ++it)
    vm.turn_history.push_back(import_value(ctx, *it));  // *1 is the most recent
  if (!options.budget.is_nil()) ctx.budget = import_value(ctx, options.budget);
  ctx.tool_catalog = options.tool_catalog.get();
  // Memory binds globals by name; functions are rebuilt from their source.
  memory_functions.attach(vm, code);
  std::vector<Value> imported(code.globals.size());
  for (uint32_t id = 0; id < code.globals.size(); ++id) {
    auto found = memory.index.find(code.globals[id]);
    if (found == memory.index.end()) continue;
    const HostValue& value = *memory.entries[found->second].second;
    bool no_data = value.kind() == HostValue::Kind::Opaque && !value.restorer();
    if (no_data || !memory_functions.restorable(value))
      vm.lost_functions.push_back(code.globals[id]);
    else
      imported[id] = vm.globals()[id] = import_value(ctx, value, &memory_functions);
  }
  return imported;
}

// Phase 4: the program itself. A (fail v) leaves v to the step as data.
Value run_program(Ctx& ctx, VM& vm, const RunOptions& options, Step& step) {
  try {
    return vm.run();
  } catch (LispError& e) {
    if (e.error().kind == ErrorKind::Fail && ctx.failed_with) {
      ExportBudget fail_budget;
      fail_budget.remaining = options.limits.max_heap_bytes;
      try {
        step.fail_value = export_value(*ctx.failed_with, fail_budget);
      } catch (LispError&) {
        // Too large to copy out: the printed (capped) value in error.fail_value remains.
      }
    }
    throw;
  }
}

// Phase 5: the result and the new memory out of the run. Copying out is
// bounded like the run, by one budget for the result and the memory
// together: a value built from shared structure can be far larger than the
// heap it occupies, and may be def'd many times.
HostValue export_outputs(VM& vm, Value v, const RunOptions& options, const CompiledProgram& code,
                         const MemoryEntries& memory, const std::vector<Value>& imported,
                         Step& step) {
  ExportBudget out_budget;
  out_budget.remaining = options.limits.max_heap_bytes;
  HostValue result = export_value(v, out_budget);
  out_budget.restorable_functions = true;
  std::vector<std::pair<HostValue, HostValue>> new_memory;
  for (const auto& [name, value] : memory.entries)
    new_memory.emplace_back(HostValue::string(name), *value);
  for (uint32_t id = 0; id < code.globals.size(); ++id) {
    Value g = vm.globals()[id];
    if (VM::is_unbound(g) || g.identical(imported[id])) continue;
    const std::string& name = code.globals[id];
    HostValue exported = export_value(g, out_budget);
    auto found = memory.index.find(name);
    if (found != memory.index.end())
      new_memory[found->second].second = std::move(exported);
    else
      new_memory.emplace_back(HostValue::string(name), std::move(exported));
  }
  step.memory = HostValue::map(std::move(new_memory));
  return result;
}

// Phase 6: float precision and the signature over the result, and its
// printed form.
void finish_result(HostValue result, Value v, const std::optional<Signature>& signature,
                   const RunOptions& options, Step& step) {
  if (options.float_precision) result = round_floats(result, *options.float_precision);
  if (signature) {
    SignatureCheck check = check_output(*signature, result);
    if (!check.ok)
      throw_error(ErrorKind::ValidationError,
                  fmt::format("the result does not match the signature {}: {}", options.signature,
                              check.message),
                  "return a value of the declared shape");
    result = std::move(check.value);
  }
  if (options.float_precision || signature)
    step.printed = format_value(result, options.display_limit, &step.truncated);
  else
    step.printed =
        display_value(v, options.display_limit, &step.truncated, options.limits.max_heap_bytes);
  step.value = std::move(result);
}

// The run proper; fills step (value, memory, prints, ledger, usage) or
// throws. With `program`, the source is not compiled again. `started`: when
// the run began (its clocks count from there). With `execution`, the run is
// that execution's: deferred tools wait for its host, and what the world
// answers is journaled.
void execute(std::string_view source, const Program* program, const RunOptions& options, Step& step,
             Clock::time_point started, ExecutionState* execution) {
  std::optional<Signature> signature = check_options(source, options);
  auto memory = memory_entries(options.memory);
  if (program && reads_memory_functions(*program->code, memory)) program = nullptr;

  Limits limits = options.limits;
  limits.loop_limit = std::min(limits.loop_limit, Limits::kLoopLimitHardCap);
  if (!program) limits.max_heap_bytes = compile_budget(source.size());
  Ctx ctx(limits, started);
  ctx.limits.max_heap_bytes = options.limits.max_heap_bytes;
  ctx.cancel = options.cancel;
  if (execution)
    execution->attach(ctx);
  else if (options.attempt_us)
    ctx.cap_deadlines(started + std::chrono::microseconds(options.attempt_us));
  CurrentRun current(ctx);
  ToolBroker tools(options.tools, options.deferred_tools, ctx.limits, ctx, options.tool_cache,
                   execution, execution ? execution->first_ledger_seq() : 0, &options.approver,
                   &options.validate_tool_call);
  std::optional<BranchExecutor> parallel;  // on the stack: every run has one
  struct Collect {  // whatever happens, prints and the ledgers reach the step
    Ctx& ctx;
    ToolBroker& tools;
    std::optional<BranchExecutor>& parallel;
    Step& step;
    ~Collect() {
      step.prints = std::move(ctx.prints);
      step.tool_calls = tools.take_ledger();
      if (parallel) step.pmap_calls = parallel->take_records();
      step.usage.eval_reductions = ctx.reductions();
      HeapStats heap = ctx.arena.stats();
      step.usage.allocated_bytes = heap.allocated_bytes;
      step.usage.memory_bytes = heap.allocated_bytes + ctx.arena.charged();
      step.usage.peak_live_bytes = heap.peak_live_bytes;
      step.usage.collections = heap.collections;
      step.usage.collect_ms = static_cast<double>(heap.collect_ns) / 1e6;
    }
  } collect{ctx, tools, parallel, step};

  MemoryFunctions memory_functions(ctx, memory);
  std::unique_ptr<CompiledProgram> compiled_here;
  const CompiledProgram* code = compile_or_reuse(ctx, source, program, options, memory,
                                                 memory_functions, compiled_here, started);
  if (options.validate_program) check_program(source, *code, options.validate_program);
  // What the program makes is collected from here on; what compiling made
  // stays (runtime/arena.hpp).
  ctx.start_collecting();
  parallel.emplace(*code, ctx.limits);
  ctx.parallel = &*parallel;
  VM vm(ctx, *code);
  vm.tool_caller = [&tools](Ctx& c, std::string_view name, Value args) {
    return tools.call(c, name, args);
  };
  std::vector<Value> imported = import_inputs(ctx, vm, options, *code, memory, memory_functions);
  // Kept live: exporting compares each global with its imported value by
  // identity, and a freed one's place may hold a new object.
  RootScope imports(ctx);
  imports.add(imported);
  Value v = run_program(ctx, vm, options, step);
  if (ctx.abandoned) return;  // a dropped execution: nobody reads the step
  HostValue result = export_outputs(vm, v, options, *code, memory, imported, step);
  finish_result(std::move(result), v, signature, options, step);
  step.returned = vm.returned();
  step.ok = true;
}

}  // namespace

Step run_step(std::string_view source, const Program* program, const RunOptions& options,
              ExecutionState* execution) {
  auto start = Clock::now();
  Step step;
  TelemetryEvent event = report_run_start(source, options, start);
  bool crashed = false;
  try {
    execute(source, program, options, step, start, execution);
    // A dropped execution: nobody reads the step, and there is no stop to
    // report (as when its frames unwind).
    if (execution && execution->dropping()) return step;
  } catch (LispError& e) {
    step.error = e.error();
  } catch (std::bad_alloc&) {
    step.error = Error{ErrorKind::MemoryLimit,
                       "out of memory: the host process could not get more memory for this run",
                       "set max_heap below the memory the host can spare, so that runs stop at "
                       "their own limit first",
                       {},
                       ""};
  } catch (std::exception& e) {
    // Never expected: a host tool or a bug. The host still gets a Step.
    crashed = true;
    step.error =
        Error{ErrorKind::RuntimeError, fmt::format("internal error: {}", e.what()), "", {}, ""};
  }
  if (!step.ok) {
    step.value = HostValue();
    step.memory = options.memory;  // a failed run changes nothing
    step.printed.clear();
  }
  auto end = Clock::now();
  // An execution's time waiting for its host is not the run's.
  auto paused = std::chrono::nanoseconds(execution ? execution->paused_ns() : 0);
  step.usage.duration_ms = std::chrono::duration<double, std::milli>(end - start - paused).count();
  report_run_end(event, options, step, end, crashed);
  return step;
}

Step run(std::string_view source, const RunOptions& options) {
  if (options.isolate) return options.isolate->run(source, options);
  return run_step(source, nullptr, options, nullptr);
}

Step run(const Program& program, const RunOptions& options) {
  // A worker compiles the source again (into its own cache of programs).
  if (options.isolate) return options.isolate->run(program.source, options);
  return run_step(program.source, &program, options, nullptr);
}

std::string_view program_source(const Program& program) {
  return program.source;
}

std::shared_ptr<const Program> compile(std::string_view source, const RunOptions& options) {
  Limits limits = compile_limits(source, options.limits);
  auto program = std::make_shared<Program>(std::string(source), limits);
  Ctx& ctx = program->ctx;
  ctx.start_clock(options.limits.compile_timeout_ms, "compilation");
  CurrentRun current(ctx);
  MemoryEntries memory = memory_entries(options.memory);
  program->code =
      compile_source(ctx, program->source, analyzer_options_for(options, memory, nullptr));
  for (const auto& fn : program->code->fns)
    for (const auto& arity : fn->arities)
      for (Value c : arity->constants)
        if (c.is_vector() || c.is_map() || c.is_set() || c.is(Type::NativeFn)) freeze(c);
  return program;
}

std::vector<std::string> validate(std::string_view source, const RunOptions& options) {
  std::vector<std::string> undefined;
  try {
    Limits limits = compile_limits(source, options.limits);
    Ctx ctx(limits);
    ctx.start_clock(options.limits.compile_timeout_ms, "compilation");
    AnalyzerOptions analyzer_options;
    MemoryEntries memory = memory_entries(options.memory);
    for (const auto& [name, _] : memory.entries)
      analyzer_options.known_globals.push_back(name);
    analyzer_options.undefined = &undefined;
    compile_source(ctx, source, analyzer_options);
  } catch (LispError& e) {
    return {e.error().describe()};
  }
  return undefined;
}

std::string disassemble_source(std::string_view source, const RunOptions& options) {
  Limits limits = compile_limits(source, options.limits);
  Ctx ctx(limits);
  return disassemble(*compile_source(ctx, source, {}));
}

}  // namespace ptc
