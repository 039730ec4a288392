#include "spec/lang_tests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "include/ptc/ptc.hpp"
#include "spec/clojure_data.hpp"
#include "spec/compare.hpp"
#include "spec/expected_list.hpp"
#include "spec/program_io.hpp"

namespace spec {

namespace {

constexpr size_t kNone = std::string_view::npos;

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r") == kNone;
}

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == kNone) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Where the line's ; comment starts (npos: none). `in_string` carries an
// open string (or regex) literal from one line to the next; a backslash
// outside strings starts a character literal, so \; and \" are no syntax.
size_t comment_start(std::string_view line, bool& in_string) {
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '\\') {
      ++i;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ';') {
      return i;
    }
  }
  return kNone;
}

struct Directive {
  std::string_view name;
  std::string_view value;
};

constexpr std::string_view kDirectives[] = {"expect",      "expect-printed", "expect-error",
                                            "expect-hint", "expect-no-hint", "expect-output",
                                            "no-gc-stress"};

// A comment that is a directive (`; name: value`). One that only looks like
// one (a misspelt name, `;;`, no space) is a problem, never a silent comment:
// a typo must not turn a test off.
std::optional<Directive> directive_of(std::string_view comment, std::string* problem) {
  size_t start = comment.find_first_not_of(';');
  if (start == kNone) return std::nullopt;
  std::string_view body = comment.substr(start);
  body = body.substr(std::min(body.size(), body.find_first_not_of(' ')));
  size_t colon = body.find(':');
  if (colon == kNone) return std::nullopt;
  std::string_view name = body.substr(0, colon);
  bool looks_like = name == "expect" || name.starts_with("expect-") || name == "no-gc-stress";
  if (!looks_like || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") != kNone)
    return std::nullopt;
  if (std::find(std::begin(kDirectives), std::end(kDirectives), name) == std::end(kDirectives)) {
    *problem = fmt::format("unknown directive {}", name);
    return std::nullopt;
  }
  if (!comment.starts_with("; ") || comment.substr(2, name.size()) != name) {
    *problem = fmt::format("write the directive as `; {}: ...`", name);
    return std::nullopt;
  }
  return Directive{name, trim(body.substr(colon + 1))};
}

std::optional<uint32_t> number(std::string_view s) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0) return std::nullopt;
  return v;
}

// REASON [at LINE:COL] [: MESSAGE-PART]
bool read_error_directive(std::string_view value, LangCase& c, std::string* problem) {
  size_t end = value.find_first_of(" :");
  c.reason = std::string(value.substr(0, end));
  std::string_view rest = end == kNone ? std::string_view() : value.substr(end);
  if (!ptc::reason_from_name(c.reason)) {
    *problem = fmt::format("unknown error reason {}", c.reason);
    return false;
  }
  if (rest.starts_with(" at ")) {
    rest.remove_prefix(4);
    size_t colon = rest.find(':');
    size_t stop = rest.find(':', colon == kNone ? kNone : colon + 1);
    auto line = number(rest.substr(0, colon));
    auto col = colon == kNone ? std::nullopt : number(rest.substr(colon + 1, stop - colon - 1));
    if (!line || !col) {
      *problem = "write the location as `at LINE:COL`";
      return false;
    }
    c.error_line = *line;
    c.error_col = *col;
    rest = stop == kNone ? std::string_view() : rest.substr(stop);
  }
  if (rest.starts_with(": ")) {
    c.message_part = std::string(trim(rest.substr(2)));
    rest = {};
  }
  if (!rest.empty()) {
    *problem = "write it as `expect-error: REASON [at LINE:COL] [: MESSAGE-PART]`";
    return false;
  }
  return true;
}

bool apply(LangCase& c, const Directive& d, std::string* problem) {
  if (d.value.empty()) {
    *problem = fmt::format("{} needs a value", d.name);
    return false;
  }
  bool expectation = d.name == "expect" || d.name == "expect-printed" || d.name == "expect-error";
  if (expectation && c.has_expectation) {
    *problem = "a program has one expect, expect-printed or expect-error";
    return false;
  }
  if (expectation) c.has_expectation = true;
  if (d.name == "expect" || d.name == "expect-printed") {
    c.expect = d.name == "expect" ? LangCase::Expect::Value : LangCase::Expect::Printed;
    c.expected = std::string(d.value);
  } else if (d.name == "expect-error") {
    c.expect = LangCase::Expect::Error;
    return read_error_directive(d.value, c, problem);
  } else if (d.name == "expect-hint") {
    c.hint_parts.emplace_back(d.value);
  } else if (d.name == "expect-no-hint") {
    c.absent_hint_parts.emplace_back(d.value);
  } else if (d.name == "expect-output") {
    c.output = std::string(d.value);
  } else {
    c.no_gc_stress = std::string(d.value);
  }
  return true;
}

// What a case's directives must say together.
std::optional<std::string> incomplete(const LangCase& c) {
  if (!c.has_expectation) return "no expect, expect-printed or expect-error";
  bool error = c.expect == LangCase::Expect::Error;
  if (!error && (!c.hint_parts.empty() || !c.absent_hint_parts.empty()))
    return "expect-hint and expect-no-hint go with expect-error";
  if (c.output) {
    auto d = parse_clojure(*c.output);
    bool lines = d && d->kind == Datum::Kind::Seq &&
                 std::all_of(d->items.begin(), d->items.end(),
                             [](const Datum& i) { return i.kind == Datum::Kind::String; });
    if (!lines) return "expect-output takes a vector of strings, one per line printed";
  }
  return std::nullopt;
}

std::string rtrim(std::string s) {
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  return s;
}

// Values without a structure of their own (functions, vars, regexes,
// symbols) are compared by their printed text.
bool compared_as_text(const Datum& d) {
  using K = Datum::Kind;
  if (d.kind == K::Fn || d.kind == K::Var || d.kind == K::Regex || d.kind == K::Symbol) return true;
  return std::any_of(d.items.begin(), d.items.end(), compared_as_text);
}

bool value_matches(const std::string& expected, const ptc::Step& r) {
  auto d = parse_clojure(expected);
  if (!d || compared_as_text(*d)) return r.printed == expected;
  return equal_at(*d, from_host(r.value), Level::Exact);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool error_matches(const LangCase& c, const ptc::Error& e) {
  if (ptc::reason_name(e.kind) != c.reason) return false;
  if (c.error_line && (e.loc.line != c.error_line || e.loc.col != c.error_col)) return false;
  if (!contains(e.message, c.message_part)) return false;
  for (const auto& part : c.hint_parts)
    if (!contains(e.hint, part)) return false;
  for (const auto& part : c.absent_hint_parts)
    if (contains(e.hint, part)) return false;
  return true;
}

std::string describe_expected(const LangCase& c) {
  switch (c.expect) {
    case LangCase::Expect::Value:
      return c.expected;
    case LangCase::Expect::Printed:
      return "printed exactly " + c.expected;
    case LangCase::Expect::Error:
      break;
  }
  std::string out = "error " + c.reason;
  if (c.error_line) out += fmt::format(" at {}:{}", c.error_line, c.error_col);
  if (!c.message_part.empty()) out += ", message containing \"" + c.message_part + "\"";
  for (const auto& part : c.hint_parts)
    out += ", hint containing \"" + part + "\"";
  for (const auto& part : c.absent_hint_parts)
    out += ", hint without \"" + part + "\"";
  return out;
}

Datum lines_datum(const std::vector<std::string>& lines) {
  Datum d = Datum::make(Datum::Kind::Seq);
  for (const auto& l : lines)
    d.items.push_back(Datum::make(Datum::Kind::String, l));
  return d;
}

}  // namespace

std::vector<LangCase> parse_lang_file(std::string_view text, const std::string& file,
                                      std::vector<std::string>& problems) {
  std::vector<LangCase> cases;
  bool reading_directives = false;  // the last line was one of cases.back()'s directives
  bool in_string = false;
  int program_line = 0;  // 0: no program line yet
  std::string program;
  int n = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == kNone ? std::string_view() : text.substr(nl + 1);
    ++n;
    bool continues_string = in_string;
    size_t semi = comment_start(line, in_string);
    bool has_code = continues_string || !is_blank(line.substr(0, semi));
    std::string problem;
    std::optional<Directive> d;
    if (semi != kNone) d = directive_of(line.substr(semi), &problem);
    auto report = [&] { problems.push_back(fmt::format("{}:{}: {}", file, n, problem)); };
    if (!problem.empty()) report();
    if (d && !has_code && reading_directives) {
      if (!apply(cases.back(), *d, &problem)) report();
      continue;
    }
    reading_directives = false;
    if (has_code || (program_line && !d)) {
      if (!program_line) program_line = n;
      program += d ? line.substr(0, semi) : line;
      program += '\n';
    }
    if (!d) continue;
    LangCase c;
    c.file = file;
    c.line = program_line ? program_line : n;
    c.program = rtrim(std::move(program));
    if (!apply(c, *d, &problem)) report();
    cases.push_back(std::move(c));
    reading_directives = true;
    program.clear();
    program_line = 0;
  }
  if (in_string) problems.push_back(fmt::format("{}:{}: a string is not closed", file, n));
  if (program_line)
    problems.push_back(fmt::format("{}:{}: a program without an expectation", file, program_line));
  for (const LangCase& c : cases)
    if (auto why = incomplete(c)) problems.push_back(fmt::format("{}:{}: {}", file, c.line, *why));
  return cases;
}

std::optional<std::string> check_lang_case(const LangCase& c, bool gc_stress) {
  ptc::RunOptions options;
  // Stress mode checks what collections keep, not speed: a collection at
  // every safe point, under the sanitizers on a loaded machine, takes some
  // programs past the default second. None of them expects a timeout.
  if (gc_stress) options.limits.timeout_ms = 20000;
  ptc::Step r = run_guarded(c.program, options);
  bool ok = false;
  switch (c.expect) {
    case LangCase::Expect::Value:
      ok = r.ok && value_matches(c.expected, r);
      break;
    case LangCase::Expect::Printed:
      ok = r.ok && r.printed == c.expected;
      break;
    case LangCase::Expect::Error:
      ok = !r.ok && error_matches(c, r.error);
      break;
  }
  Datum output = lines_datum(r.prints);
  auto want_output = c.output ? parse_clojure(*c.output) : std::nullopt;
  bool output_ok = !c.output || (want_output && equal_at(*want_output, output, Level::Exact));
  if (ok && output_ok) return std::nullopt;
  std::string actual = r.ok ? r.printed : "error " + r.error.describe();
  std::string out = fmt::format("    expected: {}\n    actual:   {}\n", describe_expected(c),
                                one_line(actual, 400));
  if (c.output)
    out += fmt::format("    expected output: {}\n    actual output:   {}\n", *c.output,
                       one_line(to_string(output), 400));
  return out;
}

int run_lang_tests(const LangOptions& opt) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(opt.dir, ec))
    if (entry.path().extension() == ".clj") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    fmt::print(stderr, "ptc_conformance: no .clj files in {}\n", opt.dir);
    return 2;
  }
  std::vector<std::string> problems;
  int passed = 0, failed = 0, left_out = 0;
  for (const auto& file : files) {
    auto text = read_file(file);
    if (!text) {
      fmt::print(stderr, "ptc_conformance: cannot read {}\n", file);
      return 2;
    }
    int file_passed = 0, file_failed = 0;
    for (const LangCase& c : parse_lang_file(*text, file, problems)) {
      std::string where = fmt::format("{}:{}", file, c.line);
      if (!opt.filter.empty() && !contains(where, opt.filter) && !contains(c.program, opt.filter))
        continue;
      if (opt.gc_stress && !c.no_gc_stress.empty()) {
        ++left_out;
        continue;
      }
      if (opt.trace) {
        fmt::print("... {}\n", where);
        std::fflush(stdout);
      }
      auto failure = check_lang_case(c, opt.gc_stress);
      if (!failure) {
        ++file_passed;
        continue;
      }
      ++file_failed;
      fmt::print("FAILED {}\n    program: {}\n{}", where, indent_program(c.program), *failure);
    }
    fmt::print("{}: {} passed, {} failed\n", fs::path(file).filename().string(), file_passed,
               file_failed);
    passed += file_passed;
    failed += file_failed;
  }
  for (const auto& p : problems)
    fmt::print("MALFORMED: {}\n", p);
  fmt::print("TOTAL: {} passed, {} failed{}\n", passed, failed,
             opt.gc_stress ? fmt::format(" ({} left out under --gc-stress)", left_out) : "");
  return failed == 0 && problems.empty() ? 0 : 1;
}

}  // namespace spec
