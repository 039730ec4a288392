// Revision 2026-07-28's envelope and header values (protocol/mcp/era.*).
#include "protocol/mcp/era.hpp"

#include <gtest/gtest.h>

namespace {

using ptc::HostValue;
using namespace ptc::mcp;

// The envelope is read from params._meta's JSON text.
std::string_view params_with_meta(const char* meta_json) {
  return meta_json;
}

TEST(Era, AClaimMakesAMessageModernAndItsEnvelopeIsChecked) {
  EXPECT_FALSE(read_envelope("").modern);
  EXPECT_FALSE(read_envelope("[1]").modern) << "not an object: no claim";
  EXPECT_FALSE(read_envelope("{\"io.model").modern) << "not JSON: no claim";
  EXPECT_FALSE(read_envelope(params_with_meta(R"({"progressToken": 1})")).modern);
  EXPECT_FALSE(read_envelope(
                   params_with_meta(R"({"io.modelcontextprotocol/protocolVersion": "2025-11-25"})"))
                   .modern);
  Envelope good = read_envelope(params_with_meta(
      R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}})"));
  EXPECT_TRUE(good.modern);
  EXPECT_EQ(good.issue, "");
  EXPECT_EQ(envelope_error_frame(HostValue::integer(1), good), "");
  Envelope missing = read_envelope(
      params_with_meta(R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})"));
  EXPECT_EQ(missing.issue_key, kClientCapabilitiesKey);
  EXPECT_EQ(missing.issue, "missing");
  EXPECT_NE(envelope_error_frame(HostValue::integer(1), missing).find("-32602"), std::string::npos);
  Envelope not_a_string = read_envelope(params_with_meta(
      R"({"io.modelcontextprotocol/protocolVersion": 7, "io.modelcontextprotocol/clientCapabilities": {}})"));
  EXPECT_TRUE(not_a_string.modern);
  EXPECT_EQ(not_a_string.issue_key, kProtocolVersionKey);
  Envelope bad_info = read_envelope(params_with_meta(
      R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": 1}})"));
  EXPECT_EQ(bad_info.issue_key, kClientInfoKey);
  Envelope future = read_envelope(params_with_meta(
      R"({"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}})"));
  EXPECT_TRUE(future.modern);
  std::string frame = envelope_error_frame(HostValue::integer(1), future);
  EXPECT_NE(frame.find("-32022"), std::string::npos);
  EXPECT_NE(frame.find(R"("requested":"2099-01-01")"), std::string::npos);
}

TEST(Era, TheEnvelopeNamesTheClientAndItsExtensions) {
  Envelope e = read_envelope(
      R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "extensions": {"x": 1, "io.modelcontextprotocol/tasks": {}}},
          "io.modelcontextprotocol/clientInfo": {"name": "n\u00e9", "version": "1"}})");
  EXPECT_EQ(e.issue, "");
  EXPECT_EQ(e.client_name, "n\xC3\xA9");
  EXPECT_TRUE(e.tasks);
  auto tasks = [](const char* capabilities) {
    return read_envelope(std::string(R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                         "io.modelcontextprotocol/clientCapabilities": )") +
                         capabilities + "}")
        .tasks;
  };
  EXPECT_FALSE(tasks(R"({"extensions": {"io.modelcontextprotocol/tasks": true}})"));
  EXPECT_FALSE(tasks(R"({"extensions": {}})"));
  EXPECT_FALSE(tasks("{}"));
  EXPECT_FALSE(tasks(R"({"extensions": {"io.modelcontextprotocol/tasks": {}}, "extensions": {}})"))
      << "the last of a repeated key counts";
  // A clientInfo that is not an Implementation names no client.
  Envelope unnamed = read_envelope(
      R"({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "x"}})");
  EXPECT_EQ(unnamed.client_name, "");
  EXPECT_EQ(unnamed.issue_key, kClientInfoKey);
}

TEST(Era, HeaderValuesArePlainOrBase64Sentinels) {
  EXPECT_EQ(decode_header_value("lisp_eval"), "lisp_eval");
  EXPECT_EQ(decode_header_value("=?base64?bGlzcF9ldmFs?="), "lisp_eval");
  EXPECT_EQ(decode_header_value("=?base64?w7w=?="), "\xC3\xBC");
  EXPECT_EQ(decode_header_value("=?base64?YQ==?="), "a");
  EXPECT_EQ(decode_header_value("=?base64?YWI=?="), "ab");
  EXPECT_EQ(decode_header_value("=?base64?*?="), std::nullopt);
  EXPECT_EQ(decode_header_value("=?base64?YQ=?="), std::nullopt);
  EXPECT_EQ(decode_header_value("=?base64?Y!==?="), std::nullopt);
}

}  // namespace
