#include "tests/net/loopback_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ptc::net::testing {

namespace {

// The Content-Length of a request head, or 0.
size_t content_length(std::string_view head) {
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t at = lower.find("\r\ncontent-length:");
  return at == std::string::npos ? 0 : std::stoul(lower.substr(at + 17));
}

// Reads and writes one connection, plain or through its TLS session.
struct Channel {
  int fd;
  SSL* ssl = nullptr;
  ~Channel() {
    if (ssl) SSL_free(ssl);
  }
  // Bytes read (> 0), or 0 when the peer closed or it failed.
  size_t read(char* buffer, size_t size) {
    ssize_t n = ssl ? SSL_read(ssl, buffer, static_cast<int>(size)) : ::recv(fd, buffer, size, 0);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ssl ? SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size()))
                      : ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return;  // the client went away (a test that stops reading)
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
};

}  // namespace

std::string http_reply(std::string_view body, int status, std::string_view headers) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + std::string(headers) +
         "\r\n" + std::string(body);
}

LoopbackServer::LoopbackServer(Script script, std::shared_ptr<SSL_CTX> tls)
    : script_(std::move(script)), tls_(std::move(tls)) {
  listen_fd_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (!listen_fd_ || ::bind(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_.get(), 16) != 0 ||
      ::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("the loopback server cannot listen");
  port_ = ntohs(addr.sin_port);
  stop_fd_.reset(::eventfd(0, EFD_CLOEXEC));
  acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackServer::~LoopbackServer() {
  uint64_t one = 1;
  (void)!::write(stop_fd_.get(), &one, sizeof one);
  acceptor_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_)
      ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& t : threads_)
    t.join();
}

std::string LoopbackServer::url(std::string_view path, std::string_view host) const {
  return std::string(tls_ ? "https://" : "http://") + std::string(host) + ":" +
         std::to_string(port_) + std::string(path);
}

std::vector<SeenRequest> LoopbackServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void LoopbackServer::wait_for_stop() const {
  pollfd p{stop_fd_.get(), POLLIN, 0};
  while (::poll(&p, 1, -1) <= 0) {}
}

void LoopbackServer::accept_loop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) <= 0) continue;
    if (fds[1].revents) return;
    int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    size_t connection = ++connections_;
    std::lock_guard lock(mutex_);
    open_fds_.push_back(fd);
    threads_.emplace_back([this, fd, connection] { serve(fd, connection); });
  }
}

void LoopbackServer::serve(int fd, size_t connection) {
  {
    Channel channel{fd};
    bool ready = true;
    if (tls_) {
      channel.ssl = SSL_new(tls_.get());
      SSL_set_fd(channel.ssl, fd);
      ready = SSL_accept(channel.ssl) == 1;  // not when the client refused the certificate
    }
    std::string in;
    char buffer[16384];
    // Fills `in` up to `size` bytes; false when the client went away.
    auto read_up_to = [&](size_t size) {
      while (in.size() < size) {
        size_t n = channel.read(buffer, sizeof buffer);
        if (n == 0) return false;
        in.append(buffer, n);
      }
      return true;
    };
    while (ready) {
      size_t head_end;
      while ((head_end = in.find("\r\n\r\n")) == std::string::npos && read_up_to(in.size() + 1)) {}
      if (head_end == std::string::npos) break;
      SeenRequest request;
      request.head = in.substr(0, head_end);
      request.connection = connection;
      size_t body_size = content_length(request.head);
      if (!read_up_to(head_end + 4 + body_size)) break;
      request.body = in.substr(head_end + 4, body_size);
      in.erase(0, head_end + 4 + body_size);
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
      }
      ++request_count_;
      Answer answer = script_(request);
      channel.write(answer.bytes);
      if (answer.then == Answer::Then::Hang) wait_for_stop();
      if (answer.then != Answer::Then::KeepOpen) break;
    }
  }
  // Closed here, once: the destructor's shutdown must not reach a number
  // that something else has taken since.
  std::lock_guard lock(mutex_);
  open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
  ::close(fd);
}

}  // namespace ptc::net::testing
