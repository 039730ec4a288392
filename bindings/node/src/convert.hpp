// Values across the boundary, built directly from and into Node-API values
// (no JSON text in between): JS -> ptc::HostValue as JSON.stringify would see
// the value (toJSON honoured, undefined properties left out), plus BigInt;
// HostValue -> JS as JSON data (keywords become strings, sets arrays,
// integers beyond 2^53 BigInt, values with no data form their printed form).
#pragma once

#include <string>

#include "include/ptc/ptc.hpp"
#include "napi_util.hpp"

namespace ptc::node {

// Throws a TypeError (pending) naming where in `what` the value is not
// JSON-compatible: "context.users[2].at: a function is not ...".
HostValue to_host(napi_env env, napi_value value, const std::string& what);

// The same, but a conversion failure comes back as a message (empty on
// success: "at .rows[2]: a function is not ...") instead of a pending
// exception: for tool results and lisp_eval arguments.
std::string to_host_or_message(napi_env env, napi_value value, HostValue& out);

napi_value to_js(napi_env env, const HostValue& value);

}  // namespace ptc::node
