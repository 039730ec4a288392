// describe: a bounded summary of the shape of a value (spec §8.7), for a
// program exploring data it has not seen: the type, counts, a histogram of
// item types, and for maps (or a vector of maps) each key's presence, value
// types, a few examples, the numeric range and the number of distinct values.
// With {:paths true} it also summarizes nested map paths ("a.b.c") down to
// :depth levels. Every traversal is capped (items, keys, paths, values, visits,
// examples, example length), and a summary that hit a cap says so with
// :truncated true and :caps_hit.
//
// The output is data: keyword keys for the summary's own fields, strings for
// type names and for the keys of the described data (":id" for a keyword key,
// "id" for a string key). One choice differs from the reference
// implementation: :non_empty (how many strings or collections are non-empty)
// appears only when some of them are empty, which is when it tells something;
// the function reference's own example has no :non_empty.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

constexpr int kDefaultDepth = 1;
constexpr int kMaxDepth = 5;
constexpr int kMaxSample = 3;
constexpr size_t kMaxRootItems = 1000;
constexpr size_t kMaxMapKeys = 100;
constexpr size_t kMaxKeyScan = 1000;   // entries of one map read to pick its first 100 keys
constexpr size_t kMaxVisits = 100000;  // values the path walk may visit
constexpr size_t kMaxPaths = 300;
constexpr size_t kMaxPathValues = 10000;
constexpr size_t kMaxExampleChars = 120;
constexpr size_t kDistinctCap = 50;
constexpr size_t kNumericStringMax = 64;

struct Options {
  int depth = kDefaultDepth;
  int sample = kMaxSample;
  bool paths = false;
};

// ---------------------------------------------------------------------------
// Rendering, bounded: a hostile value (deep, wide or self-similar) costs at
// most about `cap` bytes of output.

void render(std::string& out, Value v, size_t cap) {
  if (out.size() > cap) return;
  auto items = [&](auto&& each, const char* open, const char* close) {
    out += open;
    each();
    out += close;
  };
  switch (v.type()) {
    case Type::Vector:
      items(
          [&] {
            bool first = true;
            for (VecIter it(v.vec()); !it.done() && out.size() <= cap; it.next()) {
              if (!first) out.push_back(' ');
              first = false;
              render(out, it.value(), cap);
            }
          },
          "[", "]");
      return;
    case Type::Set:
    case Type::Map: {
      bool is_map = v.is_map();
      items(
          [&] {
            bool first = true;
            for (HashIter it(static_cast<const HashObj*>(v.obj())); !it.done() && out.size() <= cap;
                 it.next()) {
              if (!first) out.push_back(' ');
              first = false;
              render(out, it.key(), cap);
              if (is_map) {
                out.push_back(' ');
                render(out, it.val(), cap);
              }
            }
          },
          is_map ? "{" : "#{", "}");
      return;
    }
    default: {
      PrintOptions opts;
      opts.string_limit = cap;
      print_value(out, v, opts);
    }
  }
}

// At most `limit` characters of s, then "...(N chars)".
std::string truncate_text(std::string_view s, size_t limit) {
  size_t cut = grapheme_offset(s, limit);
  if (cut >= s.size()) return std::string(s);
  return fmt::format("{}...({} chars)", s.substr(0, cut), grapheme_count(s));
}

// The readable form, cut to kMaxExampleChars characters.
std::string rendered(Value v) {
  std::string out;
  render(out, v, kMaxExampleChars * 4);
  size_t cut = grapheme_offset(out, kMaxExampleChars);
  if (cut < out.size()) {
    out.resize(cut);
    out += "...";
  }
  return out;
}

// How a key of the described data is named in the summary: a string as it is,
// anything else in its readable form.
std::string render_key(Value k) {
  return k.is_string() ? truncate_text(k.str()->view(), kMaxExampleChars) : rendered(k);
}

std::string type_of(Value v) {
  switch (v.type()) {
    case Type::Int:
    case Type::BigInt:
      return "integer";
    case Type::Float: {
      double d = v.as_float();
      return std::isnan(d) ? "nan" : std::isinf(d) ? "infinity" : "float";
    }
    case Type::Opaque:
      return v.as<OpaqueObj>()->vt->type_name;
    default:
      return type_name(v.type());
  }
}

bool is_scalar_type(const std::string& t) {
  return t == "nil" || t == "boolean" || t == "integer" || t == "float" || t == "string" ||
         t == "keyword";
}

// ---------------------------------------------------------------------------
// Building the result.

class MapOut {
 public:
  explicit MapOut(Ctx& ctx) : ctx_(ctx), b_(ctx.arena, Type::Map) {}
  void put(std::string_view field, Value v) { b_.put(ctx_.keyword(field), v); }
  void put_str(std::string_view key, Value v) { b_.put(ctx_.string(key), v); }
  Value finish() { return Value::object(b_.finish()); }

 private:
  Ctx& ctx_;
  HashBuilder b_;
};

Value histogram(Ctx& ctx, const std::map<std::string, int64_t>& counts) {
  MapOut m(ctx);
  for (const auto& [name, n] : counts)
    m.put_str(name, Value::integer(n));
  return m.finish();
}

Value type_histogram(Ctx& ctx, const std::vector<Value>& values) {
  std::map<std::string, int64_t> counts;
  for (Value v : values)
    ++counts[type_of(v)];
  return histogram(ctx, counts);
}

Value strings_vector(Ctx& ctx, const std::vector<std::string>& items) {
  VecBuilder b(ctx.arena);
  for (const auto& s : items)
    b.push(ctx.string(s));
  return Value::object(b.finish());
}

// Caps hit so far, reported as :truncated true and a sorted :caps_hit.
using Caps = std::set<std::string>;

void put_caps(Ctx& ctx, MapOut& m, const Caps& caps) {
  if (caps.empty()) return;
  m.put("truncated", Value::boolean(true));
  m.put("caps_hit", strings_vector(ctx, {caps.begin(), caps.end()}));
}

double pct(size_t present, size_t denominator) {
  if (denominator == 0) return 0.0;
  return std::round(static_cast<double>(present) * 1000.0 / static_cast<double>(denominator)) /
         10.0;
}

// ---------------------------------------------------------------------------
// Summary of the values found at one key or path.

Value example_value(Ctx& ctx, Value v) {
  switch (v.type()) {
    case Type::Nil:
    case Type::Bool:
    case Type::Int:
    case Type::BigInt:
    case Type::Float:
    case Type::Keyword:
      return v;
    case Type::String:
      return v.str()->len <= kMaxExampleChars
                 ? v
                 : ctx.string(truncate_text(v.str()->view(), kMaxExampleChars));
    default:
      return ctx.string(rendered(v));
  }
}

// A number, or a string that is entirely a decimal number (at most 64
// characters): "12", "-3.5", "1e3".
std::optional<Value> numeric_measure(Value v) {
  if (v.is_integer()) return v;
  if (v.is_float()) return std::isfinite(v.as_float()) ? std::optional<Value>(v) : std::nullopt;
  if (!v.is_string() || v.str()->len > kNumericStringMax) return std::nullopt;
  std::optional<double> d = parse_decimal_float(v.str()->view());
  return d ? std::optional<Value>(Value::floating(*d)) : std::nullopt;
}

bool countable(Value v) {
  return v.is_string() || v.is_vector() || v.is_map() || v.is_set();
}

bool non_empty(Value v) {
  switch (v.type()) {
    case Type::String:
      return v.str()->len > 0;
    case Type::Vector:
      return v.vec()->count > 0;
    case Type::Map:
    case Type::Set:
      return static_cast<const HashObj*>(v.obj())->count > 0;
    default:
      return false;
  }
}

struct Presence {
  size_t present;
  size_t denominator;
};

Value field_summary(Ctx& ctx, const std::vector<Value>& values, const Options& opts,
                    std::optional<Presence> presence, size_t value_count = 0) {
  ctx.tick(static_cast<int64_t>(values.size()));
  MapOut m(ctx);
  if (presence) {
    m.put("present", Value::integer(static_cast<int64_t>(presence->present)));
    m.put("pct", Value::floating(pct(presence->present, presence->denominator)));
  }
  m.put("types", type_histogram(ctx, values));

  std::vector<std::string> example_keys;
  VecBuilder examples(ctx.arena);
  size_t countables = 0, filled = 0;
  std::optional<Value> lo, hi;
  std::set<std::string> distinct;
  bool distinct_capped = false, any_scalar = false;
  for (Value v : values) {
    std::string key;  // the readable form, computed when first needed
    bool keyed = false;
    auto example_key = [&]() -> const std::string& {
      if (!keyed) {
        key = rendered(v);
        keyed = true;
      }
      return key;
    };
    if (example_keys.size() < static_cast<size_t>(opts.sample) &&
        std::find(example_keys.begin(), example_keys.end(), example_key()) == example_keys.end()) {
      example_keys.push_back(example_key());
      examples.push(example_value(ctx, v));
    }
    if (countable(v)) {
      ++countables;
      if (non_empty(v)) ++filled;
    }
    if (auto num = numeric_measure(v)) {
      if (!lo || compare_numbers(*num, *lo) < 0) lo = num;
      if (!hi || compare_numbers(*num, *hi) > 0) hi = num;
    }
    if (is_scalar_type(type_of(v))) {
      any_scalar = true;
      if (!distinct_capped && !distinct.count(example_key())) {
        if (distinct.size() < kDistinctCap)
          distinct.insert(example_key());
        else
          distinct_capped = true;
      }
    }
  }
  m.put("examples", Value::object(examples.finish()));
  if (countables > filled) m.put("non_empty", Value::integer(static_cast<int64_t>(filled)));
  if (lo) {
    MapOut range(ctx);
    range.put("min", *lo);
    range.put("max", *hi);
    m.put("range", range.finish());
  }
  if (any_scalar) {
    m.put("distinct_count", Value::integer(static_cast<int64_t>(distinct.size())));
    if (distinct_capped) m.put("distinct_capped", Value::boolean(true));
  }
  if (presence && value_count > presence->present)
    m.put("value_count", Value::integer(static_cast<int64_t>(value_count)));
  return m.finish();
}

// ---------------------------------------------------------------------------
// Map entries and key names.

struct Entry {
  Value key, val;
  std::string name;  // render_key(key)
};

// The first kMaxMapKeys entries of a map in the order of their key names
// (then type, then hash, so equal names order deterministically). Of a huge
// map only the first kMaxKeyScan entries (in insertion order) are considered.
std::vector<Entry> map_entries(Ctx& ctx, const MapObj* m, Caps& caps) {
  size_t scan = std::min<size_t>(m->count, kMaxKeyScan);
  ctx.tick(static_cast<int64_t>(scan));
  std::vector<Entry> all;
  all.reserve(scan);
  for (HashIter it(m); !it.done() && all.size() < scan; it.next())
    all.push_back({it.key(), it.val(), render_key(it.key())});
  auto order = [](const Entry& a, const Entry& b) {
    if (a.name != b.name) return a.name < b.name;
    std::string ta = type_of(a.key), tb = type_of(b.key);
    if (ta != tb) return ta < tb;
    return hash_value(a.key) < hash_value(b.key);
  };
  if (m->count > kMaxMapKeys) caps.insert("max_keys");
  if (all.size() > kMaxMapKeys) {
    std::partial_sort(all.begin(), all.begin() + kMaxMapKeys, all.end(), order);
    all.resize(kMaxMapKeys);
  } else {
    std::sort(all.begin(), all.end(), order);
  }
  return all;
}

// Keys are the same when equal and of the same type name (1 and 1.0 differ).
bool same_key(Value a, Value b) {
  return (a.type() == b.type() || type_of(a) == type_of(b)) && equals(a, b);
}

// Distinct keys (by type and value) seen so far, looked up by hash.
class KeySet {
 public:
  bool contains(Value k) const {
    auto [lo, hi] = by_hash_.equal_range(hash_value(k));
    for (auto it = lo; it != hi; ++it)
      if (same_key(keys_[it->second], k)) return true;
    return false;
  }
  void insert(Value k) {
    by_hash_.emplace(hash_value(k), keys_.size());
    keys_.push_back(k);
  }
  size_t size() const { return keys_.size(); }
  const std::vector<Value>& keys() const { return keys_; }

 private:
  std::vector<Value> keys_;
  std::unordered_multimap<uint32_t, size_t> by_hash_;
};

// Names for keys whose rendered names collide: two different keys that render
// alike (1 and "1") are told apart by type ("integer:1", "string:1"), and two
// of the same type (long strings cut alike) also by hash.
class KeyNamer {
 public:
  template <class It>
  KeyNamer(It first, It last) {
    for (It it = first; it != last; ++it) {
      auto& ids = by_name_[it->name];
      bool known = false;
      for (Value k : ids)
        if (same_key(k, it->key)) known = true;
      if (!known) ids.push_back(it->key);
    }
  }
  std::string name(const Entry& e) const {
    const auto& ids = by_name_.at(e.name);
    if (ids.size() < 2) return e.name;
    std::string type = type_of(e.key);
    std::string out = type + ":" + e.name;
    size_t same_type = 0;
    for (Value k : ids)
      if (type_of(k) == type) ++same_type;
    if (same_type > 1) out += fmt::format("#{:08x}", hash_value(e.key));
    return out;
  }

 private:
  std::map<std::string, std::vector<Value>> by_name_;
};

// ---------------------------------------------------------------------------
// Root summaries.

std::vector<Value> root_items(Ctx& ctx, const VecObj* v, Caps& caps) {
  std::vector<Value> items;
  size_t n = std::min<size_t>(v->count, kMaxRootItems);
  ctx.tick(static_cast<int64_t>(n));
  items.reserve(n);
  for (VecIter it(v); !it.done() && items.size() < n; it.next())
    items.push_back(it.value());
  if (v->count > kMaxRootItems) caps.insert("max_items");
  return items;
}

void describe_map(Ctx& ctx, MapOut& out, const MapObj* m, const Options& opts, Caps& caps) {
  std::vector<Entry> entries = map_entries(ctx, m, caps);
  out.put("type", ctx.string("map"));
  out.put("count", Value::integer(m->count));
  std::map<std::string, int64_t> key_types;
  for (const Entry& e : entries)
    ++key_types[type_of(e.key)];
  out.put("key_types", histogram(ctx, key_types));
  KeyNamer namer(entries.begin(), entries.end());
  MapOut keys(ctx);
  for (const Entry& e : entries)
    keys.put_str(namer.name(e), field_summary(ctx, {e.val}, opts, std::nullopt));
  out.put("keys", keys.finish());
}

struct IndexedEntry : Entry {
  size_t item;
};

void describe_vector(Ctx& ctx, MapOut& out, const VecObj* v, const Options& opts, Caps& caps) {
  std::vector<Value> items = root_items(ctx, v, caps);
  out.put("type", ctx.string("vector"));
  out.put("count", Value::integer(static_cast<int64_t>(items.size())));
  out.put("scanned", Value::integer(static_cast<int64_t>(items.size())));
  out.put("item_types", type_histogram(ctx, items));
  if (v->count > kMaxRootItems) out.put("count_capped", Value::boolean(true));

  // The keys of the map items: each map's first 100 keys, and at most 100
  // distinct keys over all of them.
  std::vector<IndexedEntry> entries;
  KeySet seen;
  bool any_map = false;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_map()) continue;
    any_map = true;
    for (Entry& e : map_entries(ctx, items[i].map(), caps)) {
      if (!seen.contains(e.key)) {
        if (seen.size() >= kMaxMapKeys) {
          caps.insert("max_keys");
          continue;
        }
        seen.insert(e.key);
      }
      entries.push_back({std::move(e), i});
    }
  }
  if (!any_map) return;
  std::map<std::string, int64_t> key_types;
  for (const auto& e : entries)
    ++key_types[type_of(e.key)];
  out.put("key_types", histogram(ctx, key_types));

  KeyNamer namer(entries.begin(), entries.end());
  struct Group {
    std::vector<Value> values;
    std::set<size_t> items;
  };
  std::map<std::string, Group> groups;
  for (const auto& e : entries) {
    Group& g = groups[namer.name(e)];
    g.values.push_back(e.val);
    g.items.insert(e.item);
  }
  MapOut keys(ctx);
  for (const auto& [name, g] : groups)
    keys.put_str(name, field_summary(ctx, g.values, opts, Presence{g.items.size(), items.size()}));
  out.put("keys", keys.finish());
}

void describe_set(Ctx& ctx, MapOut& out, const SetObj* s, Caps& caps) {
  std::vector<Value> items;
  size_t n = std::min<size_t>(s->count, kMaxRootItems);
  ctx.tick(static_cast<int64_t>(n));
  for (HashIter it(s); !it.done() && items.size() < n; it.next())
    items.push_back(it.key());
  if (s->count > kMaxRootItems) caps.insert("max_items");
  out.put("type", ctx.string("set"));
  out.put("count", Value::integer(s->count));
  out.put("scanned", Value::integer(static_cast<int64_t>(items.size())));
  out.put("item_types", type_histogram(ctx, items));
}

// ---------------------------------------------------------------------------
// Nested paths ({:paths true}).

// "a.b": path parts joined with dots; dots and backslashes in a part escaped.
std::string escape_part(const std::string& part) {
  std::string out;
  for (char c : part) {
    if (c == '\\' || c == '.') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

struct PathValue {
  size_t root;
  Value value;
};

struct PathWalk {
  Ctx& ctx;
  int max_depth;
  Caps& caps;
  std::map<std::string, std::vector<PathValue>> paths;
  size_t value_count = 0;
  size_t visits = 0;

  // Visits the map entries under `prefix`; vectors under a path are looked
  // through (their items share the path) up to kMaxDepth vectors deep.
  void walk(Value v, const std::string& prefix, int depth, size_t root, int list_depth) {
    if (depth >= max_depth) return;
    if (++visits > kMaxVisits) {
      caps.insert("max_visits");
      return;
    }
    if (v.is_map()) {
      if (value_count >= kMaxPathValues) {
        if (v.map()->count > 0) caps.insert("max_path_values");
        return;
      }
      std::vector<Entry> entries = map_entries(ctx, v.map(), caps);
      KeyNamer namer(entries.begin(), entries.end());
      for (const Entry& e : entries) {
        std::string part = escape_part(namer.name(e));
        std::string path = prefix.empty() ? part : prefix + "." + part;
        if (!paths.count(path)) {
          if (paths.size() >= kMaxPaths) {
            caps.insert("max_paths");
            continue;
          }
        }
        if (value_count >= kMaxPathValues) {
          caps.insert("max_path_values");
          continue;
        }
        ++value_count;
        ctx.tick();
        paths[path].push_back({root, e.val});
        walk(e.val, path, depth + 1, root, list_depth);
      }
    } else if (v.is_vector() && !prefix.empty()) {
      if (list_depth >= kMaxDepth) {
        if (v.vec()->count > 0) caps.insert("max_depth");
        return;
      }
      for (Value item : root_items(ctx, v.vec(), caps))
        walk(item, prefix, depth, root, list_depth + 1);
    }
  }
};

Value describe_paths(Ctx& ctx, Value v, const Options& opts, Caps& caps) {
  PathWalk w{ctx, opts.depth, caps, {}, 0};
  size_t denominator = 1;
  if (v.is_vector()) {
    std::vector<Value> items = root_items(ctx, v.vec(), caps);
    denominator = items.size();
    for (size_t i = 0; i < items.size(); ++i)
      w.walk(items[i], "", 0, i, 0);
  } else {
    w.walk(v, "", 0, 0, 0);
  }
  MapOut out(ctx);
  for (const auto& [path, pvs] : w.paths) {
    std::vector<Value> values;
    std::set<size_t> roots;
    for (const PathValue& pv : pvs) {
      values.push_back(pv.value);
      roots.insert(pv.root);
    }
    out.put_str(
        path, field_summary(ctx, values, opts, Presence{roots.size(), denominator}, values.size()));
  }
  return out.finish();
}

// ---------------------------------------------------------------------------

std::optional<int64_t> int_option(const MapObj* m, Ctx& ctx, std::string_view name) {
  const Value* v = map_find_flex(m, ctx.keyword(name));
  if (v && v->is_int()) return v->as_int();
  return std::nullopt;
}

Options parse_options(Ctx& ctx, Value raw) {
  Options o;
  if (raw.is_nil()) return o;
  if (!raw.is_map())
    type_error("describe", "an options map such as {:paths true :depth 2}", raw, 2);
  const MapObj* m = raw.map();
  if (auto d = int_option(m, ctx, "depth"))
    o.depth = static_cast<int>(std::clamp<int64_t>(*d, 1, kMaxDepth));
  if (auto s = int_option(m, ctx, "sample"))
    o.sample = static_cast<int>(std::clamp<int64_t>(*s, 1, kMaxSample));
  const Value* p = map_find_flex(m, ctx.keyword("paths"));
  o.paths = p && p->truthy();
  return o;
}

Value describe_fn(Ctx& ctx, const Value* a, uint32_t n) {
  Options opts = parse_options(ctx, n > 1 ? a[1] : Value());
  Value x = a[0];
  Caps caps;
  MapOut out(ctx);
  if (x.is_map()) {
    describe_map(ctx, out, x.map(), opts, caps);
  } else if (x.is_vector()) {
    describe_vector(ctx, out, x.vec(), opts, caps);
  } else if (x.is_set()) {
    describe_set(ctx, out, x.set(), caps);
  } else {
    out.put("type", ctx.string(type_of(x)));
    out.put("sample", example_value(ctx, x));
    Value summary = field_summary(ctx, {x}, opts, std::nullopt);
    for (HashIter it(summary.map()); !it.done(); it.next())
      out.put(it.key().kw()->name(), it.val());
  }
  if (opts.paths) out.put("paths", describe_paths(ctx, x, opts, caps));
  put_caps(ctx, out, caps);
  return out.finish();
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "describe", 1, 2, describe_fn, "(describe x) or (describe x {:paths true :depth 2 :sample 3})", "A bounded summary of a value's shape: type, counts, item and key types, per-key presence, examples, ranges and distinct counts; :paths adds nested paths."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> describe() {
  return kDefs;
}

}  // namespace ptc::builtins
