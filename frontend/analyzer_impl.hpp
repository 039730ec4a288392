// Internal: the analyzer's state, shared by the files that implement its
// parts (analyzer.cpp: core forms and symbols; macros.cpp: forms that expand
// to others; iteration.cpp: for/doseq; destructure.cpp: binding patterns).
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/analyzer.hpp"
#include "frontend/resolve.hpp"
#include "runtime/arena.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hash.hpp"
#include "runtime/lazy.hpp"

namespace ptc::analysis {

// Heads of forms the analyzer builds itself. The trailing space makes them
// impossible to write in a program, so a user binding named `fn` or `let`
// cannot capture them.
inline constexpr std::string_view kFnHead = "fn ";
inline constexpr std::string_view kLetHead = "let ";
inline constexpr std::string_view kIfHead = "if ";
inline constexpr std::string_view kDoHead = "do ";

struct PairPointerHash {
  size_t operator()(const std::pair<const FnNode*, const LocalVar*>& p) const {
    return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
  }
};

// Where a `recur` jumps: a loop or a function arity, with its binding count.
struct RecurTarget {
  LoopNode* loop = nullptr;
  FnArity* arity = nullptr;
  size_t nargs = 0;
};

class Analyzer {
 public:
  Analyzer(Ctx& ctx, const AnalyzerOptions& options);
  AnalyzedProgram run(std::span<const Form* const> forms);

  // ---- analyzer.cpp: dispatch, symbols, core special forms ----
  Node* analyze(const Form* f, bool tail);
  Node* analyze_body(std::span<const Form* const> forms, SourceLoc loc, bool tail);
  Node* analyze_symbol(const Form* f);
  Node* analyze_list(const Form* f, bool tail);
  Node* analyze_call(const Form* f, Node* callee, std::span<const Form* const> args);
  Node* analyze_if(const Form* f, bool tail);
  Node* analyze_let(const Form* f, bool tail);
  Node* analyze_loop(const Form* f, bool tail);
  Node* analyze_recur(const Form* f, bool tail);
  Node* analyze_fn(const Form* f, std::string_view def_name, const Form* origin = nullptr);
  // A zero-argument function of `forms` at top level (the program, a restorer).
  FnNode* top_level_fn(std::span<const Form* const> forms, SourceLoc loc);
  void analyze_restorers();
  Node* analyze_fn_literal(const Form* f);
  Node* analyze_def(const Form* f, std::string_view head);
  Node* analyze_defn(const Form* f);
  Node* analyze_quote(const Form* f);
  Node* analyze_var_quote(const Form* f);
  Node* analyze_regex(const Form* f);
  Node* analyze_tool_call(const Form* f, std::string_view tool);
  Node* analyze_collection(const Form* f);
  std::optional<Value> constant_of(const Form* f);  // literal data without symbols
  std::optional<Value> fold_collection(const Form* f);

  // ---- macros.cpp: forms that expand into others ----
  Node* analyze_macro(const Form* f, std::string_view head, bool tail, bool* handled);
  Node* analyze_cond(const Form* f, bool tail);
  Node* analyze_case(const Form* f, bool tail);
  Node* analyze_condp(const Form* f, bool tail);
  Node* analyze_and_or(const Form* f, bool is_and, bool tail);
  Node* analyze_conditional_binding(const Form* f, std::string_view head, bool tail);
  Node* analyze_when_first(const Form* f, bool tail);
  Form* expand_threading(const Form* f, std::string_view head);

  // ---- iteration.cpp ----
  Node* analyze_for(const Form* f, bool collect);

  // ---- destructure.cpp ----
  // Binds `pattern` to the value of `init`, appending the bindings (and
  // declaring the names in the current scope).
  void bind_pattern(const Form* pattern, Node* init, std::vector<Binding>& out);
  bool is_simple_binding(const Form* pattern) const;

  // ---- scopes ----
  LocalVar* declare(std::string_view name, SourceLoc loc);
  LocalVar* hidden_local(SourceLoc loc, std::string_view label = "tmp");
  LocalVar* lookup_local(std::string_view name);
  // Makes `v` visible under `name` until the scope is restored past it.
  void bind_local(std::string_view name, LocalVar* v);
  size_t scope_mark() const { return scope_.size(); }
  void scope_restore(size_t mark);

  // ---- node and form construction ----
  template <class T, class... Args>
  T* node(Args&&... args) {
    return arena_.make<T>(std::forward<Args>(args)...);
  }
  template <class T>
  Span<T> span_of(std::span<const T> v) {
    T* data = arena_.alloc_array<T>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      new (data + i) T(v[i]);
    return Span<T>(data, v.size());
  }
  template <class T>
  Span<T> span_of(const std::vector<T>& v) {
    return span_of(std::span<const T>(v));
  }
  template <class T>
  Span<T> span_of(std::initializer_list<T> v) {
    return span_of(std::span<const T>(v.begin(), v.size()));
  }
  Node* nil_node(SourceLoc loc) { return node<ConstNode>(loc, Value()); }
  Node* const_node(SourceLoc loc, Value v) { return node<ConstNode>(loc, v); }
  Node* local_ref(LocalVar* v, SourceLoc loc) { return node<LocalNode>(loc, v); }
  Node* builtin_call(std::string_view name, SourceLoc loc, std::initializer_list<Node*> args);
  uint32_t builtin_id(std::string_view name);
  Node* fuse_take_range(SourceLoc loc, std::span<Node* const> args);
  Node* fold_numbers(SourceLoc loc, uint32_t id, std::span<Node* const> args);
  Node* do_node(SourceLoc loc, const std::vector<Node*>& body);
  Node* let_node(SourceLoc loc, const std::vector<Binding>& bindings, Node* body);

  Form* make_form(FormKind kind, SourceLoc loc);
  Form* make_symbol(std::string_view name, SourceLoc loc);
  Form* make_list(SourceLoc loc, std::initializer_list<const Form*> items);
  Form* make_list(SourceLoc loc, const std::vector<const Form*>& items);
  Form* make_vector(SourceLoc loc, const std::vector<const Form*>& items);
  std::string_view gensym(std::string_view label);  // names no program can write

  // ---- errors ----
  [[noreturn]] void fail(ErrorKind kind, const Form* at, std::string message,
                         std::string hint = {});
  void expect_count(const Form* f, size_t min, size_t max, std::string_view usage);

  // ---- globals ----
  uint32_t global_id(std::string_view name);
  bool is_defined_global(std::string_view name) const;

  Ctx& ctx_;
  Arena& arena_;
  const AnalyzerOptions& options_;
  AnalyzedProgram program_;
  // Every table here is indexed (seeded hashes, no unbounded linear scans):
  // analysis stays linear in program size however many names a program
  // declares.
  Lazy<StringMap<uint32_t>> global_ids_;
  DefinedNames defined_names_;  // def'd in program or memory
  // Visible bindings, innermost last. The first indexed_ entries are also in
  // scope_top_, which maps a name to its innermost indexed entry; each of them
  // links to the entry of the same name it shadows. Newer ones (fewer than
  // kScanWindow) are searched from the innermost out.
  struct ScopeEntry {
    std::string_view name;
    LocalVar* var;
    uint32_t shadowed;  // index in scope_, or kNoEntry
    uint32_t key;       // scan_key(name): the scan compares names only on a match
  };
  static uint32_t scan_key(std::string_view name) {
    return static_cast<uint32_t>(name.size()) << 8 |
           (name.empty() ? 0u : static_cast<unsigned char>(name[0]));
  }
  static uint32_t scan_bucket(uint32_t key) { return (key ^ key >> 5) & 63; }
  static constexpr uint32_t kNoEntry = 0xFFFFFFFFu;
  static constexpr size_t kScanWindow = 32;
  std::vector<ScopeEntry> scope_;
  size_t indexed_ = 0;
  // How many of the scanned entries (scope_[indexed_..]) fall in each
  // scan_bucket of their key: lookup_local skips the scan when none does.
  uint16_t window_counts_[64] = {};
  Lazy<StringMap<uint32_t>> scope_top_;
  // (function, captured binding) pairs already in the function's captures.
  Lazy<std::unordered_set<std::pair<const FnNode*, const LocalVar*>, PairPointerHash>> captured_;
  Lazy<StringSet> data_keys_seen_;
  Lazy<StringSet> undefined_seen_;
  // Literal collections already folded (nullopt: not constant), so nested
  // literals are examined once, not once per enclosing literal.
  Lazy<std::unordered_map<const Form*, std::optional<Value>>> constant_memo_;
  FnNode* current_fn_ = nullptr;
  RecurTarget* recur_target_ = nullptr;
  uint32_t gensym_counter_ = 0;
  uint32_t depth_ = 0;
  bool restoring_ = false;  // analyzing memory restorers: unknown names are globals
};

// Collects the names every def/defn/defonce in the program binds.
void collect_def_names(const Form* f, DefinedNames& out);

}  // namespace ptc::analysis
