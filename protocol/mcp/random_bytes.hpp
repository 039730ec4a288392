// Bytes from the kernel's CSPRNG, for identifiers a client must not guess
// (MCP session ids, REPL session ids).
#pragma once

#include <cstddef>
#include <string>

namespace ptc::mcp {

// Fills out[0..n) from getrandom; falls back to std::random_device (which
// reads the same pool) where getrandom is missing or refused.
void fill_random(unsigned char* out, size_t n);
// 128 random bits as 32 lower-case hex digits (HTTP session and task ids).
std::string random_hex_id();

}  // namespace ptc::mcp
