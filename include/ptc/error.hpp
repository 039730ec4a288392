// Errors are values: a reason from a closed set, a message that tells the
// program's author (usually an LLM) what to fix, an optional hint, and where.
// Inside the engine they travel as a C++ exception (LispError) because every
// error ends the run: PTC-Lisp has no try/catch.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace ptc {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based, counted in code points
  bool known() const { return line != 0; }
};

#define PTC_ERROR_KINDS(X)                                                                \
  X(ParseError, "parse_error")                 /* reader: invalid syntax */               \
  X(InvalidForm, "invalid_form")               /* analyzer: bad form shape */             \
  X(InvalidArity, "invalid_arity")             /* analyzer: special form arity */         \
  X(UnboundVar, "unbound_var")                 /* unknown or unbound symbol */            \
  X(InvalidPlaceholder, "invalid_placeholder") /* bad % in #() */                         \
  X(UnsupportedPattern, "unsupported_pattern") /* destructuring shape */                  \
  X(TypeError, "type_error")                                                              \
  X(ArithmeticError, "arithmetic_error")                                                  \
  X(ArityError, "arity_error") /* runtime call with wrong argc */                         \
  X(NotCallable, "not_callable")                                                          \
  X(DestructureError, "destructure_error")                                                \
  X(RuntimeError, "runtime_error")                                                        \
  X(UnknownTool, "unknown_tool")                                                          \
  X(ToolError, "tool_error")                                                              \
  X(UnsupportedMethod, "unsupported_method")                                              \
  X(LoopLimitExceeded, "loop_limit_exceeded")                                             \
  X(CallDepthExceeded, "call_depth_exceeded")                                             \
  X(Timeout, "timeout")                                                                   \
  X(Cancelled, "cancelled") /* the host (or a failing sibling branch) stopped it */       \
  X(MemoryLimit, "memory_limit")                                                          \
  X(SymbolLimit, "symbol_limit_exceeded")                                                 \
  X(ProgramTooLarge, "program_too_large")                                                 \
  X(ToolCallLimitExceeded, "tool_call_limit_exceeded")                                    \
  X(ParallelCapacityExceeded, "parallel_capacity_exceeded")                               \
  X(ArgsError, "args_error")                   /* malformed request around the program */ \
  X(ValidationError, "validation_error")       /* signature mismatch, or host refused */  \
  X(Fail, "fail")                              /* the program called (fail v) */          \
  X(SnapshotError, "snapshot_error")           /* bytes that are not a valid snapshot */  \
  X(SnapshotDivergence, "snapshot_divergence") /* a replay left its journal */            \
  X(InternalError, "internal_error")           /* the engine failed: an isolated worker died */

enum class ErrorKind : uint8_t {
#define PTC_X(name, reason) name,
  PTC_ERROR_KINDS(PTC_X)
#undef PTC_X
};

// The wire name of a reason, e.g. "type_error".
std::string_view reason_name(ErrorKind kind);
// Inverse of reason_name; nullopt for unknown names.
std::optional<ErrorKind> reason_from_name(std::string_view name);

struct Error {
  ErrorKind kind = ErrorKind::RuntimeError;
  std::string message;
  std::string hint;  // optional: a suggestion (did-you-mean, the right form)
  SourceLoc loc;
  std::string fail_value;  // printed value of (fail v), for ErrorKind::Fail

  // "type_error at 3:7: + expects a number, got string \"a\"\n  hint: ..."
  std::string describe() const;
};

class LispError : public std::exception {
 public:
  explicit LispError(Error e) : error_(std::move(e)) {}
  LispError(ErrorKind kind, std::string message, std::string hint = {}, SourceLoc loc = {}) {
    error_.kind = kind;
    error_.message = std::move(message);
    error_.hint = std::move(hint);
    error_.loc = loc;
  }
  const char* what() const noexcept override { return error_.message.c_str(); }
  const Error& error() const { return error_; }
  Error& error() { return error_; }

 private:
  Error error_;
};

[[noreturn]] void throw_error(ErrorKind kind, std::string message, std::string hint = {},
                              SourceLoc loc = {});

}  // namespace ptc
