// Analyzer core: dispatch on form kind, symbol resolution (Appendix A), and
// the primitive special forms (let, loop, recur, fn, def, if, do, quote).
#include "frontend/analyzer_impl.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "frontend/form_heads.hpp"
#include "frontend/resolve.hpp"
#include "runtime/bignum.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"
#include "runtime/regex.hpp"
#include "runtime/scratch.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace analysis {

namespace {
constexpr uint32_t kMaxAnalysisDepth = 4000;

[[noreturn, gnu::cold, gnu::noinline]] void nests_too_deep(Analyzer& a, const Form* f) {
  a.fail(ErrorKind::InvalidForm, f,
         fmt::format("program nests deeper than {} levels", kMaxAnalysisDepth),
         "split deeply nested expressions with let");
}

// analyze() runs for every form: what it needs besides dispatching (the
// depth limit's message, the rare forms' errors) lives out of line, so that
// its own frame stays small.
struct DepthGuard {
  Analyzer& a;
  DepthGuard(Analyzer& an, const Form* f) : a(an) {
    if (++a.depth_ > kMaxAnalysisDepth) nests_too_deep(a, f);
    // Every fourth level: a few levels of analysis frames are far below the
    // stack guard's reserve (kStackReserve), and this runs for every form.
    if ((a.depth_ & 3) == 0) check_native_stack("analyzing a deeply nested program");
    a.ctx_.tick();  // holds compile_timeout
  }
  ~DepthGuard() { --a.depth_; }
};
}  // namespace

Analyzer::Analyzer(Ctx& ctx, const AnalyzerOptions& options)
    : ctx_(ctx), arena_(ctx.arena), options_(options) {}

AnalyzedProgram Analyzer::run(std::span<const Form* const> forms) {
  for (const std::string& g : options_.known_globals) {
    char* copy = arena_.alloc_array<char>(g.size() + 1);
    std::copy(g.begin(), g.end(), copy);
    defined_names_.insert(std::string_view(copy, g.size()));
  }
  for (const Form* f : forms)
    collect_def_names(f, defined_names_);

  program_.main = top_level_fn(forms, forms.empty() ? SourceLoc{1, 1} : forms.front()->loc);
  if (options_.restorers_for) analyze_restorers();
  return std::move(program_);
}

FnNode* Analyzer::top_level_fn(std::span<const Form* const> forms, SourceLoc loc) {
  FnNode* fn = node<FnNode>(loc);
  fn->name = "";
  current_fn_ = fn;
  FnArity* arity = arena_.make<FnArity>();
  arity->loc = loc;
  arity->body = analyze_body(forms, loc, /*tail=*/true);
  fn->arities = span_of({arity});
  current_fn_ = nullptr;
  return fn;
}

void Analyzer::analyze_restorers() {
  restoring_ = true;
  std::unordered_set<const Form*> seen;
  // Restorers may mention further globals; the list grows while we walk it.
  for (size_t i = 0; i < program_.globals.size(); ++i) {
    std::vector<const Form*> forms;
    options_.restorers_for(program_.globals[i], forms);
    for (const Form* f : forms) {
      if (!seen.insert(f).second) continue;
      size_t mark = scope_mark();
      try {
        program_.restorers.emplace_back(f, top_level_fn({&f, 1}, f->loc));
      } catch (LispError&) {
        scope_restore(mark);  // left out; the run says the function could not be kept
        recur_target_ = nullptr;
        current_fn_ = nullptr;
      }
    }
  }
  restoring_ = false;
}

// ---------------------------------------------------------------- helpers

void Analyzer::fail(ErrorKind kind, const Form* at, std::string message, std::string hint) {
  throw LispError(kind, std::move(message), std::move(hint), at ? at->loc : SourceLoc{});
}

void Analyzer::expect_count(const Form* f, size_t min, size_t max, std::string_view usage) {
  size_t n = f->count;
  if (n >= min && n <= max) return;
  std::string_view head = f->count ? f->items[0]->text : "";
  fail(ErrorKind::InvalidArity, f,
       fmt::format("{} expects {} argument{}, got {}", head,
                   min == max        ? fmt::format("{}", min - 1)
                   : max == SIZE_MAX ? fmt::format("at least {}", min - 1)
                                     : fmt::format("{} to {}", min - 1, max - 1),
                   (min == 2 && max == 2) ? "" : "s", n - 1),
       fmt::format("usage: {}", usage));
}

uint32_t Analyzer::builtin_id(std::string_view name) {
  auto id = find_builtin(name);
  if (!id)
    throw LispError(ErrorKind::RuntimeError, fmt::format("internal: missing builtin {}", name));
  return *id;
}

Node* Analyzer::builtin_call(std::string_view name, SourceLoc loc,
                             std::initializer_list<Node*> args) {
  return node<BuiltinCallNode>(loc, builtin_id(name), span_of(std::vector<Node*>(args)));
}

Node* Analyzer::do_node(SourceLoc loc, const std::vector<Node*>& body) {
  if (body.empty()) return nil_node(loc);
  if (body.size() == 1) return body[0];
  return node<DoNode>(loc, span_of(body));
}

Node* Analyzer::let_node(SourceLoc loc, const std::vector<Binding>& bindings, Node* body) {
  if (bindings.empty()) return body;
  return node<LetNode>(loc, span_of(bindings), body);
}

Form* Analyzer::make_form(FormKind kind, SourceLoc loc) {
  Form* f = arena_.make<Form>();
  f->kind = kind;
  f->loc = loc;
  f->end = loc;
  return f;
}

Form* Analyzer::make_symbol(std::string_view name, SourceLoc loc) {
  Form* f = make_form(FormKind::Symbol, loc);
  f->text = name;
  return f;
}

Form* Analyzer::make_list(SourceLoc loc, const std::vector<const Form*>& items) {
  Form* f = make_form(FormKind::List, loc);
  const Form** data = arena_.alloc_array<const Form*>(items.size());
  std::copy(items.begin(), items.end(), data);
  f->items = data;
  f->count = static_cast<uint32_t>(items.size());
  return f;
}

Form* Analyzer::make_list(SourceLoc loc, std::initializer_list<const Form*> items) {
  return make_list(loc, std::vector<const Form*>(items));
}

Form* Analyzer::make_vector(SourceLoc loc, const std::vector<const Form*>& items) {
  Form* f = make_list(loc, items);
  f->kind = FormKind::Vector;
  return f;
}

std::string_view Analyzer::gensym(std::string_view label) {
  std::string s = fmt::format("{} {}", label, ++gensym_counter_);  // a space: unreadable
  char* data = arena_.alloc_array<char>(s.size());
  std::copy(s.begin(), s.end(), data);
  return {data, s.size()};
}

// ---------------------------------------------------------------- scopes

LocalVar* Analyzer::declare(std::string_view name, SourceLoc loc) {
  LocalVar* v = arena_.make<LocalVar>();
  v->name = name;
  v->owner = current_fn_;
  v->loc = loc;
  bind_local(name, v);
  return v;
}

// Most scopes are a handful of names: the newest bindings are searched from
// the innermost out, as Lua's parser does, and only bindings older than that
// window go into the hash index, so a let of thousands of names still
// resolves each one in constant time.
void Analyzer::bind_local(std::string_view name, LocalVar* v) {
  uint32_t key = scan_key(name);
  scope_.push_back({name, v, kNoEntry, key});
  ++window_counts_[scan_bucket(key)];
  if (scope_.size() - indexed_ < kScanWindow) return;
  for (; indexed_ < scope_.size(); ++indexed_) {
    ScopeEntry& e = scope_[indexed_];
    --window_counts_[scan_bucket(e.key)];
    auto [top, fresh] = scope_top_->try_emplace(e.name, indexed_);
    if (!fresh) {
      e.shadowed = top->second;
      top->second = indexed_;
    }
  }
}

void Analyzer::scope_restore(size_t mark) {
  while (scope_.size() > mark) {
    const ScopeEntry& e = scope_.back();
    if (scope_.size() <= indexed_) {
      if (e.shadowed == kNoEntry)
        scope_top_->erase(e.name);
      else
        (*scope_top_)[e.name] = e.shadowed;
      --indexed_;
    } else {
      --window_counts_[scan_bucket(e.key)];
    }
    scope_.pop_back();
  }
}

LocalVar* Analyzer::hidden_local(SourceLoc loc, std::string_view label) {
  LocalVar* v = arena_.make<LocalVar>();
  v->name = gensym(label);
  v->owner = current_fn_;
  v->loc = loc;
  return v;
}

LocalVar* Analyzer::lookup_local(std::string_view name) {
  LocalVar* v = nullptr;
  const uint32_t key = scan_key(name);
  // A builtin's name usually meets no binding of its bucket: no scan.
  size_t scan_to = window_counts_[scan_bucket(key)] ? indexed_ : scope_.size();
  for (size_t i = scope_.size(); i > scan_to; --i) {
    const ScopeEntry& e = scope_[i - 1];
    if (e.key == key && same_name(e.name, name)) {
      v = e.var;
      break;
    }
  }
  if (!v) {
    if (indexed_ == 0) return nullptr;
    auto found = scope_top_->find(name);
    if (found == scope_top_->end()) return nullptr;
    v = scope_[found->second].var;
  }
  if (v->owner != current_fn_) {
    // A binding of an enclosing function: every function in between captures it.
    v->captured = true;
    for (FnNode* fn = current_fn_; fn && fn != v->owner; fn = fn->parent)
      if (captured_->emplace(fn, v).second) fn->captures.push_back(v);
  }
  return v;
}

// ---------------------------------------------------------------- globals

uint32_t Analyzer::global_id(std::string_view name) {
  auto it = global_ids_->find(name);
  if (it != global_ids_->end()) return it->second;
  auto id = static_cast<uint32_t>(program_.globals.size());
  program_.globals.push_back(name);
  program_.global_defined.push_back(false);
  global_ids_->emplace(name, id);
  return id;
}

bool Analyzer::is_defined_global(std::string_view name) const {
  return defined_names_.contains(name);
}

// Names bound by def/defn/defonce anywhere in the program: they resolve as
// user globals (shadowing builtins) even before their def runs.
void collect_def_names(const Form* root, DefinedNames& out) {
  // Only the forms the reader marked as holding a def are entered.
  if (!root->holds_def) return;
  ScratchVector<const Form*> stack;
  stack->push_back(root);
  while (!stack->empty()) {
    const Form* f = stack->back();
    stack->pop_back();
    if (is_def_list(*f)) out.insert(f->items[1]->text);
    for (const Form* c : f->children())
      if (c->holds_def) stack->push_back(c);
  }
}

// ---------------------------------------------------------------- dispatch

Node* Analyzer::analyze(const Form* f, bool tail) {
  DepthGuard guard(*this, f);
  switch (f->kind) {
    case FormKind::Symbol:
      return analyze_symbol(f);
    case FormKind::List:
      return analyze_list(f, tail);
    case FormKind::Vector:
    case FormKind::Map:
    case FormKind::Set:
      return analyze_collection(f);
    case FormKind::FnLiteral:
      return analyze_fn_literal(f);
    case FormKind::Quote:
      return analyze_quote(f);
    case FormKind::Int:  // the commonest constant, without constant_of's call
      return const_node(f->loc, Value::integer(f->i));
    case FormKind::VarQuote:
      return analyze_var_quote(f);
    case FormKind::Regex:
      return analyze_regex(f);
    default: {
      std::optional<Value> v = constant_of(f);
      return const_node(f->loc, v ? *v : Value());
    }
  }
}

Node* Analyzer::analyze_var_quote(const Form* f) {
  if (!is_defined_global(f->text))
    fail(ErrorKind::UnboundVar, f, fmt::format("#'{} refers to no def in this program", f->text),
         "#'name needs a (def name ...) or (defn name ...)");
  return node<VarRefNode>(f->loc, global_id(f->text));
}

Node* Analyzer::analyze_regex(const Form* f) {
  // Compiled once, here: an invalid literal is reported before the program runs.
  try {
    return const_node(f->loc, make_regex(ctx_, f->text));
  } catch (LispError& e) {
    e.error().loc = f->loc;
    throw;
  }
}

Node* Analyzer::analyze_body(std::span<const Form* const> forms, SourceLoc loc, bool tail) {
  ScratchVector<Node*> body;
  for (size_t i = 0; i < forms.size(); ++i)
    body->push_back(analyze(forms[i], tail && i + 1 == forms.size()));
  return do_node(loc, *body);
}

std::optional<Value> Analyzer::constant_of(const Form* f) {
  switch (f->kind) {
    case FormKind::Nil:
      return Value();
    case FormKind::Bool:
      return Value::boolean(f->b);
    case FormKind::Int:
      return Value::integer(f->i);
    case FormKind::BigInt:
      return integer_from_decimal(arena_, f->text);
    case FormKind::Float:
      return Value::floating(f->d);
    case FormKind::String:
      return ctx_.string(f->text);
    case FormKind::Keyword:
      return ctx_.keyword(f->text);
    case FormKind::Vector:
    case FormKind::Map:
    case FormKind::Set: {
      // A literal nested in others is asked about once per enclosing literal:
      // one holding collections is remembered; one holding none costs its
      // own items, at most twice (its parent's fold and its own analysis).
      bool holds_collection = false;
      for (const Form* item : f->children())
        holds_collection |= item->kind == FormKind::Vector || item->kind == FormKind::Map ||
                            item->kind == FormKind::Set;
      if (!holds_collection) return fold_collection(f);
      auto [memo, fresh] = constant_memo_->try_emplace(f);
      if (fresh) memo->second = fold_collection(f);
      return memo->second;
    }
    default:
      return std::nullopt;
  }
}

std::optional<Value> Analyzer::fold_collection(const Form* f) {
  ctx_.tick(static_cast<int64_t>(f->count) + 1);  // holds compile_timeout
  if (f->kind == FormKind::Vector) {
    VecBuilder b(arena_);
    for (const Form* item : f->children()) {
      auto v = constant_of(item);
      if (!v) return std::nullopt;
      b.push(*v);
    }
    return Value::object(b.finish());
  }
  bool is_map = f->kind == FormKind::Map;
  HashBuilder b(arena_, is_map ? Type::Map : Type::Set);
  for (size_t i = 0; i < f->count; i += is_map ? 2 : 1) {
    auto k = constant_of(f->items[i]);
    if (!k) return std::nullopt;
    if (is_map) {
      auto v = constant_of(f->items[i + 1]);
      if (!v) return std::nullopt;
      b.put(*k, *v);
    } else {
      b.put(*k);
    }
  }
  return Value::object(b.finish());
}

// Literal keys written twice are a program error (GAP-S147); keys that only
// turn out equal at runtime dedupe silently (DIV-06).
static void check_duplicate_literal_keys(Analyzer& a, const Form* f) {
  struct Hash {
    size_t operator()(Value v) const { return hash_value(v); }
  };
  struct Eq {
    bool operator()(Value x, Value y) const { return equals(x, y); }
  };
  bool is_map = f->kind == FormKind::Map;
  size_t step = is_map ? 2 : 1;
  std::unordered_map<Value, const Form*, Hash, Eq> seen;  // hash_value is seeded
  seen.reserve(f->count / step);
  for (size_t i = 0; i < f->count; i += step) {
    auto k = a.constant_of(f->items[i]);
    if (!k) continue;
    auto [first, fresh] = seen.try_emplace(*k, f->items[i]);
    if (fresh) continue;
    const Form* at = first->second;
    a.fail(ErrorKind::InvalidForm, f->items[i],
           fmt::format("duplicate {} {} in {} literal (first at {}:{})", is_map ? "key" : "element",
                       print_to_string(*k), is_map ? "map" : "set", at->loc.line, at->loc.col),
           is_map ? "each key may appear once in a map literal"
                  : "each element may appear once in a set literal");
  }
}

Node* Analyzer::analyze_collection(const Form* f) {
  if (f->kind != FormKind::Vector) check_duplicate_literal_keys(*this, f);
  if (auto v = constant_of(f)) return const_node(f->loc, *v);
  Node** items = arena_.alloc_array<Node*>(f->count);
  for (uint32_t i = 0; i < f->count; ++i)
    items[i] = analyze(f->items[i], false);
  NodeKind kind = f->kind == FormKind::Vector ? NodeKind::MakeVector
                  : f->kind == FormKind::Map  ? NodeKind::MakeMap
                                              : NodeKind::MakeSet;
  return node<CollNode>(kind, f->loc, Span<Node*>(items, f->count));
}

Node* Analyzer::analyze_quote(const Form* f) {
  return const_node(f->loc, Value::object(ctx_.interner.symbol(f->text)));
}

// ---------------------------------------------------------------- symbols

Node* Analyzer::analyze_symbol(const Form* f) {
  std::string_view name = f->text;
  if (LocalVar* v = lookup_local(name)) return local_ref(v, f->loc);
  if (name == "*1" || name == "*2" || name == "*3")
    return node<TurnHistoryNode>(f->loc, static_cast<uint32_t>(name[1] - '0'));
  Resolution r = resolve_symbol(name, defined_names_);
  switch (r.kind) {
    case Resolution::Global: {
      auto* g = node<GlobalNode>(f->loc, global_id(r.name));
      if (r.builtin) g->builtin_fallback = static_cast<int32_t>(*r.builtin);
      return g;
    }
    case Resolution::Builtin:
      return node<BuiltinRefNode>(f->loc, *r.builtin);
    case Resolution::Constant:
      return const_node(f->loc, r.constant);
    case Resolution::Data:
      if (data_keys_seen_->insert(r.name).second) program_.data_keys.push_back(r.name);
      return node<DataNode>(f->loc, ctx_.string(r.name));
    case Resolution::Tool:
      fail(ErrorKind::InvalidForm, f, fmt::format("{} is a tool and must be called", name),
           fmt::format("call it with a map of arguments: ({} {{:key value}})", name));
    case Resolution::Error:
      break;
  }
  // Listing undefined names (validate) or rebuilding memory functions needs
  // only the kind of the problem, not the did-you-mean suggestions.
  bool collecting = restoring_ || options_.undefined;
  std::vector<std::string_view> locals;
  if (!collecting)
    for (const ScopeEntry& e : scope_)
      if (e.name.find(' ') == std::string_view::npos) locals.push_back(e.name);
  UnknownSymbol u = describe_unknown_symbol(name, locals, defined_names_.names(), !collecting);
  if (restoring_ && u.kind == ErrorKind::UnboundVar)
    return node<GlobalNode>(f->loc, global_id(name));
  if (options_.undefined && u.kind == ErrorKind::UnboundVar) {
    if (undefined_seen_->insert(name).second) options_.undefined->emplace_back(name);
    return const_node(f->loc, Value());
  }
  fail(u.kind, f, u.message, u.hint);
}

// ---------------------------------------------------------------- lists

// doc, meta, dir, ns-publics, ns-name, source: the first character turns
// away almost every call's head before any comparison.
static bool is_discovery_head(std::string_view name) {
  char c = name.empty() ? 0 : name[0];
  if (c != 'd' && c != 'm' && c != 'n' && c != 's') return false;
  return name == "doc" || name == "meta" || name == "dir" || name == "ns-publics" ||
         name == "ns-name" || name == "source";
}

Node* Analyzer::analyze_list(const Form* f, bool tail) {
  if (f->count == 0) return const_node(f->loc, Value::object(empty_vector()));
  const Form* head = f->items[0];
  auto args = f->children().subspan(1);
  // Clojure's true special forms cannot be shadowed by a local; the others
  // (when, let, fn, ...) can. A head that names no form and no tool is a
  // call: it skips the comparisons below (form_heads.hpp).
  bool form_head = head->kind == FormKind::Symbol && is_form_head(head->text);
  bool special = form_head && (head->text == "if" || head->text == "do" || head->text == "def" ||
                               head->text == "quote" || head->text == "recur");
  if ((form_head || (head->kind == FormKind::Symbol && head->text.starts_with("tool/"))) &&
      (special || !lookup_local(head->text))) {
    std::string_view h = head->text;
    if (h == "if" || h == kIfHead) return analyze_if(f, tail);
    if (h == "let" || h == kLetHead) return analyze_let(f, tail);
    if (h == "loop") return analyze_loop(f, tail);
    if (h == "recur") return analyze_recur(f, tail);
    if (h == "fn" || h == "fn*" || h == kFnHead) return analyze_fn(f, "");
    if (h == "def" || h == "defonce") return analyze_def(f, h);
    if (h == "defn" || h == "defn-") return analyze_defn(f);
    if (h == "do" || h == kDoHead) return analyze_body(args, f->loc, tail);
    if (h == "quote") {
      expect_count(f, 2, 2, "(quote symbol)");
      if (args[0]->kind != FormKind::Symbol)
        fail(ErrorKind::InvalidForm, args[0], "only symbols can be quoted",
             "quoted collections are not supported; write the vector or map directly");
      return const_node(f->loc, Value::object(ctx_.interner.symbol(args[0]->text)));
    }
    bool handled = false;
    Node* n = analyze_macro(f, h, tail, &handled);
    if (handled) return n;
    if (h.starts_with("tool/") && h.size() > 5) return analyze_tool_call(f, h.substr(5));
  }
  // The discovery forms take a name, not a value: (doc map) means the symbol
  // map, as clojure.repl/doc does.
  if (head->kind == FormKind::Symbol && !args.empty() && args[0]->kind == FormKind::Symbol &&
      is_discovery_head(head->text) && !lookup_local(head->text)) {
    Form* quoted = make_form(FormKind::Quote, args[0]->loc);
    quoted->text = args[0]->text;
    std::vector<const Form*> items(f->items, f->items + f->count);
    items[1] = quoted;
    const Form* rewritten = make_list(f->loc, items);
    return analyze_call(rewritten, analyze(head, false), rewritten->children().subspan(1));
  }
  if (head->kind == FormKind::Keyword) {
    if (args.empty() || args.size() > 2)
      fail(ErrorKind::ArityError, f,
           fmt::format("keyword :{} called with {} arguments", head->text, args.size()),
           fmt::format("use (:{} m) or (:{} m default)", head->text, head->text));
  }
  switch (head->kind) {
    case FormKind::Nil:
    case FormKind::Bool:
    case FormKind::Int:
    case FormKind::BigInt:
    case FormKind::Float:
    case FormKind::String:
      fail(ErrorKind::NotCallable, head,
           head->kind == FormKind::Nil ? std::string("nil is not a function")
                                       : fmt::format("{} {} is not a function",
                                                     form_kind_name(head->kind), print_form(*head)),
           "the first element of a list is called; use a vector [..] for data");
    default:
      break;
  }
  Node* callee = analyze(head, false);
  return analyze_call(f, callee, args);
}

Node* Analyzer::analyze_call(const Form* f, Node* callee, std::span<const Form* const> args) {
  // The arguments go straight into the arena, where the call node keeps them.
  Node** arg_data = arena_.alloc_array<Node*>(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    arg_data[i] = analyze(args[i], false);
  Span<Node*> arg_nodes(arg_data, args.size());
  if (callee->kind == NodeKind::BuiltinRef) {
    uint32_t id = static_cast<BuiltinRefNode*>(callee)->id;
    const BuiltinDef& def = builtin_def(id);
    try {
      check_builtin_arity(def, static_cast<uint32_t>(args.size()));
    } catch (LispError& e) {
      e.error().loc = f->loc;
      throw;
    }
    // Asked here, by id, before the calls: every builtin call passes.
    static const uint32_t take = builtin_id("take");
    static const std::vector<bool> foldable = builtin_id_set(
        {"+", "-",  "*",    "/", "inc", "dec", "quot", "rem",   "mod",  "abs",  "max",   "min",
         "=", "==", "not=", "<", ">",   "<=",  ">=",   "zero?", "pos?", "neg?", "even?", "odd?"});
    if (id == take)
      if (Node* fused = fuse_take_range(f->loc, arg_nodes)) return fused;
    if (foldable[id])
      if (Node* folded = fold_numbers(f->loc, id, arg_nodes)) return folded;
    return node<BuiltinCallNode>(f->loc, id, arg_nodes);
  }
  return node<CallNode>(f->loc, callee, arg_nodes);
}

// (take n (range ...)) makes only the n numbers it keeps, so a prefix of a
// range that would be endless or huge on its own (a zero step, an infinite
// bound) works as it does in Clojure.
Node* Analyzer::fuse_take_range(SourceLoc loc, std::span<Node* const> args) {
  static const uint32_t range = builtin_id("range");
  if (args.size() != 2 || args[1]->kind != NodeKind::BuiltinCall) return nullptr;
  auto* inner = static_cast<BuiltinCallNode*>(args[1]);
  if (inner->id != range) return nullptr;
  std::vector<Node*> fused{args[0]};
  fused.insert(fused.end(), inner->args.begin(), inner->args.end());
  return node<BuiltinCallNode>(loc, builtin_id("__take_range"), span_of(fused));
}

// (+ 1 (* 2 3)): arithmetic and comparisons of number literals are done
// here, once, as Lua's parser folds constants. Only plain integers and floats
// are folded, so the work is bounded by the literals written; a call the
// builtin rejects, such as (quot 1 0) or an overflow, is left to fail at run
// time, at its own position. analyze_call asks only for the builtins it folds.
//
// (+ 1 2), (- 10 4), (* 2 3) of integers whose result stays an int64 are
// computed here without calling the builtin; an overflow goes to the builtin,
// which promotes to a bignum.
static bool fold_int_arithmetic(char op, const Value* v, size_t n, int64_t* out) {
  if (n == 0) return false;
  int64_t acc = v[0].as_int();
  if (n == 1) {
    if (op != '-') return false;
    return !__builtin_sub_overflow(int64_t{0}, acc, out);
  }
  for (size_t i = 1; i < n; ++i) {
    int64_t x = v[i].as_int();
    bool overflow = op == '+'   ? __builtin_add_overflow(acc, x, &acc)
                    : op == '-' ? __builtin_sub_overflow(acc, x, &acc)
                                : __builtin_mul_overflow(acc, x, &acc);
    if (overflow) return false;
  }
  *out = acc;
  return true;
}

Node* Analyzer::fold_numbers(SourceLoc loc, uint32_t id, std::span<Node* const> args) {
  static const uint32_t add = builtin_id("+"), sub = builtin_id("-"), mul = builtin_id("*");
  constexpr size_t kMaxArgs = 8;
  if (args.size() > kMaxArgs) return nullptr;
  // Filled as checked; left uninitialised past them (this runs per call).
  alignas(Value) unsigned char storage[kMaxArgs * sizeof(Value)];
  auto* values = reinterpret_cast<Value*>(storage);
  bool all_ints = true;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->kind != NodeKind::Const) return nullptr;
    Value v = static_cast<ConstNode*>(args[i])->value;
    if (!v.is_int() && !v.is_float()) return nullptr;
    all_ints &= v.is_int();
    new (&values[i]) Value(v);
  }
  if (all_ints && (id == add || id == sub || id == mul)) {
    int64_t r;
    if (fold_int_arithmetic(id == add ? '+' : id == sub ? '-' : '*', values, args.size(), &r))
      return const_node(loc, Value::integer(r));
  }
  try {
    return const_node(loc, call_builtin(ctx_, id, values, static_cast<uint32_t>(args.size())));
  } catch (const LispError&) {
    return nullptr;
  }
}

Node* Analyzer::analyze_tool_call(const Form* f, std::string_view tool) {
  if (options_.check_tool) {
    try {
      options_.check_tool(tool);
    } catch (LispError& e) {
      if (!e.error().loc.known()) e.error().loc = f->loc;
      throw;
    }
  }
  auto args = f->children().subspan(1);
  Node* arg;
  if (args.empty()) {
    arg = const_node(f->loc, Value::object(empty_map()));
  } else if (args.size() == 1) {
    arg = analyze(args[0], false);
  } else {
    if (args.size() % 2)
      fail(ErrorKind::InvalidForm, f,
           fmt::format("tool/{} got {} arguments; named arguments come in key/value pairs", tool,
                       args.size()),
           fmt::format("call tools with one map: (tool/{} {{:key value}})", tool));
    std::vector<Node*> items;
    for (const Form* a : args)
      items.push_back(analyze(a, false));
    arg = node<CollNode>(NodeKind::MakeMap, f->loc, span_of(items));
  }
  return node<ToolCallNode>(f->loc, tool, arg);
}

// ---------------------------------------------------------------- special forms

Node* Analyzer::analyze_if(const Form* f, bool tail) {
  expect_count(f, 3, 4, "(if test then else?)");
  Node* test = analyze(f->items[1], false);
  Node* then = analyze(f->items[2], tail);
  Node* otherwise = f->count == 4 ? analyze(f->items[3], tail) : nil_node(f->loc);
  return node<IfNode>(f->loc, test, then, otherwise);
}

static const Form* binding_vector(Analyzer& a, const Form* f, std::string_view usage) {
  if (f->count < 2 || f->items[1]->kind != FormKind::Vector)
    a.fail(ErrorKind::InvalidForm, f->count < 2 ? f : f->items[1],
           fmt::format("{} needs a binding vector", f->items[0]->text),
           fmt::format("usage: {}", usage));
  const Form* v = f->items[1];
  if (v->count % 2)
    a.fail(ErrorKind::InvalidForm, v,
           fmt::format("{} bindings need pairs of name and value, got {} forms", f->items[0]->text,
                       v->count),
           "each name needs a value: [x 1 y 2]");
  return v;
}

Node* Analyzer::analyze_let(const Form* f, bool tail) {
  const Form* v = binding_vector(*this, f, "(let [name value ...] body...)");
  size_t mark = scope_mark();
  std::vector<Binding> bindings;
  for (size_t i = 0; i < v->count; i += 2) {
    Node* init = analyze(v->items[i + 1], false);
    bind_pattern(v->items[i], init, bindings);
  }
  Node* body = analyze_body(f->children().subspan(2), f->loc, tail);
  scope_restore(mark);
  return let_node(f->loc, bindings, body);
}

Node* Analyzer::analyze_loop(const Form* f, bool) {
  const Form* v = binding_vector(*this, f, "(loop [name init ...] body...)");
  size_t mark = scope_mark();
  auto* loop = node<LoopNode>(f->loc);
  std::vector<Binding> loop_bindings;
  std::vector<Binding> outer;     // evaluates inits and destructures them once (Clojure's loop)
  std::vector<Binding> per_iter;  // re-destructures the loop variables on every iteration
  bool simple = true;
  for (size_t i = 0; i < v->count; i += 2)
    simple = simple && is_simple_binding(v->items[i]);
  for (size_t i = 0; i < v->count; i += 2) {
    Node* init = analyze(v->items[i + 1], false);
    if (simple) {
      LocalVar* var = declare(v->items[i]->text, v->items[i]->loc);
      loop_bindings.push_back({var, init});
    } else {
      LocalVar* g = hidden_local(v->items[i]->loc, "loop");
      outer.push_back({g, init});
      bind_pattern(v->items[i], local_ref(g, v->items[i]->loc), outer);
      loop_bindings.push_back({nullptr, local_ref(g, v->items[i]->loc)});
    }
  }
  if (!simple) {
    // Loop variables are fresh hidden locals initialised from the outer ones;
    // the body destructures them again.
    scope_restore(mark);
    for (size_t i = 0, k = 0; i < v->count; i += 2, ++k) {
      LocalVar* lv = hidden_local(v->items[i]->loc, "loopvar");
      loop_bindings[k].var = lv;
      bind_pattern(v->items[i], local_ref(lv, v->items[i]->loc), per_iter);
    }
  }
  loop->bindings = span_of(loop_bindings);
  RecurTarget target{loop, nullptr, loop_bindings.size()};
  RecurTarget* saved = recur_target_;
  recur_target_ = &target;
  Node* body = analyze_body(f->children().subspan(2), f->loc, true);
  recur_target_ = saved;
  loop->body = let_node(f->loc, per_iter, body);
  scope_restore(mark);
  return let_node(f->loc, outer, loop);
}

Node* Analyzer::analyze_recur(const Form* f, bool tail) {
  if (!recur_target_)
    fail(ErrorKind::InvalidForm, f, "recur is only allowed inside loop or fn",
         "wrap the iteration in (loop [i 0] ... (recur (inc i)))");
  if (!tail)
    fail(ErrorKind::InvalidForm, f, "recur must be in tail position",
         "recur has to be the last thing its loop or fn does; a value cannot be computed from it");
  size_t n = f->count - 1;
  if (n != recur_target_->nargs)
    fail(ErrorKind::InvalidArity, f,
         fmt::format("recur expects {} argument{} (one per {} binding), got {}",
                     recur_target_->nargs, recur_target_->nargs == 1 ? "" : "s",
                     recur_target_->loop ? "loop" : "fn", n));
  auto* r = node<RecurNode>(f->loc);
  std::vector<Node*> args;
  for (const Form* a : f->children().subspan(1))
    args.push_back(analyze(a, false));
  r->args = span_of(args);
  r->loop = recur_target_->loop;
  r->arity = recur_target_->arity;
  return r;
}

bool Analyzer::is_simple_binding(const Form* pattern) const {
  return pattern->kind == FormKind::Symbol && pattern->text != "&";
}

namespace {
std::string param_display(const Form* p) {
  return p->kind == FormKind::Symbol ? std::string(p->text) : std::string("_");
}
}  // namespace

Node* Analyzer::analyze_fn(const Form* f, std::string_view def_name, const Form* origin) {
  auto parts = f->children().subspan(1);
  std::string_view name = def_name;
  const Form* self_name = nullptr;
  if (!parts.empty() && parts[0]->kind == FormKind::Symbol) {
    self_name = parts[0];
    name = parts[0]->text;
    parts = parts.subspan(1);
  }
  if (parts.empty())
    fail(ErrorKind::InvalidForm, f, "fn needs a parameter vector",
         "usage: (fn [x] body) or (fn ([x] ...) ([x y] ...))");
  // Single arity (fn [params] body...) or several (fn ([params] body...) ...).
  std::vector<std::pair<const Form*, std::span<const Form* const>>> arity_forms;
  if (parts[0]->kind == FormKind::Vector) {
    arity_forms.emplace_back(parts[0], parts.subspan(1));
  } else {
    for (const Form* p : parts) {
      if (p->kind != FormKind::List || p->count == 0 || p->items[0]->kind != FormKind::Vector)
        fail(ErrorKind::InvalidForm, p,
             "fn expects a parameter vector or arity lists like ([x] body)",
             "usage: (fn [x] body) or (fn ([x] ...) ([x y] ...))");
      arity_forms.emplace_back(p->items[0], p->children().subspan(1));
    }
  }

  auto* fn = node<FnNode>(f->loc);
  fn->name = name;
  fn->origin = origin ? origin : f;
  fn->parent = current_fn_;
  FnNode* saved_fn = current_fn_;
  RecurTarget* saved_target = recur_target_;
  size_t mark = scope_mark();
  current_fn_ = fn;
  if (self_name) fn->self = declare(self_name->text, self_name->loc);

  std::vector<FnArity*> arities;
  for (auto& [params, body_forms] : arity_forms) {
    size_t arity_mark = scope_mark();
    auto* arity = arena_.make<FnArity>();
    arity->loc = params->loc;
    std::vector<LocalVar*> vars;
    vars.reserve(params->count);
    std::vector<Binding> destructure;
    std::vector<std::pair<const Form*, LocalVar*>> patterns;
    std::string display;
    for (size_t i = 0; i < params->count; ++i) {
      const Form* p = params->items[i];
      bool is_rest = p->is_symbol("&");
      if (is_rest) {
        if (i + 2 != params->count)
          fail(ErrorKind::InvalidForm, p, "& must be followed by exactly one parameter",
               "usage: (fn [a & more] ...)");
        p = params->items[++i];
      }
      LocalVar* var;
      if (is_simple_binding(p)) {
        var = declare(p->text, p->loc);
      } else if (p->kind == FormKind::Vector || p->kind == FormKind::Map) {
        var = hidden_local(p->loc, "param");
        patterns.emplace_back(p, var);
      } else {
        fail(ErrorKind::UnsupportedPattern, p,
             fmt::format("invalid parameter {}", form_kind_name(p->kind)),
             "parameters are names, [vector] patterns or {:keys [...]} patterns");
      }
      if (!display.empty()) display += ' ';
      if (is_rest) {
        display += "& ";
        arity->rest = var;
      } else {
        vars.push_back(var);
      }
      display += param_display(p);
    }
    if (fn->params_display.empty()) fn->params_display = display;
    arity->params = span_of(vars);
    for (auto& [p, var] : patterns)
      bind_pattern(p, local_ref(var, p->loc), destructure);

    RecurTarget target{nullptr, arity, vars.size() + (arity->rest ? 1 : 0)};
    recur_target_ = &target;
    // A lone map before a body is a pre/post condition map in Clojure.
    if (body_forms.size() > 1 && body_forms[0]->kind == FormKind::Map) {
      for (size_t k = 0; k < body_forms[0]->count; k += 2)
        if (body_forms[0]->items[k]->kind == FormKind::Keyword &&
            (body_forms[0]->items[k]->text == "pre" || body_forms[0]->items[k]->text == "post"))
          fail(ErrorKind::InvalidForm, body_forms[0],
               ":pre/:post conditions are not supported (DIV-16)",
               "check arguments explicitly and call (fail \"reason\")");
    }
    Node* body = analyze_body(body_forms, params->loc, true);
    arity->body = let_node(params->loc, destructure, body);
    arities.push_back(arity);
    scope_restore(arity_mark);
  }
  // Validate the set of arities (as Clojure does).
  std::sort(arities.begin(), arities.end(), [](FnArity* a, FnArity* b) {
    return a->params.size() < b->params.size() ||
           (a->params.size() == b->params.size() && !a->rest && b->rest);
  });
  FnArity* variadic = nullptr;
  for (size_t i = 0; i < arities.size(); ++i) {
    FnArity* a = arities[i];
    if (a->rest) {
      if (variadic)
        throw LispError(ErrorKind::InvalidForm, "a function can have only one variadic arity", "",
                        a->loc);
      variadic = a;
    }
    if (i > 0 && !a->rest && !arities[i - 1]->rest &&
        arities[i - 1]->params.size() == a->params.size())
      throw LispError(ErrorKind::InvalidForm,
                      fmt::format("two arities take {} arguments", a->params.size()), "", a->loc);
  }
  if (variadic)
    for (FnArity* a : arities)
      if (!a->rest && a->params.size() > variadic->params.size())
        throw LispError(ErrorKind::InvalidForm,
                        "a fixed arity cannot take more arguments than the variadic one", "",
                        a->loc);
  fn->arities = span_of(arities);
  scope_restore(mark);
  current_fn_ = saved_fn;
  recur_target_ = saved_target;
  return fn;
}

static std::string_view def_name(Analyzer& a, const Form* f, std::string_view head) {
  if (f->count < 2 || f->items[1]->kind != FormKind::Symbol)
    a.fail(ErrorKind::InvalidForm, f->count < 2 ? f : f->items[1],
           fmt::format("{} needs a name", head), fmt::format("usage: ({} name value)", head));
  std::string_view name = f->items[1]->text;
  if (name.find('/') != std::string_view::npos && name != "/") {
    std::string_view ns = name.substr(0, name.find('/'));
    a.fail(ErrorKind::InvalidForm, f->items[1],
           fmt::format("cannot define {}: {} is a protected namespace", name, ns),
           "define plain names: (def my-name ...)");
  }
  return name;
}

Node* Analyzer::analyze_def(const Form* f, std::string_view head) {
  std::string_view name = def_name(*this, f, head);
  if (f->count == 2)
    fail(ErrorKind::InvalidForm, f, fmt::format("{} {} has no value", head, name),
         fmt::format("usage: ({} {} value)", head, name));
  if (f->count > 4 || (f->count == 4 && f->items[2]->kind != FormKind::String))
    fail(ErrorKind::InvalidForm, f,
         fmt::format("{} takes a name, an optional docstring and a value", head),
         fmt::format("usage: ({} {} \"doc\" value)", head, name));
  const Form* value_form = f->items[f->count - 1];
  Node* value =
      value_form->kind == FormKind::List && value_form->count > 0 &&
              (value_form->items[0]->is_symbol("fn") || value_form->items[0]->is_symbol(kFnHead)) &&
              !lookup_local("fn")
          ? analyze_fn(value_form, name)
          : analyze(value_form, false);
  uint32_t id = global_id(name);
  program_.global_defined[id] = true;
  return node<DefNode>(f->loc, id, value, head == "defonce");
}

Node* Analyzer::analyze_defn(const Form* f) {
  std::string_view head = f->items[0]->text;
  std::string_view name = def_name(*this, f, head);
  std::vector<const Form*> fn_items;
  fn_items.reserve(f->count);
  fn_items.push_back(make_symbol(kFnHead, f->loc));
  size_t i = 2;
  if (i < f->count && f->items[i]->kind == FormKind::String) ++i;                   // docstring
  if (i < f->count && f->items[i]->kind == FormKind::Map && i + 1 < f->count) ++i;  // attr-map
  if (i >= f->count)
    fail(ErrorKind::InvalidForm, f, fmt::format("{} {} needs a parameter vector", head, name),
         fmt::format("usage: ({} {} [x] body)", head, name));
  for (; i < f->count; ++i)
    fn_items.push_back(f->items[i]);
  Node* fn = analyze_fn(make_list(f->loc, fn_items), name);
  uint32_t id = global_id(name);
  program_.global_defined[id] = true;
  return node<DefNode>(f->loc, id, fn, false);
}

// #(...): % and %1..%20 are parameters, %& the rest. A single symbol body is
// a call (#(foo) is (fn [] (foo))); a single literal is returned.
Node* Analyzer::analyze_fn_literal(const Form* f) {
  int max_index = 0;
  bool has_rest = false, has_bare = false;
  // Scan for placeholders (nested #() cannot occur: the reader rejects them).
  std::vector<const Form*> stack(f->items, f->items + f->count);
  while (!stack.empty()) {
    const Form* x = stack.back();
    stack.pop_back();
    if (x->kind == FormKind::Symbol && x->text.starts_with('%')) {
      std::string_view t = x->text;
      if (t == "%") {
        has_bare = true;
      } else if (t == "%&") {
        has_rest = true;
      } else {
        // At most two digits, so an absurd index such as %99999999999 or a
        // name such as %abc never reaches the arithmetic.
        int n = 0;
        bool ok = t.size() <= 3;
        for (size_t i = 1; ok && i < t.size(); ++i) {
          ok = t[i] >= '0' && t[i] <= '9';
          if (ok) n = n * 10 + (t[i] - '0');
        }
        if (!ok || n < 1 || n > 20)
          fail(ErrorKind::InvalidPlaceholder, x, fmt::format("invalid placeholder {} in #()", t),
               "use %, %1 ... %20, or %& for the remaining arguments");
        max_index = std::max(max_index, n);
      }
    }
    for (const Form* c : x->children())
      stack.push_back(c);
  }
  if (has_bare) max_index = std::max(max_index, 1);

  const Form* body;
  if (f->count == 0) {
    body = make_form(FormKind::Nil, f->loc);
  } else if (f->count == 1) {
    const Form* only = f->items[0];
    bool placeholder = only->kind == FormKind::Symbol && only->text.starts_with('%');
    body = only->kind == FormKind::Symbol && !placeholder ? make_list(f->loc, {only}) : only;
  } else {
    std::vector<const Form*> items(f->items, f->items + f->count);
    body = make_list(f->loc, items);
  }
  // (fn [%1 %2 & %&] body), and a bare % is bound to %1 by (let [% %1] body).
  std::vector<const Form*> params;
  for (int i = 1; i <= max_index; ++i) {
    std::string nm = fmt::format("%{}", i);
    char* data = arena_.alloc_array<char>(nm.size());
    std::copy(nm.begin(), nm.end(), data);
    params.push_back(make_symbol(std::string_view(data, nm.size()), f->loc));
  }
  if (has_rest) {
    params.push_back(make_symbol("&", f->loc));
    params.push_back(make_symbol("%&", f->loc));
  }
  if (has_bare)
    body = make_list(
        f->loc, {make_symbol(kLetHead, f->loc),
                 make_vector(f->loc, {make_symbol("%", f->loc), make_symbol("%1", f->loc)}), body});
  return analyze_fn(
      make_list(f->loc, {make_symbol(kFnHead, f->loc), make_vector(f->loc, params), body}), "", f);
}

}  // namespace analysis

AnalyzedProgram analyze_program(Ctx& ctx, std::span<const Form* const> forms,
                                const AnalyzerOptions& options) {
  analysis::Analyzer a(ctx, options);
  return a.run(forms);
}

}  // namespace ptc
