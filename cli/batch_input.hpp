// Parsing one line of the batch format: {"id": ..., "program": "...", "context": {...},
// "memory": {...}, "tools": {replay table, see replay_tools.hpp}}.
// Shared by `ptc batch` and `ptc bench`. Unknown fields are ignored.
#pragma once

#include <optional>
#include <string>

#include "include/ptc/ptc.hpp"
#include "runtime/error.hpp"
#include "runtime/host_value.hpp"

namespace ptc::cli {

struct BatchItem {
  std::string id_json = "null";  // the id as JSON, echoed back verbatim
  std::string id_text;           // the id for tables ("line N" when absent)
  std::string program;
  // The context's JSON text as the line has it ("" when absent or null):
  // parsed by the run itself, straight into its memory.
  std::string context_json;
  HostValue memory;
  std::optional<Tools> tools;  // from a "tools" replay table
  Error error;                 // message set when the line is unusable
};

BatchItem parse_batch_line(const std::string& line, size_t line_no);

}  // namespace ptc::cli
