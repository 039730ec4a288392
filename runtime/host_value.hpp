// Host values inside the engine: conversion both ways between the public
// HostValue (include/ptc/host_value.hpp) and runtime values, and JSON
// straight into a run's arena.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/value.hpp"

namespace simdjson::dom {
class element;
}

namespace ptc {

class Ctx;

// Copies a runtime value out of its run. Functions, regexes and vars become
// Opaque with their printed form. With max_bytes, a copy that would take
// more (roughly) is a memory_limit LispError.
HostValue export_value(Value v, size_t max_bytes = 0);

// Bytes a series of exports may take together (the result and the memory of
// a run): shared structure lets a small runtime value expand into a huge host
// tree, so all of it is bounded by one budget.
struct ExportBudget {
  size_t remaining = SIZE_MAX;  // SIZE_MAX = unbounded
  // Give functions a Restorer (memory export): their source is printed and
  // their captured values exported, which other exports need not pay for.
  bool restorable_functions = false;
  // Map keys that are keywords become strings, at every depth, as JSON would
  // carry them (tool arguments).
  bool string_keys = false;
  // One Restorer per function object, so a function captured by many others
  // is exported once and comes back as one function.
  std::unordered_map<const void*, std::shared_ptr<const Restorer>> restorers;
  void charge(size_t bytes);  // throws memory_limit past `remaining`
};
HostValue export_value(Value v, ExportBudget& budget);

// Rebuilds Opaque values that carry a Restorer while importing (the run
// compiles their factories); without one they import as their printed text.
class FunctionRestorer {
 public:
  virtual Value restore(Ctx& ctx, const HostValue& h) = 0;

 protected:
  ~FunctionRestorer() = default;
};

// Builds the runtime value in the context's arena.
Value import_value(Ctx& ctx, const HostValue& h, FunctionRestorer* restorer = nullptr);

// A copy of `h` with its vectors, sets and maps rebuilt: `leaf(x)` replaces
// every other value, and `key(k)` every map key (map values are walked).
template <class Leaf, class Key>
HostValue map_host_value(const HostValue& h, const Leaf& leaf, const Key& key) {
  check_native_stack("copying a nested host value");
  using K = HostValue::Kind;
  switch (h.kind()) {
    case K::Vector:
    case K::Set: {
      std::vector<HostValue> items;
      items.reserve(h.items().size());
      for (const HostValue& x : h.items())
        items.push_back(map_host_value(x, leaf, key));
      return h.kind() == K::Set ? HostValue::set(std::move(items))
                                : HostValue::vector(std::move(items));
    }
    case K::Map: {
      std::vector<std::pair<HostValue, HostValue>> entries;
      const auto& items = h.items();
      entries.reserve(items.size() / 2);
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        entries.emplace_back(key(items[i]), map_host_value(items[i + 1], leaf, key));
      return HostValue::map(std::move(entries));
    }
    default:
      return leaf(h);
  }
}

// What a value is as JSON, for messages about JSON of the wrong kind: "null",
// "a boolean", "a number", "a string" (keywords too), "an array" (sets too),
// "an object", "an opaque value".
const char* json_kind_name(HostValue::Kind kind);

// parse_json, except that the value at `path` (object keys from the root)
// is not built: its JSON text goes to *raw ("" when absent) and its key is
// left out. The text is the source's own slice for an object or array (its
// whitespace kept), compact JSON otherwise (also when a key on the path
// repeats). A server reads a message this way and hands a large
// argument to a run as text (import_json) instead of as a host tree.
HostValue parse_json_extracting(std::string_view json, std::span<const std::string_view> path,
                                std::string* raw);
// The same for several paths at once (none a prefix of another). With
// `visit` set, the parsed value is handed to it instead of being written
// out (*raw stays ""; the visitor reads what it needs and builds nothing),
// except when the document takes the slow path (big integers): then *raw
// has the text as usual.
struct JsonExtraction {
  std::span<const std::string_view> path;
  std::string* raw;
  std::function<void(const simdjson::dom::element&)> visit = {};
};
HostValue parse_json_extracting(std::string_view json, std::span<const JsonExtraction> extractions);

// JSON text built straight into a run's arena (no host tree), as
// import_value(parse_json(json)) would build it. For an object, `keep` (when
// set) is asked about each top-level key (and whether its value is an array
// or object) and only the kept entries are built. Throws LispError
// (ParseError with line:column) on malformed JSON.
Value import_json(Ctx& ctx, std::string_view json,
                  const std::function<bool(std::string_view key, bool collection)>& keep = {});

}  // namespace ptc
