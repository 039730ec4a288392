// What the public Program and PreparedContext handles hold: values built
// once in memory of their own (an arena that lives as long as the handle),
// frozen (runtime/freeze.hpp), then only read by runs on any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

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

// A prepared context's value in the snapshot's value encoding
// (embedding/value_codec.hpp), and a context prepared straight from those
// bytes, without a HostValue between: how a WorkerPool (isolation/) sends
// one to its worker processes, and how a worker prepares it.
std::string encode_prepared_context(const PreparedContext& context);
std::shared_ptr<const PreparedContext> prepare_encoded_context(std::string_view encoded,
                                                               size_t max_bytes = size_t{1} << 30);

}  // namespace ptc
