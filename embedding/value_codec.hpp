// The binary encoding of host values that snapshots are written in, and that
// worker processes (isolation/) speak to their parent: LEB128 varints (signed
// ones zigzagged), floats 8 bytes little-endian, strings a varint length and
// bytes, values a tag byte and their parts. One encoding, two users: the
// reader checks every field of bytes it cannot trust and throws
// LispError(snapshot_error) saying what and at which byte, never crashes.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "include/ptc/limits.hpp"
#include "runtime/error.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc {

// Decimal digits of the largest integer a run can hold (2^20 bits), and a margin.
constexpr size_t kMaxBigIntDigits = 330'000;
// Items of a collection reserved before they are read; past it, the
// collection grows as they come. A count is only a claim until its items
// are read: nested collections each claiming every byte left would reserve
// in proportion to the square of the bytes (3 KB held 13 MB).
constexpr size_t kReserveAhead = 8;

enum Tag : uint8_t {
  kNil = 0,
  kFalse = 1,
  kTrue = 2,
  kInt = 3,
  kBigInt = 4,
  kFloat = 5,
  kString = 6,
  kKeyword = 7,
  kVector = 8,
  kMap = 9,
  kSet = 10,
  kOpaque = 11,
};

class ValueWriter {
 public:
 public:
  std::string out;

  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void varint(uint64_t v) {
    char buf[10];
    size_t n = 0;
    while (v >= 0x80) {
      buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out.append(buf, n);
  }
  void svarint(int64_t v) {
    varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void f64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    char buf[8];
    for (int i = 0; i < 8; ++i)
      buf[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
    out.append(buf, 8);
  }
  void str(std::string_view s) {
    varint(s.size());
    out.append(s);
  }
  void value(const HostValue& v) {
    check_native_stack("writing a snapshot");
    using K = HostValue::Kind;
    switch (v.kind()) {
      case K::Nil:
        return u8(kNil);
      case K::Bool:
        return u8(v.as_bool() ? kTrue : kFalse);
      case K::Int:
        u8(kInt);
        return svarint(v.as_int());
      case K::BigInt:
        u8(kBigInt);
        return str(v.text());
      case K::Float:
        u8(kFloat);
        return f64(v.as_float());
      case K::String:
        u8(kString);
        return str(v.text());
      case K::Keyword:
        u8(kKeyword);
        return str(v.text());
      case K::Vector:
      case K::Set:
        u8(v.kind() == K::Vector ? kVector : kSet);
        varint(v.items().size());
        for (const HostValue& x : v.items())
          value(x);
        return;
      case K::Map:
        u8(kMap);
        varint(v.items().size() / 2);
        for (const HostValue& x : v.items())
          value(x);
        return;
      case K::Opaque: {
        u8(kOpaque);
        str(v.text());
        const Restorer* r = v.restorer();
        u8(r ? 1 : 0);
        if (r) {
          str(r->factory);
          varint(r->args.size());
          for (const HostValue& a : r->args)
            value(a);
        }
        return;
      }
    }
  }
};

// What bytes being read are, for the errors: a snapshot unless told otherwise.
struct CodecSubject {
  std::string_view noun = "the snapshot";
  std::string_view hint = "give load() the bytes dump() wrote, whole and unchanged";
  std::string_view truncated_hint = "give load() the bytes dump() wrote, whole";
};

class ValueReader {
 public:
  ValueReader(std::string_view bytes, size_t end, CodecSubject subject = CodecSubject{})
      : data_(bytes), pos_(0), end_(end), subject_(subject) {}

  size_t pos() const { return pos_; }
  std::string_view data() const { return data_; }
  void skip(size_t n) { pos_ += n; }
  size_t left() const { return end_ - pos_; }
  bool at_end() const { return pos_ == end_; }

  [[noreturn]] void fail(std::string_view what) const {
    throw_error(ErrorKind::SnapshotError, fmt::format("{} (at byte {})", what, pos_),
                std::string(subject_.hint));
  }

  uint8_t u8(std::string_view what) {
    if (left() < 1) truncated(what);
    return static_cast<uint8_t>(data_[pos_++]);
  }
  uint64_t varint(std::string_view what) {
    if (pos_ < end_ && !(static_cast<uint8_t>(data_[pos_]) & 0x80))  // one byte: most are
      return static_cast<uint8_t>(data_[pos_++]);
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (left() < 1) truncated(what);
      auto b = static_cast<uint8_t>(data_[pos_++]);
      if (shift == 63 && b > 1) fail(fmt::format("{}: a number larger than 64 bits", what));
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      if (shift == 63) fail(fmt::format("{}: a number larger than 64 bits", what));
    }
  }
  uint32_t u32(std::string_view what) {
    uint64_t v = varint(what);
    if (v > UINT32_MAX) fail(fmt::format("{}: {} is out of range", what, v));
    return static_cast<uint32_t>(v);
  }
  int64_t svarint(std::string_view what) {
    uint64_t z = varint(what);
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  double f64(std::string_view what) {
    if (left() < 8) truncated(what);
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i)
      bits |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    pos_ += 8;
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  // A count of items each at least `min_bytes` long: never more than fit.
  size_t count(std::string_view what, size_t min_bytes = 1) {
    size_t at = pos_;
    uint64_t n = varint(what);
    if (n > left() / min_bytes) {
      pos_ = at;
      fail(fmt::format("{}: {} items cannot fit in the {} bytes left", what, n, left()));
    }
    return static_cast<size_t>(n);
  }
  std::string_view bytes(std::string_view what) {
    size_t at = pos_;
    uint64_t n = varint(what);
    if (n > left()) {
      pos_ = at;
      fail(fmt::format("{}: a length of {} runs past the end ({} bytes left)", what, n, left()));
    }
    std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string str(std::string_view what) { return std::string(text(what)); }
  bool flag(std::string_view what) {
    uint8_t b = u8(what);
    if (b > 1) fail(fmt::format("{}: {} is not a flag (0 or 1)", what, b));
    return b == 1;
  }

  // Checks a value as value() reads it, without building it; its bytes.
  std::string_view value_bytes(std::string_view what) {
    size_t at = pos_;
    skip_value(what);
    return data_.substr(at, pos_ - at);
  }

  void skip_value(std::string_view what, uint32_t depth = 0) {
    // The stack is checked every few levels of nesting: most values are flat.
    if (depth % 16 == 15) check_native_stack("reading a snapshot");
    size_t at = pos_;
    uint8_t tag = u8(what);
    switch (tag) {
      case kNil:
      case kFalse:
      case kTrue:
        return;
      case kInt:
        (void)svarint(what);
        return;
      case kBigInt: {
        size_t text = pos_;
        std::string_view digits = bytes(what);
        if (!valid_bigint(digits)) {
          pos_ = text;
          fail(fmt::format("{}: not a big integer", what));
        }
        return;
      }
      case kFloat:
        (void)f64(what);
        return;
      case kString:
      case kKeyword:
        text(what);
        return;
      case kVector:
      case kSet: {
        size_t n = count(what);
        for (size_t i = 0; i < n; ++i)
          skip_value(what, depth + 1);
        return;
      }
      case kMap: {
        size_t n = count(what, 2);
        for (size_t i = 0; i < 2 * n; ++i)
          skip_value(what, depth + 1);
        return;
      }
      case kOpaque: {
        text(what);
        if (!flag(what)) return;
        text(what);
        size_t n = count(what);
        for (size_t i = 0; i < n; ++i)
          skip_value(what, depth + 1);
        return;
      }
      default:
        pos_ = at;
        fail(fmt::format("{}: unknown value tag {}", what, tag));
    }
  }

  // A UTF-8 text, in place.
  std::string_view text(std::string_view what) {
    size_t at = pos_;
    std::string_view s = bytes(what);
    size_t bad = 0;
    if (!is_valid_utf8(s, &bad)) {
      pos_ = at;
      fail(fmt::format("{}: not UTF-8 (byte {} of the text)", what, bad));
    }
    return s;
  }

  HostValue value(std::string_view what) {
    check_native_stack("reading a snapshot");
    size_t at = pos_;
    uint8_t tag = u8(what);
    switch (tag) {
      case kNil:
        return HostValue();
      case kFalse:
        return HostValue::boolean(false);
      case kTrue:
        return HostValue::boolean(true);
      case kInt:
        return HostValue::integer(svarint(what));
      case kBigInt: {
        std::string digits = str(what);
        if (!valid_bigint(digits)) {
          pos_ = at;
          fail(fmt::format("{}: not a big integer", what));
        }
        return HostValue::bigint(std::move(digits));
      }
      case kFloat:
        return HostValue::floating(f64(what));
      case kString:
        return HostValue::string(str(what));
      case kKeyword:
        return HostValue::keyword(str(what));
      case kVector:
      case kSet: {
        size_t n = count(what);
        std::vector<HostValue> items;
        items.reserve(std::min(n, kReserveAhead));
        for (size_t i = 0; i < n; ++i)
          items.push_back(value(what));
        return tag == kVector ? HostValue::vector(std::move(items))
                              : HostValue::set(std::move(items));
      }
      case kMap: {
        size_t n = count(what, 2);
        std::vector<std::pair<HostValue, HostValue>> entries;
        entries.reserve(std::min(n, kReserveAhead));
        for (size_t i = 0; i < n; ++i) {
          HostValue k = value(what);
          entries.emplace_back(std::move(k), value(what));
        }
        return HostValue::map(std::move(entries));
      }
      case kOpaque: {
        std::string printed = str(what);
        if (!flag(what)) return HostValue::opaque(std::move(printed));
        auto restorer = std::make_shared<Restorer>();
        restorer->factory = str(what);
        size_t n = count(what);
        restorer->args.reserve(std::min(n, kReserveAhead));
        for (size_t i = 0; i < n; ++i)
          restorer->args.push_back(value(what));
        return HostValue::opaque(std::move(printed), std::move(restorer));
      }
      default:
        pos_ = at;
        fail(fmt::format("{}: unknown value tag {}", what, tag));
    }
  }

 private:
  [[noreturn]] void truncated(std::string_view what) const {
    throw_error(ErrorKind::SnapshotError,
                fmt::format("{} is truncated: it ends at byte {} while reading {}", subject_.noun,
                            pos_, what),
                std::string(subject_.truncated_hint));
  }
  static bool valid_bigint(std::string_view s) {
    size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
    if (i == s.size() || s.size() > kMaxBigIntDigits || (s[i] == '0' && s.size() > i + 1))
      return false;
    for (; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '9') return false;
    return true;
  }

  std::string_view data_;
  size_t pos_;
  size_t end_;
  CodecSubject subject_;
};

// The limits of a run, field by field.
void write_limits(ValueWriter& w, const Limits& l);
Limits read_limits(ValueReader& r);

}  // namespace ptc
