#include "cli/error_display.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "runtime/strings.hpp"

namespace ptc::cli {

namespace {

// Line `line` (1-based) of `source` without its line break, counting breaks
// as the reader does (\n, \r\n, a lone \r); nullopt past the last line.
std::optional<std::string_view> source_line(std::string_view source, uint32_t line) {
  size_t start = 0;
  for (uint32_t n = 1; n < line; ++n) {
    size_t brk = source.find_first_of("\r\n", start);
    if (brk == std::string_view::npos) return std::nullopt;
    start = brk + (source.compare(brk, 2, "\r\n") == 0 ? 2 : 1);
  }
  size_t end = source.find_first_of("\r\n", start);
  return source.substr(start, end == std::string_view::npos ? end : end - start);
}

// The columns of a line as the reader counts them: each starts at a byte
// that is not a UTF-8 continuation byte (so col N is columns[N - 1]).
std::vector<std::string_view> split_columns(std::string_view line) {
  std::vector<std::string_view> columns;
  for (size_t i = 0; i < line.size();) {
    size_t j = i + 1;
    while (j < line.size() && (static_cast<unsigned char>(line[j]) & 0xC0) == 0x80)
      ++j;
    columns.push_back(line.substr(i, j - i));
    i = j;
  }
  return columns;
}

// What goes under one column so that the caret lines up: a tab stays a tab
// (whatever the terminal's tab width), a wide character takes two spaces and
// a combining mark none.
std::string pad_under(std::string_view column) {
  if (column == "\t") return "\t";
  int32_t cp = 0;
  if (decode_utf8(column, 0, &cp) != column.size()) return " ";
  int width = utf8proc_charwidth(cp);
  return std::string(static_cast<size_t>(std::clamp(width, 0, 2)), ' ');
}

// A long line (a pasted data literal) is shown as a window around the column.
constexpr size_t kMaxShownColumns = 100;

}  // namespace

std::string describe_error_at_source(const Error& error, std::string_view source) {
  std::string out = fmt::format("error: {}", reason_name(error.kind));
  if (error.loc.known()) out += fmt::format(" at {}:{}", error.loc.line, error.loc.col);
  out += fmt::format(": {}\n", error.message);
  std::optional<std::string_view> line;
  if (error.loc.known()) line = source_line(source, error.loc.line);
  if (line && error.loc.col >= 1) {
    std::vector<std::string_view> columns = split_columns(*line);
    const size_t n = columns.size();
    const size_t at = std::min<size_t>(error.loc.col - 1, n);  // may point just past the end
    size_t first = 0;
    size_t last = n;
    if (n > kMaxShownColumns) {
      first =
          std::min(at > kMaxShownColumns / 2 ? at - kMaxShownColumns / 2 : 0, n - kMaxShownColumns);
      last = first + kMaxShownColumns;
    }
    std::string shown = "  ";
    std::string caret = "  ";
    if (first > 0) {
      shown += "...";
      caret += "   ";
    }
    for (size_t i = first; i < last; ++i)
      shown += columns[i];
    if (last < n) shown += "...";
    for (size_t i = first; i < at; ++i)
      caret += pad_under(columns[i]);
    out += fmt::format("{}\n{}^\n", shown, caret);
  }
  if (!error.hint.empty()) out += fmt::format("  hint: {}\n", error.hint);
  return out;
}

}  // namespace ptc::cli
