#include "protocol/upstream/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "include/ptc/error.hpp"
#include "include/ptc/host_value.hpp"
#include "protocol/net/http_client.hpp"

namespace ptc::upstream {

namespace {

// A secret file holds a token or a key; an upstreams file a few servers. Both
// are read whole, so neither may be a device, a pipe or something huge.
constexpr size_t kMaxSecretFileBytes = 64 * 1024;
constexpr size_t kMaxUpstreamsFileBytes = 1024 * 1024;

// Header names whose values are credentials: they belong in "auth" (or in
// "headers" through ${credential:NAME}), where they are redacted.
bool sensitive_header(std::string_view name) {
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "authorization" || lower == "proxy-authorization" || lower == "cookie" ||
         lower == "x-api-key" || lower == "api-key";
}

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

// Reads a regular file of at most `max_bytes` into `out`; "" or what is wrong.
std::string read_small_file(const std::string& path, size_t max_bytes, std::string& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return fmt::format("cannot read {}: {}", path,
                       std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fmt::format("cannot read {}", path);
  out.resize(max_bytes + 1);
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  if (out.size() > max_bytes) return fmt::format("{} is larger than {} bytes", path, max_bytes);
  return {};
}

}  // namespace

void Redactor::add(std::string secret) {
  if (secret.empty()) return;
  if (std::find(secrets_.begin(), secrets_.end(), secret) != secrets_.end()) return;
  secrets_.push_back(std::move(secret));
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string Redactor::redact(std::string_view text) const {
  std::string out(text);
  for (const std::string& s : secrets_) {
    size_t at = 0;
    while ((at = out.find(s, at)) != std::string::npos) {
      out.replace(at, s.size(), "[REDACTED]");
      at += 10;
    }
  }
  return out;
}

namespace {

using Kind = HostValue::Kind;

struct Parser {
  std::string_view file;
  EnvLookup getenv_fn;
  std::map<std::string, std::string> credentials;  // name -> value
  std::string error;
  Redactor* redactor = nullptr;  // the config's: encoded forms of secrets join it
  // Of the http upstream being read: whether its credentials are encrypted
  // (https) or stay on this machine (loopback).
  bool credentials_stay_private = false;
  bool allow_insecure_auth = false;

  bool fail(std::string_view path, std::string_view what, std::string_view hint = {}) {
    error = fmt::format("{}: {}: {}", file, path, what);
    if (!hint.empty()) error += fmt::format(" ({})", hint);
    return false;
  }

  static const char* kind_name(Kind k) {
    switch (k) {
      case Kind::String:
        return "a string";
      case Kind::Map:
        return "an object";
      case Kind::Vector:
        return "an array";
      case Kind::Int:
      case Kind::BigInt:
      case Kind::Float:
        return "a number";
      case Kind::Bool:
        return "a boolean";
      case Kind::Nil:
        return "null";
      default:
        return "a value";
    }
  }

  bool expect(const HostValue& v, Kind k, std::string_view path, const char* want) {
    if (v.kind() == k) return true;
    return fail(path, fmt::format("must be {}, not {}", want, kind_name(v.kind())));
  }

  // Keys of `m` must all be in `allowed`.
  bool only_keys(const HostValue& m, std::string_view path,
                 std::initializer_list<std::string_view> allowed) {
    const auto& items = m.items();
    for (size_t i = 0; i < items.size(); i += 2) {
      const std::string& k = items[i].text();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        std::string list;
        for (std::string_view a : allowed)
          list += fmt::format("{}{}", list.empty() ? "" : ", ", a);
        return fail(fmt::format("{}.{}", path, k), "unknown key", fmt::format("known: {}", list));
      }
    }
    return true;
  }

  bool positive(const HostValue& v, std::string_view path, uint64_t max, uint64_t& out) {
    if (v.kind() != Kind::Int || v.as_int() <= 0 || static_cast<uint64_t>(v.as_int()) > max)
      return fail(path, fmt::format("must be a whole number from 1 to {}", max));
    out = static_cast<uint64_t>(v.as_int());
    return true;
  }

  bool credential(const std::string& name, const HostValue& c, Redactor& red) {
    std::string path = "credentials." + name;
    if (!expect(c, Kind::Map, path, "an object like {\"source\": \"env\", \"var\": \"NAME\"}"))
      return false;
    if (!only_keys(c, path, {"source", "var", "path"})) return false;
    const HostValue* source = c.get("source");
    if (!source || source->kind() != Kind::String)
      return fail(path + ".source", "missing or not a string", "\"env\" or \"file\"");
    std::string value;
    if (source->text() == "env") {
      const HostValue* var = c.get("var");
      if (!var || var->kind() != Kind::String || var->text().empty())
        return fail(path + ".var", "missing or not a string", "the environment variable's name");
      const char* v = getenv_fn(var->text().c_str());
      if (!v)
        return fail(path + ".var", fmt::format("environment variable {} is not set", var->text()));
      value = v;
    } else if (source->text() == "file") {
      const HostValue* p = c.get("path");
      if (!p || p->kind() != Kind::String || p->text().empty())
        return fail(path + ".path", "missing or not a string", "the file holding the secret");
      std::string problem = read_small_file(p->text(), kMaxSecretFileBytes, value);
      if (!problem.empty())
        return fail(path + ".path", problem, "a regular file holding the secret");
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
        value.pop_back();
    } else {
      return fail(path + ".source", fmt::format("unknown source \"{}\"", source->text()),
                  "\"env\" or \"file\"");
    }
    if (value.size() < Redactor::kMinSecret)
      return fail(path,
                  fmt::format("the secret is shorter than {} characters", Redactor::kMinSecret),
                  "it could not be told apart from ordinary text when redacting");
    red.add(value);
    credentials[name] = std::move(value);
    return true;
  }

  // "${VAR}" from the environment, "${credential:NAME}" from credentials.
  bool expand(const std::string& in, std::string_view path, std::string& out) {
    out.clear();
    size_t i = 0;
    while (i < in.size()) {
      size_t at = in.find("${", i);
      if (at == std::string::npos) {
        out.append(in, i);
        break;
      }
      out.append(in, i, at - i);
      size_t end = in.find('}', at);
      if (end == std::string::npos)
        return fail(path, "unclosed ${", "write ${VAR} or ${credential:NAME}");
      std::string ref = in.substr(at + 2, end - at - 2);
      if (ref.rfind("credential:", 0) == 0) {
        std::string name = ref.substr(11);
        auto it = credentials.find(name);
        if (it == credentials.end())
          return fail(path, fmt::format("unknown credential \"{}\"", name),
                      "declare it under \"credentials\"");
        out += it->second;
      } else {
        const char* v = ref.empty() ? nullptr : getenv_fn(ref.c_str());
        if (!v) return fail(path, fmt::format("environment variable {} is not set", ref));
        out += v;
      }
      i = end + 1;
    }
    return true;
  }

  bool upstream(const std::string& name, const HostValue& u, UpstreamConfig& out) {
    std::string path = "upstreams." + name;
    out.name = name;
    if (name.empty() || name.find('/') != std::string::npos ||
        name.find_first_of(" \t\n") != std::string::npos)
      return fail(path, "bad server name", "a non-empty name without '/' or spaces");
    if (!expect(u, Kind::Map, path, "an object")) return false;
    const HostValue* transport = u.get("transport");
    if (!transport || transport->kind() != Kind::String)
      return fail(path + ".transport", "missing or not a string", "\"mcp_stdio\"");
    out.transport = transport->text();
    if (out.transport == "mcp_http") return http_upstream(path, u, out) && common(path, u, out);
    if (out.transport != "mcp_stdio")
      return fail(path + ".transport", fmt::format("unknown transport \"{}\"", out.transport),
                  "\"mcp_stdio\" or \"mcp_http\"");
    if (!only_keys(u, path,
                   {"transport", "command", "args", "env", "cwd", "cd", "description", "timeout_ms",
                    "handshake_timeout_ms", "max_response_bytes", "read_only_tools", "approval",
                    "protocol"}))
      return false;
    const HostValue* command = u.get("command");
    if (!command || command->kind() != Kind::String || command->text().empty())
      return fail(path + ".command", "missing or not a string",
                  "the program to start, e.g. \"node\"");
    if (!expand(command->text(), path + ".command", out.command)) return false;
    if (const HostValue* args = u.get("args")) {
      if (!expect(*args, Kind::Vector, path + ".args", "an array of strings")) return false;
      for (size_t i = 0; i < args->items().size(); ++i) {
        std::string p = fmt::format("{}.args[{}]", path, i);
        if (!expect(args->items()[i], Kind::String, p, "a string")) return false;
        std::string v;
        if (!expand(args->items()[i].text(), p, v)) return false;
        out.args.push_back(std::move(v));
      }
    }
    if (const HostValue* env = u.get("env")) {
      if (!expect(*env, Kind::Map, path + ".env", "an object of strings")) return false;
      for (size_t i = 0; i < env->items().size(); i += 2) {
        const std::string& k = env->items()[i].text();
        std::string p = fmt::format("{}.env.{}", path, k);
        if (k.empty() || k.find('=') != std::string::npos) return fail(p, "bad variable name");
        if (!expect(env->items()[i + 1], Kind::String, p, "a string")) return false;
        std::string v;
        if (!expand(env->items()[i + 1].text(), p, v)) return false;
        out.env.emplace_back(k, std::move(v));
      }
    }
    // "cwd", or "cd" as the reference spells it.
    if (u.get("cwd") && u.get("cd")) return fail(path + ".cd", "both cwd and cd", "keep one");
    for (const char* key : {"cwd", "cd"}) {
      const HostValue* cwd = u.get(key);
      if (!cwd) continue;
      std::string p = fmt::format("{}.{}", path, key);
      if (!expect(*cwd, Kind::String, p, "a string")) return false;
      if (!expand(cwd->text(), p, out.cwd)) return false;
    }
    return common(path, u, out);
  }

  // Keys every transport has.
  bool common(const std::string& path, const HostValue& u, UpstreamConfig& out) {
    if (const HostValue* d = u.get("description")) {
      if (!expect(*d, Kind::String, path + ".description", "a string")) return false;
      out.description = d->text();
    }
    uint64_t n = 0;
    if (const HostValue* v = u.get("timeout_ms")) {
      if (!positive(*v, path + ".timeout_ms", 600000, n)) return false;
      out.timeout_ms = static_cast<uint32_t>(n);
    }
    if (const HostValue* v = u.get("handshake_timeout_ms")) {
      if (!positive(*v, path + ".handshake_timeout_ms", 600000, n)) return false;
      out.handshake_timeout_ms = static_cast<uint32_t>(n);
    }
    if (const HostValue* v = u.get("protocol")) {
      if (v->kind() != Kind::String ||
          (v->text() != "auto" && v->text() != "legacy" && v->text() != "2026-07-28"))
        return fail(path + ".protocol", "unknown protocol",
                    "\"auto\" (the default), \"legacy\" (2025 handshake only) or \"2026-07-28\"");
      out.protocol = v->text();
    }
    if (const HostValue* v = u.get("max_response_bytes")) {
      if (!positive(*v, path + ".max_response_bytes", uint64_t{1} << 30, n)) return false;
      out.max_response_bytes = n;
    }
    if (const HostValue* v = u.get("read_only_tools")) {
      if (!expect(*v, Kind::Vector, path + ".read_only_tools", "an array of tool names"))
        return false;
      for (size_t i = 0; i < v->items().size(); ++i) {
        if (!expect(v->items()[i], Kind::String, fmt::format("{}.read_only_tools[{}]", path, i),
                    "a string"))
          return false;
        out.read_only_tools.push_back(v->items()[i].text());
      }
    }
    if (const HostValue* v = u.get("approval")) {
      const char* shape = R"("always", or an array of tool name patterns ("write_*"))";
      if (v->kind() == Kind::String) {
        if (v->text() != "always")
          return fail(path + ".approval", fmt::format("expected {}, got \"{}\"", shape, v->text()));
        out.approval = {"*"};
      } else {
        if (!expect(*v, Kind::Vector, path + ".approval", shape)) return false;
        for (size_t i = 0; i < v->items().size(); ++i) {
          const HostValue& p = v->items()[i];
          if (!expect(p, Kind::String, fmt::format("{}.approval[{}]", path, i), "a string"))
            return false;
          if (p.text().empty())
            return fail(fmt::format("{}.approval[{}]", path, i), "an empty pattern");
          out.approval.push_back(p.text());
        }
      }
    }
    return true;
  }

  bool http_upstream(const std::string& path, const HostValue& u, UpstreamConfig& out) {
    allow_insecure_auth = false;
    if (!only_keys(
            u, path,
            {"transport", "url", "headers", "static_headers", "auth", "allow_insecure_http",
             "allow_insecure_auth", "ca_file", "description", "timeout_ms", "handshake_timeout_ms",
             "max_response_bytes", "read_only_tools", "approval", "protocol"}))
      return false;
    const HostValue* url = u.get("url");
    if (!url || url->kind() != Kind::String || url->text().empty())
      return fail(path + ".url", "missing or not a string", "e.g. \"http://127.0.0.1:3001/mcp\"");
    if (!expand(url->text(), path + ".url", out.url)) return false;
    if (const HostValue* a = u.get("allow_insecure_http")) {
      if (!expect(*a, Kind::Bool, path + ".allow_insecure_http", "a boolean")) return false;
      out.allow_insecure_http = a->as_bool();
    }
    bool https = out.url.rfind("https://", 0) == 0;
    if (!https && out.url.rfind("http://", 0) != 0)
      return fail(path + ".url", "must start with https:// or http://");
    net::Url parsed;
    std::string url_error;
    if (!net::parse_url(out.url, &parsed, &url_error)) return fail(path + ".url", url_error);
    bool loopback = net::is_loopback_host(parsed.host);
    credentials_stay_private = https || loopback;
    if (!https && !loopback && !out.allow_insecure_http)
      return fail(path + ".url", "plain http beyond loopback",
                  "use https, or set allow_insecure_http to true");
    if (const HostValue* ca = u.get("ca_file")) {
      if (!expect(*ca, Kind::String, path + ".ca_file", "a path")) return false;
      if (!https) return fail(path + ".ca_file", "only for an https url");
      if (!expand(ca->text(), path + ".ca_file", out.ca_file)) return false;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(out.ca_file, ec))
        return fail(path + ".ca_file", fmt::format("cannot read {}", out.ca_file),
                    "a PEM file of CA certificates");
    }
    if (const HostValue* a = u.get("allow_insecure_auth")) {
      if (!expect(*a, Kind::Bool, path + ".allow_insecure_auth", "a boolean")) return false;
      allow_insecure_auth = a->as_bool();
    }
    // "headers" may carry ${credential:NAME}; "static_headers" (the
    // reference's key) are fixed values and may not be the credential kind.
    if (!headers(u, path, "headers", false, out)) return false;
    if (!headers(u, path, "static_headers", true, out)) return false;
    if (const HostValue* a = u.get("auth")) {
      if (!credentials_stay_private && !allow_insecure_auth)
        return fail(path + ".auth", "credentials over plain http beyond loopback",
                    "set allow_insecure_auth to true (they would cross the network unencrypted)");
      if (!expect(*a, Kind::Vector, path + ".auth",
                  "an array like [{\"scheme\": \"bearer\", \"binding\": \"NAME\"}]"))
        return false;
      for (size_t i = 0; i < a->items().size(); ++i)
        if (!auth(a->items()[i], fmt::format("{}.auth[{}]", path, i), out)) return false;
    }
    return true;
  }

  bool headers(const HostValue& u, const std::string& path, const char* key, bool fixed,
               UpstreamConfig& out) {
    const HostValue* h = u.get(key);
    if (!h) return true;
    if (!expect(*h, Kind::Map, fmt::format("{}.{}", path, key), "an object of strings"))
      return false;
    for (size_t i = 0; i < h->items().size(); i += 2) {
      const std::string& k = h->items()[i].text();
      std::string p = fmt::format("{}.{}.{}", path, key, k);
      if (k.empty() || k.find_first_of(":\r\n ") != std::string::npos)
        return fail(p, "bad header name");
      if (fixed && sensitive_header(k))
        return fail(p, "a credential header among static_headers",
                    "give credentials through \"auth\" (or \"headers\" with "
                    "${credential:NAME}), so that they are redacted");
      if (!expect(h->items()[i + 1], Kind::String, p, "a string")) return false;
      std::string v;
      if (!expand(h->items()[i + 1].text(), p, v)) return false;
      if (v.find_first_of("\r\n") != std::string::npos) return fail(p, "a line break in the value");
      out.headers.emplace_back(k, std::move(v));
    }
    return true;
  }

  // One auth emitter: a header built from a declared credential.
  bool auth(const HostValue& a, const std::string& path, UpstreamConfig& out) {
    if (!expect(a, Kind::Map, path,
                "an object like {\"scheme\": \"bearer\", \"binding\": \"NAME\"}"))
      return false;
    if (!only_keys(a, path, {"scheme", "binding", "header"})) return false;
    const HostValue* scheme = a.get("scheme");
    const HostValue* binding = a.get("binding");
    if (!scheme || scheme->kind() != Kind::String)
      return fail(path + ".scheme", "missing or not a string",
                  "\"bearer\", \"basic\", \"custom_header\" or \"api_key\"");
    if (!binding || binding->kind() != Kind::String)
      return fail(path + ".binding", "missing or not a string",
                  "a name declared under credentials");
    auto it = credentials.find(binding->text());
    if (it == credentials.end())
      return fail(path + ".binding", fmt::format("unknown credential \"{}\"", binding->text()),
                  "declare it under \"credentials\"");
    const std::string& secret = it->second;
    const std::string& s = scheme->text();
    if (s == "bearer") {
      out.headers.emplace_back("Authorization", "Bearer " + secret);
    } else if (s == "basic") {
      if (secret.find(':') == std::string::npos)
        return fail(path + ".binding", "a basic credential must be \"user:password\"");
      std::string encoded = base64(secret);
      redactor->add(encoded);  // the header carries the secret encoded
      out.headers.emplace_back("Authorization", "Basic " + encoded);
    } else if (s == "custom_header" || s == "api_key") {
      const HostValue* header = a.get("header");
      if (!header || header->kind() != Kind::String || header->text().empty() ||
          header->text().find_first_of(":\r\n ") != std::string::npos)
        return fail(path + ".header", "missing or not a header name", "e.g. \"X-Api-Key\"");
      out.headers.emplace_back(header->text(), secret);
    } else {
      return fail(path + ".scheme", fmt::format("unknown scheme \"{}\"", s),
                  "\"bearer\", \"basic\", \"custom_header\" or \"api_key\"");
    }
    if (secret.find_first_of("\r\n") != std::string::npos)
      return fail(path + ".binding", "a line break in the credential");
    return true;
  }
};

}  // namespace

std::string parse_upstreams(std::string_view json, std::string_view file, UpstreamsConfig& out,
                            EnvLookup getenv_fn) {
  Parser p{file,
           getenv_fn ? getenv_fn : +[](const char* n) -> const char* { return std::getenv(n); },
           {},
           {}};
  p.redactor = &out.redactor;
  HostValue root;
  try {
    root = parse_json(json);
  } catch (const LispError& e) {
    return fmt::format("{}: not JSON: {}", file, e.error().message);
  }
  if (root.kind() != Kind::Map) {
    p.fail("(top level)", "must be an object", "{\"upstreams\": {NAME: {...}}}");
    return p.error;
  }
  if (!p.only_keys(root, "(top level)", {"upstreams", "credentials"})) return p.error;
  if (const HostValue* creds = root.get("credentials")) {
    if (!p.expect(*creds, Kind::Map, "credentials", "an object")) return p.error;
    for (size_t i = 0; i < creds->items().size(); i += 2)
      if (!p.credential(creds->items()[i].text(), creds->items()[i + 1], out.redactor))
        return p.error;
  }
  const HostValue* ups = root.get("upstreams");
  if (!ups) {
    p.fail("upstreams", "missing", "{\"upstreams\": {NAME: {\"transport\": \"mcp_stdio\", ...}}}");
    return p.error;
  }
  if (!p.expect(*ups, Kind::Map, "upstreams", "an object keyed by server name")) return p.error;
  for (size_t i = 0; i < ups->items().size(); i += 2) {
    UpstreamConfig u;
    if (!p.upstream(ups->items()[i].text(), ups->items()[i + 1], u)) return p.error;
    out.upstreams[u.name] = std::move(u);
  }
  return {};
}

std::string load_upstreams(const std::string& path, UpstreamsConfig& out) {
  std::string text;
  std::string problem = read_small_file(path, kMaxUpstreamsFileBytes, text);
  if (!problem.empty()) return fmt::format("{}: {}", path, problem);
  return parse_upstreams(text, path, out);
}

}  // namespace ptc::upstream
