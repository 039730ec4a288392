// The --snapshot OUT file of ptc start and ptc resume. It always holds the
// current state of an execution or does not exist: a suspended execution is
// written atomically (a temporary file in OUT's folder, renamed over OUT, so
// a reader never sees half a snapshot), and one that is done removes it (a
// stale snapshot resumed again would answer the same calls twice).
#pragma once

#include <string>
#include <string_view>

namespace ptc::cli {

// Writes `bytes` to `path` atomically, readable by its owner only (the
// snapshot holds the program's context and memory). An error message, or "".
std::string write_snapshot_file(const std::string& path, std::string_view bytes);

// Removes `path` if it exists. An error message, or "".
std::string remove_snapshot_file(const std::string& path);

}  // namespace ptc::cli
