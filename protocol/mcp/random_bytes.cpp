#include "protocol/mcp/random_bytes.hpp"

#include <sys/random.h>

#include <cerrno>
#include <random>

namespace ptc::mcp {

void fill_random(unsigned char* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r < 0 && errno != EINTR) {
      break;  // no getrandom (old kernel, seccomp): random_device below
    }
  }
  if (got == n) return;
  std::random_device device;
  for (; got < n; ++got)
    out[got] = static_cast<unsigned char>(device());
}

std::string random_hex_id() {
  unsigned char bytes[16];
  fill_random(bytes, sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  return id;
}

}  // namespace ptc::mcp
