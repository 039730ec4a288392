// MCP JSON-RPC: the input is up to 8 frames, one per line (as the stdio
// transport reads them: a trailing \r dropped, blank lines skipped), each
// handed to Server::handle of a server built by make_server with sessions on
// and tight limits (50 ms programs, 1 MB heaps, 4 sessions), after an
// initialize of its own. Calls run inline (the Runner calls them at once), so
// every reply has been sent when handle returns. A fresh server per input keeps
// inputs independent (no sessions, drain or log subscriptions carried over).
// `$SID` in a frame stands for the id of the newest session the server
// started in this input (session ids are random), so that lisp_session_eval,
// _inspect, _forget and _close reach a live session; `$TID` likewise the id
// of the newest task (calls of a client declaring the tasks extension become
// tasks at once here, --task-after-ms 0). A first line
// `;profile structured` or `;profile debug` picks the response profile (slim
// otherwise).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/server.hpp"
#include "runtime/error.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using K = HostValue::Kind;
namespace mcp = ptc::mcp;

constexpr size_t kMaxFrames = 8;
constexpr std::string_view kInitialize =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}})";

mcp::ServerConfig config_for(mcp::ResponseProfile profile) {
  mcp::ServerConfig c;
  c.max_program_bytes = 4096;
  c.max_context_bytes = 16384;
  c.max_concurrent_calls = 1;
  c.program_timeout_ms = 50;
  c.program_memory_limit_bytes = 1 << 20;
  c.response_profile = profile;
  c.log_level = mcp::LogLevel::Error;
  c.sessions = true;
  c.max_sessions = 4;
  c.max_sessions_per_owner = 2;
  c.max_session_memory_bytes = 16384;
  c.max_session_bindings = 20;
  c.task_after_ms = 0;
  c.max_tasks = 4;
  return c;
}

// Keeps what the server sends during one handle() call.
class Collector final : public mcp::Peer {
 public:
  void send(std::string frame) override { frames.push_back(std::move(frame)); }
  std::vector<std::string> frames;
};

const HostValue* member(const HostValue* v, std::string_view key) {
  return v ? v->get(key) : nullptr;
}

// Checks one frame the server sent; returns whether it is a reply (not a
// notification) and notes a started session's id in *session, a created
// task's in *task.
bool check_sent(const std::string& frame, std::string_view request, const mcp::RpcMessage& m,
                std::string* session, std::string* task) {
  HostValue v;
  try {
    v = ptc::parse_json(frame);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(
        false, "the server sent what is not JSON: " + e.error().describe() + "\nframe: " + frame);
  }
  PTC_FUZZ_CHECK(v.kind() == K::Map, frame);
  const HostValue* version = v.get("jsonrpc");
  PTC_FUZZ_CHECK(version && version->kind() == K::String && version->text() == "2.0", frame);
  bool notification = v.get("method") && !v.get("id");
  PTC_FUZZ_CHECK(mcp::rpc_frame_is_notification(frame) == notification, frame);
  if (notification) return false;
  const HostValue* id = v.get("id");
  const HostValue* result = v.get("result");
  const HostValue* error = v.get("error");
  PTC_FUZZ_CHECK(id && (result != nullptr) != (error != nullptr), frame);
  PTC_FUZZ_CHECK(mcp::rpc_reply_is_result(frame) == (result != nullptr), frame);
  // Ids come back as the client sent them.
  PTC_FUZZ_CHECK(*id == m.id, std::string(request) + "\nreply: " + frame);
  if (error) {
    const HostValue* code = error->get("code");
    PTC_FUZZ_CHECK(code && code->kind() == K::Int, frame);
    // -32603 is a fault of the server, never the answer to a client's input.
    PTC_FUZZ_CHECK(code->as_int() != mcp::kInternalError,
                   std::string(request) + "\nreply: " + frame);
    return true;
  }
  // A task handle: only for a modern tools/call of a client that declared
  // the extension, with a fresh 128-bit id.
  if (const HostValue* kind = member(result, "resultType");
      kind && kind->kind() == K::String && kind->text() == "task") {
    PTC_FUZZ_CHECK(m.method == "tools/call" && m.envelope.modern && m.envelope.tasks,
                   std::string(request) + "\nreply: " + frame);
    const HostValue* task_id = member(result, "taskId");
    PTC_FUZZ_CHECK(task_id && task_id->kind() == K::String && task_id->text().size() == 32, frame);
    *task = task_id->text();
    return true;
  }
  const HostValue* structured = member(result, "structuredContent");
  const HostValue* reason = member(structured, "reason");
  const HostValue* message = member(structured, "message");
  // A tool that threw: the dispatcher's last resort, a fault of the server.
  if (reason && reason->kind() == K::String && reason->text() == "runtime_error" && message &&
      message->kind() == K::String)
    PTC_FUZZ_CHECK(!message->text().starts_with("internal error:"),
                   std::string(request) + "\nreply: " + frame);
  const HostValue* sid = member(structured, "session_id");
  if (sid && sid->kind() == K::String && member(structured, "limits")) *session = sid->text();
  return true;
}

// `map` with `key` set to `value` (replaced where it is, else added).
HostValue with_entry(const HostValue& map, std::string_view key, HostValue value) {
  std::vector<std::pair<HostValue, HostValue>> entries;
  bool replaced = false;
  const auto& items = map.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    bool here = items[i].kind() == K::String && items[i].text() == key;
    entries.emplace_back(items[i], here ? value : items[i + 1]);
    replaced = replaced || here;
  }
  if (!replaced) entries.emplace_back(HostValue::string(std::string(key)), std::move(value));
  return HostValue::map(std::move(entries));
}

// `map` without `key` (every occurrence).
HostValue without_entry(const HostValue& map, std::string_view key) {
  std::vector<std::pair<HostValue, HostValue>> entries;
  const auto& items = map.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    if (!(items[i].kind() == K::String && items[i].text() == key))
      entries.emplace_back(items[i], items[i + 1]);
  return HostValue::map(std::move(entries));
}

// parse_message reads a frame as parse_json does: it accepts the same JSON,
// and its params, with the context taken out as text put back, are the
// frame's params without _meta; the envelope it read from _meta is the one
// read from _meta's text (the HTTP transport's way).
void check_parse(std::string_view frame, const mcp::RpcMessage& m) {
  HostValue whole;
  bool parses = true;
  try {
    whole = ptc::parse_json(frame);
  } catch (ptc::LispError&) {
    parses = false;
  }
  bool parse_error = m.kind == mcp::RpcMessage::Kind::Invalid && m.error_code == mcp::kParseError;
  PTC_FUZZ_CHECK(parses != parse_error, std::string(frame) + "\n" + m.error_message);
  if (m.kind != mcp::RpcMessage::Kind::Request && m.kind != mcp::RpcMessage::Kind::Notification)
    return;
  HostValue params = m.params;
  if (!m.context_json.empty()) {
    const HostValue* args = params.get("arguments");
    PTC_FUZZ_CHECK(args && args->kind() == K::Map, frame);
    params = with_entry(params, "arguments",
                        with_entry(*args, "context", ptc::parse_json(m.context_json)));
  }
  const HostValue* frame_params = whole.get("params");
  HostValue expected_params = frame_params ? *frame_params : HostValue();
  const HostValue* meta = expected_params.kind() == K::Map ? expected_params.get("_meta") : nullptr;
  mcp::Envelope from_text = mcp::read_envelope(meta ? ptc::to_json(*meta) : std::string());
  const mcp::Envelope& e = m.envelope;
  PTC_FUZZ_CHECK(e.modern == from_text.modern && e.version == from_text.version &&
                     e.issue_key == from_text.issue_key && e.issue == from_text.issue &&
                     e.client_name == from_text.client_name && e.tasks == from_text.tasks,
                 std::string(frame) + "\nthe envelope read from _meta differs from its text's");
  if (meta) expected_params = without_entry(expected_params, "_meta");
  const HostValue* expected = frame_params ? &expected_params : nullptr;
  PTC_FUZZ_CHECK(params == (expected ? *expected : HostValue()),
                 std::string(frame) + "\nparams as parse_message reads them: " +
                     ptc::format_value(params) + "\ncontext: " + m.context_json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = [] {
    mcp::set_log_level(mcp::LogLevel::Error);
    return true;
  }();
  (void)quiet;
  if (size > 16384) return -1;
  std::string_view input = ptc::fuzz::as_text(data, size);
  mcp::ResponseProfile profile = mcp::ResponseProfile::Slim;
  if (input.starts_with(";profile ")) {
    std::string_view first = input.substr(0, input.find('\n'));
    if (first.ends_with("structured")) profile = mcp::ResponseProfile::Structured;
    if (first.ends_with("debug")) profile = mcp::ResponseProfile::Debug;
    input.remove_prefix(std::min(input.size(), first.size() + 1));
  }

  std::unique_ptr<mcp::Server> server = mcp::make_server(config_for(profile));
  const mcp::Caller caller{"stdio", "stdio", false};
  const mcp::Server::Runner inline_runner = [](std::function<void()> call) { call(); };
  auto peer = std::make_shared<Collector>();
  std::string session, task;

  auto send = [&](std::string_view frame) {
    peer->frames.clear();
    mcp::Handled handled = server->handle(frame, peer, caller, inline_runner);
    mcp::RpcMessage m = mcp::parse_message(frame);
    ptc::fuzz::debug("frame", frame);
    size_t replies = 0;
    for (const std::string& sent : peer->frames) {
      ptc::fuzz::debug("sent", sent);
      if (check_sent(sent, frame, m, &session, &task)) ++replies;
    }
    // Exactly one reply to a request or an invalid frame, none otherwise.
    bool answered =
        m.kind == mcp::RpcMessage::Kind::Request || m.kind == mcp::RpcMessage::Kind::Invalid;
    PTC_FUZZ_CHECK(replies == (answered ? 1u : 0u), frame);
    PTC_FUZZ_CHECK((handled == mcp::Handled::Reply) == answered, frame);
    // The context taken out of a tools/call as text is JSON the server can
    // read again (tools that take it as a host tree parse it).
    if (!m.context_json.empty()) {
      try {
        ptc::parse_json(m.context_json);
      } catch (ptc::LispError& e) {
        PTC_FUZZ_CHECK(false, "extracted context does not parse: " + e.error().describe() +
                                  "\ncontext: " + m.context_json);
      }
    }
    check_parse(frame, m);
  };

  send(kInitialize);
  size_t frames = 0;
  while (!input.empty() && frames < kMaxFrames) {
    size_t nl = input.find('\n');
    std::string line(input.substr(0, nl));
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    for (auto [marker, value] : {std::pair{std::string_view("$SID"), &session},
                                 std::pair{std::string_view("$TID"), &task}})
      if (!value->empty())
        for (size_t at = line.find(marker); at != std::string::npos;
             at = line.find(marker, at + value->size()))
          line.replace(at, marker.size(), *value);
    send(line);
    ++frames;
  }
  return 0;
}
