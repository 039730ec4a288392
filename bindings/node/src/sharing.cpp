// Programs and prepared contexts shared between threads (worker_threads).
// Both are immutable engine objects held by shared_ptr, safe to run from any
// number of threads at once; what cannot cross is their JS handle, which
// belongs to one isolate. share() puts the object in a process-wide registry
// under a fresh number and returns that number, which index.js posts as a
// plain token; adopt() on any thread makes a new handle over the same object
// (its own shared_ptr, independent of the registry from then on).
//
// Lifetime: an entry lives as long as the JS object share() was called on:
// share() also returns a ticket (an external the JS object keeps), and the
// ticket's finalizer, run when that object is collected or its thread ends,
// removes the entry. So nothing outlives what shared it (no leak), an
// adopted handle keeps its object alive by itself (no use after free), and
// a token whose entry is gone is refused with an error saying so. Numbers
// are never reused: a stale token never finds another object.
#include <cmath>
#include <mutex>
#include <unordered_map>

#include "exports.hpp"

namespace ptc::node {

namespace {

struct Entry {
  std::shared_ptr<const Program> program;
  std::shared_ptr<const PreparedContext> context;
};

struct Registry {
  std::mutex mutex;
  uint64_t next = 1;
  std::unordered_map<uint64_t, Entry> entries;
};

// Never destroyed: worker threads may still finalize tickets while the
// process exits.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// [id, ticket]: registers `entry` until the ticket is collected.
napi_value share(napi_env env, Entry entry) {
  Registry& r = registry();
  uint64_t id = 0;
  {
    std::lock_guard lock(r.mutex);
    id = r.next++;
    r.entries.emplace(id, std::move(entry));
  }
  napi_value ticket = nullptr;
  napi_status status = napi_create_external(
      env, reinterpret_cast<void*>(static_cast<uintptr_t>(id)),
      [](napi_env, void* data, void*) {
        Registry& reg = registry();
        std::lock_guard lock(reg.mutex);
        reg.entries.erase(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data)));
      },
      nullptr, &ticket);
  if (status != napi_ok) {
    std::lock_guard lock(r.mutex);
    r.entries.erase(id);
    check(env, status);
  }
  napi_value out = nullptr;
  check(env, napi_create_array_with_length(env, 2, &out));
  check(env, napi_set_element(env, out, 0, js_number(env, static_cast<double>(id))));
  check(env, napi_set_element(env, out, 1, ticket));
  return out;
}

// The entry of a token's id; an Error when it is gone.
Entry entry_of(napi_env env, napi_value id_value, const char* what) {
  double d = 0;
  if (type_of(env, id_value) == napi_number) check(env, napi_get_value_double(env, id_value, &d));
  if (!(d >= 1) || d > 9007199254740991.0 || std::trunc(d) != d)
    throw_type_error(env, std::string("not a shared ") + what + " token");
  uint64_t id = static_cast<uint64_t>(d);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.entries.find(id);
  if (it == r.entries.end()) {
    throw_error(env, std::string("ptc-lisp: the ") + what + " of this token is gone: the " + what +
                         " it was shared from was garbage-collected or its thread ended (keep " +
                         "it alive until every thread has called " + what + ".from)");
  }
  return it->second;
}

// shareProgram(handle) -> [id, ticket]
napi_value share_program(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    auto program = program_of(env, first_argument(env, info));
    if (!program) throw_type_error(env, "not a Program");
    return share(env, Entry{std::move(program), nullptr});
  });
}

// adoptProgram(id) -> handle
napi_value adopt_program(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Entry entry = entry_of(env, first_argument(env, info), "Program");
    if (!entry.program) throw_type_error(env, "not a shared Program token");
    return program_handle(env, std::move(entry.program));
  });
}

// sharePrepared(handle) -> [id, ticket]
napi_value share_prepared(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    auto context = prepared_context_of(env, first_argument(env, info));
    if (!context) throw_type_error(env, "not a PreparedContext");
    return share(env, Entry{nullptr, std::move(context)});
  });
}

// adoptPrepared(id) -> handle
napi_value adopt_prepared(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Entry entry = entry_of(env, first_argument(env, info), "PreparedContext");
    if (!entry.context) throw_type_error(env, "not a shared PreparedContext token");
    return prepared_context_handle(env, std::move(entry.context));
  });
}

}  // namespace

void register_sharing(napi_env env, napi_value exports) {
  export_function(env, exports, "shareProgram", share_program);
  export_function(env, exports, "adoptProgram", adopt_program);
  export_function(env, exports, "sharePrepared", share_prepared);
  export_function(env, exports, "adoptPrepared", adopt_prepared);
}

}  // namespace ptc::node
