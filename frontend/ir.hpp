// The analyzed core IR. The analyzer has expanded every macro-like form
// (when, cond, ->, for, destructuring, ...) into this small set of nodes and
// resolved every symbol: to a local binding, a user global (def), a builtin,
// context data (data/x) or a tool (tool/x). The compiler turns it into
// bytecode. Nodes live in the compile arena.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/value.hpp"

namespace ptc {

enum class NodeKind : uint8_t {
  Const,        // a literal value (also constant collections)
  Local,        // a let/loop/fn binding
  Global,       // a def'd name; may fall back to a builtin of the same name
  BuiltinRef,   // a builtin used as a value: (map inc xs)
  Data,         // data/key: the run's context
  TurnHistory,  // *1 *2 *3
  VarRef,       // #'name
  If,
  Do,
  Let,
  Loop,
  Recur,
  Fn,
  Call,         // call of any callable value
  BuiltinCall,  // direct call of a known builtin
  Def,
  Case,
  ToolCall,
  Return,  // (return v): ends the program with v
  Fail,    // (fail v): ends the program with an error carrying v
  MakeVector,
  MakeMap,
  MakeSet,
};

struct FnNode;
struct Form;

struct LocalVar {
  std::string_view name;
  FnNode* owner = nullptr;  // function whose frame holds the binding (nullptr: top level)
  SourceLoc loc;
  bool captured = false;  // read by a nested function
  uint32_t reg = 0;       // compiler scratch: register while in scope
};

struct Node {
  NodeKind kind;
  SourceLoc loc;
  explicit Node(NodeKind k, SourceLoc l = {}) : kind(k), loc(l) {}
};

template <class T>
using Span = std::span<T>;

struct ConstNode : Node {
  Value value;
  ConstNode(SourceLoc l, Value v) : Node(NodeKind::Const, l), value(v) {}
};

struct LocalNode : Node {
  LocalVar* var;
  LocalNode(SourceLoc l, LocalVar* v) : Node(NodeKind::Local, l), var(v) {}
};

struct GlobalNode : Node {
  uint32_t global;
  int32_t builtin_fallback = -1;  // builtin used while the global is unbound, or -1
  GlobalNode(SourceLoc l, uint32_t g) : Node(NodeKind::Global, l), global(g) {}
};

struct BuiltinRefNode : Node {
  uint32_t id;
  BuiltinRefNode(SourceLoc l, uint32_t i) : Node(NodeKind::BuiltinRef, l), id(i) {}
};

struct DataNode : Node {
  Value key;  // string key, looked up flexibly in the context map
  DataNode(SourceLoc l, Value k) : Node(NodeKind::Data, l), key(k) {}
};

struct TurnHistoryNode : Node {
  uint32_t back;  // 1 for *1
  TurnHistoryNode(SourceLoc l, uint32_t b) : Node(NodeKind::TurnHistory, l), back(b) {}
};

struct VarRefNode : Node {
  uint32_t global;
  VarRefNode(SourceLoc l, uint32_t g) : Node(NodeKind::VarRef, l), global(g) {}
};

struct IfNode : Node {
  Node *test, *then, *otherwise;
  IfNode(SourceLoc l, Node* t, Node* a, Node* b)
      : Node(NodeKind::If, l), test(t), then(a), otherwise(b) {}
};

struct DoNode : Node {
  Span<Node*> body;  // at least one expression
  DoNode(SourceLoc l, Span<Node*> b) : Node(NodeKind::Do, l), body(b) {}
};

struct Binding {
  LocalVar* var;
  Node* init;
};

struct LetNode : Node {
  Span<Binding> bindings;
  Node* body;
  LetNode(SourceLoc l, Span<Binding> b, Node* e) : Node(NodeKind::Let, l), bindings(b), body(e) {}
};

struct LoopNode : Node {
  Span<Binding> bindings;
  Node* body;
  // Loops written by the program count their recur jumps against loop_limit;
  // loops the analyzer generates for `for`/`doseq` walk a finite collection
  // and only charge reductions.
  bool counted = true;
  LoopNode(SourceLoc l) : Node(NodeKind::Loop, l) {}
};

struct FnArity {
  Span<LocalVar*> params;    // fixed parameters
  LocalVar* rest = nullptr;  // & rest parameter
  Node* body = nullptr;      // destructuring of parameters is already in the body
  SourceLoc loc;
};

// Target of a recur: a loop, or a function arity.
struct RecurNode : Node {
  Span<Node*> args;
  LoopNode* loop = nullptr;  // one of loop / arity is set
  FnArity* arity = nullptr;
  RecurNode(SourceLoc l) : Node(NodeKind::Recur, l) {}
};

struct FnNode : Node {
  std::string_view name;            // from (fn name [..]) or defn; "" if anonymous
  LocalVar* self = nullptr;         // binding of the name inside the body, if named
  Span<FnArity*> arities;           // sorted by fixed parameter count; at most one variadic
  std::vector<LocalVar*> captures;  // enclosing bindings the body reads, in upvalue order
  FnNode* parent = nullptr;
  std::string params_display;    // "x y" for #fn[x y]
  const Form* origin = nullptr;  // the (fn ...) or #(...) form written, for memory
  FnNode(SourceLoc l) : Node(NodeKind::Fn, l) {}
};

struct CallNode : Node {
  Node* callee;
  Span<Node*> args;
  CallNode(SourceLoc l, Node* c, Span<Node*> a) : Node(NodeKind::Call, l), callee(c), args(a) {}
};

struct BuiltinCallNode : Node {
  uint32_t id;
  Span<Node*> args;
  bool owned = false;  // compiler scratch: updates an accumulator its arity owns (CALLO)
  BuiltinCallNode(SourceLoc l, uint32_t i, Span<Node*> a)
      : Node(NodeKind::BuiltinCall, l), id(i), args(a) {}
};

struct DefNode : Node {
  uint32_t global;
  Node* value;
  bool once;  // defonce: evaluate only while unbound
  DefNode(SourceLoc l, uint32_t g, Node* v, bool o)
      : Node(NodeKind::Def, l), global(g), value(v), once(o) {}
};

struct CaseNode : Node {
  Node* expr;
  Value dispatch;  // constant map: test value -> clause index (integer)
  Span<Node*> clauses;
  Node* otherwise;  // nil constant when there is no default
  CaseNode(SourceLoc l) : Node(NodeKind::Case, l) {}
};

struct ToolCallNode : Node {
  std::string_view tool;  // name after tool/
  Node* args;             // expression producing the argument map
  ToolCallNode(SourceLoc l, std::string_view t, Node* a)
      : Node(NodeKind::ToolCall, l), tool(t), args(a) {}
};

struct ValueNode : Node {  // Return / Fail
  Node* value;
  ValueNode(NodeKind k, SourceLoc l, Node* v) : Node(k, l), value(v) {}
};

struct CollNode : Node {  // MakeVector / MakeMap (keys and values alternate) / MakeSet
  Span<Node*> items;
  CollNode(NodeKind k, SourceLoc l, Span<Node*> i) : Node(k, l), items(i) {}
};

// Calls visit(Node*) for each direct child of `n`, in evaluation order (a
// function's arity bodies included).
template <class Visit>
void for_each_child(Node* n, Visit&& visit) {
  auto all = [&](Span<Node*> nodes) {
    for (Node* c : nodes)
      visit(c);
  };
  auto bindings = [&](Span<Binding> bs) {
    for (Binding& b : bs)
      visit(b.init);
  };
  switch (n->kind) {
    case NodeKind::Const:
    case NodeKind::Local:
    case NodeKind::Global:
    case NodeKind::BuiltinRef:
    case NodeKind::Data:
    case NodeKind::TurnHistory:
    case NodeKind::VarRef:
      return;
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(n);
      visit(i->test);
      visit(i->then);
      visit(i->otherwise);
      return;
    }
    case NodeKind::Do:
      all(static_cast<DoNode*>(n)->body);
      return;
    case NodeKind::Let:
      bindings(static_cast<LetNode*>(n)->bindings);
      visit(static_cast<LetNode*>(n)->body);
      return;
    case NodeKind::Loop:
      bindings(static_cast<LoopNode*>(n)->bindings);
      visit(static_cast<LoopNode*>(n)->body);
      return;
    case NodeKind::Recur:
      all(static_cast<RecurNode*>(n)->args);
      return;
    case NodeKind::Fn:
      for (FnArity* a : static_cast<FnNode*>(n)->arities)
        visit(a->body);
      return;
    case NodeKind::Call:
      visit(static_cast<CallNode*>(n)->callee);
      all(static_cast<CallNode*>(n)->args);
      return;
    case NodeKind::BuiltinCall:
      all(static_cast<BuiltinCallNode*>(n)->args);
      return;
    case NodeKind::Def:
      visit(static_cast<DefNode*>(n)->value);
      return;
    case NodeKind::Case: {
      auto* c = static_cast<CaseNode*>(n);
      visit(c->expr);
      all(c->clauses);
      visit(c->otherwise);
      return;
    }
    case NodeKind::ToolCall:
      visit(static_cast<ToolCallNode*>(n)->args);
      return;
    case NodeKind::Return:
    case NodeKind::Fail:
      visit(static_cast<ValueNode*>(n)->value);
      return;
    case NodeKind::MakeVector:
    case NodeKind::MakeMap:
    case NodeKind::MakeSet:
      all(static_cast<CollNode*>(n)->items);
      return;
  }
}

// The result of analysis: the program as a zero-argument function, and the
// user globals it mentions (ids index this list).
struct AnalyzedProgram {
  FnNode* main = nullptr;
  std::vector<std::string_view> globals;
  std::vector<bool> global_defined;         // the program contains a def of it
  std::vector<std::string_view> data_keys;  // context keys read through data/x
  // Memory restorers (AnalyzerOptions::restorers_for): the factory form and
  // a zero-argument function returning its value.
  std::vector<std::pair<const Form*, FnNode*>> restorers;
};

}  // namespace ptc
