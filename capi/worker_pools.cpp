// Worker pools through the C API: ptc_worker_pool_new reads its options
// from JSON into ptc::WorkerPoolOptions and hands out a shared reference to
// a ptc::WorkerPool (include/ptc/worker_pool.hpp); ptc_options_set_isolate
// (capi/ptc_c.cpp) copies that reference into RunOptions::isolate. Every
// entry point runs in a guard (capi/errors.hpp).
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "capi/errors.hpp"
#include "capi/handles.hpp"

using namespace ptc;
using namespace ptc::capi;

namespace {

// A whole number from 0 to `max`.
uint64_t count_of(const HostValue& v, std::string_view key, uint64_t max) {
  if (v.kind() != HostValue::Kind::Int || v.as_int() < 0 || static_cast<uint64_t>(v.as_int()) > max)
    throw InvalidArgument(
        fmt::format("options: \"{}\" must be a whole number from 0 to {}, got {}", key, max,
                    v.kind() == HostValue::Kind::Int ? std::to_string(v.as_int())
                                                     : std::string(json_kind_name(v.kind()))));
  return static_cast<uint64_t>(v.as_int());
}

bool flag_of(const HostValue& v, std::string_view key) {
  if (v.kind() != HostValue::Kind::Bool)
    throw InvalidArgument(fmt::format("options: \"{}\" must be true or false, got {}", key,
                                      json_kind_name(v.kind())));
  return v.as_bool();
}

WorkerPoolOptions pool_options(std::string_view json) {
  WorkerPoolOptions o;
  HostValue doc = json_object_arg(json, "options");
  const auto& items = doc.items();
  constexpr uint64_t kSize = std::numeric_limits<size_t>::max();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& key = items[i].text();  // JSON keys are strings
    const HostValue& v = items[i + 1];
    if (key == "workers") {
      o.workers = count_of(v, key, 4096);
    } else if (key == "max_runs") {
      o.max_runs = count_of(v, key, kSize);
    } else if (key == "max_heap_bytes") {
      o.max_heap_bytes = count_of(v, key, uint64_t{1} << 40);
    } else if (key == "kill_margin_ms") {
      o.kill_margin_ms = static_cast<uint32_t>(count_of(v, key, UINT32_MAX));
    } else if (key == "max_frame_bytes") {
      o.max_frame_bytes = count_of(v, key, kSize);
    } else if (key == "worker_path") {
      if (v.is_nil()) {
        o.worker_path.clear();
      } else if (v.kind() == HostValue::Kind::String && !v.text().empty()) {
        o.worker_path = v.text();
      } else {
        throw InvalidArgument(fmt::format(
            "options: \"worker_path\" must be the path of ptc-worker (a non-empty string) or "
            "null, got {}",
            v.kind() == HostValue::Kind::String ? "\"\"" : json_kind_name(v.kind())));
      }
    } else if (key == "namespaces") {
      o.namespaces = flag_of(v, key);
    } else if (key == "worker_stderr") {
      o.worker_stderr = flag_of(v, key);
    } else if (key == "cpu_handoff") {
      o.cpu_handoff = flag_of(v, key);
    } else {
      throw InvalidArgument(
          fmt::format("options: unknown key \"{}\" (known: workers, max_runs, max_heap_bytes, "
                      "kill_margin_ms, max_frame_bytes, worker_path, namespaces, worker_stderr, "
                      "cpu_handoff)",
                      key));
    }
  }
  return o;
}

std::string stats_json(const WorkerPool& pool) {
  WorkerPoolStats s = pool.stats();
  return fmt::format(
      "{{\"workers\":{},\"busy\":{},\"started\":{},\"runs\":{},\"recycled\":{},\"died\":{},"
      "\"killed\":{},\"contexts_sent\":{},\"contexts_handed_over\":{},\"namespaces\":{},"
      "\"worker_path\":{}}}",
      s.workers, s.busy, s.started, s.runs, s.recycled, s.died, s.killed, s.contexts_sent,
      s.contexts_handed_over, s.namespaces, to_json(HostValue::string(pool.worker_path())));
}

}  // namespace

extern "C" {

ptc_status ptc_worker_pool_new(const char* options_json, size_t len, ptc_worker_pool** out) {
  return guarded([&] {
    out_arg(out, "out");
    WorkerPoolOptions options;
    if (options_json) options = pool_options(text_arg(options_json, len, "options_json"));
    std::shared_ptr<WorkerPool> pool;
    try {
      pool = std::make_shared<WorkerPool>(std::move(options));
    } catch (const LispError& e) {
      // No ptc-worker, or it did not start: the system's, not the caller's.
      const Error& error = e.error();
      return fail(PTC_UNAVAILABLE, error.hint.empty()
                                       ? error.message
                                       : fmt::format("{}; {}", error.message, error.hint));
    }
    *out = new ptc_worker_pool{std::move(pool)};
    return PTC_OK;
  });
}

const char* ptc_worker_pool_stats_json(const ptc_worker_pool* pool, size_t* len) {
  if (len) *len = 0;
  return guarded_ptr([&]() -> const char* {
    const ptc_worker_pool& p = required(pool, "pool");
    thread_local std::string text;
    text = stats_json(*p.pool);
    if (len) *len = text.size();
    return text.c_str();
  });
}

void ptc_worker_pool_free(ptc_worker_pool* pool) {
  delete pool;
}

}  // extern "C"
