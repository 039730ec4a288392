// The builtin families, one file each; registry.cpp concatenates them. A new
// family adds a declaration here and an entry in registry.cpp.
#pragma once

#include <span>

#include "runtime/builtins/registry.hpp"

namespace ptc::builtins {

// arithmetic.cpp: + - * / inc dec quot rem mod abs max min
std::span<const BuiltinDef> arithmetic();
// math.cpp: floor ceil round sqrt pow int double, Math/*
std::span<const BuiltinDef> math();
// bitwise.cpp: bit-and bit-or bit-shift-left ...
std::span<const BuiltinDef> bitwise();
// comparison.cpp: = == not= < > <= >= compare
std::span<const BuiltinDef> comparison();
// predicates.cpp: nil? number? coll? ... not
std::span<const BuiltinDef> predicates();
// io.cpp: println print prn
std::span<const BuiltinDef> io();
// describe.cpp: describe
std::span<const BuiltinDef> describe();
// collections.cpp: count first rest nth conj vector ...
std::span<const BuiltinDef> collections();
// sequences.cpp: map filter reduce range ...
std::span<const BuiltinDef> sequences();
// seq_ops.cpp: take drop partition interleave ...
std::span<const BuiltinDef> seq_ops();
// sorting.cpp: sort sort-by
std::span<const BuiltinDef> sorting();
// aggregates.cpp: sum avg group-by frequencies ...
std::span<const BuiltinDef> aggregates();
// functional.cpp: apply comp partial juxt ...
std::span<const BuiltinDef> functional();
// walk.cpp: walk prewalk postwalk
std::span<const BuiltinDef> walk();
// parallel.cpp: pmap pcalls
std::span<const BuiltinDef> parallel();
// maps.cpp: get assoc update merge select-keys ...
std::span<const BuiltinDef> maps();
// sets.cpp: set hash-set union intersection ...
std::span<const BuiltinDef> sets();
// strings.cpp: str join split trim replace ...
std::span<const BuiltinDef> strings();
// string_methods.cpp: .indexOf .substring ...
std::span<const BuiltinDef> string_methods();
// parsing.cpp: parse-long parse-double ...
std::span<const BuiltinDef> parsing();
// format.cpp: format
std::span<const BuiltinDef> format();
// regex.cpp: re-pattern re-find re-seq ...
std::span<const BuiltinDef> regex();
// json_fns.cpp: json/parse-string ...
std::span<const BuiltinDef> json_fns();
// datetime.cpp: java.util.Date. LocalDate/parse ...
std::span<const BuiltinDef> datetime();
// discovery.cpp: doc meta dir apropos ...
std::span<const BuiltinDef> discovery();
// compat.cpp: doall dorun
std::span<const BuiltinDef> compat();
// internal.cpp: helpers the analyzer's expansions call
std::span<const BuiltinDef> internal();

}  // namespace ptc::builtins
