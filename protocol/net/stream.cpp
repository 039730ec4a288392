#include "protocol/net/stream.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "protocol/net/tls.hpp"

namespace ptc::net {

namespace {

// How often a wait looks at the cancellation check, which cannot wake it.
constexpr auto kCancelPoll = std::chrono::milliseconds(20);

}  // namespace

Stream::~Stream() {
  if (ssl_) SSL_free(ssl_);  // before fd_ closes: the session is over it
}

Outcome Stream::open(const Url& url, SSL_CTX* tls, const Until& until) {
  host_ = url.host;
  port_ = url.port;
  peer_ = url.host.find(':') == std::string::npos ? fmt::format("{}:{}", url.host, url.port)
                                                  : fmt::format("[{}]:{}", url.host, url.port);
  Outcome tcp = connect_tcp(url, until);
  if (tcp != Outcome::Ok || !tls) return tcp;
  return shake_hands(tls, until);
}

Outcome Stream::connect_tcp(const Url& url, const Until& until) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); rc != 0) {
    error_ = fmt::format("cannot resolve {}: {}", url.host, gai_strerror(rc));
    return Outcome::Failed;
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
  // Each address in turn (localhost may be ::1 and 127.0.0.1, the server on
  // one of them); the last failure is the one reported.
  int last_errno = ECONNREFUSED;
  for (addrinfo* a = found; a; a = a->ai_next) {
    fd_.reset(
        ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
    if (!fd_) {
      last_errno = errno;
      continue;
    }
    // A request goes out whole as soon as it is written: Nagle's algorithm
    // would hold its last segment for the server's delayed ACK (40 ms).
    int one = 1;
    ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int so_error = 0;
    if (::connect(fd_.get(), a->ai_addr, a->ai_addrlen) != 0) {
      so_error = errno;
      if (so_error == EINPROGRESS) {
        if (Outcome waited = wait(POLLOUT, until); waited != Outcome::Ok) return waited;
        socklen_t len = sizeof so_error;
        if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) so_error = errno;
      }
    }
    if (so_error == 0) return Outcome::Ok;
    last_errno = so_error;
    fd_.reset();
  }
  error_ = fmt::format("cannot connect to {} ({})", peer_, std::strerror(last_errno));
  return Outcome::Failed;
}

Outcome Stream::shake_hands(SSL_CTX* tls, const Until& until) {
  ssl_ = SSL_new(tls);
  if (!ssl_ || SSL_set_fd(ssl_, fd_.get()) != 1 || !expect_peer_name(ssl_, host_)) {
    error_ = fmt::format("TLS setup for {} failed", host_);
    return Outcome::Failed;
  }
  for (;;) {
    int rc = SSL_connect(ssl_);
    if (rc == 1) return Outcome::Ok;
    if (Outcome waited = wait_tls(rc, until); waited != Outcome::Ok) return waited;
  }
}

Outcome Stream::wait(short events, const Until& until) {
  bool can_cancel = until.cancelled && *until.cancelled;
  for (;;) {
    if (can_cancel && (*until.cancelled)()) return Outcome::Cancelled;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until.deadline - Clock::now());
    if (left.count() <= 0) return Outcome::TimedOut;
    if (can_cancel) left = std::min(left, kCancelPoll);
    pollfd p{fd_.get(), events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (n > 0) return Outcome::Ok;  // ready, or an error the next call reports
    if (n < 0 && errno != EINTR) {
      error_ =
          fmt::format("waiting on the connection to {} failed ({})", peer_, std::strerror(errno));
      return Outcome::Failed;
    }
  }
}

Outcome Stream::wait_tls(int rc, const Until& until) {
  int e = SSL_get_error(ssl_, rc);
  if (e == SSL_ERROR_WANT_READ) return wait(POLLIN, until);
  if (e == SSL_ERROR_WANT_WRITE) return wait(POLLOUT, until);
  error_ = tls_failure(ssl_, host_, port_);
  return Outcome::Failed;
}

Outcome Stream::write_all(std::string_view bytes, const Until& until, size_t* written) {
  *written = 0;
  while (*written < bytes.size()) {
    size_t left = bytes.size() - *written;
    if (ssl_) {
      // A retry after WANT_* repeats the same buffer and length, as OpenSSL requires.
      int n = SSL_write(ssl_, bytes.data() + *written,
                        static_cast<int>(std::min<size_t>(left, size_t{1} << 30)));
      if (n > 0) {
        *written += static_cast<size_t>(n);
      } else if (Outcome waited = wait_tls(n, until); waited != Outcome::Ok) {
        return waited;
      }
      continue;
    }
    ssize_t n = ::send(fd_.get(), bytes.data() + *written, left, MSG_NOSIGNAL);
    if (n > 0) {
      *written += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (Outcome waited = wait(POLLOUT, until); waited != Outcome::Ok) return waited;
    } else if (n < 0 && errno != EINTR) {
      error_ = fmt::format("the connection to {} failed ({})", peer_, std::strerror(errno));
      return Outcome::Failed;
    }
  }
  return Outcome::Ok;
}

Outcome Stream::read_some(char* buffer, size_t size, const Until& until, size_t* got) {
  *got = 0;
  for (;;) {
    if (ssl_) {
      int n = SSL_read(ssl_, buffer, static_cast<int>(std::min<size_t>(size, INT_MAX)));
      if (n > 0) {
        *got = static_cast<size_t>(n);
        return Outcome::Ok;
      }
      if (SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN) return Outcome::Ok;
      if (Outcome waited = wait_tls(n, until); waited != Outcome::Ok) return waited;
      continue;
    }
    ssize_t n = ::recv(fd_.get(), buffer, size, 0);
    if (n >= 0) {
      *got = static_cast<size_t>(n);
      return Outcome::Ok;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (Outcome waited = wait(POLLIN, until); waited != Outcome::Ok) return waited;
    } else if (errno != EINTR) {
      error_ = fmt::format("the connection to {} failed ({})", peer_, std::strerror(errno));
      return Outcome::Failed;
    }
  }
}

bool Stream::quiet() const {
  if (!fd_ || (ssl_ && SSL_pending(ssl_) > 0)) return false;
  pollfd p{fd_.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace ptc::net
