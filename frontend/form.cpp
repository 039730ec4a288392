#include "frontend/form.hpp"

namespace ptc {

bool is_def_list(const Form& f) {
  if (f.kind != FormKind::List || f.count < 2 || f.items[0]->kind != FormKind::Symbol ||
      f.items[1]->kind != FormKind::Symbol)
    return false;
  std::string_view h = f.items[0]->text;
  return h.starts_with("def") && (h == "def" || h == "defn" || h == "defn-" || h == "defonce");
}

const char* form_kind_name(FormKind kind) {
  switch (kind) {
    case FormKind::Nil:
      return "nil";
    case FormKind::Bool:
      return "boolean";
    case FormKind::Int:
      return "integer";
    case FormKind::BigInt:
      return "big integer";
    case FormKind::Float:
      return "float";
    case FormKind::String:
      return "string";
    case FormKind::Keyword:
      return "keyword";
    case FormKind::Symbol:
      return "symbol";
    case FormKind::List:
      return "list";
    case FormKind::Vector:
      return "vector";
    case FormKind::Map:
      return "map";
    case FormKind::Set:
      return "set";
    case FormKind::FnLiteral:
      return "#() function";
    case FormKind::Regex:
      return "regex";
    case FormKind::VarQuote:
      return "var quote";
    case FormKind::Quote:
      return "quoted symbol";
  }
  return "unknown";
}

}  // namespace ptc
