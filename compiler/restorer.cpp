// The memory restorer of a compiled function: "(fn [captured names] (fn ...))",
// a function of the closure's captured values that rebuilds it in a later run,
// printed once per function and kept with it.
#include <mutex>
#include <string>

#include "compiler/proto.hpp"
#include "frontend/form.hpp"

namespace ptc {

namespace {

std::string print_restorer(const FnProto& fn) {
  if (!fn.origin) return {};
  const Form& origin = *fn.origin;
  size_t size = 32 + fn.name.size() + origin.text.size();
  for (size_t i = 0; i < origin.count; ++i)
    size += origin.items[i]->text.size() + 1;
  for (std::string_view name : fn.capture_names)
    size += name.size() + 1;
  std::string out;
  out.reserve(size);  // one allocation: most of the text is copied as written
  out += "(fn [";
  for (size_t i = 0; i < fn.capture_names.size(); ++i) {
    std::string_view name = fn.capture_names[i];
    // Bindings the analyzer made itself (their names have a space) or #()'s
    // parameters cannot be written as parameters; `fn` and `let` would hide
    // the forms the printed source uses.
    if (name.empty() || name.find(' ') != std::string_view::npos || name.starts_with('%') ||
        name == "fn" || name == "let")
      return {};
    if (i) out += ' ';
    out += name;
  }
  out += "] ";
  bool unnamed_list = origin.kind == FormKind::List &&
                      (origin.count < 2 || origin.items[1]->kind != FormKind::Symbol);
  if (unnamed_list && !fn.name.empty()) {
    // (defn f [x] ...) and (def f (fn [x] ...)): keep the name, for #fn[f].
    out += "(fn ";
    out += fn.name;
    for (size_t i = 1; i < origin.count; ++i) {
      out += ' ';
      print_form_as_written(*origin.items[i], out);
    }
    out += ')';
  } else {
    print_form_as_written(origin, out);
  }
  out += ')';
  return out;
}

}  // namespace

const std::string& restorer_source(const FnHeader& header) {
  const auto& fn = static_cast<const FnProto&>(header);
  // Once, by whichever thread comes first (threads may run one compiled
  // program); std::call_once costs more than the printing of a short defn.
  if (!fn.restorer_printed.load(std::memory_order_acquire)) {
    static std::mutex printing;
    std::lock_guard<std::mutex> lock(printing);
    if (!fn.restorer_printed.load(std::memory_order_relaxed)) {
      fn.restorer_text = print_restorer(fn);
      fn.restorer_printed.store(true, std::memory_order_release);
    }
  }
  return fn.restorer_text;
}

}  // namespace ptc
