// What the world answered an execution: every tool call's outcome and every
// clock read, by the branch that asked (its path: "" for the program,
// "p0.3/" for branch 3 of its first parallel call, "p0.3/p1.0/" nested) and
// its place among that branch's calls or reads. PTC-Lisp is deterministic,
// so a program run again against its journal asks the same questions in
// every branch, in the same order, and gets the same answers: that is how a
// snapshot (the inputs plus the journal) becomes the same execution again.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/value.hpp"

namespace ptc {

class Ctx;

// A value the journal holds: a host value (recorded by this process) or its
// bytes in a snapshot (loaded), each made from the other when first asked
// for. A loaded journal's values stay bytes unless a ledger or the cache
// needs them as host values: a replay imports them from the bytes, and a
// dump copies the bytes.
class JournalValue {
 public:
  JournalValue() = default;
  explicit JournalValue(HostValue value);
  // `bytes` (checked when the snapshot was read) must outlive it: they are
  // the journal's own copy of the snapshot.
  static JournalValue encoded(std::string_view bytes);

  const HostValue& value() const;
  std::string_view bytes() const;
  // Into the run's arena, as import_value would.
  Value import(Ctx& ctx) const;
  // About how many bytes it holds of its own (a loaded snapshot's bytes are
  // the journal's).
  size_t held_bytes() const;

 private:
  struct Held {
    HostValue value;
    bool decoded = false;
    std::string encoded;  // the encoding of a value recorded here, once asked for
  };
  std::string_view bytes_;              // into a loaded snapshot
  mutable std::unique_ptr<Held> held_;  // made only when needed: most loaded values never are
};

// A canonical_args_key (32 hex digits), kept in place.
struct ArgsKey {
  std::array<char, 32> hex{};
  std::string_view view() const { return {hex.data(), hex.size()}; }
  static ArgsKey of(std::string_view key);  // key: 32 hex digits
};

// One tool call: how it ended, and its entry in the run's ledger as the
// broker wrote it (what a replay gives back without working it out again).
struct JournalCall {
  std::string tool;
  ArgsKey args_key;  // canonical_args_key of its arguments
  bool ok = true;    // the tool succeeded: `value` is its answer
  JournalValue value;
  std::string error;    // the tool's message, or why its answer could not be used
  bool cached = false;  // answered from the tool cache
  double duration_ms = 0;
  uint64_t ledger_seq = 0;   // where its ledger entry stood among the run's
  JournalValue ledger_args;  // the ledger's arguments (a preview when truncated)
  bool args_truncated = false;
  JournalValue ledger_result;  // the ledger's preview of `value`, when truncated
  bool result_truncated = false;
  // Heap bytes the call charged to the run: storing its answer in the cache,
  // and its ledger entry.
  uint64_t cache_charge = 0;
  uint64_t ledger_charge = 0;

  // The ledger entry.
  ToolCall ledger_entry() const;
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
  std::vector<JournalCall> tools;  // by call number
  std::vector<ClockRun> clocks;    // by first read, contiguous
  // The encoding of the first `loaded_tools` calls as the snapshot read
  // held them (in the journal's copy of it): a dump copies them rather than
  // writing each again.
  std::string_view loaded_bytes;
  size_t loaded_tools = 0;

  uint32_t clock_reads() const {
    return clocks.empty() ? 0 : clocks.back().first + clocks.back().count;
  }
  std::optional<int64_t> clock(uint32_t read) const;
  void add_clock(int64_t ms);
};

class Journal {
 public:
  // The bytes of the snapshot it was read from, which its values point into.
  void keep(std::shared_ptr<const std::string> snapshot) { snapshot_ = std::move(snapshot); }

  // The branch at `path`, made when missing.
  BranchJournal& branch(std::string_view path);
  const BranchJournal* find(std::string_view path) const;
  const std::map<std::string, BranchJournal, std::less<>>& branches() const { return branches_; }

  // A new call at the end of `branch` (one of this journal's), to fill in.
  JournalCall& new_call(BranchJournal& branch);
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
  std::shared_ptr<const std::string> snapshot_;
};

// A call's id: the branch path, then "c" and its number there ("p0.3/c1").
std::string call_id(std::string_view path, uint32_t number);
// The inverse; nullopt for a string that is not a call id.
std::optional<std::pair<std::string, uint32_t>> parse_call_id(std::string_view id);
// Orders call ids by their numbers rather than their text ("p0.2/" before
// "p0.10/"), so pending calls are listed the same way whichever branch
// happened to wait first.
bool call_id_before(std::string_view a, std::string_view b);
// Whether `path` is a branch path: "" or one or more "p<call>.<branch>/".
bool valid_branch_path(std::string_view path);

}  // namespace ptc
