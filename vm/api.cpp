// The small parts of the embedding API around ptc::run: displaying host
// values and errors, and Session (memory and *1 *2 *3 across runs).
#include <memory>
#include <utility>

#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hash.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"

namespace ptc {

namespace {

// A value with no data form (function, var, regex, date) crosses into a
// host as its printed text; printing shows that text as it is, not quoted
// as a string. The object points into the HostValue being formatted.
struct PrintedForm : OpaqueObj {
  std::string_view text;
};

std::string_view printed_text(const OpaqueObj* o) {
  return static_cast<const PrintedForm*>(o)->text;
}
void print_printed(const OpaqueObj* self, std::string& out, bool) {
  out += printed_text(self);
}
bool printed_equals(const OpaqueObj* a, const OpaqueObj* b) {
  return printed_text(a) == printed_text(b);
}
uint32_t printed_hash(const OpaqueObj* self) {
  return hash_bytes(printed_text(self));
}
int printed_compare(const OpaqueObj* a, const OpaqueObj* b) {
  return printed_text(a).compare(printed_text(b));
}
const OpaqueVTable kPrintedForm = {"printed", print_printed, printed_equals, printed_hash,
                                   printed_compare};

// import_value hands every Opaque that has a Restorer to this hook.
class ImportPrinted final : public FunctionRestorer {
 public:
  Value restore(Ctx& ctx, const HostValue& h) override {
    auto* o = ctx.arena.make<PrintedForm>();
    o->type = Type::Opaque;
    o->vt = &kPrintedForm;
    o->text = h.text();
    return Value::object(o);
  }
};

bool has_bare_opaque(const HostValue& h) {
  check_native_stack("formatting a nested value");
  using K = HostValue::Kind;
  switch (h.kind()) {
    case K::Opaque:
      return !h.restorer();
    case K::Vector:
    case K::Set:
    case K::Map:
      for (const HostValue& x : h.items())
        if (has_bare_opaque(x)) return true;
      return false;
    default:
      return false;
  }
}

}  // namespace

std::string format_value(const HostValue& value, size_t limit, bool* truncated) {
  return format_value(value, limit, truncated, 0);
}

std::string format_value(const HostValue& value, size_t limit, bool* truncated, size_t max_bytes) {
  // The runtime printer is the one definition of Clojure syntax: bring the
  // value into a scratch run and print it there. Opaque values without a
  // Restorer would import as strings: give them one (a marker) first, so
  // that they reach ImportPrinted.
  static const auto kMarker = std::make_shared<const Restorer>();
  HostValue marked;
  const HostValue* source = &value;
  if (has_bare_opaque(value)) {
    marked = map_host_value(
        value,
        [](const HostValue& x) {
          return x.kind() == HostValue::Kind::Opaque && !x.restorer()
                     ? HostValue::opaque(x.text(), kMarker)
                     : x;
        },
        [](const HostValue& k) {
          return k.kind() == HostValue::Kind::Opaque && !k.restorer()
                     ? HostValue::opaque(k.text(), kMarker)
                     : k;
        });
    source = &marked;
  }
  Limits limits;
  limits.max_heap_bytes = SIZE_MAX / 4;
  limits.max_symbols = UINT32_MAX;
  Ctx ctx(limits);
  ImportPrinted printed;
  PrintOptions opts;
  opts.floats = FloatStyle::Display;
  opts.limit = limit;
  opts.max_bytes = max_bytes;
  opts.string_limit = max_bytes;  // a long string is one atom: cut it too
  std::string out;
  bool cut = print_value(out, import_value(ctx, *source, &printed), opts);
  if (truncated) *truncated = cut;
  return out;
}

std::string format_error(const Error& error) {
  return error.describe();
}

Session::Session(RunOptions defaults, size_t history_depth)
    : options_(std::move(defaults)), depth_(history_depth) {}

Step Session::eval(std::string_view source) {
  Step step = run(source, options_);
  if (!step.ok) return step;
  options_.memory = step.memory;
  auto& history = options_.turn_history;
  history.push_back(step.value);
  if (history.size() > depth_) history.erase(history.begin(), history.end() - depth_);
  return step;
}

void Session::reset() {
  options_.memory = HostValue();
  options_.turn_history.clear();
}

}  // namespace ptc
