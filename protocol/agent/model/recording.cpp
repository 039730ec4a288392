#include "protocol/agent/model/recording.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "include/ptc/ptc.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::model {

namespace {

using K = HostValue::Kind;

using host::str;

HostValue request_value(std::string_view provider, std::string_view path, const HostValue& body) {
  return HostValue::map(
      {{str("provider"), str(provider)}, {str("path"), str(path)}, {str("body"), body}});
}

Failure failure_from_name(std::string_view name) {
  for (Failure f : {Failure::Timeout, Failure::RateLimited, Failure::AuthFailed,
                    Failure::BadRequest, Failure::ContextTooLong, Failure::ServerError,
                    Failure::MalformedResponse, Failure::ToolCallingUnsupported})
    if (failure_name(f) == name) return f;
  return Failure::None;
}

std::string clip(const std::string& s, size_t n = 80) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

// The length of the common start of two texts: how alike two requests are
// (a later turn shares the earlier messages), and where two texts part.
size_t likeness(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n])
    ++n;
  return n;
}

// Where two JSON values first differ ("body.messages[3].content: recorded
// "a", asked "b""), or "" when they are equal.
std::string first_difference(const HostValue& recorded, const HostValue& asked,
                             const std::string& at) {
  auto show = [](const HostValue& v) { return clip(to_json(v, true)); };
  if (recorded.kind() != asked.kind())
    return fmt::format("{}: recorded {}, asked {}", at, show(recorded), show(asked));
  if (recorded.kind() == K::Map) {
    const auto& r = recorded.items();
    for (size_t i = 0; i + 1 < r.size(); i += 2) {
      const HostValue* other = asked.get(r[i].text());
      std::string where = at.empty() ? r[i].text() : at + "." + r[i].text();
      if (!other) return fmt::format("{}: recorded {}, asked without it", where, show(r[i + 1]));
      if (std::string d = first_difference(r[i + 1], *other, where); !d.empty()) return d;
    }
    const auto& a = asked.items();
    for (size_t i = 0; i + 1 < a.size(); i += 2)
      if (!recorded.get(a[i].text()))
        return fmt::format("{}: asked {}, not recorded",
                           at.empty() ? a[i].text() : at + "." + a[i].text(), show(a[i + 1]));
    return "";
  }
  if (recorded.kind() == K::Vector) {
    const auto& r = recorded.items();
    const auto& a = asked.items();
    for (size_t i = 0; i < r.size() && i < a.size(); ++i)
      if (std::string d = first_difference(r[i], a[i], fmt::format("{}[{}]", at, i)); !d.empty())
        return d;
    if (r.size() != a.size())
      return fmt::format("{}: recorded {} items, asked {}", at, r.size(), a.size());
    return "";
  }
  if (recorded.kind() == K::String && recorded.text() != asked.text()) {
    // Long texts (a prompt) differ somewhere inside: show that place.
    const std::string& r = recorded.text();
    const std::string& a = asked.text();
    size_t same = likeness(r, a);
    size_t from = same > 30 ? same - 30 : 0;
    auto around = [&](const std::string& s) {
      return clip(to_json(HostValue::string((from ? "..." : "") + s.substr(from, 90))), 100);
    };
    return fmt::format("{} (from character {}): recorded {}, asked {}", at, same, around(r),
                       around(a));
  }
  if (to_json(recorded, true) != to_json(asked, true))
    return fmt::format("{}: recorded {}, asked {}", at, show(recorded), show(asked));
  return "";
}

}  // namespace

std::string redact_secret(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at))
    text.replace(at, secret.size(), "[redacted]");
  return text;
}

std::string request_hash(std::string_view provider, std::string_view path, const HostValue& body) {
  return canonical_args_key(request_value(provider, path, body));
}

Recorder::Recorder(const std::string& path, std::string secret) : secret_(std::move(secret)) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw std::invalid_argument(fmt::format("cannot write the recording {}", path));
}

Recorder::~Recorder() {
  if (file_) std::fclose(file_);
}

void Recorder::write(std::string_view provider, std::string_view path, const HostValue& body,
                     const RecordedReply& reply) {
  HostValue out;
  if (reply.failure != Failure::None && reply.status == 0)
    out = HostValue::map({{str("failure"), str(failure_name(reply.failure))},
                          {str("message"), str(redact_secret(reply.message, secret_))}});
  else
    out = HostValue::map({{str("status"), HostValue::integer(reply.status)},
                          {str("retry_after"), str(reply.retry_after)},
                          {str("body"), str(redact_secret(reply.body, secret_))}});
  HostValue line = HostValue::map({{str("hash"), str(request_hash(provider, path, body))},
                                   {str("request"), request_value(provider, path, body)},
                                   {str("reply"), std::move(out)}});
  std::string text = redact_secret(to_json(line, true), secret_) + "\n";
  // Each exchange reaches the file as it ends: a run that dies keeps them.
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

Replayer::Replayer(const std::string& path) : path_(path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("cannot read the recording {}", path));
  std::string text;
  size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto bad = [&](std::string_view what) {
      throw std::invalid_argument(
          fmt::format("{}:{}: not a recorded model exchange ({})", path, line_no, what));
    };
    HostValue v;
    try {
      v = parse_json(text);
    } catch (const LispError& e) {
      bad(e.error().message);
    }
    if (v.kind() != K::Map) bad("expected a JSON object");
    const HostValue* request = v.get("request");
    const HostValue* reply = v.get("reply");
    if (!request || request->kind() != K::Map || !reply || reply->kind() != K::Map)
      bad("needs \"request\" and \"reply\" objects");
    const HostValue* provider = request->get("provider");
    const HostValue* rpath = request->get("path");
    const HostValue* body = request->get("body");
    if (!provider || provider->kind() != K::String || !rpath || rpath->kind() != K::String || !body)
      bad("request needs \"provider\", \"path\" and \"body\"");
    Entry e;
    e.line = line_no;
    e.hash = request_hash(provider->text(), rpath->text(), *body);
    e.request = *request;
    if (const HostValue* f = reply->get("failure")) {
      if (f->kind() != K::String || failure_from_name(f->text()) == Failure::None)
        bad("reply.failure: expected a failure name");
      e.reply.failure = failure_from_name(f->text());
      if (const HostValue* m = reply->get("message"); m && m->kind() == K::String)
        e.reply.message = m->text();
    } else {
      const HostValue* status = reply->get("status");
      const HostValue* rbody = reply->get("body");
      if (!status || status->kind() != K::Int || !rbody || rbody->kind() != K::String)
        bad("reply needs \"status\" and \"body\", or \"failure\"");
      e.reply.status = static_cast<int>(status->as_int());
      e.reply.body = rbody->text();
      if (const HostValue* ra = reply->get("retry_after"); ra && ra->kind() == K::String)
        e.reply.retry_after = ra->text();
    }
    entries_.push_back(std::move(e));
  }
}

std::optional<RecordedReply> Replayer::answer(std::string_view provider, std::string_view path,
                                              const HostValue& body, std::string* miss) {
  ++asked_;
  std::string hash = request_hash(provider, path, body);
  size_t recorded = 0;
  for (Entry& e : entries_) {
    if (e.hash != hash) continue;
    ++recorded;
    if (e.used) continue;
    e.used = true;
    return e.reply;
  }
  HostValue asked = request_value(provider, path, body);
  if (recorded > 0) {
    *miss = fmt::format(
        "request {} ({} {}) was recorded {} time(s) in {} and is asked once more: the run differs "
        "from the recorded one (a retry that did not happen then)",
        asked_, provider, path, recorded, path_);
    return std::nullopt;
  }
  std::string asked_text = to_json(asked, true);
  const Entry* nearest = nullptr;
  size_t best = 0;
  for (const Entry& e : entries_) {
    size_t l = likeness(to_json(e.request, true), asked_text);
    if (!nearest || l > best) {
      nearest = &e;
      best = l;
    }
  }
  if (!nearest) {
    *miss = fmt::format("request {} ({} {}) is not in {}: the recording is empty", asked_, provider,
                        path, path_);
    return std::nullopt;
  }
  *miss = fmt::format(
      "request {} ({} {}) is not in {}; the nearest recorded one is line {}, "
      "which differs at {}",
      asked_, provider, path, path_, nearest->line, first_difference(nearest->request, asked, ""));
  return std::nullopt;
}

}  // namespace ptc::model
