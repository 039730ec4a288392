#include "embedding/journal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "embedding/snapshot.hpp"
#include "embedding/tool_broker.hpp"
#include "runtime/host_value.hpp"

namespace ptc {

std::optional<int64_t> BranchJournal::clock(uint32_t read) const {
  // Runs are contiguous and ordered: the last run starting at or before `read`.
  size_t lo = 0, hi = clocks.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (clocks[mid].first <= read)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return std::nullopt;
  const ClockRun& run = clocks[lo - 1];
  if (read - run.first >= run.count) return std::nullopt;
  return run.ms;
}

void BranchJournal::add_clock(int64_t ms) {
  if (!clocks.empty() && clocks.back().ms == ms) {
    ++clocks.back().count;
    return;
  }
  clocks.push_back({clock_reads(), 1, ms});
}

BranchJournal& Journal::branch(std::string_view path) {
  auto it = branches_.find(path);
  if (it != branches_.end()) return it->second;
  return branches_.emplace(std::string(path), BranchJournal{}).first->second;
}

const BranchJournal* Journal::find(std::string_view path) const {
  auto it = branches_.find(path);
  return it == branches_.end() ? nullptr : &it->second;
}

JournalValue::JournalValue(HostValue value) : held_(std::make_unique<Held>()) {
  held_->value = std::move(value);
  held_->decoded = true;
}

JournalValue JournalValue::encoded(std::string_view bytes) {
  JournalValue v;
  v.bytes_ = bytes;
  return v;
}

const HostValue& JournalValue::value() const {
  if (!held_) held_ = std::make_unique<Held>();
  if (!held_->decoded) {
    held_->value = decode_value(bytes_);
    held_->decoded = true;
  }
  return held_->value;
}

std::string_view JournalValue::bytes() const {
  if (!bytes_.empty() || !held_) return bytes_;
  if (held_->encoded.empty()) held_->encoded = encode_value(held_->value);
  return held_->encoded;
}

size_t JournalValue::held_bytes() const {
  if (!held_) return 0;
  return (held_->decoded ? host_value_bytes(held_->value) : 0) + held_->encoded.size();
}

Value JournalValue::import(Ctx& ctx) const {
  if (bytes_.empty() && held_) return import_value(ctx, held_->value);
  return import_encoded(ctx, bytes_);
}

ArgsKey ArgsKey::of(std::string_view key) {
  ArgsKey k;
  std::copy_n(key.data(), std::min(key.size(), k.hex.size()), k.hex.begin());
  return k;
}

ToolCall JournalCall::ledger_entry() const {
  ToolCall c;
  c.name = tool;
  c.args = ledger_args.value();
  c.args_truncated = args_truncated;
  c.args_key = std::string(args_key.view());
  if (result_truncated)
    c.result = ledger_result.value();
  else if (ok && error.empty())
    c.result = value.value();
  c.result_truncated = result_truncated;
  c.error = error;
  c.duration_ms = duration_ms;
  c.cached = cached;
  return c;
}

JournalCall& Journal::new_call(BranchJournal& branch) {
  ++tool_count_;
  return branch.tools.emplace_back();
}

void Journal::add_clock(std::string_view path, int64_t ms) {
  branch(path).add_clock(ms);
}

void Journal::add_clock_run(std::string_view path, uint32_t count, int64_t ms) {
  BranchJournal& b = branch(path);
  b.clocks.push_back({b.clock_reads(), count, ms});
}

size_t Journal::bytes() const {
  size_t bytes = snapshot_ ? snapshot_->size() : 0;
  for (const auto& [path, b] : branches_) {
    bytes += path.size() + 96 + b.clocks.size() * sizeof(ClockRun);
    for (const JournalCall& t : b.tools)
      bytes += sizeof(JournalCall) + t.tool.size() + t.error.size() + t.value.held_bytes() +
               t.ledger_args.held_bytes() + t.ledger_result.held_bytes();
  }
  return bytes;
}

size_t Journal::clock_entries() const {
  size_t n = 0;
  for (const auto& [_, b] : branches_)
    n += b.clocks.size();
  return n;
}

std::string call_id(std::string_view path, uint32_t number) {
  std::string id(path);
  id += 'c';
  id += std::to_string(number);
  return id;
}

namespace {

// Reads a decimal number at the front of `s` (no sign, no leading zeros but
// "0"); nullopt when there is none.
std::optional<uint32_t> read_number(std::string_view& s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9')
    ++n;
  if (n == 0 || (n > 1 && s[0] == '0')) return std::nullopt;
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + n, v);
  if (ec != std::errc() || end != s.data() + n) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

// Consumes one "p<call>.<branch>/" segment; false when `s` does not start with one.
bool read_segment(std::string_view& s) {
  std::string_view t = s;
  if (t.empty() || t[0] != 'p') return false;
  t.remove_prefix(1);
  if (!read_number(t) || t.empty() || t[0] != '.') return false;
  t.remove_prefix(1);
  if (!read_number(t) || t.empty() || t[0] != '/') return false;
  t.remove_prefix(1);
  s = t;
  return true;
}

}  // namespace

bool valid_branch_path(std::string_view path) {
  while (!path.empty())
    if (!read_segment(path)) return false;
  return true;
}

bool call_id_before(std::string_view a, std::string_view b) {
  auto digits = [](std::string_view s, size_t i) {
    size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9')
      ++j;
    return j - i;
  };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    size_t na = digits(a, i), nb = digits(b, j);
    if (na && nb) {
      // Numbers have no leading zeros: the shorter one is the smaller.
      if (na != nb) return na < nb;
      if (int c = a.substr(i, na).compare(b.substr(j, nb)); c != 0) return c < 0;
      i += na;
      j += nb;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::optional<std::pair<std::string, uint32_t>> parse_call_id(std::string_view id) {
  std::string_view rest = id;
  while (!rest.empty() && rest[0] == 'p')
    if (!read_segment(rest)) return std::nullopt;
  std::string path(id.substr(0, id.size() - rest.size()));
  if (rest.empty() || rest[0] != 'c') return std::nullopt;
  rest.remove_prefix(1);
  auto number = read_number(rest);
  if (!number || !rest.empty()) return std::nullopt;
  return std::make_pair(std::move(path), *number);
}

}  // namespace ptc
