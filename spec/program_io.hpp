// What both runners (the corpus and tests/lang) need: a file's text, a run
// that reports an engine exception as a failed run instead of ending the
// whole suite, and a program shown in a report.
#pragma once

#include <exception>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace spec {

inline std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Set by --isolate: every case then runs in a jailed worker process.
inline std::shared_ptr<ptc::Isolation>& runner_isolation() {
  static std::shared_ptr<ptc::Isolation> isolation;
  return isolation;
}

inline ptc::Step run_guarded(std::string_view program, const ptc::RunOptions& options) {
  try {
    if (runner_isolation()) {
      ptc::RunOptions isolated = options;
      isolated.isolate = runner_isolation();
      return ptc::run(program, isolated);
    }
    return ptc::run(program, options);
  } catch (const std::exception& e) {
    ptc::Step r;
    r.ok = false;
    r.error.kind = ptc::ErrorKind::RuntimeError;
    r.error.message = std::string("ptc::run threw: ") + e.what();
    return r;
  }
}

// The program's lines after the first indented under a `    program: ` label.
inline std::string indent_program(const std::string& program) {
  std::string out;
  for (char ch : program) {
    out.push_back(ch);
    if (ch == '\n') out += "             ";
  }
  return out;
}

}  // namespace spec
