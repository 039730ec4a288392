#include "compiler/owned_accumulator.hpp"

#include "runtime/builtins/owned.hpp"
#include "runtime/scratch.hpp"
#include "runtime/stack_guard.hpp"

namespace ptc {

namespace {

// A linear walk per arity in practice; the budget bounds what a hostile
// program (a let of thousands of bindings threading one name) can cost.
constexpr int64_t kVisitBudget = 20000;

class Marker {
 public:
  explicit Marker(ScratchVector<BuiltinCallNode*>& calls) : calls_(calls) {}

  // Whether `n` reads `v` (not inside a nested function: v is not captured).
  bool reads(Node* n, const LocalVar* v) {
    if (!spend()) return true;
    if (n->kind == NodeKind::Local) return static_cast<LocalNode*>(n)->var == v;
    if (n->kind == NodeKind::Fn) return false;
    bool found = false;
    for_each_child(n, [&](Node* c) { found = found || reads(c, v); });
    return found;
  }

  // Whether `n`, whose value is returned, gives `acc` updated only through
  // the calls it marks, or a value that never read `acc`.
  bool yields(Node* n, const LocalVar* acc) {
    if (!spend()) return false;
    switch (n->kind) {
      case NodeKind::Local:
        return true;
      case NodeKind::If: {
        auto* i = static_cast<IfNode*>(n);
        return !reads(i->test, acc) && yields(i->then, acc) && yields(i->otherwise, acc);
      }
      case NodeKind::Do: {
        auto body = static_cast<DoNode*>(n)->body;
        for (size_t i = 0; i + 1 < body.size(); ++i)
          if (reads(body[i], acc)) return false;
        return yields(body.back(), acc);
      }
      case NodeKind::Let:
        return let_yields(static_cast<LetNode*>(n), acc);
      case NodeKind::BuiltinCall: {
        auto* c = static_cast<BuiltinCallNode*>(n);
        if (c->args.empty() || !owned_variant(c->id)) return !reads(n, acc);
        for (size_t i = 1; i < c->args.size(); ++i)
          if (reads(c->args[i], acc)) return false;
        if (!reads(c->args[0], acc)) return true;
        if (!yields(c->args[0], acc)) return false;
        calls_->push_back(c);
        return true;
      }
      default:
        return !reads(n, acc);
    }
  }

 private:
  bool spend() {
    check_native_stack("analyzing a deeply nested function");
    return --budget_ >= 0;
  }

  // A binding that reads the accumulator takes it over, as cond-> and
  // as-> bind each step: the old name must not be read again.
  bool let_yields(LetNode* let, const LocalVar* acc) {
    auto bs = let->bindings;
    for (size_t i = 0; i < bs.size(); ++i) {
      if (!reads(bs[i].init, acc)) continue;
      if (bs[i].var->captured || !yields(bs[i].init, acc)) return false;
      for (size_t j = i + 1; j < bs.size(); ++j)
        if (reads(bs[j].init, acc)) return false;
      if (reads(let->body, acc)) return false;
      acc = bs[i].var;
    }
    return yields(let->body, acc);
  }

  ScratchVector<BuiltinCallNode*>& calls_;
  int64_t budget_ = kVisitBudget;
};

}  // namespace

bool mark_owned_accumulator(FnArity* arity) {
  if (arity->params.empty() || arity->params[0]->captured) return false;
  // Most bodies can mark nothing (a call, a literal, ...): no walk for them.
  Node* body = arity->body;
  bool could_mark = body->kind == NodeKind::If || body->kind == NodeKind::Do ||
                    body->kind == NodeKind::Let ||
                    (body->kind == NodeKind::BuiltinCall &&
                     owned_variant(static_cast<BuiltinCallNode*>(body)->id));
  if (!could_mark) return false;
  ScratchVector<BuiltinCallNode*> calls;
  Marker marker(calls);
  if (!marker.yields(arity->body, arity->params[0]) || calls->empty()) return false;
  for (BuiltinCallNode* c : *calls)
    c->owned = true;
  return true;
}

}  // namespace ptc
