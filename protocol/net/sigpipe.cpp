#include "protocol/net/sigpipe.hpp"

#include <csignal>
#include <mutex>

namespace ptc::net {

void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction old {};
    if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
      std::signal(SIGPIPE, SIG_IGN);
  });
}

}  // namespace ptc::net
