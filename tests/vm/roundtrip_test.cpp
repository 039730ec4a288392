// Reader <-> printer round trip: every literal the reader accepts prints (with
// pr-str) as text that reads back to an equal value.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "support/run_helpers.hpp"

namespace {

void expect_round_trip(const std::string& literal) {
  ptc::Step first = ptc::run(literal);
  ASSERT_TRUE(first.ok) << literal << ": " << first.error.describe();
  ptc::Step printed = ptc::run("(pr-str " + literal + ")");
  ASSERT_TRUE(printed.ok) << printed.error.describe();
  ASSERT_EQ(printed.value.kind(), ptc::HostValue::Kind::String);
  const std::string& text = printed.value.text();
  ptc::Step again = ptc::run(text);
  ASSERT_TRUE(again.ok) << "printed form " << text
                        << " does not read back: " << again.error.describe();
  EXPECT_TRUE(first.value == again.value) << literal << " -> " << text;
}

TEST(RoundTrip, EveryLiteralKind) {
  for (const char* lit : {"nil",
                          "true",
                          "false",
                          "0",
                          "-17",
                          "9223372036854775807",
                          "-9223372036854775808",
                          "123456789012345678901234567890",
                          "-99999999999999999999999",
                          "3.14",
                          "-0.5",
                          "1.0",
                          "2.5e10",
                          "1.23e-4",
                          "1.0E300",
                          "4.9E-324",
                          "0.30000000000000004",
                          "##Inf",
                          "##-Inf",
                          "\"\"",
                          "\"hello world\"",
                          "\"quote \\\" backslash \\\\ tab \\t nl \\n cr \\r\"",
                          "\"λ é 😀\"",
                          "\\a",
                          "\\newline",
                          "\\space",
                          "\\tab",
                          "\\u00e9",
                          ":k",
                          ":user-id",
                          ":a?",
                          "[]",
                          "[1 [2 [3]]]",
                          "{}",
                          "{:a 1 \"b\" [2] 3 {:c nil}}",
                          "#{}",
                          "#{1 :a \"s\" [1 2]}",
                          "[nil true false 1 -1.5 \"x\" :y {:z #{}}]"}) {
    expect_round_trip(lit);
  }
}

TEST(RoundTrip, GeneratedNestedData) {
  std::mt19937 rng(12345);
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    int pick = static_cast<int>(rng() % (depth > 3 ? 6 : 9));
    switch (pick) {
      case 0:
        return std::to_string(static_cast<int64_t>(rng()) - (1ll << 31));
      case 1:
        return std::to_string(rng() % 1000) + "." + std::to_string(rng() % 1000);
      case 2:
        return "\"s" + std::to_string(rng() % 50) + "\\n\"";
      case 3:
        return ":k" + std::to_string(rng() % 50);
      case 4:
        return rng() % 2 ? "true" : "nil";
      case 5:
        return "\\" + std::string(1, static_cast<char>('a' + rng() % 26));
      case 6: {
        std::string v = "[";
        for (int i = static_cast<int>(rng() % 4); i > 0; --i)
          v += gen(depth + 1) + " ";
        return v + "]";
      }
      case 7: {
        std::string m = "{";
        int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i)
          m += ":m" + std::to_string(i) + " " + gen(depth + 1) + " ";
        return m + "}";
      }
      default: {
        std::string s = "#{";
        int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i)
          s += std::to_string(i * 7) + " ";
        return s + "}";
      }
    }
  };
  for (int i = 0; i < 300; ++i)
    expect_round_trip(gen(0));
}

}  // namespace
