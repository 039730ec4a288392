// Arbitrary-precision integers on GMP. Values outside int64 are BigObj limbs
// in the arena; arithmetic runs on temporary mpz_t and the result is copied
// back (and demoted to int64 when it fits), so no GMP memory outlives a call.
//
// Integers are bounded by kMaxIntegerBits. One GMP call cannot be interrupted
// and several cost more than linear time in the size of their operands (at
// 133 million bits, printing one number in decimal took 4.4 s), so the size
// is capped where the slowest single operation on operands of the largest
// size stays under about 20 ms: at 2^20 bits (CPU time on the development
// machine, GMP 6.2, -O2) decimal conversion takes 15-18 ms, parsing 8-9 ms,
// a product reaching the cap 2 ms, a quotient or remainder 4-5 ms; at 2^21
// bits decimal conversion already takes 35-46 ms. Every operation
// that could make a larger integer is refused before it runs (or, where
// the result can only be known afterwards, when the result is made), with
// memory_limit, and big-number work charges reductions by its size so the
// run's clock is checked between operations.
#pragma once

#include <gmp.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/objects.hpp"

namespace ptc {

class Arena;

// Read-only mpz view of an Int or BigInt value, without copying limbs.
class MpzView {
 public:
  explicit MpzView(Value v);
  mpz_srcptr get() const { return z_; }

 private:
  mpz_t z_;
  mp_limb_t limb_ = 0;
};

// An owned temporary mpz_t.
class Mpz {
 public:
  Mpz() { mpz_init(z_); }
  ~Mpz() { mpz_clear(z_); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_ptr get() { return z_; }
  mpz_srcptr get() const { return z_; }

 private:
  mpz_t z_;
};

// The largest magnitude of an integer, in bits: 1,048,576 bits, about 315,653
// decimal digits (see above for why).
inline constexpr uint64_t kMaxIntegerBits = uint64_t{1} << 20;
// Decimal digits of the largest such integer: floor(kMaxIntegerBits * log10 2) + 1.
inline constexpr uint64_t kMaxIntegerDigits = 315653;

// Int when it fits in int64, otherwise a BigObj copied into the arena. A
// result past kMaxIntegerBits is a memory_limit error.
Value integer_from_mpz(Arena& arena, mpz_srcptr z);
// Parses an optionally signed decimal integer (no other characters). Text of
// more than kMaxIntegerDigits digits is refused before it is parsed.
Value integer_from_decimal(Arena& arena, std::string_view text);

double bigint_to_double(const BigObj* b);
std::string bigint_to_string(const BigObj* b);
int bigint_sign(const BigObj* b);
uint32_t bigint_hash(const BigObj* b);
size_t bigint_limbs(Value v);    // 1 for Int
uint64_t integer_bits(Value v);  // bits of the magnitude of an Int or BigInt (0 for 0)

// Before an operation whose result may have about `bits` bits: throws
// MemoryLimit naming `op` when that is past kMaxIntegerBits or more than the
// arena can still hold. Saturating arithmetic on the estimate is the caller's.
void check_integer_bits(Arena& arena, uint64_t bits, std::string_view op);

// Charges the run on this thread for big-number work over `limbs` limbs, so
// its clock is checked between GMP calls however many of them a run makes.
void charge_bigint_work(size_t limbs);

}  // namespace ptc
