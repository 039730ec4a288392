// Signatures (runtime/signature.hpp): the input's first line is parsed as a
// signature and the rest as JSON (strings written ":name" become keywords),
// which is then checked against it strictly (a run's result) and leniently (a
// tool's arguments). Properties: malformed text fails with args_error; a
// signature renders back to text that parses to the same rendering; a value
// that passes a check, with its coercions applied, passes again.
#include <string>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "runtime/signature.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;

HostValue with_keywords(const HostValue& h) {
  auto leaf = [](const HostValue& x) {
    if (x.kind() == HostValue::Kind::String && x.text().starts_with(':'))
      return HostValue::keyword(x.text().substr(1));
    return x;
  };
  return ptc::map_host_value(h, leaf, leaf);
}

void check_again(const ptc::SigType& type, const ptc::SignatureCheck& first, ptc::CheckMode mode) {
  if (!first.ok) return;
  ptc::SignatureCheck second = ptc::check_value(type, first.value, mode);
  PTC_FUZZ_CHECK(second.ok, "a checked value fails its own check: " + second.message);
  if (mode == ptc::CheckMode::Strict) PTC_FUZZ_CHECK(second.value == first.value, second.path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return -1;
  std::string_view input = ptc::fuzz::as_text(data, size);
  size_t newline = input.find('\n');
  std::string_view text = input.substr(0, newline);
  ptc::Signature sig;
  try {
    sig = ptc::parse_signature(text);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(e.error().kind == ptc::ErrorKind::ArgsError, e.error().describe());
    return 0;
  }
  std::string rendered = ptc::to_string(sig);
  try {
    ptc::Signature again = ptc::parse_signature(rendered);
    PTC_FUZZ_CHECK(ptc::to_string(again) == rendered, rendered);
  } catch (ptc::LispError& e) {
    PTC_FUZZ_CHECK(
        false, "a rendered signature does not parse: " + rendered + "\n" + e.error().describe());
  }
  if (newline == std::string_view::npos) return 0;
  HostValue value;
  try {
    value = with_keywords(ptc::parse_json(input.substr(newline + 1)));
  } catch (ptc::LispError&) {
    return 0;
  }
  ptc::SigTypePtr any = ptc::SigType::primitive(ptc::SigType::Kind::Any);
  const ptc::SigType& output = sig.output ? *sig.output : *any;
  ptc::SignatureCheck strict = ptc::check_output(sig, value);
  check_again(output, strict, ptc::CheckMode::Strict);
  ptc::SignatureCheck lenient = ptc::check_value(output, value, ptc::CheckMode::Lenient);
  check_again(output, lenient, ptc::CheckMode::Lenient);
  ptc::SignatureCheck inputs = ptc::check_inputs(sig, value);
  if (inputs.ok && !sig.inputs.empty()) {
    ptc::SignatureCheck second = ptc::check_inputs(sig, inputs.value);
    PTC_FUZZ_CHECK(second.ok, "checked arguments fail their own check: " + second.message);
  }
  return 0;
}
