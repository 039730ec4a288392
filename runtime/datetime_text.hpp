// ISO 8601 date-time text with an offset, as the :datetime signature type
// takes it (Elixir's DateTime.from_iso8601): recognised and normalised to
// UTC. Stricter than the reader of the dates builtins (builtins/datetime.cpp,
// which makes instants of milliseconds): seconds are required, the year has
// four digits, and a fraction keeps up to six digits, as text.
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
