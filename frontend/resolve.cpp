#include "frontend/resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/builtins/registry.hpp"

namespace ptc {

namespace {

// Clojure-style namespaces whose members are builtins of the same bare name,
// bounded by category: clojure.string/join works, clojure.string/map does not.
struct NamespaceAlias {
  std::string_view ns;
  std::optional<Category> category;  // nullopt: every builtin (clojure.core)
};
const NamespaceAlias kNamespaceAliases[] = {
    {"clojure.core", std::nullopt},
    {"core", std::nullopt},
    {"clojure.string", Category::String},
    {"str", Category::String},
    {"string", Category::String},
    {"clojure.set", Category::Set},
    {"set", Category::Set},
    {"clojure.walk", Category::Walk},
    {"walk", Category::Walk},
    {"regex", Category::Regex},
    {"Math", Category::Math},
};
// Java classes: only members registered under their full name
// (Integer/parseInt, java.time.LocalDate/parse) exist.
constexpr std::string_view kJavaNamespaces[] = {"System",    "Boolean",
                                                "Double",    "Float",
                                                "Integer",   "Long",
                                                "LocalDate", "java.time.LocalDate",
                                                "Instant",   "java.time.Instant",
                                                "Duration",  "java.time.Duration",
                                                "json",      "budget"};

const NamespaceAlias* namespace_alias(std::string_view ns) {
  for (const auto& a : kNamespaceAliases)
    if (a.ns == ns) return &a;
  return nullptr;
}

// Builtins a namespace alias reaches, for the "not available" message.
std::string namespace_members(const NamespaceAlias& a) {
  std::string list;
  size_t n = 0;
  for (const auto& def : all_builtins()) {
    if (def.category == Category::Internal || def.name.find('/') != std::string_view::npos)
      continue;
    if (a.category && def.category != *a.category) continue;
    if (n++ == 24) {
      list += ", ...";
      break;
    }
    if (!list.empty()) list += ", ";
    list += def.name;
  }
  return list;
}

struct NamedConstant {
  std::string_view name;
  double value;
};
const NamedConstant kConstants[] = {
    {"Double/POSITIVE_INFINITY", std::numeric_limits<double>::infinity()},
    {"Double/NEGATIVE_INFINITY", -std::numeric_limits<double>::infinity()},
    {"Double/NaN", std::numeric_limits<double>::quiet_NaN()},
    {"POSITIVE_INFINITY", std::numeric_limits<double>::infinity()},
    {"NEGATIVE_INFINITY", -std::numeric_limits<double>::infinity()},
    {"NaN", std::numeric_limits<double>::quiet_NaN()},
    {"Math/PI", 3.141592653589793},
    {"Math/E", 2.718281828459045},
};
struct IntConstant {
  std::string_view name;
  int64_t value;
};
constexpr IntConstant kIntConstants[] = {
    {"Long/MAX_VALUE", std::numeric_limits<int64_t>::max()},
    {"Long/MIN_VALUE", std::numeric_limits<int64_t>::min()},
    {"Integer/MAX_VALUE", std::numeric_limits<int32_t>::max()},
    {"Integer/MIN_VALUE", std::numeric_limits<int32_t>::min()},
};

std::optional<Value> named_constant(std::string_view name) {
  for (const auto& c : kConstants)
    if (c.name == name) return Value::floating(c.value);
  for (const auto& c : kIntConstants)
    if (c.name == name) return Value::integer(c.value);
  return std::nullopt;
}

template <class Range>
bool contains(const Range& r, std::string_view s) {
  return std::find(std::begin(r), std::end(r), s) != std::end(r);
}

bool user_visible_builtin(std::string_view name) {
  return name.size() < 2 || name[0] != '_' || name[1] != '_';  // not __internal
}

std::optional<uint32_t> visible_builtin(std::string_view name) {
  if (!user_visible_builtin(name)) return std::nullopt;
  return find_builtin(name);
}

struct Unsupported {
  std::string_view names;  // space separated
  std::string_view hint;
};
// Clojure names PTC-Lisp leaves out on purpose, with what to write instead.
const Unsupported kUnsupported[] = {
    {"try catch throw finally ex-info ex-data ex-message ex-cause assert",
     "PTC-Lisp has no exceptions; stop with (fail \"reason\") or check values before using them"},
    {"atom swap! reset! swap-vals! reset-vals! deref ref alter commute ensure dosync agent send "
     "send-off "
     "volatile! vreset! vswap! set! add-watch remove-watch compare-and-set! alter-var-root "
     "transient persistent! conj! assoc! dissoc! disj! pop!",
     "PTC-Lisp has no mutable state; thread values through let, loop/recur or reduce, or store "
     "with def"},
    {"lazy-seq lazy-cat iterate cycle repeatedly delay force realized?",
     "PTC-Lisp is eager and has no infinite sequences; use (range n), (repeat n x), loop/recur or "
     "reduce"},
    {"eval read-string load-string load-file macroexpand macroexpand-1 defmacro gensym",
     "PTC-Lisp has no eval or macros"},
    {"slurp spit file-seq line-seq read-line with-open flush",
     "PTC-Lisp has no file or console access; data comes from data/... and tool/... calls"},
    {"printf", "use (println (format \"...\" args...))"},
    {"ns require import use in-ns refer create-ns find-ns resolve ns-resolve intern",
     "no namespace setup is needed: call clojure.string/join, str/join or join directly"},
    {"declare",
     "define functions before the code that calls them runs; defn order within a program is "
     "enough"},
    {"letfn", "bind local functions with (let [f (fn f [x] ...)] ...) or define them with defn"},
    {"future future-call promise deliver pvalues locking thread",
     "use pmap or pcalls for parallel work"},
    {"defmulti defmethod defprotocol defrecord deftype definterface defstruct reify proxy "
     "extend-type "
     "extend-protocol gen-class",
     "PTC-Lisp has no multimethods, protocols or records; use maps and functions (case/cond to "
     "dispatch)"},
    {"transduce sequence eduction completing cat",
     "PTC-Lisp has no transducers; compose map/filter/reduce or use ->>"},
    {"new class instance? bean make-array into-array to-array aget aset alength",
     "PTC-Lisp has no general Java interop; only the documented String, Math and date methods "
     "exist"},
    {"reductions", "collect intermediate results with reduce into a vector, or loop/recur"},
    {"bigint biginteger bigdec", "integers are already arbitrary precision; use plain numbers"},
    {"char", "characters are one-character strings; use (str c) or subs"},
    {"rand rand-int rand-nth shuffle random-uuid", "PTC-Lisp is deterministic: no random numbers"},
    {"time", "PTC-Lisp has no timing macro; use (System/currentTimeMillis) before and after"},
};

// Names longer than this get no did-you-mean list.
constexpr size_t kMaxSuggestedName = 128;

// Levenshtein distance of a and b when it is at most k, else k + 1. Only
// cells within k of the diagonal can lead to a distance <= k.
size_t edit_distance_within(std::string_view a, std::string_view b, size_t k) {
  const size_t over = k + 1;
  if (a.size() > b.size() + k || b.size() > a.size() + k) return over;
  std::vector<size_t> prev(b.size() + 2, over), cur(b.size() + 2, over);
  for (size_t j = 0; j <= std::min(b.size(), k); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t lo = i > k ? i - k : 1, hi = std::min(b.size(), i + k);
    // The cells just outside the band are read by this row and the next.
    cur[lo - 1] = lo == 1 && i <= k ? i : over;
    for (size_t j = lo; j <= hi; ++j)
      cur[j] = std::min(
          {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), over});
    cur[hi + 1] = over;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], over);
}

}  // namespace

Resolution resolve_symbol(std::string_view name, const DefinedNames& defined) {
  Resolution r;
  r.name = name;
  // A loop, not find(): names are short, and this runs for every symbol.
  size_t slash = std::string_view::npos;
  for (size_t i = 0; i < name.size(); ++i)
    if (name[i] == '/') {
      slash = i;
      break;
    }
  bool qualified =
      !(slash == std::string_view::npos || name == "/" || slash == 0 || slash + 1 == name.size());
  if (!qualified && defined.contains(name)) {
    r.kind = Resolution::Global;
    r.builtin = visible_builtin(name);
    return r;
  }
  if (auto id =
          visible_builtin(name)) {  // map, or namespaced ones: budget/remaining, Integer/parseInt
    r.kind = Resolution::Builtin;
    r.builtin = id;
    return r;
  }
  if (auto c = named_constant(name)) {  // NaN, Double/POSITIVE_INFINITY, Long/MAX_VALUE
    r.kind = Resolution::Constant;
    r.constant = *c;
    return r;
  }
  if (!qualified) return r;  // Error
  std::string_view ns = name.substr(0, slash), member = name.substr(slash + 1);
  if (ns == "data") {
    r.kind = Resolution::Data;
    r.name = member;
    return r;
  }
  if (ns == "tool") {
    r.kind = Resolution::Tool;
    r.name = member;
    return r;
  }
  if (const NamespaceAlias* alias = namespace_alias(ns)) {
    if (auto id = visible_builtin(member);
        id && (!alias->category || builtin_def(*id).category == *alias->category)) {
      r.kind = Resolution::Builtin;
      r.builtin = id;
    }
  }
  return r;
}

UnknownSymbol describe_unknown_symbol(std::string_view name,
                                      const std::vector<std::string_view>& locals,
                                      const StringSet& defined, bool suggest) {
  UnknownSymbol u{ErrorKind::UnboundVar, fmt::format("undefined symbol {}", name), ""};
  if (name == "data") {
    u.message = "data is not a value: the context is read one key at a time";
    u.hint = "use data/<key>, e.g. data/orders";
    return u;
  }
  if (is_special_form(name)) {
    u.kind = ErrorKind::InvalidForm;
    u.message = fmt::format("{} is a special form and cannot be used as a value", name);
    u.hint = fmt::format("call it: ({} ...); to pass logic as a function, wrap it in (fn [x] ...)",
                         name);
    return u;
  }
  size_t slash = name.find('/');
  if (slash != std::string_view::npos && slash > 0 && name != "/") {
    std::string_view ns = name.substr(0, slash);
    if (const NamespaceAlias* alias = namespace_alias(ns)) {
      u.message = fmt::format("{} is not available in PTC-Lisp", name);
      u.hint = fmt::format("{} functions: {}", ns, namespace_members(*alias));
    } else if (contains(kJavaNamespaces, ns)) {
      u.message = fmt::format("{} is not available in PTC-Lisp", name);
      u.hint = "only a few Java members are emulated; see the function reference (interop)";
    } else {
      u.message = fmt::format("unknown namespace {} in {}", ns, name);
      u.hint =
          "namespaced names are data/<key>, tool/<name>, clojure.string/..., clojure.set/..., "
          "Math/...";
    }
    return u;
  }
  for (const auto& un : kUnsupported) {
    std::string_view names = un.names;
    size_t pos = 0;
    while (pos < names.size()) {
      size_t end = names.find(' ', pos);
      if (end == std::string_view::npos) end = names.size();
      if (names.substr(pos, end - pos) == name) {
        u.message = fmt::format("{} is not supported in PTC-Lisp", name);
        u.hint = std::string(un.hint);
        return u;
      }
      pos = end + 1;
    }
  }
  // Did you mean: the closest known names. Only names of similar length can
  // be close, and the distance is computed in a band of width 2*limit+1, so
  // this stays linear in the number of names however long they are.
  std::vector<std::pair<size_t, std::string_view>> near;
  size_t limit = name.size() <= 3 ? 1 : (name.size() <= 6 ? 2 : 3);
  auto consider = [&](std::string_view cand) {
    if (cand.size() + limit < name.size() || name.size() + limit < cand.size()) return;
    if (cand.starts_with("__") || cand.find(' ') != std::string_view::npos) return;
    size_t d = edit_distance_within(name, cand, limit);
    if (d <= limit) near.emplace_back(d, cand);
  };
  if (!suggest || name.size() > kMaxSuggestedName) {
    u.hint = kDefineItHint;
    return u;
  }
  for (const auto& def : all_builtins())
    consider(def.name);
  for (const SpecialForm& s : special_forms())
    consider(s.name);
  for (auto s : locals)
    consider(s);
  for (auto s : defined)
    consider(s);
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  if (!near.empty()) {
    std::string list;
    for (size_t i = 0; i < near.size() && i < 3; ++i)
      list += (i ? ", " : "") + std::string(near[i].second);
    u.hint = fmt::format("did you mean: {}?", list);
  } else {
    u.hint = kDefineItHint;
  }
  return u;
}

}  // namespace ptc
