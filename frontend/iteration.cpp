// for and doseq (spec §5.17, §5.21): nested index loops over the binding
// collections, with :let, :when and :while modifiers applied in order. `for`
// pushes each body value into a hidden accumulator. These loops walk finite
// collections, so their jumps charge reductions but not loop_limit.
#include <fmt/format.h>

#include "frontend/analyzer_impl.hpp"

namespace ptc::analysis {

namespace {

struct Modifier {
  std::string_view kind;  // "when", "let", "while"
  const Form* form;
  const Form* keyword;
};

struct Segment {
  const Form* pattern;
  const Form* coll;
  std::vector<Modifier> modifiers;
};

std::vector<Segment> parse_segments(Analyzer& a, const Form* f, std::string_view head) {
  if (f->count < 2 || f->items[1]->kind != FormKind::Vector)
    a.fail(ErrorKind::InvalidForm, f, fmt::format("{} needs a binding vector", head),
           fmt::format("usage: ({} [x coll] body...)", head));
  const Form* v = f->items[1];
  if (v->count % 2)
    a.fail(ErrorKind::InvalidForm, v,
           fmt::format("{} bindings need pairs, got {} forms", head, v->count),
           "each binding is a name and a collection; modifiers are :when test, :let [..], :while "
           "test");
  std::vector<Segment> segs;
  for (size_t i = 0; i < v->count; i += 2) {
    const Form* k = v->items[i];
    const Form* val = v->items[i + 1];
    if (k->kind == FormKind::Keyword) {
      if (segs.empty())
        a.fail(ErrorKind::InvalidForm, k,
               fmt::format("{} modifier :{} must follow a binding", head, k->text));
      if (k->text != "when" && k->text != "let" && k->text != "while")
        a.fail(ErrorKind::InvalidForm, k, fmt::format("unknown modifier :{} in {}", k->text, head),
               "known modifiers: :when, :let, :while");
      if (k->text == "let" && (val->kind != FormKind::Vector || val->count % 2))
        a.fail(ErrorKind::InvalidForm, val, ":let needs a binding vector of pairs",
               "e.g. :let [y (* x 2)]");
      segs.back().modifiers.push_back({k->text, val, k});
      continue;
    }
    switch (val->kind) {
      case FormKind::Int:
      case FormKind::Float:
      case FormKind::Bool:
      case FormKind::Keyword:
        a.fail(ErrorKind::InvalidForm, val,
               fmt::format("{} binding expects a collection, got a {}", head,
                           form_kind_name(val->kind)),
               "use (range n) to count");
      default:
        break;
    }
    segs.push_back({k, val, {}});
  }
  if (segs.empty())
    a.fail(ErrorKind::InvalidForm, v, fmt::format("{} needs at least one binding", head),
           fmt::format("usage: ({} [x coll] body...)", head));
  return segs;
}

struct ForBuilder {
  Analyzer& a;
  const Form* f;
  std::string_view head;
  const std::vector<Segment>& segs;
  LocalVar* acc;  // nullptr for doseq

  Node* level(size_t k) {
    const Segment& seg = segs[k];
    SourceLoc loc = seg.pattern->loc;
    LocalVar* items = a.hidden_local(loc, "items");
    LocalVar* count = a.hidden_local(loc, "count");
    LocalVar* index = a.hidden_local(loc, "i");
    Node* coll = a.analyze(seg.coll, false);
    std::vector<Binding> outer{
        {items, a.builtin_call("__seqv", loc, {coll, a.const_node(loc, a.ctx_.string(head))})},
        {count, a.builtin_call("count", loc, {a.local_ref(items, loc)})}};

    auto* loop = a.node<LoopNode>(loc);
    loop->counted = false;
    loop->bindings = a.span_of(std::vector<Binding>{{index, a.const_node(loc, Value::integer(0))}});
    auto next = [&]() -> Node* {
      auto* r = a.node<RecurNode>(loc);
      r->loop = loop;
      r->args =
          a.span_of(std::vector<Node*>{a.builtin_call("inc", loc, {a.local_ref(index, loc)})});
      return r;
    };

    size_t mark = a.scope_mark();
    std::vector<Binding> element;
    a.bind_pattern(seg.pattern,
                   a.builtin_call("nth", loc, {a.local_ref(items, loc), a.local_ref(index, loc)}),
                   element);
    // Modifiers wrap the rest, outermost first; analyze them in order so each
    // sees the bindings before it.
    struct Wrap {
      std::string_view kind;
      Node* test = nullptr;
      std::vector<Binding> bindings;
      SourceLoc loc;
    };
    std::vector<Wrap> wraps;
    for (const Modifier& m : seg.modifiers) {
      Wrap w{m.kind, nullptr, {}, m.keyword->loc};
      if (m.kind == "let") {
        for (size_t i = 0; i < m.form->count; i += 2) {
          Node* init = a.analyze(m.form->items[i + 1], false);
          a.bind_pattern(m.form->items[i], init, w.bindings);
        }
      } else {
        w.test = a.analyze(m.form, false);
      }
      wraps.push_back(std::move(w));
    }
    Node* inner;
    if (k + 1 < segs.size()) {
      inner = level(k + 1);
    } else {
      Node* body = a.analyze_body(f->children().subspan(2), f->loc, false);
      inner = acc ? a.builtin_call("__tv_push", f->loc, {a.local_ref(acc, f->loc), body}) : body;
    }
    a.scope_restore(mark);

    Node* result = a.do_node(loc, {inner, next()});
    for (auto it = wraps.rbegin(); it != wraps.rend(); ++it) {
      if (it->kind == "let")
        result = a.let_node(it->loc, it->bindings, result);
      else if (it->kind == "when")
        result = a.node<IfNode>(it->loc, it->test, result, next());
      else  // while: leave this level's loop
        result = a.node<IfNode>(it->loc, it->test, result, a.nil_node(it->loc));
    }
    result = a.let_node(loc, element, result);
    Node* more = a.builtin_call("<", loc, {a.local_ref(index, loc), a.local_ref(count, loc)});
    loop->body = a.node<IfNode>(loc, more, result, a.nil_node(loc));
    return a.let_node(loc, outer, loop);
  }
};

}  // namespace

Node* Analyzer::analyze_for(const Form* f, bool collect) {
  std::string_view head = collect ? "for" : "doseq";
  std::vector<Segment> segs = parse_segments(*this, f, head);
  if (collect && f->count < 3)
    fail(ErrorKind::InvalidForm, f, "for needs a body expression", "usage: (for [x coll] (f x))");
  LocalVar* acc = collect ? hidden_local(f->loc, "acc") : nullptr;
  ForBuilder b{*this, f, head, segs, acc};
  Node* loops = b.level(0);
  if (!collect) return do_node(f->loc, {loops, nil_node(f->loc)});
  return let_node(
      f->loc, {{acc, builtin_call("__tv_new", f->loc, {})}},
      do_node(f->loc, {loops, builtin_call("__tv_finish", f->loc, {local_ref(acc, f->loc)})}));
}

}  // namespace ptc::analysis
