// The preview a model gets when it calls a cached tool natively: the shape of
// the result (metadata), its first rows, or a host's own preview, and a hint
// that the full result is cached for a lisp_eval program to process. Row
// values never reach the model under the metadata preview.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/lisp_eval/exposure.hpp"

namespace ptc::protocol {

struct NativePreview {
  HostValue payload;              // a map; rendered with sorted keys
  bool fell_back = false;         // a custom preview failed; payload is the metadata preview
  std::string fallback_category;  // "raised", "non_map" or "non_encodable"
  std::string fallback_message;   // for the host's log: tool "NAME", category=C, what went wrong
  bool truncated = false;         // the schema lists only the first 20 keys
};

// Every preview carries status "ok", full_result_cached true and cache_hint.
// Sets count as lists; keys are stringified (a keyword and a string of one
// name are one key). Unlike PtcRunner, a `false` property is typed boolean
// (its metadata preview reports null there).
// Metadata: result_count (lists), a JSON-Schema-like `schema` inferred from
// the first element (object properties typed integer/number/string/boolean/
// null/array/object, at most 20, sorted, then "truncated": true inside the
// schema), sample_keys when the first five rows share one key set. Rows: the
// first `limit` rows verbatim (values JSON cannot carry: opaque values as
// their printed text, NaN/Inf as null), with result_count and the schema of
// those rows; a result that is not a list gets the metadata preview. Custom: the
// host's map merged under the cache fields; when it throws, returns no map,
// or returns something that is not JSON, the metadata preview is used and
// fell_back is set.
NativePreview native_preview(std::string_view tool, const HostValue& full_result,
                             const HostValue& args, const NativeResultOptions& options);

// "Call lisp_eval and then call (tool/NAME {:k v ...}) to process the full
// cached result." with the canonical arguments (append_canonical_host_value:
// keys sorted, - as _, {"error code" 1} where a key is no keyword name). nil
// arguments show as {}, which is what a program's (tool/NAME) passes: key a
// native call without arguments as {}.
std::string cache_hint(std::string_view tool, const HostValue& args);

}  // namespace ptc::protocol
