#include "runtime/strings.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "runtime/arena.hpp"
#include "runtime/error.hpp"

namespace ptc {

std::string human_bytes(size_t n) {
  if (n >= (size_t{1} << 20)) return fmt::format("{:.1f} MB", n / 1048576.0);
  if (n >= 1024) return fmt::format("{:.1f} KB", n / 1024.0);
  return fmt::format("{} bytes", n);
}

StrObj* new_string_uninit(Arena& arena, size_t len) {
  // The length is stored in 32 bits and the grapheme count in a signed 32-bit
  // cache: a longer string (possible only with a multi-gigabyte heap) is refused.
  if (len > static_cast<size_t>(INT32_MAX))
    throw_error(ErrorKind::MemoryLimit,
                "memory limit exceeded: a string longer than 2 GB cannot be made",
                "process text in smaller pieces");
  auto* s = static_cast<StrObj*>(arena.alloc(sizeof(StrObj) + len + 1));
  new (s) StrObj();
  s->type = Type::String;
  s->len = static_cast<uint32_t>(len);
  s->data()[len] = '\0';
  return s;
}

const StrObj* new_string(Arena& arena, std::string_view bytes) {
  StrObj* s = new_string_uninit(arena, bytes.size());
  if (!bytes.empty()) std::memcpy(s->data(), bytes.data(), bytes.size());
  return s;
}

size_t decode_utf8(std::string_view s, size_t pos, int32_t* cp) {
  if (pos >= s.size()) return 0;
  utf8proc_int32_t c;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + pos),
                            static_cast<utf8proc_ssize_t>(s.size() - pos), &c);
  if (n <= 0) return 0;
  *cp = c;
  return static_cast<size_t>(n);
}

void append_utf8(std::string& out, int32_t cp) {
  utf8proc_uint8_t buf[4];
  auto n = utf8proc_encode_char(cp, buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

bool is_valid_utf8(std::string_view s, size_t* bad_offset) {
  size_t i = 0;
  while (i < s.size()) {
    // Eight ASCII bytes at a time: most text is ASCII.
    uint64_t word;
    while (i + 8 <= s.size() &&
           (std::memcpy(&word, s.data() + i, 8), !(word & 0x8080808080808080u)))
      i += 8;
    if (i >= s.size()) break;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    int32_t cp;
    size_t n = decode_utf8(s, i, &cp);
    if (n == 0) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += n;
  }
  return true;
}

// The ascii flags and the grapheme count are caches in a shared object; like
// the hash cache (equality.cpp) they are accessed atomically, so that parallel
// workers reading one string do not race (a racing recompute is harmless).
bool is_ascii(const StrObj* s) {
  std::atomic_ref<uint8_t> flags(const_cast<StrObj*>(s)->flags);
  uint8_t f = flags.load(std::memory_order_relaxed);
  if (!(f & StrObj::kAsciiKnown)) {
    bool ascii = true;
    for (char c : s->view())
      if (static_cast<unsigned char>(c) >= 0x80) {
        ascii = false;
        break;
      }
    auto known = static_cast<uint8_t>(StrObj::kAsciiKnown | (ascii ? StrObj::kAscii : 0));
    f = flags.fetch_or(known, std::memory_order_relaxed) | known;
  }
  return f & StrObj::kAscii;
}

size_t grapheme_length(std::string_view s, size_t pos) {
  int32_t first;
  size_t n = decode_utf8(s, pos, &first);
  if (n == 0) return pos < s.size() ? 1 : 0;
  // \r\n is one grapheme; plain ASCII followed by ASCII is always a boundary.
  size_t end = pos + n;
  if (first < 0x80 && first != '\r' &&
      (end >= s.size() || static_cast<unsigned char>(s[end]) < 0x80))
    return n;
  utf8proc_int32_t state = 0;
  int32_t prev = first;
  while (end < s.size()) {
    int32_t next;
    size_t m = decode_utf8(s, end, &next);
    if (m == 0) break;
    if (utf8proc_grapheme_break_stateful(prev, next, &state)) break;
    prev = next;
    end += m;
  }
  return end - pos;
}

size_t grapheme_count(std::string_view s) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); i += grapheme_length(s, i))
    ++count;
  return count;
}

size_t grapheme_count(const StrObj* s) {
  std::atomic_ref<int32_t> cache(s->graphemes);
  int32_t n = cache.load(std::memory_order_relaxed);
  if (n < 0) {
    n = static_cast<int32_t>(is_ascii(s) ? s->len : grapheme_count(s->view()));
    cache.store(n, std::memory_order_relaxed);
  }
  return static_cast<size_t>(n);
}

size_t grapheme_offset(std::string_view s, size_t index) {
  size_t pos = 0;
  while (index > 0 && pos < s.size()) {
    pos += grapheme_length(s, pos);
    --index;
  }
  return pos;
}

void split_graphemes(std::string_view s, std::vector<std::string_view>& out) {
  for (size_t i = 0; i < s.size();) {
    size_t n = grapheme_length(s, i);
    out.push_back(s.substr(i, n));
    i += n;
  }
}

namespace {

// The escape append_quoted writes for `c`, or nullptr when `c` is written as is.
const char* quoted_escape(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      return nullptr;
  }
}

}  // namespace

bool needs_quoting_escape(std::string_view s) {
  for (char c : s)
    if (quoted_escape(c)) return true;
  return false;
}

void append_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    if (const char* escape = quoted_escape(c))
      out += escape;
    else
      out.push_back(c);
  }
  out.push_back('"');
}

}  // namespace ptc
