// The register VM. Frames live on a VM stack (no heap allocation per call);
// registers of a frame are a window of one Value array, and a call's
// arguments become the first registers of the callee. Builtins that call
// functions (map, filter, reduce) re-enter the dispatch loop through invoke();
// that native recursion is bounded by the native stack guard.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/proto.hpp"
#include "runtime/ctx.hpp"
#include "vm/mapped_allocator.hpp"

namespace ptc {

// Thrown by (return v) to end the program early with a value.
struct ReturnSignal {
  Value value;
};

// Calls a host tool: name after tool/, and the argument map. Returns the result.
using ToolCaller = std::function<Value(Ctx& ctx, std::string_view tool, Value args)>;

// A VM is a root source of its run (runtime/roots.hpp): its registers up to
// the top frame, its frames' closures, its globals, #'var values, data/ map
// and *1..*3.
class VM final : public Invoker, public RootSource {
 public:
  VM(Ctx& ctx, const CompiledProgram& program);
  ~VM() override;
  VM(const VM&) = delete;
  VM& operator=(const VM&) = delete;

  // Runs the top-level program. (return v) gives v; errors throw LispError.
  Value run();
  // True when run() ended through (return v) rather than the last form.
  bool returned() const { return returned_; }

  Value invoke(Value fn, const Value* args, uint32_t nargs) override;
  Value invoke_owned(Value fn, const Value* args, uint32_t nargs, uint32_t owner) override;
  // invoke, where a (return v) inside ends only this call, with v (code run
  // on its own: a function restored from memory).
  Value invoke_until_return(Value fn, const Value* args, uint32_t nargs);
  // A closure of a top-level function of the program (no captures): main, or
  // a memory restorer.
  Value top_level_closure(const FnProto* fn);

  // Inputs of a run.
  Value data = Value();             // context map for data/x
  std::vector<Value> turn_history;  // *1 is turn_history[0]
  ToolCaller tool_caller;           // unset: tool calls are an error
  // Memory names that held functions: they do not carry over between runs,
  // and reading one says so instead of "used before it is defined".
  std::vector<std::string> lost_functions;

  // Globals: value per program global id; unbound ones hold kUnbound.
  static Value unbound() { return Value::builtin(0xFFFFFFFEu); }
  static bool is_unbound(Value v) { return v.identical(unbound()); }
  std::vector<Value>& globals() { return globals_; }

  void trace_roots(Tracer& tracer) override;

 private:
  struct Frame {
    const Proto* proto;
    const ClosureObj* closure;
    const Instr* pc;
    Value* base;
    uint32_t recur_count;
    // The owner token of the accumulator in the first parameter (0: none),
    // read by CALLO: set by invoke_owned for an arity that owns it.
    uint32_t owner;
  };
  using Frames = std::vector<Frame, MappedAllocator<Frame>>;

  static std::vector<Frames>& spare_frames();  // this thread's, for later runs
  Value execute(size_t stop_depth);
  // Pushes a frame for a closure called with its callee slot at `slot`.
  void push_frame(const ClosureObj* closure, Value* slot, uint32_t nargs);
  // Calls anything that is not a closure (builtins, keywords, maps, sets, natives).
  Value call_other(Value callee, Value* args, uint32_t nargs);
  Value* stack_top() const;
  Value make_closure(const FnProto* fn, const Frame& creator);
  [[noreturn]] void unbound_global(uint32_t id);
  [[noreturn]] void loop_limit(SourceLoc loc);

  Ctx& ctx_;
  const CompiledProgram& program_;
  std::vector<Value> globals_;
  std::vector<Value> var_values_;  // cached #'name values per global
  Value* stack_ = nullptr;
  Value* stack_end_ = nullptr;
  // The highest register any frame has had: registers above the top frame
  // hold what finished calls left, cleared by a collection (trace_roots) so
  // that a later frame never finds a value the collection freed.
  Value* stack_high_ = nullptr;
  Frames frames_;
  size_t max_frames_;
  bool returned_ = false;
};

}  // namespace ptc
