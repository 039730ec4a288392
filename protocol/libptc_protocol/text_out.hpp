// What the entry points of libptc_protocol share: text handed out as a
// malloc'd buffer (freed by ptc_protocol_free), profiles by name, JSON
// option objects checked key by key.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "include/ptc/ptc_protocol.h"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::protocol::capi {

// Copies `text` into a new malloc'd, NUL-terminated buffer in *out (and its
// length in *len when len is not NULL); throws std::bad_alloc.
void hand_out(std::string_view text, char** out, size_t* len);

// The profile of a name; NULL is in_process_with_app_tools. Throws
// ptc::capi::InvalidArgument naming the three.
Profile profile_arg(const char* name);

// An options object (NULL or empty text: {}) whose keys must be among
// `known` (a NULL-terminated list); `what` names it in messages.
HostValue options_object(const char* json, size_t len, const char* what,
                         std::initializer_list<std::string_view> known);

}  // namespace ptc::protocol::capi
