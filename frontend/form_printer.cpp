// Forms back to source text that reads as the same forms. Memory uses it to
// carry a function to a later run as the source of its `fn` form.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "frontend/form.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

// Appends to a string through a raw pointer: forms print as many short
// pieces (a name, a space, a bracket), and std::string's append and
// push_back are calls into the library for each.
class Writer {
 public:
  Writer(std::string& out, bool as_written) : as_written(as_written), out_(out), n_(out.size()) {}
  ~Writer() { out_.resize(n_); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Collections with their source text (Form::text) are copied as written.
  const bool as_written;

  [[gnu::always_inline]] void put(char c) {
    reserve(1);
    out_[n_++] = c;
  }
  [[gnu::always_inline]] void put(std::string_view v) {
    reserve(v.size());
    char* p = out_.data() + n_;
    if (v.size() <= 16) {
      for (size_t i = 0; i < v.size(); ++i)
        p[i] = v[i];
    } else {
      std::memcpy(p, v.data(), v.size());
    }
    n_ += v.size();
  }
  void put_int(int64_t i) {
    reserve(24);
    auto [end, ec] = std::to_chars(out_.data() + n_, out_.data() + n_ + 24, i);
    n_ = static_cast<size_t>(end - out_.data());
  }
  // For the rare pieces printed by a function of std::string.
  template <class F>
  void put_with(F&& append) {
    out_.resize(n_);
    append(out_);
    n_ = out_.size();
  }

 private:
  [[gnu::always_inline]] void reserve(size_t more) {
    if (n_ + more > out_.size()) [[unlikely]]
      out_.resize(std::max(n_ + more, 2 * out_.size() + 64));
  }
  std::string& out_;
  size_t n_;
};

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

// The source a collection was read from, brackets and # included; "" for
// atoms and for the collections the analyzer made itself.
std::string_view written_text(const Form& f) {
  switch (f.kind) {
    case FormKind::List:
    case FormKind::Vector:
    case FormKind::Map:
    case FormKind::Set:
    case FormKind::FnLiteral:
      return f.text;
    default:
      return {};
  }
}

void print(const Form& f, Writer& out);

void print_items(const Form& f, char open, char close, Writer& out) {
  check_native_stack("printing a deeply nested form");
  out.put(open);
  for (size_t i = 0; i < f.count; ++i) {
    if (i > 0) out.put(' ');
    const Form& item = *f.items[i];
    // Most items are plain symbols: written here, without the call.
    if (item.kind == FormKind::Symbol && !item.text.ends_with(' '))
      out.put(item.text);
    else
      print(item, out);
  }
  out.put(close);
}

void print(const Form& f, Writer& out) {
  if (out.as_written)
    if (std::string_view text = written_text(f); !text.empty()) {
      out.put(text);
      return;
    }
  switch (f.kind) {
    case FormKind::Nil:
      out.put("nil");
      return;
    case FormKind::Bool:
      out.put(f.b ? "true" : "false");
      return;
    case FormKind::Int:
      out.put_int(f.i);
      return;
    case FormKind::BigInt:
      out.put(f.text);
      out.put('N');
      return;
    case FormKind::Float:
      out.put_with([&](std::string& s) { print_float(f.d, s); });
      return;
    case FormKind::String:
      if (needs_quoting_escape(f.text)) {
        out.put_with([&](std::string& s) { append_quoted(s, f.text); });  // as pr-str
      } else {
        out.put('"');
        out.put(f.text);
        out.put('"');
      }
      return;
    case FormKind::Keyword:
      out.put(':');
      out.put(f.text);
      return;
    case FormKind::Symbol: {
      // The analyzer's own heads ("fn ", "let ") end in a space no program
      // can write; they stand for the form of that name.
      std::string_view name = f.text;
      if (name.size() > 1 && name.back() == ' ') name.remove_suffix(1);
      out.put(name);
      return;
    }
    case FormKind::List:
      print_items(f, '(', ')', out);
      return;
    case FormKind::Vector:
      print_items(f, '[', ']', out);
      return;
    case FormKind::Map:
      print_items(f, '{', '}', out);
      return;
    case FormKind::Set:
      out.put('#');
      print_items(f, '{', '}', out);
      return;
    case FormKind::FnLiteral:
      out.put('#');
      print_items(f, '(', ')', out);
      return;
    case FormKind::Regex:
      out.put("#\"");
      out.put(f.text);  // the raw pattern, as written
      out.put('"');
      return;
    case FormKind::VarQuote:
      out.put("#'");
      out.put(f.text);
      return;
    case FormKind::Quote:
      out.put('\'');
      out.put(f.text);
      return;
  }
}

}  // namespace

void print_form(const Form& f, std::string& out) {
  Writer w(out, false);
  print(f, w);
}

void print_form_as_written(const Form& f, std::string& out) {
  if (std::string_view text = written_text(f); !text.empty()) {
    out += text;  // the common case: a whole collection as written
    return;
  }
  Writer w(out, true);
  print(f, w);
}

std::string print_form(const Form& f) {
  std::string out;
  print_form(f, out);
  return out;
}

}  // namespace ptc
