#include "cli/agent_model.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "protocol/agent/model/wire.hpp"

namespace ptc::cli {

namespace {

std::optional<double> number(const std::string& text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace

std::optional<int64_t> integer(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

const char* const kModelFlagsHelp =
    "  --model SPEC          openai:MODEL, openai-compat:MODEL (with --base-url) or\n"
    "                        anthropic:MODEL\n"
    "  --base-url URL        the provider's base (openai: before /chat/completions,\n"
    "                        anthropic: before /v1/messages); plain http only to loopback\n"
    "  --api-key-env NAME    read the key from $NAME (default OPENAI_API_KEY or\n"
    "                        ANTHROPIC_API_KEY; openai-compat sends none unless given)\n"
    "  --api-key-file FILE   read the key from FILE\n"
    "  --temperature T  --max-tokens N (default 4096)  --seed N (OpenAI formats)\n"
    "  --request-timeout MS  per model request (default 120000)\n"
    "  --retries N           retries of a timeout, 429, 5xx or dropped connection, with\n"
    "                        exponential backoff and jitter, Retry-After honoured (default 3)\n"
    "  --price-in USD --price-out USD   per million input / output tokens: adds the cost\n"
    "  --record FILE.jsonl   write every request (no secrets) and its reply\n"
    "  --replay FILE.jsonl   answer every request from a recording; no network\n"
    "  --ca-file FILE        https: trust these CA certificates instead of the system's\n"
    "  --max-response-bytes N   refuse a larger answer before decoding it (default 8 MiB)\n";

bool read_model_flag(const std::vector<std::string>& args, size_t& i, ModelFlags& out,
                     std::string* error) {
  static const char* const kFlags[] = {
      "--model",      "--base-url", "--api-key-env",     "--api-key-file", "--temperature",
      "--max-tokens", "--seed",     "--request-timeout", "--retries",      "--price-in",
      "--price-out",  "--record",   "--replay",          "--ca-file",      "--max-response-bytes"};
  const std::string& flag = args[i];
  bool known = false;
  for (const char* f : kFlags)
    known = known || flag == f;
  if (!known) return false;
  if (i + 1 >= args.size()) {
    *error = flag + " needs a value";
    return true;
  }
  const std::string& v = args[++i];
  ModelOptions& o = out.options;
  auto bad = [&](const char* what) { *error = fmt::format("{} '{}': expected {}", flag, v, what); };
  if (flag == "--model") {
    out.spec = v;
  } else if (flag == "--base-url") {
    o.base_url = v;
  } else if (flag == "--api-key-env") {
    o.api_key_env = v;
  } else if (flag == "--api-key-file") {
    o.api_key_file = v;
  } else if (flag == "--record") {
    o.record_path = v;
  } else if (flag == "--replay") {
    o.replay_path = v;
  } else if (flag == "--ca-file") {
    o.ca_file = v;
  } else if (flag == "--temperature") {
    auto t = number(v);
    if (!t || *t < 0 || *t > 2) return bad("a number from 0 to 2"), true;
    o.temperature = *t;
  } else if (flag == "--max-tokens") {
    auto n = integer(v);
    if (!n || *n < 1) return bad("a positive integer"), true;
    o.max_tokens = *n;
  } else if (flag == "--seed") {
    auto n = integer(v);
    if (!n) return bad("an integer"), true;
    o.seed = *n;
  } else if (flag == "--request-timeout") {
    auto n = integer(v);
    if (!n || *n < 1) return bad("milliseconds, at least 1"), true;
    o.timeout = std::chrono::milliseconds(*n);
    o.connect_timeout = std::min(o.connect_timeout, o.timeout);
  } else if (flag == "--retries") {
    auto n = integer(v);
    if (!n || *n < 0 || *n > 20) return bad("an integer from 0 to 20"), true;
    o.max_retries = static_cast<int>(*n);
  } else if (flag == "--max-response-bytes") {
    auto n = integer(v);
    if (!n || *n < 1024) return bad("bytes, at least 1024"), true;
    o.max_response_bytes = static_cast<size_t>(*n);
  } else if (flag == "--price-in" || flag == "--price-out") {
    auto p = number(v);
    if (!p || *p < 0) return bad("a price in USD per million tokens"), true;
    (flag == "--price-in" ? o.price_in : o.price_out) = *p;
  }
  return true;
}

void AgentProgress::attempt(const ModelCallReport& r) {
  if (r.turn != turn_) {
    flush();
    turn_ = r.turn;
  }
  model_ms_ += r.ms;
  if (r.failure == model::Failure::None) {
    tokens_.input += r.tokens.input;
    tokens_.output += r.tokens.output;
    tokens_.cache_read += r.tokens.cache_read;
    return;
  }
  std::string what(model::failure_name(r.failure));
  if (r.retry_in) {
    ++retries_;
    notes_.push_back(fmt::format("{}, retry in {:.1f} s", what, r.retry_in->count() / 1000.0));
  } else {
    notes_.push_back(fmt::format("model failed: {}", what));
  }
}

void AgentProgress::event(const protocol::AgentEvent& e) {
  if (e.event != "tool_call") return;
  if (e.turn != turn_) {
    flush();
    turn_ = e.turn;
  }
  if (e.tool_name == "lisp_eval")
    notes_.push_back(e.error ? "program failed" : "program ok");
  else
    notes_.push_back(fmt::format("{}{}", e.tool_name, e.error ? " failed" : ""));
}

void AgentProgress::finish() {
  flush();
}

void AgentProgress::flush() {
  if (turn_ == 0) return;
  std::string line = fmt::format("turn {}: model {:.2f} s, {} in / {} out tokens", turn_,
                                 model_ms_ / 1000.0, tokens_.input, tokens_.output);
  if (tokens_.cache_read) line += fmt::format(" ({} cached)", tokens_.cache_read);
  for (const std::string& n : notes_)
    line += "; " + n;
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
  turn_ = 0;
  model_ms_ = 0;
  tokens_ = {};
  retries_ = 0;
  notes_.clear();
}

}  // namespace ptc::cli
