// Native previews (reference protocol §4.8). One deliberate difference from
// PtcRunner: a property whose value in the first row is `false` is typed
// "boolean" there (PtcRunner's lookup reports it as "null").
#include "protocol/lisp_eval/native_preview.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <set>

#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/host_preview.hpp"
#include "runtime/host_value.hpp"

namespace ptc::protocol {

namespace {

using HKind = HostValue::Kind;

constexpr size_t kMaxProperties = 20;
constexpr size_t kConsistencyRows = 5;  // the first row and the next four

using host::str;

bool is_list(const HostValue& v) {
  return v.kind() == HKind::Vector || v.kind() == HKind::Set;
}

std::string_view json_type(const HostValue& v) {
  switch (v.kind()) {
    case HKind::Int:
    case HKind::BigInt:
      return "integer";
    case HKind::Float:
      return "number";
    case HKind::Bool:
      return "boolean";
    case HKind::Nil:
      return "null";
    case HKind::Vector:
    case HKind::Set:
      return "array";
    case HKind::Map:
      return "object";
    case HKind::String:
    case HKind::Keyword:
    case HKind::Opaque:
      break;
  }
  return "string";
}

// A map key as the schema names it.
std::string key_text(const HostValue& k) {
  switch (k.kind()) {
    case HKind::String:
    case HKind::Keyword:
    case HKind::BigInt:
      return k.text();
    case HKind::Nil:
      return "";
    default:
      return format_value(k);
  }
}

// The distinct keys of a map, stringified and sorted, each with the value
// of its first occurrence (a keyword and a string of one name are one key).
std::vector<std::pair<std::string, const HostValue*>> sorted_entries(const HostValue& m) {
  std::vector<std::pair<std::string, const HostValue*>> out;
  std::set<std::string> seen;
  const auto& items = m.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    std::string k = key_text(items[i]);
    if (seen.insert(k).second) out.emplace_back(std::move(k), &items[i + 1]);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::set<std::string> key_set(const HostValue& m) {
  std::set<std::string> keys;
  const auto& items = m.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    keys.insert(key_text(items[i]));
  return keys;
}

// The shape of one map: {"type":"object","properties":{k: type}} with at
// most 20 properties (then "truncated": true), and its sample keys.
struct ObjectShape {
  HostValue schema;
  HostValue sample_keys;
  bool truncated = false;
};

ObjectShape object_shape(const HostValue& m) {
  ObjectShape out;
  auto entries = sorted_entries(m);
  out.truncated = entries.size() > kMaxProperties;
  if (out.truncated) entries.resize(kMaxProperties);
  std::vector<std::pair<HostValue, HostValue>> properties;
  std::vector<HostValue> keys;
  for (const auto& [k, v] : entries) {
    properties.emplace_back(str(k), str(json_type(*v)));
    keys.push_back(str(k));
  }
  std::vector<std::pair<HostValue, HostValue>> schema{{str("type"), str("object")}};
  if (!properties.empty()) schema.emplace_back(str("properties"), HostValue::map(properties));
  if (out.truncated) schema.emplace_back(str("truncated"), HostValue::boolean(true));
  out.schema = HostValue::map(std::move(schema));
  out.sample_keys = HostValue::vector(std::move(keys));
  return out;
}

// The first row and the next four are maps with one key set.
bool consistent_keys(const std::vector<HostValue>& rows) {
  if (rows.empty() || rows[0].kind() != HKind::Map) return false;
  if (rows.size() == 1) return true;
  std::set<std::string> first = key_set(rows[0]);
  for (size_t i = 1; i < rows.size() && i < kConsistencyRows; ++i)
    if (rows[i].kind() != HKind::Map || key_set(rows[i]) != first) return false;
  return true;
}

struct Fields {
  std::vector<std::pair<HostValue, HostValue>> entries;
  bool truncated = false;
  void add(std::string_view k, HostValue v) { entries.emplace_back(str(k), std::move(v)); }
};

// schema (and sample_keys) of a list of rows.
void describe_rows(const std::vector<HostValue>& rows, Fields& out) {
  HostValue items = HostValue::map({});
  if (!rows.empty() && rows[0].kind() == HKind::Map) {
    if (consistent_keys(rows)) {
      ObjectShape shape = object_shape(rows[0]);
      items = shape.schema;
      out.truncated = shape.truncated;
      out.add("sample_keys", shape.sample_keys);
    } else {
      items = HostValue::map({{str("type"), str("object")}});
    }
  } else if (!rows.empty()) {
    std::string_view type = json_type(rows[0]);
    bool same = std::all_of(rows.begin(), rows.end(),
                            [&](const HostValue& r) { return json_type(r) == type; });
    items = HostValue::map({{str("type"), str(same ? type : "any")}});
  }
  out.add("schema", HostValue::map({{str("type"), str("array")}, {str("items"), items}}));
}

void describe_value(const HostValue& v, Fields& out) {
  if (is_list(v)) {
    out.add("result_count", HostValue::integer(static_cast<int64_t>(v.size())));
    describe_rows(v.items(), out);
  } else if (v.kind() == HKind::Map) {
    ObjectShape shape = object_shape(v);
    out.truncated = shape.truncated;
    out.add("schema", shape.schema);
    out.add("sample_keys", shape.sample_keys);
  } else {
    out.add("schema", HostValue::map({{str("type"), str(json_type(v))}}));
  }
}

// A copy that to_json accepts: values with no JSON form become their printed
// text (NaN and infinities null), map keys that JSON cannot carry strings.
HostValue json_safe(const HostValue& v) {
  auto leaf = [](const HostValue& x) {
    if (x.kind() == HKind::Opaque) return HostValue::string(x.text());
    if (x.kind() == HKind::Float && !std::isfinite(x.as_float())) return HostValue::nil();
    return x;
  };
  auto key = [](const HostValue& k) {
    switch (k.kind()) {
      case HKind::String:
      case HKind::Keyword:
      case HKind::Int:
      case HKind::BigInt:
        return k;
      default:
        return HostValue::string(key_text(k));
    }
  };
  return map_host_value(v, leaf, key);
}

void add_cache_fields(std::string_view tool, const HostValue& args, Fields& out) {
  out.add("status", str("ok"));
  out.add("full_result_cached", HostValue::boolean(true));
  out.add("cache_hint", str(cache_hint(tool, args)));
}

NativePreview finish(Fields fields) {
  NativePreview p;
  p.truncated = fields.truncated;
  p.payload = HostValue::map(std::move(fields.entries));
  return p;
}

NativePreview metadata_preview(std::string_view tool, const HostValue& full,
                               const HostValue& args) {
  Fields f;
  describe_value(full, f);
  add_cache_fields(tool, args, f);
  return finish(std::move(f));
}

NativePreview rows_preview(std::string_view tool, const HostValue& full, const HostValue& args,
                           size_t limit) {
  if (!is_list(full)) return metadata_preview(tool, full, args);
  const auto& all = full.items();
  std::vector<HostValue> rows(all.begin(), all.begin() + std::min(limit, all.size()));
  Fields f;
  f.add("result_count", HostValue::integer(static_cast<int64_t>(all.size())));
  describe_rows(rows, f);
  for (HostValue& r : rows)
    r = json_safe(r);
  f.add("rows", HostValue::vector(std::move(rows)));
  add_cache_fields(tool, args, f);
  return finish(std::move(f));
}

NativePreview fallback(std::string_view tool, const HostValue& full, const HostValue& args,
                       std::string_view category, std::string_view what) {
  NativePreview p = metadata_preview(tool, full, args);
  p.fell_back = true;
  p.fallback_category = std::string(category);
  p.fallback_message =
      fmt::format("native_result preview of tool \"{}\" fell back to metadata (category={}): {}",
                  tool, category, what);
  return p;
}

NativePreview custom_preview(std::string_view tool, const HostValue& full, const HostValue& args,
                             const NativeResultOptions& options) {
  if (!options.custom) return fallback(tool, full, args, "raised", "no preview function");
  HostValue own;
  try {
    own = options.custom(full);
  } catch (const LispError& e) {
    return fallback(tool, full, args, "raised", e.error().message);
  } catch (const std::exception& e) {
    return fallback(tool, full, args, "raised", e.what());
  } catch (...) {
    return fallback(tool, full, args, "raised", "unknown exception");
  }
  if (own.kind() != HKind::Map)
    return fallback(tool, full, args, "non_map",
                    fmt::format("the preview function returned a value of JSON type {}, not a map",
                                json_type(own)));
  Fields f;
  add_cache_fields(tool, args, f);
  std::set<std::string> taken{"status", "full_result_cached", "cache_hint"};
  const auto& items = own.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const HostValue& k = items[i];
    HKind kk = k.kind();
    if (kk != HKind::String && kk != HKind::Keyword && kk != HKind::Int && kk != HKind::BigInt)
      return fallback(tool, full, args, "non_encodable",
                      fmt::format("the preview has a key JSON cannot carry: {}", format_value(k)));
    std::string name = key_text(k);
    if (taken.insert(name).second) f.add(name, items[i + 1]);  // the cache fields win
  }
  NativePreview p = finish(std::move(f));
  try {
    to_json(p.payload, true);
  } catch (const LispError& e) {
    return fallback(tool, full, args, "non_encodable", e.error().message);
  }
  return p;
}

}  // namespace

NativePreview native_preview(std::string_view tool, const HostValue& full_result,
                             const HostValue& args, const NativeResultOptions& options) {
  switch (options.kind) {
    case NativeResultOptions::Kind::Metadata:
      break;
    case NativeResultOptions::Kind::Rows:
      return rows_preview(tool, full_result, args, options.limit);
    case NativeResultOptions::Kind::Custom:
      return custom_preview(tool, full_result, args, options);
  }
  return metadata_preview(tool, full_result, args);
}

std::string cache_hint(std::string_view tool, const HostValue& args) {
  std::string rendered;
  // Programs pass (tool/x) and (tool/x nil) to the tool as {}.
  append_canonical_host_value(rendered, args.is_nil() ? HostValue::map({}) : args);
  return fmt::format("Call lisp_eval and then call (tool/{} {}) to process the full cached result.",
                     tool, rendered);
}

}  // namespace ptc::protocol
