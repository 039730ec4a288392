#include "runtime/builtins/registry.hpp"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"

namespace ptc {

namespace {

struct Table {
  std::vector<BuiltinDef> defs;
  std::unordered_map<std::string_view, uint32_t> by_name;

  Table() {
    for (auto family :
         {builtins::arithmetic(),     builtins::math(),        builtins::bitwise(),
          builtins::comparison(),     builtins::predicates(),  builtins::io(),
          builtins::describe(),       builtins::collections(), builtins::sequences(),
          builtins::seq_ops(),        builtins::sorting(),     builtins::aggregates(),
          builtins::functional(),     builtins::walk(),        builtins::parallel(),
          builtins::maps(),           builtins::sets(),        builtins::strings(),
          builtins::string_methods(), builtins::parsing(),     builtins::format(),
          builtins::regex(),          builtins::json_fns(),    builtins::datetime(),
          builtins::discovery(),      builtins::compat(),      builtins::internal()}) {
      for (const BuiltinDef& d : family) {
        by_name.emplace(d.name, static_cast<uint32_t>(defs.size()));
        defs.push_back(d);
      }
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

std::span<const BuiltinDef> all_builtins() {
  return table().defs;
}

std::optional<uint32_t> find_builtin(std::string_view name) {
  const auto& m = table().by_name;
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

void throw_builtin_arity(const BuiltinDef& def, uint32_t nargs) {
  std::string expected;
  bool one = false;
  if (def.max_args == kVariadic) {
    expected = fmt::format("at least {}", def.min_args);
    one = def.min_args == 1;
  } else if (def.min_args == def.max_args) {
    expected = fmt::format("{}", def.min_args);
    one = def.min_args == 1;
  } else {
    expected = fmt::format("{} to {}", def.min_args, def.max_args);
  }
  throw_error(
      ErrorKind::ArityError,
      fmt::format("{} expects {} argument{}, got {}", def.name, expected, one ? "" : "s", nargs),
      def.signature.empty() ? std::string() : fmt::format("usage: {}", def.signature));
}

Value call_builtin(Ctx& ctx, uint32_t id, const Value* args, uint32_t nargs) {
  const BuiltinDef& def = builtin_def(id);
  check_builtin_arity(def, nargs);
  return def.fn(ctx, args, nargs);
}

}  // namespace ptc
