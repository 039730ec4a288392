// lisp_eval's output_schema: a JSON-Schema subset (type string | integer |
// number | boolean | array with items | object with properties and
// required; nullable through "type": [T, "null"]) turned into a Signature
// that checks the program's result.
#pragma once

#include <optional>
#include <string>

#include "include/ptc/ptc.hpp"
#include "runtime/signature.hpp"

namespace ptc::mcp {

// nullopt with *error ("output_schema.properties.total: unsupported type
// \"date\"") when the schema is outside the subset.
std::optional<Signature> signature_from_schema(const HostValue& schema, std::string* error);

}  // namespace ptc::mcp
