// Core string builtins: str, pr-str, println, keyword, name.
#include <fmt/format.h>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"

namespace ptc::builtins {

namespace {

Value str(Ctx& ctx, const Value* a, uint32_t n) {
  if (n == 1 && a[0].is_string()) return a[0];
  std::string out;
  for (uint32_t i = 0; i < n; ++i)
    str_append(out, a[i]);
  return ctx.string(out);
}

Value pr_str(Ctx& ctx, const Value* a, uint32_t n) {
  std::string out;
  for (uint32_t i = 0; i < n; ++i) {
    if (i) out.push_back(' ');
    print_value(out, a[i]);
  }
  return ctx.string(out);
}

Value println(Ctx& ctx, const Value* a, uint32_t n) {
  std::string line;
  PrintOptions opts;
  opts.readable = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (i) line.push_back(' ');
    print_value(line, a[i], opts);
  }
  ctx.add_print(std::move(line));
  return Value();
}

bool valid_keyword_name(std::string_view s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(s[0])) return false;
  for (char c : s)
    if (!(letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '?' || c == '!'))
      return false;
  return true;
}

Value keyword(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_nil() || x.is_keyword()) return x;
  if (!x.is_string()) type_error("keyword", "a string", x, 1);
  std::string_view name = x.str()->view();
  if (!valid_keyword_name(name))
    throw_error(ErrorKind::TypeError, fmt::format("keyword: invalid keyword name \"{}\"", name),
                "a keyword name starts with a letter and holds only letters, digits, - _ ? ! "
                "(no / or spaces); use the string itself as a map key instead");
  return ctx.keyword(name);
}

Value name(Ctx& ctx, const Value* a, uint32_t) {
  Value x = a[0];
  if (x.is_string()) return x;
  if (x.is_keyword() || x.is(Type::Symbol)) return ctx.string(x.kw()->name());
  type_error("name", "a keyword or string", x, 1);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(String, "str", 0, kVariadic, str, "(str & xs)", "Concatenates the text of the arguments; nil is empty."),
    PTC_BUILTIN(String, "pr-str", 0, kVariadic, pr_str, "(pr-str & xs)", "Readable text of the arguments, space separated."),
    PTC_BUILTIN(Core, "println", 0, kVariadic, println, "(println & xs)", "Records the arguments as one line of output; returns nil."),
    PTC_BUILTIN(Core, "keyword", 1, 1, keyword, "(keyword name)", "The keyword with that name."),
    PTC_BUILTIN(String, "name", 1, 1, name, "(name x)", "The name of a keyword, or a string unchanged."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> strings() {
  return kDefs;
}

}  // namespace ptc::builtins
