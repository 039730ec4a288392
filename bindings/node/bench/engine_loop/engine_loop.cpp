// engine_loop.node: the baseline of bench/overhead.mjs. It calls ptc::run
// from C++ in a loop inside the node process that measures the package, so
// the binding's overhead is told apart from the engine's own time in that
// same process: same machine state, same malloc (node's glibc, where the ptc
// binary has mimalloc), the same libptc.a. Not part of the npm package.
//
//   meanUs(source, calls, compiled) -> mean µs per ptc::run over `calls` runs
//   (compiled: the program compiled once, as runSync(compile(source)) runs it)
#include <node_api.h>

#include <chrono>
#include <string>

#include "include/ptc/ptc.hpp"

namespace {

napi_value mean_us(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  size_t length = 0;
  napi_get_value_string_utf8(env, argv[0], nullptr, 0, &length);
  std::string source(length, '\0');
  napi_get_value_string_utf8(env, argv[0], source.data(), length + 1, &length);
  double calls = 0;
  napi_get_value_double(env, argv[1], &calls);
  bool compiled = false;
  napi_get_value_bool(env, argv[2], &compiled);

  ptc::RunOptions options;
  auto program = compiled ? ptc::compile(source, options) : nullptr;
  auto n = static_cast<long>(calls);
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    ptc::Step step = program ? ptc::run(*program, options) : ptc::run(source, options);
    if (!step.ok) {
      napi_throw_error(env, nullptr, step.error.message.c_str());
      return nullptr;
    }
  }
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  napi_value out = nullptr;
  napi_create_double(env, n > 0 ? us / static_cast<double>(n) : 0, &out);
  return out;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_value fn = nullptr;
  napi_create_function(env, "meanUs", NAPI_AUTO_LENGTH, mean_us, nullptr, &fn);
  napi_set_named_property(env, exports, "meanUs", fn);
  return exports;
}
