#include "convert.hpp"

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

namespace ptc::node {

namespace {

using Kind = HostValue::Kind;

// Deep enough for any real data, shallow enough for the native stack; a
// cycle ends here too.
constexpr int kMaxDepth = 500;
// 2^53: integers up to it are exact in a double.
constexpr double kMaxSafe = 9007199254740992.0;
// Number.MAX_SAFE_INTEGER: larger integers go out as BigInt.
constexpr int64_t kMaxSafeInt = (int64_t{1} << 53) - 1;

// A value with no JSON form; `path` is filled in as the error unwinds.
struct ConvertError {
  std::string path;
  std::string message;
};

HostValue convert(napi_env env, napi_value v, int depth);

HostValue from_number(napi_env env, napi_value v) {
  double d = 0;
  check(env, napi_get_value_double(env, v, &d));
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= kMaxSafe)
    return HostValue::integer(static_cast<int64_t>(d));
  if (!std::isfinite(d))
    throw ConvertError{{}, std::isnan(d) ? "NaN has no JSON form" : "Infinity has no JSON form"};
  return HostValue::floating(d);
}

HostValue from_bigint(napi_env env, napi_value v) {
  int64_t i = 0;
  bool lossless = false;
  check(env, napi_get_value_bigint_int64(env, v, &i, &lossless));
  if (lossless) return HostValue::integer(i);
  napi_value text = nullptr;
  check(env, napi_coerce_to_string(env, v, &text));
  return HostValue::bigint(string_of(env, text));
}

HostValue from_array(napi_env env, napi_value v, int depth) {
  uint32_t length = 0;
  check(env, napi_get_array_length(env, v, &length));
  std::vector<HostValue> items;
  items.reserve(length);
  for (uint32_t i = 0; i < length; ++i) {
    napi_value item = nullptr;
    check(env, napi_get_element(env, v, i, &item));
    try {
      // JSON.stringify writes null for holes, undefined and functions in
      // arrays; a function is refused here, as elsewhere.
      items.push_back(convert(env, item, depth + 1));
    } catch (ConvertError& e) {
      e.path = "[" + std::to_string(i) + "]" + e.path;
      throw;
    }
  }
  return HostValue::vector(std::move(items));
}

HostValue from_object(napi_env env, napi_value v, int depth) {
  if (is_array(env, v)) return from_array(env, v, depth);
  napi_value to_json = nullptr;
  check(env, napi_get_named_property(env, v, "toJSON", &to_json));
  if (type_of(env, to_json) == napi_function) {  // Date and friends, as JSON.stringify
    napi_value key = js_string(env, "");
    napi_value replaced = nullptr;
    check(env, napi_call_function(env, v, to_json, 1, &key, &replaced));
    return convert(env, replaced, depth + 1);
  }
  std::vector<std::pair<HostValue, HostValue>> entries;
  for_each_property(env, v, [&](napi_value key, napi_value value) {
    if (type_of(env, value) == napi_undefined) return;  // as JSON.stringify
    std::string name = string_of(env, key);
    try {
      HostValue converted = convert(env, value, depth + 1);
      entries.emplace_back(HostValue::string(std::move(name)), std::move(converted));
    } catch (ConvertError& e) {
      e.path = "." + name + e.path;
      throw;
    }
  });
  return HostValue::map(std::move(entries));
}

HostValue convert(napi_env env, napi_value v, int depth) {
  if (depth > kMaxDepth)
    throw ConvertError{{},
                       "nested deeper than " + std::to_string(kMaxDepth) + " levels (a cycle?)"};
  napi_valuetype t = type_of(env, v);
  switch (t) {
    case napi_undefined:
    case napi_null:
      return HostValue::nil();
    case napi_boolean: {
      bool b = false;
      check(env, napi_get_value_bool(env, v, &b));
      return HostValue::boolean(b);
    }
    case napi_number:
      return from_number(env, v);
    case napi_string:
      return HostValue::string(string_of(env, v));
    case napi_bigint:
      return from_bigint(env, v);
    case napi_object:
      return from_object(env, v, depth);
    case napi_symbol:
    case napi_function:
    case napi_external:
      break;
  }
  throw ConvertError{{},
                     std::string("a ") + std::string(type_name(t)) +
                         " is not a JSON-compatible value (objects, arrays, strings, "
                         "numbers, booleans, null)"};
}

}  // namespace

HostValue to_host(napi_env env, napi_value value, const std::string& what) {
  try {
    return convert(env, value, 0);
  } catch (const ConvertError& e) {
    throw_type_error(env, what + e.path + ": " + e.message);
  }
}

std::string to_host_or_message(napi_env env, napi_value value, HostValue& out) {
  try {
    out = convert(env, value, 0);
    return {};
  } catch (const ConvertError& e) {
    return (e.path.empty() ? "" : "at " + e.path + ": ") + e.message;
  } catch (const JsPending&) {
    // A getter or toJSON threw: its message becomes the tool's error.
    napi_value error = nullptr;
    napi_get_and_clear_last_exception(env, &error);
    napi_value text = nullptr;
    if (error && napi_coerce_to_string(env, error, &text) == napi_ok)
      return "reading it threw: " + string_of(env, text);
    return "reading it threw";
  }
}

namespace {

napi_value key_of(napi_env env, const HostValue& k) {
  switch (k.kind()) {
    case Kind::String:
    case Kind::Keyword:
      return js_string(env, k.text());
    case Kind::Int:
      return js_string(env, std::to_string(k.as_int()));
    case Kind::BigInt:
      return js_string(env, k.text());
    default:
      return js_string(env, format_value(k));
  }
}

napi_value to_js_at(napi_env env, const HostValue& h, int depth) {
  if (depth > kMaxDepth * 4) throw_error(env, "ptc-lisp: a result nested too deep to convert");
  napi_value out = nullptr;
  switch (h.kind()) {
    case Kind::Nil:
      return js_null(env);
    case Kind::Bool:
      return js_bool(env, h.as_bool());
    case Kind::Int: {
      int64_t i = h.as_int();
      if (i <= kMaxSafeInt && i >= -kMaxSafeInt) return js_number(env, static_cast<double>(i));
      check(env, napi_create_bigint_int64(env, i, &out));
      return out;
    }
    case Kind::BigInt: {
      // Digits to a BigInt through the global BigInt function.
      napi_value global = nullptr;
      check(env, napi_get_global(env, &global));
      napi_value fn = named(env, global, "BigInt");
      napi_value digits = js_string(env, h.text());
      check(env, napi_call_function(env, global, fn, 1, &digits, &out));
      return out;
    }
    case Kind::Float:
      return js_number(env, h.as_float());
    case Kind::String:
    case Kind::Keyword:
    case Kind::Opaque:
      return js_string(env, h.text());
    case Kind::Vector:
    case Kind::Set: {
      const auto& items = h.items();
      check(env, napi_create_array_with_length(env, items.size(), &out));
      for (size_t i = 0; i < items.size(); ++i)
        check(env, napi_set_element(env, out, static_cast<uint32_t>(i),
                                    to_js_at(env, items[i], depth + 1)));
      return out;
    }
    case Kind::Map: {
      const auto& items = h.items();
      check(env, napi_create_object(env, &out));
      for (size_t i = 0; i + 1 < items.size(); i += 2)
        check(env, napi_set_property(env, out, key_of(env, items[i]),
                                     to_js_at(env, items[i + 1], depth + 1)));
      return out;
    }
  }
  return js_null(env);
}

}  // namespace

napi_value to_js(napi_env env, const HostValue& value) {
  return to_js_at(env, value, 0);
}

}  // namespace ptc::node
