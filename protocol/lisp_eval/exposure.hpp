// Which layer may call an app tool in an agent: natively (the model calls it
// as a provider tool), from programs (as (tool/name ...) inside lisp_eval),
// or both; and the checks on an agent's tool configuration.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace ptc::protocol {

enum class Expose { Native, PtcLisp, Both };
std::string_view expose_name(Expose e);  // "native", "ptc_lisp", "both"
std::optional<Expose> expose_from_name(std::string_view name);

// What the agent produces: a value from a program (ptc_lisp) or text.
enum class OutputMode { PtcLisp, Text };

// When a tool does not say: ptc_lisp output -> ptc_lisp; text output (combined
// mode included) -> native, so that exposing a tool to programs is always a
// deliberate choice.
Expose default_expose(OutputMode mode);

// How a native call of an `expose: both, cache: true` tool is previewed to the
// model (the full result stays in the agent's tool cache).
struct NativeResultOptions {
  enum class Kind { Metadata, Rows, Custom };
  Kind kind = Kind::Metadata;
  size_t limit = 20;  // Rows: how many rows are shown
  // Custom: builds the preview (a map) from the full result; may throw.
  std::function<HostValue(const HostValue& full_result)> custom;
};

// An app tool as an agent sees it.
struct AgentTool {
  std::string name;              // as programs call it: tool/<name>
  std::string description;       // shown in prompts and native schemas
  std::string signature;         // "(query :string) -> [:any]", may be empty
  std::optional<Expose> expose;  // nullopt: default_expose(mode)
  bool cache = false;            // results reusable for equal canonical arguments
  std::optional<NativeResultOptions> native_result;
  Tool tool;  // the host function
};

Expose effective_expose(const AgentTool& t, OutputMode mode);
bool native_callable(const AgentTool& t, OutputMode mode);   // native or both
bool program_callable(const AgentTool& t, OutputMode mode);  // ptc_lisp or both

// "" when the configuration is usable, else what is wrong with it (naming
// the tool): the name lisp_eval is reserved (also a name whose native form
// is lisp_eval, such as lisp-eval); a name must be non-empty and usable as
// tool/<name>; the tool needs a function; its signature must parse;
// native_result needs an explicit expose both and cache true; a Rows limit
// must be positive; a Custom preview needs a function.
std::string check_tool(const AgentTool& t);
// check_tool of each tool, then across them: names are unique, and no two
// native-callable tools share a native name (search-logs and search_logs);
// a native-callable tool's native name has at most 64 characters.
std::string check_tools(const std::vector<AgentTool>& tools, OutputMode mode);

// The provider-facing name of a tool (characters providers reject, such as
// '-', become '_': only ASCII letters, digits and '_' are kept), and back:
// the tool whose native name is `native_name` (an exact name match first).
std::string native_tool_name(std::string_view name);
const AgentTool* find_by_native_name(const std::vector<AgentTool>& tools,
                                     std::string_view native_name);

// The OpenAI-format function schema of a native tool:
// {"type":"function","function":{"name","description","parameters"}} with
// its native name, its description (left out when empty), and parameters
// from its signature's inputs: {"type":"object","properties":{...},
// "required":[the parameters not marked ?]}, each property typed string,
// integer, number, boolean, array (with items) or object (with properties
// for {..} types); :any is {} and :datetime a string of format date-time.
// Just {"type":"object"} when it has no signature (or one that does not parse).
HostValue native_tool_schema(const AgentTool& t);

}  // namespace ptc::protocol
