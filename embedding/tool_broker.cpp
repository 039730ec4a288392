#include "embedding/tool_broker.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <iterator>
#include <optional>

#include "embedding/execution.hpp"
#include "runtime/bignum.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/host_value.hpp"
#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"

namespace ptc {

namespace {

void canonical_key(std::string& out, const HostValue& k);

void put_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// tag, length, ':', text
void put_text(std::string& out, char tag, std::string_view s) {
  out += tag;
  put_int(out, static_cast<int64_t>(s.size()));
  out += ':';
  out += s;
}

// A float: as the integer it equals when it is one (1.0 and 1 are one key),
// else its shortest text.
void put_float(std::string& out, double d) {
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) {
    out += 'i';
    put_int(out, static_cast<int64_t>(d));
  } else {
    fmt::format_to(std::back_inserter(out), "d{}", d);
  }
  out += ';';
}

// A map key that is a name (string or keyword): - and _ alike, as the
// reference's key normaliser does.
void put_name_key(std::string& out, std::string_view name) {
  out += 's';
  put_int(out, static_cast<int64_t>(name.size()));
  out += ':';
  size_t at = out.size();
  out += name;
  std::replace(out.begin() + static_cast<ptrdiff_t>(at), out.end(), '-', '_');
}

// A set from its elements' canonical texts, in sorted order.
void put_set(std::string& out, std::vector<std::string> parts) {
  std::sort(parts.begin(), parts.end());
  out += '#';
  put_int(out, static_cast<int64_t>(parts.size()));
  out += '[';
  for (const std::string& p : parts)
    out += p;
  out += ']';
}

// A map's entries (canonical key, canonical value) in sorted order, after
// its header.
void put_entries(std::string& out, std::vector<std::pair<std::string, std::string>> entries) {
  std::sort(entries.begin(), entries.end());
  for (const auto& [k, val] : entries) {
    out += k;
    out += val;
  }
}

// Canonical text of a host value: a tag per kind, lengths before text, map
// entries sorted by their canonical keys. Written straight into `out` where
// no sorting is needed (a hot path: every tool call hashes its arguments).
void canonical(std::string& out, const HostValue& v) {
  check_native_stack("hashing tool arguments");
  using K = HostValue::Kind;
  switch (v.kind()) {
    case K::Nil:
      out += 'n';
      return;
    case K::Bool:
      out += v.as_bool() ? 't' : 'f';
      return;
    case K::Int:
      out += 'i';
      put_int(out, v.as_int());
      out += ';';
      return;
    case K::BigInt:
      put_text(out, 'i', v.text());
      return;
    case K::Float:
      put_float(out, v.as_float());
      return;
    case K::String:
    case K::Keyword:  // a keyword and a string of the same name are one key
      put_text(out, 's', v.text());
      return;
    case K::Opaque:
      put_text(out, 'o', v.text());
      return;
    case K::Vector:
      out += 'v';
      put_int(out, static_cast<int64_t>(v.items().size()));
      out += '[';
      for (const HostValue& x : v.items())
        canonical(out, x);
      out += ']';
      return;
    case K::Set: {
      std::vector<std::string> parts;
      for (const HostValue& x : v.items()) {
        std::string p;
        canonical(p, x);
        parts.push_back(std::move(p));
      }
      put_set(out, std::move(parts));
      return;
    }
    case K::Map: {
      const auto& items = v.items();
      size_t n = items.size() / 2;
      out += 'm';
      put_int(out, static_cast<int64_t>(n));
      out += '{';
      if (n == 1) {
        canonical_key(out, items[0]);
        canonical(out, items[1]);
      } else {
        std::vector<std::pair<std::string, std::string>> entries;
        entries.reserve(n);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
          std::string k, val;
          canonical_key(k, items[i]);
          canonical(val, items[i + 1]);
          entries.emplace_back(std::move(k), std::move(val));
        }
        put_entries(out, std::move(entries));
      }
      out += '}';
      return;
    }
  }
}

// A map key: a name as put_name_key writes it; other keys as values.
void canonical_key(std::string& out, const HostValue& k) {
  if (k.kind() != HostValue::Kind::String && k.kind() != HostValue::Kind::Keyword)
    return canonical(out, k);
  put_name_key(out, k.text());
}

void canonical_value_key(std::string& out, Value k);

// canonical() of the host value export_value would make of `v` (keyword map
// keys as strings, anything with no data form as its printed text), written
// from the run's value itself: an execution keys every call, replayed ones
// too, and need not export what a replay does not hand to any tool.
void canonical_value(std::string& out, Value v) {
  switch (v.type()) {
    case Type::Nil:
      out += 'n';
      return;
    case Type::Bool:
      out += v.as_bool() ? 't' : 'f';
      return;
    case Type::Int:
      out += 'i';
      put_int(out, v.as_int());
      out += ';';
      return;
    case Type::BigInt:
      put_text(out, 'i', bigint_to_string(v.big()));
      return;
    case Type::Float:
      put_float(out, v.as_float());
      return;
    case Type::String:
      put_text(out, 's', v.str()->view());
      return;
    case Type::Keyword:
      put_text(out, 's', v.kw()->name());
      return;
    case Type::Vector:
      check_native_stack("hashing tool arguments");  // only collections nest
      out += 'v';
      put_int(out, static_cast<int64_t>(v.vec()->count));
      out += '[';
      for (VecIter it(v.vec()); !it.done(); it.next())
        canonical_value(out, it.value());
      out += ']';
      return;
    case Type::Set: {
      check_native_stack("hashing tool arguments");
      std::vector<std::string> parts;
      for (HashIter it(v.set()); !it.done(); it.next()) {
        std::string p;
        canonical_value(p, it.key());
        parts.push_back(std::move(p));
      }
      put_set(out, std::move(parts));
      return;
    }
    case Type::Map: {
      check_native_stack("hashing tool arguments");
      const MapObj* m = v.map();
      out += 'm';
      put_int(out, static_cast<int64_t>(m->count));
      out += '{';
      if (m->count == 1) {
        HashIter it(m);
        canonical_value_key(out, it.key());
        canonical_value(out, it.val());
      } else {
        std::vector<std::pair<std::string, std::string>> entries;
        entries.reserve(m->count);
        for (HashIter it(m); !it.done(); it.next()) {
          std::string k, val;
          canonical_value_key(k, it.key());
          canonical_value(val, it.val());
          entries.emplace_back(std::move(k), std::move(val));
        }
        put_entries(out, std::move(entries));
      }
      out += '}';
      return;
    }
    default:
      put_text(out, 'o', print_to_string(v));
      return;
  }
}

void canonical_value_key(std::string& out, Value k) {
  if (!k.is_string() && k.type() != Type::Keyword) return canonical_value(out, k);
  put_name_key(out, k.is_string() ? k.str()->view() : k.kw()->name());
}

ArgsKey hex_of(XXH128_hash_t h) {
  static constexpr char kHex[] = "0123456789abcdef";
  ArgsKey key;
  for (int i = 0; i < 16; ++i) {
    key.hex[15 - i] = kHex[(h.high64 >> (4 * i)) & 15];
    key.hex[31 - i] = kHex[(h.low64 >> (4 * i)) & 15];
  }
  return key;
}

// The context a tool sees while it runs; set for the duration of the call.
class BrokeredCall final : public ToolCallContext {
 public:
  explicit BrokeredCall(const Ctx& ctx) : ctx_(ctx), saved_(exchange_current_tool_call(this)) {}
  ~BrokeredCall() { exchange_current_tool_call(saved_); }
  BrokeredCall(const BrokeredCall&) = delete;
  BrokeredCall& operator=(const BrokeredCall&) = delete;
  bool cancelled() const override {
    return ctx_.cancel_requested() || ctx_.clock_now() >= ctx_.deadline();
  }
  std::chrono::steady_clock::time_point deadline() const override { return ctx_.steady_deadline(); }

 private:
  const Ctx& ctx_;
  const ToolCallContext* saved_;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// True when `v`'s printed form surely takes at most `budget` bytes (counting
// each item at its longest: a string byte escaped to six, a number at its
// widest), which it takes from `budget`; false when it might take more. Most
// tool arguments and results are small: they need not be printed to tell.
bool surely_prints_within(Value v, size_t& budget) {
  auto take = [&budget](size_t n) {
    if (n > budget) return false;
    budget -= n;
    return true;
  };
  switch (v.type()) {
    case Type::Nil:
    case Type::Bool:
      return take(5);
    case Type::Int:
    case Type::Float:
      return take(32);
    case Type::String: {
      size_t n = v.str()->view().size();
      return n <= budget / 6 && take(6 * n + 2);
    }
    case Type::Keyword:
      return take(v.kw()->name().size() + 1);
    case Type::Vector:
    case Type::Set:
    case Type::Map: {
      check_native_stack("measuring a value");
      if (!take(3)) return false;
      if (v.is_vector()) {
        for (VecIter it(v.vec()); !it.done(); it.next())
          if (!take(1) || !surely_prints_within(it.value(), budget)) return false;
        return true;
      }
      const HashObj* h = v.is_map() ? static_cast<const HashObj*>(v.map()) : v.set();
      for (HashIter it(h); !it.done(); it.next()) {
        if (!take(2) || !surely_prints_within(it.key(), budget)) return false;
        if (v.is_map() && !surely_prints_within(it.val(), budget)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// The ledger keeps a value whole when its printed form fits in `cap` bytes,
// else a string preview of that form. `in_run` is the value as the run holds
// it; printing it stops soon after the cap, so a huge value costs little here.
HostValue ledger_copy(Value in_run, const HostValue& value, size_t cap, bool* truncated) {
  *truncated = false;
  if (!cap) return value;
  size_t budget = cap;
  if (surely_prints_within(in_run, budget)) return value;
  PrintOptions opts;
  opts.floats = FloatStyle::Display;
  opts.max_bytes = cap;
  std::string printed;
  *truncated = print_value(printed, in_run, opts) || printed.size() > cap;
  if (!*truncated) return value;
  printed.resize(std::min(printed.size(), cap));
  printed.shrink_to_fit();  // a huge string printed whole must not stay behind as capacity
  return HostValue::string(std::move(printed));
}

}  // namespace

std::string canonical_args_key(const HostValue& args) {
  std::string text;
  if (args.kind() != HostValue::Kind::Map) text.push_back('N');  // never equal to a map's form
  canonical(text, args);
  return std::string(hex_of(XXH3_128bits(text.data(), text.size())).view());
}

ArgsKey canonical_args_key(Value args) {
  if (args.is_nil()) {
    static const ArgsKey empty = ArgsKey::of(canonical_args_key(HostValue::map({})));
    return empty;  // no arguments: the tool gets an empty map
  }
  // Every call of an execution is keyed: the text is built in a buffer this
  // thread keeps (nothing here waits, so no other fiber can take it meanwhile).
  thread_local std::string text;
  text.clear();
  canonical_value(text, args);
  ArgsKey key = hex_of(XXH3_128bits(text.data(), text.size()));
  if (text.capacity() > 4096) std::string().swap(text);  // a huge argument's room goes back
  return key;
}

size_t host_value_bytes(const HostValue& v) {
  size_t bytes = 0;
  std::vector<const HostValue*> stack{&v};
  while (!stack.empty()) {
    const HostValue* h = stack.back();
    stack.pop_back();
    bytes += sizeof(HostValue);
    switch (h->kind()) {
      case HostValue::Kind::String:
      case HostValue::Kind::Keyword:
      case HostValue::Kind::BigInt:
      case HostValue::Kind::Opaque:
        bytes += h->text().size() + 32;  // the shared string and its control block
        break;
      case HostValue::Kind::Vector:
      case HostValue::Kind::Map:
      case HostValue::Kind::Set:
        bytes += 32;
        for (const HostValue& x : h->items())
          stack.push_back(&x);
        break;
      default:
        break;
    }
  }
  return bytes;
}

HostValue string_keys(const HostValue& v) {
  auto same = [](const HostValue& x) { return x; };
  auto key = [&](const HostValue& k) {
    return k.kind() == HostValue::Kind::Keyword ? HostValue::string(k.text()) : string_keys(k);
  };
  return map_host_value(v, same, key);
}

namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  for (const std::string& n : names)
    if (n == name || n == "*") return true;
  return false;
}

// What a call's error starts with when a person rejected it, and when no
// one could be asked.
constexpr std::string_view kRejected = "rejected";
constexpr std::string_view kNotApproved = "not approved";
// ... and when the host's tool-call validator refused it.
constexpr std::string_view kRefused = "refused";

// A tool only named in RunOptions::deferred_tools.
const Tool kDeferredTool{nullptr, false, false, true};

}  // namespace

ToolResult call_host_tool(const Tool& tool, const HostValue& args) {
  try {
    return tool.fn ? tool.fn(args) : ToolResult::failure("the tool has no implementation");
  } catch (const std::exception& e) {
    return ToolResult::failure(e.what());
  } catch (...) {
    return ToolResult::failure("the tool raised an unknown exception");
  }
}

bool needs_approval(const Tool& tool, const HostValue& args) {
  if (tool.needs_approval) return true;
  if (!tool.approval_when) return false;
  try {
    return tool.approval_when(args);
  } catch (...) {
    return true;  // fails closed
  }
}

ToolResult rejected_call(std::string_view reason) {
  return ToolResult::failure(reason.empty() ? std::string(kRejected)
                                            : fmt::format("{}: {}", kRejected, reason));
}

ToolResult unapproved_call() {
  return ToolResult::failure(fmt::format(
      "{}: it needs a person's approval and this run has no one to ask (no approver); it was "
      "not called",
      kNotApproved));
}

std::optional<ToolResult> validation_gate(const ToolCallValidator& validate,
                                          const PendingCall& call) {
  std::optional<std::string> refused;
  try {
    refused = validate(call);
  } catch (const std::exception& e) {
    refused = fmt::format("the tool-call validator failed: {}", e.what());
  } catch (...) {
    refused = "the tool-call validator failed";
  }
  if (!refused) return std::nullopt;
  return ToolResult::failure(fmt::format("{}: {}", kRefused, *refused));
}

std::optional<ToolResult> approval_gate(const Approver& approver, const PendingCall& call) {
  if (!approver) return unapproved_call();
  try {
    Decision d = approver(call);
    if (d.approved) return std::nullopt;
    return rejected_call(d.reason);
  } catch (const std::exception& e) {
    return rejected_call(fmt::format("the approver failed: {}", e.what()));
  } catch (...) {
    return rejected_call("the approver failed");
  }
}

void throw_tool_failure(std::string_view tool, std::string_view error) {
  // A gate's failure ("<word>: <why>") reads as what the gate did.
  struct Gate {
    std::string_view word;
    const char* did;         // "tool/x <did>: <why>"
    const char* did_no_why;  // "tool/x <did_no_why>" when there is no why (nullptr: as did)
    const char* hint;
  };
  static constexpr Gate kGates[] = {
      {kRejected, "was rejected", "was rejected by the person who approves it",
       "a person rejected this call: do not make it again unchanged; change what they objected "
       "to, or go on without it"},
      {kRefused, "was refused", nullptr,
       "the host does not allow this call: change what the refusal names, or go on without it"},
      {kNotApproved, "was not called", nullptr,
       "the host must run the program as an execution (ptc::start), which waits for a person's "
       "decision, or give the run an approver"},
  };
  for (const Gate& g : kGates) {
    if (error.substr(0, g.word.size()) != g.word ||
        (error.size() != g.word.size() && error[g.word.size()] != ':'))
      continue;
    std::string_view why = error.substr(std::min(error.size(), g.word.size() + 2));
    throw_error(ErrorKind::ToolError,
                why.empty() && g.did_no_why ? fmt::format("tool/{} {}", tool, g.did_no_why)
                                            : fmt::format("tool/{} {}: {}", tool, g.did, why),
                g.hint);
  }
  throw_error(ErrorKind::ToolError, fmt::format("tool/{} failed: {}", tool, error),
              "check the arguments against the tool's description");
}

std::optional<ToolResult> gate_in_host(const RunOptions& options, const Tool& tool,
                                       PendingCall call) {
  if (options.validate_tool_call)
    if (std::optional<ToolResult> refused = validation_gate(options.validate_tool_call, call))
      return refused;
  if (!needs_approval(tool, call.args)) return std::nullopt;
  call.kind = PendingCall::Kind::Approval;
  return approval_gate(options.approver, call);
}

bool defers_tool(const Tools& tools, const std::vector<std::string>& deferred,
                 std::string_view name) {
  auto found = tools.find(name);
  if (found != tools.end() && found->second.deferred) return true;
  for (const std::string& n : deferred)
    if (n == name || (n == "*" && found == tools.end())) return true;
  return false;
}

bool knows_tool(const Tools& tools, const std::vector<std::string>& deferred,
                std::string_view name) {
  return tools.count(name) || listed(deferred, name);
}

const Tool& ToolBroker::find_tool(std::string_view name) const {
  auto found = tools_.find(name);
  if (found != tools_.end()) return found->second;
  if (listed(deferred_, name)) return kDeferredTool;
  throw_unknown_tool(name, tools_, {});
}

Value ToolBroker::call(Ctx& ctx, std::string_view name, Value args) {
  const Tool& tool = find_tool(name);
  if (!args.is_nil() && !args.is_map())
    throw_error(
        ErrorKind::TypeError,
        fmt::format("tool/{} takes a map of arguments, got {}", name, type_name(args.type())),
        fmt::format("(tool/{} {{:key value}})", name));
  uint32_t n = calls_.fetch_add(1) + 1;
  if (limits_.max_tool_calls && n > *limits_.max_tool_calls)
    throw_error(ErrorKind::ToolCallLimitExceeded,
                fmt::format("tool call limit exceeded: at most {} tool calls per run",
                            *limits_.max_tool_calls),
                "batch the work into fewer calls, or reuse results already fetched");

  uint32_t number = 0;
  AnswerSource source = AnswerSource::Live;  // or pending when the execution was dumped
  ToolCall entry;
  if (execution_) {
    // An execution knows each call by its place; a replay answers it from
    // the journal without working out what the call already gave.
    number = ctx.place.tool_calls++;
    source = execution_->source_of(ctx, number, name, args);
    if (source == AnswerSource::Journal) return replay(ctx, execution_->recorded(ctx, number));
    entry.args_key = canonical_args_key(args).view();
  }
  entry.name = std::string(name);
  // The tool gets the whole arguments; the ledger keeps a bounded preview
  // and the canonical key, so the call stays identifiable.
  HostValue full_args;
  if (args.is_nil()) {
    full_args = HostValue::map({});
  } else {
    ExportBudget budget;
    budget.remaining = ctx.arena.remaining() + 1;
    budget.string_keys = true;
    full_args = export_value(args, budget);
  }
  if (!execution_) entry.args_key = canonical_args_key(full_args);
  entry.args = args.is_nil() ? full_args
                             : ledger_copy(args, full_args, limits_.max_tool_call_result_bytes,
                                           &entry.args_truncated);
  ToolOutcome outcome = obtain(ctx, tool, entry, full_args, number, source);
  if (ctx.abandoned) return Value();  // nothing is recorded for a discarded run
  full_args = HostValue();            // no longer needed; the run may be near its heap cap
  return settle(ctx, tool, entry, outcome);
}

// How the call ends: from the cache, a person's rejection, the host (a
// deferred tool, or a call that was pending when the execution was dumped)
// or the tool itself.
ToolBroker::ToolOutcome ToolBroker::obtain(Ctx& ctx, const Tool& tool, const ToolCall& entry,
                                           const HostValue& args, uint32_t number,
                                           AnswerSource source) {
  ToolOutcome outcome;
  std::optional<HostValue> hit;
  if (tool.cacheable && source == AnswerSource::Live)
    hit = cache().find(entry.name, entry.args_key);
  if (hit) {
    outcome.cached = true;
    outcome.value = std::move(*hit);
    return outcome;
  }
  auto t0 = std::chrono::steady_clock::now();
  ToolResult r;
  auto refuse = [&](ToolResult failure) {
    outcome.duration_ms = ms_since(t0);
    outcome.ok = false;
    outcome.error = std::move(failure.error);
    return outcome;
  };
  // The host's validator first; a call pending when it was dumped passed it.
  if (source == AnswerSource::Live && validator_ && *validator_) {
    PendingCall call = hook_call(ctx, entry, args, number, PendingCall::Kind::Call);
    std::optional<ToolResult> refused;
    coop::run_blocking([&] { refused = validation_gate(*validator_, call); });
    if (refused) return refuse(std::move(*refused));
  }
  // A call pending for its answer when it was dumped was approved before.
  if ((source == AnswerSource::Live && needs_approval(tool, args)) ||
      source == AnswerSource::HostApproval) {
    std::optional<ToolResult> refused = refusal(ctx, entry, args, number);
    if (ctx.abandoned) return outcome;
    if (refused) return refuse(std::move(*refused));
  }
  if (source == AnswerSource::Host || defers_tool(tools_, deferred_, entry.name)) {
    if (!execution_)
      throw_error(ErrorKind::ArgsError,
                  fmt::format("tool/{} is deferred: the host answers it, and ptc::run cannot "
                              "wait for an answer",
                              entry.name),
                  "run the program with ptc::start, which suspends at deferred tools");
    r = execution_->await_answer(ctx, number, entry.name, args);
  } else {
    auto invoke = [&] {
      BrokeredCall context(ctx);  // on the thread that runs the tool
      r = call_host_tool(tool, args);
    };
    if (tool.cooperative)
      invoke();
    else
      coop::run_blocking(invoke);  // here, unless other branches share this thread
  }
  outcome.duration_ms = ms_since(t0);
  outcome.ok = r.ok;
  outcome.value = std::move(r.value);
  outcome.error = std::move(r.error);
  return outcome;
}

PendingCall ToolBroker::hook_call(const Ctx& ctx, const ToolCall& entry, const HostValue& args,
                                  uint32_t number, PendingCall::Kind kind) const {
  return PendingCall{execution_ ? call_id(ctx.place.path, number) : std::string(), entry.name, args,
                     kind, ctx.tool_call_loc};
}

std::optional<ToolResult> ToolBroker::refusal(Ctx& ctx, const ToolCall& entry,
                                              const HostValue& args, uint32_t number) {
  if (approver_ && *approver_) {
    PendingCall call = hook_call(ctx, entry, args, number, PendingCall::Kind::Approval);
    std::optional<ToolResult> refused;
    coop::run_blocking([&] { refused = approval_gate(*approver_, call); });
    return refused;
  }
  if (!execution_) return unapproved_call();
  Decision d = execution_->await_decision(ctx, number, entry.name, args);
  if (d.approved) return std::nullopt;
  return rejected_call(d.reason);
}

Value ToolBroker::settle(Ctx& ctx, const Tool& tool, ToolCall& entry, ToolOutcome& outcome) {
  entry.cached = outcome.cached;
  entry.duration_ms = outcome.duration_ms;
  if (outcome.cached) return finish(ctx, entry, outcome);
  if (!outcome.ok) {
    entry.error = outcome.error;
    std::string name = entry.name, error = entry.error;
    record(ctx, entry, outcome);  // moves the entry away
    throw_tool_failure(name, error);
  }
  if (tool.cacheable) {
    outcome.cache_charge =
        host_value_bytes(outcome.value) + entry.name.size() + entry.args_key.size() + 64;
    charge_run(outcome.cache_charge);
    cache().store(entry.name, entry.args_key, outcome.value);
  }
  // The time limit includes the tool's time: a slow tool cannot stretch it.
  ctx.check_deadline();
  return finish(ctx, entry, outcome);
}

Value ToolBroker::finish(Ctx& ctx, ToolCall& entry, const ToolOutcome& outcome) {
  Value imported;
  try {
    imported = import_value(ctx, outcome.value);
  } catch (LispError& e) {  // the call happened: the ledger says how it ended
    entry.error = e.error().message;
    record(ctx, entry, outcome);
    throw;
  }
  entry.result = ledger_copy(imported, outcome.value, limits_.max_tool_call_result_bytes,
                             &entry.result_truncated);
  record(ctx, entry, outcome);
  return imported;
}

// A journaled call again, as it went the first time: the same charges to the
// heap in the same order, the same answer or failure, and no ledger entry
// worked out again (the execution's ledger is its journal).
Value ToolBroker::replay(Ctx& ctx, const JournalCall& call) {
  if (!call.cached) {
    if (!call.ok) {
      charge_run(call.ledger_charge);
      throw_tool_failure(call.tool, call.error);
    }
    if (call.cache_charge) {
      charge_run(call.cache_charge);
      cache().store(call.tool, call.args_key.view(), call.value.value());
    }
    // No deadline check here, unlike a live call: no time passed in a tool.
  }
  Value imported;
  try {
    imported = call.value.import(ctx);
  } catch (LispError&) {
    charge_run(call.ledger_charge);
    throw;
  }
  charge_run(call.ledger_charge);
  return imported;
}

void ToolBroker::charge_run(size_t bytes) {
  std::lock_guard lock(run_.foreign);
  run_.arena.charge(bytes);
}

void ToolBroker::record(const Ctx& ctx, ToolCall& entry, const ToolOutcome& outcome) {
  size_t ledger_charge = sizeof(ToolCall) + entry.name.size() + entry.args_key.size() +
                         entry.error.size() + host_value_bytes(entry.args) +
                         host_value_bytes(entry.result);
  charge_run(ledger_charge);
  uint64_t seq = next_seq_.fetch_add(1);
  if (execution_) {
    // An execution's ledger is its journal.
    JournalCall& j = execution_->new_call(ctx);
    j.tool = std::move(entry.name);
    j.args_key = ArgsKey::of(entry.args_key);
    j.ok = outcome.ok;
    if (outcome.ok) j.value = JournalValue(outcome.value);
    j.error = std::move(entry.error);
    j.cached = outcome.cached;
    j.duration_ms = outcome.duration_ms;
    j.ledger_seq = seq;
    j.ledger_args = JournalValue(std::move(entry.args));
    j.args_truncated = entry.args_truncated;
    if (entry.result_truncated) j.ledger_result = JournalValue(std::move(entry.result));
    j.result_truncated = entry.result_truncated;
    j.cache_charge = outcome.cache_charge;
    j.ledger_charge = ledger_charge;
    return;
  }
  std::lock_guard lock(mutex_);
  ledger_.emplace_back(seq, std::move(entry));
}

void throw_unknown_tool(std::string_view name, const Tools& tools,
                        const std::map<std::string, std::string, std::less<>>& unavailable) {
  if (auto it = unavailable.find(name); it != unavailable.end())
    throw_error(ErrorKind::UnknownTool,
                fmt::format("tool/{} cannot be called from programs: {}", name, it->second),
                "call only the tools listed for programs");
  if (tools.empty())
    throw_error(ErrorKind::UnknownTool, fmt::format("unknown tool tool/{}", name),
                "this run has no tools");
  std::string names;
  for (const auto& [n, _] : tools)
    names += (names.empty() ? "tool/" : ", tool/") + n;
  throw_error(ErrorKind::UnknownTool, fmt::format("unknown tool tool/{}", name),
              fmt::format("available tools: {}", names));
}

ToolCache& ToolBroker::cache() {
  std::call_once(cache_made_, [this] {
    if (!cache_) cache_ = std::make_shared<ToolCache>();
  });
  return *cache_;
}

std::string ToolCache::key(std::string_view tool, std::string_view args_key) {
  std::string k(tool);
  k += '\n';
  k += args_key;
  return k;
}

std::optional<HostValue> ToolCache::find(std::string_view tool, std::string_view args_key) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key(tool, args_key));
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void ToolCache::store(std::string_view tool, std::string_view args_key, HostValue result) {
  std::lock_guard lock(mutex_);
  entries_.insert_or_assign(key(tool, args_key), std::move(result));
}

size_t ToolCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::vector<ToolCall> ToolBroker::take_ledger() {
  if (execution_) return execution_->ledger();
  std::lock_guard lock(mutex_);
  // In the order the calls ended: parallel branches may record out of it.
  auto by_seq = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(ledger_.begin(), ledger_.end(), by_seq))
    std::stable_sort(ledger_.begin(), ledger_.end(), by_seq);
  std::vector<ToolCall> out;
  out.reserve(ledger_.size());
  for (auto& [_, call] : ledger_)
    out.push_back(std::move(call));
  ledger_.clear();
  return out;
}

}  // namespace ptc
