#include "embedding/tool_broker.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <optional>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"
#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "scheduler/cooperative.hpp"
#include "scheduler/fiber.hpp"

namespace ptc {

namespace {

void canonical_key(std::string& out, const HostValue& k);

// Canonical text of a host value: a tag per kind, lengths before text, map
// entries sorted by their canonical keys.
void canonical(std::string& out, const HostValue& v) {
  check_native_stack("hashing tool arguments");
  using K = HostValue::Kind;
  auto text = [&](char tag, const std::string& s) {
    out += fmt::format("{}{}:", tag, s.size());
    out += s;
  };
  switch (v.kind()) {
    case K::Nil:
      out += 'n';
      return;
    case K::Bool:
      out += v.as_bool() ? 't' : 'f';
      return;
    case K::Int:
      out += fmt::format("i{};", v.as_int());
      return;
    case K::BigInt:
      text('i', v.text());
      return;
    case K::Float: {
      double d = v.as_float();
      if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
        out += fmt::format("i{};", static_cast<int64_t>(d));
      else
        out += fmt::format("d{};", d);
      return;
    }
    case K::String:
    case K::Keyword:  // a keyword and a string of the same name are one key
      text('s', v.text());
      return;
    case K::Opaque:
      text('o', v.text());
      return;
    case K::Vector:
    case K::Set: {
      std::vector<std::string> parts;
      for (const HostValue& x : v.items()) {
        std::string p;
        canonical(p, x);
        parts.push_back(std::move(p));
      }
      if (v.kind() == K::Set) std::sort(parts.begin(), parts.end());
      out += fmt::format("{}{}[", v.kind() == K::Set ? '#' : 'v', parts.size());
      for (const std::string& p : parts)
        out += p;
      out += ']';
      return;
    }
    case K::Map: {
      std::vector<std::pair<std::string, std::string>> entries;
      const auto& items = v.items();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        std::string k, val;
        canonical_key(k, items[i]);
        canonical(val, items[i + 1]);
        entries.emplace_back(std::move(k), std::move(val));
      }
      std::sort(entries.begin(), entries.end());
      out += fmt::format("m{}{{", entries.size());
      for (const auto& [k, val] : entries) {
        out += k;
        out += val;
      }
      out += '}';
      return;
    }
  }
}

// A map key: names (strings, keywords) with - and _ alike, as the
// reference's key normaliser does; other keys as values.
void canonical_key(std::string& out, const HostValue& k) {
  if (k.kind() != HostValue::Kind::String && k.kind() != HostValue::Kind::Keyword)
    return canonical(out, k);
  std::string name = k.text();
  std::replace(name.begin(), name.end(), '-', '_');
  out += fmt::format("s{}:", name.size());
  out += name;
}

// The context a tool sees while it runs; set for the duration of the call.
class BrokeredCall final : public ToolCallContext {
 public:
  explicit BrokeredCall(const Ctx& ctx) : ctx_(ctx), saved_(exchange_current_tool_call(this)) {}
  ~BrokeredCall() { exchange_current_tool_call(saved_); }
  BrokeredCall(const BrokeredCall&) = delete;
  BrokeredCall& operator=(const BrokeredCall&) = delete;
  bool cancelled() const override {
    return ctx_.cancel_requested() || std::chrono::steady_clock::now() >= ctx_.deadline();
  }
  std::chrono::steady_clock::time_point deadline() const override { return ctx_.deadline(); }

 private:
  const Ctx& ctx_;
  const ToolCallContext* saved_;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The ledger keeps a value whole when its printed form fits in `cap` bytes,
// else a string preview of that form. `in_run` is the value as the run holds
// it; printing it stops soon after the cap, so a huge value costs little here.
HostValue ledger_copy(Value in_run, const HostValue& value, size_t cap, bool* truncated) {
  *truncated = false;
  if (!cap) return value;
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
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
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

Value ToolBroker::call(Ctx& ctx, std::string_view name, Value args) {
  auto found = tools_.find(name);
  if (found == tools_.end()) throw_unknown_tool(name, tools_, {});
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

  ToolCall entry;
  entry.name = std::string(name);
  // The tool gets the whole arguments; the ledger keeps a bounded preview
  // and the canonical key, so the call stays identifiable.
  HostValue full_args = args.is_nil() ? HostValue::map({})
                                      : string_keys(export_value(args, ctx.arena.remaining() + 1));
  entry.args_key = canonical_args_key(full_args);
  entry.args = args.is_nil() ? full_args
                             : ledger_copy(args, full_args, limits_.max_tool_call_result_bytes,
                                           &entry.args_truncated);
  const Tool& tool = found->second;
  if (tool.cacheable) {
    std::optional<HostValue> hit = cache_->find(entry.name, entry.args_key);
    if (hit) {
      entry.cached = true;
      return finish(ctx, std::move(entry), *hit);
    }
  }

  auto t0 = std::chrono::steady_clock::now();
  ToolResult r;
  auto invoke = [&] {
    BrokeredCall context(ctx);  // on the thread that runs the tool
    try {
      r = tool.fn ? tool.fn(full_args) : ToolResult::failure("the tool has no implementation");
    } catch (const std::exception& e) {
      r = ToolResult::failure(e.what());
    } catch (...) {
      r = ToolResult::failure("the tool raised an unknown exception");
    }
  };
  if (tool.cooperative)
    invoke();
  else
    coop::run_blocking(invoke);  // here, unless other branches share this thread
  entry.duration_ms = ms_since(t0);
  if (!r.ok) {
    entry.error = r.error;
    record(std::move(entry));
    throw_error(ErrorKind::ToolError, fmt::format("tool/{} failed: {}", name, r.error),
                "check the arguments against the tool's description");
  }
  full_args = HostValue();  // no longer needed; the run may be near its heap cap
  if (tool.cacheable) {
    charge_run(host_value_bytes(r.value) + entry.name.size() + entry.args_key.size() + 64);
    cache_->store(entry.name, entry.args_key, r.value);
  }
  // The time limit includes the tool's time: a slow tool cannot stretch it.
  ctx.check_deadline();
  return finish(ctx, std::move(entry), r.value);
}

Value ToolBroker::finish(Ctx& ctx, ToolCall entry, const HostValue& result) {
  Value imported;
  try {
    imported = import_value(ctx, result);
  } catch (LispError& e) {  // the call happened: the ledger says how it ended
    entry.error = e.error().message;
    record(std::move(entry));
    throw;
  }
  entry.result =
      ledger_copy(imported, result, limits_.max_tool_call_result_bytes, &entry.result_truncated);
  record(std::move(entry));
  return imported;
}

void ToolBroker::charge_run(size_t bytes) {
  std::lock_guard lock(run_.foreign);
  run_.arena.charge(bytes);
}

void ToolBroker::record(ToolCall entry) {
  charge_run(sizeof(ToolCall) + entry.name.size() + entry.args_key.size() + entry.error.size() +
             host_value_bytes(entry.args) + host_value_bytes(entry.result));
  std::lock_guard lock(mutex_);
  ledger_.push_back(std::move(entry));
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
  std::lock_guard lock(mutex_);
  return std::move(ledger_);
}

}  // namespace ptc
