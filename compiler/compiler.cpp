#include "compiler/compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "compiler/owned_accumulator.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/ctx.hpp"
#include "runtime/scratch.hpp"
#include "runtime/stack_guard.hpp"

namespace ptc {

namespace {

constexpr uint32_t kMaxRegs = 0xFFFE;  // 0xFFFF is kFrameCounter

struct LoopTarget {
  // Where recur's values go: consecutive registers (an arity's parameters, a
  // loop's bindings), so no vector to allocate for every function.
  uint32_t first_reg = 0;
  uint32_t nregs = 0;
  size_t start = 0;      // first instruction of the body
  uint16_t counter = 0;  // register counting jumps, or kFrameCounter
  bool counted = true;
};

struct FastOp {
  std::string_view name;
  Op op;
  int nargs;
};
constexpr FastOp kFastOps[] = {
    {"+", Op::ADD, 2},   {"-", Op::SUB, 2},   {"*", Op::MUL, 2}, {"<", Op::LT, 2},
    {"<=", Op::LE, 2},   {">", Op::GT, 2},    {">=", Op::GE, 2}, {"=", Op::EQ, 2},
    {"inc", Op::INC, 1}, {"dec", Op::DEC, 1},
};

// A small integer literal fits an instruction's signed 16-bit operand.
std::optional<int16_t> small_int(const Node* n) {
  if (n->kind != NodeKind::Const) return std::nullopt;
  Value v = static_cast<const ConstNode*>(n)->value;
  if (!v.is_int() || v.as_int() < INT16_MIN || v.as_int() > INT16_MAX) return std::nullopt;
  return static_cast<int16_t>(v.as_int());
}

uint32_t imm(int16_t v) {
  return static_cast<uint16_t>(v);
}

class ProgramCompiler;

// Compiles one arity of one function.
class ArityCompiler {
 public:
  ArityCompiler(ProgramCompiler& pc, FnNode* fn, Proto* proto) : pc_(pc), fn_(fn), p_(proto) {}

  void compile_arity(FnArity* arity);

 private:
  // ---- emission
  size_t emit(Instr i, SourceLoc loc) {
    code_->push_back(i);
    locs_->push_back(loc);
    return code_->size() - 1;
  }
  size_t here() const { return code_->size(); }
  void patch_to(size_t jump, size_t target) {
    (*code_)[jump].bc =
        static_cast<uint32_t>(static_cast<int32_t>(target) - static_cast<int32_t>(jump + 1));
  }
  size_t emit_jump(Op op, uint32_t a, SourceLoc loc) { return emit(Instr::asbx(op, a, 0), loc); }
  uint32_t constant(Value v);
  static constexpr size_t kConstantScan = 16;
  static uint64_t constant_key(Value v) {
    static_assert(sizeof(Value) == 16);
    uint64_t payload;
    std::memcpy(&payload, reinterpret_cast<const char*>(&v) + 8, 8);
    return payload * 31 + static_cast<uint64_t>(v.type());
  }
  // The upvalue index of a binding this function captured, or -1.
  int64_t upvalue(const LocalVar* v);

  // ---- registers
  uint32_t alloc(SourceLoc loc) {
    if (next_ >= kMaxRegs)
      throw LispError(ErrorKind::InvalidForm, "function needs more than 65,534 registers",
                      "split very large expressions into smaller functions", loc);
    uint32_t r = next_++;
    if (next_ > p_->nregs) p_->nregs = next_;
    return r;
  }
  void free_to(uint32_t mark) { next_ = mark; }

  // ---- expressions
  void compile(Node* n, uint32_t dst);
  uint32_t compile_reg(Node* n);  // register holding n's value (a local's own, or a new temp)
  void compile_local(LocalNode* n, uint32_t dst);
  void compile_if(IfNode* n, uint32_t dst);
  // The fused compare-and-skip opcode for a two-argument < <= > >= = test.
  std::optional<Op> fused_test(Node* test) const;
  void compile_let(LetNode* n, uint32_t dst);
  void compile_loop(LoopNode* n, uint32_t dst);
  void compile_recur(RecurNode* n);
  void compile_fn(FnNode* n, uint32_t dst);
  void compile_call(CallNode* n, uint32_t dst);
  void compile_builtin_call(BuiltinCallNode* n, uint32_t dst);
  void compile_reduce(BuiltinCallNode* n, uint32_t dst);
  std::optional<Value> made_from_constants(BuiltinCallNode* n);
  void compile_case(CaseNode* n, uint32_t dst);
  void compile_def(DefNode* n, uint32_t dst);
  void compile_coll(CollNode* n, Op op, uint32_t dst);
  // Compiles `args` into consecutive new registers; returns the first.
  uint32_t compile_args(std::span<Node*> args, SourceLoc loc);

  ProgramCompiler& pc_;
  FnNode* fn_;
  Proto* p_;
  uint32_t next_ = 0;
  // Made only past kConstantScan constants: most functions never need it, and
  // an empty map still costs its destructor.
  std::optional<std::unordered_map<uint64_t, uint32_t>> const_index_;
  std::optional<std::unordered_map<const LocalVar*, uint32_t>> upvalues_;  // built on first use
  // Where recur jumps, keyed by LoopNode* or FnArity*: the arity and the
  // loops being compiled, innermost last (a recur targets one it sits in).
  ScratchVector<std::pair<const void*, LoopTarget>> targets_;
  // The arity's code and positions while they grow; the Proto gets them sized.
  ScratchVector<Instr> code_;
  ScratchVector<SourceLoc> locs_;
  uint32_t depth_ = 0;  // of compile()'s recursion
};

class ProgramCompiler {
 public:
  explicit ProgramCompiler(Ctx& ctx) : ctx_(ctx), out_(std::make_unique<CompiledProgram>()) {}

  FnProto* compile_fn(FnNode* fn) {
    check_native_stack("compiling deeply nested functions");
    FnProto* fp = out_->fns.add();
    fp->top_closure.type = Type::Closure;
    fp->top_closure.fn = fp;
    fp->name_text = std::string(fn->name);
    fp->params_text = fn->params_display;
    fp->name = fp->name_text;
    fp->params = fp->params_text;
    fp->loc = fn->loc;
    fp->origin = fn->origin;
    fp->capture_names.reserve(fn->captures.size());
    for (const LocalVar* v : fn->captures)
      fp->capture_names.push_back(v->name);
    if (fn->origin) fp->restorer_source = restorer_source;
    for (FnArity* arity : fn->arities) {
      Proto* proto = fp->arities.add();
      proto->fn = fp;
      proto->nparams = static_cast<uint32_t>(arity->params.size());
      proto->variadic = arity->rest != nullptr;
      proto->owns_accumulator = mark_owned_accumulator(arity);
      ArityCompiler ac(*this, fn, proto);
      ac.compile_arity(arity);
    }
    if (fp->arities.size() == 1 && !fp->arities[0]->variadic) fp->sole_fixed = fp->arities[0];
    charge_native_memory(*fp);
    return fp;
  }

  // The compiled code lives outside the arena; it counts against the
  // compilation's heap budget all the same, so that no source makes the
  // compiler allocate natively far past it.
  void charge_native_memory(const FnProto& fp) {
    size_t bytes = sizeof(FnProto) + fp.name_text.capacity() + fp.params_text.capacity() +
                   fp.captures.capacity() * sizeof(Capture) +
                   fp.capture_names.capacity() * sizeof(std::string_view);
    for (const Proto* p : fp.arities)
      bytes += sizeof(Proto) + p->code.capacity() * sizeof(Instr) +
               p->locs.capacity() * sizeof(SourceLoc) + p->constants.capacity() * sizeof(Value) +
               p->closures.capacity() * sizeof(FnProto*);
    ctx_.arena.charge(bytes);
  }

  std::unique_ptr<CompiledProgram> finish(const AnalyzedProgram& prog) {
    out_->main = compile_fn(prog.main);
    for (auto [form, fn] : prog.restorers)
      out_->restorers.emplace_back(form, compile_fn(fn));
    for (auto g : prog.globals)
      out_->globals.emplace_back(g);
    out_->global_defined = prog.global_defined;
    for (auto k : prog.data_keys)
      out_->data_keys.emplace_back(k);
    return std::move(out_);
  }

  Ctx& ctx_;
  std::unique_ptr<CompiledProgram> out_;
};

// Most functions have a few constants: they are found by a search, and only
// past kConstantScan does a hash index take over (a function may have
// thousands).
uint32_t ArityCompiler::constant(Value v) {
  std::vector<Value>& constants = p_->constants;
  if (constants.capacity() == 0) constants.reserve(8);  // one allocation for most functions
  if (constants.size() <= kConstantScan) {
    for (size_t i = 0; i < constants.size(); ++i)
      if (constants[i].identical(v)) return static_cast<uint32_t>(i);
    constants.push_back(v);
    return static_cast<uint32_t>(constants.size() - 1);
  }
  if (!const_index_) {
    const_index_.emplace();
    for (size_t i = 0; i < constants.size(); ++i)
      const_index_->emplace(constant_key(constants[i]), static_cast<uint32_t>(i));
  }
  uint64_t key = constant_key(v);
  auto it = const_index_->find(key);
  if (it != const_index_->end() && constants[it->second].identical(v)) return it->second;
  auto idx = static_cast<uint32_t>(constants.size());
  constants.push_back(v);
  (*const_index_)[key] = idx;
  return idx;
}

void ArityCompiler::compile_arity(FnArity* arity) {
  uint32_t nparams = static_cast<uint32_t>(arity->params.size());
  for (uint32_t i = 0; i < nparams; ++i)
    arity->params[i]->reg = alloc(arity->loc);
  if (arity->rest) arity->rest->reg = alloc(arity->loc);
  if (fn_->self) {
    fn_->self->reg = alloc(arity->loc);
    emit(Instr::abc(Op::GETSELF, fn_->self->reg), arity->loc);
  }
  LoopTarget target;
  target.first_reg = 0;  // the parameters, then the rest, from register 0
  target.nregs = nparams + (arity->rest ? 1 : 0);
  target.start = here();
  target.counter = kFrameCounter;
  targets_->emplace_back(arity, std::move(target));
  uint32_t result = alloc(arity->loc);
  compile(arity->body, result);
  emit(Instr::abc(Op::RETURN, result), arity->loc);
  p_->code.assign(code_->begin(), code_->end());
  p_->locs.assign(locs_->begin(), locs_->end());
}

void ArityCompiler::compile_local(LocalNode* n, uint32_t dst) {
  LocalVar* v = n->var;
  if (v->owner == fn_) {
    if (v->reg != dst) emit(Instr::abc(Op::MOVE, dst, v->reg), n->loc);
    return;
  }
  int64_t index = upvalue(v);
  if (index < 0)
    throw LispError(ErrorKind::RuntimeError, fmt::format("internal: {} is not captured", v->name),
                    "", n->loc);
  emit(Instr::abc(Op::GETUPVAL, dst, static_cast<uint32_t>(index)), n->loc);
}

int64_t ArityCompiler::upvalue(const LocalVar* v) {
  // A map, not a search of the captures: a function may capture thousands.
  if (!upvalues_) {
    upvalues_.emplace();
    for (size_t i = 0; i < fn_->captures.size(); ++i)
      upvalues_->emplace(fn_->captures[i], static_cast<uint32_t>(i));
  }
  auto it = upvalues_->find(v);
  return it == upvalues_->end() ? -1 : it->second;
}

uint32_t ArityCompiler::compile_reg(Node* n) {
  if (n->kind == NodeKind::Local) {
    LocalVar* v = static_cast<LocalNode*>(n)->var;
    if (v->owner == fn_) return v->reg;
  }
  uint32_t r = alloc(n->loc);
  compile(n, r);
  return r;
}

void ArityCompiler::compile(Node* n, uint32_t dst) {
  // Every fourth level, as the analyzer: a few levels of these frames are far
  // below the stack guard's reserve, and this runs for every node.
  struct Depth {
    uint32_t& d;
    explicit Depth(uint32_t& depth) : d(++depth) {}
    ~Depth() { --d; }
  } depth(depth_);
  if ((depth_ & 3) == 0) check_native_stack("compiling a deeply nested expression");
  pc_.ctx_.tick();  // holds compile_timeout
  SourceLoc loc = n->loc;
  switch (n->kind) {
    case NodeKind::Const: {
      Value v = static_cast<ConstNode*>(n)->value;
      if (v.is_nil())
        emit(Instr::abc(Op::LOADNIL, dst), loc);
      else if (v.is_bool())
        emit(Instr::abc(Op::LOADBOOL, dst, v.as_bool()), loc);
      else if (v.is_int() && v.as_int() >= INT32_MIN && v.as_int() <= INT32_MAX)
        emit(Instr::asbx(Op::LOADINT, dst, static_cast<int32_t>(v.as_int())), loc);
      else
        emit(Instr::abx(Op::LOADK, dst, constant(v)), loc);
      return;
    }
    case NodeKind::Local:
      compile_local(static_cast<LocalNode*>(n), dst);
      return;
    case NodeKind::Global: {
      auto* g = static_cast<GlobalNode*>(n);
      if (g->builtin_fallback >= 0) {
        if (g->global > 0xFFFF)
          throw LispError(ErrorKind::InvalidForm, "too many global names (limit 65,535)", "", loc);
        emit(Instr::abc(Op::GETGLOBALF, dst, g->global, static_cast<uint32_t>(g->builtin_fallback)),
             loc);
      } else {
        emit(Instr::abx(Op::GETGLOBAL, dst, g->global), loc);
      }
      return;
    }
    case NodeKind::BuiltinRef:
      emit(
          Instr::abx(Op::LOADK, dst, constant(Value::builtin(static_cast<BuiltinRefNode*>(n)->id))),
          loc);
      return;
    case NodeKind::Data:
      emit(Instr::abx(Op::GETDATA, dst, constant(static_cast<DataNode*>(n)->key)), loc);
      return;
    case NodeKind::TurnHistory:
      emit(Instr::abc(Op::TURNHIST, dst, static_cast<TurnHistoryNode*>(n)->back), loc);
      return;
    case NodeKind::VarRef:
      emit(Instr::abx(Op::VARREF, dst, static_cast<VarRefNode*>(n)->global), loc);
      return;
    case NodeKind::If:
      compile_if(static_cast<IfNode*>(n), dst);
      return;
    case NodeKind::Do:
      for (Node* e : static_cast<DoNode*>(n)->body)
        compile(e, dst);
      return;
    case NodeKind::Let:
      compile_let(static_cast<LetNode*>(n), dst);
      return;
    case NodeKind::Loop:
      compile_loop(static_cast<LoopNode*>(n), dst);
      return;
    case NodeKind::Recur:
      compile_recur(static_cast<RecurNode*>(n));
      return;
    case NodeKind::Fn:
      compile_fn(static_cast<FnNode*>(n), dst);
      return;
    case NodeKind::Call:
      compile_call(static_cast<CallNode*>(n), dst);
      return;
    case NodeKind::BuiltinCall:
      compile_builtin_call(static_cast<BuiltinCallNode*>(n), dst);
      return;
    case NodeKind::Def:
      compile_def(static_cast<DefNode*>(n), dst);
      return;
    case NodeKind::Case:
      compile_case(static_cast<CaseNode*>(n), dst);
      return;
    case NodeKind::ToolCall: {
      auto* t = static_cast<ToolCallNode*>(n);
      compile(t->args, dst);
      emit(Instr::abx(Op::TOOL, dst, constant(pc_.ctx_.string(t->tool))), loc);
      if (std::find(pc_.out_->tools.begin(), pc_.out_->tools.end(), t->tool) ==
          pc_.out_->tools.end())
        pc_.out_->tools.emplace_back(t->tool);
      return;
    }
    case NodeKind::Return:
    case NodeKind::Fail:
      compile(static_cast<ValueNode*>(n)->value, dst);
      emit(Instr::abc(n->kind == NodeKind::Return ? Op::RETSIG : Op::FAILSIG, dst), loc);
      return;
    case NodeKind::MakeVector:
      compile_coll(static_cast<CollNode*>(n), Op::VECTOR, dst);
      return;
    case NodeKind::MakeMap:
      compile_coll(static_cast<CollNode*>(n), Op::MAP, dst);
      return;
    case NodeKind::MakeSet:
      compile_coll(static_cast<CollNode*>(n), Op::SET, dst);
      return;
  }
}

std::optional<Op> ArityCompiler::fused_test(Node* test) const {
  if (test->kind != NodeKind::BuiltinCall) return std::nullopt;
  auto* call = static_cast<BuiltinCallNode*>(test);
  if (call->args.size() != 2) return std::nullopt;
  std::string_view name = builtin_def(call->id).name;
  if (name == "<") return Op::IFLT;
  if (name == "<=") return Op::IFLE;
  if (name == ">") return Op::IFGT;
  if (name == ">=") return Op::IFGE;
  if (name == "=") return Op::IFEQ;
  return std::nullopt;
}

void ArityCompiler::compile_if(IfNode* n, uint32_t dst) {
  if (n->test->kind == NodeKind::Const) {
    compile(static_cast<ConstNode*>(n->test)->value.truthy() ? n->then : n->otherwise, dst);
    return;
  }
  uint32_t mark = next_;
  size_t jfalse;
  if (auto fused = fused_test(n->test)) {
    // (if (< a b) ...): the comparison skips the jump to the else branch;
    // (if (< a 10) ...) carries the literal in the instruction.
    auto* call = static_cast<BuiltinCallNode*>(n->test);
    uint32_t a = compile_reg(call->args[0]);
    if (auto k = small_int(call->args[1])) {
      Op op = *fused == Op::IFLT   ? Op::IFLTI
              : *fused == Op::IFLE ? Op::IFLEI
              : *fused == Op::IFGT ? Op::IFGTI
              : *fused == Op::IFGE ? Op::IFGEI
                                   : Op::IFEQI;
      emit(Instr::abc(op, a, imm(*k)), n->test->loc);
    } else {
      uint32_t b = compile_reg(call->args[1]);
      emit(Instr::abc(*fused, a, b), n->test->loc);
    }
    jfalse = emit_jump(Op::JMP, 0, n->loc);
  } else {
    uint32_t t = compile_reg(n->test);
    jfalse = emit_jump(Op::JMPIFNOT, t, n->loc);
  }
  free_to(mark);
  compile(n->then, dst);
  size_t jend = emit_jump(Op::JMP, 0, n->loc);
  patch_to(jfalse, here());
  compile(n->otherwise, dst);
  patch_to(jend, here());
}

void ArityCompiler::compile_let(LetNode* n, uint32_t dst) {
  uint32_t mark = next_;
  for (const Binding& b : n->bindings) {
    // A binding of a plain local shares its register: values never change
    // while both are in scope (recur only runs in tail position).
    if (b.init->kind == NodeKind::Local && static_cast<LocalNode*>(b.init)->var->owner == fn_ &&
        !static_cast<LocalNode*>(b.init)->var->captured && !b.var->captured) {
      b.var->reg = static_cast<LocalNode*>(b.init)->var->reg;
      continue;
    }
    uint32_t r = alloc(b.init->loc);
    compile(b.init, r);
    b.var->reg = r;
  }
  compile(n->body, dst);
  free_to(mark);
}

void ArityCompiler::compile_loop(LoopNode* n, uint32_t dst) {
  uint32_t mark = next_;
  LoopTarget target;
  target.counted = n->counted;
  target.first_reg = next_;
  for (const Binding& b : n->bindings) {
    uint32_t r = alloc(b.init->loc);
    if (r != target.first_reg + target.nregs)
      throw LispError(ErrorKind::InvalidForm, "internal: loop bindings not consecutive", "",
                      b.init->loc);
    compile(b.init, r);
    b.var->reg = r;
    ++target.nregs;
  }
  if (n->counted) {
    target.counter = static_cast<uint16_t>(alloc(n->loc));
    emit(Instr::asbx(Op::LOADINT, target.counter, 0), n->loc);
  }
  target.start = here();
  targets_->emplace_back(n, std::move(target));
  compile(n->body, dst);
  targets_->pop_back();  // no recur outside the body targets this loop
  free_to(mark);
}

void ArityCompiler::compile_recur(RecurNode* n) {
  const void* key =
      n->loop ? static_cast<const void*>(n->loop) : static_cast<const void*>(n->arity);
  uint32_t mark = next_;
  ScratchVector<uint32_t> temps;
  for (Node* a : n->args) {
    uint32_t r = alloc(a->loc);
    compile(a, r);
    temps->push_back(r);
  }
  // Looked up after the arguments: a loop among them grows targets_.
  auto it = std::find_if(targets_->rbegin(), targets_->rend(),
                         [key](const auto& entry) { return entry.first == key; });
  if (it == targets_->rend())
    throw LispError(ErrorKind::InvalidForm, "internal: recur target not found", "", n->loc);
  const LoopTarget& t = it->second;
  for (size_t i = 0; i < temps->size(); ++i)
    emit(Instr::abc(Op::MOVE, t.first_reg + static_cast<uint32_t>(i), (*temps)[i]), n->loc);
  free_to(mark);
  size_t j = t.counted ? emit(Instr::asbx(Op::LOOP, t.counter, 0), n->loc)
                       : emit(Instr::asbx(Op::JMPBACK, 0, 0), n->loc);
  patch_to(j, t.start);
}

void ArityCompiler::compile_fn(FnNode* n, uint32_t dst) {
  FnProto* child = pc_.compile_fn(n);
  child->captures.reserve(n->captures.size());
  for (LocalVar* v : n->captures) {
    if (v->owner == fn_) {
      child->captures.push_back({false, v->reg});
    } else {
      int64_t index = upvalue(v);
      if (index < 0)
        throw LispError(ErrorKind::RuntimeError,
                        fmt::format("internal: {} is not captured", v->name), "", n->loc);
      child->captures.push_back({true, static_cast<uint32_t>(index)});
    }
  }
  auto idx = static_cast<uint32_t>(p_->closures.size());
  if (p_->closures.capacity() == 0) p_->closures.reserve(4);
  p_->closures.push_back(child);
  emit(Instr::abx(Op::CLOSURE, dst, idx), n->loc);
}

uint32_t ArityCompiler::compile_args(std::span<Node*> args, SourceLoc loc) {
  uint32_t base = next_;
  for (Node* a : args)
    compile(a, alloc(loc));  // each compile leaves next_ just past its register
  return base;
}

void ArityCompiler::compile_call(CallNode* n, uint32_t dst) {
  // (:k m) with a literal keyword: a direct lookup.
  if (n->callee->kind == NodeKind::Const &&
      static_cast<ConstNode*>(n->callee)->value.is_keyword() && n->args.size() == 1) {
    uint32_t k = constant(static_cast<ConstNode*>(n->callee)->value);
    if (k <= 0xFFFF) {
      uint32_t mark = next_;
      uint32_t m = compile_reg(n->args[0]);
      emit(Instr::abc(Op::KWGET, dst, m, k), n->loc);
      free_to(mark);
      return;
    }
  }
  // When dst is the topmost register in use (a temporary just allocated for
  // this value), the call is placed there and needs no MOVE of its result.
  bool in_place = dst + 1 == next_;
  uint32_t base = in_place ? dst : alloc(n->loc);
  compile(n->callee, base);
  compile_args(n->args, n->loc);
  emit(Instr::abc(Op::CALL, base, static_cast<uint32_t>(n->args.size())), n->loc);
  if (dst != base) emit(Instr::abc(Op::MOVE, dst, base), n->loc);
  free_to(base + 1);
  if (!in_place) free_to(base);
}

// (fnil + 0), (partial * 2), (comp inc str): a function made by one of these
// builtins from constants only is made once, here, rather than at every
// evaluation (a reduce step's (update m k (fnil + 0) x) made one per item).
// They only check their arguments and capture them, so the result is the
// same immutable value; a call they would reject is left to fail at run time.
std::optional<Value> ArityCompiler::made_from_constants(BuiltinCallNode* n) {
  // By id: this runs for every builtin call compiled.
  static const std::vector<bool> makers =
      builtin_id_set({"fnil", "partial", "comp", "juxt", "complement", "constantly"});
  if (n->args.empty() || n->args.size() > 8 || !makers[n->id]) return std::nullopt;
  Value args[8];
  for (size_t i = 0; i < n->args.size(); ++i) {
    Node* a = n->args[i];
    if (a->kind == NodeKind::Const)
      args[i] = static_cast<ConstNode*>(a)->value;
    else if (a->kind == NodeKind::BuiltinRef)
      args[i] = Value::builtin(static_cast<BuiltinRefNode*>(a)->id);
    else
      return std::nullopt;
  }
  try {
    return call_builtin(pc_.ctx_, n->id, args, static_cast<uint32_t>(n->args.size()));
  } catch (const LispError&) {
    return std::nullopt;
  }
}

// By builtin id: its entry in kFastOps, or -1. Every builtin call compiled
// asks, so by id rather than comparing its name with each entry.
const std::vector<int8_t>& fast_op_by_id() {
  static const std::vector<int8_t> by_id = [] {
    std::vector<int8_t> t(all_builtins().size(), -1);
    for (size_t i = 0; i < std::size(kFastOps); ++i)
      t[*find_builtin(kFastOps[i].name)] = static_cast<int8_t>(i);
    return t;
  }();
  return by_id;
}

void ArityCompiler::compile_builtin_call(BuiltinCallNode* n, uint32_t dst) {
  static const uint32_t reduce_id = *find_builtin("reduce");
  int fast = fast_op_by_id()[n->id];
  const FastOp* f = fast < 0 ? nullptr : &kFastOps[fast];
  if (f && (f->op == Op::ADD || f->op == Op::SUB) && n->args.size() == 2) {
    // (+ x 1), (- x 1): the literal goes in the instruction (on the right
    // only, so that errors name the arguments as written).
    bool add = f->op == Op::ADD;
    if (std::optional<int16_t> k = small_int(n->args[1])) {
      uint32_t mark = next_;
      uint32_t b = compile_reg(n->args[0]);
      emit(Instr::abc(add ? Op::ADDI : Op::SUBI, dst, b, imm(*k)), n->loc);
      free_to(mark);
      return;
    }
  }
  if (f && static_cast<size_t>(f->nargs) == n->args.size()) {
    uint32_t mark = next_;
    uint32_t b = compile_reg(n->args[0]);
    uint32_t c = f->nargs == 2 ? compile_reg(n->args[1]) : 0;
    emit(Instr::abc(f->op, dst, b, c), n->loc);
    free_to(mark);
    return;
  }
  if (std::optional<Value> made = made_from_constants(n)) {
    emit(Instr::abx(Op::LOADK, dst, constant(*made)), n->loc);
    return;
  }
  if (n->id > 0xFFFF)
    throw LispError(ErrorKind::InvalidForm, "internal: builtin id out of range", "", n->loc);
  if (n->id == reduce_id && n->args.size() == 3) return compile_reduce(n, dst);
  uint32_t base = n->args.empty() ? alloc(n->loc) : compile_args(n->args, n->loc);
  emit(Instr::abc(n->owned ? Op::CALLO : Op::CALLB, base, static_cast<uint32_t>(n->args.size()),
                  n->id),
       n->loc);
  if (dst != base) emit(Instr::abc(Op::MOVE, dst, base), n->loc);
  free_to(base);
}

// (reduce f init coll): when f is a closure and coll a vector (a JSON array,
// most often), the VM runs the loop: each step is a call from this frame, as
// CALL makes one, rather than a re-entry of the VM from the builtin for
// every item. Anything else takes the builtin, whose errors and results the
// loop matches. The registers past the three arguments hold the loop's state
// and the step's call: index, owner token, then fn, accumulator and item.
void ArityCompiler::compile_reduce(BuiltinCallNode* n, uint32_t dst) {
  uint32_t base = compile_args(n->args, n->loc);
  for (int i = 0; i < 5; ++i)
    alloc(n->loc);
  emit(Instr::abc(Op::REDUCE, base, 3, n->id), n->loc);
  emit(Instr::abc(Op::REDUCESTEP, base), n->loc);
  emit(Instr::asbx(Op::JMP, 0, -2), n->loc);
  if (dst != base) emit(Instr::abc(Op::MOVE, dst, base), n->loc);
  free_to(base);
}

void ArityCompiler::compile_def(DefNode* n, uint32_t dst) {
  if (!n->once) {
    compile(n->value, dst);
    emit(Instr::abx(Op::DEFGLOBAL, dst, n->global), n->loc);
    return;
  }
  emit(Instr::abx(Op::ISBOUND, dst, n->global), n->loc);
  size_t jbound = emit_jump(Op::JMPIF, dst, n->loc);
  compile(n->value, dst);
  emit(Instr::abx(Op::DEFGLOBAL, dst, n->global), n->loc);
  size_t jend = emit_jump(Op::JMP, 0, n->loc);
  patch_to(jbound, here());
  emit(Instr::abx(Op::VARREF, dst, n->global), n->loc);
  patch_to(jend, here());
}

void ArityCompiler::compile_case(CaseNode* n, uint32_t dst) {
  uint32_t mark = next_;
  uint32_t r = compile_reg(n->expr);
  emit(Instr::abx(Op::CASE, r, constant(n->dispatch)), n->loc);
  free_to(mark);
  // Jump table: the default first, then one jump per clause.
  std::vector<size_t> table;
  for (size_t i = 0; i <= n->clauses.size(); ++i)
    table.push_back(emit_jump(Op::JMP, 0, n->loc));
  std::vector<size_t> ends;
  patch_to(table[0], here());
  compile(n->otherwise, dst);
  ends.push_back(emit_jump(Op::JMP, 0, n->loc));
  for (size_t i = 0; i < n->clauses.size(); ++i) {
    patch_to(table[i + 1], here());
    compile(n->clauses[i], dst);
    ends.push_back(emit_jump(Op::JMP, 0, n->loc));
  }
  for (size_t j : ends)
    patch_to(j, here());
}

void ArityCompiler::compile_coll(CollNode* n, Op op, uint32_t dst) {
  uint32_t base = compile_args(n->items, n->loc);
  emit(Instr::abc(op, dst, base, static_cast<uint32_t>(n->items.size())), n->loc);
  free_to(base);
}

}  // namespace

std::unique_ptr<CompiledProgram> compile_program(Ctx& ctx, const AnalyzedProgram& program) {
  ProgramCompiler pc(ctx);
  return pc.finish(program);
}

}  // namespace ptc
