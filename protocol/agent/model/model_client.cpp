#include "protocol/agent/model/model_client.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "protocol/agent/model/anthropic_wire.hpp"
#include "protocol/agent/model/openai_wire.hpp"
#include "protocol/agent/model/recording.hpp"
#include "protocol/net/http_client.hpp"
#include "runtime/error.hpp"

namespace ptc {

namespace {

using model::Failure;
using model::RecordedReply;
using model::WireAnswer;
using model::WireParams;
using Clock = std::chrono::steady_clock;

// What differs between the providers: where requests go, how they are
// authenticated, and which wire format they speak.
struct Provider {
  std::string_view name;
  std::string_view default_base;  // "" = none: --base-url is required
  std::string_view path;          // after the base's path
  std::string_view key_variable;  // "" = no key by default
  bool key_required;
  std::string (*body)(const protocol::LlmRequest&, const WireParams&);
  WireAnswer (*answer)(std::string_view body);
  WireAnswer (*error)(int status, std::string_view body);
  bool anthropic;
};

const Provider kProviders[] = {
    {"openai", "https://api.openai.com/v1", "/chat/completions", "OPENAI_API_KEY", true,
     model::openai_request_body, model::openai_parse_answer, model::openai_parse_error, false},
    {"openai-compat", "", "/chat/completions", "", false, model::openai_request_body,
     model::openai_parse_answer, model::openai_parse_error, false},
    {"anthropic", "https://api.anthropic.com", "/v1/messages", "ANTHROPIC_API_KEY", true,
     model::anthropic_request_body, model::anthropic_parse_answer, model::anthropic_parse_error,
     true},
};

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string resolve_key(const Provider& p, const ModelOptions& o) {
  if (!o.api_key.empty()) return o.api_key;
  if (!o.api_key_file.empty()) {
    std::ifstream in(o.api_key_file, std::ios::binary);
    if (!in)
      throw std::invalid_argument(fmt::format("cannot read the key file {}", o.api_key_file));
    std::stringstream text;
    text << in.rdbuf();
    std::string key = trim(text.str());
    if (key.empty())
      throw std::invalid_argument(fmt::format("the key file {} is empty", o.api_key_file));
    return key;
  }
  std::string variable = !o.api_key_env.empty() ? o.api_key_env : std::string(p.key_variable);
  if (variable.empty()) return "";
  const char* value = std::getenv(variable.c_str());
  std::string key = value ? trim(value) : "";
  if (key.empty() && (!o.api_key_env.empty() || (p.key_required && o.replay_path.empty())))
    throw std::invalid_argument(
        fmt::format("no API key for {}: set {} (or give --api-key-env NAME or --api-key-file FILE)",
                    p.name, variable));
  return key;
}

// Milliseconds a Retry-After value asks for: seconds, or an HTTP date.
std::optional<std::chrono::milliseconds> retry_after_ms(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() && *end == '\0' && seconds >= 0 && std::isfinite(seconds))
    return std::chrono::milliseconds(static_cast<int64_t>(std::min(seconds, 1e7) * 1000));
  std::tm tm{};
  std::istringstream in(value);
  in >> std::get_time(&tm, "%a, %d %b %Y %H:%M:%S");
  if (in.fail()) return std::nullopt;
  auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(at - std::chrono::system_clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

class HttpModelClient final : public ModelClient {
 public:
  HttpModelClient(std::string spec, const Provider& provider, std::string model,
                  ModelOptions options)
      : spec_(std::move(spec)), provider_(provider), options_(std::move(options)) {
    params_.model = std::move(model);
    params_.temperature = options_.temperature;
    params_.max_tokens = options_.max_tokens;
    params_.seed = options_.seed;
    params_.compat = provider_.name == "openai-compat";
    if (options_.max_tokens < 1) throw std::invalid_argument("max_tokens must be at least 1");
    if (options_.max_retries < 0) throw std::invalid_argument("max_retries must be at least 0");
    key_ = resolve_key(provider_, options_);
    if (!options_.replay_path.empty()) {
      replayer_ = std::make_unique<model::Replayer>(options_.replay_path);
    } else {
      std::string base =
          !options_.base_url.empty() ? options_.base_url : std::string(provider_.default_base);
      if (base.empty())
        throw std::invalid_argument(
            fmt::format("{} needs --base-url URL (the server's base, "
                        "before /chat/completions)",
                        provider_.name));
      net::HttpOptions http;
      http.ca_file = options_.ca_file;
      http.allow_remote_http = options_.allow_remote_http;
      http.connect_timeout = options_.connect_timeout;
      http.max_response_bytes = options_.max_response_bytes;
      http_ = std::make_unique<net::HttpClient>(base, http);
      if (!http_->setup_error().empty())
        throw std::invalid_argument(fmt::format("{}: {}", provider_.name, http_->setup_error()));
      std::string base_path = http_->url().path;
      while (!base_path.empty() && base_path.back() == '/')
        base_path.pop_back();
      path_ = base_path + std::string(provider_.path);
    }
    if (!options_.record_path.empty())
      recorder_ = std::make_unique<model::Recorder>(options_.record_path, key_);
  }

  protocol::LlmResponse call(const protocol::LlmRequest& request) override {
    std::string body_text = provider_.body(request, params_);
    // Recording and replay key the request by its JSON; a plain call needs only the text.
    HostValue body = recorder_ || replayer_ ? parse_json(body_text) : HostValue();
    for (int attempt = 1;; ++attempt) {
      auto t0 = Clock::now();
      RecordedReply reply = exchange(body_text, body);
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (recorder_ && reply.failure != Failure::ReplayMiss)
        recorder_->write(provider_.name, provider_.path, body, reply);
      WireAnswer answer = decode(reply);
      ModelCallReport report;
      report.turn = request.turn;
      report.attempt = attempt;
      report.ms = ms;
      report.failure = answer.failure;
      report.message = redact(answer.message);
      report.replayed = replayer_ != nullptr;
      if (answer.failure == Failure::None) {
        protocol::TokenCounts tokens = answer.response.tokens.value_or(protocol::TokenCounts{});
        report.tokens = tokens;
        count(tokens, attempt);
        if (options_.on_attempt) options_.on_attempt(report);
        answer.response.ok = true;
        return answer.response;
      }
      std::optional<std::chrono::milliseconds> wait;
      std::string why_not;
      if (model::failure_retryable(answer.failure) && attempt <= options_.max_retries) {
        wait = pause_before(attempt, reply.retry_after);
        if (*wait > options_.max_wait) {
          why_not = fmt::format(" (the provider asks to wait {} s, more than the {} s allowed)",
                                wait->count() / 1000, options_.max_wait.count() / 1000);
          wait.reset();
        }
      }
      report.retry_in = wait;
      if (options_.on_attempt) options_.on_attempt(report);
      if (!wait) {
        protocol::LlmResponse failed;
        failed.ok = false;
        failed.error_kind = std::string(model::failure_name(answer.failure));
        failed.retryable = model::failure_retryable(answer.failure);
        failed.error = redact(
            fmt::format("{}: {}{}{}", failed.error_kind, answer.message,
                        attempt > 1 ? fmt::format(" (after {} attempts)", attempt) : "", why_not));
        std::lock_guard lock(mutex_);
        usage_.retries += attempt - 1;
        return failed;
      }
      // A replay answers at once: the recorded pauses changed nothing.
      if (!replayer_) (options_.wait ? options_.wait : default_wait)(*wait);
    }
  }

  const ModelUsage& usage() const override { return usage_; }
  const std::string& spec() const override { return spec_; }

 private:
  static void default_wait(std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); }

  RecordedReply exchange(const std::string& body_text, const HostValue& body) {
    RecordedReply r;
    if (replayer_) {
      std::string miss;
      if (auto recorded = replayer_->answer(provider_.name, provider_.path, body, &miss))
        return *recorded;
      r.failure = Failure::ReplayMiss;
      r.message = miss;
      return r;
    }
    net::HttpRequest req;
    req.path = path_;
    req.body = body_text;
    req.deadline = Clock::now() + options_.timeout;
    req.headers.emplace_back("Content-Type", "application/json");
    req.headers.emplace_back("Accept", "application/json");
    if (provider_.anthropic) {
      req.headers.emplace_back("anthropic-version", "2023-06-01");
      if (!key_.empty()) req.headers.emplace_back("x-api-key", key_);
    } else if (!key_.empty()) {
      req.headers.emplace_back("Authorization", "Bearer " + key_);
    }
    net::HttpResponse res = http_->send(req);
    using O = net::HttpResponse::Outcome;
    switch (res.outcome) {
      case O::Ok:
        r.status = res.status;
        r.body = std::move(res.body);
        r.retry_after = res.header("retry-after");
        break;
      case O::TimedOut:
      case O::Cancelled:
        r.failure = Failure::Timeout;
        r.message = fmt::format("no whole answer within {} ms", options_.timeout.count());
        break;
      case O::TooLarge:
        r.failure = Failure::MalformedResponse;
        r.message = fmt::format("the answer is larger than the cap of {} bytes",
                                options_.max_response_bytes);
        break;
      case O::Refused:
        r.failure = Failure::BadRequest;
        r.message = res.error;
        break;
      case O::Failed:
        r.failure = Failure::ServerError;
        r.message = res.error;
        break;
    }
    return r;
  }

  WireAnswer decode(const RecordedReply& reply) const {
    if (reply.failure != Failure::None) {
      WireAnswer a;
      a.failure = reply.failure;
      a.message = reply.message;
      return a;
    }
    if (reply.status == 200) return provider_.answer(reply.body);
    return provider_.error(reply.status, reply.body);
  }

  // Exponential from backoff_base with jitter (half to all of it), or what
  // the provider's Retry-After asks for.
  std::chrono::milliseconds pause_before(int attempt, const std::string& retry_after) {
    if (auto asked = retry_after_ms(retry_after)) return *asked;
    double full = static_cast<double>(options_.backoff_base.count()) * std::pow(2.0, attempt - 1);
    thread_local std::mt19937_64 rng{std::random_device{}()};
    double jittered = full * std::uniform_real_distribution<double>(0.5, 1.0)(rng);
    return std::chrono::milliseconds(
        static_cast<int64_t>(std::min(jittered, static_cast<double>(options_.max_wait.count()))));
  }

  void count(const protocol::TokenCounts& t, int attempt) {
    std::lock_guard lock(mutex_);
    usage_.calls += 1;
    usage_.retries += attempt - 1;
    usage_.tokens.input += t.input;
    usage_.tokens.output += t.output;
    usage_.tokens.cache_creation += t.cache_creation;
    usage_.tokens.cache_read += t.cache_read;
    usage_.per_call.push_back(t);
    if (options_.price_in && options_.price_out)
      usage_.cost = (static_cast<double>(usage_.tokens.input) * *options_.price_in +
                     static_cast<double>(usage_.tokens.output) * *options_.price_out) /
                    1e6;
  }

  std::string redact(std::string text) const { return model::redact_secret(std::move(text), key_); }

  std::string spec_;
  const Provider& provider_;
  ModelOptions options_;
  WireParams params_;
  std::string key_;
  std::string path_;  // of the requests: the base URL's path, then the provider's
  // (Recordings name only the provider's path: a replay may be given another base.)
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<model::Recorder> recorder_;
  std::unique_ptr<model::Replayer> replayer_;
  std::mutex mutex_;
  ModelUsage usage_;
};

}  // namespace

std::unique_ptr<ModelClient> model_client(std::string_view spec, ModelOptions options) {
  size_t colon = spec.find(':');
  std::string_view name = spec.substr(0, colon);
  std::string model = colon == std::string_view::npos ? "" : std::string(spec.substr(colon + 1));
  const Provider* provider = nullptr;
  for (const Provider& p : kProviders)
    if (p.name == name) provider = &p;
  if (!provider)
    throw std::invalid_argument(fmt::format(
        "unknown model provider '{}' in '{}': use openai:MODEL, openai-compat:MODEL (with "
        "--base-url) or anthropic:MODEL",
        name, spec));
  if (model.empty())
    throw std::invalid_argument(
        fmt::format("'{}' names no model: write {}:MODEL, e.g. {}:{}", spec, name, name,
                    provider->anthropic ? "claude-sonnet-4-5" : "gpt-4.1-mini"));
  return std::make_unique<HttpModelClient>(std::string(spec), *provider, std::move(model),
                                           std::move(options));
}

}  // namespace ptc
