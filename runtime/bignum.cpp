#include "runtime/bignum.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "runtime/arena.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hash.hpp"

static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "64-bit GMP limbs expected");

namespace ptc {

MpzView::MpzView(Value v) {
  if (v.is_int()) {
    int64_t i = v.as_int();
    limb_ =
        i < 0 ? static_cast<mp_limb_t>(0) - static_cast<mp_limb_t>(i) : static_cast<mp_limb_t>(i);
    mpz_roinit_n(z_, &limb_, i == 0 ? 0 : (i < 0 ? -1 : 1));
  } else {
    const BigObj* b = v.big();
    mpz_roinit_n(z_, reinterpret_cast<const mp_limb_t*>(b->limbs()), b->size);
  }
}

namespace {

[[noreturn]] void integer_too_large(uint64_t bits, std::string_view op) {
  std::string what = op.empty() ? fmt::format("the result has {} bits", bits)
                                : fmt::format("{} would give about {} bits", op, bits);
  throw_error(ErrorKind::MemoryLimit,
              fmt::format("integer too large: {} (limit {} bits, about {} decimal digits)", what,
                          kMaxIntegerBits, kMaxIntegerDigits),
              "integers are limited in size; use floats for approximate magnitudes, e.g. (double "
              "x), or keep numbers small with mod or quot");
}

}  // namespace

void check_integer_bits(Arena& arena, uint64_t bits, std::string_view op) {
  if (bits > kMaxIntegerBits) integer_too_large(bits, op);
  arena.reserve_check(static_cast<size_t>(bits / 64 + 1) * sizeof(uint64_t) + sizeof(BigObj));
}

void charge_bigint_work(size_t limbs) {
  charge_walk(static_cast<int64_t>(limbs));
}

uint64_t integer_bits(Value v) {
  if (v.is_int()) {
    int64_t i = v.as_int();
    uint64_t mag = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    return mag == 0 ? 0 : 64 - static_cast<uint64_t>(__builtin_clzll(mag));
  }
  return mpz_sizeinbase(MpzView(v).get(), 2);
}

Value integer_from_mpz(Arena& arena, mpz_srcptr z) {
  if (mpz_fits_slong_p(z)) return Value::integer(mpz_get_si(z));
  if (uint64_t bits = mpz_sizeinbase(z, 2); bits > kMaxIntegerBits) integer_too_large(bits, "");
  size_t n = mpz_size(z);
  auto* b = static_cast<BigObj*>(arena.alloc(sizeof(BigObj) + n * sizeof(uint64_t)));
  new (b) BigObj();
  b->type = Type::BigInt;
  b->size =
      static_cast<int32_t>(mpz_sgn(z) < 0 ? -static_cast<int64_t>(n) : static_cast<int64_t>(n));
  std::memcpy(b->limbs(), mpz_limbs_read(z), n * sizeof(uint64_t));
  return Value::object(b);
}

Value integer_from_decimal(Arena& arena, std::string_view text) {
  // Parsing is superlinear: refuse text with more digits than the largest
  // integer has before reading it (leading zeros add nothing).
  size_t first = text.find_first_not_of("+-");
  if (first != std::string_view::npos) first = text.find_first_not_of('0', first);
  if (first != std::string_view::npos && text.size() - first > kMaxIntegerDigits)
    throw_error(ErrorKind::MemoryLimit,
                fmt::format("integer too large: {} decimal digits (limit {} digits, {} bits)",
                            text.size() - first, kMaxIntegerDigits, kMaxIntegerBits),
                "integers are limited in size; read such a number as a string or a float");
  charge_bigint_work(text.size() / 16);
  std::string s(text);
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  Mpz z;
  if (mpz_set_str(z.get(), s.c_str(), 10) != 0)
    throw_error(ErrorKind::ParseError, "invalid integer: " + std::string(text));
  return integer_from_mpz(arena, z.get());
}

// BigObj's limbs start 12 bytes into the object (objects.hpp), which is not
// 8-byte aligned: read them bytewise rather than through a uint64_t load.
namespace {
uint64_t limb_at(const BigObj* b, size_t i) {
  uint64_t x;
  std::memcpy(&x, reinterpret_cast<const char*>(b + 1) + i * sizeof x, sizeof x);
  return x;
}
}  // namespace

// Rounds to the nearest double, ties to even, like the int64 -> double
// conversion (mpz_get_d truncates, which made (+ big 0.0) differ from Clojure).
double bigint_to_double(const BigObj* b) {
  auto n = static_cast<size_t>(b->size < 0 ? -static_cast<int64_t>(b->size) : b->size);
  if (n == 0) return 0.0;
  auto l = [b](size_t i) { return limb_at(b, i); };
  size_t bits = (n - 1) * 64 + (64 - static_cast<size_t>(__builtin_clzll(l(n - 1))));
  double d;
  if (bits <= 64) {
    d = static_cast<double>(l(0));
  } else {
    // The top 64 bits, with every lower bit folded into bit 0 (a sticky bit):
    // bit 0 lies below the rounding position, so one conversion rounds right.
    size_t shift = bits - 64, limb = shift / 64;
    auto off = static_cast<unsigned>(shift % 64);
    uint64_t top = off ? (l(limb) >> off) | (l(limb + 1) << (64 - off)) : l(limb);
    bool sticky = off && (l(limb) & ((uint64_t{1} << off) - 1)) != 0;
    for (size_t i = 0; i < limb && !sticky; ++i)
      sticky = l(i) != 0;
    d = std::ldexp(static_cast<double>(top | (sticky ? 1u : 0u)), static_cast<int>(shift));
  }
  return b->size < 0 ? -d : d;
}

std::string bigint_to_string(const BigObj* b) {
  MpzView v(Value::object(b));
  charge_bigint_work(mpz_size(v.get()));
  std::string out(mpz_sizeinbase(v.get(), 10) + 2, '\0');
  mpz_get_str(out.data(), 10, v.get());
  out.resize(std::strlen(out.c_str()));
  return out;
}

int bigint_sign(const BigObj* b) {
  return b->size < 0 ? -1 : (b->size > 0 ? 1 : 0);
}

uint32_t bigint_hash(const BigObj* b) {
  size_t n = static_cast<size_t>(b->size < 0 ? -b->size : b->size);
  uint32_t h = hash_bytes(std::string_view(reinterpret_cast<const char*>(b->limbs()), n * 8));
  return b->size < 0 ? nonzero_hash(~h) : h;
}

size_t bigint_limbs(Value v) {
  if (!v.is(Type::BigInt)) return 1;
  int32_t s = v.big()->size;
  return static_cast<size_t>(s < 0 ? -s : s);
}

}  // namespace ptc
