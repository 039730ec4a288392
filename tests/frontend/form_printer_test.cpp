// Printing forms back to source: the text reads as the same forms (memory
// carries functions to later runs this way).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/form.hpp"
#include "frontend/reader.hpp"
#include "runtime/arena.hpp"

namespace ptc {
namespace {

std::string printed(Arena& arena, std::string_view source) {
  std::string out;
  for (const Form* f : read_program(arena, source)) {
    if (!out.empty()) out += ' ';
    print_form(*f, out);
  }
  return out;
}

TEST(FormPrinter, PrintsEachKindAsTheReaderReadsIt) {
  Arena arena(size_t{16} << 20);
  EXPECT_EQ(printed(arena, "nil true false 42 -7 12N 123456789012345678901234 1.5 -0.0 1e20"),
            "nil true false 42 -7 12 123456789012345678901234N 1.5 -0.0 1e+20");
  EXPECT_EQ(printed(arena, "##Inf ##-Inf ##NaN 3.0"), "##Inf ##-Inf ##NaN 3.0");
  EXPECT_EQ(printed(arena, R"("a\"b\\c\nd" \x :k sym ns/sym)"),
            R"("a\"b\\c\nd" "x" :k sym ns/sym)");
  EXPECT_EQ(printed(arena, "(f [1 2] {:a 1} #{3}) #(+ % %2) #\"a\\d+\" #'x 'y"),
            "(f [1 2] {:a 1} #{3}) #(+ % %2) #\"a\\d+\" #'x 'y");
}

TEST(FormPrinter, PrintedSourceReadsBackToTheSameText) {
  Arena arena(size_t{16} << 20);
  const char* programs[] = {
      "(defn f ([x] (f x 1)) ([x y & more] (apply + x y more)))",
      "(let [{:keys [a b] :or {a 1}} m [p & ps] v] (str \"tab\\there\" a b p ps))",
      "(->> data/orders (filter #(> (:total %) 20)) (map :total) (reduce + 0))",
      ("(cond (< x 0) :neg (= x 0) :zero :else :pos) #_ (ignored) ; comment\n(tool/get-user {:id "
       "1})"),
  };
  for (const char* p : programs) {
    std::string once = printed(arena, p);
    EXPECT_EQ(printed(arena, once), once) << p;
  }
}

}  // namespace
}  // namespace ptc
