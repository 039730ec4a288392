// lisp_eval's output_schema (protocol/mcp/output_schema.hpp): the input's
// first line is a JSON Schema, the rest a JSON value (strings written ":name"
// become keywords, as a program's keywords). The schema goes through
// signature_from_schema and through check_eval_args as the `output_schema`
// argument of a call; the value is made the result of a run (`data/v`) and
// answered as lisp_eval answers it (eval_result: check_output, `validated`)
// in each response profile. Properties: a schema is refused with a message
// naming where (`output_schema...`), and check_eval_args accepts exactly the
// schemas signature_from_schema converts; a value that matches matches again
// after its coercions; the answer is a CallToolResult that writes as JSON,
// an error exactly when the value does not match or has no JSON form.
#include <string>

#include "include/ptc/ptc.hpp"
#include "protocol/lisp_eval/tool.hpp"
#include "protocol/mcp/lisp_eval_tool.hpp"
#include "protocol/mcp/output_schema.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/signature.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using K = HostValue::Kind;
namespace mcp = ptc::mcp;

using ptc::host::str;

HostValue with_keywords(const HostValue& h) {
  auto leaf = [](const HostValue& x) {
    if (x.kind() == K::String && x.text().starts_with(':'))
      return HostValue::keyword(x.text().substr(1));
    return x;
  };
  return ptc::map_host_value(h, leaf, leaf);
}

bool is_error(const HostValue& result) {
  const HostValue* e = result.get("isError");
  return e && e->kind() == K::Bool && e->as_bool();
}

std::string describe(const HostValue& v) {
  try {
    return ptc::to_json(v);
  } catch (ptc::LispError&) {
    return ptc::format_value(v);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return -1;
  std::string_view input = ptc::fuzz::as_text(data, size);
  size_t newline = input.find('\n');
  HostValue schema;
  try {
    schema = ptc::parse_json(input.substr(0, newline));
  } catch (ptc::LispError&) {
    return 0;
  }
  std::string error;
  std::optional<ptc::Signature> sig = mcp::signature_from_schema(schema, &error);
  ptc::fuzz::debug("signature", sig ? sig->text : error);
  if (!sig) {
    PTC_FUZZ_CHECK(error.starts_with("output_schema"), error);
  } else {
    PTC_FUZZ_CHECK(sig->output != nullptr && sig->text == ptc::to_string(*sig->output), sig->text);
  }

  mcp::ServerConfig config;
  HostValue args =
      HostValue::map({{str("program"), str("data/v")}, {str("output_schema"), schema}});
  mcp::EvalArgs eval;
  std::optional<HostValue> refused = mcp::check_eval_args(args, config, {}, &eval);
  bool accepted = schema.is_nil() || (schema.kind() == K::Map && sig);
  PTC_FUZZ_CHECK(!refused == accepted,
                 describe(schema) + (refused ? "\nrefused: " + describe(*refused) : ""));
  if (refused || !sig || newline == std::string_view::npos) return 0;

  HostValue value;
  try {
    value = with_keywords(ptc::parse_json(input.substr(newline + 1)));
  } catch (ptc::LispError&) {
    return 0;
  }
  ptc::SignatureCheck check = ptc::check_output(*sig, value);
  if (check.ok) {
    ptc::SignatureCheck again = ptc::check_output(*sig, check.value);
    PTC_FUZZ_CHECK(again.ok, "a checked value fails its own check: " + again.message);
  }

  // The value as a program's result, answered as lisp_eval answers it.
  ptc::RunOptions options;
  options.limits = ptc::fuzz::tight_limits();
  options.context = HostValue::map({{str("v"), value}});
  ptc::Step step = ptc::run(eval.program, options);
  if (!step.ok) {
    // Only a value too large for the limits fails to come back.
    PTC_FUZZ_CHECK(step.error.kind == ptc::ErrorKind::MemoryLimit ||
                       step.error.kind == ptc::ErrorKind::Timeout,
                   ptc::format_error(step.error));
    return 0;
  }
  // A match is also a value JSON can hold ("a" and :a in one map cannot).
  ptc::SignatureCheck checked = ptc::check_output(*sig, step.value);
  bool matches = checked.ok && ptc::protocol::to_json_value(checked.value).ok;
  for (mcp::ResponseProfile profile : {mcp::ResponseProfile::Slim, mcp::ResponseProfile::Structured,
                                       mcp::ResponseProfile::Debug}) {
    config.response_profile = profile;
    HostValue result = mcp::eval_result(step, eval, config);
    std::string json;
    try {
      json = ptc::to_json(result);
    } catch (ptc::LispError& e) {
      PTC_FUZZ_CHECK(false, "an answer does not write as JSON: " + e.error().describe());
    }
    ptc::fuzz::debug("answer", json);
    PTC_FUZZ_CHECK(is_error(result) == !matches, json);
  }
  return 0;
}
