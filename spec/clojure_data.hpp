// Clojure data as the corpus writes it (pr-str output and the spec's
// `; =>` values), read by the runner's own parser, independent of the
// engine's reader: the expected side must not be read by the code under test,
// and it contains forms PTC-Lisp rejects (ratios, chars, #object[...]).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/host_value.hpp"

namespace spec {

struct Datum {
  enum class Kind {
    Nil,
    Bool,
    Int,      // text: canonical decimal, any size ("-12", "12345678901234567890")
    Float,    // number
    Ratio,    // text: canonical "num/den" (den > 1); number: its nearest double
    String,   // text: UTF-8
    Char,     // text: the character as UTF-8 (one code point)
    Keyword,  // text: name without ':' (":a/b" -> "a/b")
    Symbol,   // text: name
    Seq,      // list, vector or seq: Clojure's = does not tell them apart
    Map,      // items: key, value, key, value...
    Set,      // items
    Var,      // text: the name without namespace ("#'user/x" -> "x")
    Fn,       // any function: #object[...], #function[...], #<...>, #fn[...], #<builtin>
    Regex,    // text: the pattern source
    Opaque,   // text: printed form of some other engine value
  };
  Kind kind = Kind::Nil;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Datum> items;

  static Datum nil() { return {}; }
  static Datum make(Kind k, std::string t = {}) {
    Datum d;
    d.kind = k;
    d.text = std::move(t);
    return d;
  }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Ratio; }
  size_t entries() const { return kind == Kind::Map ? items.size() / 2 : items.size(); }
};

// Reads exactly one form (surrounding whitespace, commas and ; comments
// allowed). On failure returns nullopt and, when `error` is given, says why.
std::optional<Datum> parse_clojure(std::string_view text, std::string* error = nullptr);

// Clojure-like text of a datum, for reports (vectors for every sequence).
std::string to_string(const Datum& d);

// The structural value of a run's result. Opaque values are recognised by
// their printed form: #fn[...] and #<builtin> are functions, #'x a var,
// #"..." a regex, 'x a symbol.
Datum from_host(const ptc::HostValue& h);
// The host value for a datum (context given to a run). Ratios become floats,
// chars strings; functions, vars and regexes become opaque text.
ptc::HostValue to_host(const Datum& d);

// "-007" -> "-7"; nullopt when `text` is not an optionally signed decimal.
std::optional<std::string> canonical_integer(std::string_view text);

}  // namespace spec
