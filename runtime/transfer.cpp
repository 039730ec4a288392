#include "runtime/transfer.hpp"

#include "runtime/bignum.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

namespace ptc {

bool is_transferable(Value v) {
  check_native_stack("inspecting a parallel result");
  switch (v.type()) {
    case Type::Nil:
    case Type::Bool:
    case Type::Int:
    case Type::Float:
    case Type::BigInt:
    case Type::String:
    case Type::Keyword:
    case Type::Symbol:
    case Type::Builtin:  // an immediate id, valid in every run
      return true;
    case Type::Vector:
      for (VecIter it(v.vec()); !it.done(); it.next())
        if (!is_transferable(it.value())) return false;
      return true;
    case Type::Map:
      for (HashIter it(v.map()); !it.done(); it.next())
        if (!is_transferable(it.key()) || !is_transferable(it.val())) return false;
      return true;
    case Type::Set:
      for (HashIter it(v.set()); !it.done(); it.next())
        if (!is_transferable(it.key())) return false;
      return true;
    default:
      return false;
  }
}

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
    default:  // immediates
      return v;
  }
}

}  // namespace ptc
