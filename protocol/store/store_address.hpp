// Where the shared store is: --store redis://[:PASSWORD@]HOST:PORT[/DB] or
// unix:///PATH.sock[?db=N]. The password may also come from a file
// (--store-password-file); it is never logged (describe() leaves it out).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ptc::store {

struct StoreAddress {
  enum class Kind { Tcp, Unix } kind = Kind::Tcp;
  std::string host;  // Tcp
  uint16_t port = 6379;
  std::string path;  // Unix
  uint32_t db = 0;
  std::string password;

  // "redis://127.0.0.1:6379/0" or "unix:///run/redis.sock?db=0", no password.
  std::string describe() const;
};

// Parses `url` into `out`; returns what is wrong with it, or "" when it is good.
std::string parse_store_address(std::string_view url, StoreAddress& out);

}  // namespace ptc::store
