// prepare_context: a context imported once into memory of its own, frozen,
// and then read in place by any number of runs (RunOptions::prepared_context).
#include <fmt/format.h>

#include "embedding/shared_inputs.hpp"
#include "embedding/snapshot.hpp"
#include "runtime/freeze.hpp"
#include "runtime/host_value.hpp"

namespace ptc {

namespace {

// The context's own limits: its memory cap, and no cap on distinct keys
// beyond what that memory holds (keys of a large context are many).
Limits prepare_limits(size_t max_bytes) {
  Limits limits;
  limits.max_heap_bytes = max_bytes;
  limits.max_symbols = UINT32_MAX;
  limits.timeout_ms = UINT32_MAX;  // a host's own input: bounded by its size, not by a clock
  return limits;
}

std::shared_ptr<const PreparedContext> finish(std::shared_ptr<PreparedContext> prepared) {
  if (!prepared->data.is_map())
    throw_error(ErrorKind::ArgsError, "context must be a map",
                "give a JSON object whose keys are the program's data/ names");
  freeze(prepared->data);
  return prepared;
}

}  // namespace

std::shared_ptr<const PreparedContext> prepare_context(std::string_view json, size_t max_bytes) {
  auto prepared = std::make_shared<PreparedContext>(prepare_limits(max_bytes));
  prepared->data = import_json(prepared->ctx, json);
  return finish(std::move(prepared));
}

std::shared_ptr<const PreparedContext> prepare_context(const HostValue& context, size_t max_bytes) {
  auto prepared = std::make_shared<PreparedContext>(prepare_limits(max_bytes));
  prepared->data = import_value(prepared->ctx, context);
  return finish(std::move(prepared));
}

std::string encode_prepared_context(const PreparedContext& context) {
  return encode_value(export_value(context.data));
}

std::shared_ptr<const PreparedContext> prepare_encoded_context(std::string_view encoded,
                                                               size_t max_bytes) {
  auto prepared = std::make_shared<PreparedContext>(prepare_limits(max_bytes));
  prepared->data = import_encoded(prepared->ctx, encoded);
  return finish(std::move(prepared));
}

size_t prepared_bytes(const PreparedContext& context) {
  return context.ctx.arena.used();
}

}  // namespace ptc
