// Compiled functions. A FnProto is one `fn` (all its arities); each arity is
// a Proto: bytecode, constants, source positions and the register count.
// A CompiledProgram owns every FnProto of one run; `main` is the top level.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "compiler/opcodes.hpp"
#include "runtime/error.hpp"
#include "runtime/objects.hpp"

namespace ptc {

struct Form;
struct FnProto;

struct Proto {
  std::vector<Instr> code;
  std::vector<SourceLoc> locs;     // one per instruction, for errors
  std::vector<Value> constants;    // values live in the run's arena
  std::vector<FnProto*> closures;  // functions created by CLOSURE Bx
  uint32_t nparams = 0;            // fixed parameters
  bool variadic = false;           // one more parameter holds the rest as a vector
  // The first parameter is an accumulator this arity only updates (CALLO):
  // reduce may hand it one nobody else holds (compiler/owned_accumulator.hpp).
  bool owns_accumulator = false;
  uint32_t nregs = 0;  // frame size
  const FnProto* fn = nullptr;

  SourceLoc loc_at(size_t pc) const { return pc < locs.size() ? locs[pc] : SourceLoc{}; }
};

// Where a closure's captured value comes from when it is created.
struct Capture {
  bool from_upvalue;  // true: U[index] of the creating closure; false: its register R[index]
  uint32_t index;
};

// A list whose first element lives in place: most functions have one arity
// and most programs are one function, so making them allocates neither the
// first element nor a list of them. Elements never move.
template <class T>
class FirstInPlace {
 public:
  T* add() {
    if (count_++ == 0) return &first_;
    more_.push_back(std::make_unique<T>());
    return more_.back().get();
  }
  size_t size() const { return count_; }
  const T* operator[](size_t i) const { return i == 0 ? &first_ : more_[i - 1].get(); }

  class Iter {
   public:
    Iter(const FirstInPlace* list, size_t i) : list_(list), i_(i) {}
    const T* operator*() const { return (*list_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }

   private:
    const FirstInPlace* list_;
    size_t i_;
  };
  Iter begin() const { return Iter(this, 0); }
  Iter end() const { return Iter(this, count_); }

 private:
  T first_;
  size_t count_ = 0;
  std::vector<std::unique_ptr<T>> more_;
};

struct FnProto : FnHeader {
  std::string name_text, params_text;  // storage behind FnHeader's views
  FirstInPlace<Proto> arities;         // fixed arities by parameter count, then variadic
  std::vector<Capture> captures;
  SourceLoc loc;
  // For memory (FnHeader::restorer_source): the form written and the names
  // of the captured bindings, in capture order. The form lives in the run's
  // arena, like the program.
  const Form* origin = nullptr;
  std::vector<std::string_view> capture_names;
  // restorer_source prints the function once and keeps the text here: a
  // compiled program run many times exports its defns on every run. Runs on
  // many threads may ask at once (restorer.cpp: a flag, then a lock).
  mutable std::atomic<bool> restorer_printed{false};
  mutable std::string restorer_text;

  // The arity of a function with one fixed arity (most), set by the compiler:
  // a call then finds it without a search.
  const Proto* sole_fixed = nullptr;

  // The closure of a top-level function (no captures: the program's main, a
  // memory restorer's factory), made once with the function: a run starts
  // without allocating it, and, living outside every run's heap, it is never
  // collected (nor does it hold anything to trace).
  ClosureObj top_closure;

  // The arity that accepts `nargs` arguments, or nullptr.
  const Proto* arity_for(uint32_t nargs) const {
    if (sole_fixed) return sole_fixed->nparams == nargs ? sole_fixed : nullptr;
    const Proto* variadic = nullptr;
    for (const Proto* p : arities) {
      if (p->variadic)
        variadic = p;
      else if (p->nparams == nargs)
        return p;
    }
    return variadic && nargs >= variadic->nparams ? variadic : nullptr;
  }
};

struct CompiledProgram {
  FirstInPlace<FnProto> fns;
  FnProto* main = nullptr;
  // Memory restorers by factory form: zero-argument functions returning the
  // factory (AnalyzedProgram::restorers).
  std::vector<std::pair<const Form*, FnProto*>> restorers;
  std::vector<std::string> globals;    // names, indexed by global id
  std::vector<bool> global_defined;    // the program contains a def of it
  std::vector<std::string> data_keys;  // context keys the program reads (data/x)
  std::vector<std::string> tools;      // the tools it calls (tool/x), in order of first call site
};

// FnHeader::restorer_source of every compiled function (restorer.cpp).
const std::string& restorer_source(const FnHeader& fn);

// Human-readable listing of every function's bytecode (ptc disasm).
std::string disassemble(const CompiledProgram& program);

}  // namespace ptc
