// The documented names: every special form and every builtin a program can
// call, with its namespace, category, signature and doc line. `doc`, `meta`,
// `dir`, `apropos` and `ns-publics` read them, and so does the embedding API's
// ptc::documentation() (`ptc doc`, docs/language.md): one list, so what a
// program is told and what the reference says cannot differ.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptc {

struct DocumentedName {
  std::string name;  // as written: "map", "->", "join" (clojure.string/join), "Math/log"
  std::string ns;    // "clojure.core", "clojure.string", "java.lang.String", ...
  bool special_form = false;
  std::string_view category;  // the heading it is listed under, e.g. "Special forms"
  std::string_view signature;
  std::string_view doc;

  std::string_view kind() const { return special_form ? "special-form" : "function"; }
  // The qualified name: "clojure.core/map", "clojure.string/join", "Math/log".
  std::string ref() const;
};

// Special forms first, then the builtins category by category (in the order
// of `Category`), each group sorted by name. Internal helpers are left out.
const std::vector<DocumentedName>& documented_names();

// Finds a name as programs write it: plain ("map"), qualified
// ("clojure.string/join", "str/join") or a full interop name ("LocalDate/parse").
const DocumentedName* find_documented(std::string_view ref);

// What (doc name) prints: the qualified name, the doc line, the kind and the
// signature, one per line.
std::string doc_text(const DocumentedName& entry);

// The canonical namespace an alias names ("str" -> "clojure.string"), or
// nullptr for a namespace programs cannot use.
const std::string_view* canonical_namespace(std::string_view name);

}  // namespace ptc
