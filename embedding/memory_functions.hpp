// Functions in memory. A run exports each function it defines as a Restorer
// (its `fn` source and captured values, host_value.hpp); the next run reads
// the factories of the memory names its program uses, compiles them with the
// program, and calls them to rebuild the functions before the program starts.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/proto.hpp"
#include "frontend/form.hpp"
#include "runtime/host_value.hpp"
#include "runtime/lazy.hpp"

namespace ptc {

class Ctx;
class VM;

// The memory a run was given: its entries in order, and where each name is.
struct MemoryEntries {
  std::vector<std::pair<std::string, const HostValue*>> entries;
  std::unordered_map<std::string_view, size_t> index;  // into entries
};

class MemoryFunctions final : public FunctionRestorer {
 public:
  MemoryFunctions(Ctx& ctx, const MemoryEntries& memory) : ctx_(ctx), memory_(memory) {}

  // AnalyzerOptions::restorers_for: the factories memory name `name` needs.
  void forms_for(std::string_view name, std::vector<const Form*>& out);

  // After compilation: restore() runs the compiled factories on `vm`.
  void attach(VM& vm, const CompiledProgram& program);

  // Whether every Restorer inside `h` compiled (else it cannot be rebuilt).
  bool restorable(const HostValue& h);

  // FunctionRestorer: the function, built once per Restorer so shared
  // functions stay identical.
  Value restore(Ctx& ctx, const HostValue& h) override;

 private:
  void collect(const HostValue& h, std::vector<const Form*>& out);
  const Form* read_factory(const Restorer& r);

  Ctx& ctx_;
  const MemoryEntries& memory_;
  Lazy<std::unordered_map<const Restorer*, const Form*>> forms_;  // nullptr: does not read
  Lazy<std::unordered_map<const Form*, const FnProto*>> compiled_;
  Lazy<std::unordered_map<const Restorer*, bool>> restorable_;
  Lazy<std::unordered_map<const Restorer*, Value>> restored_;
  VM* vm_ = nullptr;
};

}  // namespace ptc
