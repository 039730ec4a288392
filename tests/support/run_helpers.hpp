// Test helpers: run a program and get its printed value, or its error.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "include/ptc/ptc.hpp"

namespace ptc::testing {

// The printed result (Clojure syntax, display floats); the error text if it failed.
inline std::string eval(const std::string& src, const RunOptions& opts = {}) {
  Step r = run(src, opts);
  if (!r.ok) return "ERROR " + std::string(reason_name(r.error.kind)) + ": " + r.error.message;
  return r.printed;
}

// The error of a program that must fail.
inline Error eval_error(const std::string& src, const RunOptions& opts = {}) {
  Step r = run(src, opts);
  EXPECT_FALSE(r.ok) << src << " unexpectedly gave " << r.printed;
  return r.error;
}

}  // namespace ptc::testing
