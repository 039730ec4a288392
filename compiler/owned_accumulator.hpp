// Which step functions may update their accumulator in place.
//
// An arity owns its first parameter when every path through its body either
// returns that accumulator, returns a value it never read, or returns it
// through assoc / update / dissoc / conj (nested, threaded with ->, bound by
// let to a new name that then takes its place), and nothing else reads it: no
// other argument, no test, no closure, no recur, no return. reduce then hands
// it an accumulator nobody else holds, and those calls compile to CALLO,
// which writes it in place (runtime/builtins/owned.hpp).
#pragma once

#include "frontend/ir.hpp"

namespace ptc {

// Marks the calls that update the accumulator (BuiltinCallNode::owned) and
// returns true when `arity` owns its first parameter and has at least one.
bool mark_owned_accumulator(FnArity* arity);

}  // namespace ptc
