// Forms: what the reader produces and the analyzer consumes. A form is a
// syntax tree node that remembers where it came from (line:column); it is not
// a runtime value. Forms live in the compile arena of one run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "runtime/error.hpp"

namespace ptc {

enum class FormKind : uint8_t {
  Nil,
  Bool,
  Int,        // fits int64: `i`
  BigInt,     // more than 19 digits or outside int64: decimal `text` (with '-' if negative)
  Float,      // `d`, including ##Inf, ##-Inf, ##NaN
  String,     // `text` with escapes resolved; `from_char` when written as \a, \newline
  Keyword,    // `text` without the colon
  Symbol,     // `text`, e.g. "map", "data/orders", "clojure.string/join", ".indexOf"
  List,       // (a b c)
  Vector,     // [a b c]
  Map,        // {k v ...}: `items` holds keys and values alternately (even count)
  Set,        // #{a b}
  FnLiteral,  // #(...): `items` are the list elements of the body, e.g. #(+ % 1) -> [+, %, 1]
  Regex,      // #"...": `text` is the raw pattern (no escape processing, as Clojure)
  VarQuote,   // #'x: `text` is the symbol name
  Quote,      // 'x: `text` is the symbol name (only quoted symbols are supported)
};

const char* form_kind_name(FormKind kind);

struct Form {
  FormKind kind = FormKind::Nil;
  bool from_char = false;  // String written as a character literal
  bool b = false;
  // Set by the reader: this form is a (def name ...), (defn name ...),
  // (defn- ...) or (defonce ...) list, or holds one at any depth. The
  // analyzer's search for def names (collect_def_names) enters only these.
  bool holds_def = false;
  uint32_t count = 0;  // number of items for collections and FnLiteral
  SourceLoc loc;       // position of the form's first character
  SourceLoc end;       // position just after the form's last character
  int64_t i = 0;
  double d = 0;
  // Points into the compile arena. A collection the reader read keeps its
  // source as written here, brackets included (print_form_as_written).
  std::string_view text;
  const Form* const* items = nullptr;

  std::span<const Form* const> children() const { return {items, count}; }
  bool is_symbol(std::string_view name) const { return kind == FormKind::Symbol && text == name; }
  bool is_seq() const { return kind == FormKind::List || kind == FormKind::Vector; }
};

// (def name ...), (defn name ...), (defn- name ...) or (defonce name ...):
// a list that binds a global.
bool is_def_list(const Form& f);

// Source text that reads back as `f` (form_printer.cpp).
std::string print_form(const Form& f);
void print_form(const Form& f, std::string& out);
// The same, with every collection the reader read copied as it was written
// (its comments and spacing too): a function's memory restorer, printed for
// every defn of a program, copies most of its text instead of printing it.
void print_form_as_written(const Form& f, std::string& out);

}  // namespace ptc
