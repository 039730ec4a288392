#include "embedding/snapshot.hpp"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>

#include "embedding/value_codec.hpp"
#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/key_strings.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

constexpr std::string_view kMagic = "ptc-snap";
constexpr size_t kMacBytes = 32;
constexpr uint8_t kSigned = 1;

std::string mac_of(std::string_view data, std::string_view key) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len) ||
      len != kMacBytes)
    throw_error(ErrorKind::SnapshotError, "HMAC-SHA256 could not be computed");
  return std::string(reinterpret_cast<const char*>(out), len);
}

// ---------------------------------------------------------------- writing

void write_journal(ValueWriter& w, const Journal& journal) {
  w.varint(journal.branches().size());
  for (const auto& [path, branch] : journal.branches()) {
    w.str(path);
    w.varint(branch.tools.size());
    w.out += branch.loaded_bytes;
    for (size_t i = branch.loaded_tools; i < branch.tools.size(); ++i) {
      const JournalCall& t = branch.tools[i];
      w.str(t.tool);
      w.str(t.args_key.view());
      w.u8((t.ok ? 1 : 0) | (t.cached ? 2 : 0) | (t.args_truncated ? 4 : 0) |
           (t.result_truncated ? 8 : 0));
      if (t.ok) w.out += t.value.bytes();
      w.str(t.error);
      w.f64(t.duration_ms);
      w.varint(t.ledger_seq);
      w.out += t.ledger_args.bytes();
      if (t.result_truncated) w.out += t.ledger_result.bytes();
      w.varint(t.cache_charge);
      w.varint(t.ledger_charge);
    }
    w.varint(branch.clocks.size());
    for (const ClockRun& c : branch.clocks) {
      w.varint(c.count);
      w.svarint(c.ms);
    }
  }
}

// ---------------------------------------------------------------- reading

// A value's bytes (checked when the snapshot was read) into a run's arena,
// exactly as import_value builds the host value they stand for: the same
// objects, the same reductions charged.
class Importer {
 public:
  Importer(Ctx& ctx, std::string_view bytes) : ctx_(ctx), r_(bytes, bytes.size()) {}

  // A map's key: a short string shares one object per text, as import_value
  // builds it (runtime/key_strings.hpp).
  Value key() {
    if (r_.left() > 0 && static_cast<uint8_t>(r_.data()[r_.pos()]) == kString) {
      ctx_.tick();
      r_.skip(1);
      std::string_view text = r_.bytes("a journaled value");
      return text.size() <= KeyStrings::kShareUpTo ? keys_.get(ctx_, text) : ctx_.string(text);
    }
    return value();
  }

  Value value() {
    check_native_stack("importing a nested value");
    ctx_.tick();
    const char* what = "a journaled value";
    switch (r_.u8(what)) {
      case kNil:
        return Value::nil();
      case kFalse:
        return Value::boolean(false);
      case kTrue:
        return Value::boolean(true);
      case kInt:
        return Value::integer(r_.svarint(what));
      case kBigInt:
        return integer_from_decimal(ctx_.arena, r_.bytes(what));
      case kFloat:
        return Value::floating(r_.f64(what));
      case kString:
        return ctx_.string(r_.bytes(what));
      case kKeyword:
        return ctx_.keyword(r_.bytes(what));
      case kVector: {
        size_t n = r_.count(what);
        VecBuilder b(ctx_.arena);
        for (size_t i = 0; i < n; ++i)
          b.push(value());
        return vec_value(b.finish());
      }
      case kMap: {
        size_t n = r_.count(what, 2);
        HashBuilder b(ctx_.arena, Type::Map);
        for (size_t i = 0; i < n; ++i) {
          Value k = key();
          b.put(k, value());
        }
        return Value::object(finish_map(b));
      }
      case kSet: {
        size_t n = r_.count(what);
        HashBuilder b(ctx_.arena, Type::Set);
        for (size_t i = 0; i < n; ++i)
          b.put(value());
        return Value::object(finish_set(b));
      }
      case kOpaque: {
        // No function restorer here: an opaque value imports as its text.
        Value text = ctx_.string(r_.bytes(what));
        if (r_.flag(what)) {
          (void)r_.bytes(what);  // the factory's source
          size_t n = r_.count(what);
          for (size_t i = 0; i < n; ++i)
            r_.skip_value(what);
        }
        return text;
      }
      default:
        r_.fail("a journaled value with an unknown tag");
    }
  }

 private:
  Ctx& ctx_;
  ValueReader r_;
  KeyStrings keys_;
};

bool hex_key(std::string_view s) {
  // Every journaled call has a key: checked without a branch per digit.
  static constexpr auto kHexDigit = [] {
    std::array<uint8_t, 256> t{};
    for (int c = '0'; c <= '9'; ++c)
      t[static_cast<size_t>(c)] = 1;
    for (int c = 'a'; c <= 'f'; ++c)
      t[static_cast<size_t>(c)] = 1;
    return t;
  }();
  if (s.size() != 32) return false;
  uint8_t all = 1;
  for (char c : s)
    all &= kHexDigit[static_cast<uint8_t>(c)];
  return all;
}

void read_journal(ValueReader& r, Journal& journal) {
  size_t branches = r.count("the journal's branches", 3);
  for (size_t b = 0; b < branches; ++b) {
    std::string path = r.str("a journal branch's path");
    if (!valid_branch_path(path)) r.fail(fmt::format("\"{}\" is not a branch path", path));
    if (journal.find(path)) r.fail(fmt::format("the journal lists branch \"{}\" twice", path));
    BranchJournal& branch = journal.branch(path);
    std::string where = fmt::format("the journal of branch \"{}\"", path);
    size_t tools = r.count(where, 13);
    branch.tools.reserve(tools + 1);  // and the live call that follows the replay
    size_t first = r.pos();
    for (size_t i = 0; i < tools; ++i) {
      JournalCall& t = journal.new_call(branch);
      t.tool = r.str(where);
      if (t.tool.empty()) r.fail(where + ": a tool call with no tool name");
      std::string_view key = r.bytes(where);  // hex digits: UTF-8 without checking it
      if (!hex_key(key)) r.fail(where + ": an arguments key that is not 32 hex digits");
      t.args_key = ArgsKey::of(key);
      uint8_t flags = r.u8(where);
      if (flags > 15) r.fail(fmt::format("{}: unknown call flags {}", where, flags));
      t.ok = flags & 1;
      t.cached = flags & 2;
      t.args_truncated = flags & 4;
      t.result_truncated = flags & 8;
      if (t.ok) t.value = JournalValue::encoded(r.value_bytes(where));
      t.error = r.str(where);
      if (!t.ok && t.error.empty()) r.fail(where + ": a failed call with no message");
      t.duration_ms = r.f64(where);
      if (!std::isfinite(t.duration_ms) || t.duration_ms < 0)
        r.fail(where + ": a call duration that is not a time");
      t.ledger_seq = r.varint(where);
      t.ledger_args = JournalValue::encoded(r.value_bytes(where));
      if (t.result_truncated) t.ledger_result = JournalValue::encoded(r.value_bytes(where));
      t.cache_charge = r.varint(where);
      t.ledger_charge = r.varint(where);
    }
    branch.loaded_bytes = r.data().substr(first, r.pos() - first);
    branch.loaded_tools = tools;
    size_t runs = r.count(where, 2);
    for (size_t i = 0; i < runs; ++i) {
      uint32_t n = r.u32(where);
      if (n == 0) r.fail(where + ": a run of no clock reads");
      int64_t ms = r.svarint(where);
      if (branch.clock_reads() > UINT32_MAX - n) r.fail(where + ": too many clock reads");
      journal.add_clock_run(path, n, ms);
    }
  }
}

}  // namespace

std::string snapshot_engine() {
  BuildInfo b = build_info();
  return fmt::format("ptc {} (git {})", b.version, b.git_revision);
}

std::string encode_inputs(const SnapshotInputs& d) {
  ValueWriter w;
  w.str(d.source);
  w.u8(d.compiled_in_run ? 1 : 0);
  w.u8(d.context_is_json ? 1 : 0);
  if (d.context_is_json)
    w.str(d.context_json);
  else
    w.value(d.context);
  w.value(d.memory);
  w.varint(d.turn_history.size());
  for (const HostValue& h : d.turn_history)
    w.value(h);
  w.str(d.signature);
  w.u8(d.float_precision ? 1 : 0);
  w.svarint(d.float_precision.value_or(0));
  w.u8(d.filter_context ? 1 : 0);
  w.value(d.budget);
  w.varint(d.tools.size());
  for (const SnapshotTool& t : d.tools) {
    w.str(t.name);
    w.u8((t.cacheable ? 1 : 0) | (t.deferred ? 2 : 0) | (t.needs_approval ? 4 : 0));
  }
  w.varint(d.deferred_tools.size());
  for (const std::string& n : d.deferred_tools)
    w.str(n);
  return std::move(w.out);
}

std::string encode_snapshot(std::string_view engine, std::string_view inputs, const Limits& limits,
                            const Journal& journal, const std::vector<std::string>& pending,
                            const std::vector<std::string>& approvals, std::string_view key) {
  ValueWriter w;
  w.out.reserve(inputs.size() + 64 * journal.tool_count() + 64);
  w.out.append(kMagic);
  w.u8(kSnapshotFormat & 0xff);
  w.u8(kSnapshotFormat >> 8);
  w.u8(key.empty() ? 0 : kSigned);
  w.str(engine);
  w.out += inputs;
  write_limits(w, limits);
  write_journal(w, journal);
  // Each pending call, and whether it waits for a decision.
  w.varint(pending.size());
  for (const std::string& id : pending) {
    w.str(id);
    w.u8(std::find(approvals.begin(), approvals.end(), id) != approvals.end() ? 1 : 0);
  }
  if (!key.empty()) w.out += mac_of(w.out, key);
  return std::move(w.out);
}

std::string encode_value(const HostValue& v) {
  ValueWriter w;
  w.value(v);
  return std::move(w.out);
}

HostValue decode_value(std::string_view bytes) {
  ValueReader r(bytes, bytes.size());
  HostValue v = r.value("a value");
  if (!r.at_end()) r.fail("bytes follow the value");
  return v;
}

Value import_encoded(Ctx& ctx, std::string_view bytes) {
  return Importer(ctx, bytes).value();
}

namespace {

// encoded_export_matches, one value read from `r` (bytes checked when the
// snapshot was read, so the reader's own checks never fire).
bool export_matches(ValueReader& r, Value v, int depth) {
  constexpr std::string_view kWhat = "arguments";
  auto text = [&](uint8_t want_tag, uint8_t tag, std::string_view s) {
    return tag == want_tag && r.bytes(kWhat) == s;
  };
  if (depth > 32 || r.at_end()) return false;
  uint8_t tag = r.u8(kWhat);
  switch (v.type()) {
    case Type::Nil:
      return tag == kNil;
    case Type::Bool:
      return tag == (v.as_bool() ? kTrue : kFalse);
    case Type::Int:
      return tag == kInt && r.svarint(kWhat) == v.as_int();
    case Type::Float: {
      if (tag != kFloat) return false;
      double stored = r.f64(kWhat), d = v.as_float();
      return std::memcmp(&stored, &d, sizeof d) == 0;  // bit for bit: -0.0 and NaNs too
    }
    case Type::String:
      return text(kString, tag, v.str()->view());
    case Type::Keyword:
      return text(kKeyword, tag, v.kw()->name());
    case Type::Vector:
      if (tag != kVector || r.varint(kWhat) != v.vec()->count) return false;
      for (VecIter it(v.vec()); !it.done(); it.next())
        if (!export_matches(r, it.value(), depth + 1)) return false;
      return true;
    case Type::Map:
      if (tag != kMap || r.varint(kWhat) != v.map()->count) return false;
      for (HashIter it(v.map()); !it.done(); it.next()) {
        Value k = it.key();
        if (k.type() == Type::Keyword) {  // export writes keyword keys as strings
          if (r.at_end() || !text(kString, r.u8(kWhat), k.kw()->name())) return false;
        } else if (!export_matches(r, k, depth + 1)) {
          return false;
        }
        if (!export_matches(r, it.val(), depth + 1)) return false;
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

bool encoded_export_matches(std::string_view bytes, Value v) {
  ValueReader r(bytes, bytes.size());
  try {
    return export_matches(r, v, 0) && r.at_end();
  } catch (const LispError&) {
    return false;  // not the encoding of a value: proves nothing
  }
}

Snapshot decode_snapshot(std::string_view given, std::string_view key) {
  auto fail = [](std::string message, std::string hint) {
    throw_error(ErrorKind::SnapshotError, std::move(message), std::move(hint));
  };
  if (given.size() < kMagic.size() + 3 || given.substr(0, kMagic.size()) != kMagic)
    fail("these bytes are not a ptc snapshot (they do not start with \"ptc-snap\")",
         "give load() the bytes Execution::dump() wrote");
  auto version =
      static_cast<uint16_t>(static_cast<uint8_t>(given[8]) | (static_cast<uint8_t>(given[9]) << 8));
  if (version != kSnapshotFormat)
    fail(fmt::format("the snapshot has format version {}; this engine reads version {}", version,
                     kSnapshotFormat),
         "load it with the engine version that dumped it");
  auto flags = static_cast<uint8_t>(given[10]);
  if (flags & ~kSigned) fail(fmt::format("unknown snapshot flags {} (at byte 10)", flags), "");
  size_t end = given.size();
  if (flags & kSigned) {
    if (key.empty())
      fail("the snapshot is signed (HMAC-SHA256) and no key was given to check it",
           "load it with the key it was dumped with");
    if (given.size() < 11 + kMacBytes) fail("the snapshot is truncated inside its HMAC", "");
    end = given.size() - kMacBytes;
    std::string expected = mac_of(given.substr(0, end), key);
    if (CRYPTO_memcmp(expected.data(), given.data() + end, kMacBytes) != 0)
      fail("the snapshot's HMAC does not match: it was changed, or signed with another key",
           "load it with the key it was dumped with; do not use bytes that fail this check");
  } else if (!key.empty()) {
    fail("the snapshot is not signed, and a key was given: it cannot be checked",
         "dump it with the key (Execution::dump(key)), or load it without one");
  }

  // The journal's values stay in these bytes until something needs them.
  auto kept = std::make_shared<const std::string>(given.substr(0, end));
  std::string_view bytes = *kept;
  ValueReader r(bytes, end);
  r.skip(kMagic.size() + 3);  // the header, checked above
  Snapshot snapshot;
  SnapshotInputs& d = snapshot.inputs;
  d.engine = r.str("the engine name");
  size_t inputs_at = r.pos();
  d.source = r.str("the program");
  d.compiled_in_run = r.flag("where the program was compiled");
  d.context_is_json = r.flag("the context's form");
  if (d.context_is_json)
    d.context_json = r.str("the context (JSON)");
  else
    d.context = r.value("the context");
  d.memory = r.value("the memory");
  size_t history = r.count("the turn history");
  for (size_t i = 0; i < history; ++i)
    d.turn_history.push_back(r.value("the turn history"));
  d.signature = r.str("the signature");
  bool has_precision = r.flag("the float precision");
  int64_t precision = r.svarint("the float precision");
  if (has_precision) {
    if (precision < 0 || precision > 17)
      r.fail(fmt::format("float precision {} is out of range", precision));
    d.float_precision = static_cast<int>(precision);
  }
  d.filter_context = r.flag("the context filter");
  d.budget = r.value("the budget");
  size_t tools = r.count("the tools", 2);
  for (size_t i = 0; i < tools; ++i) {
    SnapshotTool t;
    t.name = r.str("a tool's name");
    uint8_t f = r.u8("a tool's flags");
    if (f > 7) r.fail(fmt::format("unknown tool flags {}", f));
    t.cacheable = f & 1;
    t.deferred = f & 2;
    t.needs_approval = f & 4;
    d.tools.push_back(std::move(t));
  }
  size_t deferred = r.count("the deferred tools");
  for (size_t i = 0; i < deferred; ++i)
    d.deferred_tools.push_back(r.str("a deferred tool's name"));
  snapshot.inputs_bytes = std::string(bytes.substr(inputs_at, r.pos() - inputs_at));
  d.limits = read_limits(r);
  read_journal(r, snapshot.journal);
  snapshot.journal.keep(std::move(kept));
  size_t pending = r.count("the pending calls");
  if (pending == 0) r.fail("the snapshot waits on no call");
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < pending; ++i) {
    std::string id = r.str("a pending call's id");
    auto place = parse_call_id(id);
    if (!place) r.fail(fmt::format("\"{}\" is not a call id", id));
    const BranchJournal* branch = snapshot.journal.find(place->first);
    size_t made = branch ? branch->tools.size() : 0;
    if (place->second != made)
      r.fail(fmt::format("pending call {} is not the next call of its branch (which made {})", id,
                         made));
    if (!seen.insert(id).second) r.fail(fmt::format("pending call {} is listed twice", id));
    uint8_t waits = r.u8("what a pending call waits for");
    if (waits > 1)
      r.fail(fmt::format("pending call {} waits for an unknown thing ({})", id, waits));
    if (waits == 1) snapshot.approvals.push_back(id);
    snapshot.pending.push_back(std::move(id));
  }
  if (!r.at_end()) r.fail(fmt::format("{} bytes follow the snapshot's end", r.left()));
  return snapshot;
}

}  // namespace ptc
