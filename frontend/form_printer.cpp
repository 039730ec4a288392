// Forms back to source text that reads as the same forms. Memory uses it to
// carry a function to a later run as the source of its `fn` form.
#include <charconv>
#include <cmath>
#include <string>

#include "frontend/form.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

void print_float(double d, std::string& out) {
  if (std::isnan(d)) {
    out += "##NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d > 0 ? "##Inf" : "##-Inf";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);  // shortest round-trip form
  std::string_view text(buf, static_cast<size_t>(end - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void print_items(const Form& f, size_t from, std::string& out) {
  for (size_t i = from; i < f.count; ++i) {
    if (i > from) out += ' ';
    print_form(*f.items[i], out);
  }
}

}  // namespace

void print_form(const Form& f, std::string& out) {
  check_native_stack("printing a deeply nested form");
  switch (f.kind) {
    case FormKind::Nil:
      out += "nil";
      return;
    case FormKind::Bool:
      out += f.b ? "true" : "false";
      return;
    case FormKind::Int:
      out += std::to_string(f.i);
      return;
    case FormKind::BigInt:
      out += f.text;
      out += 'N';
      return;
    case FormKind::Float:
      print_float(f.d, out);
      return;
    case FormKind::String:
      append_quoted(out, f.text);  // as pr-str: reads back as the same string
      return;
    case FormKind::Keyword:
      out += ':';
      out += f.text;
      return;
    case FormKind::Symbol: {
      // The analyzer's own heads ("fn ", "let ") end in a space no program
      // can write; they stand for the form of that name.
      std::string_view name = f.text;
      if (name.size() > 1 && name.back() == ' ') name.remove_suffix(1);
      out += name;
      return;
    }
    case FormKind::List:
      out += '(';
      print_items(f, 0, out);
      out += ')';
      return;
    case FormKind::Vector:
      out += '[';
      print_items(f, 0, out);
      out += ']';
      return;
    case FormKind::Map:
      out += '{';
      print_items(f, 0, out);
      out += '}';
      return;
    case FormKind::Set:
      out += "#{";
      print_items(f, 0, out);
      out += '}';
      return;
    case FormKind::FnLiteral:
      out += "#(";
      print_items(f, 0, out);
      out += ')';
      return;
    case FormKind::Regex:
      out += "#\"";
      out += f.text;  // the raw pattern, as written
      out += '"';
      return;
    case FormKind::VarQuote:
      out += "#'";
      out += f.text;
      return;
    case FormKind::Quote:
      out += '\'';
      out += f.text;
      return;
  }
}

std::string print_form(const Form& f) {
  std::string out;
  print_form(f, out);
  return out;
}

}  // namespace ptc
