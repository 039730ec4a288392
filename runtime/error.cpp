#include "runtime/error.hpp"

#include <fmt/format.h>

namespace ptc {

namespace {
struct ReasonEntry {
  ErrorKind kind;
  std::string_view name;
};
constexpr ReasonEntry kReasons[] = {
#define PTC_X(name, reason) {ErrorKind::name, reason},
    PTC_ERROR_KINDS(PTC_X)
#undef PTC_X
};
}  // namespace

std::string_view reason_name(ErrorKind kind) {
  for (const auto& r : kReasons)
    if (r.kind == kind) return r.name;
  return "runtime_error";
}

std::optional<ErrorKind> reason_from_name(std::string_view name) {
  for (const auto& r : kReasons)
    if (r.name == name) return r.kind;
  return std::nullopt;
}

std::string Error::describe() const {
  std::string out(reason_name(kind));
  if (loc.known()) out += fmt::format(" at {}:{}", loc.line, loc.col);
  out += ": ";
  out += message;
  if (!hint.empty()) {
    out += "\n  hint: ";
    out += hint;
  }
  return out;
}

void throw_error(ErrorKind kind, std::string message, std::string hint, SourceLoc loc) {
  throw LispError(kind, std::move(message), std::move(hint), loc);
}

}  // namespace ptc
