#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "runtime/strings.hpp"

namespace ptc::cli {

namespace {
bool parse_u64(const std::string& s, uint64_t* out) {
  auto res = std::from_chars(s.data(), s.data() + s.size(), *out);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}
}  // namespace

const char* common_options_help() {
  return "  --context FILE      JSON object whose top-level keys become data/ names\n"
         "  --json              print the result as JSON instead of Clojure syntax\n"
         "  --timeout MS        wall-clock limit of the run (default 1000)\n"
         "  --max-heap BYTES    heap limit of the run (default 10485760)\n"
         "  --loop-limit N      loop/recur jumps per loop (default 1000, at most 10000)\n"
         "  --max-depth N       nested calls (default 10000)\n";
}

std::string parse_common(std::vector<std::string>& args, CommonOptions& out) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* v) -> bool {
      if (i + 1 >= args.size()) return false;
      *v = args[++i];
      return true;
    };
    std::string v;
    uint64_t n = 0;
    if (a == "--json") {
      out.json = true;
    } else if (a == "--context") {
      if (!value(&v)) return "--context needs a file name";
      out.context_file = v;
    } else if (a == "--timeout" || a == "--max-heap" || a == "--loop-limit" || a == "--max-depth") {
      if (!value(&v) || !parse_u64(v, &n) || n == 0)
        return fmt::format("{} needs a positive number", a);
      if (a == "--timeout")
        out.run.limits.timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(n, 3600000));
      if (a == "--max-heap") out.run.limits.max_heap_bytes = n;
      if (a == "--loop-limit") {
        if (n > Limits::kLoopLimitHardCap)
          return fmt::format("--loop-limit is at most {}", Limits::kLoopLimitHardCap);
        out.run.limits.loop_limit = static_cast<uint32_t>(n);
      }
      if (a == "--max-depth")
        out.run.limits.max_call_depth = static_cast<uint32_t>(std::min<uint64_t>(n, 100000));
    } else {
      rest.push_back(a);
    }
  }
  args.swap(rest);
  return "";
}

std::optional<std::string> read_file(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("cannot read {}", path);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string load_context(CommonOptions& out) {
  if (!out.context_file) return "";
  std::string err;
  auto text = read_file(*out.context_file, &err);
  if (!text) return err;
  try {
    HostValue ctx = parse_json(*text);
    if (ctx.kind() != HostValue::Kind::Map)
      return fmt::format("{}: the context must be a JSON object", *out.context_file);
    out.run.context = std::move(ctx);
  } catch (LispError& e) {
    return fmt::format("{}: {}", *out.context_file, format_error(e.error()));
  }
  return "";
}

std::string format_error(const Error& e) {
  return e.describe();
}

// Never throws: invalid UTF-8 (e.g. quoted from a bad program) becomes U+FFFD.
std::string json_string(const std::string& s) {
  std::string clean;
  for (size_t i = 0; i < s.size();) {
    size_t bad = 0;
    std::string_view rest(s.data() + i, s.size() - i);
    if (is_valid_utf8(rest, &bad)) {
      clean.append(rest);
      break;
    }
    clean.append(rest.substr(0, bad));
    clean += "\xEF\xBF\xBD";
    i += bad + 1;
  }
  return to_json(HostValue::string(clean));
}

std::string error_json(const Error& e) {
  std::string out =
      fmt::format("{{\"reason\":{},\"message\":{}", json_string(std::string(reason_name(e.kind))),
                  json_string(e.message));
  if (!e.hint.empty()) out += fmt::format(",\"hint\":{}", json_string(e.hint));
  if (e.loc.known()) out += fmt::format(",\"line\":{},\"column\":{}", e.loc.line, e.loc.col);
  if (!e.fail_value.empty()) out += fmt::format(",\"result\":{}", json_string(e.fail_value));
  out += "}";
  return out;
}

}  // namespace ptc::cli
