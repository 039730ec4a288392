// ptc::documentation(): the list docs/language.md is generated from covers
// every special form and every builtin a program can call, each with a
// signature and a doc line, and says what (doc name) says.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "include/ptc/ptc.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/builtins/special_forms.hpp"

namespace {

using Kind = ptc::DocEntry::Kind;

TEST(Documentation, EveryEntryHasASignatureAndOneDocLine) {
  for (const ptc::DocEntry& e : ptc::documentation()) {
    EXPECT_FALSE(e.name.empty());
    EXPECT_FALSE(e.category.empty()) << e.name;
    EXPECT_FALSE(e.signature.empty()) << e.name;
    EXPECT_FALSE(e.doc.empty()) << e.name;
    // The signature shows how the name itself is called.
    EXPECT_NE(e.signature.find(e.name), std::string::npos) << e.name << ": " << e.signature;
    EXPECT_EQ(e.doc.find('\n'), std::string::npos) << e.name;
    EXPECT_EQ(e.signature.find('\n'), std::string::npos) << e.name;
  }
}

TEST(Documentation, NamesAreUnique) {
  std::set<std::string> seen;
  for (const ptc::DocEntry& e : ptc::documentation())
    EXPECT_TRUE(seen.insert(e.name).second) << e.name << " is documented twice";
}

TEST(Documentation, EveryBuiltinProgramsCanCallIsListed) {
  std::set<std::string> documented;
  for (const ptc::DocEntry& e : ptc::documentation())
    if (e.kind == Kind::Builtin) documented.insert(e.name);
  size_t callable = 0;
  for (const ptc::BuiltinDef& d : ptc::all_builtins()) {
    // Names starting with "__" are the analyzer's helpers; programs cannot
    // resolve them, and they alone are left out.
    bool visible = !d.name.starts_with("__");
    callable += visible;
    EXPECT_EQ(documented.count(std::string(d.name)), visible ? 1u : 0u) << d.name;
  }
  EXPECT_EQ(documented.size(), callable);
}

TEST(Documentation, EverySpecialFormIsListedAndTheAnalyzerKnowsIt) {
  size_t listed = 0;
  for (const ptc::DocEntry& e : ptc::documentation()) {
    if (e.kind != Kind::SpecialForm) continue;
    ++listed;
    EXPECT_TRUE(ptc::is_special_form(e.name)) << e.name;
    // The analyzer handles the form itself: called with no arguments it runs
    // or fails on its shape, never as an unknown name or a value.
    ptc::Step r = ptc::run("(" + e.name + ")");
    if (r.ok) continue;
    EXPECT_NE(r.error.kind, ptc::ErrorKind::UnboundVar) << e.name << ": " << r.error.message;
    EXPECT_EQ(r.error.message.find("cannot be used as a value"), std::string::npos)
        << e.name << ": " << r.error.message;
  }
  EXPECT_EQ(listed, ptc::special_forms().size());
}

TEST(Documentation, SpecialFormsComeFirstThenEachCategoryByName) {
  std::vector<ptc::DocEntry> all = ptc::documentation();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().kind, Kind::SpecialForm);
  std::set<std::string> finished;  // categories already left behind
  for (size_t i = 1; i < all.size(); ++i) {
    const ptc::DocEntry &prev = all[i - 1], &e = all[i];
    if (e.category == prev.category) {
      EXPECT_LT(prev.name, e.name) << e.category;
      continue;
    }
    EXPECT_FALSE(e.kind == Kind::SpecialForm && prev.kind == Kind::Builtin) << e.name;
    finished.insert(prev.category);
    EXPECT_EQ(finished.count(e.category), 0u) << e.category << " is split at " << e.name;
  }
}

TEST(Documentation, DocTextIsWhatDocPrints) {
  for (const ptc::DocEntry& e : ptc::documentation()) {
    std::optional<std::string> text = ptc::doc_text(e.name);
    ASSERT_TRUE(text) << e.name;
    EXPECT_NE(text->find(e.doc), std::string::npos) << *text;
    EXPECT_NE(text->find("Signature: " + e.signature), std::string::npos) << *text;
    std::string quoted;  // the name as a string literal
    for (char c : e.name)
      quoted += c == '"' || c == '\\' ? std::string{'\\', c} : std::string{c};
    ptc::Step r = ptc::run("(doc \"" + quoted + "\")");
    ASSERT_TRUE(r.ok) << e.name << ": " << r.error.message;
    ASSERT_EQ(r.prints.size(), 1u) << e.name;
    EXPECT_EQ(r.prints[0], *text);
  }
  EXPECT_EQ(ptc::doc_text("str/join"), ptc::doc_text("clojure.string/join"));
  EXPECT_NE(ptc::doc_text("str/join")->find("clojure.string/join"), std::string::npos);
  EXPECT_FALSE(ptc::doc_text("no-such-thing"));
  EXPECT_FALSE(ptc::doc_text("__dnth"));
}

TEST(Documentation, UnknownNamesGetTheAnalyzersHint) {
  EXPECT_EQ(ptc::unknown_name_hint("mapp").rfind("did you mean: map", 0), 0u)
      << ptc::unknown_name_hint("mapp");
  EXPECT_NE(ptc::unknown_name_hint("whenn").find("when"), std::string::npos);
  EXPECT_NE(ptc::unknown_name_hint("swap!").find("no mutable state"), std::string::npos);
  EXPECT_NE(ptc::unknown_name_hint("clojure.string/frobnicate").find("clojure.string functions:"),
            std::string::npos);
  EXPECT_EQ(ptc::unknown_name_hint("xyzzyq"), "");
}

}  // namespace
