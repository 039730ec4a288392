#include "runtime/transfer.hpp"

#include <fmt/format.h>

#include <cstring>

#include "runtime/bignum.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/regex.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

// A function object (closure or native) with its captured values copied.
template <class Fn>
Value copy_function(Ctx& dst, const Fn* from) {
  uint32_t n = from->ncaptured;
  auto* f = static_cast<Fn*>(dst.arena.alloc(sizeof(Fn) + n * sizeof(Value)));
  std::memcpy(static_cast<void*>(f), static_cast<const void*>(from), sizeof(Fn));
  f->flags = 0;  // not frozen: the copy is the run's own
  f->hash = 0;
  for (uint32_t i = 0; i < n; ++i)
    f->captured()[i] = transfer_value(dst, from->captured()[i]);
  return Value::object(f);
}

}  // namespace

Value transfer_value(Ctx& dst, Value v) {
  check_native_stack("copying a parallel result");
  dst.tick();
  switch (v.type()) {
    case Type::BigInt: {
      // Limbs copied as they are: going through decimal text costs about
      // 25 ms for the largest integers.
      MpzView z(v);
      return integer_from_mpz(dst.arena, z.get());
    }
    case Type::String:
      return dst.string(v.str()->view());
    case Type::Keyword:
      return dst.keyword(v.kw()->name());
    case Type::Symbol:
      return Value::object(dst.interner.symbol(v.kw()->name()));
    case Type::Vector: {
      VecBuilder b(dst.arena);
      for (VecIter it(v.vec()); !it.done(); it.next())
        b.push(transfer_value(dst, it.value()));
      return Value::object(b.finish());
    }
    case Type::Map: {
      HashBuilder b(dst.arena, Type::Map);
      for (HashIter it(v.map()); !it.done(); it.next())
        b.put(transfer_value(dst, it.key()), transfer_value(dst, it.val()));
      return Value::object(b.finish());
    }
    case Type::Set: {
      HashBuilder b(dst.arena, Type::Set);
      for (HashIter it(v.set()); !it.done(); it.next())
        b.put(transfer_value(dst, it.key()));
      return Value::object(b.finish());
    }
    case Type::Closure:  // its code is the program both runs share
      return copy_function(dst, v.as<const ClosureObj>());
    case Type::NativeFn:  // its code is a builtin's
      return copy_function(dst, v.as<const NativeFnObj>());
    case Type::Regex:
      return make_regex(dst, v.as<const RegexObj>()->source->view());
    case Type::Var: {
      auto* var = dst.arena.make<VarObj>();
      var->type = Type::Var;
      var->name = dst.interner.symbol(v.as<const VarObj>()->name->name());
      return Value::object(var);
    }
    case Type::Opaque: {
      const auto* from = v.as<const OpaqueObj>();
      if (from->vt->trace)
        throw_error(
            ErrorKind::RuntimeError,
            fmt::format("internal error: a parallel branch returned a {}", from->vt->type_name));
      void* copy = dst.arena.alloc(from->vt->size);
      std::memcpy(copy, static_cast<const void*>(from), from->vt->size);
      return Value::object(static_cast<const Obj*>(copy));
    }
    default:  // immediates
      return v;
  }
}

}  // namespace ptc
