// What upstream MCP servers and their config give us: an upstreams file
// (with every environment variable set to one secret), an HTTP response as
// it arrives, an SSE body and the tools/call results in it. Nothing may
// crash or hang, and the secret never shows in an error about the file or in
// redacted reply text. The first byte picks the part; the rest is its input.
#include <string>

#include "include/ptc/error.hpp"
#include "include/ptc/ptc.hpp"
#include "protocol/net/http_reply.hpp"
#include "protocol/net/sse_events.hpp"
#include "protocol/upstream/config.hpp"
#include "protocol/upstream/reply_decoding.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

constexpr const char* kSecret = "fuzz-secret-7f3a9c";

const char* every_variable_is_the_secret(const char*) {
  return kSecret;
}

void check_config(std::string_view json) {
  ptc::upstream::UpstreamsConfig config;
  std::string error =
      ptc::upstream::parse_upstreams(json, "fuzz.json", config, every_variable_is_the_secret);
  if (!error.empty()) {
    // (Text of the file itself may be quoted back, so only a file that does
    // not spell the secret out can show whether a resolved value leaked.)
    if (json.find(kSecret) == std::string_view::npos)
      PTC_FUZZ_CHECK(error.find(kSecret) == std::string::npos, "the secret in an error: " + error);
    return;
  }
  if (config.redactor.empty()) return;
  std::string text = std::string("token=") + kSecret + ";" + kSecret;
  PTC_FUZZ_CHECK(config.redactor.redact(text).find(kSecret) == std::string::npos,
                 "a credential survives redaction");
}

void check_reply(std::string_view body) {
  ptc::upstream::Redactor redactor;
  redactor.add(kSecret);
  for (const std::string& event : ptc::net::sse_event_data(body)) {
    PTC_FUZZ_CHECK(event.size() <= body.size(), "an event longer than the body");
    ptc::HostValue message;
    try {
      message = ptc::parse_json(event);
    } catch (const ptc::LispError&) {
      continue;
    }
    const ptc::HostValue* result = message.get("result");
    if (!result || result->kind() != ptc::HostValue::Kind::Map) continue;
    std::string text;
    ptc::HostValue payload = ptc::upstream::tool_payload(*result, &text);
    PTC_FUZZ_CHECK(redactor.redact(text).find(kSecret) == std::string::npos,
                   "the secret survives redaction");
    (void)ptc::format_value(payload, 20, nullptr, 4096);
  }
}

void check_http(std::string_view bytes) {
  ptc::net::HttpReply reply = ptc::net::parse_http_reply(bytes, 7);
  PTC_FUZZ_CHECK(reply.body.size() <= bytes.size(), "a body longer than the response");
  if (reply.content_length && !reply.chunked)
    PTC_FUZZ_CHECK(reply.body.size() <= *reply.content_length, "a body past its Content-Length");
  PTC_FUZZ_CHECK(reply.status >= 0 && reply.status <= 999, "a status outside 0..999");
  // A kept-alive connection reads the next reply from where this one ends.
  PTC_FUZZ_CHECK(reply.length <= bytes.size(), "a response longer than the bytes");
  if (reply.length)
    PTC_FUZZ_CHECK(
        reply.complete &&
            ptc::net::parse_http_reply(bytes.substr(0, reply.length), 7).length == reply.length,
        "a response length that its own bytes do not give");
  // Every prefix is a response still arriving: never complete before the
  // bytes that complete it, and parsing it must not fail either.
  ptc::net::HttpReply shorter = ptc::net::parse_http_reply(bytes.substr(0, bytes.size() / 2), 7);
  if (shorter.complete && !shorter.event_stream && !reply.chunked)
    PTC_FUZZ_CHECK(reply.complete, "complete on a prefix, not on the whole");
  // The client reads a reply as it arrives: in pieces it must come to the
  // same as in one.
  ptc::net::HttpReplyReader reader(7);
  for (size_t at = 0; at < bytes.size(); at += 7)
    reader.append(bytes.substr(at, 7));
  const ptc::net::HttpReply& piecewise = reader.reply();
  PTC_FUZZ_CHECK(piecewise.complete == reply.complete && piecewise.body == reply.body &&
                     piecewise.length == reply.length && piecewise.status == reply.status &&
                     piecewise.headers == reply.headers,
                 "read in pieces, the reply differs from read whole");
  check_reply(reply.body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 65536) return -1;
  std::string_view rest = ptc::fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      check_config(rest);
      break;
    case 1:
      check_reply(rest);
      break;
    default:
      check_http(rest);
  }
  return 0;
}
