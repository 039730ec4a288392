// ptc_conformance: runs the PtcRunner v0.13.0 conformance corpus (spec/cases)
// through ptc::run and checks every result against its expectation and
// against spec/expected_failures.txt. See spec/README.md.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/collector.hpp"
#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "spec/clojure_data.hpp"
#include "spec/compare.hpp"
#include "spec/expected_list.hpp"
#include "spec/lang_tests.hpp"
#include "spec/program_io.hpp"
#include "spec/self_test.hpp"

namespace spec {
namespace {

// The three corpus files and the level at which their rows pass.
struct CorpusFile {
  const char* name;
  Level pass_level;
};
constexpr CorpusFile kFiles[] = {
    {"spec_examples", Level::Strict},
    {"clojure_equivalence", Level::Numeric},
    {"ptc_assertions", Level::Strict},
};

struct Case {
  size_t file = 0;  // index into kFiles
  std::string id;
  std::string program;
  bool expect_error = false;
  std::string expected_text;  // as the corpus writes it
  Datum expected;
  bool unordered = false;
  std::optional<ptc::HostValue> context;
};

// A row that cannot be checked, and why (counted, never run).
struct Skipped {
  size_t file = 0;
  std::string id;
  std::string why;
};

enum class Verdict { Pass, WrongValue, Errored, NoError };

struct Outcome {
  Verdict verdict = Verdict::Pass;
  std::optional<Level> level;  // first level at which the value matched
  std::string printed;         // the engine's printed result
  std::string structural;      // the result as the runner read it
  ptc::Error error;
  std::string reason;  // a generated one-line reason when not passed
};

bool passed(const Outcome& o) {
  return o.verdict == Verdict::Pass;
}

struct Options {
  std::string cases_dir = "spec/cases";
  std::string expected_path = "spec/expected_failures.txt";
  std::string filter;
  std::string only_file;
  bool update = false;
  bool verbose = false;
  bool trace = false;
  bool gc_stress = false;
  std::string lang_dir;
};

const char* kUsage =
    "usage: ptc_conformance [--cases DIR] [--expected FILE] [--update-expected]\n"
    "                       [--filter SUBSTR] [--file NAME] [--verbose] [--trace]\n"
    "                       [--gc-stress] [--isolate]\n"
    "       ptc_conformance --lang DIR [--filter SUBSTR] [--trace] [--gc-stress] [--isolate]\n"
    "       ptc_conformance --self-test\n"
    "\n"
    "  --cases DIR         the corpus (spec_examples.jsonl, clojure_equivalence.jsonl,\n"
    "                      ptc_assertions.jsonl); default spec/cases\n"
    "  --expected FILE     the expected-failures list; default spec/expected_failures.txt\n"
    "  --update-expected   rewrite FILE from this run's failures\n"
    "  --filter SUBSTR     run only ids containing SUBSTR\n"
    "  --file NAME         run only one file (spec_examples, clojure_equivalence,\n"
    "                      ptc_assertions)\n"
    "  --verbose           show every failure, expected or not, and every pass\n"
    "                      that needed a looser level than exact\n"
    "  --trace             print each id before running it (to find a crash)\n"
    "  --gc-stress         collect the heap at every safe point of every run (the\n"
    "                      results must not change)\n"
    "  --isolate           run every case in a jailed worker process (ptc::WorkerPool):\n"
    "                      the results must be those of in-process runs\n"
    "  --lang DIR          run the language's tests, DIR/*.clj (tests/lang/README.md);\n"
    "                      --filter then matches a file:line or a program\n"
    "  --self-test         check the runner's own parser and comparer\n";

// The JSON `context` of a row as a host map. String values hold Clojure data
// (the budget rows write `{"work-turns" 10 ...}`), so they are read as such.
ptc::HostValue context_value(const ptc::HostValue& j) {
  using H = ptc::HostValue;
  switch (j.kind()) {
    case H::Kind::String: {
      if (auto d = parse_clojure(j.text()); d && d->kind != Datum::Kind::Symbol) return to_host(*d);
      return j;
    }
    case H::Kind::Vector: {
      std::vector<H> items;
      for (const auto& i : j.items())
        items.push_back(context_value(i));
      return H::vector(std::move(items));
    }
    case H::Kind::Map: {
      std::vector<std::pair<H, H>> entries;
      const auto& kv = j.items();
      for (size_t i = 0; i + 1 < kv.size(); i += 2)
        entries.emplace_back(kv[i], context_value(kv[i + 1]));
      return H::map(std::move(entries));
    }
    default:
      return j;
  }
}

// A string field of a row; "" when absent or not a string.
std::string str_field(const ptc::HostValue& row, std::string_view key) {
  const ptc::HostValue* v = row.get(key);
  return v && v->kind() == ptc::HostValue::Kind::String ? v->text() : std::string();
}

// Reads an expected value; prose ("3.333...", "ERROR", a bare symbol) is not
// a value.
std::optional<Datum> expected_value(const std::string& text, std::string* why) {
  auto d = parse_clojure(text, why);
  if (d && d->kind == Datum::Kind::Symbol) {
    *why = "a bare symbol is prose, not a value";
    return std::nullopt;
  }
  return d;
}

void load_row(size_t file, const ptc::HostValue& row, std::vector<Case>& cases,
              std::vector<Skipped>& skipped) {
  Case c;
  c.file = file;
  c.id = str_field(row, "id");
  c.program = str_field(row, "program");
  const ptc::HostValue* unordered = row.get("unordered");
  c.unordered =
      unordered && unordered->kind() == ptc::HostValue::Kind::Bool && unordered->as_bool();
  if (const ptc::HostValue* ctx = row.get("context");
      ctx && ctx->kind() == ptc::HostValue::Kind::Map)
    c.context = context_value(*ctx);

  std::string field;
  std::string name = kFiles[file].name;
  if (name == "spec_examples") {
    std::string kind = str_field(row, "kind");
    if (kind == "error") {
      c.expect_error = true;
      c.expected_text = str_field(row, "expected");
      cases.push_back(std::move(c));
      return;
    }
    if (kind != "value") {
      skipped.push_back({file, c.id, "kind " + kind});
      return;
    }
    field = "expected";
  } else if (name == "clojure_equivalence") {
    if (const ptc::HostValue* err = row.get("clojure_error"); err && !err->is_nil()) {
      c.expect_error = true;
      c.expected_text =
          "error: " + (err->kind() == ptc::HostValue::Kind::String ? err->text() : std::string());
      cases.push_back(std::move(c));
      return;
    }
    field = "clojure";
  } else {
    field = "ptc_expected";
  }
  const ptc::HostValue* v = row.get(field);
  if (!v || v->kind() != ptc::HostValue::Kind::String) {
    skipped.push_back({file, c.id, "no " + field});
    return;
  }
  c.expected_text = v->text();
  std::string why;
  auto d = expected_value(c.expected_text, &why);
  if (!d) {
    skipped.push_back({file, c.id, "expected value unreadable: " + why});
    return;
  }
  c.expected = std::move(*d);
  cases.push_back(std::move(c));
}

bool load_corpus(const std::string& dir, std::vector<Case>& cases, std::vector<Skipped>& skipped) {
  for (size_t f = 0; f < std::size(kFiles); ++f) {
    std::string path = dir + "/" + kFiles[f].name + ".jsonl";
    auto text = read_file(path);
    if (!text) {
      fmt::print(stderr, "ptc_conformance: cannot read {}\n", path);
      return false;
    }
    std::istringstream in(*text);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        load_row(f, ptc::parse_json(line), cases, skipped);
      } catch (const std::exception& e) {
        fmt::print(stderr, "ptc_conformance: {}:{}: {}\n", path, line_no, e.what());
        return false;
      }
    }
  }
  return true;
}

Outcome run_case(const Case& c) {
  ptc::RunOptions options;
  if (c.context) options.context = *c.context;
  ptc::Step r = run_guarded(c.program, options);
  Outcome o;
  if (!r.ok) {
    o.error = r.error;
    if (c.expect_error) return o;
    o.verdict = Verdict::Errored;
    o.reason = reason_for_error(r.error);
    return o;
  }
  o.printed = r.printed;
  Datum actual = from_host(r.value);
  o.structural = to_string(actual);
  if (c.expect_error) {
    o.verdict = Verdict::NoError;
    o.reason = reason_for_value(r.printed, "expected an error");
    return o;
  }
  o.level = first_match(c.expected, actual, c.unordered);
  Level need = kFiles[c.file].pass_level;
  if (o.level && static_cast<int>(*o.level) <= static_cast<int>(need)) return o;
  o.verdict = Verdict::WrongValue;
  std::string note;
  if (o.level) note = fmt::format("equal only at {} level", level_name(*o.level));
  o.reason = reason_for_value(r.printed, note);
  return o;
}

// Every undefined name a failing program uses, not only the first one the
// engine reports: each missing name is stubbed with (def name nil) and the
// program re-run until no new one appears. Qualified names cannot be stubbed,
// so the search stops at the first one.
std::vector<std::string> all_missing_names(const Case& c, const std::string& first) {
  std::vector<std::string> names{first};
  std::string stubs;
  for (int round = 0; round < 32; ++round) {
    const std::string& last = names.back();
    if (last.find('/') != std::string::npos && last != "/") break;
    stubs += "(def " + last + " nil)\n";
    ptc::RunOptions options;
    if (c.context) options.context = *c.context;
    ptc::Step r = run_guarded(stubs + c.program, options);
    if (r.ok) break;
    auto next = missing_name(r.error);
    if (!next || std::find(names.begin(), names.end(), *next) != names.end()) break;
    names.push_back(*next);
  }
  return names;
}

// "a 3, b 2, ..." for the `limit` largest counts.
std::string top_counts(const std::map<std::string, int>& counts, size_t limit) {
  std::vector<std::pair<std::string, int>> top(counts.begin(), counts.end());
  std::stable_sort(top.begin(), top.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string line;
  for (size_t i = 0; i < top.size() && i < limit; ++i)
    line += fmt::format("{}{} {}", i ? ", " : "", top[i].first, top[i].second);
  return line;
}

void print_failure(const char* label, const Case& c, const Outcome& o) {
  fmt::print("{} {}\n", label, c.id);
  fmt::print("    program: {}\n", indent_program(c.program));
  fmt::print("    expected: {}\n",
             c.expect_error ? "an error (" + c.expected_text + ")" : c.expected_text);
  if (o.verdict == Verdict::Errored) {
    fmt::print("    actual: error {}: {}\n", ptc::reason_name(o.error.kind),
               one_line(o.error.message, 300));
  } else {
    fmt::print("    actual: {}\n", one_line(o.printed, 300));
    if (o.structural != o.printed)
      fmt::print("    actual (as read): {}\n", one_line(o.structural, 300));
    if (o.level) fmt::print("    (equal only at the {} level)\n", level_name(*o.level));
  }
}

struct FileTally {
  int passed = 0, failed = 0, skipped = 0;
  int level[kLevels] = {0, 0, 0, 0};
  int no_match = 0, errored = 0;
  int errors_expected = 0, errors_seen = 0;
  int errors_undefined = 0;  // passing error rows that failed only on an undefined name
};

std::string write_expected_list(const std::vector<Case>& cases,
                                const std::vector<std::optional<Outcome>>& outcomes,
                                const ExpectedList& old, size_t* count) {
  std::string out =
      "# Conformance cases that fail today: `<id>  # <reason>`, one per line.\n"
      "# ptc_conformance fails when a case fails that is not listed here and when a\n"
      "# listed case passes: remove the ids your change fixes (or run\n"
      "# `ptc_conformance --update-expected`, which keeps hand-written reasons).\n"
      "# Generated reasons: `needs X` = an undefined name, `<reason>: <message>` =\n"
      "# another error, `wrong value: got <printed>` = a different result.\n";
  size_t n = 0;
  size_t last_file = SIZE_MAX;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const ExpectedList::Entry* listed = old.find(c.id);
    std::string reason;
    if (outcomes[i]) {
      if (passed(*outcomes[i])) continue;
      reason = outcomes[i]->reason;
      if (listed && !listed->reason.empty() && !is_generated_reason(listed->reason))
        reason = listed->reason;
    } else {
      if (!listed) continue;  // not run this time: keep what was there
      reason = listed->reason;
    }
    if (c.file != last_file) {
      out += fmt::format("\n# {}.jsonl\n", kFiles[c.file].name);
      last_file = c.file;
    }
    out += c.id + "  # " + reason + "\n";
    ++n;
  }
  *count = n;
  return out;
}

int run_suite(const Options& opt) {
  std::vector<Case> cases;
  std::vector<Skipped> skipped;
  if (!load_corpus(opt.cases_dir, cases, skipped)) return 2;

  ExpectedList expected;
  if (auto text = read_file(opt.expected_path)) {
    expected = parse_expected_list(*text);
  } else if (!opt.update) {
    fmt::print(stderr, "ptc_conformance: cannot read {}\n", opt.expected_path);
    return 2;
  }

  std::optional<size_t> only_file;
  if (!opt.only_file.empty()) {
    std::string want = opt.only_file;
    if (want.ends_with(".jsonl")) want.resize(want.size() - 6);
    for (size_t f = 0; f < std::size(kFiles); ++f)
      if (want == kFiles[f].name) only_file = f;
    if (!only_file) {
      fmt::print(stderr, "ptc_conformance: unknown --file {}\n", opt.only_file);
      return 2;
    }
  }
  auto selected = [&](size_t file, const std::string& id) {
    return (!only_file || *only_file == file) &&
           (opt.filter.empty() || id.find(opt.filter) != std::string::npos);
  };

  std::vector<std::optional<Outcome>> outcomes(cases.size());
  FileTally tally[std::size(kFiles)];
  std::vector<size_t> unexpected_fail, unexpected_pass;
  std::map<std::string, int> needed_first;  // first missing name -> failing rows
  std::map<std::string, int> needed_all;    // any missing name -> failing rows
  int listed_failures = 0;

  for (const Skipped& s : skipped) {
    if (!selected(s.file, s.id)) continue;
    ++tally[s.file].skipped;
    if (opt.verbose) fmt::print("not checkable: {} ({})\n", s.id, s.why);
  }

  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (!selected(c.file, c.id)) continue;
    if (opt.trace) {
      fmt::print("... {}\n", c.id);
      std::fflush(stdout);
    }
    outcomes[i] = run_case(c);
    const Outcome& o = *outcomes[i];
    FileTally& t = tally[c.file];
    bool listed = expected.find(c.id) != nullptr;
    if (c.expect_error) {
      ++t.errors_expected;
      if (passed(o)) ++t.errors_seen;
      if (passed(o) && missing_name(o.error)) ++t.errors_undefined;
    } else if (o.level) {
      ++t.level[static_cast<int>(*o.level)];
    } else if (o.verdict == Verdict::Errored) {
      ++t.errored;
    } else {
      ++t.no_match;
    }
    if (passed(o)) {
      ++t.passed;
      if (opt.verbose && o.level && *o.level != Level::Exact)
        fmt::print("passed at the {} level: {}  {} => {}\n", level_name(*o.level), c.id,
                   one_line(c.program, 60), one_line(o.printed, 60));
      if (listed) unexpected_pass.push_back(i);
      continue;
    }
    ++t.failed;
    if (auto name = missing_name(o.error); name && o.verdict == Verdict::Errored) {
      ++needed_first[*name];
      for (const auto& n : all_missing_names(c, *name))
        ++needed_all[n];
    }
    if (listed) {
      ++listed_failures;
      if (opt.verbose) print_failure("expected failure:", c, o);
    } else {
      unexpected_fail.push_back(i);
    }
  }

  // Every listed id must name a checkable case of the corpus.
  std::set<std::string> known;
  for (const Case& c : cases)
    known.insert(c.id);
  std::vector<std::string> unknown;
  for (const auto& e : expected.entries)
    if (!known.count(e.id)) unknown.push_back(e.id);

  // Report.
  int total_passed = 0, total_failed = 0;
  for (size_t f = 0; f < std::size(kFiles); ++f) {
    const FileTally& t = tally[f];
    if (only_file && *only_file != f) continue;
    if (!opt.filter.empty() && t.passed + t.failed + t.skipped == 0) continue;
    total_passed += t.passed;
    total_failed += t.failed;
    fmt::print("{}.jsonl: {} passed, {} failed ({} not checkable; pass level {})\n", kFiles[f].name,
               t.passed, t.failed, t.skipped, level_name(kFiles[f].pass_level));
    fmt::print(
        "    values first equal at: exact {}, strict {}, numeric {}, upstream {} (upstream-only "
        "is a failure); unequal {}; errored {}; error rows failing as expected {} of {} ({} "
        "only on an undefined name)\n",
        t.level[0], t.level[1], t.level[2], t.level[3], t.no_match, t.errored, t.errors_seen,
        t.errors_expected, t.errors_undefined);
  }

  if (!needed_first.empty()) {
    fmt::print("undefined names, failing rows that stop at them first: {}\n",
               top_counts(needed_first, 20));
    fmt::print("undefined names, failing rows that use them at all: {}\n",
               top_counts(needed_all, 20));
  }

  // --update-expected lists new failures rather than reporting each one.
  if (!opt.update)
    for (size_t i : unexpected_fail)
      print_failure("UNEXPECTED FAILURE:", cases[i], *outcomes[i]);
  for (size_t i : unexpected_pass)
    fmt::print("UNEXPECTED PASS: {} now passes; remove it from {}\n", cases[i].id,
               opt.expected_path);
  for (const auto& id : unknown)
    fmt::print("UNKNOWN ID: {} in {} is not a checkable case\n", id, opt.expected_path);
  for (const auto& p : expected.problems)
    fmt::print("MALFORMED: {}: {}\n", opt.expected_path, p);

  fmt::print("TOTAL: {} passed, {} failed ({} expected failures)\n", total_passed, total_failed,
             listed_failures);

  if (opt.update) {
    size_t count = 0;
    std::string text = write_expected_list(cases, outcomes, expected, &count);
    std::ofstream out(opt.expected_path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      fmt::print(stderr, "ptc_conformance: cannot write {}\n", opt.expected_path);
      return 2;
    }
    fmt::print("wrote {} ({} expected failures; {} newly listed, {} passing ids removed)\n",
               opt.expected_path, count, unexpected_fail.size(), unexpected_pass.size());
    return 0;
  }

  bool ok = unexpected_fail.empty() && unexpected_pass.empty() && unknown.empty() &&
            expected.problems.empty();
  if (!ok)
    fmt::print(
        "FAILED: {} unexpected failures, {} unexpected passes, {} unknown ids, {} malformed "
        "lines\n",
        unexpected_fail.size(), unexpected_pass.size(), unknown.size(), expected.problems.size());
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace spec

int main(int argc, char** argv) {
  spec::Options opt;
  bool self_test = false;
  bool isolate = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= argc) {
        fmt::print(stderr, "ptc_conformance: {} needs a value\n{}", a, spec::kUsage);
        std::exit(2);
      }
      into = argv[++i];
    };
    if (a == "--cases")
      value(opt.cases_dir);
    else if (a == "--expected")
      value(opt.expected_path);
    else if (a == "--filter")
      value(opt.filter);
    else if (a == "--file")
      value(opt.only_file);
    else if (a == "--update-expected")
      opt.update = true;
    else if (a == "--verbose")
      opt.verbose = true;
    else if (a == "--trace")
      opt.trace = true;
    else if (a == "--lang")
      value(opt.lang_dir);
    else if (a == "--isolate")
      isolate = true;
    else if (a == "--gc-stress")
      opt.gc_stress = true;
    else if (a == "--self-test")
      self_test = true;
    else if (a == "--help" || a == "-h") {
      fmt::print("{}", spec::kUsage);
      return 0;
    } else {
      fmt::print(stderr, "ptc_conformance: unknown argument {}\n{}", a, spec::kUsage);
      return 2;
    }
  }
  if (self_test) return spec::run_self_test();
  if (isolate) {
    ptc::WorkerPoolOptions pool;
    pool.workers = 2;
    pool.worker_stderr = true;
    spec::runner_isolation() = std::make_shared<ptc::WorkerPool>(pool);
  }
  ptc::set_collect_stress_for_testing(opt.gc_stress);
  if (!opt.lang_dir.empty())
    return spec::run_lang_tests({opt.lang_dir, opt.filter, opt.gc_stress, opt.trace});
  return spec::run_suite(opt);
}
