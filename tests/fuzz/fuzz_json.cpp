// JSON: any bytes either parse (runtime/json.cpp) or fail with a parse_error;
// what parses writes back as JSON (numbers beyond double range are rejected
// when parsing, so no infinity comes out) that parses to an equal value and
// writes back to the same text.
#include <string>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return -1;
  std::string_view text = ptc::fuzz::as_text(data, size);
  ptc::HostValue value;
  try {
    value = ptc::parse_json(text);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(e.error().kind == ptc::ErrorKind::ParseError, e.error().describe());
    return 0;
  }
  std::string json;
  try {
    json = ptc::to_json(value);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(false, "parsed JSON does not write back: " + e.error().describe());
  }
  ptc::HostValue again;
  try {
    again = ptc::parse_json(json);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(false, "to_json wrote what parse_json rejects: " + e.error().describe() +
                              "\njson: " + json);
  }
  PTC_FUZZ_CHECK(again == value, json);
  std::string rewritten = ptc::to_json(again);
  PTC_FUZZ_CHECK(rewritten == json, json + "\nrewritten: " + rewritten);
  return 0;
}
