#include "spec/expected_list.hpp"

#include <string>

namespace spec {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

const ExpectedList::Entry* ExpectedList::find(std::string_view id) const {
  auto it = index.find(std::string(id));
  return it == index.end() ? nullptr : &entries[it->second];
}

ExpectedList parse_expected_list(std::string_view text) {
  ExpectedList list;
  int line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t hash = line.find('#');
    std::string_view id = trim(line.substr(0, hash));
    std::string_view reason =
        hash == std::string_view::npos ? std::string_view() : trim(line.substr(hash + 1));
    if (id.find_first_of(" \t") != std::string_view::npos) {
      list.problems.push_back("line " + std::to_string(line_no) + ": expected `<id>  # <reason>`");
      continue;
    }
    if (list.index.count(std::string(id))) {
      list.problems.push_back("line " + std::to_string(line_no) + ": " + std::string(id) +
                              " is listed twice");
      continue;
    }
    list.index.emplace(std::string(id), list.entries.size());
    list.entries.push_back({std::string(id), std::string(reason), line_no});
  }
  return list;
}

std::optional<std::string> missing_name(const ptc::Error& error) {
  if (error.kind != ptc::ErrorKind::UnboundVar) return std::nullopt;
  std::string_view m = error.message;
  constexpr std::string_view kUndefined = "undefined symbol ";
  constexpr std::string_view kUnavailable = " is not available in PTC-Lisp";
  constexpr std::string_view kUnknownNs = "unknown namespace ";
  std::string_view name;
  if (m.starts_with(kUndefined)) {
    name = m.substr(kUndefined.size());
  } else if (m.ends_with(kUnavailable)) {
    name = m.substr(0, m.size() - kUnavailable.size());
  } else if (m.starts_with(kUnknownNs) && m.find(" in ") != std::string_view::npos) {
    name = m.substr(m.find(" in ") + 4);  // "unknown namespace json in json/parse-lines"
  } else {
    return std::nullopt;
  }
  if (name.empty() || name.find_first_of(" \n") != std::string_view::npos) return std::nullopt;
  return std::string(name);
}

std::string one_line(std::string_view text, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {  // a code point starts here
      if (chars == max_chars) {
        out += "...";
        return out;
      }
      ++chars;
    }
    out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : text[i]);
  }
  return out;
}

std::string reason_for_error(const ptc::Error& error) {
  if (auto name = missing_name(error)) return "needs " + *name + " (an undefined name)";
  return std::string(ptc::reason_name(error.kind)) + ": " + one_line(error.message, 80);
}

std::string reason_for_value(std::string_view printed, std::string_view note) {
  std::string r = "wrong value: got " + one_line(printed, 60);
  if (!note.empty()) {
    r += " (";
    r += note;
    r += ")";
  }
  return r;
}

bool is_generated_reason(std::string_view reason) {
  if (reason.starts_with("needs ") || reason.starts_with("wrong value")) return true;
  size_t colon = reason.find(": ");
  return colon != std::string_view::npos &&
         ptc::reason_from_name(reason.substr(0, colon)).has_value();
}

}  // namespace spec
