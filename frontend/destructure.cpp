// Destructuring (spec §5.1): vector patterns with & rest and :as, map patterns
// with :keys, :strs, :or, :as and explicit {name key} pairs, nested freely.
// A pattern becomes plain let bindings over hidden temporaries.
#include <fmt/format.h>

#include "frontend/analyzer_impl.hpp"
#include "runtime/stack_guard.hpp"

namespace ptc::analysis {

void Analyzer::bind_pattern(const Form* p, Node* init, std::vector<Binding>& out) {
  check_native_stack("analyzing a nested destructuring pattern");
  SourceLoc loc = p->loc;
  switch (p->kind) {
    case FormKind::Symbol: {
      if (p->text == "&")
        fail(ErrorKind::UnsupportedPattern, p, "& must be followed by a rest binding",
             "usage: [first & more]");
      if (p->text.find('/') != std::string_view::npos && p->text != "/")
        fail(ErrorKind::UnsupportedPattern, p,
             fmt::format("cannot bind the qualified name {}", p->text),
             "binding names have no namespace");
      // Bind after evaluating: the name is visible only to later bindings.
      LocalVar* v = arena_.make<LocalVar>();
      v->name = p->text;
      v->owner = current_fn_;
      v->loc = loc;
      out.push_back({v, init});
      bind_local(p->text, v);
      return;
    }
    case FormKind::Vector: {
      LocalVar* tmp = hidden_local(loc, "vec");
      out.push_back({tmp, init});
      int64_t index = 0;
      for (size_t i = 0; i < p->count; ++i) {
        const Form* item = p->items[i];
        if (item->is_symbol("&")) {
          if (i + 1 >= p->count)
            fail(ErrorKind::UnsupportedPattern, item, "& must be followed by a rest binding",
                 "usage: [first & more]");
          bind_pattern(p->items[i + 1],
                       builtin_call("__drest", loc,
                                    {local_ref(tmp, loc), const_node(loc, Value::integer(index))}),
                       out);
          ++i;
          continue;
        }
        if (item->kind == FormKind::Keyword && item->text == "as") {
          if (i + 1 >= p->count || p->items[i + 1]->kind != FormKind::Symbol)
            fail(ErrorKind::UnsupportedPattern, item, ":as must be followed by a name",
                 "usage: [a b :as all]");
          bind_pattern(p->items[i + 1], local_ref(tmp, loc), out);
          ++i;
          continue;
        }
        bind_pattern(item,
                     builtin_call("__dnth", loc,
                                  {local_ref(tmp, loc), const_node(loc, Value::integer(index))}),
                     out);
        ++index;
      }
      return;
    }
    case FormKind::Map: {
      LocalVar* tmp = hidden_local(loc, "map");
      out.push_back({tmp, builtin_call("__dmap", loc, {init})});
      const Form* defaults = nullptr;
      for (size_t i = 0; i + 1 < p->count; i += 2)
        if (p->items[i]->kind == FormKind::Keyword && p->items[i]->text == "or") {
          defaults = p->items[i + 1];
          if (defaults->kind != FormKind::Map)
            fail(ErrorKind::UnsupportedPattern, defaults, ":or needs a map of defaults",
                 "e.g. :or {b 2}");
        }
      auto default_for = [&](std::string_view name) -> const Form* {
        if (!defaults) return nullptr;
        for (size_t i = 0; i + 1 < defaults->count; i += 2)
          if (defaults->items[i]->kind == FormKind::Symbol && defaults->items[i]->text == name)
            return defaults->items[i + 1];
        return nullptr;
      };
      auto lookup = [&](const Form* name_form, Value key) -> Node* {
        std::vector<Node*> args{local_ref(tmp, loc), const_node(name_form->loc, key)};
        if (name_form->kind == FormKind::Symbol)
          if (const Form* d = default_for(name_form->text)) args.push_back(analyze(d, false));
        return node<BuiltinCallNode>(name_form->loc, builtin_id("get"), span_of(args));
      };
      for (size_t i = 0; i < p->count; i += 2) {
        const Form* k = p->items[i];
        const Form* v = i + 1 < p->count ? p->items[i + 1] : nullptr;
        if (!v)
          fail(ErrorKind::UnsupportedPattern, k, "map pattern needs pairs",
               "e.g. {:keys [a b]} or {a :a}");
        if (k->kind == FormKind::Keyword) {
          std::string_view kw = k->text;
          if (kw == "or") continue;
          if (kw == "as") {
            if (v->kind != FormKind::Symbol)
              fail(ErrorKind::UnsupportedPattern, v, ":as must be followed by a name");
            bind_pattern(v, local_ref(tmp, loc), out);
            continue;
          }
          if (kw == "keys" || kw == "strs") {
            if (v->kind != FormKind::Vector)
              fail(ErrorKind::UnsupportedPattern, v, fmt::format(":{} needs a vector of names", kw),
                   fmt::format("e.g. {{:{} [a b]}}", kw));
            for (const Form* name : v->children()) {
              if (name->kind != FormKind::Symbol &&
                  !(kw == "keys" && name->kind == FormKind::Keyword))
                fail(ErrorKind::UnsupportedPattern, name,
                     fmt::format(":{} entries must be names", kw));
              Value key = kw == "keys" ? ctx_.keyword(name->text) : ctx_.string(name->text);
              const Form* sym =
                  name->kind == FormKind::Symbol ? name : make_symbol(name->text, name->loc);
              bind_pattern(sym, lookup(sym, key), out);
            }
            continue;
          }
          if (kw == "syms")
            fail(ErrorKind::UnsupportedPattern, k,
                 ":syms destructuring is not supported (PTC-Lisp has no symbol keys)",
                 "use :keys or :strs");
          fail(ErrorKind::UnsupportedPattern, k,
               fmt::format("unknown map destructuring option :{}", kw),
               "supported: :keys, :strs, :or, :as, and {name :key}");
        }
        // {name key}: bind the pattern `k` to the value under the literal key `v`.
        auto key = constant_of(v);
        if (!key)
          fail(ErrorKind::UnsupportedPattern, v, "the key in {name key} must be a literal",
               "e.g. {the-name :name}");
        bind_pattern(k, lookup(k, *key), out);
      }
      return;
    }
    default:
      fail(ErrorKind::UnsupportedPattern, p,
           fmt::format("cannot bind to a {}", form_kind_name(p->kind)),
           "bind names, [vector] patterns or {:keys [...]} patterns");
  }
}

}  // namespace ptc::analysis
