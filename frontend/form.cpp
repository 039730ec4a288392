#include "frontend/form.hpp"

namespace ptc {

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
