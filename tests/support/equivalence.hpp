// The equivalence of executions and runs: a program run with synchronous
// tools (ptc::run) and the same program started with every tool deferred,
// answered with the same values in some order (ptc::start, resume; dump and
// load between steps) must end the same: value, prints, memory, ledger and
// error. Used by the execution tests, the test over every program in the
// repository that calls tools, and the differential fuzz target. No
// GoogleTest here: a difference comes back as text.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace ptc::equivalence {

// The tools a program names (tool/x), found in its text. A hand scan, not
// std::regex: GCC 12's <regex> trips -Wmaybe-uninitialized under sanitizers.
inline std::set<std::string> tool_names(const std::string& source) {
  auto name_char = [](char c, bool first) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') return true;
    if (first) return false;
    return (c >= '0' && c <= '9') || std::string_view("-?!*+<>=").find(c) != std::string_view::npos;
  };
  std::set<std::string> out;
  const std::string_view prefix = "tool/";
  for (size_t at = source.find(prefix); at != std::string::npos; at = source.find(prefix, at + 1)) {
    size_t begin = at + prefix.size(), end = begin;
    while (end < source.size() && name_char(source[end], end == begin))
      ++end;
    if (end > begin) out.insert(source.substr(begin, end - begin));
  }
  return out;
}

// A deterministic answer for any tool and arguments: mostly a map echoing the
// call (so programs that read fields get data), sometimes a plain value, and
// a tool error for arguments that ask for one ({:fail ...}).
inline ToolResult answer(const std::string& tool, const HostValue& args) {
  const HostValue* fail = args.get("fail");
  if (fail && fail->kind() == HostValue::Kind::Bool && fail->as_bool())
    return ToolResult::failure("asked to fail");
  std::string key = canonical_args_key(args);
  uint64_t h = std::stoull(key.substr(0, 12), nullptr, 16) ^ std::hash<std::string>{}(tool);
  switch (h % 5) {
    case 0:
      return ToolResult::success(HostValue::integer(static_cast<int64_t>(h % 1000)));
    case 1:
      return ToolResult::success(HostValue::string("r-" + key.substr(0, 6)));
    default: {
      std::vector<std::pair<HostValue, HostValue>> m;
      m.emplace_back(HostValue::string("tool"), HostValue::string(tool));
      // Echoed when small: a program that sends megabytes would get them back
      // at every call, and every snapshot would carry them.
      m.emplace_back(HostValue::string("args"),
                     format_value(args, 0, nullptr, 256).size() < 256 ? args : HostValue::nil());
      m.emplace_back(HostValue::string("n"), HostValue::integer(static_cast<int64_t>(h % 97)));
      m.emplace_back(HostValue::string("items"),
                     HostValue::vector({HostValue::integer(1), HostValue::integer(2)}));
      return ToolResult::success(HostValue::map(std::move(m)));
    }
  }
}

// How the host answers an execution.
struct Strategy {
  enum class Order { AllAtOnce, OneAtATimeLastFirst, Halves } order = Order::AllAtOnce;
  bool dump_and_load = false;  // before resumes
  size_t dump_every = 1;       // with dump_and_load: before every this many resumes
  std::string key;             // sign the snapshots
};

inline std::string describe(const Step& s) {
  if (s.ok) return "ok " + s.printed;
  return "error " + format_error(s.error);
}

// The ledger compared without its timings, in order.
inline std::string ledger_text(const std::vector<ToolCall>& calls, bool sorted) {
  std::vector<std::string> lines;
  for (const ToolCall& c : calls)
    lines.push_back(c.name + " " + c.args_key + " " + format_value(c.args) + " -> " +
                    (c.error.empty() ? format_value(c.result) : "error " + c.error) +
                    (c.cached ? " cached" : ""));
  if (sorted) std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines)
    out += l + "\n";
  return out;
}

// Empty when the two steps end the same; else what differs. Parallel
// branches record their calls in the order they end, which depends on
// scheduling: with `parallel`, ledgers are compared as sets.
// Equal, or printed alike: ##NaN is not equal to itself.
inline bool same_value(const HostValue& a, const HostValue& b) {
  return a == b || format_value(a) == format_value(b);
}

inline std::string compare(const Step& ran, const Step& executed, bool parallel) {
  if (ran.ok != executed.ok || (ran.ok && !same_value(ran.value, executed.value)) ||
      ran.printed != executed.printed)
    return "outcome: run gave " + describe(ran) + ", the execution " + describe(executed);
  // When parallel branches fail, which failure ends the call (and which
  // siblings had started, printed and called tools before they were stopped)
  // depends on timing, in ptc::run itself.
  if (parallel && !ran.ok) return "";
  if (!ran.ok &&
      (ran.error.kind != executed.error.kind || ran.error.message != executed.error.message ||
       ran.error.loc.line != executed.error.loc.line ||
       ran.error.loc.col != executed.error.loc.col))
    return "error: run gave " + format_error(ran.error) + ", the execution " +
           format_error(executed.error);
  if (!same_value(ran.memory, executed.memory))
    return "memory: run gave " + format_value(ran.memory) + ", the execution " +
           format_value(executed.memory);
  if (ran.prints != executed.prints) return "prints differ";
  std::string a = ledger_text(ran.tool_calls, parallel);
  std::string b = ledger_text(executed.tool_calls, parallel);
  if (a != b) return "ledger: run gave\n" + a + "the execution\n" + b;
  if (ran.returned != executed.returned) return "returned differs";
  return "";
}

// The program through ptc::run with every tool it names answering
// synchronously.
inline Step run_sync(const std::string& source, RunOptions options) {
  for (const std::string& name : tool_names(source))
    if (!options.tools.count(name))
      options.tools[name] = Tool{[name](const HostValue& args) { return answer(name, args); }};
  return run(source, options);
}

// The program through ptc::start with every tool it names deferred, answered
// by `strategy`. `steps` counts the suspensions. A problem with the
// execution itself (a resume refused, a load failing) comes back in `trouble`.
inline Step run_executed(const std::string& source, RunOptions options, const Strategy& strategy,
                         size_t* steps = nullptr, std::string* trouble = nullptr) {
  RunOptions deferred = options;
  for (const std::string& name : tool_names(source))
    if (!deferred.tools.count(name)) deferred.deferred_tools.push_back(name);
  Execution e = start(source, deferred);
  size_t n = 0;
  bool too_big = false;
  try {
    while (!e.done()) {
      if (++n > 100000) {
        if (trouble) *trouble = "more than 100000 suspensions";
        e.cancel();
        break;
      }
      if (strategy.dump_and_load && !too_big && (n - 1) % strategy.dump_every == 0) {
        std::string bytes = e.dump(strategy.key);
        // Loading replays the journal: megabytes of answers, loaded again at
        // every step, would take the test minutes and tell no more.
        if (bytes.size() > (size_t{1} << 20)) too_big = true;
        // The loading side knows no tool functions: every tool is deferred.
        RunOptions loading = options;
        loading.tools.clear();
        if (!too_big) {
          e = load(bytes, loading, strategy.key);
          if (e.done()) break;
        }
      }
      std::vector<PendingCall> calls = e.pending();
      if (calls.empty()) {
        if (trouble) *trouble = "suspended with no pending call";
        break;
      }
      if (strategy.order == Strategy::Order::OneAtATimeLastFirst) calls = {calls.back()};
      if (strategy.order == Strategy::Order::Halves && calls.size() > 1)
        calls.resize((calls.size() + 1) / 2);
      ptc::Answers answers;
      for (const PendingCall& c : calls)
        answers.emplace(c.id, answer(c.tool, c.args));
      e.resume(std::move(answers));
    }
  } catch (LispError& err) {
    if (trouble) *trouble = "the execution failed: " + format_error(err.error());
    Step s;
    s.error = err.error();
    return s;
  }
  if (steps) *steps = n;
  return e.step();
}

inline bool timed_out(const Step& s) {
  return !s.ok && (s.error.kind == ErrorKind::Timeout || s.error.kind == ErrorKind::Cancelled);
}

// Empty when every strategy ends as ptc::run does.
inline std::string check_program(const std::string& source, const RunOptions& options = {}) {
  Step ran = run_sync(source, options);
  bool parallel =
      source.find("pmap") != std::string::npos || source.find("pcalls") != std::string::npos;
  Strategy strategies[] = {
      {Strategy::Order::AllAtOnce, false, 1, ""},
      {Strategy::Order::OneAtATimeLastFirst, false, 1, ""},
      {Strategy::Order::Halves, true, 1, ""},
      {Strategy::Order::AllAtOnce, true, 1, "k3y"},
  };
  size_t steps = 0;
  double first_ms = 0;
  for (Strategy& s : strategies) {
    // Loading replays everything before it: with many steps, a dump at
    // every one would cost their square; some twenty of them tell as much.
    // A program whose execution alone takes long (thousands of steps, huge
    // arguments hashed at every call) would take minutes so.
    if (s.dump_and_load) {
      if (steps > 2000 || first_ms > 50) continue;
      s.dump_every = 1 + steps / 20;
    }
    std::string trouble;
    auto t0 = std::chrono::steady_clock::now();
    Step executed = run_executed(source, options, s, &steps, &trouble);
    if (first_ms == 0)
      first_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!trouble.empty()) return trouble;
    // Work cut short by the clock stops at a place that depends on timing
    // (an execution's branches share one thread, and a load replays).
    if (timed_out(ran) || timed_out(executed)) continue;
    std::string diff = compare(ran, executed, parallel);
    if (!diff.empty())
      return diff + " (strategy " + std::to_string(static_cast<int>(s.order)) +
             (s.dump_and_load ? ", dump+load" : "") + ")";
  }
  return "";
}

}  // namespace ptc::equivalence
