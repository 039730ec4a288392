// A file descriptor with one owner, closed when the owner goes: no early
// return or exception between opening it and handing it on leaks it. In
// runtime/, the lowest layer, so that every layer above (the scheduler's
// eventfd, the upstream client's pipes, the HTTP client's socket) can use it.
#pragma once

#include <unistd.h>

#include <utility>

namespace ptc {

class UniqueFd {
 public:
  UniqueFd() = default;
  // Takes `fd` over (a negative one: holds nothing, as open(2)'s failure does).
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Hands the descriptor to the caller, who closes it.
  [[nodiscard]] int release() { return std::exchange(fd_, -1); }
  // Closes what is held (errno is left alone when nothing is) and takes `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Both ends of a pipe(2); neither holds anything when it failed (errno says why).
struct PipeEnds {
  UniqueFd read_end, write_end;
};

inline PipeEnds open_pipe(int flags) {
  int fds[2];
  if (::pipe2(fds, flags) != 0) return {};
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace ptc
