// Approvals in C: which tools need them (ptc_options_require_approval), the
// approver callback (ptc_options_set_approver) with its user pointer (freed
// with the last copy of the approver), and the decision it answers with.
#include <fmt/format.h>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "capi/json_form.hpp"

// What an approver callback decides; rejected until it says otherwise.
struct ptc_approval {
  ptc::Decision decision = ptc::Decision::reject("the approver gave no decision");
};

namespace ptc::capi {

namespace {

struct ApproverBinding {
  ptc_approver_fn fn;
  void* user;
  ptc_free_fn free_user;

  ApproverBinding(ptc_approver_fn f, void* u, ptc_free_fn free_fn)
      : fn(f), user(u), free_user(free_fn) {}
  ApproverBinding(const ApproverBinding&) = delete;
  ApproverBinding& operator=(const ApproverBinding&) = delete;
  ~ApproverBinding() {
    if (free_user) free_user(user);
  }

  Decision decide(const PendingCall& call) const {
    ptc_approval approval;
    std::string json = json_text(pending_call_value(call));
    fn(user, json.c_str(), json.size(), &approval);
    return std::move(approval.decision);
  }
};

}  // namespace

}  // namespace ptc::capi

using namespace ptc;
using namespace ptc::capi;

extern "C" {

ptc_status ptc_approval_approve(ptc_approval* approval) {
  return guarded([&] {
    required(approval, "approval").decision = Decision::approve();
    return PTC_OK;
  });
}

ptc_status ptc_approval_reject(ptc_approval* approval, const char* reason, size_t len) {
  return guarded([&] {
    ptc_approval& a = required(approval, "approval");
    a.decision = Decision::reject(std::string(text_arg(reason, len, "reason")));
    return PTC_OK;
  });
}

ptc_status ptc_options_require_approval(ptc_options* options, const char* name, size_t len,
                                        int needs) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    std::string_view tool = text_arg(name, len, "name");
    auto found = o.run.tools.find(tool);
    if (found == o.run.tools.end())
      throw InvalidArgument(
          fmt::format("there is no tool \"{}\": add it first (ptc_options_add_tool, "
                      "ptc_options_add_deferred_tool)",
                      tool));
    found->second.needs_approval = needs != 0;
    return PTC_OK;
  });
}

ptc_status ptc_options_set_approver(ptc_options* options, ptc_approver_fn fn, void* user,
                                    ptc_free_fn free_user) {
  return guarded([&] {
    ptc_options& o = required(options, "options");
    if (!fn) {
      o.run.approver = nullptr;
      return PTC_OK;
    }
    auto binding = std::make_shared<ApproverBinding>(fn, user, free_user);
    try {
      o.run.approver = [binding](const PendingCall& call) { return binding->decide(call); };
    } catch (...) {
      binding->free_user = nullptr;  // not set: `user` stays the caller's
      throw;
    }
    return PTC_OK;
  });
}

}  // extern "C"
