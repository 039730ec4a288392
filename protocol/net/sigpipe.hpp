// SIGPIPE ignored (when it still has its default action): a peer that went
// away is EPIPE for a writer, not the death of the process. OpenSSL writes
// with write(2), which has no MSG_NOSIGNAL, so a socket flag is not enough.
#pragma once

namespace ptc::net {

void ignore_sigpipe();

}  // namespace ptc::net
