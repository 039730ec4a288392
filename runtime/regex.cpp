#include "runtime/regex.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <memory>

#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/objects.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

// A hint for the Java regex features RE2 does not have.
std::string unsupported_hint(std::string_view p) {
  if (p.find("(?=") != std::string_view::npos || p.find("(?!") != std::string_view::npos ||
      p.find("(?<=") != std::string_view::npos || p.find("(?<!") != std::string_view::npos)
    return "lookahead and lookbehind are not supported (the regex engine is linear-time RE2); "
           "match more broadly and filter the results instead";
  for (size_t i = 0; i + 1 < p.size(); ++i)
    if (p[i] == '\\' && p[i + 1] >= '1' && p[i + 1] <= '9')
      return "backreferences like \\1 are not supported (RE2 is linear-time)";
  if (p.find("*+") != std::string_view::npos || p.find("++") != std::string_view::npos ||
      p.find("?+") != std::string_view::npos)
    return "possessive quantifiers are not supported; use a plain quantifier";
  return "check the pattern syntax; RE2 follows Perl/Java syntax without backtracking-only "
         "features";
}

// RE2's memory per pattern: the compiled programs plus the DFA state cache
// it fills while matching, which can reach most of max_mem. A run is charged
// the whole max_mem of every pattern it compiles, since the cache cannot be
// observed; patterns get the small budget unless they need the large one.
constexpr int64_t kSmallRegexMemory = 256 << 10;
constexpr int64_t kLargeRegexMemory = 1 << 20;
constexpr size_t kRegexBaseBytes = 4096;  // the RE2 objects themselves

// The finalizer of a RegexObj: when it dies (a collection), or when its
// arena ends.
void delete_re2(void* obj) {
  delete static_cast<RegexObj*>(obj)->re;
}

}  // namespace

std::unique_ptr<re2::RE2> compile_regex(std::string_view pattern, size_t* memory) {
  if (pattern.size() > kMaxPatternBytes)
    throw_error(ErrorKind::TypeError,
                fmt::format("regex pattern is {} bytes, more than the limit of {}", pattern.size(),
                            kMaxPatternBytes),
                "use a shorter pattern, or split the matching into steps");
  re2::RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_encoding(re2::RE2::Options::EncodingUTF8);
  opts.set_max_mem(kSmallRegexMemory);
  // Java writes named groups (?<name>...); RE2 wants (?P<name>...).
  std::string translated;
  translated.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'C')
        throw_error(ErrorKind::TypeError,
                    fmt::format("invalid regex #\"{}\": \\C is not supported", pattern),
                    "\\C matches single bytes and can split a UTF-8 character; use . instead");
      translated += pattern.substr(i, 2);
      ++i;
      continue;
    }
    if (pattern.substr(i, 3) == "(?<" && i + 3 < pattern.size() && pattern[i + 3] != '=' &&
        pattern[i + 3] != '!') {
      translated += "(?P<";
      i += 2;
      continue;
    }
    translated.push_back(pattern[i]);
  }
  auto re =
      std::make_unique<re2::RE2>(re2::StringPiece(translated.data(), translated.size()), opts);
  if (re->error_code() == re2::RE2::ErrorPatternTooLarge) {
    opts.set_max_mem(kLargeRegexMemory);  // e.g. \p{L}{50}: a large program
    re = std::make_unique<re2::RE2>(re2::StringPiece(translated.data(), translated.size()), opts);
  }
  if (memory) *memory = kRegexBaseBytes + static_cast<size_t>(opts.max_mem());
  if (!re->ok())
    throw_error(ErrorKind::TypeError,
                fmt::format("invalid regex #\"{}\": {}", pattern, re->error()),
                unsupported_hint(pattern));
  return re;
}

Value make_regex(Ctx& ctx, std::string_view pattern) {
  // A run compiles each distinct pattern once: re-pattern in a loop over the
  // same few strings costs nothing more.
  if (auto it = ctx.regexes.find(pattern); it != ctx.regexes.end()) return it->second;
  size_t memory = 0;
  std::unique_ptr<re2::RE2> re = compile_regex(pattern, &memory);
  // It lives outside the arena until the run ends, and its DFA cache grows
  // while matching: the run is charged all it may hold.
  ctx.arena.charge(memory);
  auto* obj = ctx.arena.make<RegexObj>();
  obj->type = Type::Regex;
  obj->charged = memory;
  obj->source = new_string(ctx.arena, pattern);
  ctx.arena.add_finalizer(delete_re2, obj);
  obj->re = re.release();
  Value v = Value::object(obj);
  ctx.regexes.emplace(std::string(pattern), v);
  return v;
}

}  // namespace ptc
