// Signatures (PtcRunner v0.13.0, docs/signature-syntax.md): checking values.
//
// Checking (the first mismatch wins; map fields in signature order, list
// elements in order):
//   - :any matches everything, nil included; a `?` type also matches nil.
//   - A `{..}` field is found under the keyword or string key of its name,
//     or of its name with '-' and '_' swapped (user_id matches :user-id,
//     "user_id", ...), as PtcRunner's validator does. Extra keys are
//     allowed; a missing field is an error unless its type has `?`.
//   - [T] needs a vector (a set is not a list); :map and {..} need a map.
//   - :int accepts integers of any size; :float accepts floats and integers;
//     :keyword accepts keywords and strings that are valid keyword names
//     (PtcRunner's externalized keywords); :datetime accepts ISO 8601 text
//     with an offset ("Z" or +HH:MM), naive text is rejected.
//
// Coercion. Strict (check_output, as PtcRunner's return validation, which
// the spec calls "strict - no coercion applied") changes nothing except
// :datetime text, which becomes canonical UTC ("2026-05-03T11:14:00+02:00"
// -> "2026-05-03T09:14:00Z"; PtcRunner turns it into a UTC DateTime, whose
// JSON form this is). An integer matching :float stays an integer there.
// Lenient (check_inputs, the spec's "Coercion Rules" for inputs) also does,
// each with a warning "path: coerced ..." unless marked silent:
//   "42" -> :int 42 (also "-5", "+7"; beyond int64 a bigint)
//   "3.14" -> :float 3.14 (surrounding whitespace trimmed; "42" -> 42.0)
//   42 -> :float 42.0 (silent)
//   "true"/"false" -> :bool
//   :atom -> :string "atom";  "name" -> :keyword :name (valid keyword names)
//   :datetime with a non-UTC offset is shifted to UTC (warned)
// Deviations from PtcRunner's code, on purpose: a quoted float must be the
// whole (trimmed) string (its code accepts a leading number, "12abc" -> 12.0);
// nil never matches :keyword (an Elixir artifact there); lenient coercion
// keeps undeclared map keys instead of dropping them; Strict mode reports the
// first mismatch only, not all of them.
#include "runtime/signature.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "runtime/datetime_text.hpp"
#include "runtime/host_preview.hpp"
#include "runtime/numbers.hpp"

namespace ptc {
namespace {

using Kind = SigType::Kind;
using HKind = HostValue::Kind;

// ---- Value descriptions for messages

constexpr size_t kPreviewLimit = 48;  // bytes of a value shown after "got"

// "int 5", "string \"abc\"": the kind of a value and its preview (nil and
// opaque values are their preview alone).
std::string describe(const HostValue& v) {
  std::string shown = host_preview(v, kPreviewLimit);
  switch (v.kind()) {
    case HKind::Nil:
    case HKind::Opaque:
      return shown;
    case HKind::Bool:
      return "bool " + shown;
    case HKind::Int:
    case HKind::BigInt:
      return "int " + shown;
    case HKind::Float:
      return "float " + shown;
    case HKind::String:
      return "string " + shown;
    case HKind::Keyword:
      return "keyword " + shown;
    case HKind::Vector:
      return "vector " + shown;
    case HKind::Map:
      return "map " + shown;
    case HKind::Set:
      return "set " + shown;
  }
  return shown;
}

std::string quoted(std::string_view s) {
  std::string out;
  append_host_preview(out, HostValue::string(std::string(s)), 64);
  return out;
}

std::string type_text(const SigType& t) {
  std::string out = to_string(t);
  if (out.size() > 100) {
    out.resize(97);
    out += "...";
  }
  return out;
}

// ---- Scalar coercions and checks

// Optional sign and decimal digits, nothing else (no spaces).
std::optional<HostValue> parse_integer(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  while (s.size() > 1 && s[0] == '0')
    s.remove_prefix(1);
  std::string text = negative && s != "0" ? "-" + std::string(s) : std::string(s);
  int64_t i = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && end == text.data() + text.size()) return HostValue::integer(i);
  return HostValue::bigint(std::move(text));
}

// A decimal float after trimming whitespace.
std::optional<double> parse_float(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  size_t from = s.find_first_not_of(kSpace);
  if (from == std::string_view::npos) return std::nullopt;
  return parse_decimal_float(s.substr(from, s.find_last_not_of(kSpace) + 1 - from));
}

double bigint_to_double(const std::string& decimal) {
  return std::strtod(decimal.c_str(), nullptr);
}

// ---- Checking

// The value slot of a map's field, found under the keyword or string key of
// the field's name or its '-'/'_' variants (PtcRunner's lookup order).
class FieldFinder {
 public:
  explicit FieldFinder(const std::vector<HostValue>& items) : items_(items) {}

  std::optional<size_t> find(std::string_view name) {
    std::string underscored(name), hyphenated(name);
    for (char& c : underscored)
      if (c == '-') c = '_';
    for (char& c : hyphenated)
      if (c == '_') c = '-';
    std::string_view candidates[3] = {underscored, name, hyphenated};
    for (size_t k = 0; k < 3; ++k) {
      bool seen = false;
      for (size_t j = 0; j < k; ++j)
        seen = seen || candidates[j] == candidates[k];
      if (seen) continue;
      if (auto at = lookup(HKind::Keyword, candidates[k])) return at;
      if (auto at = lookup(HKind::String, candidates[k])) return at;
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kIndexFrom = 16;  // entries; smaller maps are scanned

  std::optional<size_t> lookup(HKind kind, std::string_view name) {
    if (items_.size() / 2 < kIndexFrom) {
      for (size_t i = 0; i + 1 < items_.size(); i += 2)
        if (items_[i].kind() == kind && items_[i].text() == name) return i + 1;
      return std::nullopt;
    }
    if (!indexed_) {
      indexed_ = true;
      for (size_t i = 0; i + 1 < items_.size(); i += 2) {
        HKind k = items_[i].kind();
        if (k == HKind::Keyword) keywords_.emplace(items_[i].text(), i + 1);
        if (k == HKind::String) strings_.emplace(items_[i].text(), i + 1);
      }
    }
    auto& index = kind == HKind::Keyword ? keywords_ : strings_;
    auto it = index.find(name);
    if (it == index.end()) return std::nullopt;
    return it->second;
  }

  const std::vector<HostValue>& items_;
  bool indexed_ = false;
  std::unordered_map<std::string_view, size_t> keywords_, strings_;
};

class Checker {
 public:
  Checker(CheckMode mode, SignatureCheck& out) : lenient_(mode == CheckMode::Lenient), out_(out) {}

  // False on a mismatch (recorded in out_). When the value was coerced,
  // `replaced` holds the new one.
  bool check(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.is_nil()) return t.optional || t.kind == Kind::Any ? true : mismatch(t, v);
    HKind k = v.kind();
    switch (t.kind) {
      case Kind::Any:
        return true;
      case Kind::String:
        if (k == HKind::String) return true;
        if (lenient_ && k == HKind::Keyword)
          return coerced(replaced, HostValue::string(v.text()), "keyword :" + v.text(), "string");
        return mismatch(t, v);
      case Kind::Int:
        if (k == HKind::Int || k == HKind::BigInt) return true;
        if (auto n = lenient_ && k == HKind::String ? parse_integer(v.text()) : std::nullopt)
          return coerced(replaced, std::move(*n), "string " + quoted(v.text()), "int");
        return mismatch(t, v);
      case Kind::Float:
        if (k == HKind::Float) return true;
        if (k == HKind::Int || k == HKind::BigInt) {
          if (lenient_)
            replaced = HostValue::floating(k == HKind::Int ? static_cast<double>(v.as_int())
                                                           : bigint_to_double(v.text()));
          return true;
        }
        if (auto d = lenient_ && k == HKind::String ? parse_float(v.text()) : std::nullopt)
          return coerced(replaced, HostValue::floating(*d), "string " + quoted(v.text()), "float");
        return mismatch(t, v);
      case Kind::Bool:
        if (k == HKind::Bool) return true;
        if (lenient_ && k == HKind::String && (v.text() == "true" || v.text() == "false"))
          return coerced(replaced, HostValue::boolean(v.text() == "true"),
                         "string \"" + v.text() + "\"", "bool");
        return mismatch(t, v);
      case Kind::Keyword:
        if (k == HKind::Keyword) return true;
        if (k == HKind::String && is_keyword_name(v.text())) {
          if (!lenient_) return true;  // strict: a keyword name matches as it is
          return coerced(replaced, HostValue::keyword(v.text()), "string " + quoted(v.text()),
                         "keyword");
        }
        return mismatch(t, v);
      case Kind::DateTime:
        return check_datetime(t, v, replaced);
      case Kind::Map:
        return k == HKind::Map ? true : mismatch(t, v);
      case Kind::List:
        return check_list(t, v, replaced);
      case Kind::Struct:
        return check_struct(t, v, replaced);
    }
    return true;
  }

 private:
  struct Segment {
    std::string_view field;
    size_t index = 0;
    bool is_index = false;
  };

  std::string path_text(size_t segments) const {
    std::string out;
    for (size_t i = 0; i < segments && i < path_.size(); ++i) {
      const Segment& s = path_[i];
      if (s.is_index) {
        out += fmt::format("[{}]", s.index);
      } else {
        if (!out.empty()) out += '.';
        out += s.field;
      }
    }
    return out;
  }

  bool mismatch(const SigType& t, const HostValue& v, std::string_view detail = {}) {
    out_.ok = false;
    out_.path = path_text(path_.size());
    out_.message =
        fmt::format("expected {}{}{}, got {}{}{}", type_text(t), out_.path.empty() ? "" : " at ",
                    out_.path, describe(v), detail.empty() ? "" : "; ", detail);
    return false;
  }

  bool missing(const SigType& t, std::string_view name) {
    out_.ok = false;
    out_.path = path_text(path_.size());
    std::string parent = path_text(path_.size() - 1);
    out_.message = fmt::format("missing required field {} ({}){}{}", name, type_text(t),
                               parent.empty() ? "" : " in ", parent);
    return false;
  }

  void warn(std::string text) {
    std::string path = path_text(path_.size());
    out_.warnings.push_back(path.empty() ? std::move(text) : path + ": " + text);
  }

  // A lenient coercion: `to` replaces the value, with a warning.
  bool coerced(std::optional<HostValue>& replaced, HostValue to, std::string_view from,
               std::string_view type) {
    warn(fmt::format("coerced {} to {}", from, type));
    replaced = std::move(to);
    return true;
  }

  bool check_datetime(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::String)
      return mismatch(t, v,
                      "a datetime is ISO 8601 text with an offset, e.g. 2026-05-03T09:14:00Z");
    DateTimeText dt = parse_datetime(v.text());
    if (!dt.ok)
      return mismatch(t, v,
                      dt.naive ? "a timezone offset is required: end it with Z or +HH:MM"
                               : "not an ISO 8601 date-time such as 2026-05-03T09:14:00Z");
    if (dt.utc != v.text()) {
      if (lenient_ && dt.offset_minutes != 0)
        warn(fmt::format("normalized datetime {} to UTC", quoted(v.text())));
      replaced = HostValue::string(std::move(dt.utc));
    }
    return true;
  }

  bool check_list(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::Vector) return mismatch(t, v);
    static const SigType kAny;
    const SigType& element = t.element ? *t.element : kAny;
    const auto& items = v.items();
    std::vector<HostValue> copy;
    bool changed = false;
    for (size_t i = 0; i < items.size(); ++i) {
      path_.push_back({{}, i, true});
      std::optional<HostValue> r;
      if (!check(element, items[i], r)) return false;
      path_.pop_back();
      if (!r) continue;
      if (!changed) {
        copy = items;
        changed = true;
      }
      copy[i] = std::move(*r);
    }
    if (changed) replaced = HostValue::vector(std::move(copy));
    return true;
  }

  bool check_struct(const SigType& t, const HostValue& v, std::optional<HostValue>& replaced) {
    if (v.kind() != HKind::Map) return mismatch(t, v);
    static const SigType kAny;
    const auto& items = v.items();
    FieldFinder finder(items);
    std::vector<std::pair<size_t, HostValue>> changes;
    for (const auto& [name, type] : t.fields) {
      const SigType& ft = type ? *type : kAny;
      std::optional<size_t> at = finder.find(name);
      path_.push_back({name, 0, false});
      if (!at) {
        if (!ft.optional) return missing(ft, name);
        path_.pop_back();
        continue;
      }
      std::optional<HostValue> r;
      if (!check(ft, items[*at], r)) return false;
      path_.pop_back();
      if (r) changes.emplace_back(*at, std::move(*r));
    }
    if (!changes.empty()) {
      std::vector<HostValue> flat = items;
      for (auto& [i, value] : changes)
        flat[i] = std::move(value);
      std::vector<std::pair<HostValue, HostValue>> entries;
      entries.reserve(flat.size() / 2);
      for (size_t i = 0; i + 1 < flat.size(); i += 2)
        entries.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
      replaced = HostValue::map(std::move(entries));
    }
    return true;
  }

  bool lenient_;
  SignatureCheck& out_;
  std::vector<Segment> path_;
};

}  // namespace

SignatureCheck check_value(const SigType& type, const HostValue& value, CheckMode mode) {
  SignatureCheck out;
  Checker checker(mode, out);
  std::optional<HostValue> replaced;
  if (checker.check(type, value, replaced)) {
    out.ok = true;
    out.value = replaced ? std::move(*replaced) : value;
  }
  return out;
}

SignatureCheck check_output(const Signature& sig, const HostValue& value) {
  if (!sig.output) {
    SignatureCheck out;
    out.value = value;
    return out;
  }
  return check_value(*sig.output, value, CheckMode::Strict);
}

SignatureCheck check_inputs(const Signature& sig, const HostValue& args) {
  SigType params;
  params.kind = Kind::Struct;
  params.fields = sig.inputs;
  return check_value(params, args.is_nil() ? HostValue::map({}) : args, CheckMode::Lenient);
}

}  // namespace ptc
