// Executions from JS: start(), load() and the Execution of index.js, over
// the jobs of jobs.cpp (a job's phases run on node's pool, or in place for
// the *Sync variants). A job here may have tools the host answers itself
// (`defer`): index.js calls the JS tools of the pending calls and resumes
// with their answers by id, and hands the execution to the host once it
// waits only on deferred calls. Refused resumes and dumps (an id that is
// not pending, an execution that is done) throw the engine's error.
#include <map>
#include <set>
#include <string_view>

#include "convert.hpp"
#include "exports.hpp"
#include "jobs.hpp"
#include "options.hpp"

namespace ptc::node {

namespace {

// Throws `error` as {reason, message, ...}, which index.js makes a PtcError.
[[noreturn]] void throw_lisp(napi_env env, const Error& error) {
  napi_throw(env, error_object(env, error, nullptr));
  throw_pending();
}

// The bytes of a Buffer, a typed array or an ArrayBuffer; a string's UTF-8
// when `text` allows it. A TypeError names `what` otherwise.
std::string bytes_of(napi_env env, napi_value v, const char* what, bool text) {
  napi_valuetype t = type_of(env, v);
  if (text && t == napi_string) return string_of(env, v);
  if (t == napi_object) {
    void* data = nullptr;
    size_t length = 0;
    bool is = false;
    check(env, napi_is_typedarray(env, v, &is));
    if (is) {
      napi_typedarray_type type = napi_uint8_array;
      napi_value buffer = nullptr;
      size_t offset = 0;
      check(env, napi_get_typedarray_info(env, v, &type, &length, &data, &buffer, &offset));
      if (type != napi_uint8_array && type != napi_uint8_clamped_array && type != napi_int8_array)
        throw_type_error(env, std::string(what) + " must be a Buffer or Uint8Array");
      return std::string(static_cast<const char*>(data), length);
    }
    check(env, napi_is_arraybuffer(env, v, &is));
    if (is) {
      check(env, napi_get_arraybuffer_info(env, v, &data, &length));
      return std::string(static_cast<const char*>(data), length);
    }
    check(env, napi_is_dataview(env, v, &is));
    if (is) {
      napi_value buffer = nullptr;
      size_t offset = 0;
      check(env, napi_get_dataview_info(env, v, &length, &data, &buffer, &offset));
      return std::string(static_cast<const char*>(data), length);
    }
  }
  throw_type_error(env, std::string(what) + " must be a Buffer or Uint8Array" +
                            (text ? " or a string" : "") + ", got " + std::string(type_name(t)));
}

std::string key_of(napi_env env, napi_value v) {
  napi_valuetype t = type_of(env, v);
  if (t == napi_undefined || t == napi_null) return {};
  return bytes_of(env, v, "key", true);
}

// A new job over `program` (a source or a compile() handle) with `options`.
std::unique_ptr<Job> new_job(napi_env env, napi_value program, napi_value options) {
  auto job = std::make_unique<Job>();
  napi_valuetype t = type_of(env, program);
  if (t == napi_string) {
    job->source = string_of(env, program);
  } else if (!(job->program = program_of(env, program))) {
    throw_type_error(env, "program must be a string or a Program from compile(), got " +
                              std::string(type_name(t)));
  }
  parse_options(env, options, job->options);
  job->options.run.cancel = &job->cancel;
  return job;
}

// createExecution(program, options, defer: undefined | true | string[]) -> job
napi_value create_execution(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    std::unique_ptr<Job> job = new_job(env, argv[0], argv[1]);
    ParsedOptions& o = job->options;
    std::set<std::string, std::less<>> given(o.tools.begin(), o.tools.end());
    napi_valuetype t = type_of(env, argv[2]);
    std::vector<std::string> names;
    if (t == napi_boolean) {
      bool all = false;
      check(env, napi_get_value_bool(env, argv[2], &all));
      if (all) names.emplace_back("*");  // every tool `tools` does not give
    } else if (t != napi_undefined) {
      if (!is_array(env, argv[2]))
        throw_type_error(env, "option defer must be true or an array of tool names");
      uint32_t n = 0;
      check(env, napi_get_array_length(env, argv[2], &n));
      for (uint32_t i = 0; i < n; ++i) {
        napi_value name = nullptr;
        check(env, napi_get_element(env, argv[2], i, &name));
        if (type_of(env, name) != napi_string)
          throw_type_error(env, "option defer must be true or an array of tool names");
        std::string s = string_of(env, name);
        if (s.empty() || s == "*") throw_type_error(env, "defer: '" + s + "' is no tool name");
        if (given.contains(s))
          throw_type_error(env, "tool " + s + " is in both tools and defer: give it in one");
        names.push_back(std::move(s));
      }
    }
    for (std::string& name : names) {
      o.run.deferred_tools.push_back(name);
      o.tools.push_back(std::move(name));  // a job with tools runs as an execution
    }
    return wrap_job(env, std::move(job));
  });
}

// createLoad(snapshot: bytes, options, key?) -> job, whose first phase loads
napi_value create_load(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    auto job = std::make_unique<Job>();
    job->snapshot = bytes_of(env, argv[0], "snapshot", false);
    parse_options(env, argv[1], job->options);
    job->options.run.cancel = &job->cancel;
    job->key = key_of(env, argv[2]);
    job->phase = Job::Phase::Load;
    return wrap_job(env, std::move(job));
  });
}

void begin_load(napi_env env, Job& job) {
  if (job.started || job.phase != Job::Phase::Load)
    throw_error(env, "ptc-lisp: not a load job, or started already");
  job.started = true;
}

// loadExecution(job, onStep)
napi_value load_async(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    begin_load(env, job);
    queue(env, argv[0], job, argv[1]);
    return js_undefined(env);
  });
}

// loadExecutionSync(job) -> pending calls | result
napi_value load_sync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Job& job = job_of(env, first_argument(env, info));
    begin_load(env, job);
    execute(job);
    return outcome(env, job);
  });
}

void require_idle(napi_env env, const Job& job) {
  if (job.busy) throw_error(env, "ptc-lisp: the execution is running: await its resume first");
  if (!job.started) throw_error(env, "ptc-lisp: the execution has not started");
}

// The engine's refusal for a finished execution (which the job let go of).
[[noreturn]] void throw_done(napi_env env, std::string_view what) {
  Error error;
  error.kind = ErrorKind::ArgsError;
  error.message = "the execution is done: there is nothing to " + std::string(what);
  error.hint = "read its outcome with result";
  throw_lisp(env, error);
}

// Fills job.answers from ids[i] -> (oks[i] ? values[i] : the error message
// values[i]) and sets up the resume phase. `strict`: a value with no JSON
// form is a TypeError (the host's answers) instead of the call's failure
// (a JS tool's value). The engine's refusal (no answers, an id that is not
// pending) is thrown with its own message before anything changes.
void take_answers(napi_env env, Job& job, napi_value ids, napi_value oks, napi_value values,
                  napi_value strict_value) {
  require_idle(env, job);
  if (job.finished) throw_done(env, "resume");
  bool strict = false;
  check(env, napi_get_value_bool(env, strict_value, &strict));
  uint32_t n = 0;
  check(env, napi_get_array_length(env, ids, &n));
  std::set<std::string_view> pending_ids, approval_ids;
  for (const PendingCall& call : job.pending) {
    pending_ids.insert(call.id);
    if (call.kind == PendingCall::Kind::Approval) approval_ids.insert(call.id);
  }
  Answers answers;
  std::string unknown;
  bool has_unknown = false;
  std::optional<std::pair<std::string, Answer>> wrong_kind;  // a result for an approval, ...
  for (uint32_t i = 0; i < n; ++i) {
    napi_value id_value = nullptr;
    napi_value ok_value = nullptr;
    napi_value value = nullptr;
    check(env, napi_get_element(env, ids, i, &id_value));
    check(env, napi_get_element(env, oks, i, &ok_value));
    check(env, napi_get_element(env, values, i, &value));
    std::string id = string_of(env, id_value);
    if (!pending_ids.contains(id) && !has_unknown) {
      has_unknown = true;
      unknown = id;
    }
    std::optional<Decision> d = decision_of(env, ok_value, value);
    if (!has_unknown && !wrong_kind && d.has_value() != approval_ids.contains(id))
      wrong_kind.emplace(id, d ? Answer(*d) : Answer(ToolResult::failure("")));
    if (d) {
      answers.insert_or_assign(std::move(id), std::move(*d));
      continue;
    }
    bool ok = false;
    check(env, napi_get_value_bool(env, ok_value, &ok));
    ToolResult answer;
    if (!ok) {
      answer = ToolResult::failure(string_of(env, value));
    } else if (strict) {
      answer.value = to_host(env, value, "answer " + id);
    } else {
      std::string problem = to_host_or_message(env, value, answer.value);
      if (!problem.empty())
        answer = ToolResult::failure("the tool's value has no JSON form: " + problem);
    }
    answers.insert_or_assign(std::move(id), std::move(answer));
  }
  if (answers.empty() || has_unknown || wrong_kind) {
    // Refused by the engine before it changes anything: its error, word for word.
    Answers refused;
    if (has_unknown)
      refused.emplace(unknown, ToolResult::failure(""));
    else if (wrong_kind)
      refused.insert(std::move(*wrong_kind));
    try {
      job.execution->resume(std::move(refused));
    } catch (const LispError& e) {
      throw_lisp(env, e.error());
    }
    throw_error(env, "ptc-lisp: the engine took answers it should have refused");
  }
  job.answers = std::move(answers);
  job.phase = Job::Phase::Resume;
}

// resumeExecution(job, ids, oks, values, strict, onStep)
napi_value resume_async(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[6];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    take_answers(env, job, argv[1], argv[2], argv[3], argv[4]);
    queue(env, argv[0], job, argv[5]);
    return js_undefined(env);
  });
}

// resumeExecutionSync(job, ids, oks, values, strict) -> pending calls | result
napi_value resume_sync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[5];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    take_answers(env, job, argv[1], argv[2], argv[3], argv[4]);
    execute(job);
    return outcome(env, job);
  });
}

// cancelExecution(job) -> the result (a suspended execution ends cancelled),
// or undefined when it is done already
napi_value cancel_execution(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Job& job = job_of(env, first_argument(env, info));
    require_idle(env, job);
    if (job.finished) return js_undefined(env);
    job.phase = Job::Phase::Cancel;
    execute(job);
    return outcome(env, job);
  });
}

// dumpExecution(job, key?) -> Buffer
napi_value dump_execution(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    std::string key = key_of(env, argv[1]);
    require_idle(env, job);
    if (job.finished || !job.execution) throw_done(env, "dump");
    std::string bytes;
    try {
      bytes = job.execution->dump(key);
    } catch (const LispError& e) {
      throw_lisp(env, e.error());
    }
    napi_value out = nullptr;
    void* data = nullptr;
    check(env, napi_create_buffer_copy(env, bytes.size(), bytes.data(), &data, &out));
    return out;
  });
}

// executionHeapBytes(job) -> bytes its heaps and journal hold (0 once done)
napi_value heap_bytes_of(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Job& job = job_of(env, first_argument(env, info));
    require_idle(env, job);
    size_t bytes = job.finished || !job.execution ? 0 : job.execution->heap_bytes();
    return js_number(env, static_cast<double>(bytes));
  });
}

napi_value limits_object(napi_env env, const Limits& l) {
  auto num = [&](auto v) { return js_number(env, static_cast<double>(v)); };
  napi_value out = nullptr;
  check(env, napi_create_object(env, &out));
  napi_property_descriptor fields[] = {
      field("timeout", num(l.timeout_ms)),
      field("maxHeap", num(l.max_heap_bytes)),
      field("loopLimit", num(l.loop_limit)),
      field("maxCallDepth", num(l.max_call_depth)),
      field("maxSymbols", num(l.max_symbols)),
      field("maxProgramBytes", num(l.max_program_bytes)),
      field("maxPrintLength", num(l.max_print_length)),
      field("maxNestingDepth", num(l.max_nesting_depth)),
      field("compileTimeout", num(l.compile_timeout_ms)),
      field("maxToolCalls", l.max_tool_calls ? num(*l.max_tool_calls) : js_null(env)),
      field("maxToolCallResultBytes", num(l.max_tool_call_result_bytes)),
      field("pmapTimeout", num(l.pmap_timeout_ms)),
      field("pmapMaxConcurrency", num(l.pmap_max_concurrency)),
      field("maxParallelWorkers", num(l.max_parallel_workers)),
      field("workerMaxHeap", num(l.worker_max_heap_bytes)),
  };
  check(env, napi_define_properties(env, out, std::size(fields), fields));
  return out;
}

napi_value strings(napi_env env, const std::vector<std::string>& items) {
  napi_value out = nullptr;
  check(env, napi_create_array_with_length(env, items.size(), &out));
  for (size_t i = 0; i < items.size(); ++i)
    check(env, napi_set_element(env, out, static_cast<uint32_t>(i), js_string(env, items[i])));
  return out;
}

// inspectSnapshot(snapshot, key?) -> {engine, source, limits, tools, pending}
napi_value inspect(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    std::string bytes = bytes_of(env, argv[0], "snapshot", false);
    std::string key = key_of(env, argv[1]);
    SnapshotInfo snapshot;
    try {
      snapshot = inspect_snapshot(bytes, key);
    } catch (const LispError& e) {
      throw_lisp(env, e.error());
    }
    napi_value out = nullptr;
    check(env, napi_create_object(env, &out));
    napi_property_descriptor fields[] = {
        field("engine", js_string(env, snapshot.engine)),
        field("source", js_string(env, snapshot.source)),
        field("limits", limits_object(env, snapshot.limits)),
        field("tools", strings(env, snapshot.tools)),
        field("pending", strings(env, snapshot.pending)),
    };
    check(env, napi_define_properties(env, out, std::size(fields), fields));
    return out;
  });
}

}  // namespace

void register_executions(napi_env env, napi_value exports) {
  export_function(env, exports, "createExecution", create_execution);
  export_function(env, exports, "createLoad", create_load);
  export_function(env, exports, "loadExecution", load_async);
  export_function(env, exports, "loadExecutionSync", load_sync);
  export_function(env, exports, "resumeExecution", resume_async);
  export_function(env, exports, "resumeExecutionSync", resume_sync);
  export_function(env, exports, "cancelExecution", cancel_execution);
  export_function(env, exports, "dumpExecution", dump_execution);
  export_function(env, exports, "executionHeapBytes", heap_bytes_of);
  export_function(env, exports, "inspectSnapshot", inspect);
}

}  // namespace ptc::node
