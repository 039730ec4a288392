// The REPL's history file: one entered line per line of plain UTF-8 text, so
// it can be read, searched and edited like any other file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ptc::cli {

class HistoryFile {
 public:
  // Lines kept: a session loads at most this many, the newest.
  static constexpr size_t kMaxEntries = 1000;

  // $PTC_REPL_HISTORY when set and not empty, else ~/.ptc_history; nullopt
  // when neither names a file (no HOME).
  static std::optional<std::string> default_path();

  explicit HistoryFile(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  // The newest kMaxEntries lines, oldest first (none when the file does not
  // exist yet). A file grown past twice that is cut back to them.
  std::vector<std::string> load();
  // Appends one line at once: a session that is killed keeps what it
  // entered, and two sessions at once add to the file instead of one
  // overwriting the other. A file that cannot be written is reported once.
  void append(const std::string& line);

 private:
  std::string path_;
  bool write_failed_ = false;
};

}  // namespace ptc::cli
