// Runs of run() and runSync(). A job is one run: its source or compiled
// program, its options and, when the run has JS tools, a ptc::Execution
// that defers every one of them. A phase (start, resume with answers, or
// cancel) runs on a thread of node's pool (napi_async_work) for run(), on
// the calling thread for runSync(); between phases the execution is
// suspended and holds no thread. After each phase the main thread gets
// either the pending tool calls (which index.js answers by calling the JS
// tools, awaiting the promises of all of them together) or the Result.
#include "jobs.hpp"

#include <utility>

#include "convert.hpp"
#include "exports.hpp"

namespace ptc::node {

namespace {

constexpr napi_type_tag kJobTag = {0x7074636c69737031ULL, 0x6a6f622d6e6f6465ULL};

}  // namespace

Step error_step(const Error& error, const RunOptions& options) {
  Step step;
  step.ok = false;
  step.error = error;
  step.memory = options.memory;
  return step;
}

std::string payload_of(const Step& step) {
  return step.ok ? protocol::render_success_from_step(step) : protocol::render_step_error(step);
}

void execute(Job& job) {
  try {
    switch (job.phase) {
      case Job::Phase::Start:
        if (job.options.tools.empty()) {
          job.step =
              job.program ? run(*job.program, job.options.run) : run(job.source, job.options.run);
        } else {
          job.execution.emplace(job.program ? start(*job.program, job.options.run)
                                            : start(job.source, job.options.run));
        }
        break;
      case Job::Phase::Resume:
        job.execution->resume(std::move(job.answers));
        break;
      case Job::Phase::Cancel:
        job.execution->cancel();
        break;
      case Job::Phase::Load:
        job.execution.emplace(load(job.snapshot, job.options.run, job.key));
        break;
    }
    job.answers.clear();
    job.pending.clear();
    if (job.execution && !job.execution->done()) {
      job.pending = job.execution->pending();
      return;
    }
  } catch (const LispError& e) {
    if (job.phase == Job::Phase::Load) {  // no execution: the snapshot is refused
      job.refused = e.error();
      return;
    }
    job.step = error_step(e.error(), job.options.run);
  } catch (const std::exception& e) {
    job.failure = e.what();
    return;
  }
  if (!job.payload_profile) return;
  job.payload = payload_of(job.step ? *job.step : job.execution->step());
}

napi_value outcome(napi_env env, Job& job) {
  if (!job.failure.empty()) {
    job.finished = true;
    throw_error(env, "ptc-lisp: " + job.failure);
  }
  if (job.refused) {
    job.finished = true;
    napi_throw(env, error_object(env, *job.refused, nullptr));
    throw_pending();
  }
  if (!job.pending.empty()) {
    return objects_array(env, job.pending, [&](const PendingCall& call) {
      std::vector<napi_property_descriptor> fields{
          field("id", js_string(env, call.id)),
          field("tool", js_string(env, call.tool)),
          field("args", to_js(env, call.args)),
      };
      // A call waiting for a person's decision says so, and where it is made.
      if (call.kind == PendingCall::Kind::Approval) {
        fields.push_back(field("kind", js_string(env, "approval")));
        fields.push_back(field("line", js_number(env, call.loc.line)));
        fields.push_back(field("column", js_number(env, call.loc.col)));
      }
      return fields;
    });
  }
  job.finished = true;
  const Step& step = job.step ? *job.step : job.execution->step();
  if (job.on_finish) job.on_finish(step);
  napi_value result = result_object(env, step, job.payload_profile ? &job.payload : nullptr);
  job.execution.reset();
  job.step.reset();
  return result;
}

napi_value wrap_job(napi_env env, std::unique_ptr<Job> job) {
  napi_value out = nullptr;
  check(env,
        napi_create_external(
            env, job.get(), [](napi_env, void* data, void*) { delete static_cast<Job*>(data); },
            nullptr, &out));
  job.release();
  check(env, napi_type_tag_object(env, out, &kJobTag));
  return out;
}

Job& job_of(napi_env env, napi_value value) {
  bool tagged = false;
  if (type_of(env, value) == napi_external)
    check(env, napi_check_object_type_tag(env, value, &kJobTag, &tagged));
  if (!tagged) throw_type_error(env, "ptc-lisp: not a run handle");
  void* data = nullptr;
  check(env, napi_get_value_external(env, value, &data));
  return *static_cast<Job*>(data);
}

std::optional<Decision> decision_of(napi_env env, napi_value ok, napi_value value) {
  if (type_of(env, ok) != napi_string) return std::nullopt;
  if (string_of(env, ok) == "approve") return Decision::approve();
  return Decision::reject(type_of(env, value) == napi_string ? string_of(env, value) : "");
}

namespace {

// createJob(program: string | ProgramHandle, options, payloadProfile?)
napi_value create_job(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    auto job = std::make_unique<Job>();
    set_up(env, argv, *job);
    return wrap_job(env, std::move(job));
  });
}

// runInPlace(program, options, payloadProfile?, attemptUs) -> Result | null
// (without a payload profile: plain_result's form)
// A run without tools, whole, on the calling thread and with no job handle
// (runSync's path, and what spares run() the trip through node's pool).
// attemptUs > 0 makes it run()'s try (RunOptions::attempt_us): a run that
// times out gives null, for index.js to run it again on the pool, where it
// has its whole timeout (the time out may have been the try's bound; a run
// without tools has no effects to repeat).
napi_value run_in_place(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    size_t argc = 4;
    napi_value argv[4];
    check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
    if (argc == 1) {  // runSync(program): no options to read, no payload, no try
      static const RunOptions kDefaults;
      // A source first: a short one is read in one call, into this buffer
      // (a program handle fails that call at once, with no exception).
      char small[256];
      size_t length = 0;
      if (napi_get_value_string_utf8(env, argv[0], small, sizeof small, &length) == napi_ok) {
        if (length + 4 < sizeof small)
          return plain_result(env, run(std::string_view(small, length), kDefaults));
        return plain_result(env, run(string_of(env, argv[0]), kDefaults));
      }
      if (const Program* program = program_in(env, argv[0]))
        return plain_result(env, run(*program, kDefaults));
    }
    for (size_t i = argc; i < 4; ++i)
      argv[i] = js_undefined(env);
    // What set_up fills, without the rest of a Job (no phases here).
    struct {
      std::string source;
      std::shared_ptr<const Program> program;
      ParsedOptions options;
      std::atomic<bool> cancel{false};
      std::optional<protocol::Profile> payload_profile;
    } in;
    set_up(env, argv, in);
    if (!in.options.tools.empty()) throw_error(env, "ptc-lisp: runInPlace takes no tools");
    double attempt_us = 0;
    if (type_of(env, argv[3]) == napi_number)
      check(env, napi_get_value_double(env, argv[3], &attempt_us));
    in.options.run.attempt_us = static_cast<uint32_t>(attempt_us);
    Step step = in.program ? run(*in.program, in.options.run) : run(in.source, in.options.run);
    if (attempt_us > 0 && !step.ok && step.error.kind == ErrorKind::Timeout) return js_null(env);
    if (!in.payload_profile) return plain_result(env, step);
    std::string payload = payload_of(step);
    return result_object(env, step, &payload);
  });
}

// Fills job.answers from the answers index.js gives, aligned with
// job.pending: oks[i] true -> values[i] is the tool's value, false -> the
// tool's error message; "approve" or "reject" (values[i] the reason) -> a
// decision on an approval.
void take_answers(napi_env env, Job& job, napi_value oks, napi_value values) {
  if (job.pending.empty()) throw_error(env, "ptc-lisp: this run waits on no tool calls");
  for (size_t i = 0; i < job.pending.size(); ++i) {
    napi_value ok_value = nullptr;
    napi_value value = nullptr;
    check(env, napi_get_element(env, oks, static_cast<uint32_t>(i), &ok_value));
    check(env, napi_get_element(env, values, static_cast<uint32_t>(i), &value));
    if (std::optional<Decision> d = decision_of(env, ok_value, value)) {
      job.answers.emplace(job.pending[i].id, std::move(*d));
      continue;
    }
    bool ok = false;
    check(env, napi_get_value_bool(env, ok_value, &ok));
    ToolResult answer;
    if (ok) {
      std::string problem = to_host_or_message(env, value, answer.value);
      if (!problem.empty())
        answer = ToolResult::failure("the tool's value has no JSON form: " + problem);
    } else {
      answer = ToolResult::failure(string_of(env, value));
    }
    job.answers.emplace(job.pending[i].id, std::move(answer));
  }
}

// Sets up the next phase from (oks, values): answers, or cancel when oks is null.
void next_phase(napi_env env, Job& job, napi_value oks, napi_value values) {
  if (!job.started || job.finished || job.busy)
    throw_error(env, "ptc-lisp: this run cannot be resumed now");
  if (type_of(env, oks) == napi_null) {
    job.phase = Job::Phase::Cancel;
  } else {
    take_answers(env, job, oks, values);
    job.phase = Job::Phase::Resume;
  }
}

void begin(napi_env env, Job& job) {
  if (job.started) throw_error(env, "ptc-lisp: this run has started already");
  job.started = true;
  job.phase = Job::Phase::Start;
}

// ---------------------------------------------------------------- run() phases on the pool

void complete(napi_env env, napi_status status, void* data) {
  Job& job = *static_cast<Job*>(data);
  napi_value callback = nullptr;
  napi_get_reference_value(env, job.callback, &callback);
  napi_delete_reference(env, job.callback);
  napi_delete_async_work(env, job.work);
  job.callback = nullptr;
  job.work = nullptr;
  job.busy = false;
  napi_ref self = job.self;
  job.self = nullptr;
  // onStep(error, pending, result)
  napi_value argv[3] = {nullptr, nullptr, nullptr};
  napi_value error = nullptr;
  try {
    if (status != napi_ok) throw_error(env, "ptc-lisp: the run's work was cancelled");
    napi_value out = outcome(env, job);
    argv[0] = js_null(env);
    bool is_array = false;
    check(env, napi_is_array(env, out, &is_array));
    argv[1] = is_array ? out : js_null(env);
    argv[2] = is_array ? js_null(env) : out;
  } catch (...) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) napi_get_and_clear_last_exception(env, &error);
    if (!error) napi_create_string_utf8(env, "ptc-lisp: internal error", NAPI_AUTO_LENGTH, &error);
    argv[0] = error;
    argv[1] = js_null(env);
    argv[2] = js_null(env);
  }
  napi_value undefined = nullptr;
  napi_get_undefined(env, &undefined);
  napi_call_function(env, undefined, callback, 3, argv, nullptr);
  napi_delete_reference(env, self);  // the job may be collected from here on
}

}  // namespace

void queue(napi_env env, napi_value job_value, Job& job, napi_value callback) {
  if (type_of(env, callback) != napi_function) throw_type_error(env, "onStep must be a function");
  napi_value name = js_string(env, "ptc-lisp.run");
  check(env,
        napi_create_async_work(
            env, nullptr, name, [](napi_env, void* data) { execute(*static_cast<Job*>(data)); },
            complete, &job, &job.work));
  check(env, napi_create_reference(env, callback, 1, &job.callback));
  check(env, napi_create_reference(env, job_value, 1, &job.self));
  job.busy = true;
  check(env, napi_queue_async_work(env, job.work));
}

namespace {

// start(job, onStep)
napi_value start_async(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    begin(env, job);
    queue(env, argv[0], job, argv[1]);
    return js_undefined(env);
  });
}

// resume(job, oks | null, values | null, onStep)
napi_value resume_async(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[4];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    next_phase(env, job, argv[1], argv[2]);
    queue(env, argv[0], job, argv[3]);
    return js_undefined(env);
  });
}

// abort(job): the running phase ends with `cancelled` (the engine checks
// the flag every few thousand reductions).
napi_value abort_job(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[1];
    arguments(env, info, argv);
    job_of(env, argv[0]).cancel.store(true);
    return js_undefined(env);
  });
}

// ---------------------------------------------------------------- runSync() phases in place

// startSync(job) -> pending calls (array) | result
napi_value start_sync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[1];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    begin(env, job);
    execute(job);
    return outcome(env, job);
  });
}

// resumeSync(job, oks | null, values | null) -> pending calls | result
napi_value resume_sync(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    Job& job = job_of(env, argv[0]);
    next_phase(env, job, argv[1], argv[2]);
    execute(job);
    return outcome(env, job);
  });
}

}  // namespace

void register_jobs(napi_env env, napi_value exports) {
  export_function(env, exports, "createJob", create_job);
  export_function(env, exports, "runInPlace", run_in_place);
  export_function(env, exports, "start", start_async);
  export_function(env, exports, "resume", resume_async);
  export_function(env, exports, "abort", abort_job);
  export_function(env, exports, "startSync", start_sync);
  export_function(env, exports, "resumeSync", resume_sync);
}

}  // namespace ptc::node
