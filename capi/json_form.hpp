// The JSON form of everything the C API hands out: values (every value has
// one, see include/ptc/ptc.h), the tool-call ledger and a whole Step.
#pragma once

#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace ptc::capi {

// `h` with every part that has no JSON form replaced by a string of its
// printed form (functions, NaN/Inf, map keys that are not names or numbers);
// `h` itself (shared, not copied) when it has none.
HostValue with_json_form(const HostValue& h);

// JSON text of any value (with_json_form, then to_json).
std::string json_text(const HostValue& h);

// The tool calls of a run as a JSON array; the whole Step as one object.
// Shapes: ptc_result_json in include/ptc/ptc.h.
std::string tool_calls_json(const Step& step);
std::string step_json(const Step& step);

// The calls an execution waits on as a JSON array of {"id", "tool", "args"}
// (ptc_execution_pending_json in include/ptc/ptc.h).
std::string pending_calls_json(const std::vector<PendingCall>& calls);
// One of them: {"id", "tool", "args"}, and for an approval "kind":
// "approval", "line", "column".
HostValue pending_call_value(const PendingCall& call);

}  // namespace ptc::capi
