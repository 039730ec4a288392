#include "protocol/agent/model/wire.hpp"

namespace ptc::model {

std::string_view failure_name(Failure f) {
  switch (f) {
    case Failure::None:
      return "";
    case Failure::Timeout:
      return "timeout";
    case Failure::RateLimited:
      return "rate_limited";
    case Failure::AuthFailed:
      return "auth_failed";
    case Failure::BadRequest:
      return "bad_request";
    case Failure::ContextTooLong:
      return "context_too_long";
    case Failure::ServerError:
      return "server_error";
    case Failure::MalformedResponse:
      return "malformed_response";
    case Failure::ToolCallingUnsupported:
      return "tool_calling_unsupported";
    case Failure::ReplayMiss:
      return "replay_miss";
  }
  return "";
}

bool failure_retryable(Failure f) {
  return f == Failure::Timeout || f == Failure::RateLimited || f == Failure::ServerError;
}

}  // namespace ptc::model
