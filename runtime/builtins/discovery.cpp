// REPL discovery over the documented names (documentation.hpp: the special
// forms and the builtin table; spec §9.7, DIV-51): `doc` and `source` print
// and return nil; `meta`, `dir`, `apropos`, `ns-publics`, `all-ns` and
// `ns-name` return data. The analyzer quotes a bare symbol argument of
// doc/meta/dir/ns-publics/ns-name/source, so (doc map) looks up "map" instead
// of evaluating it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "include/ptc/tools.hpp"
#include "runtime/builtins/documentation.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/host_value.hpp"
#include "runtime/objects.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// The name a ref argument denotes: a quoted symbol or a string.
std::string ref_text(Value v, std::string_view fname) {
  if (v.is(Type::Symbol)) return std::string(v.kw()->name());
  if (v.is_string()) return std::string(v.str()->view());
  if (v.is_keyword()) return std::string(v.kw()->name());
  type_error(fname, "a symbol or a string naming a function or namespace", v, 1,
             "write the name itself: (doc map) or (doc \"map\")");
}

std::vector<std::string> tokens(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string line_of(const DocumentedName& e, bool with_ref) {
  std::string line = with_ref ? "local: " + e.ref() : e.name;
  if (!e.doc.empty()) line += " - " + std::string(e.doc);
  return line;
}

Value strings_vector(Ctx& ctx, const std::vector<std::string>& lines) {
  VecBuilder b(ctx.arena);
  for (const std::string& l : lines)
    b.push(ctx.string(l));
  return Value::object(b.finish());
}

int64_t option(Ctx& ctx, const Value* a, uint32_t n, std::string_view fname, std::string_view key,
               int64_t dflt, int64_t lo, int64_t hi) {
  if (n < 2 || a[1].is_nil()) return dflt;
  if (!a[1].is_map()) type_error(fname, "an options map", a[1], 2, "e.g. {:limit 10}");
  const Value* v = map_find_flex(a[1].map(), ctx.keyword(key));
  if (!v || v->is_nil()) return dflt;
  int64_t x = expect_int(fname, *v, 2);
  if (x < lo || x > hi)
    throw_error(ErrorKind::TypeError,
                fmt::format("{}: :{} must be between {} and {}, got {}", fname, key, lo, hi, x));
  return x;
}

// An upstream tool of the run's catalog named "server/tool", or nullptr.
const CatalogTool* catalog_tool(const Ctx& ctx, std::string_view ref) {
  size_t slash = ref.find('/');
  if (!ctx.tool_catalog || slash == std::string_view::npos) return nullptr;
  return ctx.tool_catalog->find(ref.substr(0, slash), ref.substr(slash + 1));
}

bool catalog_has_server(const Ctx& ctx, std::string_view server) {
  if (!ctx.tool_catalog) return false;
  for (const auto& [name, description] : ctx.tool_catalog->servers)
    if (name == server) return true;
  return false;
}

std::string first_line(std::string_view text, size_t max) {
  std::string line(text.substr(0, text.find('\n')));
  if (line.size() > max) line = line.substr(0, max - 3) + "...";
  return line;
}

// (doc "fs/read_text_file"): description, arguments and how to call it.
std::string catalog_doc_text(const CatalogTool& t) {
  std::string out = fmt::format("{}/{} - a tool of the upstream MCP server {}{}\n", t.server,
                                t.name, t.server, t.read_only ? " (read-only)" : "");
  if (!t.description.empty()) out += "  " + t.description.substr(0, 2000) + "\n";
  std::vector<std::string> required;
  if (const HostValue* r = t.input_schema.get("required");
      r && r->kind() == HostValue::Kind::Vector)
    for (const HostValue& x : r->items())
      if (x.kind() == HostValue::Kind::String) required.push_back(x.text());
  std::string example;
  if (const HostValue* props = t.input_schema.get("properties");
      props && props->kind() == HostValue::Kind::Map) {
    out += "  arguments:\n";
    const auto& items = props->items();
    for (size_t i = 0; i + 1 < items.size() && i < 100; i += 2) {
      const std::string& name = items[i].text();
      const HostValue* type = items[i + 1].get("type");
      bool req = std::find(required.begin(), required.end(), name) != required.end();
      out += fmt::format("    {} ({}{})\n", name,
                         type && type->kind() == HostValue::Kind::String ? type->text() : "any",
                         req ? ", required" : "");
      if (req) example += fmt::format("{}:{} ...", example.empty() ? "" : " ", name);
    }
  }
  out += fmt::format(
      "  call: (tool/call {{:server \"{}\" :tool \"{}\" :args {{{}}}}})\n"
      "  returns {{:ok true :value v}} or {{:ok false :reason :timeout :message \"...\"}}",
      t.server, t.name, example);
  return out;
}

Value doc(Ctx& ctx, const Value* a, uint32_t) {
  std::string ref = ref_text(a[0], "doc");
  const DocumentedName* e = find_documented(ref);
  if (!e) {
    if (const CatalogTool* t = catalog_tool(ctx, ref)) {
      ctx.prints.push_back(catalog_doc_text(*t));
      return Value();
    }
    ctx.add_print(fmt::format("no documentation for {}", ref));
    return Value();
  }
  // Documentation goes through the print channel (DIV-51); keep it whole.
  ctx.prints.push_back(doc_text(*e));
  return Value();
}

Value meta_map(Ctx& ctx, const DocumentedName& e) {
  HashBuilder b(ctx.arena, Type::Map);
  b.put(ctx.keyword("kind"), ctx.string(e.kind()));
  b.put(ctx.keyword("source"), ctx.string("local"));
  b.put(ctx.keyword("namespace"), ctx.string(e.ns));
  b.put(ctx.keyword("name"), ctx.string(e.name));
  b.put(ctx.keyword("ref"), ctx.string(e.ref()));
  b.put(ctx.keyword("description"), ctx.string(e.doc));
  Value sig = ctx.string(e.signature);
  b.put(ctx.keyword("signatures"),
        Value::object(vec_from(ctx.arena, &sig, e.signature.empty() ? 0 : 1)));
  return Value::object(b.finish());
}

Value meta(Ctx& ctx, const Value* a, uint32_t) {
  std::string ref = ref_text(a[0], "meta");
  if (const DocumentedName* e = find_documented(ref)) return meta_map(ctx, *e);
  const CatalogTool* t = catalog_tool(ctx, ref);
  if (!t) return Value();
  HashBuilder b(ctx.arena, Type::Map);
  b.put(ctx.keyword("kind"), ctx.string("upstream_tool"));
  b.put(ctx.keyword("source"), ctx.string("upstream"));
  b.put(ctx.keyword("server"), ctx.string(t->server));
  b.put(ctx.keyword("name"), ctx.string(t->name));
  b.put(ctx.keyword("ref"), ctx.string(t->server + "/" + t->name));
  b.put(ctx.keyword("description"), ctx.string(t->description));
  b.put(ctx.keyword("read_only"), Value::boolean(t->read_only));
  b.put(ctx.keyword("input_schema"), import_value(ctx, t->input_schema));
  return Value::object(b.finish());
}

std::vector<const DocumentedName*> namespace_members(std::string_view ns) {
  std::vector<const DocumentedName*> out;
  const std::string_view* canon = canonical_namespace(ns);
  for (const DocumentedName& e : documented_names()) {
    bool in = canon ? e.ns == *canon
                    : (e.name.starts_with(std::string(ns) + "/") ||
                       (ns == "String" && e.name.starts_with('.')) ||
                       (ns == "java.lang.String" && e.name.starts_with('.')));
    if (in) out.push_back(&e);
  }
  std::sort(out.begin(), out.end(),
            [](const DocumentedName* x, const DocumentedName* y) { return x->name < y->name; });
  return out;
}

Value dir(Ctx& ctx, const Value* a, uint32_t n) {
  std::string ns = ref_text(a[0], "dir");
  int64_t limit = option(ctx, a, n, "dir", "limit", 50, 1, 200);
  int64_t offset = option(ctx, a, n, "dir", "offset", 0, 0, INT32_MAX);
  std::vector<const DocumentedName*> members = namespace_members(ns);
  if (members.empty() && catalog_has_server(ctx, ns)) {
    std::vector<std::string> lines;
    size_t skipped = 0;
    for (const CatalogTool& t : ctx.tool_catalog->tools) {
      if (t.server != ns) continue;
      if (skipped++ < static_cast<size_t>(offset)) continue;
      if (lines.size() == static_cast<size_t>(limit)) break;
      std::string desc = first_line(t.description, 120);
      lines.push_back(desc.empty() ? t.name : t.name + " - " + desc);
    }
    return strings_vector(ctx, lines);
  }
  if (members.empty())
    throw_error(ErrorKind::RuntimeError, fmt::format("dir: unknown namespace {}", ns),
                "try (all-ns) for the namespaces, or (apropos \"word\") to search");
  std::vector<std::string> lines;
  for (size_t i = static_cast<size_t>(offset);
       i < members.size() && lines.size() < static_cast<size_t>(limit); ++i)
    lines.push_back(line_of(*members[i], false));
  return strings_vector(ctx, lines);
}

Value apropos(Ctx& ctx, const Value* a, uint32_t n) {
  if (!a[0].is_string() && !a[0].is(Type::Symbol))
    type_error("apropos", "a search string", a[0], 1);
  std::string query = ref_text(a[0], "apropos");
  int64_t limit = option(ctx, a, n, "apropos", "limit", 8, 1, 50);
  // The query is the program's text: its word list is checked against the heap
  // left, and scoring charges one reduction per entry and query word.
  reserve_scratch(ctx, query.size() / 2 + 1, sizeof(std::string));
  std::vector<std::string> q = tokens(query);
  struct Scored {
    int score;
    std::string_view name;
    const DocumentedName* e;  // or
    const CatalogTool* tool;
  };
  auto score_of = [&](std::string_view name, std::string_view doc) {
    ctx.tick(1 + static_cast<int64_t>(q.size()));
    int score = 0;
    std::vector<std::string> name_tokens = tokens(name), doc_tokens = tokens(doc);
    for (const std::string& t : q) {
      for (const std::string& nt : name_tokens)
        if (nt == t)
          score += 10;
        else if (nt.find(t) != std::string::npos)
          score += 4;
      for (const std::string& dt : doc_tokens)
        if (dt == t) score += 2;
    }
    if (name == query) score += 50;
    return score;
  };
  std::vector<Scored> hits;
  for (const DocumentedName& e : documented_names())
    if (int score = score_of(e.name, e.doc); score > 0)
      hits.push_back({score, e.name, &e, nullptr});
  if (ctx.tool_catalog)
    for (const CatalogTool& t : ctx.tool_catalog->tools)
      if (int score = score_of(t.name, std::string_view(t.description).substr(0, 4000)); score > 0)
        hits.push_back({score, t.name, nullptr, &t});
  std::stable_sort(hits.begin(), hits.end(), [](const Scored& x, const Scored& y) {
    return x.score != y.score ? x.score > y.score : x.name < y.name;
  });
  std::vector<std::string> lines;
  for (const Scored& h : hits) {
    if (lines.size() == static_cast<size_t>(limit)) break;
    if (h.e) {
      lines.push_back(line_of(*h.e, true));
    } else {
      std::string desc = first_line(h.tool->description, 120);
      lines.push_back(
          fmt::format("{}.{}{}{}", h.tool->server, h.tool->name, desc.empty() ? "" : " - ", desc));
    }
  }
  return strings_vector(ctx, lines);
}

Value ns_publics(Ctx& ctx, const Value* a, uint32_t) {
  std::string ns = ref_text(a[0], "ns-publics");
  if (!canonical_namespace(ns))
    throw_error(ErrorKind::RuntimeError, fmt::format("ns-publics: unknown namespace {}", ns),
                "known namespaces: clojure.core, clojure.string, clojure.set, clojure.walk, json");
  HashBuilder b(ctx.arena, Type::Map);
  for (const DocumentedName* e : namespace_members(ns)) {
    HashBuilder m(ctx.arena, Type::Map);
    m.put(ctx.keyword("kind"), ctx.string(e->kind()));
    m.put(ctx.keyword("signature"), ctx.string(e->signature));
    m.put(ctx.keyword("description"), ctx.string(e->doc));
    b.put(ctx.string(e->name), Value::object(m.finish()));
  }
  return Value::object(b.finish());
}

Value all_ns(Ctx& ctx, const Value*, uint32_t) {
  return strings_vector(ctx,
                        {"clojure.core", "clojure.set", "clojure.string", "clojure.walk", "json"});
}

Value ns_name(Ctx& ctx, const Value* a, uint32_t) {
  std::string ns = ref_text(a[0], "ns-name");
  const std::string_view* canon = canonical_namespace(ns);
  if (!canon)
    throw_error(ErrorKind::RuntimeError, fmt::format("ns-name: unknown namespace {}", ns),
                "try (all-ns) for the list of namespaces");
  return ctx.string(*canon);
}

Value source(Ctx& ctx, const Value* a, uint32_t) {
  ref_text(a[0], "source");
  // Only an attached prelude has source; builtins have none (spec §9.7).
  ctx.add_print("no source available");
  return Value();
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Discovery, "doc", 1, 1, doc, "(doc name)", "Prints the documentation of a function or special form; returns nil."),
    PTC_BUILTIN(Discovery, "meta", 1, 1, meta, "(meta name)", "Metadata map of a function or special form, or nil."),
    PTC_BUILTIN(Discovery, "dir", 1, 2, dir, "(dir namespace) or (dir namespace {:limit n :offset k})", "Lines naming the members of a namespace."),
    PTC_BUILTIN(Discovery, "apropos", 1, 2, apropos, "(apropos \"query\") or (apropos \"query\" {:limit n})", "Lines for the functions that match the query best."),
    PTC_BUILTIN(Discovery, "ns-publics", 1, 1, ns_publics, "(ns-publics namespace)", "Map from member name to its kind, signature and description."),
    PTC_BUILTIN(Discovery, "all-ns", 0, 0, all_ns, "(all-ns)", "The names of the namespaces programs can use."),
    PTC_BUILTIN(Discovery, "ns-name", 1, 1, ns_name, "(ns-name namespace)", "The canonical name of a namespace alias."),
    PTC_BUILTIN(Discovery, "source", 1, 1, source, "(source name)", "Prints the source of a prelude export; builtins have none."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> discovery() {
  return kDefs;
}

}  // namespace ptc::builtins
