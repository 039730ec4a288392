// Shared argument checks and errors for builtin implementations. Messages name
// the function, the argument position and what was received.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <vector>

#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/objects.hpp"
#include "runtime/value.hpp"

namespace ptc::builtins {

// "<fname>: expected <expected> (argument <pos>), got <type> <preview>"
[[noreturn]] void type_error(std::string_view fname, std::string_view expected, Value got, int pos,
                             std::string_view hint = {});

int64_t expect_int(std::string_view fname, Value v, int pos);
const StrObj* expect_string(std::string_view fname, Value v, int pos);

// Inline: update's in-place path asks on every step of a reduce.
inline bool is_callable(Value v) {
  switch (v.type()) {
    case Type::Closure:
    case Type::NativeFn:
    case Type::Builtin:
    case Type::Keyword:
    case Type::Map:
    case Type::Set:
    case Type::Vector:
      return true;
    default:
      return false;
  }
}
inline void expect_callable(std::string_view fname, Value v, int pos) {
  if (!is_callable(v)) [[unlikely]]
    type_error(fname, "a function", v, pos);
}

// A count or index argument: an integer, or a finite float truncated toward
// zero as Clojure's (int x) coercion does (GAP-S79). Bignums saturate.
// `expected` names what the argument is for the error ("a number").
int64_t truncating_int_arg(std::string_view fname, Value v, int pos, std::string_view expected);

// Positional operations refuse maps and sets: their items have no position
// (DIV-29, GAP-S134, spec §3.9).
void require_ordered(std::string_view fname, Value coll, int pos);

// Copying is cheap per item: one reduction per few items keeps the clock
// checked during big copies without dominating small ones.
void charge_items(Ctx& ctx, size_t items);

// Refuses a result of `values` Values before building it (memory_limit).
void reserve_values(Ctx& ctx, double values);

// Native scratch memory a builtin holds while it works (a sort's positions, a
// group-by's index): freed when the builtin returns, so not charged, but
// checked against the heap the run has left before it is allocated, so that
// no input makes a builtin allocate far past max_heap outside the arena.
// Throws memory_limit when `items` x `bytes_per_item` would not fit.
void reserve_scratch(Ctx& ctx, size_t items, size_t bytes_per_item);

// The arguments printed and space separated, as print, println, prn and
// pr-str join them (`readable`: strings quoted). For output (`for_prints`)
// the text stops a little past max_print_length, since add_print cuts it
// there anyway; otherwise text longer than the arena could still hold is a
// memory_limit error. Charges the time the printing took.
std::string print_joined(Ctx& ctx, const Value* a, uint32_t n, bool readable, bool for_prints);

// Applies a key function to an item, as sort-by, group-by, sum-by and the
// other key-taking helpers do: a keyword or a string key reads that field
// (flexibly, spec §7.5), anything callable is called. `fname` and `pos` name
// the function and argument position for the error when key_fn is neither.
Value apply_key(Ctx& ctx, Value key_fn, Value item, std::string_view fname, int pos);

// Room for the arguments of one call a builtin makes (fnil, update): on the
// stack, not zeroed, for the usual few; on the heap beyond.
class CallArgs {
 public:
  explicit CallArgs(uint32_t n) {
    if (n > kOnStack) heap_ = std::make_unique<Value[]>(n);
    data_ = heap_ ? heap_.get() : stack_.v;
  }
  Value* data() { return data_; }
  Value& operator[](uint32_t i) { return data_[i]; }

 private:
  static constexpr uint32_t kOnStack = 8;
  union Stack {
    Stack() {}
    Value v[kOnStack];
  } stack_;
  std::unique_ptr<Value[]> heap_;
  Value* data_;
};

// (f old extra...), the call update, update-in and their in-place variant make.
Value call_updater(Ctx& ctx, Value f, Value old, const Value* extra, uint32_t nextra);

// The function a (fnil f x ...) value calls, or nullptr when `self` is not
// one: nil arguments among args' first ones are replaced by its defaults
// first. call_updater unwraps fnil this way, so that (update m k (fnil + 0) v)
// calls + directly on every step of a reduce.
const Value* fnil_unwrap(const NativeFnObj* self, Value* args, uint32_t nargs);

// A builtin definition table entry. `cat` is a Category member (Core, String, ...).
#define PTC_BUILTIN(cat, name, min, max, fn, sig, doc) \
  BuiltinDef {                                         \
    Category::cat, name, min, max, fn, sig, doc        \
  }

// A function value made by a builtin (partial, comp, complement, ...): `impl`
// runs when it is called, with `captured` available as self->captured().
// `name` must be that builtin and `captured` exactly the arguments it was
// given: memory rebuilds the function in a later run by calling it again.
Value make_native_fn(Ctx& ctx, NativeImpl impl, const char* name,
                     std::initializer_list<Value> captured);
Value make_native_fn(Ctx& ctx, NativeImpl impl, const char* name, const Value* captured,
                     uint32_t ncaptured);

}  // namespace ptc::builtins
