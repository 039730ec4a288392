// What the HTTP transport reads from a JSON-RPC body before the server does
// (the method and the id, to find the session and to answer by itself), and
// the few JSON-RPC frames it writes itself: timeouts, refusals, the busy
// answer of the per-session cap, and the cancellation it sends the server.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptc::mcp {

struct RpcPeek {
  bool object = false;           // the body is a JSON object whose members could be read
  std::string method;            // "" when absent or not a string
  bool has_id = false;           // an "id" member is present
  std::string id_json = "null";  // the id as the client wrote it (a string or number), else null
  // For revision 2026-07-28, which the headers must mirror: params._meta
  // (when an object) as the client wrote it, and the string members the
  // Mcp-Name header mirrors (params.name, params.uri, params.taskId).
  std::string meta_json;
  std::optional<std::string> name, uri, task_id;
  // The member Mcp-Name mirrors for `method` (tools/call: name, tasks/get:
  // taskId, ...); nullptr for a method without one, or the member's value
  // (nullopt when absent or not a string).
  const std::optional<std::string>* mcp_name_source() const;
};

// Reads the top-level members of `body` (simdjson On Demand: the values it
// does not need are skipped, not decoded; a leading byte order mark is
// ignored, as the server's parser ignores it). May grow body's capacity (the
// parser's padding), never its contents. Nothing here is authoritative:
// the server parses the message again and answers what is wrong with it.
RpcPeek peek_rpc(std::string& body);

// True when a frame the server sends is a notification (its first member
// other than "jsonrpc" is "method"): a request's Peer may be handed
// notifications/message after logging/setLevel, and over plain JSON replies
// they have nowhere to go. Looks at the first members only.
bool rpc_frame_is_notification(std::string_view frame);

// True when a reply frame has a "result" member (not an error).
bool rpc_reply_is_result(std::string_view frame);
// The code of an error reply ({"error": {"code": ...}}); 0 for anything else.
int rpc_reply_error_code(std::string_view frame);

// {"jsonrpc":"2.0","id":<id_json>,"error":{"code":code,"message":message}}
std::string rpc_error_frame(std::string_view id_json, int code, std::string_view message);
// {"jsonrpc":"2.0","id":<id_json>,"result":<result_json>}
std::string rpc_result_frame(std::string_view id_json, std::string_view result_json);
// notifications/cancelled for one request id, with a reason.
std::string rpc_cancel_notification(std::string_view id_json, std::string_view reason);

}  // namespace ptc::mcp
