// What the model providers' readers make of a reply (untrusted: whatever a
// server, a proxy or the network hands back): the first byte picks the
// reader (mod 4: OpenAI answer, OpenAI error, Anthropic answer, Anthropic
// error), an error's status is the next two bytes (big-endian, mod 600),
// the rest is the body. Properties: no reader throws; a failure has a
// message, valid UTF-8 (it goes on into JSON), and a response marked
// failed; an error reader never says None nor malformed_response; a
// successful answer's tool calls have a name and arguments that are an
// object (no args_error), none, or say why not, its token counts are not
// negative, and it goes back into a conversation as both request bodies,
// which are JSON.
#include <cstdint>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/agent/model/anthropic_wire.hpp"
#include "protocol/agent/model/openai_wire.hpp"
#include "runtime/strings.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using ptc::model::Failure;
using ptc::model::WireAnswer;
namespace protocol = ptc::protocol;

void check_failed(const WireAnswer& a, std::string_view body) {
  PTC_FUZZ_CHECK(!a.message.empty(), body);
  PTC_FUZZ_CHECK(ptc::is_valid_utf8(a.message), a.message);
  PTC_FUZZ_CHECK(!a.response.ok, body);
  PTC_FUZZ_CHECK(!ptc::model::failure_name(a.failure).empty(), body);
}

// The answer as the next request carries it: the assistant's message, each
// call answered by a tool message. Both bodies build and are JSON.
void check_resent(const WireAnswer& a) {
  protocol::LlmRequest request;
  request.system = "s";
  request.messages.push_back(protocol::ChatMessage{"user", "q", {}, ""});
  request.messages.push_back(
      protocol::ChatMessage{"assistant", a.response.content, a.response.tool_calls, ""});
  for (const protocol::ToolCallRequest& call : a.response.tool_calls)
    request.messages.push_back(protocol::ChatMessage{"tool", "r", {}, call.id});
  ptc::model::WireParams params;
  params.model = "m";
  std::string openai, anthropic;
  try {
    openai = ptc::model::openai_request_body(request, params);
    anthropic = ptc::model::anthropic_request_body(request, params);
  } catch (const std::exception& e) {
    ptc::fuzz::property_failed("an answer goes back into a request", e.what());
  }
  for (const std::string& text : {openai, anthropic}) {
    try {
      (void)ptc::parse_json(text);
    } catch (const ptc::LispError&) {
      ptc::fuzz::property_failed("a request body is JSON", text);
    }
  }
}

void check_answer(const WireAnswer& a, std::string_view body) {
  if (a.failure != Failure::None) {
    check_failed(a, body);
    return;
  }
  PTC_FUZZ_CHECK(a.response.ok, body);
  for (const protocol::ToolCallRequest& call : a.response.tool_calls) {
    PTC_FUZZ_CHECK(!call.name.empty(), body);
    bool is_map = call.args.kind() == HostValue::Kind::Map;
    PTC_FUZZ_CHECK(
        is_map ? call.args_error.empty() : call.args.is_nil() || !call.args_error.empty(),
        call.raw_arguments + " / " + call.args_error);
  }
  if (a.response.tokens) {
    const protocol::TokenCounts& t = *a.response.tokens;
    PTC_FUZZ_CHECK(t.input >= 0 && t.output >= 0 && t.cache_read >= 0 && t.cache_creation >= 0,
                   body);
  }
  check_resent(a);
}

void check_error(const WireAnswer& a, std::string_view body) {
  PTC_FUZZ_CHECK(a.failure != Failure::None && a.failure != Failure::MalformedResponse &&
                     a.failure != Failure::ReplayMiss,
                 body);
  check_failed(a, body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 65536) return -1;
  int reader = data[0] % 4;
  bool is_error = reader == 1 || reader == 3;
  size_t header = is_error ? 3 : 1;
  if (size < header) return -1;
  int status = is_error ? ((data[1] << 8) | data[2]) % 600 : 200;
  std::string_view body = ptc::fuzz::as_text(data + header, size - header);
  try {
    switch (reader) {
      case 0:
        check_answer(ptc::model::openai_parse_answer(body), body);
        break;
      case 1:
        check_error(ptc::model::openai_parse_error(status, body), body);
        break;
      case 2:
        check_answer(ptc::model::anthropic_parse_answer(body), body);
        break;
      default:
        check_error(ptc::model::anthropic_parse_error(status, body), body);
        break;
    }
  } catch (const std::exception& e) {
    ptc::fuzz::property_failed("a reader never throws", e.what());
  }
  return 0;
}
