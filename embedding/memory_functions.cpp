#include "embedding/memory_functions.hpp"

#include "frontend/reader.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/stack_guard.hpp"
#include "vm/vm.hpp"

namespace ptc {

void MemoryFunctions::forms_for(std::string_view name, std::vector<const Form*>& out) {
  auto found = memory_.index.find(name);
  if (found != memory_.index.end()) collect(*memory_.entries[found->second].second, out);
}

// Every Restorer inside `h`, its arguments' own included.
void MemoryFunctions::collect(const HostValue& h, std::vector<const Form*>& out) {
  check_native_stack("reading functions in memory");
  if (const Restorer* r = h.restorer()) {
    bool first = !forms_->contains(r);
    if (const Form* f = read_factory(*r)) out.push_back(f);
    if (first)
      for (const HostValue& arg : r->args)
        collect(arg, out);
    return;
  }
  for (const HostValue& x : h.items())
    collect(x, out);
}

const Form* MemoryFunctions::read_factory(const Restorer& r) {
  auto [it, inserted] = forms_->emplace(&r, nullptr);
  if (!inserted) return it->second;
  try {
    ReaderOptions ro;
    ro.max_nesting_depth = ctx_.limits.max_nesting_depth;
    FormList forms = read_program(ctx_.arena, r.factory, ro);
    if (forms.size() == 1) it->second = forms[0];
  } catch (LispError&) {
    // Left out: the memory name then reads as a function that was not kept.
  }
  return it->second;
}

void MemoryFunctions::attach(VM& vm, const CompiledProgram& program) {
  vm_ = &vm;
  for (const auto& [form, fn] : program.restorers)
    compiled_->emplace(form, fn);
}

bool MemoryFunctions::restorable(const HostValue& h) {
  check_native_stack("reading functions in memory");
  if (const Restorer* r = h.restorer()) {
    // Functions share captured functions: each is judged once (a walk
    // without this is exponential in the depth of sharing).
    auto [known, first] = restorable_->emplace(r, false);
    if (!first) return known->second;
    auto form = forms_->find(r);
    bool ok = form != forms_->end() && compiled_->contains(form->second);
    for (size_t i = 0; ok && i < r->args.size(); ++i)
      ok = restorable(r->args[i]);
    (*restorable_)[r] = ok;
    return ok;
  }
  for (const HostValue& x : h.items())
    if (!restorable(x)) return false;
  return true;
}

Value MemoryFunctions::restore(Ctx& ctx, const HostValue& h) {
  const Restorer* r = h.restorer();
  if (auto done = restored_->find(r); done != restored_->end()) return done->second;
  const FnProto* fn = compiled_->at(forms_->at(r));  // restorable() was checked
  std::vector<Value> args;
  args.reserve(r->args.size());
  for (const HostValue& arg : r->args)
    args.push_back(import_value(ctx, arg, this));
  // A (return v) in the kept source is that source's value, not the program's.
  Value factory = vm_->invoke_until_return(vm_->top_level_closure(fn), nullptr, 0);
  Value v = vm_->invoke_until_return(factory, args.data(), static_cast<uint32_t>(args.size()));
  restored_->emplace(r, v);
  return v;
}

}  // namespace ptc
