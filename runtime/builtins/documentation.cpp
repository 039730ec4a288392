#include "runtime/builtins/documentation.hpp"

#include <algorithm>
#include <tuple>

#include "runtime/builtins/registry.hpp"
#include "runtime/builtins/special_forms.hpp"

namespace ptc {

namespace {

constexpr std::string_view kSpecialFormsTitle = "Special forms";

// The heading of each category, with the prefixes its names take.
std::string_view category_title(Category c) {
  switch (c) {
    case Category::Core:
      return "Core functions (clojure.core)";
    case Category::String:
      return "Strings (clojure.string/, str/ or the bare name)";
    case Category::Set:
      return "Sets (clojure.set/, set/ or the bare name)";
    case Category::Walk:
      return "Walking nested data (clojure.walk/, walk/ or the bare name)";
    case Category::Regex:
      return "Regular expressions";
    case Category::Math:
      return "Numbers (Math/ or the bare name)";
    case Category::Json:
      return "JSON";
    case Category::Interop:
      return "Java interop";
    case Category::Discovery:
      return "Discovery";
    case Category::Internal:
      break;
  }
  return "Internal";
}

std::string namespace_of(const BuiltinDef& d) {
  switch (d.category) {
    case Category::String:
      return "clojure.string";
    case Category::Set:
      return "clojure.set";
    case Category::Walk:
      return "clojure.walk";
    case Category::Json:
      return "json";
    case Category::Interop: {
      if (d.name.starts_with('.')) return "java.lang.String";
      size_t slash = d.name.find('/');
      return slash == std::string_view::npos ? "java" : std::string(d.name.substr(0, slash));
    }
    default:
      return "clojure.core";
  }
}

struct NamespaceName {
  std::string_view alias, canonical;
};
constexpr NamespaceName kNamespaces[] = {
    {"clojure.core", "clojure.core"},
    {"core", "clojure.core"},
    {"clojure.string", "clojure.string"},
    {"str", "clojure.string"},
    {"string", "clojure.string"},
    {"clojure.set", "clojure.set"},
    {"set", "clojure.set"},
    {"clojure.walk", "clojure.walk"},
    {"walk", "clojure.walk"},
    {"json", "json"},
    {"regex", "clojure.core"},
};

}  // namespace

std::string DocumentedName::ref() const {
  if (name.find('/') != std::string::npos || name.starts_with('.')) return name;
  return ns + "/" + name;
}

const std::vector<DocumentedName>& documented_names() {
  static const std::vector<DocumentedName> all = [] {
    std::vector<DocumentedName> out;
    for (const SpecialForm& s : special_forms())
      out.push_back(
          {std::string(s.name), "clojure.core", true, kSpecialFormsTitle, s.signature, s.doc});
    std::sort(out.begin(), out.end(),
              [](const DocumentedName& x, const DocumentedName& y) { return x.name < y.name; });
    std::vector<const BuiltinDef*> defs;
    for (const BuiltinDef& d : all_builtins())
      if (d.category != Category::Internal) defs.push_back(&d);
    std::sort(defs.begin(), defs.end(), [](const BuiltinDef* x, const BuiltinDef* y) {
      return std::tie(x->category, x->name) < std::tie(y->category, y->name);
    });
    for (const BuiltinDef* d : defs)
      out.push_back({std::string(d->name), namespace_of(*d), false, category_title(d->category),
                     d->signature, d->doc});
    return out;
  }();
  return all;
}

const std::string_view* canonical_namespace(std::string_view name) {
  for (const auto& n : kNamespaces)
    if (n.alias == name) return &n.canonical;
  return nullptr;
}

const DocumentedName* find_documented(std::string_view ref) {
  for (const DocumentedName& e : documented_names())
    if (e.name == ref) return &e;
  size_t slash = ref.rfind('/');
  if (slash != std::string_view::npos && slash > 0) {
    std::string_view ns = ref.substr(0, slash), name = ref.substr(slash + 1);
    const std::string_view* canon = canonical_namespace(ns);
    for (const DocumentedName& e : documented_names())
      if (e.name == name && (!canon || e.ns == *canon || *canon == "clojure.core")) return &e;
  }
  return nullptr;
}

std::string doc_text(const DocumentedName& e) {
  std::string text = e.ref();
  if (!e.doc.empty()) text += "\n" + std::string(e.doc);
  text += "\nKind: " + std::string(e.kind());
  if (!e.signature.empty()) text += "\nSignature: " + std::string(e.signature);
  return text;
}

}  // namespace ptc
