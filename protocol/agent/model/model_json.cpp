#include "protocol/agent/model/model_json.hpp"
#include "runtime/host_builders.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace ptc::model {

namespace {

using K = HostValue::Kind;

using host::str;

HostValue tokens_of(const protocol::TokenCounts& t) {
  return HostValue::map({{str("input"), HostValue::integer(t.input)},
                         {str("output"), HostValue::integer(t.output)},
                         {str("cached"), HostValue::integer(t.cache_read)}});
}

}  // namespace

ModelOptions model_options_from_json(const HostValue& json, const std::string& at,
                                     std::string* spec) {
  auto bad = [&](const std::string& field, const char* what) {
    throw std::invalid_argument(fmt::format("{}.{}: expected {}", at, field, what));
  };
  if (json.kind() == K::String) {  // the spec alone
    *spec = json.text();
    return {};
  }
  if (json.kind() != K::Map) throw std::invalid_argument(at + ": expected an object or a string");
  ModelOptions o;
  auto text = [&](const char* field, std::string& out) {
    if (const HostValue* v = json.get(field); v && !v->is_nil()) {
      if (v->kind() != K::String) bad(field, "a string");
      out = v->text();
    }
  };
  auto number = [&](const char* field, double lo, double hi) -> std::optional<double> {
    const HostValue* v = json.get(field);
    if (!v || v->is_nil()) return std::nullopt;
    double d = v->kind() == K::Int     ? static_cast<double>(v->as_int())
               : v->kind() == K::Float ? v->as_float()
                                       : NAN;
    if (!(d >= lo && d <= hi)) bad(field, fmt::format("a number from {} to {}", lo, hi).c_str());
    return d;
  };
  auto integer = [&](const char* field, int64_t lo, int64_t hi) -> std::optional<int64_t> {
    const HostValue* v = json.get(field);
    if (!v || v->is_nil()) return std::nullopt;
    if (v->kind() != K::Int || v->as_int() < lo || v->as_int() > hi)
      bad(field, fmt::format("an integer from {} to {}", lo, hi).c_str());
    return v->as_int();
  };
  text("spec", *spec);
  if (spec->empty()) bad("spec", "a model such as \"openai:gpt-4.1-mini\"");
  text("base_url", o.base_url);
  text("api_key_env", o.api_key_env);
  text("api_key_file", o.api_key_file);
  text("record", o.record_path);
  text("replay", o.replay_path);
  text("ca_file", o.ca_file);
  o.temperature = number("temperature", 0, 2);
  if (auto n = integer("max_tokens", 1, 1'000'000)) o.max_tokens = *n;
  o.seed = integer("seed", INT64_MIN, INT64_MAX);
  if (auto n = integer("request_timeout_ms", 1, 3'600'000)) {
    o.timeout = std::chrono::milliseconds(*n);
    o.connect_timeout = std::min(o.connect_timeout, o.timeout);
  }
  if (auto n = integer("retries", 0, 20)) o.max_retries = static_cast<int>(*n);
  o.price_in = number("price_in", 0, 1e6);
  o.price_out = number("price_out", 0, 1e6);
  if (auto n = integer("max_response_bytes", 1024, int64_t{1} << 32))
    o.max_response_bytes = static_cast<size_t>(*n);
  return o;
}

HostValue usage_json(const ModelUsage& u) {
  std::vector<HostValue> per;
  for (const protocol::TokenCounts& t : u.per_call)
    per.push_back(tokens_of(t));
  std::vector<std::pair<HostValue, HostValue>> f{
      {str("calls"), HostValue::integer(u.calls)},
      {str("retries"), HostValue::integer(u.retries)},
      {str("input"), HostValue::integer(u.tokens.input)},
      {str("output"), HostValue::integer(u.tokens.output)},
      {str("cached"), HostValue::integer(u.tokens.cache_read)},
      {str("per_call"), HostValue::vector(std::move(per))},
  };
  if (u.cost) f.emplace_back(str("cost"), HostValue::floating(*u.cost));
  return HostValue::map(std::move(f));
}

}  // namespace ptc::model
