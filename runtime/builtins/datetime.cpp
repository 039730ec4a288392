// Minimal date and time interop (spec §8.14, java-interop.md): the Java
// names LLMs reach for (java.util.Date., LocalDate/parse, Instant/parse,
// Duration/between, .getTime, .plusDays, ...) over three host objects:
//
//   LocalDate  a calendar date, held as days since 1970-01-01
//   DateTime   an instant, held as UTC milliseconds since the epoch
//   Duration   a signed length of time in milliseconds
//
// All are OpaqueObj values with their own vtable, so `=`, `hash`, `compare`
// and `sort` work on them. A LocalDate prints as "2023-10-27", a DateTime as
// "2026-01-08T14:30:00Z" (quoted when readable, bare under `str`), a Duration
// as #duration[1500ms]. There is no time-zone database: text is read as UTC
// unless it carries an explicit numeric offset (or an RFC 2822 zone name,
// which stands for a fixed offset). The calendar is the proleptic Gregorian
// one, converted with the days-from-civil algorithms below.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/calendar.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"

namespace ptc::builtins {

namespace {

constexpr int64_t kMsPerSecond = 1000;
constexpr int64_t kMsPerMinute = 60 * kMsPerSecond;
constexpr int64_t kMsPerHour = 60 * kMsPerMinute;
constexpr int64_t kMsPerDay = 24 * kMsPerHour;
// java.util.Date.'s unit detection: smaller magnitudes are Unix seconds.
constexpr int64_t kSecondsThreshold = 1'000'000'000'000;
// Java's LocalDate range: years -999999999 to 999999999.
constexpr int64_t kMaxYear = 999'999'999;

// ---------------------------------------------------------------------------
const int64_t kMinEpochDay = days_from_civil(-kMaxYear, 1, 1);
const int64_t kMaxEpochDay = days_from_civil(kMaxYear, 12, 31);

// ---------------------------------------------------------------------------
// The three host objects.

struct TemporalObj : OpaqueObj {
  int64_t value = 0;  // epoch day, epoch milliseconds, or milliseconds
};

void append_year(std::string& out, int64_t y) {
  if (y >= 0 && y <= 9999)
    out += fmt::format("{:04}", y);
  else if (y > 9999)
    out += fmt::format("+{}", y);
  else
    out += fmt::format("-{:04}", -y);
}

void append_date(std::string& out, int64_t epoch_day) {
  Civil c = civil_from_days(epoch_day);
  append_year(out, c.year);
  out += fmt::format("-{:02}-{:02}", c.month, c.day);
}

// ISO-8601 as Java's Instant prints it: seconds always, milliseconds when set.
void append_instant(std::string& out, int64_t ms) {
  int64_t day = floor_div(ms, kMsPerDay);
  int64_t in_day = floor_mod(ms, kMsPerDay);  // ms - day * kMsPerDay overflows near INT64_MIN
  append_date(out, day);
  out += fmt::format("T{:02}:{:02}:{:02}", in_day / kMsPerHour, in_day / kMsPerMinute % 60,
                     in_day / kMsPerSecond % 60);
  if (int64_t frac = in_day % kMsPerSecond) out += fmt::format(".{:03}", frac);
  out += 'Z';
}

int64_t temporal_value(const OpaqueObj* o) {
  return static_cast<const TemporalObj*>(o)->value;
}

bool temporal_equals(const OpaqueObj* a, const OpaqueObj* b) {
  return temporal_value(a) == temporal_value(b);
}

int temporal_compare(const OpaqueObj* a, const OpaqueObj* b) {
  int64_t x = temporal_value(a), y = temporal_value(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

uint32_t mix_hash(int64_t v, uint64_t salt) {
  uint64_t h = static_cast<uint64_t>(v) ^ salt;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  auto r = static_cast<uint32_t>(h);
  return r ? r : 1;
}

void quote_if(std::string& out, bool readable, void (*body)(std::string&, int64_t), int64_t v) {
  if (readable) out += '"';
  body(out, v);
  if (readable) out += '"';
}

void print_local_date(const OpaqueObj* self, std::string& out, bool readable) {
  quote_if(out, readable, append_date, temporal_value(self));
}
void print_date_time(const OpaqueObj* self, std::string& out, bool readable) {
  quote_if(out, readable, append_instant, temporal_value(self));
}
void print_duration(const OpaqueObj* self, std::string& out, bool) {
  out += fmt::format("#duration[{}ms]", temporal_value(self));
}

uint32_t hash_local_date(const OpaqueObj* self) {
  return mix_hash(temporal_value(self), 0x4c6f63616c44ULL);
}
uint32_t hash_date_time(const OpaqueObj* self) {
  return mix_hash(temporal_value(self), 0x4461746554ULL);
}
uint32_t hash_duration(const OpaqueObj* self) {
  return mix_hash(temporal_value(self), 0x4475726174ULL);
}

const OpaqueVTable kLocalDate{"LocalDate",     print_local_date, temporal_equals,
                              hash_local_date, temporal_compare, sizeof(TemporalObj)};
const OpaqueVTable kDateTime{"DateTime",     print_date_time,  temporal_equals,
                             hash_date_time, temporal_compare, sizeof(TemporalObj)};
const OpaqueVTable kDuration{"Duration",    print_duration,   temporal_equals,
                             hash_duration, temporal_compare, sizeof(TemporalObj)};

Value make_temporal(Ctx& ctx, const OpaqueVTable& vt, int64_t v) {
  auto* o = ctx.arena.make<TemporalObj>();
  o->type = Type::Opaque;
  o->vt = &vt;
  o->value = v;
  return Value::object(o);
}

bool is_kind(Value v, const OpaqueVTable& vt) {
  return v.is(Type::Opaque) && v.as<const OpaqueObj>()->vt == &vt;
}

// What a value is, in the words the date errors use.
std::string_view kind_name(Value v) {
  if (v.is(Type::Opaque)) return v.as<const OpaqueObj>()->vt->type_name;
  return type_name(v.type());
}

[[noreturn]] void temporal_type_error(std::string_view fname, std::string_view expected, Value got,
                                      int pos, std::string_view hint = {}) {
  std::string shown = got.is_nil() ? "" : " " + preview(got);
  throw_error(ErrorKind::TypeError,
              fmt::format("{}: expected {} (argument {}), got {}{}", fname, expected, pos,
                          kind_name(got), shown),
              std::string(hint));
}

[[noreturn]] void out_of_range(std::string_view fname, std::string_view what) {
  throw_error(ErrorKind::ArithmeticError,
              fmt::format("{}: {} is out of the supported range", fname, what),
              "dates run from year -999999999 to 999999999");
}

Value make_local_date(Ctx& ctx, std::string_view fname, int64_t epoch_day) {
  if (epoch_day < kMinEpochDay || epoch_day > kMaxEpochDay) out_of_range(fname, "the date");
  return make_temporal(ctx, kLocalDate, epoch_day);
}

int64_t expect_local_date(std::string_view fname, Value v, int pos) {
  if (is_kind(v, kLocalDate)) return temporal_value(v.as<const OpaqueObj>());
  temporal_type_error(fname, "a LocalDate", v, pos,
                      is_kind(v, kDateTime)
                          ? "this is a DateTime; use .getTime for its milliseconds, or "
                            "Duration/between for differences"
                          : "make one with (LocalDate/parse \"2024-01-31\")");
}

int64_t expect_date_time(std::string_view fname, Value v, int pos) {
  if (is_kind(v, kDateTime)) return temporal_value(v.as<const OpaqueObj>());
  temporal_type_error(fname, "a DateTime", v, pos,
                      is_kind(v, kLocalDate)
                          ? "this is a LocalDate (no time of day); use .toEpochDay, or "
                            "(java.util.Date. d) for midnight UTC"
                          : "make one with (java.util.Date. ...) or (Instant/parse "
                            "\"2024-01-31T10:00:00Z\")");
}

int64_t expect_duration(std::string_view fname, Value v, int pos) {
  if (is_kind(v, kDuration)) return temporal_value(v.as<const OpaqueObj>());
  temporal_type_error(fname, "a Duration", v, pos,
                      "make one with (Duration/between start end) from two DateTimes");
}

// ---------------------------------------------------------------------------
// Reading text. Each reader consumes from `s` at `pos` and returns false when
// the text does not have its shape.

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool done() const { return pos_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[pos_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Exactly `n` decimal digits.
  bool digits(int n, int64_t& out) {
    if (pos_ + static_cast<size_t>(n) > s_.size()) return false;
    int64_t v = 0;
    for (int i = 0; i < n; ++i) {
      char c = s_[pos_ + static_cast<size_t>(i)];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos_ += static_cast<size_t>(n);
    out = v;
    return true;
  }
  // Between `min` and `max` decimal digits; returns how many were read.
  int digit_run(int min, int max, int64_t& out) {
    int n = 0;
    int64_t v = 0;
    while (n < max && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      v = v * 10 + (s_[pos_++] - '0');
      ++n;
    }
    if (n < min) return 0;
    out = v;
    return n;
  }
  size_t pos() const { return pos_; }
  std::string_view rest() const { return s_.substr(pos_); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

bool valid_date(int64_t y, int64_t m, int64_t d) {
  return y >= -kMaxYear && y <= kMaxYear && m >= 1 && m <= 12 && d >= 1 &&
         d <= days_in_month(y, static_cast<int>(m));
}

// YYYY-MM-DD; a year outside 0000-9999 carries a sign (+10000, -0001).
bool read_date(Scanner& sc, int64_t& epoch_day) {
  int64_t y, m, d;
  if (sc.peek() == '+' || sc.peek() == '-') {
    bool neg = sc.peek() == '-';
    sc.eat(sc.peek());
    if (sc.digit_run(4, 9, y) == 0) return false;
    if (neg) y = -y;
  } else if (!sc.digits(4, y)) {
    return false;
  }
  if (!sc.eat('-') || !sc.digits(2, m) || !sc.eat('-') || !sc.digits(2, d)) return false;
  if (!valid_date(y, m, d)) return false;
  epoch_day = days_from_civil(y, m, d);
  return true;
}

// HH:MM[:SS[.fraction]], fraction of 1-9 digits kept to milliseconds.
bool read_time(Scanner& sc, int64_t& ms_of_day) {
  int64_t h, mi, sec = 0, ms = 0;
  if (!sc.digits(2, h) || !sc.eat(':') || !sc.digits(2, mi)) return false;
  if (sc.eat(':')) {
    if (!sc.digits(2, sec)) return false;
    if (sc.eat('.') || sc.eat(',')) {
      int64_t frac;
      int n = sc.digit_run(1, 9, frac);
      if (n == 0) return false;
      for (int i = n; i < 3; ++i)
        frac *= 10;
      for (int i = 3; i < n; ++i)
        frac /= 10;
      ms = frac;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) return false;
  ms_of_day = h * kMsPerHour + mi * kMsPerMinute + sec * kMsPerSecond + ms;
  return true;
}

// Z, +HH:MM, +HHMM or +HH (and - forms); offset in minutes east of UTC.
bool read_offset(Scanner& sc, int64_t& minutes) {
  if (sc.eat('Z') || sc.eat('z')) {
    minutes = 0;
    return true;
  }
  if (sc.peek() != '+' && sc.peek() != '-') return false;
  bool neg = sc.peek() == '-';
  sc.eat(sc.peek());
  int64_t h, m = 0;
  if (!sc.digits(2, h)) return false;
  if (sc.eat(':')) {
    if (!sc.digits(2, m)) return false;
  } else if (!sc.done()) {
    if (!sc.digits(2, m)) return false;
  }
  if (h > 18 || m > 59) return false;
  minutes = (neg ? -1 : 1) * (h * 60 + m);
  return true;
}

// Milliseconds of a civil day plus a time of day at an offset; nullopt when
// that instant is beyond the int64 millisecond range (about 292 million years).
std::optional<int64_t> instant_ms(int64_t epoch_day, int64_t ms_of_day, int64_t offset_minutes) {
  int64_t ms;
  if (__builtin_mul_overflow(epoch_day, kMsPerDay, &ms) ||
      __builtin_add_overflow(ms, ms_of_day - offset_minutes * kMsPerMinute, &ms))
    return std::nullopt;
  return ms;
}

// Date, 'T' (or a space), time, optional offset; nothing may follow.
std::optional<int64_t> read_iso_date_time(std::string_view s) {
  Scanner sc(s);
  int64_t day, in_day, offset = 0;
  if (!read_date(sc, day)) return std::nullopt;
  if (!(sc.eat('T') || sc.eat('t') || sc.eat(' '))) return std::nullopt;
  if (!read_time(sc, in_day)) return std::nullopt;
  if (!sc.done() && (!read_offset(sc, offset) || !sc.done())) return std::nullopt;
  return instant_ms(day, in_day, offset);
}

std::optional<int64_t> read_iso_date(std::string_view s) {
  Scanner sc(s);
  int64_t day;
  if (!read_date(sc, day) || !sc.done()) return std::nullopt;
  return day;
}

// At most `max` words and then one more (enough to tell that there are too
// many): the text is the program's, and may hold millions of them.
std::vector<std::string_view> words(std::string_view s, size_t max) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size() && out.size() <= max) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

int month_number(std::string_view name) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (iequals(name, kMonths[i])) return i + 1;
  return 0;
}

bool weekday_name(std::string_view name) {
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  for (auto d : kDays)
    if (iequals(name, d)) return true;
  return false;
}

// An RFC 2822 zone: +hhmm/-hhmm, or a name standing for a fixed offset.
// Other alphabetic zones of up to three letters count as UTC (RFC 2822 §4.3).
bool read_zone(std::string_view z, int64_t& minutes) {
  if (z.size() == 5 && (z[0] == '+' || z[0] == '-')) {
    Scanner sc(z.substr(1));
    int64_t h, m;
    if (!sc.digits(2, h) || !sc.digits(2, m) || h > 23 || m > 59) return false;
    minutes = (z[0] == '-' ? -1 : 1) * (h * 60 + m);
    return true;
  }
  struct Named {
    std::string_view name;
    int hours;
  };
  static constexpr Named kZones[] = {{"UT", 0},   {"UTC", 0},  {"GMT", 0},  {"Z", 0},
                                     {"EST", -5}, {"EDT", -4}, {"CST", -6}, {"CDT", -5},
                                     {"MST", -7}, {"MDT", -6}, {"PST", -8}, {"PDT", -7}};
  for (const auto& n : kZones)
    if (iequals(z, n.name)) {
      minutes = n.hours * 60;
      return true;
    }
  if (z.empty() || z.size() > 3) return false;
  for (char c : z)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return false;
  minutes = 0;
  return true;
}

bool read_clock(std::string_view t, int64_t& ms_of_day) {
  Scanner sc(t);
  return read_time(sc, ms_of_day) && sc.done();
}

std::optional<int64_t> civil_instant(int64_t y, int64_t m, int64_t d, int64_t in_day,
                                     int64_t zone_minutes) {
  if (!valid_date(y, m, d)) return std::nullopt;
  return instant_ms(days_from_civil(y, m, d), in_day, zone_minutes);
}

// RFC 2822: "[Wed, ]8 Jan 2026 14:30[:00] [+0000|GMT|...]".
std::optional<int64_t> read_rfc2822(std::string_view s) {
  std::vector<std::string_view> w = words(s, 6);
  size_t i = 0;
  if (!w.empty() && w[0].size() == 4 && w[0][3] == ',' && weekday_name(w[0].substr(0, 3))) ++i;
  if (w.size() - i != 4 && w.size() - i != 5) return std::nullopt;
  int64_t d, y, in_day, zone = 0;
  Scanner ds(w[i]), ys(w[i + 2]);
  if (ds.digit_run(1, 2, d) == 0 || !ds.done()) return std::nullopt;
  int m = month_number(w[i + 1]);
  if (m == 0 || !ys.digits(4, y) || !ys.done()) return std::nullopt;
  if (!read_clock(w[i + 3], in_day)) return std::nullopt;
  if (w.size() - i == 5 && !read_zone(w[i + 4], zone)) return std::nullopt;
  return civil_instant(y, m, d, in_day, zone);
}

// java.util.Date's own toString form: "Thu Jan 01 00:00:01 UTC 1970".
std::optional<int64_t> read_java_date_string(std::string_view s) {
  std::vector<std::string_view> w = words(s, 6);
  if (w.size() != 6 || !weekday_name(w[0])) return std::nullopt;
  int m = month_number(w[1]);
  int64_t d, y, in_day, zone;
  Scanner ds(w[2]), ys(w[5]);
  if (m == 0 || ds.digit_run(1, 2, d) == 0 || !ds.done()) return std::nullopt;
  if (!read_clock(w[3], in_day) || !read_zone(w[4], zone)) return std::nullopt;
  if (!ys.digits(4, y) || !ys.done()) return std::nullopt;
  return civil_instant(y, m, d, in_day, zone);
}

// ---------------------------------------------------------------------------
// Builtins.

int64_t midnight(std::string_view fname, int64_t epoch_day) {
  auto ms = instant_ms(epoch_day, 0, 0);
  if (!ms) out_of_range(fname, "the date-time");
  return *ms;
}

Value date_ctor(Ctx& ctx, const Value* a, uint32_t n) {
  static constexpr std::string_view kName = "java.util.Date.";
  if (n == 0) return make_temporal(ctx, kDateTime, ctx.clock_ms());
  Value x = a[0];
  switch (x.type()) {
    case Type::Int: {
      int64_t t = x.as_int();
      bool seconds = t > -kSecondsThreshold && t < kSecondsThreshold;
      return make_temporal(ctx, kDateTime, seconds ? t * kMsPerSecond : t);
    }
    case Type::BigInt:
      out_of_range(kName, "the timestamp");
    case Type::String: {
      std::string_view s = x.str()->view();
      if (auto i = read_iso_date_time(s)) return make_temporal(ctx, kDateTime, *i);
      if (auto d = read_iso_date(s)) return make_temporal(ctx, kDateTime, midnight(kName, *d));
      if (auto t = read_rfc2822(s)) return make_temporal(ctx, kDateTime, *t);
      if (auto t = read_java_date_string(s)) return make_temporal(ctx, kDateTime, *t);
      throw_error(ErrorKind::TypeError,
                  fmt::format("{}: cannot parse {} as a date", kName, preview(x)),
                  "use ISO-8601 (\"2026-01-08T14:30:00Z\", \"2026-01-08\"), RFC 2822 (\"Wed, 8 "
                  "Jan 2026 14:30:00 +0000\") or epoch seconds/milliseconds");
    }
    case Type::Opaque:
      if (is_kind(x, kDateTime)) return x;
      if (is_kind(x, kLocalDate)) {
        int64_t day = temporal_value(x.as<const OpaqueObj>());
        return make_temporal(ctx, kDateTime, midnight(kName, day));
      }
      break;
    default:
      break;
  }
  temporal_type_error(kName, "epoch seconds/milliseconds, a date string or a date", x, 1,
                      x.is_nil() ? "a date cannot be made from nil; check the value first" : "");
}

// The parse family: YYYY-MM-DD gives a LocalDate; text with a time of day
// gives a DateTime (read as UTC when it has no offset).
Value parse_temporal(Ctx& ctx, std::string_view fname, Value x) {
  if (!x.is_string())
    temporal_type_error(
        fname, "an ISO-8601 string", x, 1,
        x.is_nil() ? "a date cannot be parsed from nil; check the value first" : "");
  std::string_view s = x.str()->view();
  if (auto d = read_iso_date(s)) return make_local_date(ctx, fname, *d);
  if (auto i = read_iso_date_time(s)) return make_temporal(ctx, kDateTime, *i);
  bool has_time = s.find_first_of("Tt") != std::string_view::npos;
  throw_error(
      ErrorKind::TypeError,
      fmt::format("{}: invalid ISO-8601 {} {}", fname, has_time ? "date-time" : "date", preview(x)),
      has_time ? "expected YYYY-MM-DDTHH:MM:SS with an optional fraction and offset (Z, "
                 "+02:00)"
               : "expected YYYY-MM-DD");
}

Value parse(Ctx& ctx, const Value* a, uint32_t) {
  return parse_temporal(ctx, "parse", a[0]);
}
Value local_date_parse(Ctx& ctx, const Value* a, uint32_t) {
  return parse_temporal(ctx, "LocalDate/parse", a[0]);
}
Value java_local_date_parse(Ctx& ctx, const Value* a, uint32_t) {
  return parse_temporal(ctx, "java.time.LocalDate/parse", a[0]);
}
Value instant_parse(Ctx& ctx, const Value* a, uint32_t) {
  return parse_temporal(ctx, "Instant/parse", a[0]);
}
Value java_instant_parse(Ctx& ctx, const Value* a, uint32_t) {
  return parse_temporal(ctx, "java.time.Instant/parse", a[0]);
}

Value get_time(Ctx&, const Value* a, uint32_t) {
  return Value::integer(expect_date_time(".getTime", a[0], 1));
}

Value to_epoch_day(Ctx&, const Value* a, uint32_t) {
  return Value::integer(expect_local_date(".toEpochDay", a[0], 1));
}

// A day count as Clojure's interop passes it to a Java long parameter:
// integers as they are, floats truncated toward zero, NaN as 0 (GAP-J12).
int64_t day_count(std::string_view fname, Value v) {
  if (v.is_int()) return v.as_int();
  if (v.is(Type::BigInt)) out_of_range(fname, "the day count");
  if (v.is_float()) {
    double d = v.as_float();
    if (std::isnan(d)) return 0;
    auto days = double_to_int64(d);
    if (!days) out_of_range(fname, "the day count");
    return *days;
  }
  type_error(fname, "an integer number of days", v, 2);
}

Value shift_days(Ctx& ctx, std::string_view fname, const Value* a, bool forward) {
  int64_t day = expect_local_date(fname, a[0], 1);
  int64_t n = day_count(fname, a[1]);
  int64_t result;
  bool overflow =
      forward ? __builtin_add_overflow(day, n, &result) : __builtin_sub_overflow(day, n, &result);
  if (overflow) out_of_range(fname, "the date");
  return make_local_date(ctx, fname, result);
}

Value plus_days(Ctx& ctx, const Value* a, uint32_t) {
  return shift_days(ctx, ".plusDays", a, true);
}
Value minus_days(Ctx& ctx, const Value* a, uint32_t) {
  return shift_days(ctx, ".minusDays", a, false);
}

Value duration_between_named(Ctx& ctx, std::string_view fname, const Value* a) {
  auto instant = [&](Value v, int pos) {
    if (is_kind(v, kLocalDate))
      temporal_type_error(fname, "a DateTime", v, pos,
                          "LocalDates have no time of day; for a day difference use (- "
                          "(.toEpochDay b) (.toEpochDay a))");
    return expect_date_time(fname, v, pos);
  };
  int64_t start = instant(a[0], 1), end = instant(a[1], 2), ms;
  if (__builtin_sub_overflow(end, start, &ms)) out_of_range(fname, "the duration");
  return make_temporal(ctx, kDuration, ms);
}

Value duration_between(Ctx& ctx, const Value* a, uint32_t) {
  return duration_between_named(ctx, "Duration/between", a);
}
Value java_duration_between(Ctx& ctx, const Value* a, uint32_t) {
  return duration_between_named(ctx, "java.time.Duration/between", a);
}

Value to_millis(Ctx&, const Value* a, uint32_t) {
  return Value::integer(expect_duration(".toMillis", a[0], 1));
}

Value to_days(Ctx&, const Value* a, uint32_t) {
  return Value::integer(expect_duration(".toDays", a[0], 1) / kMsPerDay);  // toward zero
}

// -1, 0 or 1 for two dates of the same kind (both LocalDate or both DateTime).
int compare_same_kind(std::string_view fname, Value a, Value b) {
  const OpaqueVTable* vt = is_kind(a, kLocalDate)  ? &kLocalDate
                           : is_kind(a, kDateTime) ? &kDateTime
                                                   : nullptr;
  if (!vt) temporal_type_error(fname, "a LocalDate or DateTime", a, 1);
  if (!is_kind(b, *vt)) {
    if (is_kind(b, kLocalDate) || is_kind(b, kDateTime))
      throw_error(ErrorKind::TypeError,
                  fmt::format("{}: cannot compare {} with {} — use same types", fname,
                              vt->type_name, kind_name(b)),
                  vt == &kLocalDate ? "convert the LocalDate with (java.util.Date. d), or compare "
                                      "(.toEpochDay d) values"
                                    : "convert the LocalDate with (java.util.Date. d)");
    temporal_type_error(fname, fmt::format("a {}", vt->type_name), b, 2);
  }
  return temporal_compare(a.as<const OpaqueObj>(), b.as<const OpaqueObj>());
}

Value is_before(Ctx&, const Value* a, uint32_t) {
  return Value::boolean(compare_same_kind(".isBefore", a[0], a[1]) < 0);
}
Value is_after(Ctx&, const Value* a, uint32_t) {
  return Value::boolean(compare_same_kind(".isAfter", a[0], a[1]) > 0);
}

Value current_time_millis(Ctx& ctx, const Value*, uint32_t) {
  return Value::integer(ctx.clock_ms());
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Interop, "java.util.Date.", 0, 1, date_ctor, "(java.util.Date. x?)", "A DateTime: now (UTC), from epoch seconds (|x| < 10^12) or milliseconds, from ISO-8601 or RFC 2822 text, or from a date."),
    PTC_BUILTIN(Interop, "parse", 1, 1, parse, "(parse s)", "Reads ISO-8601 text: YYYY-MM-DD gives a LocalDate, text with a time gives a DateTime (UTC unless it has an offset)."),
    PTC_BUILTIN(Interop, "LocalDate/parse", 1, 1, local_date_parse, "(LocalDate/parse s)", "Reads ISO-8601 text as parse does: a LocalDate for YYYY-MM-DD, a DateTime when a time is present."),
    PTC_BUILTIN(Interop, "java.time.LocalDate/parse", 1, 1, java_local_date_parse, "(java.time.LocalDate/parse s)", "Same as LocalDate/parse."),
    PTC_BUILTIN(Interop, "Instant/parse", 1, 1, instant_parse, "(Instant/parse s)", "Reads an ISO-8601 instant as a DateTime (UTC when there is no offset); YYYY-MM-DD gives a LocalDate."),
    PTC_BUILTIN(Interop, "java.time.Instant/parse", 1, 1, java_instant_parse, "(java.time.Instant/parse s)", "Same as Instant/parse."),
    PTC_BUILTIN(Interop, ".getTime", 1, 1, get_time, "(.getTime date-time)", "Milliseconds since the Unix epoch of a DateTime."),
    PTC_BUILTIN(Interop, ".toEpochDay", 1, 1, to_epoch_day, "(.toEpochDay local-date)", "Days since 1970-01-01 of a LocalDate."),
    PTC_BUILTIN(Interop, ".plusDays", 2, 2, plus_days, "(.plusDays local-date n)", "The LocalDate n days later."),
    PTC_BUILTIN(Interop, ".minusDays", 2, 2, minus_days, "(.minusDays local-date n)", "The LocalDate n days earlier."),
    PTC_BUILTIN(Interop, "Duration/between", 2, 2, duration_between, "(Duration/between start end)", "The Duration from one DateTime to another (end minus start)."),
    PTC_BUILTIN(Interop, "java.time.Duration/between", 2, 2, java_duration_between, "(java.time.Duration/between start end)", "Same as Duration/between."),
    PTC_BUILTIN(Interop, ".toMillis", 1, 1, to_millis, "(.toMillis duration)", "The length of a Duration in milliseconds."),
    PTC_BUILTIN(Interop, ".toDays", 1, 1, to_days, "(.toDays duration)", "The length of a Duration in whole days, truncated toward zero."),
    PTC_BUILTIN(Interop, ".isBefore", 2, 2, is_before, "(.isBefore a b)", "True when date a is strictly earlier than b; both LocalDate or both DateTime."),
    PTC_BUILTIN(Interop, ".isAfter", 2, 2, is_after, "(.isAfter a b)", "True when date a is strictly later than b; both LocalDate or both DateTime."),
    PTC_BUILTIN(Interop, "System/currentTimeMillis", 0, 0, current_time_millis, "(System/currentTimeMillis)", "The current time in milliseconds since the Unix epoch."),
    PTC_BUILTIN(Interop, "currentTimeMillis", 0, 0, current_time_millis, "(currentTimeMillis)", "Same as System/currentTimeMillis."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> datetime() {
  return kDefs;
}

}  // namespace ptc::builtins
