// Uniform iteration over seqable values: vectors, maps (as [key value]
// entries), sets, strings (as one-grapheme strings) and nil (empty). Most
// sequence builtins accept any of these (spec §8.7 table).
#pragma once

#include <cstddef>
#include <string_view>

#include "runtime/hashcoll.hpp"
#include "runtime/value.hpp"
#include "runtime/vector.hpp"

namespace ptc {

class Ctx;
class Tracer;

bool is_seqable(Value v);

// Throws a type error: "<fname>: expected a collection, got <type> <preview>".
[[noreturn]] void throw_not_seqable(std::string_view fname, Value v, int arg_position = 0);

class SeqIter {
 public:
  // Throws via throw_not_seqable when `coll` cannot be iterated.
  SeqIter(Ctx& ctx, Value coll, std::string_view fname, int arg_position = 0);
  bool done() const { return done_; }
  Value value() const { return cur_; }
  void next();
  // The collection and the current item (a map's entry is made for it), for
  // a root scope (roots.hpp).
  void trace(Tracer& t) const;

 private:
  void load();
  Ctx& ctx_;
  Type type_;
  Value coll_;
  VecIter vec_;
  HashIter hash_;
  size_t pos_ = 0;  // byte offset for strings
  bool done_ = false;
  Value cur_;
};

// Number of items SeqIter would yield (graphemes for strings).
size_t seq_count(Ctx& ctx, Value coll, std::string_view fname, int arg_position = 0);

// The items as a vector; vectors are returned as they are.
const VecObj* seq_to_vector(Ctx& ctx, Value coll, std::string_view fname, int arg_position = 0);

// A two-element vector [k v].
Value make_entry(Ctx& ctx, Value k, Value v);
// One-grapheme string; ASCII characters come from a shared static table.
Value char_string(Ctx& ctx, std::string_view grapheme);

}  // namespace ptc
