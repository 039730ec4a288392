#include "cli/snapshot_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ptc::cli {

namespace {

std::string system_error(const char* what, const std::string& path) {
  return fmt::format("cannot {} {}: {}", what, path, std::strerror(errno));
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string write_snapshot_file(const std::string& path, std::string_view bytes) {
  // Same folder as `path`: rename() is atomic only within one file system.
  std::string pattern = path + ".tmp.XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  int fd = ::mkstemp(temp.data());  // mode 0600
  if (fd < 0) return system_error("create a temporary file beside", path);
  std::string error;
  if (!write_all(fd, bytes) || ::fsync(fd) != 0) error = system_error("write", temp.data());
  if (::close(fd) != 0 && error.empty()) error = system_error("write", temp.data());
  if (error.empty() && std::rename(temp.data(), path.c_str()) != 0)
    error = system_error("rename the snapshot to", path);
  if (!error.empty()) ::unlink(temp.data());
  return error;
}

std::string remove_snapshot_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return system_error("remove", path);
  return "";
}

}  // namespace ptc::cli
