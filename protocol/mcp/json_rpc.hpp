// JSON-RPC 2.0 messages: reading one frame into a request, notification or
// response (or the error that answers it), and writing replies. Ids are kept
// exactly as the client sent them (a string or a number).
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/era.hpp"

namespace ptc::mcp {

// The standard error codes (and -32000, the server's own).
enum RpcCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerError = -32000,
};

struct RpcMessage {
  enum class Kind {
    Request,       // method and id
    Notification,  // method, no id
    Response,      // result or error with an id (the client answering us): ignored
    Invalid,       // not a JSON-RPC message: answer error_code/error_message
  };
  Kind kind = Kind::Invalid;
  HostValue id;  // nil for notifications (and when the frame had no usable id)
  std::string method;
  HostValue params;  // nil when absent
  // params.arguments.context of a tools/call, as JSON text, taken out of
  // params (it may be large, and a run reads it straight from the text).
  std::string context_json;
  // params._meta, read as the revision 2026-07-28 envelope and taken out of
  // params (no host tree is built for it).
  Envelope envelope;
  int error_code = 0;
  std::string error_message;
};

// Never throws. Not JSON -> Invalid with kParseError; JSON that is not a
// request object (an array, no "jsonrpc": "2.0", a method that is not a
// string, an id that is not a string/number/null) -> Invalid with
// kInvalidRequest (and the id when it could be read).
RpcMessage parse_message(std::string_view frame);

std::string result_frame(const HostValue& id, const HostValue& result);
std::string error_frame(const HostValue& id, int code, std::string_view message,
                        const HostValue& data = HostValue());
std::string notification_frame(std::string_view method, const HostValue& params);

// An id as text, for keys and logs ("7", "\"abc\"").
std::string id_key(const HostValue& id);

}  // namespace ptc::mcp
