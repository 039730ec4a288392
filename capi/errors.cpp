#include "capi/errors.hpp"

#include <fmt/format.h>

#include <exception>

namespace ptc::capi {

namespace {

struct LastError {
  ptc_status status = PTC_OK;
  std::string message;
  // Shown instead of `message` when storing it failed (out of memory).
  const char* fixed = nullptr;
};

LastError& last_error() {
  thread_local LastError error;
  return error;
}

HostValue json_of_kind(std::string_view json, const char* name, HostValue::Kind kind,
                       const char* wanted) {
  HostValue h = json_arg(json, name);
  if (h.kind() != kind)
    throw InvalidArgument(
        fmt::format("{} must be a JSON {}, got {}", name, wanted, json_kind_name(h.kind())));
  return h;
}

ptc_status fail_internal(std::string_view what) noexcept {
  try {
    return fail(PTC_INTERNAL, fmt::format("internal error: {}", what));
  } catch (...) {
    return fail(PTC_INTERNAL, what);
  }
}

}  // namespace

ptc_status fail(ptc_status status, std::string_view message) noexcept {
  LastError& e = last_error();
  e.status = status;
  try {
    e.message.assign(message);
    e.fixed = nullptr;
  } catch (...) {
    e.fixed =
        status == PTC_OUT_OF_MEMORY ? "out of memory" : "(the error message did not fit in memory)";
  }
  return status;
}

void succeed() noexcept {
  LastError& e = last_error();
  e.status = PTC_OK;
  e.message.clear();
  e.fixed = nullptr;
}

ptc_status fail_current_exception() noexcept {
  try {
    throw;
  } catch (const InvalidArgument& e) {
    return fail(PTC_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(PTC_OUT_OF_MEMORY, "out of memory: the host process could not allocate");
  } catch (const LispError& e) {
    return fail_internal(e.error().describe());
  } catch (const std::exception& e) {
    return fail_internal(e.what());
  } catch (...) {
    return fail(PTC_INTERNAL, "internal error: an unknown exception");
  }
}

std::string_view text_arg(const char* text, size_t len, const char* name) {
  if (!text) {
    if (len == 0) return {};
    throw InvalidArgument(fmt::format("{} must not be NULL", name));
  }
  return len == PTC_NTS ? std::string_view(text) : std::string_view(text, len);
}

HostValue json_arg(std::string_view json, const char* name) {
  try {
    return parse_json(json);
  } catch (const LispError& e) {
    // "invalid JSON at line 1, column 9: ..." (parse_json says where).
    throw InvalidArgument(fmt::format("{}: {}", name, e.error().message));
  }
}

HostValue json_object_arg(std::string_view json, const char* name) {
  return json_of_kind(json, name, HostValue::Kind::Map, "object");
}

HostValue json_array_arg(std::string_view json, const char* name) {
  return json_of_kind(json, name, HostValue::Kind::Vector, "array");
}

}  // namespace ptc::capi

extern "C" {

const char* ptc_last_error(void) {
  auto& e = ptc::capi::last_error();
  return e.fixed ? e.fixed : e.message.c_str();
}

ptc_status ptc_last_status(void) {
  return ptc::capi::last_error().status;
}

const char* ptc_status_name(ptc_status status) {
  switch (status) {
    case PTC_OK:
      return "ok";
    case PTC_PROGRAM_ERROR:
      return "program_error";
    case PTC_INVALID_ARGUMENT:
      return "invalid_argument";
    case PTC_OUT_OF_MEMORY:
      return "out_of_memory";
    case PTC_INTERNAL:
      return "internal";
    case PTC_UNAVAILABLE:
      return "unavailable";
    default:
      break;
  }
  return "unknown";
}

}  // extern "C"
