// JSON helpers (spec §3.8): json/parse-string, json/parse-lines,
// json/generate-string. All three signal failure with nil instead of an error
// (DIV-23, DIV-24), since a program has no way to catch one. Only the run's
// own limits (memory, time, nesting) still end the run.
//
// Parsing goes through the host JSON parser and imports the result into the
// arena; objects become string-keyed maps. Encoding walks the runtime value
// directly, so it can refuse what has no faithful JSON form before writing
// anything and can charge the work and the output size as it goes.
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/bignum.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/host_value.hpp"
#include "runtime/objects.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

bool is_resource_limit(ErrorKind k) {
  return k == ErrorKind::MemoryLimit || k == ErrorKind::Timeout;
}

// A lower bound on the arena bytes the parsed document will take: every
// array/object opener and every separator outside strings becomes at least
// one 16-byte slot. Checked before parsing so that a huge document is refused
// before the host-side tree is built.
size_t import_lower_bound(std::string_view json) {
  size_t slots = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{' || c == ',') {
      ++slots;
    }
  }
  return slots * sizeof(Value);
}

// nil for anything that is not a JSON document, and for JSON null.
Value parse_document(Ctx& ctx, std::string_view text) {
  ctx.tick(1 + static_cast<int64_t>(text.size() / 16));
  ctx.arena.reserve_check(import_lower_bound(text));
  try {
    return import_value(ctx, parse_json(text));
  } catch (const LispError& e) {
    if (is_resource_limit(e.error().kind)) throw;
    return Value();
  }
}

Value parse_string(Ctx& ctx, const Value* a, uint32_t) {
  if (!a[0].is_string()) return Value();
  return parse_document(ctx, a[0].str()->view());
}

bool blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\f' && c != '\v') return false;
  return true;
}

// One value per non-blank line (\n, \r\n or \r ends a line).
Value parse_lines(Ctx& ctx, const Value* a, uint32_t) {
  if (!a[0].is_string()) return Value();
  std::string_view text = a[0].str()->view();
  VecBuilder out(ctx.arena);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ctx.tick();
    if (!blank(line)) out.push(parse_document(ctx, line));
    if (end == text.size()) break;
    pos = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
  }
  return Value::object(out.finish());
}

// Writes JSON for a runtime value, or reports that it has no JSON form.
class JsonWriter {
 public:
  explicit JsonWriter(Ctx& ctx) : ctx_(ctx) {}

  bool value(Value v) {
    ctx_.tick();
    switch (v.type()) {
      case Type::Nil:
        out_ += "null";
        return true;
      case Type::Bool:
        out_ += v.as_bool() ? "true" : "false";
        return true;
      case Type::Int:
        integer(v.as_int());
        return true;
      case Type::BigInt:
        out_ += bigint_to_string(v.big());
        return true;
      case Type::Float:
        return floating(v.as_float());
      case Type::String:
        string(v.str()->view());
        return check_size();
      case Type::Vector:
        return sequence(v, '[', ']');
      case Type::Set:
        return sequence(v, '[', ']');
      case Type::Map:
        return map(v);
      case Type::Opaque:
        return temporal(v.as<const OpaqueObj>());
      default:  // keywords (DIV-24), symbols, functions, regexes, vars
        return false;
    }
  }

  std::string_view text() const { return out_; }

 private:
  void integer(int64_t i) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, i);
    out_.append(buf, r.ptr);
  }

  bool floating(double d) {
    if (!std::isfinite(d)) return false;  // NaN and the infinities are not JSON numbers
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
    out_ += s;
    if (s.find_first_of(".e") == std::string_view::npos) out_ += ".0";
    return true;
  }

  void string(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    // Escaping can make the text up to six times longer (\u0001 for one
    // byte): check the escaped length against the heap left before writing.
    size_t escaped = s.size() + 2;
    for (char ch : s) {
      auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == '"' || c == '\\') escaped += 5;
    }
    ctx_.arena.reserve_check(out_.size() + escaped);
    out_.push_back('"');
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.substr(run, i - run));
      run = i + 1;
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\f':
          out_ += "\\f";
          break;
        default:
          out_ += "\\u00";
          out_.push_back(kHex[c >> 4]);
          out_.push_back(kHex[c & 15]);
      }
    }
    out_.append(s.substr(run));
    out_.push_back('"');
  }

  // Only string and integer keys have a JSON form; integers are written as
  // strings. Keyword, float, nil, boolean and collection keys do not (DIV-24).
  bool key(Value k) {
    switch (k.type()) {
      case Type::String:
        string(k.str()->view());
        return true;
      case Type::Int:
        out_.push_back('"');
        integer(k.as_int());
        out_.push_back('"');
        return true;
      case Type::BigInt:
        out_.push_back('"');
        out_ += bigint_to_string(k.big());
        out_.push_back('"');
        return true;
      default:
        return false;
    }
  }

  bool sequence(Value v, char open, char close) {
    check_native_stack("encoding nested JSON");
    out_.push_back(open);
    bool first = true;
    auto item = [&](Value x) {
      if (!first) out_.push_back(',');
      first = false;
      return value(x);
    };
    if (v.is_vector()) {
      for (VecIter it(v.vec()); !it.done(); it.next())
        if (!item(it.value())) return false;
    } else {
      for (HashIter it(v.set()); !it.done(); it.next())
        if (!item(it.key())) return false;
    }
    out_.push_back(close);
    return check_size();
  }

  bool map(Value v) {
    check_native_stack("encoding nested JSON");
    out_.push_back('{');
    bool first = true;
    for (HashIter it(v.map()); !it.done(); it.next()) {
      if (!first) out_.push_back(',');
      first = false;
      if (!key(it.key())) return false;
      out_.push_back(':');
      if (!value(it.val())) return false;
    }
    out_.push_back('}');
    return check_size();
  }

  // Dates and date-times are written as their ISO-8601 text, as Cheshire
  // does; other host objects (durations) have no JSON form.
  bool temporal(const OpaqueObj* o) {
    std::string_view kind = o->vt->type_name;
    if (kind != "LocalDate" && kind != "DateTime") return false;
    std::string iso;
    o->vt->print(o, iso, false);
    string(iso);
    return true;
  }

  // The text ends up in the arena: refuse early once it could not fit, so a
  // value that shares structure many times over cannot expand unchecked.
  bool check_size() {
    if (out_.size() - checked_ >= kCheckEvery) {
      ctx_.arena.reserve_check(out_.size());
      ctx_.tick(static_cast<int64_t>((out_.size() - checked_) / 64));
      checked_ = out_.size();
    }
    return true;
  }

  static constexpr size_t kCheckEvery = 16 * 1024;
  Ctx& ctx_;
  std::string out_;
  size_t checked_ = 0;
};

Value generate_string(Ctx& ctx, const Value* a, uint32_t) {
  JsonWriter w(ctx);
  if (!w.value(a[0])) return Value();
  return ctx.string(w.text());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Json, "json/parse-string", 1, 1, parse_string, "(json/parse-string s)", "Parses JSON text; objects become string-keyed maps. nil for invalid input or JSON null."),
    PTC_BUILTIN(Json, "json/parse-lines", 1, 1, parse_lines, "(json/parse-lines s)", "Parses each non-blank line as JSON into a vector; a bad line gives nil in its place."),
    PTC_BUILTIN(Json, "json/generate-string", 1, 1, generate_string, "(json/generate-string v)", "JSON text for v; nil when v holds keywords, non-string/integer map keys, NaN or functions."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> json_fns() {
  return kDefs;
}

}  // namespace ptc::builtins
