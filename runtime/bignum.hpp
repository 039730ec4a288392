// Arbitrary-precision integers on GMP. Values outside int64 are BigObj limbs
// in the arena; arithmetic runs on temporary mpz_t and the result is copied
// back (and demoted to int64 when it fits), so no GMP memory outlives a call.
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

// Int when it fits in int64, otherwise a BigObj copied into the arena.
Value integer_from_mpz(Arena& arena, mpz_srcptr z);
// Parses an optionally signed decimal integer (no other characters).
Value integer_from_decimal(Arena& arena, std::string_view text);

double bigint_to_double(const BigObj* b);
std::string bigint_to_string(const BigObj* b);
int bigint_sign(const BigObj* b);
uint32_t bigint_hash(const BigObj* b);
size_t bigint_limbs(Value v);  // 1 for Int

// Throws MemoryLimit when a result of about `limbs` limbs cannot fit the arena.
void check_bigint_room(Arena& arena, size_t limbs);

}  // namespace ptc
