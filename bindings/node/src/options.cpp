#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "convert.hpp"
#include "exports.hpp"

namespace ptc::node {

namespace {

double number_of(napi_env env, napi_value v, std::string_view name) {
  napi_valuetype t = type_of(env, v);
  if (t != napi_number)
    throw_type_error(
        env, "option " + std::string(name) + " must be a number, got " + std::string(type_name(t)));
  double d = 0;
  check(env, napi_get_value_double(env, v, &d));
  return d;
}

// A whole number in [min, max].
template <class T>
T integer_of(napi_env env, napi_value v, std::string_view name, double min = 0) {
  double d = number_of(env, v, name);
  // 2^digits, the first whole number past T's range, is exact as a double;
  // T's max is not for 64 bits (it rounds up to 2^64, which no T holds).
  const double past_max = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (!std::isfinite(d) || std::trunc(d) != d || d < min || d >= past_max)
    throw_range_error(env, "option " + std::string(name) + " must be an integer from " +
                               std::to_string(static_cast<long long>(min)) + " to " +
                               std::to_string(std::numeric_limits<T>::max()) + ", got " +
                               std::to_string(d));
  return static_cast<T>(d);
}

std::string text_of(napi_env env, napi_value v, std::string_view name) {
  napi_valuetype t = type_of(env, v);
  if (t != napi_string)
    throw_type_error(
        env, "option " + std::string(name) + " must be a string, got " + std::string(type_name(t)));
  return string_of(env, v);
}

bool bool_of(napi_env env, napi_value v, std::string_view name) {
  napi_valuetype t = type_of(env, v);
  if (t != napi_boolean)
    throw_type_error(env, "option " + std::string(name) + " must be a boolean, got " +
                              std::string(type_name(t)));
  bool b = false;
  check(env, napi_get_value_bool(env, v, &b));
  return b;
}

// An object (not an array) converted to a host map.
HostValue map_of(napi_env env, napi_value v, std::string_view name) {
  require_object(env, v, "option " + std::string(name));
  return to_host(env, v, std::string(name));
}

void tools_of(napi_env env, napi_value v, ParsedOptions& out) {
  require_object(env, v, "option tools", " of name -> function");
  for_each_property(env, v, [&](napi_value key, napi_value fn) {
    std::string name = string_of(env, key);
    napi_valuetype ft = type_of(env, fn);
    if (ft != napi_function)
      throw_type_error(env,
                       "tool " + name + " must be a function, got " + std::string(type_name(ft)));
    if (name.empty()) throw_type_error(env, "a tool name must not be empty");
    out.run.deferred_tools.push_back(name);
    out.tools.push_back(std::move(name));
  });
}

using Setter = void (*)(napi_env, napi_value, ParsedOptions&);

struct OptionEntry {
  std::string_view name;
  Setter set;
};

#define PTC_LIMIT(js, field, T)                            \
  OptionEntry {                                            \
    js, [](napi_env env, napi_value v, ParsedOptions& o) { \
      o.run.limits.field = integer_of<T>(env, v, js);      \
    }                                                      \
  }

const OptionEntry kOptions[] = {
    {"context",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       if (auto prepared = prepared_context_of(env, v)) {  // prepareContext()'s, read in place
         o.run.prepared_context = std::move(prepared);
         return;
       }
       if (type_of(env, v) == napi_string) {  // JSON text, parsed straight into the run
         o.context_json = std::make_shared<const std::string>(string_of(env, v));
         o.run.context_json = *o.context_json;
         return;
       }
       o.run.context = map_of(env, v, "context");
     }},
    {"memory",
     [](napi_env env, napi_value v, ParsedOptions& o) { o.run.memory = map_of(env, v, "memory"); }},
    {"history",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       if (!is_array(env, v))
         throw_type_error(env, "option history must be an array of earlier results");
       HostValue h = to_host(env, v, "history");
       o.run.turn_history = h.items();
     }},
    {"tools", [](napi_env env, napi_value v, ParsedOptions& o) { tools_of(env, v, o); }},
    {"approval",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       if (!is_array(env, v))
         throw_type_error(env, "option approval must be an array of tool names");
       HostValue names = to_host(env, v, "approval");
       for (const HostValue& n : names.items()) {
         if (n.kind() != HostValue::Kind::String || n.text().empty())
           throw_type_error(env, "option approval must be an array of tool names");
         o.approval.push_back(n.text());
       }
     }},
    {"approver", [](napi_env, napi_value, ParsedOptions&) {}},  // index.js's
    {"signal", [](napi_env, napi_value, ParsedOptions&) {}},    // index.js's
    {"signature", [](napi_env env, napi_value v,
                     ParsedOptions& o) { o.run.signature = text_of(env, v, "signature"); }},
    {"floatPrecision",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       o.run.float_precision = integer_of<int>(env, v, "floatPrecision");
     }},
    {"filterContext",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       o.run.filter_context = bool_of(env, v, "filterContext");
     }},
    {"displayLimit",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       o.run.display_limit = integer_of<uint32_t>(env, v, "displayLimit");
     }},
    {"budget",
     [](napi_env env, napi_value v, ParsedOptions& o) { o.run.budget = map_of(env, v, "budget"); }},
    {"isolate",  // index.js gives a pool's handle (true: the default pool's), or false
     [](napi_env env, napi_value v, ParsedOptions& o) {
       if (type_of(env, v) == napi_boolean && !bool_of(env, v, "isolate")) return;
       o.run.isolate = worker_pool_of(env, v);
       if (!o.run.isolate)
         throw_type_error(env, "option isolate must be a WorkerPool, true or false, got " +
                                   std::string(type_name(type_of(env, v))));
     }},
    PTC_LIMIT("timeout", timeout_ms, uint32_t),
    PTC_LIMIT("maxHeap", max_heap_bytes, uint64_t),
    PTC_LIMIT("loopLimit", loop_limit, uint32_t),
    PTC_LIMIT("maxCallDepth", max_call_depth, uint32_t),
    PTC_LIMIT("maxSymbols", max_symbols, uint32_t),
    PTC_LIMIT("maxProgramBytes", max_program_bytes, uint64_t),
    PTC_LIMIT("maxPrintLength", max_print_length, uint32_t),
    PTC_LIMIT("maxNestingDepth", max_nesting_depth, uint32_t),
    PTC_LIMIT("compileTimeout", compile_timeout_ms, uint32_t),
    PTC_LIMIT("maxToolCallResultBytes", max_tool_call_result_bytes, uint64_t),
    PTC_LIMIT("pmapTimeout", pmap_timeout_ms, uint32_t),
    PTC_LIMIT("pmapMaxConcurrency", pmap_max_concurrency, uint32_t),
    PTC_LIMIT("maxParallelWorkers", max_parallel_workers, uint32_t),
    PTC_LIMIT("workerMaxHeap", worker_max_heap_bytes, uint64_t),
    {"maxToolCalls",
     [](napi_env env, napi_value v, ParsedOptions& o) {
       if (type_of(env, v) == napi_null) {  // unlimited
         o.run.limits.max_tool_calls.reset();
         return;
       }
       o.run.limits.max_tool_calls = integer_of<uint32_t>(env, v, "maxToolCalls");
     }},
};

#undef PTC_LIMIT

// Does not compile when ptc::Limits gains or loses a field: give it a
// camelCase option above (and in index.d.ts).
[[maybe_unused]] void every_limit_has_an_option(const Limits& limits) {
  [[maybe_unused]] const auto& [heap, timeout, loop, depth, symbols, program, print, nesting,
                                compile_timeout, tool_calls, tool_result, pmap_timeout,
                                pmap_concurrency, workers, worker_heap] = limits;
}

}  // namespace

void parse_options(napi_env env, napi_value options, ParsedOptions& out) {
  napi_valuetype t = type_of(env, options);
  if (t == napi_undefined || t == napi_null) return;
  require_object(env, options, "options");
  for_each_property(env, options, [&](napi_value key, napi_value value) {
    std::string name = string_of(env, key);
    const OptionEntry* entry = nullptr;
    for (const OptionEntry& e : kOptions)
      if (e.name == name) entry = &e;
    if (!entry) throw_type_error(env, "unknown option '" + name + "'");
    if (type_of(env, value) == napi_undefined) return;  // as if absent
    entry->set(env, value, out);
  });
  // The JS tools named in `approval` wait for a person's decision first.
  for (const std::string& name : out.approval) {
    if (std::find(out.tools.begin(), out.tools.end(), name) == out.tools.end())
      throw_type_error(env, "option approval names " + name + ", which option tools does not give");
    out.run.tools[name] = Tool{nullptr, false, false, true, true};
  }
}

}  // namespace ptc::node
