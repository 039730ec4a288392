// ISO 8601 date-time text as the :datetime signature type takes it, normalised
// to UTC. Stricter than the dates builtins' reader (seconds required, years of
// four digits), and a fraction keeps up to six digits, as text.
#pragma once

#include <string>
#include <string_view>

namespace ptc {

struct DateTimeText {
  bool ok = false;
  bool naive = false;  // well formed but without an offset
  std::string utc;     // canonical: YYYY-MM-DDTHH:MM:SS[.ffffff]Z
  int offset_minutes = 0;
};

// YYYY-MM-DD(T| )HH:MM:SS[.frac](Z|+HH:MM|+HHMM|+HH), as DateTime.from_iso8601.
DateTimeText parse_datetime(std::string_view s);

}  // namespace ptc
