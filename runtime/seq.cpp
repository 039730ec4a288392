#include "runtime/seq.hpp"

#include <fmt/format.h>

#include "runtime/collector.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {

// Immutable one-character strings for ASCII, shared by every run.
struct AsciiTable {
  struct Entry {
    StrObj s;
    char data[2];
  };
  Entry entries[128];
  AsciiTable() {
    for (int c = 0; c < 128; ++c) {
      Entry& e = entries[c];
      e.s.type = Type::String;
      e.s.len = 1;
      e.s.graphemes = 1;
      e.s.flags = StrObj::kAsciiKnown | StrObj::kAscii;
      e.data[0] = static_cast<char>(c);
      e.data[1] = '\0';
    }
  }
};
static_assert(sizeof(StrObj) == 16 && alignof(StrObj) <= 8,
              "string payload must follow the header");
const AsciiTable kAscii;

}  // namespace

bool is_seqable(Value v) {
  switch (v.type()) {
    case Type::Nil:
    case Type::Vector:
    case Type::Map:
    case Type::Set:
    case Type::String:
      return true;
    default:
      return false;
  }
}

void throw_not_seqable(std::string_view fname, Value v, int arg_position) {
  std::string where = arg_position > 0 ? fmt::format(" (argument {})", arg_position) : "";
  throw_error(ErrorKind::TypeError,
              fmt::format("{}: expected a collection{}, got {} {}", fname, where,
                          type_name(v.type()), preview(v)),
              v.is_keyword() || v.is_fn()
                  ? "check the argument order: the collection usually comes last"
                  : "");
}

Value char_string(Ctx& ctx, std::string_view g) {
  if (g.size() == 1 && static_cast<unsigned char>(g[0]) < 128)
    return Value::object(&kAscii.entries[static_cast<unsigned char>(g[0])].s);
  return ctx.string(g);
}

Value make_entry(Ctx& ctx, Value k, Value v) {
  Value kv[2] = {k, v};
  return Value::object(vec_from(ctx.arena, kv, 2));
}

SeqIter::SeqIter(Ctx& ctx, Value coll, std::string_view fname, int arg_position)
    : ctx_(ctx),
      type_(coll.type()),
      coll_(coll),
      vec_(coll.is_vector() ? coll.vec() : empty_vector()),
      hash_(coll.is_map() || coll.is_set() ? static_cast<const HashObj*>(coll.obj())
                                           : static_cast<const HashObj*>(empty_set())) {
  if (!is_seqable(coll)) throw_not_seqable(fname, coll, arg_position);
  load();
}

void SeqIter::load() {
  switch (type_) {
    case Type::Vector:
      done_ = vec_.done();
      if (!done_) cur_ = vec_.value();
      break;
    case Type::Map:
      done_ = hash_.done();
      if (!done_) cur_ = make_entry(ctx_, hash_.key(), hash_.val());
      break;
    case Type::Set:
      done_ = hash_.done();
      if (!done_) cur_ = hash_.key();
      break;
    case Type::String: {
      std::string_view s = coll_.str()->view();
      done_ = pos_ >= s.size();
      if (!done_) cur_ = char_string(ctx_, s.substr(pos_, grapheme_length(s, pos_)));
      break;
    }
    default:
      done_ = true;
  }
}

void SeqIter::next() {
  switch (type_) {
    case Type::Vector:
      vec_.next();
      break;
    case Type::Map:
    case Type::Set:
      hash_.next();
      break;
    case Type::String: {
      std::string_view s = coll_.str()->view();
      pos_ += grapheme_length(s, pos_);
      break;
    }
    default:
      break;
  }
  load();
}

void SeqIter::trace(Tracer& t) const {
  t.value(coll_);
  t.value(cur_);
}

size_t seq_count(Ctx& ctx, Value coll, std::string_view fname, int arg_position) {
  (void)ctx;
  switch (coll.type()) {
    case Type::Nil:
      return 0;
    case Type::Vector:
      return coll.vec()->count;
    case Type::Map:
    case Type::Set:
      return static_cast<const HashObj*>(coll.obj())->count;
    case Type::String:
      return grapheme_count(coll.str());
    default:
      throw_not_seqable(fname, coll, arg_position);
  }
}

const VecObj* seq_to_vector(Ctx& ctx, Value coll, std::string_view fname, int arg_position) {
  if (coll.is_vector()) return coll.vec();
  VecBuilder b(ctx.arena);
  for (SeqIter it(ctx, coll, fname, arg_position); !it.done(); it.next())
    b.push(it.value());
  return b.finish();
}

}  // namespace ptc
