// Function tools (spec §8.11, §8.12): apply and the combinators comp, partial,
// juxt, complement, constantly, every-pred, some-fn and fnil.
//
// A combinator returns a NativeFn whose captured values are the functions (and
// arguments) it closes over; calling it goes back through ctx.call, so any
// callable works inside: closures, builtins, keywords, maps, sets and other
// native functions. Function arguments are checked when the combinator is
// built, so a mistake is reported where it was made.
#include <fmt/format.h>

#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

using Args = std::vector<Value>;

Value call_with(Ctx& ctx, Value f, const Args& args) {
  return ctx.call(f, args.data(), static_cast<uint32_t>(args.size()));
}

void expect_callables(const char* fname, const Value* a, uint32_t n, uint32_t from = 0) {
  for (uint32_t i = from; i < n; ++i)
    expect_callable(fname, a[i], static_cast<int>(i) + 1);
}

// (apply f x y ... coll): the last argument is spread. nil is an empty
// sequence and a string spreads its characters, as in Clojure (GAP-S33).
Value apply(Ctx& ctx, const Value* a, uint32_t n) {
  Value coll = a[n - 1];
  if (!is_seqable(coll))
    type_error("apply", "a collection as the last argument", coll, static_cast<int>(n),
               "apply spreads its last argument: (apply f [x y]) or (apply f x [y z])");
  Args args(a + 1, a + n - 1);
  size_t spread = seq_count(ctx, coll, "apply", static_cast<int>(n));
  reserve_scratch(ctx, spread, sizeof(Value));  // the native argument list
  args.reserve(args.size() + spread);
  for (SeqIter it(ctx, coll, "apply", static_cast<int>(n)); !it.done(); it.next())
    args.push_back(it.value());
  ctx.tick(static_cast<int64_t>(args.size() / 8));
  return call_with(ctx, a[0], args);
}

// comp: the rightmost function takes the call's arguments, each one to its
// left takes the previous result.
Value comp_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  RootScope roots(ctx);  // the functions to its left are called later
  roots.add(self);
  const Value* fns = self->captured();
  uint32_t i = self->ncaptured - 1;
  Value r = ctx.call(fns[i], args, nargs);
  while (i-- > 0)
    r = ctx.call(fns[i], r);
  return r;
}

Value comp(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 0) {
    static const uint32_t identity_id = *find_builtin("identity");
    return Value::builtin(identity_id);
  }
  expect_callables("comp", a, n);
  if (n == 1) return a[0];
  return make_native_fn(ctx, comp_call, "comp", a, n);
}

Value partial_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  const Value* c = self->captured();
  Args all(c + 1, c + self->ncaptured);
  all.insert(all.end(), args, args + nargs);
  return call_with(ctx, c[0], all);
}

Value partial(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callable("partial", a[0], 1);
  if (n == 1) return a[0];
  return make_native_fn(ctx, partial_call, "partial", a, n);
}

// juxt: every function gets all of the call's arguments (GAP-S58).
Value juxt_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  RootScope roots(ctx);  // each call gets the same arguments
  roots.add(self);
  roots.add(args, nargs);
  VecBuilder out(ctx.arena);
  roots.add(out);
  for (uint32_t i = 0; i < self->ncaptured; ++i)
    out.push(ctx.call(self->captured()[i], args, nargs));
  return Value::object(out.finish());
}

Value juxt(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callables("juxt", a, n);
  return make_native_fn(ctx, juxt_call, "juxt", a, n);
}

Value complement_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  return Value::boolean(!ctx.call(self->captured()[0], args, nargs).truthy());
}

Value complement(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("complement", a[0], 1);
  return make_native_fn(ctx, complement_call, "complement", {a[0]});
}

Value constantly_call(Ctx&, const NativeFnObj* self, const Value*, uint32_t) {
  return self->captured()[0];
}

Value constantly(Ctx& ctx, const Value* a, uint32_t) {
  return make_native_fn(ctx, constantly_call, "constantly", {a[0]});
}

// every-pred: true when every predicate holds for every argument (true for
// no arguments); always a boolean.
Value every_pred_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  RootScope roots(ctx);
  roots.add(self);
  roots.add(args, nargs);
  for (uint32_t p = 0; p < self->ncaptured; ++p)
    for (uint32_t i = 0; i < nargs; ++i)
      if (!ctx.call(self->captured()[p], args[i]).truthy()) return Value::boolean(false);
  return Value::boolean(true);
}

Value every_pred(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callables("every-pred", a, n);
  return make_native_fn(ctx, every_pred_call, "every-pred", a, n);
}

// some-fn: the first truthy (f x) over the functions, then the arguments;
// otherwise the last falsy result (nil for no arguments), as Clojure's `or`.
Value some_fn_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  RootScope roots(ctx);
  roots.add(self);
  roots.add(args, nargs);
  Value last;
  for (uint32_t p = 0; p < self->ncaptured; ++p)
    for (uint32_t i = 0; i < nargs; ++i) {
      last = ctx.call(self->captured()[p], args[i]);
      if (last.truthy()) return last;
    }
  return last;
}

Value some_fn(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callables("some-fn", a, n);
  return make_native_fn(ctx, some_fn_call, "some-fn", a, n);
}

// fnil: nil arguments in the first one to three positions are replaced by the
// defaults (GAP-S42); other arguments pass through.
Value fnil_call(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs) {
  CallArgs all(nargs);
  copy_values(all.data(), args, nargs);
  return ctx.call(*fnil_unwrap(self, all.data(), nargs), all.data(), nargs);
}

Value fnil(Ctx& ctx, const Value* a, uint32_t n) {
  expect_callable("fnil", a[0], 1);
  return make_native_fn(ctx, fnil_call, "fnil", a, n);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "apply", 2, kVariadic, apply, "(apply f coll) or (apply f x y ... coll)", "Calls f with the given arguments followed by the items of the last one."),
    PTC_BUILTIN(Core, "comp", 0, kVariadic, comp, "(comp f1 f2 ...)", "A function that calls the functions right to left, each on the previous result; (comp) is identity."),
    PTC_BUILTIN(Core, "partial", 1, kVariadic, partial, "(partial f arg1 ...)", "A function that calls f with the given arguments before its own."),
    PTC_BUILTIN(Core, "juxt", 1, kVariadic, juxt, "(juxt f1 f2 ...)", "A function returning the vector of each function's result on its arguments."),
    PTC_BUILTIN(Core, "complement", 1, 1, complement, "(complement f)", "A function returning the boolean opposite of f's truthiness."),
    PTC_BUILTIN(Core, "constantly", 1, 1, constantly, "(constantly x)", "A function that ignores its arguments and returns x."),
    PTC_BUILTIN(Core, "every-pred", 1, kVariadic, every_pred, "(every-pred p1 p2 ...)", "A predicate that is true when every pi holds for every argument."),
    PTC_BUILTIN(Core, "some-fn", 1, kVariadic, some_fn, "(some-fn f1 f2 ...)", "A function returning the first truthy (fi arg), or the last falsy one."),
    PTC_BUILTIN(Core, "fnil", 2, 4, fnil, "(fnil f x), (fnil f x y) or (fnil f x y z)", "A function like f that replaces nil first (second, third) arguments with the defaults."),
};  // clang-format on

}  // namespace

const Value* fnil_unwrap(const NativeFnObj* self, Value* args, uint32_t nargs) {
  if (self->impl != fnil_call) return nullptr;
  const Value* c = self->captured();
  for (uint32_t i = 0; i + 1 < self->ncaptured && i < nargs; ++i)
    if (args[i].is_nil()) args[i] = c[i + 1];
  return &c[0];
}

std::span<const BuiltinDef> functional() {
  return kDefs;
}

}  // namespace ptc::builtins
