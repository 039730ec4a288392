// Every program in the repository that calls a tool — in the test suites
// (C++, C, Python, shell and Node sources, JSON scripts), the examples, the
// conformance cases, the benchmarks and the documentation — must end the same
// through ptc::start/resume (and dump/load between steps) as through ptc::run
// with synchronous tools giving the same answers (support/equivalence.hpp).
// The programs are found by reading the files, so a program added anywhere
// later is covered too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "support/equivalence.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool calls_tools(const std::string& s) {
  return s.find("(tool/") != std::string::npos;
}

// The string literals of a C, C++, Python, JavaScript or shell source, with
// their escapes undone and adjacent literals joined (as C and Python do).
// Approximate on purpose: a literal read wrongly gives a program that does
// not parse, which both paths reject alike.
std::vector<std::string> string_literals(const std::string& src) {
  std::vector<std::string> out;
  std::string current;
  bool joinable = false;  // only whitespace since the last literal ended
  size_t i = 0;
  auto flush = [&] {
    if (!current.empty()) out.push_back(current);
    current.clear();
    joinable = false;
  };
  while (i < src.size()) {
    char c = src[i];
    // C++ raw strings: R"delim( ... )delim"
    if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"') {
      size_t open = src.find('(', i + 2);
      if (open != std::string::npos && open - i < 20) {
        std::string delim = ")" + src.substr(i + 2, open - i - 2) + "\"";
        size_t close = src.find(delim, open + 1);
        if (close != std::string::npos) {
          if (!joinable) flush();
          current += src.substr(open + 1, close - open - 1);
          joinable = true;
          i = close + delim.size();
          continue;
        }
      }
    }
    bool triple =
        i + 2 < src.size() && (c == '"' || c == '\'') && src[i + 1] == c && src[i + 2] == c;
    if (c == '"' || c == '\'' || c == '`' || triple) {
      std::string quote = triple ? std::string(3, c) : std::string(1, c);
      size_t j = i + quote.size();
      std::string lit;
      bool closed = false;
      while (j < src.size()) {
        if (src.compare(j, quote.size(), quote) == 0) {
          closed = true;
          j += quote.size();
          break;
        }
        if (src[j] == '\\' && j + 1 < src.size() && c != '\'') {
          char e = src[j + 1];
          lit += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
          j += 2;
          continue;
        }
        if (src[j] == '\n' && quote.size() == 1 && c != '`' && c != '\'') break;  // not a literal
        lit += src[j++];
      }
      if (!closed) {
        ++i;
        continue;
      }
      if (!joinable) flush();
      current += lit;
      joinable = true;
      i = j;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) {
      // A comment between literals keeps them joinable; anything else ends it.
      if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
        i = src.find('\n', i);
        if (i == std::string::npos) break;
        continue;
      }
      flush();
    }
    ++i;
  }
  flush();
  return out;
}

// The fenced code blocks of a Markdown text.
std::vector<std::string> code_blocks(const std::string& md) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = md.find("```", at)) != std::string::npos) {
    size_t body = md.find('\n', at);
    if (body == std::string::npos) break;
    size_t end = md.find("```", body);
    if (end == std::string::npos) break;
    out.push_back(md.substr(body + 1, end - body - 1));
    at = end + 3;
  }
  return out;
}

void json_strings(const ptc::HostValue& v, std::vector<std::string>& out) {
  if (v.kind() == ptc::HostValue::Kind::String) out.push_back(v.text());
  for (const ptc::HostValue& x : v.items())
    json_strings(x, out);
}

std::vector<std::string> programs_in(const fs::path& file) {
  std::string text = read_file(file);
  if (!calls_tools(text)) return {};
  std::string ext = file.extension().string();
  std::vector<std::string> found;
  if (ext == ".clj") {
    found.push_back(text);
  } else if (ext == ".md") {
    found = code_blocks(text);
  } else if (ext == ".json" || ext == ".jsonl") {
    std::istringstream lines(ext == ".jsonl" ? text : std::string());
    std::vector<std::string> docs;
    if (ext == ".json")
      docs.push_back(text);
    else
      for (std::string line; std::getline(lines, line);)
        docs.push_back(line);
    for (const std::string& d : docs) {
      try {
        json_strings(ptc::parse_json(d), found);
      } catch (ptc::LispError&) {}
    }
  } else {
    found = string_literals(text);
  }
  std::vector<std::string> out;
  for (std::string& p : found)
    if (calls_tools(p)) out.push_back(std::move(p));
  return out;
}

// The clock reads differently in two runs: such programs cannot be compared.
bool reads_the_clock(const std::string& p) {
  return p.find("currentTimeMillis") != std::string::npos ||
         p.find("java.util.Date.)") != std::string::npos ||
         p.find("LocalDate/now") != std::string::npos;
}

TEST(EquivalenceCorpus, EveryProgramThatCallsToolsEndsAsRunEndsIt) {
  fs::path root = PTC_SOURCE_DIR;
  const char* folders[] = {"tests", "examples", "spec/cases", "bench",
                           "docs",  "bindings", "protocol",   "include"};
  const std::set<std::string> exts = {".cpp", ".hpp", ".c",  ".py",   ".sh",   ".mjs",
                                      ".js",  ".clj", ".md", ".json", ".jsonl"};
  std::set<std::string> programs;
  for (const char* folder : folders) {
    if (!fs::exists(root / folder)) continue;
    for (auto it = fs::recursive_directory_iterator(root / folder);
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == "node_modules") {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file() || !exts.count(it->path().extension().string())) continue;
      // This file's own programs are checked by the execution tests.
      if (it->path().filename() == "equivalence_corpus_test.cpp") continue;
      for (std::string& p : programs_in(it->path()))
        programs.insert(std::move(p));
    }
  }
  for (const std::string& p : code_blocks(read_file(root / "README.md")))
    if (calls_tools(p)) programs.insert(p);

  ptc::RunOptions options;
  options.limits.timeout_ms = 500;
  size_t checked = 0, skipped = 0;
  for (const std::string& p : programs) {
    if (reads_the_clock(p) || p.size() > 20000) {
      ++skipped;
      continue;
    }
    ++checked;
    EXPECT_EQ(ptc::equivalence::check_program(p, options), "") << "program:\n" << p;
  }
  // The scan must find the repository's programs, not silently nothing.
  EXPECT_GE(checked, 150u) << "programs found: " << programs.size();
  std::cout << "checked " << checked << " programs that call tools (" << skipped << " skipped)\n";
}

}  // namespace
