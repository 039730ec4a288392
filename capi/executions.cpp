// Executions through the C API: ptc_start / ptc_load hand out a
// ptc_execution over a ptc::Execution; pending calls go out as JSON and
// answers come in as JSON; dump's bytes go out in a buffer the caller frees.
// Every entry point runs in a guard (capi/errors.hpp).
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "capi/json_form.hpp"

using namespace ptc;
using namespace ptc::capi;

namespace {

// "message; hint": the C++ error's whole advice in one line.
std::string with_hint(const Error& e) {
  return e.hint.empty() ? e.message : fmt::format("{}; {}", e.message, e.hint);
}

// Runs `call`; a refusal (args_error: the execution is left unchanged)
// becomes PTC_INVALID_ARGUMENT with the message and its hint.
template <class Call>
decltype(auto) refusing_bad_arguments(Call call) {
  try {
    return call();
  } catch (const LispError& err) {
    if (err.error().kind != ErrorKind::ArgsError) throw;
    throw InvalidArgument(with_hint(err.error()));
  }
}

// {"value": v} or {"error": "message"}, or for an approval {"approve": true}
// or {"reject": "reason"}. The value comes from the same parser (json_arg)
// that ptc_tool_reply_set_result_json reads a callback's text with, so an
// answer means what the same text from a callback would.
Answer answer_arg(const std::string& id, const HostValue& answer) {
  if (answer.kind() != HostValue::Kind::Map)
    throw InvalidArgument(
        fmt::format("answers: the answer to \"{}\" must be an object, {{\"value\": ...}} or "
                    "{{\"error\": \"message\"}} (an approval: {{\"approve\": true}} or "
                    "{{\"reject\": \"reason\"}}), got {}",
                    id, json_kind_name(answer.kind())));
  const HostValue* value = answer.get("value");
  const HostValue* error = answer.get("error");
  const HostValue* approve = answer.get("approve");
  const HostValue* reject = answer.get("reject");
  if (answer.size() != 1 || (!value && !error && !approve && !reject))
    throw InvalidArgument(
        fmt::format("answers: the answer to \"{}\" must have exactly one key, \"value\" or "
                    "\"error\" (an approval: \"approve\" or \"reject\")",
                    id));
  if (value) return ToolResult::success(*value);
  if (approve) {
    if (approve->kind() != HostValue::Kind::Bool || !approve->as_bool())
      throw InvalidArgument(fmt::format(
          "answers: \"approve\" of \"{}\" must be true (to reject: {{\"reject\": \"reason\"}})",
          id));
    return Decision::approve();
  }
  if (reject) {
    if (reject->kind() != HostValue::Kind::String)
      throw InvalidArgument(fmt::format(
          "answers: \"reject\" of \"{}\" must be a string (the person's reason), got {}", id,
          json_kind_name(reject->kind())));
    return Decision::reject(reject->text());
  }
  if (error->kind() != HostValue::Kind::String)
    throw InvalidArgument(
        fmt::format("answers: the error of \"{}\" must be a string (the message), got {}", id,
                    json_kind_name(error->kind())));
  return ToolResult::failure(error->text());
}

Answers answers_arg(std::string_view json) {
  HostValue doc = json_object_arg(json, "answers");
  Answers answers;
  const auto& items = doc.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& id = items[i].text();  // JSON keys are strings
    answers.insert_or_assign(id, answer_arg(id, items[i + 1]));
  }
  return answers;
}

// Executions wait in this process's memory: options that carry a worker
// pool are refused before anything starts (ptc::start would say so in C++
// terms).
void refuse_isolation(const ptc_options* options) {
  if (options && options->run.isolate)
    throw InvalidArgument(
        "executions (ptc_start, ptc_start_compiled, ptc_load) cannot run isolated: clear the "
        "options' worker pool with ptc_options_set_isolate(options, NULL), or use ptc_run");
}

// Starts or loads an execution into *out. An execution whose fiber finds no
// memory for its stack is out of memory, as any allocation.
template <class Make>
ptc_status hand_out(const ptc_options* options, ptc_execution** out, Make make) {
  try {
    *out = new ptc_execution(options ? options->cancel : nullptr, make());
  } catch (const LispError& e) {
    if (e.error().kind != ErrorKind::MemoryLimit) throw;
    return fail(PTC_OUT_OF_MEMORY, with_hint(e.error()));
  }
  return PTC_OK;
}

}  // namespace

extern "C" {

ptc_status ptc_start(const char* source, size_t len, const ptc_options* options,
                     ptc_execution** out) {
  return guarded([&] {
    out_arg(out, "out");
    std::string_view text = text_arg(source, len, "source");
    refuse_isolation(options);
    return hand_out(options, out, [&] { return start(text, run_options(options)); });
  });
}

ptc_status ptc_start_compiled(const ptc_program* program, const ptc_options* options,
                              ptc_execution** out) {
  return guarded([&] {
    out_arg(out, "out");
    const ptc_program& p = required(program, "program");
    refuse_isolation(options);
    return hand_out(options, out, [&] { return start(*p.program, run_options(options)); });
  });
}

int ptc_execution_done(const ptc_execution* execution) {
  try {
    return !execution || execution->execution.done() ? 1 : 0;
  } catch (...) {  // a lock that failed: nothing known, so nothing to wait on
    return 1;
  }
}

const char* ptc_execution_pending_json(const ptc_execution* execution, size_t* len) {
  if (len) *len = 0;
  return guarded_ptr([&]() -> const char* {
    const ptc_execution& e = required(execution, "execution");
    std::lock_guard lock(e.mutex);
    if (!e.pending_json) e.pending_json = pending_calls_json(e.execution.pending());
    if (len) *len = e.pending_json->size();
    return e.pending_json->c_str();
  });
}

ptc_status ptc_resume(ptc_execution* execution, const char* answers_json, size_t len) {
  return guarded([&] {
    ptc_execution& e = required(execution, "execution");
    Answers answers = answers_arg(text_arg(answers_json, len, "answers_json"));
    std::lock_guard lock(e.mutex);
    refusing_bad_arguments([&] { e.execution.resume(std::move(answers)); });
    e.pending_json.reset();
    return PTC_OK;
  });
}

ptc_status ptc_execution_result(const ptc_execution* execution, ptc_result** out) {
  return guarded([&] {
    out_arg(out, "out");
    const ptc_execution& e = required(execution, "execution");
    // A finished execution's Step no longer changes: a copy is handed out.
    Step step = refusing_bad_arguments([&] { return e.execution.step(); });
    return deliver(std::move(step), out);
  });
}

ptc_status ptc_execution_cancel(ptc_execution* execution) {
  return guarded([&] {
    ptc_execution& e = required(execution, "execution");
    std::lock_guard lock(e.mutex);
    e.pending_json.reset();
    e.execution.cancel();
    return PTC_OK;
  });
}

size_t ptc_execution_heap_bytes(const ptc_execution* execution) {
  try {
    return execution ? execution->execution.heap_bytes() : 0;
  } catch (...) {
    return 0;
  }
}

ptc_status ptc_execution_dump(const ptc_execution* execution, const char* key, size_t key_len,
                              char** bytes, size_t* len) {
  if (len) *len = 0;
  return guarded([&] {
    out_arg(bytes, "bytes");
    required(len, "len");
    const ptc_execution& e = required(execution, "execution");
    std::string_view k = text_arg(key, key_len, "key");
    std::string snapshot = refusing_bad_arguments([&] { return e.execution.dump(k); });
    // malloc'd, so that ptc_bytes_free needs no size and a host's buffer
    // never meets C++'s allocator.
    char* buffer = static_cast<char*>(std::malloc(snapshot.size() ? snapshot.size() : 1));
    if (!buffer) throw std::bad_alloc();
    std::memcpy(buffer, snapshot.data(), snapshot.size());
    *bytes = buffer;
    *len = snapshot.size();
    return PTC_OK;
  });
}

void ptc_bytes_free(char* bytes) {
  std::free(bytes);
}

ptc_status ptc_load(const char* bytes, size_t len, const ptc_options* options, const char* key,
                    size_t key_len, ptc_execution** out) {
  return guarded([&] {
    out_arg(out, "out");
    if (len == PTC_NTS)
      throw InvalidArgument("len must be the snapshot's length: its bytes may contain NUL");
    std::string_view snapshot = text_arg(bytes, len, "bytes");
    std::string_view k = text_arg(key, key_len, "key");
    refuse_isolation(options);
    try {
      return hand_out(options, out, [&] { return load(snapshot, run_options(options), k); });
    } catch (const LispError& err) {
      ErrorKind kind = err.error().kind;
      if (kind != ErrorKind::SnapshotError && kind != ErrorKind::SnapshotDivergence &&
          kind != ErrorKind::ArgsError)
        throw;
      throw InvalidArgument(fmt::format("{}: {}", reason_name(kind), with_hint(err.error())));
    }
  });
}

void ptc_execution_free(ptc_execution* execution) {
  delete execution;
}

}  // extern "C"
