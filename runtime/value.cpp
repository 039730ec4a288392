#include "runtime/value.hpp"

namespace ptc {

const char* type_name(Type t) {
  switch (t) {
    case Type::Nil:
      return "nil";
    case Type::Bool:
      return "boolean";
    case Type::Int:
      return "integer";
    case Type::Float:
      return "float";
    case Type::BigInt:
      return "integer";
    case Type::String:
      return "string";
    case Type::Keyword:
      return "keyword";
    case Type::Symbol:
      return "symbol";
    case Type::Vector:
      return "vector";
    case Type::Map:
      return "map";
    case Type::Set:
      return "set";
    case Type::Closure:
      return "function";
    case Type::NativeFn:
      return "function";
    case Type::Builtin:
      return "function";
    case Type::Regex:
      return "regex";
    case Type::Var:
      return "var";
    case Type::Opaque:
      return "object";
  }
  return "value";
}

}  // namespace ptc
