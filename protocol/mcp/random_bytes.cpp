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

}  // namespace ptc::mcp
