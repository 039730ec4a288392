#include "vm/vm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "compiler/compiler.hpp"
#include "runtime/access.hpp"
#include "runtime/builtins/owned.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/collector.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

#if defined(__GNUC__) && !defined(PTC_NO_COMPUTED_GOTO)
#define PTC_COMPUTED_GOTO 1
#else
#define PTC_COMPUTED_GOTO 0
#endif

namespace ptc {

namespace {

constexpr size_t kStackValues = size_t{1} << 20;  // 16 MB of registers, touched only as used

// Register stacks are reused by later runs on the same thread: allocating
// 16 MB per run would cost more than a small program takes to run.
struct StackPool {
  std::vector<Value*> free;
  ~StackPool() {
    for (Value* s : free)
      unmap_reserved(s, kStackValues * sizeof(Value));
  }
};
thread_local StackPool t_stacks;

Value* acquire_stack() {
  if (!t_stacks.free.empty()) {
    Value* s = t_stacks.free.back();
    t_stacks.free.pop_back();
    return s;
  }
  return static_cast<Value*>(map_reserved(kStackValues * sizeof(Value)));
}

void release_stack(Value* s) {
  if (t_stacks.free.size() < 4)
    t_stacks.free.push_back(s);
  else
    unmap_reserved(s, kStackValues * sizeof(Value));
}

bool is_nan(Value v) {
  return v.is_float() && v.as_float() != v.as_float();
}

[[noreturn]] void not_callable(Value v) {
  std::string hint =
      v.is_string()
          ? "strings are not functions; to call a function by name, write the name without quotes"
      : v.is_nil() ? "the value is nil: check that the name is defined and the data has the field"
                   : "only functions, keywords, maps, sets and vectors can be called";
  throw_error(ErrorKind::NotCallable,
              fmt::format("{} {} is not a function", type_name(v.type()), preview(v)), hint);
}

// A vector called with an index is that item, as in Clojure (GAP-S13); unlike
// nth and get, an index out of range is an error rather than nil.
Value call_vector(const VecObj* v, Value index) {
  if (!index.is_int())
    throw_error(ErrorKind::TypeError,
                fmt::format("a vector called as a function takes an integer index, got {} {}",
                            type_name(index.type()), preview(index)),
                "use (get v key) to look up anything else");
  int64_t i = index.as_int();
  if (i < 0 || static_cast<uint64_t>(i) >= v->count)
    throw_error(ErrorKind::RuntimeError,
                fmt::format("index {} is out of bounds for a vector of {} item{}", i, v->count,
                            v->count == 1 ? "" : "s"),
                "use (get v i) or (nth v i default) for nil or a default when out of range");
  return v->nth(static_cast<uint32_t>(i));
}

std::string arity_list(const FnProto* fp) {
  std::string out;
  for (const Proto* p : fp->arities) {
    if (!out.empty()) out += " or ";
    out += p->variadic ? fmt::format("{} or more", p->nparams) : fmt::format("{}", p->nparams);
  }
  return out;
}

}  // namespace

VM::VM(Ctx& ctx, const CompiledProgram& program)
    : ctx_(ctx), program_(program), max_frames_(ctx.limits.max_call_depth) {
  globals_.assign(program.globals.size(), unbound());
  var_values_.assign(program.globals.size(), Value());
  stack_ = acquire_stack();
  stack_end_ = stack_ + kStackValues;
  stack_high_ = stack_;
  // Frames never move while execute() points at them: the vector is reserved
  // for the run's whole call depth (400 KB at the default), and reused by
  // later runs on this thread instead of allocated per run.
  if (!spare_frames().empty()) {
    frames_ = std::move(spare_frames().back());
    spare_frames().pop_back();
  }
  frames_.reserve(max_frames_ + 2);
  ctx_.invoker = this;
  ctx_.add_root_source(this);
}

VM::~VM() {
  ctx_.remove_root_source(this);
  frames_.clear();
  if (spare_frames().size() < 4) spare_frames().push_back(std::move(frames_));
  // The next VM on this thread may collect before it has written every
  // register it scans: none may hold this run's values.
  std::fill(stack_, stack_high_, Value());
  release_stack(stack_);
  if (ctx_.invoker == this) ctx_.invoker = nullptr;
}

std::vector<VM::Frames>& VM::spare_frames() {
  static thread_local std::vector<Frames> spare;
  return spare;
}

Value* VM::stack_top() const {
  if (frames_.empty()) return stack_;
  const Frame& f = frames_.back();
  return f.base + f.proto->nregs;
}

void VM::unbound_global(uint32_t id) {
  const std::string& name = program_.globals[id];
  if (std::find(lost_functions.begin(), lost_functions.end(), name) != lost_functions.end())
    throw_error(ErrorKind::UnboundVar,
                fmt::format("{} was defined by an earlier run as a value that could not be "
                            "carried over (a function whose source or captured values cannot "
                            "be rebuilt)",
                            name),
                fmt::format("define {} again in this program (defn {} ...)", name, name));
  throw_error(ErrorKind::UnboundVar, fmt::format("{} is used before it is defined", name),
              fmt::format("run (def {} ...) before the code that reads it", name));
}

void VM::loop_limit(SourceLoc loc) {
  throw LispError(
      ErrorKind::LoopLimitExceeded,
      fmt::format("loop/recur exceeded the iteration limit of {}", ctx_.limits.loop_limit),
      "make sure the loop moves toward its exit; for large collections use map, filter or "
      "reduce instead of loop/recur",
      loc);
}

Value VM::make_closure(const FnProto* fn, const Frame& creator) {
  size_t n = fn->captures.size();
  auto* c = ctx_.arena.make_with_tail<ClosureObj>(n * sizeof(Value));
  c->type = Type::Closure;
  c->fn = fn;
  c->ncaptured = static_cast<uint32_t>(n);
  Value* out = c->captured();
  for (size_t i = 0; i < n; ++i) {
    const Capture& cap = fn->captures[i];
    out[i] = cap.from_upvalue ? creator.closure->captured()[cap.index] : creator.base[cap.index];
  }
  return Value::object(c);
}

// The error paths of push_frame, kept out of it: every call runs it.
[[noreturn, gnu::cold, gnu::noinline]] void throw_arity_mismatch(const FnProto* fp,
                                                                 uint32_t nargs) {
  std::string name = fp->name.empty() ? "anonymous fn" : fmt::format("fn {}", fp->name);
  throw_error(ErrorKind::ArityError,
              fmt::format("{} called with {} argument{}, but takes {}", name, nargs,
                          nargs == 1 ? "" : "s", arity_list(fp)),
              fmt::format("parameters: [{}]", fp->params));
}
[[noreturn, gnu::cold, gnu::noinline]] void throw_call_depth(size_t max_frames) {
  throw_error(ErrorKind::CallDepthExceeded,
              fmt::format("call depth exceeded {} nested calls", max_frames),
              "deep recursion: use loop/recur or reduce, or recurse on smaller inputs");
}

void VM::push_frame(const ClosureObj* closure, Value* slot, uint32_t nargs) {
  const auto* fp = static_cast<const FnProto*>(closure->fn);
  const Proto* p = fp->arity_for(nargs);
  if (!p) [[unlikely]]
    throw_arity_mismatch(fp, nargs);
  Value* base = slot + 1;
  if (frames_.size() >= max_frames_ || base + p->nregs + 1 > stack_end_) [[unlikely]]
    throw_call_depth(max_frames_);
  if (base + p->nregs > stack_high_) stack_high_ = base + p->nregs;
  if (p->variadic) {
    uint32_t fixed = p->nparams;
    base[fixed] =
        nargs > fixed ? Value::object(vec_from(ctx_.arena, base + fixed, nargs - fixed)) : Value();
  }
  frames_.push_back(Frame{p, closure, p->code.data(), base, 0, 0});
}

Value VM::call_other(Value callee, Value* args, uint32_t nargs) {
  switch (callee.type()) {
    case Type::Builtin:
      return call_builtin(ctx_, callee.builtin_id(), args, nargs);
    case Type::NativeFn: {
      const auto* n = callee.as<const NativeFnObj>();
      return n->impl(ctx_, n, args, nargs);
    }
    case Type::Keyword:
      if (nargs == 1) return lookup(ctx_, args[0], callee);
      if (nargs == 2) return lookup(ctx_, args[0], callee, args[1]);
      throw_error(ErrorKind::ArityError,
                  fmt::format("keyword :{} called with {} arguments", callee.kw()->name(), nargs),
                  "use (:k m) or (:k m default)");
    case Type::Map:
      if (nargs == 1 || nargs == 2)
        return lookup(ctx_, callee, args[0], nargs == 2 ? args[1] : Value());
      throw_error(ErrorKind::ArityError, fmt::format("map called with {} arguments", nargs),
                  "use (m key) or (m key default)");
    case Type::Vector:
      if (nargs == 1) return call_vector(callee.vec(), args[0]);
      throw_error(ErrorKind::ArityError, fmt::format("vector called with {} arguments", nargs),
                  "use (v i), or (get v i default) for a default");
    case Type::Set:
      if (nargs == 1) {
        const Value* v = set_find(callee.set(), args[0]);
        return v ? *v : Value();
      }
      throw_error(ErrorKind::ArityError, fmt::format("set called with {} arguments", nargs),
                  "use (s x)");
    default:
      not_callable(callee);
  }
}

Value VM::invoke(Value fn, const Value* args, uint32_t nargs) {
  return invoke_owned(fn, args, nargs, 0);
}

Value VM::invoke_owned(Value fn, const Value* args, uint32_t nargs, uint32_t owner) {
  check_native_stack("calling a function from a builtin");
  if (fn.type() != Type::Closure) return call_other(fn, const_cast<Value*>(args), nargs);
  Value* slot = stack_top();
  if (slot + 1 + nargs >= stack_end_)
    throw_error(ErrorKind::CallDepthExceeded, "call depth exceeded: the register stack is full",
                "deep recursion: use loop/recur or reduce");
  if (slot + 1 + nargs > stack_high_) stack_high_ = slot + 1 + nargs;
  slot[0] = fn;
  copy_values(slot + 1, args, nargs);
  size_t depth = frames_.size();
  push_frame(fn.as<const ClosureObj>(), slot, nargs);
  if (owner && frames_.back().proto->owns_accumulator) frames_.back().owner = owner;
  ctx_.safepoint_tick();
  return execute(depth);
}

Value VM::invoke_until_return(Value fn, const Value* args, uint32_t nargs) {
  size_t depth = frames_.size();
  try {
    return invoke(fn, args, nargs);
  } catch (ReturnSignal& r) {
    frames_.resize(depth);
    return r.value;
  }
}

Value VM::top_level_closure(const FnProto* fn) {
  return Value::object(&fn->top_closure);
}

void VM::trace_roots(Tracer& t) {
  Value* top = stack_top();
  t.values(stack_, static_cast<size_t>(top - stack_));
  if (stack_high_ > top) std::fill(top, stack_high_, Value());
  stack_high_ = top;
  for (const Frame& f : frames_)
    t.object(f.closure);
  t.values(globals_.data(), globals_.size());
  t.values(var_values_.data(), var_values_.size());
  t.value(data);
  t.values(turn_history.data(), turn_history.size());
}

Value VM::run() {
  frames_.clear();
  Value* slot = stack_;
  if (stack_high_ < slot + 1) stack_high_ = slot + 1;
  slot[0] = top_level_closure(program_.main);
  push_frame(slot[0].as<ClosureObj>(), slot, 0);
  try {
    return execute(0);
  } catch (ReturnSignal& r) {
    returned_ = true;
    return r.value;
  }
}

Value VM::execute(size_t stop_depth) {
  Frame* f = &frames_.back();
  const Instr* pc = f->pc;
  Value* R = f->base;
  const Value* K = f->proto->constants.data();
  Instr in;

// The pc rule: an instruction that can raise a LispError (a type error, a
// limit, the native stack guard, the reduction tick, anything a builtin or a
// helper such as compare or equals throws) stores pc in its frame first
// (SAVE_PC). The handler at the end of execute() reads the failing
// instruction's source position from the frame, so the loop keeps pc in a
// register and saves it only where it can fail: an instruction that forgets
// reports the position of the last one that saved it. A fast path that
// cannot raise may skip it (ADD on two small ints), its slow path may not.
#define SAVE_PC() (f->pc = pc)
#define LOAD_FRAME()                \
  do {                              \
    f = &frames_.back();            \
    pc = f->pc;                     \
    R = f->base;                    \
    K = f->proto->constants.data(); \
  } while (0)

#if PTC_COMPUTED_GOTO
  static const void* const kLabels[] = {
#define PTC_X(name, operands, meaning) &&ptc_op_##name,
      PTC_OPCODES(PTC_X)
#undef PTC_X
  };
#define VM_CASE(name) \
  case Op::name:      \
    ptc_op_##name:
#define NEXT                                \
  do {                                      \
    in = *pc++;                             \
    goto* kLabels[static_cast<int>(in.op)]; \
  } while (0)
#else
#define VM_CASE(name) case Op::name:
#define NEXT continue
#endif

  try {
    for (;;) {
      in = *pc++;
#if PTC_COMPUTED_GOTO
      goto* kLabels[static_cast<int>(in.op)];
#endif
      switch (in.op) {
        VM_CASE(MOVE) {
          R[in.a] = R[in.b()];
          NEXT;
        }
        VM_CASE(LOADK) {
          R[in.a] = K[in.bx()];
          NEXT;
        }
        VM_CASE(LOADNIL) {
          R[in.a] = Value();
          NEXT;
        }
        VM_CASE(LOADBOOL) {
          R[in.a] = Value::boolean(in.b() != 0);
          NEXT;
        }
        VM_CASE(LOADINT) {
          R[in.a] = Value::integer(in.sbx());
          NEXT;
        }
        VM_CASE(GETUPVAL) {
          R[in.a] = f->closure->captured()[in.b()];
          NEXT;
        }
        VM_CASE(GETSELF) {
          R[in.a] = Value::object(f->closure);
          NEXT;
        }
        VM_CASE(GETGLOBAL) {
          SAVE_PC();
          Value v = globals_[in.bx()];
          if (is_unbound(v)) unbound_global(in.bx());
          R[in.a] = v;
          NEXT;
        }
        VM_CASE(GETGLOBALF) {
          Value v = globals_[in.b()];
          R[in.a] = is_unbound(v) ? Value::builtin(in.c()) : v;
          NEXT;
        }
        VM_CASE(DEFGLOBAL) {
          SAVE_PC();
          globals_[in.bx()] = R[in.a];
          [[fallthrough]];
        }
        VM_CASE(VARREF) {
          SAVE_PC();
          Value& var = var_values_[in.bx()];
          if (var.is_nil()) {
            auto* v = ctx_.arena.make<VarObj>();
            v->type = Type::Var;
            v->name = ctx_.interner.symbol(program_.globals[in.bx()]);
            var = Value::object(v);
          }
          R[in.a] = var;
          NEXT;
        }
        VM_CASE(ISBOUND) {
          R[in.a] = Value::boolean(!is_unbound(globals_[in.bx()]));
          NEXT;
        }
        VM_CASE(GETDATA) {
          SAVE_PC();
          R[in.a] = lookup(ctx_, data, K[in.bx()]);
          NEXT;
        }
        VM_CASE(TURNHIST) {
          size_t back = in.b();
          R[in.a] = back >= 1 && back <= turn_history.size() ? turn_history[back - 1] : Value();
          NEXT;
        }
        VM_CASE(JMP) {
          pc += in.sbx();
          NEXT;
        }
        VM_CASE(JMPIF) {
          if (R[in.a].truthy()) pc += in.sbx();
          NEXT;
        }
        VM_CASE(JMPIFNOT) {
          if (!R[in.a].truthy()) pc += in.sbx();
          NEXT;
        }
        VM_CASE(LOOP) {
          SAVE_PC();
          int64_t count;
          if (in.a == kFrameCounter) {
            count = ++f->recur_count;
          } else {
            count = R[in.a].as_int() + 1;
            R[in.a] = Value::integer(count);
          }
          if (count > ctx_.limits.loop_limit)
            loop_limit(f->proto->loc_at(static_cast<size_t>(pc - 1 - f->proto->code.data())));
          ctx_.safepoint_tick();
          pc += in.sbx();
          NEXT;
        }
        VM_CASE(JMPBACK) {
          SAVE_PC();
          ctx_.safepoint_tick();
          pc += in.sbx();
          NEXT;
        }
        VM_CASE(CALL) {
          Value* slot = R + in.a;
          Value callee = *slot;
          SAVE_PC();
          if (callee.type() == Type::Closure) {
            push_frame(callee.as<const ClosureObj>(), slot, in.b());
            ctx_.safepoint_tick();
            LOAD_FRAME();
            NEXT;
          }
          if (ctx_.collection_due()) [[unlikely]]
            ctx_.collect_if_due();
          *slot = call_other(callee, slot + 1, in.b());
          NEXT;
        }
        VM_CASE(CALLB) {
          SAVE_PC();
          if (ctx_.collection_due()) [[unlikely]]
            ctx_.collect_if_due();
          R[in.a] = builtin_def(in.c()).fn(ctx_, R + in.a, in.b());
          NEXT;
        }
        VM_CASE(CALLO) {
          SAVE_PC();
          if (ctx_.collection_due()) [[unlikely]]
            ctx_.collect_if_due();
          R[in.a] = owned_variant(in.c())(ctx_, R + in.a, in.b(), f->owner);
          NEXT;
        }
        VM_CASE(REDUCE) {
          SAVE_PC();
          Value* r = R + in.a;
          if (r[0].type() != Type::Closure || !r[2].is_vector()) {
            if (ctx_.collection_due()) [[unlikely]]
              ctx_.collect_if_due();
            r[0] = builtin_def(in.c()).fn(ctx_, r, in.b());
            pc += 2;  // past REDUCESTEP and its JMP
            NEXT;
          }
          r[3] = Value::integer(0);
          r[4] = Value::integer(ctx_.new_owner());
          r[5] = r[1];
          NEXT;
        }
        VM_CASE(REDUCESTEP) {
          // R[A+5] holds the accumulator: the initial value or the last
          // step's result (the callee's RETURN put it there).
          Value* r = R + in.a;
          const VecObj* items = r[2].vec();
          auto i = static_cast<uint32_t>(r[3].as_int());
          auto owner = static_cast<uint32_t>(r[4].as_int());
          if (i >= items->count) {
            hash_disown(r[5], owner);
            r[0] = r[5];
            ++pc;  // past the JMP back
            NEXT;
          }
          SAVE_PC();
          r[3] = Value::integer(i + 1);
          r[6] = r[5];
          r[7] = items->nth(i);
          r[5] = r[0];
          // As the builtin's loop charges: one for the item, one for the call.
          ctx_.safepoint_tick(2);
          push_frame(r[5].as<const ClosureObj>(), r + 5, 2);
          if (frames_.back().proto->owns_accumulator) frames_.back().owner = owner;
          LOAD_FRAME();
          NEXT;
        }
        VM_CASE(CLOSURE) {
          SAVE_PC();
          R[in.a] = make_closure(f->proto->closures[in.bx()], *f);
          NEXT;
        }
        VM_CASE(RETURN) {
          Value v = R[in.a];
          Value* slot = f->base - 1;
          frames_.pop_back();
          *slot = v;
          if (frames_.size() == stop_depth) return v;
          LOAD_FRAME();
          NEXT;
        }
        VM_CASE(VECTOR) {
          SAVE_PC();
          R[in.a] = Value::object(vec_from(ctx_.arena, R + in.b(), in.c()));
          NEXT;
        }
        VM_CASE(MAP) {
          SAVE_PC();
          {  // scoped: NEXT is a computed goto, which would skip the builder's destructor
            HashBuilder b(ctx_.arena, Type::Map);
            for (uint32_t i = 0; i + 1 < in.c(); i += 2)
              b.put(R[in.b() + i], R[in.b() + i + 1]);
            R[in.a] = Value::object(b.finish());
          }
          NEXT;
        }
        VM_CASE(SET) {
          SAVE_PC();
          {
            HashBuilder b(ctx_.arena, Type::Set);
            for (uint32_t i = 0; i < in.c(); ++i)
              b.put(R[in.b() + i]);
            R[in.a] = Value::object(b.finish());
          }
          NEXT;
        }
        VM_CASE(CASE) {
          SAVE_PC();
          const Value* clause = map_find(K[in.bx()].map(), R[in.a]);
          // To the clause's JMP in the table after CASE (opcodes.hpp, Notes).
          if (clause) pc += clause->as_int() + 1;
          NEXT;
        }
        VM_CASE(TOOL) {
          SAVE_PC();
          std::string_view name = K[in.bx()].str()->view();
          if (!tool_caller)
            throw_error(ErrorKind::UnknownTool,
                        fmt::format("unknown tool tool/{}: no tools are available", name),
                        "this run has no tools registered");
          if (ctx_.collection_due()) [[unlikely]]
            ctx_.collect_if_due();
          ctx_.tool_call_outermost = stop_depth == 0;
          ctx_.tool_call_loc =
              f->proto->loc_at(static_cast<size_t>(pc - 1 - f->proto->code.data()));
          R[in.a] = tool_caller(ctx_, name, R[in.a]);
          if (ctx_.abandoned) [[unlikely]]
            return Value();  // the run is discarded (Ctx::abandoned)
          NEXT;
        }
        VM_CASE(RETSIG) {
          SAVE_PC();
          throw ReturnSignal{R[in.a]};
        }
        VM_CASE(FAILSIG) {
          SAVE_PC();
          Value v = R[in.a];
          ctx_.failed_with = v;
          Error e;
          e.kind = ErrorKind::Fail;
          // Capped (and cut) like any printing a program reaches: a value
          // with shared structure can print to gigabytes.
          PrintOptions capped;
          capped.max_bytes = size_t{1} << 20;
          e.fail_value = print_to_string(v, capped);
          e.message = v.is_string() ? std::string(v.str()->view()) : e.fail_value;
          e.loc = f->proto->loc_at(static_cast<size_t>(pc - 1 - f->proto->code.data()));
          throw LispError(std::move(e));
        }
// Arithmetic with an int64 fast path; C is the second operand (a register,
// or the literal carried by ADDI/SUBI).
#define PTC_ARITH_OP(NAME, OVERFLOWS, SLOW, C)                              \
  VM_CASE(NAME) {                                                           \
    Value b = R[in.b()], c = (C);                                           \
    int64_t r;                                                              \
    if (b.is_int() && c.is_int() && !OVERFLOWS(b.as_int(), c.as_int(), &r)) \
      R[in.a] = Value::integer(r);                                          \
    else                                                                    \
      R[in.a] = (SAVE_PC(), SLOW(ctx_.arena, b, c));                        \
    NEXT;                                                                   \
  }
        PTC_ARITH_OP(ADD, __builtin_add_overflow, num_add, R[in.c()])
        PTC_ARITH_OP(SUB, __builtin_sub_overflow, num_sub, R[in.c()])
        PTC_ARITH_OP(MUL, __builtin_mul_overflow, num_mul, R[in.c()])
        PTC_ARITH_OP(ADDI, __builtin_add_overflow, num_add, Value::integer(in.sc()))
        PTC_ARITH_OP(SUBI, __builtin_sub_overflow, num_sub, Value::integer(in.sc()))
#undef PTC_ARITH_OP
#define PTC_COMPARE_OP(NAME, OP)                                                            \
  VM_CASE(NAME) {                                                                           \
    Value b = R[in.b()], c = R[in.c()];                                                     \
    if (b.is_int() && c.is_int())                                                           \
      R[in.a] = Value::boolean(b.as_int() OP c.as_int());                                   \
    else                                                                                    \
      R[in.a] = Value::boolean(!is_nan(b) && !is_nan(c) && (SAVE_PC(), compare(b, c))OP 0); \
    NEXT;                                                                                   \
  }
        PTC_COMPARE_OP(LT, <)
        PTC_COMPARE_OP(LE, <=)
        PTC_COMPARE_OP(GT, >)
        PTC_COMPARE_OP(GE, >=)
#undef PTC_COMPARE_OP
        VM_CASE(EQ) {
          Value b = R[in.b()], c = R[in.c()];
          R[in.a] = Value::boolean(b.is_int() && c.is_int() ? b.as_int() == c.as_int()
                                                            : (SAVE_PC(), equals(b, c)));
          NEXT;
        }
        VM_CASE(INC) {
          Value b = R[in.b()];
          R[in.a] = b.is_int() && b.as_int() != INT64_MAX
                        ? Value::integer(b.as_int() + 1)
                        : (SAVE_PC(), require_number("inc", b, 1),
                           num_add(ctx_.arena, b, Value::integer(1)));
          NEXT;
        }
        VM_CASE(DEC) {
          Value b = R[in.b()];
          R[in.a] = b.is_int() && b.as_int() != INT64_MIN
                        ? Value::integer(b.as_int() - 1)
                        : (SAVE_PC(), require_number("dec", b, 1),
                           num_sub(ctx_.arena, b, Value::integer(1)));
          NEXT;
        }
// A comparison fused with the JMP to the else branch that follows it: when
// it holds the JMP is skipped, else it is taken here, without a dispatch. B
// is the second operand (a register, or the literal carried by IF*I).
#define PTC_TAKE_ELSE_JUMP_UNLESS(yes) (pc += (yes) ? 1 : pc->sbx() + 1)
#define PTC_IF_OP(NAME, OP, B)                                                   \
  VM_CASE(NAME) {                                                                \
    Value a = R[in.a], b = (B);                                                  \
    bool yes = a.is_int() && b.is_int()                                          \
                   ? a.as_int() OP b.as_int()                                    \
                   : !is_nan(a) && !is_nan(b) && (SAVE_PC(), compare(a, b))OP 0; \
    PTC_TAKE_ELSE_JUMP_UNLESS(yes);                                              \
    NEXT;                                                                        \
  }
#define PTC_IFEQ_OP(NAME, B)                                                         \
  VM_CASE(NAME) {                                                                    \
    Value a = R[in.a], b = (B);                                                      \
    PTC_TAKE_ELSE_JUMP_UNLESS(a.is_int() && b.is_int() ? a.as_int() == b.as_int()    \
                                                       : (SAVE_PC(), equals(a, b))); \
    NEXT;                                                                            \
  }
        PTC_IF_OP(IFLT, <, R[in.b()])
        PTC_IF_OP(IFLE, <=, R[in.b()])
        PTC_IF_OP(IFGT, >, R[in.b()])
        PTC_IF_OP(IFGE, >=, R[in.b()])
        PTC_IFEQ_OP(IFEQ, R[in.b()])
        PTC_IF_OP(IFLTI, <, Value::integer(in.sb()))
        PTC_IF_OP(IFLEI, <=, Value::integer(in.sb()))
        PTC_IF_OP(IFGTI, >, Value::integer(in.sb()))
        PTC_IF_OP(IFGEI, >=, Value::integer(in.sb()))
        PTC_IFEQ_OP(IFEQI, Value::integer(in.sb()))
#undef PTC_IF_OP
#undef PTC_IFEQ_OP
#undef PTC_TAKE_ELSE_JUMP_UNLESS
        VM_CASE(KWGET) {
          // (:k row), the most common access of all: a map inline, the
          // rest (nil, vectors, sets, strings) through lookup.
          Value m = R[in.b()];
          if (m.is_map()) {
            const Value* v = map_lookup(m.map(), K[in.c()]);
            R[in.a] = v ? *v : Value();
            NEXT;
          }
          SAVE_PC();
          R[in.a] = lookup(ctx_, m, K[in.c()]);
          NEXT;
        }
      }
    }
  } catch (LispError& e) {
    // The pc rule (at SAVE_PC): the failing instruction saved its pc.
    if (!e.error().loc.known() && !frames_.empty()) {
      const Frame& top = frames_.back();
      e.error().loc = top.proto->loc_at(static_cast<size_t>(top.pc - 1 - top.proto->code.data()));
    }
    throw;
  }
#undef VM_CASE
#undef NEXT
#undef LOAD_FRAME
#undef SAVE_PC
}

}  // namespace ptc
