// Host values: the plain, host-owned data that crosses the boundary of a run
// (context in, result and memory out, tool arguments and results). They do
// not point into any run's arena, so they outlive it. JSON both ways.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptc {

class HostValue;

// How a function (or another value with no data form) is rebuilt in a later
// run: `factory` is PTC-Lisp source of a function that, applied to `args`,
// returns it, e.g. "(fn [n] (fn add-n [x] (+ x n)))" with args [5]. Memory
// carries defn'd functions from run to run this way.
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

}  // namespace ptc
