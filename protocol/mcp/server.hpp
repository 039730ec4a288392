// The MCP server's dispatcher: JSON-RPC 2.0 messages in, replies out, tools
// behind a global non-queueing gate. Transports (stdio, HTTP) only frame
// bytes: they hand each message to Server::handle with the Peer its replies
// go to, and the Caller it comes from. Calls of gated tools run on worker
// threads, so replies may come out of order and from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"

namespace ptc::mcp {

// Where the replies of one connection (stdio) or one request (HTTP) go.
// send() is called from any thread, at most once per request id; it must not
// block for long (copy the frame out and return).
class Peer {
 public:
  virtual ~Peer() = default;
  virtual void send(std::string frame) = 0;  // one JSON-RPC message, no trailing newline
};

// Who a message comes from.
struct Caller {
  std::string owner;       // scopes sessions: "stdio", or a digest of the HTTP credentials
  std::string connection;  // in-flight ids are unique per connection (stdio process, MCP session)
  bool reply_when_cancelled = false;  // HTTP: a cancelled call is answered with reason cancelled
};

// What a tool call gets besides its arguments.
struct ToolEnv {
  const Caller& caller;
  const std::atomic<bool>& cancel;  // raised by notifications/cancelled, EOF, DELETE, drain
  const ServerConfig& config;
};

// A tool the server offers. Its result is an MCP CallToolResult object
// ({"content": [...], "isError": bool, "structuredContent": {...}}).
class McpTool {
 public:
  virtual ~McpTool() = default;
  virtual const std::string& name() const = 0;
  // {"name", "description", "inputSchema", "annotations"[, "outputSchema"]}
  virtual HostValue definition() const = 0;
  // Gated tools run on a worker thread and take a slot (busy when none is
  // free); the others answer on the transport's thread at once.
  virtual bool gated() const { return true; }
  // Checks the arguments before the call takes a slot; a result to answer
  // with at once (an args_error), or nullopt to go on.
  virtual std::optional<HostValue> precheck(const HostValue& args, const Caller& caller) const {
    (void)args;
    (void)caller;
    return std::nullopt;
  }
  virtual HostValue call(const HostValue& args, const ToolEnv& env) = 0;
};

// How Server::handle disposed of a message.
enum class Handled {
  Reply,    // a reply was or will be sent to the peer
  NoReply,  // a notification or a response: nothing will be sent (HTTP: 202)
};

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();  // cancels every call and waits for the workers
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Tools are added before the first message; tools/list lists them in order.
  void add_tool(std::unique_ptr<McpTool> tool);

  // One JSON-RPC message (a JSON text, at most max_frame_bytes). Never throws.
  Handled handle(std::string_view frame, const std::shared_ptr<Peer>& peer, const Caller& caller);
  // The same, with the transport choosing where a gated call runs: `run` is
  // given the call (once it holds a slot) and must run it, on this thread or
  // another (the stdio transport runs it here and hands reading to another
  // thread, which saves a thread hand-off on the call's path).
  using Runner = std::function<void(std::function<void()> call)>;
  Handled handle(std::string_view frame, const std::shared_ptr<Peer>& peer, const Caller& caller,
                 const Runner& run);
  // A frame the transport could not take (too large, not UTF-8): a -32700
  // error with id null is sent to the peer.
  void reject_frame(const std::shared_ptr<Peer>& peer, std::string_view why);

  // Cancels the calls of one connection (it closed) or of everything.
  void cancel_connection(std::string_view connection);
  void cancel_all();
  // Drain: new tool calls are answered with reason shutting_down; true once
  // no call is in flight (waits up to `grace`).
  void begin_drain();
  bool wait_idle(std::chrono::milliseconds grace);

  bool draining() const;
  size_t in_flight() const;
  uint32_t capacity() const;
  const ServerConfig& config() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The standard server: lisp_eval, and the lisp_session_* tools with --sessions.
std::unique_ptr<Server> make_server(const ServerConfig& config);

}  // namespace ptc::mcp
