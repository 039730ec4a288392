// Small helpers over the Node-API C interface: errors become C++ exceptions
// inside the addon (JsPending once a JS exception is pending), and every
// entry point catches them before returning to node (guard), so no C++
// exception ever crosses into the JS engine.
#pragma once

#include <node_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <string_view>

namespace ptc::node {

// A JS exception is pending on the env; the entry point returns nullptr.
struct JsPending {};

[[noreturn]] inline void throw_pending() {
  throw JsPending{};
}

[[noreturn]] inline void throw_type_error(napi_env env, const std::string& message) {
  napi_throw_type_error(env, nullptr, message.c_str());
  throw_pending();
}

[[noreturn]] inline void throw_range_error(napi_env env, const std::string& message) {
  napi_throw_range_error(env, nullptr, message.c_str());
  throw_pending();
}

[[noreturn]] inline void throw_error(napi_env env, const std::string& message) {
  napi_throw_error(env, nullptr, message.c_str());
  throw_pending();
}

// Turns a failed Node-API call into a pending JS exception (when the call
// did not leave one already) and unwinds.
inline void check(napi_env env, napi_status status) {
  if (status == napi_ok) return;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) {
    const napi_extended_error_info* info = nullptr;
    napi_get_last_error_info(env, &info);
    std::string message = "ptc-lisp: Node-API call failed";
    if (info && info->error_message) message += std::string(": ") + info->error_message;
    napi_throw_error(env, nullptr, message.c_str());
  }
  throw_pending();
}

// Runs `f` and hands node its value, or nullptr with a JS exception pending.
template <class F>
napi_value guard(napi_env env, F&& f) {
  try {
    return f();
  } catch (const JsPending&) {
  } catch (const std::bad_alloc&) {
    napi_throw_error(env, nullptr, "ptc-lisp: out of memory");
  } catch (const std::exception& e) {
    napi_throw_error(env, nullptr, (std::string("ptc-lisp: ") + e.what()).c_str());
  } catch (...) {
    napi_throw_error(env, nullptr, "ptc-lisp: unexpected internal error");
  }
  return nullptr;
}

inline napi_valuetype type_of(napi_env env, napi_value v) {
  napi_valuetype t = napi_undefined;
  check(env, napi_typeof(env, v, &t));
  return t;
}

inline std::string_view type_name(napi_valuetype t) {
  switch (t) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean:
      return "boolean";
    case napi_number:
      return "number";
    case napi_string:
      return "string";
    case napi_symbol:
      return "symbol";
    case napi_object:
      return "object";
    case napi_function:
      return "function";
    case napi_external:
      return "external";
    case napi_bigint:
      return "bigint";
  }
  return "value";
}

inline std::string string_of(napi_env env, napi_value v) {
  // One call for a short string (most programs and names); a longer one, or
  // one cut before a character that did not fit whole, is asked its length.
  char small[256];
  size_t length = 0;
  check(env, napi_get_value_string_utf8(env, v, small, sizeof small, &length));
  if (length + 4 < sizeof small) return std::string(small, length);
  check(env, napi_get_value_string_utf8(env, v, nullptr, 0, &length));
  std::string out(length, '\0');
  check(env, napi_get_value_string_utf8(env, v, out.data(), length + 1, &length));
  return out;
}

inline napi_value js_string(napi_env env, std::string_view s) {
  napi_value out = nullptr;
  check(env, napi_create_string_utf8(env, s.data(), s.size(), &out));
  return out;
}

inline napi_value js_bool(napi_env env, bool b) {
  napi_value out = nullptr;
  check(env, napi_get_boolean(env, b, &out));
  return out;
}

inline napi_value js_number(napi_env env, double d) {
  napi_value out = nullptr;
  check(env, napi_create_double(env, d, &out));
  return out;
}

inline napi_value js_null(napi_env env) {
  napi_value out = nullptr;
  check(env, napi_get_null(env, &out));
  return out;
}

inline napi_value js_undefined(napi_env env) {
  napi_value out = nullptr;
  check(env, napi_get_undefined(env, &out));
  return out;
}

inline napi_value named(napi_env env, napi_value object, const char* name) {
  napi_value out = nullptr;
  check(env, napi_get_named_property(env, object, name, &out));
  return out;
}

// Calls fn(key, value) for each own enumerable string-keyed property of
// `object`, in order (what Object.keys lists).
template <class Fn>
void for_each_property(napi_env env, napi_value object, Fn&& fn) {
  napi_value keys = nullptr;
  check(env, napi_get_all_property_names(
                 env, object, napi_key_own_only,
                 static_cast<napi_key_filter>(napi_key_enumerable | napi_key_skip_symbols),
                 napi_key_numbers_to_strings, &keys));
  uint32_t count = 0;
  check(env, napi_get_array_length(env, keys, &count));
  for (uint32_t i = 0; i < count; ++i) {
    napi_value key = nullptr;
    napi_value value = nullptr;
    check(env, napi_get_element(env, keys, i, &key));
    check(env, napi_get_property(env, object, key, &value));
    fn(key, value);
  }
}

inline bool is_array(napi_env env, napi_value v) {
  bool array = false;
  check(env, napi_is_array(env, v, &array));
  return array;
}

// A TypeError "<what> must be an object<expected>, got <type>" unless `v` is
// an object that is not an array.
inline void require_object(napi_env env, napi_value v, const std::string& what,
                           std::string_view expected = {}) {
  napi_valuetype t = type_of(env, v);
  if (t == napi_object && !is_array(env, v)) return;
  throw_type_error(env, what + " must be an object" + std::string(expected) + ", got " +
                            (t == napi_object ? std::string("array") : std::string(type_name(t))));
}

// An entry point's arguments: the first N, undefined where not given.
template <size_t N>
void arguments(napi_env env, napi_callback_info info, napi_value (&argv)[N]) {
  size_t argc = N;
  check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  for (size_t i = argc; i < N; ++i)
    argv[i] = js_undefined(env);
}

inline napi_value first_argument(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  arguments(env, info, argv);
  return argv[0];
}

// A property of an object literal built with napi_define_properties.
inline napi_property_descriptor field(const char* name, napi_value value) {
  return {name, nullptr, nullptr, nullptr, nullptr, value, napi_default_jsproperty, nullptr};
}

// A JS array with one object per item, whose properties fields(item) gives
// (a std::array of field()s).
template <class Items, class Fields>
napi_value objects_array(napi_env env, const Items& items, Fields&& fields) {
  napi_value out = nullptr;
  check(env, napi_create_array_with_length(env, std::size(items), &out));
  uint32_t i = 0;
  for (const auto& item : items) {
    napi_value entry = nullptr;
    check(env, napi_create_object(env, &entry));
    auto properties = fields(item);
    check(env, napi_define_properties(env, entry, std::size(properties), properties.data()));
    check(env, napi_set_element(env, out, i++, entry));
  }
  return out;
}

}  // namespace ptc::node
