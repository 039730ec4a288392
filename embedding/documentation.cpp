// The documentation part of the embedding API: the documented names of
// runtime/builtins/documentation.hpp as host types, and the did-you-mean hint
// the analyzer gives for an unknown name.
#include "runtime/builtins/documentation.hpp"
#include "frontend/resolve.hpp"
#include "include/ptc/ptc.hpp"

namespace ptc {

std::vector<DocEntry> documentation() {
  std::vector<DocEntry> out;
  for (const DocumentedName& d : documented_names())
    out.push_back({d.special_form ? DocEntry::Kind::SpecialForm : DocEntry::Kind::Builtin, d.name,
                   std::string(d.category), std::string(d.signature), std::string(d.doc)});
  return out;
}

std::optional<std::string> doc_text(std::string_view name) {
  const DocumentedName* d = find_documented(name);
  if (!d) return std::nullopt;
  return doc_text(*d);
}

std::string unknown_name_hint(std::string_view name) {
  std::string hint = describe_unknown_symbol(name, {}, StringSet{}).hint;
  return hint == kDefineItHint ? std::string() : hint;
}

}  // namespace ptc
