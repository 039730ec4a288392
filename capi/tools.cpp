// Tools as C callbacks: the binding of a callback and its user pointer (freed
// with the last copy of the tool), the call (arguments out as JSON, the
// reply in), and the reply functions a callback answers with.
#include <fmt/format.h>

#include <chrono>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "capi/json_form.hpp"

namespace ptc::capi {

namespace {

struct ToolBinding {
  std::string name;
  ptc_tool_fn fn;
  void* user;
  ptc_free_fn free_user;

  ToolBinding(std::string n, ptc_tool_fn f, void* u, ptc_free_fn free_fn)
      : name(std::move(n)), fn(f), user(u), free_user(free_fn) {}
  ToolBinding(const ToolBinding&) = delete;
  ToolBinding& operator=(const ToolBinding&) = delete;
  ~ToolBinding() {
    if (free_user) free_user(user);
  }

  ToolResult call(const HostValue& args) const {
    ptc_tool_reply reply;
    reply.call = current_tool_call();
    std::string json = json_text(args);
    try {
      fn(user, name.c_str(), json.c_str(), json.size(), &reply);
    } catch (const std::exception& e) {
      return ToolResult::failure(fmt::format("tool {} failed: {}", name, e.what()));
    } catch (...) {
      return ToolResult::failure(fmt::format("tool {} failed with an unknown exception", name));
    }
    return std::move(reply.answer);
  }
};

}  // namespace

void add_tool(RunOptions& options, std::string name, ptc_tool_fn fn, void* user,
              ptc_free_fn free_user, bool cacheable) {
  auto binding = std::make_shared<ToolBinding>(name, fn, user, free_user);
  try {
    Tool tool{[binding](const HostValue& args) { return binding->call(args); }, cacheable};
    options.tools.insert_or_assign(std::move(name), std::move(tool));
  } catch (...) {
    binding->free_user = nullptr;  // not added: `user` stays the caller's
    throw;
  }
}

}  // namespace ptc::capi

using namespace ptc;
using namespace ptc::capi;

extern "C" {

ptc_status ptc_tool_reply_set_result_json(ptc_tool_reply* reply, const char* json, size_t len) {
  return guarded([&] {
    ptc_tool_reply& r = required(reply, "reply");
    try {
      r.answer = ToolResult::success(json_arg(text_arg(json, len, "json"), "tool result"));
    } catch (const InvalidArgument& e) {
      r.answer = ToolResult::failure(e.what());
      throw;
    }
    return PTC_OK;
  });
}

ptc_status ptc_tool_reply_set_error(ptc_tool_reply* reply, const char* message, size_t len) {
  return guarded([&] {
    ptc_tool_reply& r = required(reply, "reply");
    r.answer = ToolResult::failure(std::string(text_arg(message, len, "message")));
    return PTC_OK;
  });
}

int ptc_tool_reply_cancelled(const ptc_tool_reply* reply) {
  return reply && reply->call && reply->call->cancelled() ? 1 : 0;
}

int64_t ptc_tool_reply_remaining_ms(const ptc_tool_reply* reply) {
  if (!reply || !reply->call) return 0;
  auto left = reply->call->deadline() - std::chrono::steady_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
  return ms > 0 ? static_cast<int64_t>(ms) : 0;
}

}  // extern "C"
