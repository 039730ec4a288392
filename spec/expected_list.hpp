// spec/expected_failures.txt: the ids of checkable cases that fail today,
// one per line as `<id>  # <reason>`; blank lines and lines starting with '#'
// are comments. The runner fails when a case fails that is not listed, when a
// listed case passes, and when a listed id is unknown, so the list can only
// shrink as the engine improves.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/error.hpp"

namespace spec {

struct ExpectedList {
  struct Entry {
    std::string id;
    std::string reason;
    int line = 0;
  };
  std::vector<Entry> entries;           // file order
  std::map<std::string, size_t> index;  // id -> entries position
  std::vector<std::string> problems;    // malformed or duplicate lines

  const Entry* find(std::string_view id) const;
};

ExpectedList parse_expected_list(std::string_view text);

// The name an unbound_var error says is missing ("undefined symbol X",
// "X is not available in PTC-Lisp", "unknown namespace N in X"), or nullopt.
std::optional<std::string> missing_name(const ptc::Error& error);

// One-line reasons written by --update-expected.
std::string reason_for_error(const ptc::Error& error);
std::string reason_for_value(std::string_view printed, std::string_view note = {});

// True when `reason` looks generated (so --update-expected may refresh it);
// hand-written reasons are kept while the case still fails.
bool is_generated_reason(std::string_view reason);

// At most `max_chars` code points of `text`, newlines shown as spaces, with
// "..." when cut.
std::string one_line(std::string_view text, size_t max_chars);

}  // namespace spec
