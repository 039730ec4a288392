#include "runtime/builtins/registry.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

// Every symbol the analyzer resolves asks for its builtin by name: an open
// addressing table with a short hash, a quarter full, answers in one or two
// probes.
class NameIndex {
 public:
  static uint32_t hash(std::string_view s) {
    uint32_t h = 2166136261u ^ static_cast<uint32_t>(s.size());
    for (unsigned char c : s)
      h = (h ^ c) * 16777619u;  // FNV-1a
    return h;
  }
  void build(const std::vector<BuiltinDef>& defs) {
    size_t size = 64;
    while (size < defs.size() * 4)
      size *= 2;
    slots_.assign(size, 0);
    mask_ = static_cast<uint32_t>(size - 1);
    for (uint32_t id = 0; id < defs.size(); ++id) {
      uint32_t i = hash(defs[id].name) & mask_;
      for (; slots_[i]; i = (i + 1) & mask_)
        if (defs[slots_[i] - 1].name == defs[id].name) break;  // the first one keeps the name
      if (!slots_[i]) slots_[i] = id + 1;
    }
  }
  std::optional<uint32_t> find(const std::vector<BuiltinDef>& defs, std::string_view name) const {
    for (uint32_t i = hash(name) & mask_; slots_[i]; i = (i + 1) & mask_)
      if (same_name(defs[slots_[i] - 1].name, name)) return slots_[i] - 1;
    return std::nullopt;
  }

 private:
  std::vector<uint32_t> slots_;  // builtin id + 1; 0 is empty
  uint32_t mask_ = 0;
};

struct Table {
  std::vector<BuiltinDef> defs;
  NameIndex by_name;

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
      for (const BuiltinDef& d : family)
        defs.push_back(d);
    }
    by_name.build(defs);
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

std::atomic<const BuiltinDef*> detail::builtin_defs{nullptr};

const BuiltinDef* detail::build_builtin_defs() {
  const BuiltinDef* defs = table().defs.data();
  builtin_defs.store(defs, std::memory_order_release);
  return defs;
}

std::optional<uint32_t> find_builtin(std::string_view name) {
  // The analyzer asks for every symbol: past the first call, no static guard.
  static std::atomic<const Table*> published{nullptr};
  const Table* t = published.load(std::memory_order_acquire);
  if (!t) [[unlikely]] {
    t = &table();
    published.store(t, std::memory_order_release);
  }
  return t->by_name.find(t->defs, name);
}

std::vector<bool> builtin_id_set(std::initializer_list<std::string_view> names) {
  std::vector<bool> set(all_builtins().size());
  for (std::string_view name : names) {
    std::optional<uint32_t> id = find_builtin(name);
    if (!id) throw LispError(ErrorKind::RuntimeError, fmt::format("internal: no builtin {}", name));
    set[*id] = true;
  }
  return set;
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

}  // namespace ptc
