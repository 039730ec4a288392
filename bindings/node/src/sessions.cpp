// Session of index.js: ptc::Session's REPL over runs, whose evals are jobs
// of jobs.cpp (off the main thread, tools as JS functions). The session
// keeps its memory and history as the engine's values, as ptc::Session
// does, so functions a program defines carry to the next eval (they would
// not through JS, where they are their printed form). Each eval's job copies
// the session's options, memory and history when it is made; when it ends,
// on the main thread, a successful run's memory becomes the session's and
// its value *1 (ptc::Session::eval, word for word); a failed run changes
// neither. index.js runs one eval at a time.
#include <cmath>

#include "convert.hpp"
#include "exports.hpp"
#include "jobs.hpp"
#include "options.hpp"

namespace ptc::node {

namespace {

constexpr napi_type_tag kSessionTag = {0x7074636c69737031ULL, 0x73657373696f6e21ULL};

struct SessionState {
  ParsedOptions options;  // options.run.memory and turn_history are the session's
  size_t depth = 3;
};

using SessionHolder = std::shared_ptr<SessionState>;

SessionState& session_of(napi_env env, napi_value value, SessionHolder* holder = nullptr) {
  bool tagged = false;
  if (type_of(env, value) == napi_external)
    check(env, napi_check_object_type_tag(env, value, &kSessionTag, &tagged));
  if (!tagged) throw_type_error(env, "ptc-lisp: not a Session handle");
  void* data = nullptr;
  check(env, napi_get_value_external(env, value, &data));
  SessionHolder& h = *static_cast<SessionHolder*>(data);
  if (holder) *holder = h;
  return *h;
}

// createSession(options, historyDepth) -> session
napi_value create_session(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    auto state = std::make_shared<SessionState>();
    parse_options(env, argv[0], state->options);
    double depth = 3;
    if (type_of(env, argv[1]) != napi_undefined) {
      if (type_of(env, argv[1]) != napi_number)
        throw_type_error(env, "option historyDepth must be a number");
      check(env, napi_get_value_double(env, argv[1], &depth));
      if (!std::isfinite(depth) || std::trunc(depth) != depth || depth < 0 || depth > 1e6)
        throw_range_error(env, "option historyDepth must be an integer from 0 to 1000000");
    }
    state->depth = static_cast<size_t>(depth);
    auto holder = std::make_unique<SessionHolder>(std::move(state));
    napi_value out = nullptr;
    check(env, napi_create_external(
                   env, holder.get(),
                   [](napi_env, void* data, void*) { delete static_cast<SessionHolder*>(data); },
                   nullptr, &out));
    holder.release();
    check(env, napi_type_tag_object(env, out, &kSessionTag));
    return out;
  });
}

// sessionJob(session, program: string | ProgramHandle) -> a job for
// start/startSync whose end updates the session
napi_value session_job(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    SessionHolder session;
    SessionState& state = session_of(env, argv[0], &session);
    auto job = std::make_unique<Job>();
    napi_valuetype t = type_of(env, argv[1]);
    if (t == napi_string) {
      job->source = string_of(env, argv[1]);
    } else if (!(job->program = program_of(env, argv[1]))) {
      throw_type_error(env, "program must be a string or a Program from compile(), got " +
                                std::string(type_name(t)));
    }
    job->options = state.options;
    job->options.run.cancel = &job->cancel;
    job->on_finish = [session = std::move(session)](const Step& step) {
      if (!step.ok) return;
      RunOptions& options = session->options.run;
      options.memory = step.memory;
      auto& history = options.turn_history;
      history.push_back(step.value);
      if (history.size() > session->depth)
        history.erase(history.begin(), history.end() - static_cast<ptrdiff_t>(session->depth));
    };
    return wrap_job(env, std::move(job));
  });
}

// sessionMemory(session) -> the memory as JS data ({} when empty)
napi_value memory_of(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    const HostValue& memory = session_of(env, first_argument(env, info)).options.run.memory;
    if (memory.is_nil()) {
      napi_value out = nullptr;
      check(env, napi_create_object(env, &out));
      return out;
    }
    return to_js(env, memory);
  });
}

// sessionHistory(session) -> [*3 ... *1] as JS data, oldest first
napi_value history_of(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    const auto& history = session_of(env, first_argument(env, info)).options.run.turn_history;
    napi_value out = nullptr;
    check(env, napi_create_array_with_length(env, history.size(), &out));
    for (size_t i = 0; i < history.size(); ++i)
      check(env, napi_set_element(env, out, static_cast<uint32_t>(i), to_js(env, history[i])));
    return out;
  });
}

// sessionReset(session): no memory, no history (ptc::Session::reset)
napi_value reset(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    RunOptions& options = session_of(env, first_argument(env, info)).options.run;
    options.memory = HostValue();
    options.turn_history.clear();
    return js_undefined(env);
  });
}

}  // namespace

void register_sessions(napi_env env, napi_value exports) {
  export_function(env, exports, "createSession", create_session);
  export_function(env, exports, "sessionJob", session_job);
  export_function(env, exports, "sessionMemory", memory_of);
  export_function(env, exports, "sessionHistory", history_of);
  export_function(env, exports, "sessionReset", reset);
}

}  // namespace ptc::node
