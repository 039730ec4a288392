// Full runs through ptc::run: a small JSON context, turn history, a budget,
// two tools and tight limits (100 ms, 1 MB heap), so every input ends fast in
// a value or an error. A first line ";sig SIGNATURE" sets the signature and
// ";prec N" the float precision (both are comments to the program).
// Each input runs a second time, compiled once (ptc::compile) over the same
// context prepared once (ptc::prepare_context): the outcome must be the same
// (value, prints, error), unless one of the two ended at a limit that counts
// differently (time; memory, as a prepared context is not charged).
#include <charconv>
#include <memory>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using ptc::fuzz::ended_at_a_limit;
using ptc::fuzz::outcome;

constexpr std::string_view kContext = R"({
  "orders": [{"id": 1, "total": 9.5, "status": "paid", "customer": "acme"},
             {"id": 2, "total": 120, "status": "open", "customer": "globex", "items": [1, 2]},
             {"id": 3, "total": -0.25, "status": "paid", "customer": null}],
  "user": {"name": "Ada", "roles": ["admin", "dev"], "active": true},
  "n": 3, "text": "héllo wörld", "big": 123456789012345678901234567890,
  "created_at": "2024-02-29T12:30:00Z"
})";

// The value `tool/lookup` answers for an even id.
constexpr std::string_view kLookupResult = R"({
  "id": 0, "user": {"name": "Ada", "tags": ["a", "b"], "score": 1.5},
  "nested": {"deep": [1, [2, [3, {"x": null}]]]}
})";

const ptc::RunOptions& base_options() {
  // Built once and never destroyed: hosts keep options for the whole process.
  static const ptc::RunOptions* options = [] {
    auto* o = new ptc::RunOptions;
    o->context = ptc::parse_json(kContext);
    o->turn_history = {HostValue::integer(42), ptc::parse_json(R"({"prev": [1, 2]})")};
    o->budget = ptc::parse_json(R"({"tokens": 1000, "calls": 5})");
    o->limits = ptc::fuzz::tight_limits();
    o->tools["echo"] = {[](const HostValue& args) { return ptc::ToolResult::success(args); }};
    HostValue found = ptc::parse_json(kLookupResult);
    o->tools["lookup"] = {[found](const HostValue& args) {
                            const HostValue* id = args.get("id");
                            if (args.get("fail") || !id || id->kind() != HostValue::Kind::Int)
                              return ptc::ToolResult::failure("lookup needs an integer :id");
                            if (id->as_int() % 2 != 0) return ptc::ToolResult::failure("not found");
                            return ptc::ToolResult::success(found);
                          },
                          true};
    return o;
  }();
  return *options;
}

const std::shared_ptr<const ptc::PreparedContext>& prepared() {
  static const auto* context =
      new std::shared_ptr<const ptc::PreparedContext>(ptc::prepare_context(kContext));
  return *context;
}

ptc::Step run_compiled(std::string_view source, const ptc::RunOptions& shared) {
  ptc::Step s;
  try {
    auto program = ptc::compile(source, shared);
    s = ptc::run(*program, shared);
  } catch (ptc::LispError& e) {
    s.error = e.error();
  }
  return s;
}

// The same input through a compiled program and a prepared context. Programs
// that read the clock (System/currentTimeMillis) differ from run to run: a
// disagreement counts only when each way, run again, repeats itself.
void check_compiled_agrees(std::string_view source, const ptc::RunOptions& options,
                           const ptc::Step& step) {
  ptc::RunOptions shared = options;
  shared.context = HostValue();
  shared.prepared_context = prepared();
  ptc::Step again = run_compiled(source, shared);
  if (ended_at_a_limit(step) || ended_at_a_limit(again)) return;
  // A bad signature or precision is found by run() before it compiles; a
  // compiled program's compile errors come first, from compile().
  const std::string& m = step.error.message;
  if (!step.ok && (m.starts_with("invalid signature") || m.starts_with("float_precision"))) return;
  if (outcome(step) == outcome(again)) return;
  if (outcome(ptc::run(source, options)) != outcome(step)) return;
  if (outcome(run_compiled(source, shared)) != outcome(again)) return;
  PTC_FUZZ_CHECK(false, "run(source) gave:\n" + outcome(step) + "\ncompiled + prepared gave:\n" +
                            outcome(again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ptc::RunOptions& base = base_options();
  if (size > base.limits.max_program_bytes) return -1;
  std::string_view source = ptc::fuzz::as_text(data, size);
  std::string_view first = source.substr(0, source.find('\n'));
  ptc::Step step;
  if (first.starts_with(";sig ") || first.starts_with(";prec ")) {
    ptc::RunOptions options = base;
    if (first.starts_with(";sig ")) {
      options.signature = std::string(first.substr(5));
    } else {
      int digits = 0;
      std::from_chars(first.data() + 6, first.data() + first.size(), digits);
      options.float_precision = digits;
    }
    step = ptc::run(source, options);
    check_compiled_agrees(source, options, step);
  } else {
    step = ptc::run(source, base);
    check_compiled_agrees(source, base, step);
  }
  ptc::fuzz::debug("run", step.ok ? step.printed : ptc::format_error(step.error));
  if (step.ok) {
    PTC_FUZZ_CHECK(step.memory.kind() == HostValue::Kind::Map, step.printed);
    std::string shown = ptc::format_value(step.value, 3);
    std::string json;
    try {
      json = ptc::to_json(step.value);
    } catch (ptc::LispError&) {
      return 0;  // no JSON form (a function, a NaN, a set as a key): not a finding
    }
    try {
      (void)ptc::parse_json(json);
    } catch (ptc::LispError& e) {
      PTC_FUZZ_CHECK(false, "to_json wrote what parse_json rejects: " + json);
    }
  } else {
    PTC_FUZZ_CHECK(step.memory.is_nil(), ptc::format_error(step.error));
    std::string shown = ptc::format_error(step.error);
  }
  return 0;
}
