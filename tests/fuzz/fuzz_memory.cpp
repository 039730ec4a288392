// Memory import: the input is a JSON object whose entries become the memory a
// run is given (vm/memory_functions.cpp, import_value). Inside it,
//   {"$fn": "(fn [n] (fn [x] (+ x n)))", "$args": [5]}  a function kept as its
//                                  Restorer (factory source and captured values),
//   {"$ref": 0}                    the same Restorer as the 0th "$fn" (shared),
//   {"$opaque": "#fn[f]"}          a value with no data form (cannot be rebuilt),
//   ":name"                        a keyword,
// and a top-level "$call": {"f": [1, 2]} adds the call (f 1 2) to the program.
// The program reads every memory name that is a plain symbol, defines a
// function capturing them, and makes the calls; when that run succeeds, a
// second run gets the memory the first exported and reads it all again.
#include <memory>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "runtime/stack_guard.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using Kind = HostValue::Kind;

class MemoryBuilder {
 public:
  HostValue convert(const HostValue& h) {
    ptc::check_native_stack("converting fuzzed memory");
    switch (h.kind()) {
      case Kind::String:
        if (h.text().starts_with(':')) return HostValue::keyword(h.text().substr(1));
        return h;
      case Kind::Vector: {
        std::vector<HostValue> items;
        for (const HostValue& x : h.items())
          items.push_back(convert(x));
        return HostValue::vector(std::move(items));
      }
      case Kind::Map:
        return convert_map(h);
      default:
        return h;
    }
  }

 private:
  HostValue convert_map(const HostValue& h) {
    if (const HostValue* factory = h.get("$fn"); factory && factory->kind() == Kind::String) {
      auto r = std::make_shared<ptc::Restorer>();
      r->factory = factory->text();
      if (const HostValue* args = h.get("$args"); args && args->kind() == Kind::Vector)
        for (const HostValue& a : args->items())
          r->args.push_back(convert(a));
      restorers_.push_back(r);
      return HostValue::opaque("#fn[fuzzed]", r);
    }
    if (const HostValue* ref = h.get("$ref"); ref && ref->kind() == Kind::Int) {
      if (ref->as_int() >= 0 && static_cast<size_t>(ref->as_int()) < restorers_.size())
        return HostValue::opaque("#fn[shared]", restorers_[ref->as_int()]);
      return HostValue::nil();
    }
    if (const HostValue* text = h.get("$opaque"); text && text->kind() == Kind::String)
      return HostValue::opaque(text->text());
    std::vector<std::pair<HostValue, HostValue>> entries;
    const auto& items = h.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      entries.emplace_back(convert(items[i]), convert(items[i + 1]));
    return HostValue::map(std::move(entries));
  }

  std::vector<std::shared_ptr<const ptc::Restorer>> restorers_;
};

bool plain_name(std::string_view s) {
  if (s.empty() || s.size() > 16 || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '?' || c == '!'))
      return false;
  return true;
}

const ptc::RunOptions& base_options() {
  static const ptc::RunOptions* options = [] {  // never destroyed, as a host's would be
    auto* o = new ptc::RunOptions;
    o->limits = ptc::fuzz::tight_limits();
    return o;
  }();
  return *options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return -1;
  HostValue json;
  try {
    json = ptc::parse_json(ptc::fuzz::as_text(data, size));
  } catch (ptc::LispError&) {
    return 0;
  }
  if (json.kind() != Kind::Map) return 0;
  MemoryBuilder builder;
  std::vector<std::pair<HostValue, HostValue>> memory;
  std::vector<std::string> names;
  std::string calls;
  const auto& items = json.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& key = items[i].text();
    if (key == "$call") {
      if (items[i + 1].kind() != Kind::Map) continue;
      const auto& cs = items[i + 1].items();
      for (size_t j = 0; j + 1 < cs.size() && j < 16; j += 2) {
        if (!plain_name(cs[j].text())) continue;
        calls += " (" + cs[j].text();
        if (cs[j + 1].kind() == Kind::Vector)
          for (const HostValue& a : cs[j + 1].items())
            calls += " " + ptc::format_value(builder.convert(a));
        calls += ")";
      }
      continue;
    }
    memory.emplace_back(HostValue::string(key), builder.convert(items[i + 1]));
    if (plain_name(key) && names.size() < 8) names.push_back(key);
  }
  std::string read_all;
  for (const std::string& n : names)
    read_all += " " + n;

  ptc::RunOptions options = base_options();
  options.memory = HostValue::map(std::move(memory));
  std::string program =
      "(def fuzz-keep (let [v [" + read_all + "]] (fn [] v)))\n[" + read_all + calls + "]";
  ptc::fuzz::debug("memory", ptc::format_value(options.memory));
  ptc::fuzz::debug("program", program);
  ptc::Step first = ptc::run(program, options);
  ptc::fuzz::debug("first run", first.ok ? first.printed : ptc::format_error(first.error));
  if (!first.ok) {
    PTC_FUZZ_CHECK(first.memory == options.memory, ptc::format_error(first.error));
    return 0;
  }
  std::string shown = ptc::format_value(first.memory, 4);
  options.memory = first.memory;
  ptc::Step second = ptc::run("[(fuzz-keep)" + read_all + calls + "]", options);
  ptc::fuzz::debug("second run", second.ok ? second.printed : ptc::format_error(second.error));
  if (second.ok) shown = ptc::format_value(second.value, 4);
  return 0;
}
