// Bytes from the kernel's CSPRNG, for identifiers a client must not guess
// (MCP session ids, REPL session ids).
#pragma once

#include <cstddef>

namespace ptc::mcp {

// Fills out[0..n) from getrandom; falls back to std::random_device (which
// reads the same pool) where getrandom is missing or refused.
void fill_random(unsigned char* out, size_t n);

}  // namespace ptc::mcp
