#include "frontend/form_heads.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "runtime/strings.hpp"

namespace ptc::analysis {

bool is_listed_form_head(std::string_view name) {
  // Heads grouped by first character: a call's head is usually rejected by
  // its length or first character, and otherwise meets a few comparisons.
  // Built once, then only read: safe from any thread.
  struct Index {
    size_t longest = 0;
    std::array<std::vector<std::string_view>, 256> by_first{};
  };
  static const Index index = [] {
    Index ix;
    for (std::string_view h : kFormHeads) {
      ix.longest = std::max(ix.longest, h.size());
      ix.by_first[static_cast<unsigned char>(h[0])].push_back(h);
    }
    return ix;
  }();
  if (name.empty() || name.size() > index.longest) return false;
  for (std::string_view h : index.by_first[static_cast<unsigned char>(name[0])])
    if (same_name(h, name)) return true;
  return false;
}

}  // namespace ptc::analysis
