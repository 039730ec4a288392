// The builtin families; registry.cpp concatenates them. A new family adds a
// declaration here and a line in registry.cpp.
#pragma once

#include <span>

#include "runtime/builtins/registry.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef>
arithmetic();  // arithmetic.cpp: + - * / inc dec quot rem mod min max abs
std::span<const BuiltinDef> comparison();  // comparison.cpp: = == not= < > <= >= compare
std::span<const BuiltinDef> predicates();  // predicates.cpp: nil? some? number? ... not
std::span<const BuiltinDef>
collections();  // collections.cpp: count first rest nth get conj assoc ...
std::span<const BuiltinDef> sequences();  // sequences.cpp: map filter reduce range ...
std::span<const BuiltinDef> strings();    // strings.cpp: str keyword name println ...
std::span<const BuiltinDef> regex();      // regex.cpp: re-pattern regex?
std::span<const BuiltinDef> internal();   // internal.cpp: helpers the analyzer's expansions call

}  // namespace ptc::builtins
