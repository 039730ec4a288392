#include "protocol/lisp_eval/text.hpp"

#include <fmt/format.h>

#include "include/ptc/ptc.hpp"
#include "runtime/strings.hpp"

namespace ptc::protocol {

std::string utf8_text(std::string_view s) {
  size_t bad = 0;
  if (is_valid_utf8(s, &bad)) return std::string(s);
  std::string out;
  while (!is_valid_utf8(s, &bad)) {
    out.append(s.substr(0, bad));
    out += "\xEF\xBF\xBD";
    s.remove_prefix(bad + 1);
  }
  out.append(s);
  return out;
}

std::string cut_text(std::string_view s, size_t max_chars, bool* cut) {
  // A character is at least one byte: text no longer than the cap in bytes
  // needs no counting.
  if (s.size() <= max_chars) {
    *cut = false;
    return std::string(s);
  }
  size_t end = grapheme_offset(s, max_chars);
  *cut = end < s.size();
  return std::string(s.substr(0, end));
}

std::string truncation_marker(size_t max_chars) {
  return fmt::format(" ... (truncated at {} chars; use println on specific fields)", max_chars);
}

std::string short_form(const HostValue& v, size_t max_chars) {
  std::string text;
  try {
    text = format_value(v, 5, nullptr, max_chars * 4 + 16);
  } catch (LispError&) {
    text = "a value that cannot be shown";
  }
  bool cut = false;
  text = cut_text(text, max_chars, &cut);
  if (cut) text += "...";
  return text;
}

}  // namespace ptc::protocol
