// Signatures: the compact contract syntax of PtcRunner ("(query :string,
// limit :int) -> {count :int, items [{id :int}]}", or just the output type),
// parsed into a small type tree, and checked against host values: the result
// of a run (strict, as PtcRunner validates return values) or the named
// arguments of a tool call (lenient, with the documented input coercions).
// The grammar is at the top of signature_parser.cpp; the checking and
// coercion rules and the deviations at the top of signature_check.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_value.hpp"

namespace ptc {

struct SigType;
using SigTypePtr = std::shared_ptr<const SigType>;
// Named parameters or map fields, in source order.
using SigFields = std::vector<std::pair<std::string, SigTypePtr>>;

// `[`/`{` nesting deeper than this is a parse error (keeps the recursive
// parser, renderer and checker far from the native stack's end).
inline constexpr size_t kMaxSignatureDepth = 64;

struct SigType {
  enum class Kind : uint8_t {
    String,    // :string
    Int,       // :int
    Float,     // :float (an integer also matches)
    Bool,      // :bool (also spelled :boolean)
    Keyword,   // :keyword
    DateTime,  // :datetime: ISO 8601 text with an offset, normalized to UTC
    Any,       // :any: everything, nil included
    Map,       // :map: any map
    List,      // [T]: a vector whose every element matches T
    Struct,    // {name T, ...}: a map with these fields; other keys are allowed
  };
  Kind kind = Kind::Any;
  // `:T?`: nil matches too, and a map field of this type may be absent. The
  // syntax only allows it on the primitive types (:int? ... :map? :any?).
  bool optional = false;
  SigTypePtr element;  // List
  SigFields fields;    // Struct

  static SigTypePtr primitive(Kind kind, bool optional = false);
  static SigTypePtr list_of(SigTypePtr element, bool optional = false);
  static SigTypePtr structure(SigFields fields, bool optional = false);
};

struct Signature {
  SigFields inputs;   // parameters; empty for "() -> T" and the shorthand "T"
  SigTypePtr output;  // never null after parse_signature (null is treated as :any)
  std::string text;   // the source text
};

// Throws LispError(ErrorKind::ArgsError) on a malformed signature: the
// message names the 1-based column (and line, for multi-line text), what was
// expected there and what was found; loc carries line:column; hint says how
// to fix it.
Signature parse_signature(std::string_view text);

enum class CheckMode : uint8_t {
  Strict,   // return values: no coercion (ints still match :float, unchanged)
  Lenient,  // tool inputs: quoted numbers and booleans, int -> float, ...
};

struct SignatureCheck {
  bool ok = true;
  HostValue value;  // the (possibly coerced) value when ok
  // Where the first mismatch is: "items[2].price", "" for the root.
  std::string path;
  // e.g. "expected :int at items[2].price, got string \"abc\"".
  std::string message;
  // Coercions applied (lenient mode), e.g. "limit: coerced string \"10\" to int".
  std::vector<std::string> warnings;
};

// Checks `value` against `type`; stops at the first mismatch.
SignatureCheck check_value(const SigType& type, const HostValue& value,
                           CheckMode mode = CheckMode::Strict);
// A run's result against sig.output (strict).
SignatureCheck check_output(const Signature& sig, const HostValue& value);
// A tool call's named arguments (a map; nil counts as {}) against
// sig.inputs (lenient).
SignatureCheck check_inputs(const Signature& sig, const HostValue& args);

// Signature syntax for a type (":int?", "[{id :int}]") or a whole signature
// ("(id :int) -> :string"; without inputs just the output type). The result
// parses back to the same tree (:boolean is rendered :bool).
std::string to_string(const SigType& t);
std::string to_string(const Signature& sig);

}  // namespace ptc
