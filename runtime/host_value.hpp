// Host values: the plain, host-owned data that crosses the boundary of a run
// (context in, result and memory out, tool arguments and results). They do
// not point into any run's arena, so they outlive it. Conversion both ways
// with runtime values, and JSON both ways.
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

#include "runtime/stack_guard.hpp"
#include "runtime/value.hpp"

namespace ptc {

class Ctx;
class HostValue;

// How a function (or another value with no data form) is rebuilt in a later
// run: `factory` is PTC-Lisp source of a function that, applied to `args`,
// returns it, e.g. "(fn [n] (fn add-n [x] (+ x n)))" with args [5]. Memory
// carries defn'd functions from run to run this way (vm/run.cpp).
struct Restorer {
  std::string factory;
  std::vector<HostValue> args;
};

class HostValue {
 public:
  enum class Kind : uint8_t {
    Nil,
    Bool,
    Int,
    BigInt,  // text holds the decimal digits (with '-' when negative)
    Float,
    String,
    Keyword,  // text holds the name without ':'
    Vector,
    Map,  // items holds key, value, key, value... in insertion order
    Set,
    Opaque,  // a value with no data form (function, regex, var): text is its printed form
  };

  HostValue() = default;
  static HostValue nil() { return {}; }
  static HostValue boolean(bool b);
  static HostValue integer(int64_t i);
  static HostValue bigint(std::string decimal);
  static HostValue floating(double d);
  static HostValue string(std::string s);
  static HostValue keyword(std::string name);
  static HostValue vector(std::vector<HostValue> items);
  static HostValue map(std::vector<std::pair<HostValue, HostValue>> entries);
  static HostValue set(std::vector<HostValue> items);
  static HostValue opaque(std::string printed, std::shared_ptr<const Restorer> restorer = {});

  Kind kind() const { return kind_; }
  bool is_nil() const { return kind_ == Kind::Nil; }
  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  double as_float() const { return d_; }
  // String, Keyword, BigInt digits, Opaque printed form.
  const std::string& text() const;
  // Vector and Set elements; Map keys and values alternately.
  const std::vector<HostValue>& items() const;
  size_t size() const;  // elements, or entries for a map
  // How an Opaque value is rebuilt in another run; nullptr when it cannot be.
  const Restorer* restorer() const { return restorer_.get(); }

  // Map lookup by string or keyword key of that name (flexible, as §7.5).
  const HostValue* get(std::string_view key) const;

  // Structural equality; maps and sets compare regardless of order; numbers
  // compare by value across int/float (as PTC-Lisp's `=`).
  bool operator==(const HostValue& other) const;

 private:
  Kind kind_ = Kind::Nil;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::shared_ptr<const std::string> text_;
  std::shared_ptr<const std::vector<HostValue>> items_;
  std::shared_ptr<const Restorer> restorer_;
};

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

// JSON -> host value (objects keep string keys; integers that do not fit
// int64 become BigInt; other numbers Float). Throws LispError(ParseError)
// with line:column on malformed input.
HostValue parse_json(std::string_view json);
// Host value -> JSON text. Keywords become strings ("a", no colon); map keys
// must be strings, keywords or numbers (numbers are stringified); sets become
// arrays; NaN/Inf and Opaque values are an error (LispError(TypeError)).
// With sort_keys, object keys come out in byte order at every depth (and a
// repeated key once): the deterministic form of the protocol's payloads.
std::string to_json(const HostValue& h, bool sort_keys = false);

// parse_json, except that the value at `path` (object keys from the root)
// is not built: its JSON text goes to *raw ("" when absent) and its key is
// left out. The text is the source's own slice for an object or array (its
// whitespace kept), compact JSON otherwise (also when a key on the path
// repeats). A server reads a message this way and hands a large
// argument to a run as text (import_json) instead of as a host tree.
HostValue parse_json_extracting(std::string_view json, std::span<const std::string_view> path,
                                std::string* raw);

// JSON text built straight into a run's arena (no host tree), as
// import_value(parse_json(json)) would build it. For an object, `keep` (when
// set) is asked about each top-level key (and whether its value is an array
// or object) and only the kept entries are built. Throws LispError
// (ParseError with line:column) on malformed JSON.
Value import_json(Ctx& ctx, std::string_view json,
                  const std::function<bool(std::string_view key, bool collection)>& keep = {});

}  // namespace ptc
