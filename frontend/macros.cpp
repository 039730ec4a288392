// Forms that the analyzer expands into core IR: conditionals (§5.3–§5.11),
// and/or, the threading forms (§6), return/fail, comment.
#include <fmt/format.h>

#include "frontend/analyzer_impl.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"

namespace ptc::analysis {

Node* Analyzer::analyze_macro(const Form* f, std::string_view h, bool tail, bool* handled) {
  *handled = true;
  auto args = f->children().subspan(1);
  if (h == "when" || h == "when-not") {
    expect_count(f, 2, SIZE_MAX, fmt::format("({} test body...)", h));
    Node* test = analyze(args[0], false);
    Node* body = analyze_body(args.subspan(1), f->loc, tail);
    return h == "when" ? node<IfNode>(f->loc, test, body, nil_node(f->loc))
                       : node<IfNode>(f->loc, test, nil_node(f->loc), body);
  }
  if (h == "if-not") {
    expect_count(f, 3, 4, "(if-not test then else?)");
    Node* test = analyze(args[0], false);
    Node* then = analyze(args[1], tail);
    Node* otherwise = args.size() == 3 ? analyze(args[2], tail) : nil_node(f->loc);
    return node<IfNode>(f->loc, test, otherwise, then);
  }
  if (h == "cond") return analyze_cond(f, tail);
  if (h == "case") return analyze_case(f, tail);
  if (h == "condp") return analyze_condp(f, tail);
  if (h == "and" || h == "or") return analyze_and_or(f, h == "and", tail);
  if (h == "if-let" || h == "when-let" || h == "if-some" || h == "when-some")
    return analyze_conditional_binding(f, h, tail);
  if (h == "when-first") return analyze_when_first(f, tail);
  if (h == "->" || h == "->>" || h == "as->" || h == "cond->" || h == "cond->>" || h == "some->" ||
      h == "some->>") {
    return analyze(expand_threading(f, h), tail);
  }
  if (h == "for") return analyze_for(f, true);
  if (h == "doseq") return analyze_for(f, false);
  if (h == "dotimes") {
    if (args.empty() || args[0]->kind != FormKind::Vector || args[0]->count != 2)
      fail(ErrorKind::InvalidForm, f, "dotimes needs a binding vector [name count]",
           "usage: (dotimes [i 3] body...)");
    const Form* range =
        make_list(f->loc, {make_symbol("clojure.core/range", f->loc), args[0]->items[1]});
    std::vector<const Form*> items{make_symbol("doseq", f->loc),
                                   make_vector(f->loc, {args[0]->items[0], range})};
    for (const Form* b : args.subspan(1))
      items.push_back(b);
    return analyze_for(make_list(f->loc, items), false);
  }
  if (h == "return" || h == "fail") {
    expect_count(f, 1, 2, fmt::format("({} value)", h));
    Node* v = args.empty() ? nil_node(f->loc) : analyze(args[0], false);
    return node<ValueNode>(h == "return" ? NodeKind::Return : NodeKind::Fail, f->loc, v);
  }
  if (h == "comment") return nil_node(f->loc);
  if (h == "task") {
    // (task "id" expr): journaled caching needs a journal from the host; without
    // one the expression simply runs (spec §5.18). The id must be a string.
    expect_count(f, 3, 3, "(task \"id\" expr)");
    Node* id = analyze(args[0], false);
    Node* checked = builtin_call("__task_id", args[0]->loc, {id});
    return do_node(f->loc, {checked, analyze(args[1], tail)});
  }
  *handled = false;
  return nullptr;
}

Node* Analyzer::analyze_cond(const Form* f, bool tail) {
  auto clauses = f->children().subspan(1);
  if (clauses.size() % 2)
    fail(ErrorKind::InvalidForm, f, "cond needs pairs of test and result",
         "the last test has no result; use :else for a default: (cond (> x 0) :pos :else :other)");
  Node* result = nil_node(f->loc);
  std::vector<std::pair<Node*, Node*>> pairs;
  for (size_t i = 0; i < clauses.size(); i += 2)
    pairs.emplace_back(analyze(clauses[i], false), analyze(clauses[i + 1], tail));
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) {
    Node* test = it->first;
    if (test->kind == NodeKind::Const && static_cast<ConstNode*>(test)->value.truthy())
      result = it->second;  // :else and other truthy constants
    else
      result = node<IfNode>(test->loc, test, it->second, result);
  }
  return result;
}

Node* Analyzer::analyze_case(const Form* f, bool tail) {
  expect_count(f, 2, SIZE_MAX, "(case expr test result ... default?)");
  auto clauses = f->children().subspan(2);
  auto* c = node<CaseNode>(f->loc);
  c->expr = analyze(f->items[1], false);
  HashBuilder dispatch(arena_, Type::Map);
  std::vector<Value> seen;
  std::vector<Node*> bodies;
  auto add_test = [&](const Form* t, size_t clause) {
    if (t->kind == FormKind::Symbol)
      fail(ErrorKind::InvalidForm, t,
           fmt::format("case test {} must be a literal, not a symbol", t->text),
           "case compares against constants like :a, \"s\", 1 or (:a :b); use cond or condp for "
           "computed tests");
    auto v = constant_of(t);
    if (!v)
      fail(ErrorKind::InvalidForm, t, "case tests must be constants",
           "use cond for computed tests");
    for (Value s : seen)
      if (equals(s, *v))
        fail(ErrorKind::InvalidForm, t, fmt::format("duplicate case test {}", print_to_string(*v)));
    seen.push_back(*v);
    dispatch.put(*v, Value::integer(static_cast<int64_t>(clause)));
  };
  size_t pairs = clauses.size() / 2;
  for (size_t i = 0; i < pairs; ++i) {
    const Form* test = clauses[i * 2];
    if (test->kind == FormKind::List) {
      if (test->count == 0) fail(ErrorKind::InvalidForm, test, "empty case test group");
      for (const Form* t : test->children())
        add_test(t, i);
    } else {
      add_test(test, i);
    }
    bodies.push_back(analyze(clauses[i * 2 + 1], tail));
  }
  c->dispatch = Value::object(dispatch.finish());
  c->clauses = span_of(bodies);
  c->otherwise = clauses.size() % 2 ? analyze(clauses.back(), tail) : nil_node(f->loc);
  return c;
}

Node* Analyzer::analyze_condp(const Form* f, bool tail) {
  expect_count(f, 3, SIZE_MAX, "(condp pred expr test result ... default?)");
  auto clauses = f->children().subspan(3);
  LocalVar* pred = hidden_local(f->loc, "pred");
  LocalVar* expr = hidden_local(f->loc, "expr");
  std::vector<Binding> bindings{{pred, analyze(f->items[1], false)},
                                {expr, analyze(f->items[2], false)}};
  for (const Form* c : clauses)
    if (c->kind == FormKind::Keyword && c->text == ">>")
      fail(ErrorKind::InvalidForm, c, "condp's :>> form is not supported",
           "call the function in the result expression");
  std::vector<std::pair<Node*, Node*>> pairs;
  size_t npairs = clauses.size() / 2;
  for (size_t i = 0; i < npairs; ++i) {
    Node* test_value = analyze(clauses[i * 2], false);
    Node* call = node<CallNode>(clauses[i * 2]->loc, local_ref(pred, f->loc),
                                span_of(std::vector<Node*>{test_value, local_ref(expr, f->loc)}));
    pairs.emplace_back(call, analyze(clauses[i * 2 + 1], tail));
  }
  Node* result = clauses.size() % 2 ? analyze(clauses.back(), tail) : nil_node(f->loc);
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it)
    result = node<IfNode>(it->first->loc, it->first, it->second, result);
  return let_node(f->loc, bindings, result);
}

// (and a b c) = (let [t a] (if t (and b c) t)); `or` swaps the branches.
Node* Analyzer::analyze_and_or(const Form* f, bool is_and, bool tail) {
  auto args = f->children().subspan(1);
  if (args.empty()) return const_node(f->loc, is_and ? Value::boolean(true) : Value());
  std::vector<Node*> nodes;
  for (size_t i = 0; i < args.size(); ++i)
    nodes.push_back(analyze(args[i], tail && i + 1 == args.size()));
  Node* result = nodes.back();
  for (size_t i = nodes.size() - 1; i-- > 0;) {
    LocalVar* t = hidden_local(args[i]->loc, is_and ? "and" : "or");
    Node* ref = local_ref(t, args[i]->loc);
    Node* test = local_ref(t, args[i]->loc);
    Node* branch = is_and ? node<IfNode>(args[i]->loc, test, result, ref)
                          : node<IfNode>(args[i]->loc, test, ref, result);
    result = let_node(args[i]->loc, {{t, nodes[i]}}, branch);
  }
  return result;
}

// if-let / when-let test truthiness, if-some / when-some test for nil; the
// binding may be a destructuring pattern (as in Clojure).
Node* Analyzer::analyze_conditional_binding(const Form* f, std::string_view h, bool tail) {
  bool is_if = h.starts_with("if");
  bool nil_test = h.ends_with("some");
  std::string usage = is_if ? fmt::format("({} [name expr] then else?)", h)
                            : fmt::format("({} [name expr] body...)", h);
  if (f->count < 2 || f->items[1]->kind != FormKind::Vector)
    fail(ErrorKind::InvalidForm, f->count < 2 ? f : f->items[1],
         fmt::format("{} needs a binding vector", h), "usage: " + usage);
  const Form* v = f->items[1];
  if (v->count != 2)
    fail(ErrorKind::InvalidForm, v,
         fmt::format("{} takes exactly one binding (a name and an expression), got {} forms", h,
                     v->count),
         "nest several conditional bindings, or use let for the others");
  if (is_if) expect_count(f, 3, 4, usage);
  LocalVar* tmp = hidden_local(v->loc, "test");
  Node* init = analyze(v->items[1], false);
  Node* test =
      nil_test ? builtin_call("some?", v->loc, {local_ref(tmp, v->loc)}) : local_ref(tmp, v->loc);
  size_t mark = scope_mark();
  std::vector<Binding> inner;
  bind_pattern(v->items[0], local_ref(tmp, v->loc), inner);
  Node* then =
      is_if ? analyze(f->items[2], tail) : analyze_body(f->children().subspan(2), f->loc, tail);
  then = let_node(f->loc, inner, then);
  scope_restore(mark);
  Node* otherwise = is_if && f->count == 4 ? analyze(f->items[3], tail) : nil_node(f->loc);
  return let_node(f->loc, {{tmp, init}}, node<IfNode>(f->loc, test, then, otherwise));
}

Node* Analyzer::analyze_when_first(const Form* f, bool tail) {
  if (f->count < 2 || f->items[1]->kind != FormKind::Vector || f->items[1]->count != 2)
    fail(ErrorKind::InvalidForm, f, "when-first needs a binding vector [name coll]",
         "usage: (when-first [x coll] body...)");
  const Form* v = f->items[1];
  LocalVar* items = hidden_local(v->loc, "items");
  Node* coll = analyze(v->items[1], false);
  Node* seqv =
      builtin_call("__seqv", v->loc, {coll, const_node(v->loc, ctx_.string("when-first"))});
  size_t mark = scope_mark();
  std::vector<Binding> inner;
  bind_pattern(v->items[0],
               builtin_call("nth", v->loc,
                            {local_ref(items, v->loc), const_node(v->loc, Value::integer(0))}),
               inner);
  Node* body = let_node(f->loc, inner, analyze_body(f->children().subspan(2), f->loc, tail));
  scope_restore(mark);
  Node* empty = builtin_call("empty?", v->loc, {local_ref(items, v->loc)});
  return let_node(f->loc, {{items, seqv}}, node<IfNode>(f->loc, empty, nil_node(f->loc), body));
}

namespace {
// One threading step: `x` goes first (->) or last (->>) into `step`.
const Form* thread_step(Analyzer& a, const Form* step, const Form* x, bool last) {
  if (step->kind != FormKind::List || step->count == 0) return a.make_list(step->loc, {step, x});
  std::vector<const Form*> items(step->items, step->items + step->count);
  if (last)
    items.push_back(x);
  else
    items.insert(items.begin() + 1, x);
  return a.make_list(step->loc, items);
}
}  // namespace

Form* Analyzer::expand_threading(const Form* f, std::string_view h) {
  auto args = f->children().subspan(1);
  if (args.empty()) fail(ErrorKind::InvalidArity, f, fmt::format("{} needs an initial value", h));
  SourceLoc loc = f->loc;
  if (h == "->" || h == "->>") {
    const Form* x = args[0];
    for (const Form* step : args.subspan(1))
      x = thread_step(*this, step, x, h == "->>");
    return make_list(loc, {make_symbol(kDoHead, loc), x});
  }
  if (h == "as->") {
    if (args.size() < 2 || args[1]->kind != FormKind::Symbol)
      fail(ErrorKind::InvalidForm, f, "as-> needs a value and a name",
           "usage: (as-> expr name form...)");
    std::vector<const Form*> bindings{args[1], args[0]};
    for (const Form* step : args.subspan(2)) {
      bindings.push_back(args[1]);
      bindings.push_back(step);
    }
    return make_list(loc, {make_symbol(kLetHead, loc), make_vector(loc, bindings), args[1]});
  }
  bool last = h.ends_with(">>");
  const Form* g = make_symbol(gensym("thread"), loc);
  if (h == "cond->" || h == "cond->>") {
    auto clauses = args.subspan(1);
    if (clauses.size() % 2)
      fail(ErrorKind::InvalidForm, f, fmt::format("{} needs pairs of test and form", h),
           fmt::format("usage: ({} x (pos? n) (+ n) :always inc)", h));
    std::vector<const Form*> bindings{g, args[0]};
    for (size_t i = 0; i < clauses.size(); i += 2) {
      bindings.push_back(g);
      bindings.push_back(make_list(
          clauses[i]->loc,
          {make_symbol(kIfHead, loc), clauses[i], thread_step(*this, clauses[i + 1], g, last), g}));
    }
    return make_list(loc, {make_symbol(kLetHead, loc), make_vector(loc, bindings), g});
  }
  // some-> / some->>: stop at the first nil.
  const Form* result = g;
  for (size_t i = args.size() - 1; i >= 1; --i) {
    const Form* step = thread_step(*this, args[i], g, last);
    if (i + 1 == args.size()) {
      result = step;  // the last step's value is the result
    } else {
      result = make_list(
          loc, {make_symbol(kLetHead, loc), make_vector(loc, {g, step}),
                make_list(loc, {make_symbol(kIfHead, loc),
                                make_list(loc, {make_symbol("clojure.core/nil?", loc), g}),
                                make_form(FormKind::Nil, loc), result})});
    }
  }
  if (args.size() == 1) return make_list(loc, {make_symbol(kDoHead, loc), args[0]});
  return make_list(loc, {make_symbol(kLetHead, loc), make_vector(loc, {g, args[0]}),
                         make_list(loc, {make_symbol(kIfHead, loc),
                                         make_list(loc, {make_symbol("clojure.core/nil?", loc), g}),
                                         make_form(FormKind::Nil, loc), result})});
}

}  // namespace ptc::analysis
