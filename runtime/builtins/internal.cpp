// Builtins that only the analyzer's expansions call (names start with "__",
// which programs cannot resolve): iteration for `for`/`doseq`, destructuring
// access, and the hidden accumulator `for` collects into.
#include <fmt/format.h>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// A vector under construction, owned by one `for` expansion and never visible
// to the program.
struct TransientVec : OpaqueObj {
  explicit TransientVec(Arena& arena) : builder(arena) {}
  VecBuilder builder;
};

void tv_print(const OpaqueObj*, std::string& out, bool) {
  out += "#<transient>";
}
bool tv_equals(const OpaqueObj* a, const OpaqueObj* b) {
  return a == b;
}
uint32_t tv_hash(const OpaqueObj* a) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(a));
}
int tv_compare(const OpaqueObj*, const OpaqueObj*) {
  return 0;
}
void tv_trace(const OpaqueObj* self, Tracer& t) {
  static_cast<const TransientVec*>(self)->builder.trace(t);
}
const OpaqueVTable kTransientVT = {"transient",          tv_print, tv_equals, tv_hash, tv_compare,
                                   sizeof(TransientVec), tv_trace};

TransientVec* as_tv(Value v) {
  if (!v.is(Type::Opaque) || v.as<OpaqueObj>()->vt != &kTransientVT)
    type_error("__tv", "an internal accumulator", v, 1);
  return v.as<TransientVec>();
}

Value tv_new(Ctx& ctx, const Value*, uint32_t) {
  auto* tv = ctx.arena.make<TransientVec>(ctx.arena);
  tv->type = Type::Opaque;
  tv->vt = &kTransientVT;
  return Value::object(tv);
}

Value tv_push(Ctx&, const Value* a, uint32_t) {
  as_tv(a[0])->builder.push(a[1]);
  return a[0];
}

Value tv_finish(Ctx&, const Value* a, uint32_t) {
  return Value::object(as_tv(a[0])->builder.finish());
}

// (__seqv coll "for"): the items of coll as a vector; the second argument
// names the form for error messages.
Value seqv(Ctx& ctx, const Value* a, uint32_t) {
  return Value::object(seq_to_vector(ctx, a[0], a[1].is_string() ? a[1].str()->view() : "for"));
}

// (__task_id id): a task id must be a string (spec §5.18).
Value task_id(Ctx&, const Value* a, uint32_t) {
  if (!a[0].is_string())
    type_error("task", "a string id", a[0], 1, "e.g. (task \"fetch-users\" expr)");
  return a[0];
}

// (step-done id summary): records a plan step's summary; returns the summary.
// Summaries reach the host with the agent-loop API; here they are checked only.
Value step_done(Ctx&, const Value* a, uint32_t) {
  if (!a[0].is_string() && !a[0].is_keyword()) type_error("step-done", "a string id", a[0], 1);
  if (!a[1].is_string()) type_error("step-done", "a summary string", a[1], 2);
  return a[1];
}

// (task-reset id): forgets a journaled task result; without a journal a no-op.
Value task_reset(Ctx&, const Value* a, uint32_t) {
  if (!a[0].is_string()) type_error("task-reset", "a string id", a[0], 1);
  return Value();
}

// (budget/remaining): the budget map the host passed; empty when none.
Value budget_remaining(Ctx& ctx, const Value*, uint32_t) {
  if (ctx.budget.is_map()) return ctx.budget;
  return Value::object(empty_map());
}

[[noreturn]] void destructure_error(std::string_view what, Value got) {
  throw_error(
      ErrorKind::DestructureError,
      fmt::format("cannot destructure {} {} as {}", type_name(got.type()), preview(got), what),
      "vector patterns [a b] need a vector, string or nil; map patterns {:keys [a]} need a map");
}

// (__dnth coll i): element i for a vector pattern, nil when missing.
Value dnth(Ctx& ctx, const Value* a, uint32_t) {
  Value coll = a[0];
  if (!(coll.is_nil() || coll.is_vector() || coll.is_string())) {
    if (coll.is_map() || coll.is_set()) {
      // Maps and sets destructure through their seq (entries / elements).
      const VecObj* v = seq_to_vector(ctx, coll, "destructuring");
      return nth_or(ctx, Value::object(v), a[1].as_int(), Value(), "destructuring");
    }
    destructure_error("a sequence", coll);
  }
  return nth_or(ctx, coll, a[1].as_int(), Value(), "destructuring");
}

// (__drest coll i): the items from i on, or nil when there are none (& rest).
Value drest(Ctx& ctx, const Value* a, uint32_t) {
  Value coll = a[0];
  if (!is_seqable(coll)) destructure_error("a sequence", coll);
  const VecObj* v = seq_to_vector(ctx, coll, "destructuring");
  auto from = static_cast<uint32_t>(a[1].as_int());
  if (from >= v->count) return Value();
  return Value::object(vec_slice(ctx.arena, v, from, v->count));
}

// (__dmap x): the value a map pattern reads from. A vector of alternating keys
// and values (from `& {:keys [...]}`) becomes a map.
Value dmap(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_nil() || x.is_map()) return x;
  if (x.is_vector()) {
    const VecObj* v = x.vec();
    if (v->count % 2 == 0) {
      HashBuilder b(ctx.arena, Type::Map);
      for (uint32_t i = 0; i + 1 < v->count; i += 2)
        b.put(v->nth(i), v->nth(i + 1));
      return Value::object(finish_map(b));
    }
  }
  destructure_error("a map", x);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Internal, "__tv_new", 0, 0, tv_new, "", ""),
    PTC_BUILTIN(Internal, "__tv_push", 2, 2, tv_push, "", ""),
    PTC_BUILTIN(Internal, "__tv_finish", 1, 1, tv_finish, "", ""),
    PTC_BUILTIN(Internal, "__seqv", 2, 2, seqv, "", ""),
    PTC_BUILTIN(Core, "budget/remaining", 0, 0, budget_remaining, "(budget/remaining)", "The remaining budget of the agent loop; {} outside one."),
    PTC_BUILTIN(Internal, "__task_id", 1, 1, task_id, "", ""),
    PTC_BUILTIN(Core, "step-done", 2, 2, step_done, "(step-done \"id\" \"summary\")", "Records a plan step summary; returns it."),
    PTC_BUILTIN(Core, "task-reset", 1, 1, task_reset, "(task-reset \"id\")", "Forgets a journaled task result."),
    PTC_BUILTIN(Internal, "__dnth", 2, 2, dnth, "", ""),
    PTC_BUILTIN(Internal, "__drest", 2, 2, drest, "", ""),
    PTC_BUILTIN(Internal, "__dmap", 1, 1, dmap, "", ""),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> internal() {
  return kDefs;
}

}  // namespace ptc::builtins
