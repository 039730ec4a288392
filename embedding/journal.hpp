// What the world answered an execution: every tool call's outcome and every
// clock read, by the branch that asked (its path: "" for the program,
// "p0.3/" for branch 3 of its first parallel call, "p0.3/p1.0/" nested) and
// its place among that branch's calls or reads. PTC-Lisp is deterministic,
// so a program run again against its journal asks the same questions in
// every branch, in the same order, and gets the same answers: that is how a
// snapshot (the inputs plus the journal) becomes the same execution again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/host_value.hpp"

namespace ptc {

// How one tool call ended, as the broker saw it.
struct ToolOutcome {
  std::string tool;
  std::string args_key;  // canonical_args_key of its arguments
  bool ok = true;
  HostValue value;      // when ok
  std::string error;    // when not: the tool's message
  bool cached = false;  // answered from the tool cache
  double duration_ms = 0;
  uint64_t ledger_seq = 0;  // where its ledger entry stood among the run's
};

// Clock reads first .. first+count-1 of a branch all read `ms` (a program
// reading the clock in a loop reads the same millisecond many times: runs
// keep the journal of a clock-bound loop to one entry per millisecond).
struct ClockRun {
  uint32_t first = 0;
  uint32_t count = 0;
  int64_t ms = 0;
};

struct BranchJournal {
  std::vector<ToolOutcome> tools;  // by call number
  std::vector<ClockRun> clocks;    // by first read, contiguous

  uint32_t clock_reads() const {
    return clocks.empty() ? 0 : clocks.back().first + clocks.back().count;
  }
  std::optional<int64_t> clock(uint32_t read) const;
  void add_clock(int64_t ms);
};

class Journal {
 public:
  // The branch at `path`, made when missing.
  BranchJournal& branch(std::string_view path);
  const BranchJournal* find(std::string_view path) const;
  const std::map<std::string, BranchJournal, std::less<>>& branches() const { return branches_; }

  void add_tool(std::string_view path, ToolOutcome outcome);
  void add_clock(std::string_view path, int64_t ms);
  // `count` reads in a row that read `ms` (a snapshot's run).
  void add_clock_run(std::string_view path, uint32_t count, int64_t ms);

  size_t tool_count() const { return tool_count_; }
  size_t clock_entries() const;
  // About how many bytes the journal holds (names, keys, results); walks it.
  size_t bytes() const;

 private:
  std::map<std::string, BranchJournal, std::less<>> branches_;
  size_t tool_count_ = 0;
};

// A call's id: the branch path, then "c" and its number there ("p0.3/c1").
std::string call_id(std::string_view path, uint32_t number);
// The inverse; nullopt for a string that is not a call id.
std::optional<std::pair<std::string, uint32_t>> parse_call_id(std::string_view id);
// Whether `path` is a branch path: "" or one or more "p<call>.<branch>/".
bool valid_branch_path(std::string_view path);

}  // namespace ptc
