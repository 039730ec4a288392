// The C API of include/ptc/ptc.h over the C++ API of include/ptc/ptc.hpp:
// options, runs and results, compiled programs, prepared contexts, cancel
// tokens and sessions. Every entry point runs in a guard (capi/errors.hpp):
// nothing it calls may throw into C.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "capi/json_form.hpp"

using namespace ptc;
using namespace ptc::capi;

namespace {

// ---------------------------------------------------------------- limits

constexpr const char* kLimitNames[PTC_LIMIT_COUNT] = {
    "max_heap_bytes",
    "timeout_ms",
    "loop_limit",
    "max_call_depth",
    "max_symbols",
    "max_program_bytes",
    "max_print_length",
    "max_nesting_depth",
    "compile_timeout_ms",
    "max_tool_calls",
    "max_tool_call_result_bytes",
    "pmap_timeout_ms",
    "pmap_max_concurrency",
    "max_parallel_workers",
    "worker_max_heap_bytes",
};

// Does not compile when ptc::Limits gains or loses a field: give the new
// one a ptc_limit, a name above and a case in with_limit.
[[maybe_unused]] void every_limit_has_a_ptc_limit(const Limits& limits) {
  [[maybe_unused]] const auto& [heap, timeout, loop, depth, symbols, program, print, nesting,
                                compile_timeout, tool_calls, tool_result, pmap_timeout,
                                pmap_concurrency, workers, worker_heap] = limits;
}

// Calls f(field, name) with the field of `limits` that `which` names.
template <class L, class F>
decltype(auto) with_limit(L& limits, ptc_limit which, F&& f) {
  auto index = static_cast<int>(which);
  if (index < 0 || index >= PTC_LIMIT_COUNT)
    throw InvalidArgument(fmt::format("unknown limit {}", index));
  const char* name = kLimitNames[index];
  switch (which) {
    case PTC_LIMIT_MAX_HEAP_BYTES:
      return f(limits.max_heap_bytes, name);
    case PTC_LIMIT_TIMEOUT_MS:
      return f(limits.timeout_ms, name);
    case PTC_LIMIT_LOOP_LIMIT:
      return f(limits.loop_limit, name);
    case PTC_LIMIT_MAX_CALL_DEPTH:
      return f(limits.max_call_depth, name);
    case PTC_LIMIT_MAX_SYMBOLS:
      return f(limits.max_symbols, name);
    case PTC_LIMIT_MAX_PROGRAM_BYTES:
      return f(limits.max_program_bytes, name);
    case PTC_LIMIT_MAX_PRINT_LENGTH:
      return f(limits.max_print_length, name);
    case PTC_LIMIT_MAX_NESTING_DEPTH:
      return f(limits.max_nesting_depth, name);
    case PTC_LIMIT_COMPILE_TIMEOUT_MS:
      return f(limits.compile_timeout_ms, name);
    case PTC_LIMIT_MAX_TOOL_CALLS:
      return f(limits.max_tool_calls, name);
    case PTC_LIMIT_MAX_TOOL_CALL_RESULT_BYTES:
      return f(limits.max_tool_call_result_bytes, name);
    case PTC_LIMIT_PMAP_TIMEOUT_MS:
      return f(limits.pmap_timeout_ms, name);
    case PTC_LIMIT_PMAP_MAX_CONCURRENCY:
      return f(limits.pmap_max_concurrency, name);
    case PTC_LIMIT_MAX_PARALLEL_WORKERS:
      return f(limits.max_parallel_workers, name);
    case PTC_LIMIT_WORKER_MAX_HEAP_BYTES:
      return f(limits.worker_max_heap_bytes, name);
    default:  // the range sentinels; checked above
      break;
  }
  throw InvalidArgument(fmt::format("unknown limit {}", index));
}

template <class T>
void set_limit_field(T& field, int64_t value, const char* name) {
  if (value < 0 || static_cast<uint64_t>(value) > std::numeric_limits<T>::max())
    throw InvalidArgument(fmt::format("limit {} must be between 0 and {}, got {}", name,
                                      std::numeric_limits<T>::max(), value));
  field = static_cast<T>(value);
}

void set_limit_field(std::optional<uint32_t>& field, int64_t value, const char* name) {
  if (value == -1) {
    field.reset();
    return;
  }
  uint32_t n = 0;
  set_limit_field(n, value, name);
  field = n;
}

template <class T>
int64_t limit_value(const T& field) {
  return static_cast<int64_t>(field);
}

int64_t limit_value(const std::optional<uint32_t>& field) {
  return field ? static_cast<int64_t>(*field) : -1;
}

// ---------------------------------------------------------------- runs and results

const char* text_out(const std::string& text, size_t* len) {
  if (len) *len = text.size();
  return text.c_str();
}

// A result's text, built on first request into `slot`.
template <class Make>
const char* cached_text(const ptc_result* result, std::optional<std::string> ptc_result::*slot,
                        size_t* len, Make make) {
  if (len) *len = 0;
  return guarded_ptr([&]() -> const char* {
    // The texts are a cache, not part of the value (results are documented
    // as one thread at a time). A member pointer ignores `mutable`.
    auto& r = const_cast<ptc_result&>(required(result, "result"));
    auto& text = r.*slot;
    if (!text) text = make(r.step);
    return text_out(*text, len);
  });
}

// A plain string field of a result.
template <class Field>
const char* result_text(const ptc_result* result, size_t* len, Field field) {
  if (len) *len = 0;
  return guarded_ptr(
      [&]() -> const char* { return text_out(field(required(result, "result").step), len); });
}

std::string memory_json(const HostValue& memory) {
  return memory.is_nil() ? std::string("{}") : json_text(memory);
}

}  // namespace

namespace ptc::capi {

const RunOptions& run_options(const ptc_options* options) {
  static const RunOptions defaults;
  return options ? options->run : defaults;
}

ptc_status deliver(Step step, ptc_result** out) {
  *out = new ptc_result{std::move(step), {}, {}, {}, {}, {}};
  const Step& s = (*out)->step;
  return s.ok ? PTC_OK : fail(PTC_PROGRAM_ERROR, format_error(s.error));
}

}  // namespace ptc::capi

extern "C" {

const char* ptc_version(void) {
  return build_info().version.data();  // a string literal
}

// ---------------------------------------------------------------- cancel tokens

ptc_cancel_token* ptc_cancel_token_new(void) {
  return guarded_ptr([] { return new ptc_cancel_token; });
}

void ptc_cancel_token_cancel(ptc_cancel_token* token) {
  if (token) token->flag->store(true, std::memory_order_relaxed);
}

int ptc_cancel_token_is_cancelled(const ptc_cancel_token* token) {
  return token && token->flag->load(std::memory_order_relaxed) ? 1 : 0;
}

void ptc_cancel_token_free(ptc_cancel_token* token) {
  delete token;
}

// ---------------------------------------------------------------- prepared contexts

ptc_status ptc_prepare_context(const char* json, size_t len, size_t max_bytes,
                               ptc_prepared_context** out) {
  return guarded([&] {
    out_arg(out, "out");
    required(json, "json");
    std::string_view text = text_arg(json, len, "json");
    std::shared_ptr<const PreparedContext> context;
    try {
      context = prepare_context(text, max_bytes ? max_bytes : size_t{1} << 30);
    } catch (const LispError& e) {
      throw InvalidArgument("context: " + e.error().message);
    }
    *out = new ptc_prepared_context{std::move(context)};
    return PTC_OK;
  });
}

size_t ptc_prepared_context_bytes(const ptc_prepared_context* context) {
  return context ? prepared_bytes(*context->context) : 0;
}

void ptc_prepared_context_free(ptc_prepared_context* context) {
  delete context;
}

// ---------------------------------------------------------------- options

const char* ptc_limit_name(ptc_limit limit) {
  auto index = static_cast<int>(limit);
  return index >= 0 && index < PTC_LIMIT_COUNT ? kLimitNames[index] : nullptr;
}

ptc_status ptc_limit_from_name(const char* name, ptc_limit* out) {
  return guarded([&] {
    required(name, "name");
    required(out, "out");
    std::string_view wanted = name;
    for (int i = 0; i < PTC_LIMIT_COUNT; ++i)
      if (wanted == kLimitNames[i]) {
        *out = static_cast<ptc_limit>(i);
        return PTC_OK;
      }
    throw InvalidArgument(fmt::format("unknown limit \"{}\"", wanted));
  });
}

ptc_options* ptc_options_new(void) {
  return guarded_ptr([] { return new ptc_options; });
}

void ptc_options_free(ptc_options* options) {
  delete options;
}

ptc_status ptc_options_set_context_json(ptc_options* options, const char* json, size_t len) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    if (!json) {
      o.context_text.reset();
      o.run.context_json = {};
      return PTC_OK;
    }
    auto text = std::make_shared<const std::string>(text_arg(json, len, "json"));
    json_object_arg(*text, "context");
    o.run.context = HostValue();
    o.run.context_json = *text;
    o.context_text = std::move(text);
    return PTC_OK;
  });
}

ptc_status ptc_options_set_prepared_context(ptc_options* options,
                                            const ptc_prepared_context* context) {
  return guarded([&] {
    required(options, "options").run.prepared_context = context ? context->context : nullptr;
    return PTC_OK;
  });
}

ptc_status ptc_options_set_memory_json(ptc_options* options, const char* json, size_t len) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    o.run.memory = json ? json_object_arg(text_arg(json, len, "json"), "memory") : HostValue();
    return PTC_OK;
  });
}

ptc_status ptc_options_set_history_json(ptc_options* options, const char* json, size_t len) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    std::vector<HostValue> history;
    if (json) history = json_array_arg(text_arg(json, len, "json"), "history").items();
    o.run.turn_history = std::move(history);
    return PTC_OK;
  });
}

ptc_status ptc_options_set_limit(ptc_options* options, ptc_limit limit, int64_t value) {
  return guarded([&] {
    Limits& limits = required(options, "options").run.limits;
    with_limit(limits, limit,
               [&](auto& field, const char* name) { set_limit_field(field, value, name); });
    return PTC_OK;
  });
}

ptc_status ptc_options_get_limit(const ptc_options* options, ptc_limit limit, int64_t* out) {
  return guarded([&] {
    const Limits& limits = required(options, "options").run.limits;
    required(out, "out");
    *out = with_limit(limits, limit,
                      [](const auto& field, const char*) { return limit_value(field); });
    return PTC_OK;
  });
}

ptc_status ptc_options_set_signature(ptc_options* options, const char* signature) {
  return guarded([&] {
    required(options, "options").run.signature = signature ? signature : "";
    return PTC_OK;
  });
}

ptc_status ptc_options_set_float_precision(ptc_options* options, int digits) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    if (digits < -1 || digits > 17)
      throw InvalidArgument(
          fmt::format("float precision must be between 0 and 17 (or -1 for none), got {}", digits));
    o.run.float_precision = digits == -1 ? std::nullopt : std::optional<int>(digits);
    return PTC_OK;
  });
}

ptc_status ptc_options_set_filter_context(ptc_options* options, int filter) {
  return guarded([&] {
    required(options, "options").run.filter_context = filter != 0;
    return PTC_OK;
  });
}

ptc_status ptc_options_set_display_limit(ptc_options* options, size_t limit) {
  return guarded([&] {
    required(options, "options").run.display_limit = limit;
    return PTC_OK;
  });
}

ptc_status ptc_options_set_cancel_token(ptc_options* options, ptc_cancel_token* token) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    o.cancel = token ? token->flag : nullptr;
    o.run.cancel = o.cancel.get();
    return PTC_OK;
  });
}

ptc_status ptc_options_set_isolate(ptc_options* options, ptc_worker_pool* pool) {
  return guarded([&] {
    required(options, "options").run.isolate = pool ? pool->pool : nullptr;
    return PTC_OK;
  });
}

ptc_status ptc_options_add_tool(ptc_options* options, const char* name, ptc_tool_fn fn, void* user,
                                ptc_free_fn free_user, int cacheable) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    required(name, "name");
    std::string_view tool = name;
    if (!fn) throw InvalidArgument("fn must not be NULL");
    if (tool.empty()) throw InvalidArgument("a tool name must not be empty");
    add_tool(o.run, std::string(tool), fn, user, free_user, cacheable != 0);
    return PTC_OK;
  });
}

ptc_status ptc_options_remove_tool(ptc_options* options, const char* name) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    required(name, "name");
    std::string_view tool = name;
    auto found = o.run.tools.find(tool);
    if (found == o.run.tools.end())
      throw InvalidArgument(fmt::format("there is no tool \"{}\"", tool));
    o.run.tools.erase(found);
    return PTC_OK;
  });
}

ptc_status ptc_options_defer_tool(ptc_options* options, const char* name, size_t len) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    std::string_view tool = text_arg(name, len, "name");
    if (tool.empty()) throw InvalidArgument("a tool name must not be empty");
    auto& deferred = o.run.deferred_tools;
    if (std::find(deferred.begin(), deferred.end(), tool) == deferred.end())
      deferred.emplace_back(tool);
    return PTC_OK;
  });
}

ptc_status ptc_options_add_deferred_tool(ptc_options* options, const char* name, int cacheable) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    required(name, "name");
    std::string_view tool = name;
    if (tool.empty()) throw InvalidArgument("a tool name must not be empty");
    Tool deferred;
    deferred.cacheable = cacheable != 0;
    deferred.deferred = true;
    o.run.tools.insert_or_assign(std::string(tool), std::move(deferred));
    return PTC_OK;
  });
}

// ---------------------------------------------------------------- runs

ptc_status ptc_run(const char* source, size_t len, const ptc_options* options, ptc_result** out) {
  return guarded([&] {
    out_arg(out, "out");
    std::string_view text = text_arg(source, len, "source");
    return deliver(run(text, run_options(options)), out);
  });
}

ptc_status ptc_compile(const char* source, size_t len, const ptc_options* options,
                       ptc_program** program_out, ptc_result** error_out) {
  if (error_out) *error_out = nullptr;
  return guarded([&] {
    out_arg(program_out, "program_out");
    std::string_view text = text_arg(source, len, "source");
    const RunOptions& o = run_options(options);
    std::shared_ptr<const Program> program;
    try {
      program = compile(text, o);
    } catch (const LispError& e) {
      // A failed result as ptc_run reports it: nothing ran, nothing changed.
      Step step;
      step.error = e.error();
      step.memory = o.memory;
      ptc_result* failed = nullptr;
      ptc_status status = deliver(std::move(step), &failed);
      if (error_out)
        *error_out = failed;
      else
        ptc_result_free(failed);
      return status;
    }
    *program_out = new ptc_program{std::move(program)};
    return PTC_OK;
  });
}

ptc_status ptc_program_run(const ptc_program* program, const ptc_options* options,
                           ptc_result** out) {
  return guarded([&] {
    out_arg(out, "out");
    const ptc_program& p = required(program, "program");
    return deliver(run(*p.program, run_options(options)), out);
  });
}

const char* ptc_program_source(const ptc_program* program, size_t* len) {
  if (len) *len = 0;
  return guarded_ptr([&]() -> const char* {
    std::string_view source = program_source(*required(program, "program").program);
    if (len) *len = source.size();
    return source.data();  // the Program's own std::string: NUL-terminated
  });
}

void ptc_program_free(ptc_program* program) {
  delete program;
}

// ---------------------------------------------------------------- results

int ptc_result_ok(const ptc_result* result) {
  return result && result->step.ok ? 1 : 0;
}

const char* ptc_result_value_json(const ptc_result* result, size_t* len) {
  return cached_text(result, &ptc_result::value_json, len,
                     [](const Step& s) { return json_text(s.value); });
}

const char* ptc_result_printed(const ptc_result* result, size_t* len) {
  return result_text(result, len, [](const Step& s) -> const std::string& { return s.printed; });
}

size_t ptc_result_prints_count(const ptc_result* result) {
  return result ? result->step.prints.size() : 0;
}

const char* ptc_result_print(const ptc_result* result, size_t index, size_t* len) {
  return result_text(result, len, [&](const Step& s) -> const std::string& {
    if (index >= s.prints.size())
      throw InvalidArgument(fmt::format("print {} is out of range: the run printed {} lines", index,
                                        s.prints.size()));
    return s.prints[index];
  });
}

const char* ptc_result_memory_json(const ptc_result* result, size_t* len) {
  return cached_text(result, &ptc_result::memory_json, len,
                     [](const Step& s) { return memory_json(s.memory); });
}

const char* ptc_result_tool_calls_json(const ptc_result* result, size_t* len) {
  return cached_text(result, &ptc_result::tool_calls_json, len, tool_calls_json);
}

const char* ptc_result_error_reason(const ptc_result* result) {
  if (!result || result->step.ok) return nullptr;
  return reason_name(result->step.error.kind).data();  // a string literal
}

const char* ptc_result_error_message(const ptc_result* result, size_t* len) {
  return result_text(result, len,
                     [](const Step& s) -> const std::string& { return s.error.message; });
}

const char* ptc_result_error_hint(const ptc_result* result, size_t* len) {
  return result_text(result, len, [](const Step& s) -> const std::string& { return s.error.hint; });
}

uint32_t ptc_result_error_line(const ptc_result* result) {
  return result && !result->step.ok ? result->step.error.loc.line : 0;
}

uint32_t ptc_result_error_column(const ptc_result* result) {
  return result && !result->step.ok ? result->step.error.loc.col : 0;
}

const char* ptc_result_error_text(const ptc_result* result, size_t* len) {
  return cached_text(result, &ptc_result::error_text, len,
                     [](const Step& s) { return s.ok ? std::string() : format_error(s.error); });
}

const char* ptc_result_json(const ptc_result* result, size_t* len) {
  return cached_text(result, &ptc_result::json, len, step_json);
}

void ptc_result_free(ptc_result* result) {
  delete result;
}

// ---------------------------------------------------------------- sessions

ptc_status ptc_session_new(const ptc_options* options, size_t history_depth, ptc_session** out) {
  return guarded([&] {
    out_arg(out, "out");
    static const ptc_options defaults;
    *out = new ptc_session(options ? *options : defaults, history_depth);
    return PTC_OK;
  });
}

ptc_status ptc_session_eval(ptc_session* session, const char* source, size_t len,
                            ptc_result** out) {
  return guarded([&] {
    out_arg(out, "out");
    ptc_session& s = required(session, "session");
    std::string_view text = text_arg(source, len, "source");
    return deliver(s.session.eval(text), out);
  });
}

ptc_status ptc_session_reset(ptc_session* session) {
  return guarded([&] {
    required(session, "session").session.reset();
    return PTC_OK;
  });
}

const char* ptc_session_memory_json(ptc_session* session, size_t* len) {
  if (len) *len = 0;
  return guarded_ptr([&]() -> const char* {
    ptc_session& s = required(session, "session");
    s.memory_json = memory_json(s.session.memory());
    return text_out(*s.memory_json, len);
  });
}

void ptc_session_free(ptc_session* session) {
  delete session;
}

}  // extern "C"
