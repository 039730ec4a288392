// What the public Program and PreparedContext handles hold: values built
// once in memory of their own (an arena that lives as long as the handle),
// frozen (runtime/freeze.hpp), then only read by runs on any thread.
#pragma once

#include <memory>
#include <string>

#include "compiler/proto.hpp"
#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"

namespace ptc {

class Program : public std::enable_shared_from_this<Program> {
 public:
  Program(std::string source_text, const Limits& limits)
      : source(std::move(source_text)), ctx(limits) {}
  std::string source;  // the forms and the restorers' origins point into it
  Ctx ctx;             // arena and interner of the forms, constants and keywords
  std::unique_ptr<CompiledProgram> code;
};

class PreparedContext {
 public:
  explicit PreparedContext(const Limits& limits) : ctx(limits) {}
  Ctx ctx;
  Value data;  // the data/ map
};

}  // namespace ptc
