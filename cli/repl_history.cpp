#include "cli/repl_history.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>

namespace ptc::cli {

namespace {

// What was typed may be private (data, names): the file is the user's alone.
constexpr mode_t kFileMode = 0600;

bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Replaces the file with `lines` through a rename, so a reader never sees it
// half written.
void rewrite(const std::string& path, const std::deque<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kFileMode);
  if (fd < 0) return;
  bool ok = write_all(fd, text);
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

std::optional<std::string> HistoryFile::default_path() {
  if (const char* p = std::getenv("PTC_REPL_HISTORY"); p && *p) return std::string(p);
  if (const char* home = std::getenv("HOME"); home && *home)
    return fmt::format("{}/.ptc_history", home);
  return std::nullopt;
}

std::vector<std::string> HistoryFile::load() {
  std::ifstream in(path_);
  std::deque<std::string> newest;
  size_t total = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    ++total;
    newest.push_back(std::move(line));
    if (newest.size() > kMaxEntries) newest.pop_front();
  }
  if (total > 2 * kMaxEntries) rewrite(path_, newest);
  return {newest.begin(), newest.end()};
}

void HistoryFile::append(const std::string& line) {
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, kFileMode);
  bool ok = fd >= 0 && write_all(fd, line + "\n");
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (!ok && !write_failed_) {
    write_failed_ = true;
    fmt::print(stderr, "ptc: cannot write the history file {}; lines are not kept\n", path_);
  }
}

}  // namespace ptc::cli
