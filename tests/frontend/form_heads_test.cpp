// form_heads.hpp lists every name the analyzer handles as a form; a name
// missing there would make its form an ordinary call ("undefined symbol
// when"). The chains that dispatch on the head are read from their source
// here, so a form added to them and not to the list fails this test.
#include "frontend/form_heads.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace ptc::analysis {
namespace {

std::set<std::string> compared_heads(const std::string& file) {
  std::ifstream in(std::string(PTC_SOURCE_DIR) + "/frontend/" + file);
  EXPECT_TRUE(in) << file;
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  std::set<std::string> names;
  static const std::regex compared(R"re(\bh == "([^"]+)")re");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), compared);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

TEST(FormHeads, EveryHeadTheDispatchComparesIsListed) {
  std::set<std::string> names = compared_heads("analyzer.cpp");
  std::set<std::string> macros = compared_heads("macros.cpp");
  names.insert(macros.begin(), macros.end());
  EXPECT_GE(names.size(), 35u);  // the chains were found
  for (const std::string& name : names)
    EXPECT_TRUE(is_form_head(name))
        << name << " is dispatched on but not in kFormHeads (form_heads.hpp)";
  for (const char* internal : {"fn ", "let ", "if ", "do "})
    EXPECT_TRUE(is_form_head(internal)) << '"' << internal << '"';
}

TEST(FormHeads, CallsAreNoFormHeads) {
  for (const char* call : {"+", "map", "filter", "get", "str", "iff", "whenever", "tool/x", ""})
    EXPECT_FALSE(is_form_head(call)) << call;
}

}  // namespace
}  // namespace ptc::analysis
