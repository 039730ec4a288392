// Analyzer: the IR it builds (resolution, captures, recur targets, expansion
// of special forms) and the analysis errors it reports.
#include <gtest/gtest.h>

#include "frontend/analyzer.hpp"
#include "frontend/reader.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/ctx.hpp"
#include "support/build_info.hpp"

namespace ptc {
namespace {

class AnalyzerTest : public ::testing::Test {
 protected:
  Limits lim;
  Ctx ctx{lim};

  AnalyzedProgram analyze(const std::string& src, AnalyzerOptions opts = {}) {
    auto forms = read_program(ctx.arena, src);
    return analyze_program(ctx, forms, opts);
  }
  Node* body(const AnalyzedProgram& p) { return p.main->arities[0]->body; }
  Error error_of(const std::string& src) {
    try {
      analyze(src);
    } catch (LispError& e) {
      return e.error();
    }
    ADD_FAILURE() << "expected an analysis error for " << src;
    return {};
  }
};

TEST_F(AnalyzerTest, ResolvesBuiltinsToDirectCalls) {
  auto p = analyze("(count [1 2])");
  ASSERT_EQ(body(p)->kind, NodeKind::BuiltinCall);
  EXPECT_EQ(builtin_def(static_cast<BuiltinCallNode*>(body(p))->id).name, "count");
}

TEST_F(AnalyzerTest, NamespacedNamesNormalize) {
  auto p = analyze("(clojure.core/count [1])");
  ASSERT_EQ(body(p)->kind, NodeKind::BuiltinCall);
  EXPECT_EQ(builtin_def(static_cast<BuiltinCallNode*>(body(p))->id).name, "count");
  p = analyze("Double/POSITIVE_INFINITY");
  ASSERT_EQ(body(p)->kind, NodeKind::Const);
  EXPECT_TRUE(static_cast<ConstNode*>(body(p))->value.is_float());
}

TEST_F(AnalyzerTest, DefShadowsBuiltinWithFallback) {
  auto p = analyze("(def count 5) count");
  auto* d = static_cast<DoNode*>(body(p));
  ASSERT_EQ(d->body[1]->kind, NodeKind::Global);
  EXPECT_GE(static_cast<GlobalNode*>(d->body[1])->builtin_fallback, 0);
  ASSERT_EQ(p.globals.size(), 1u);
  EXPECT_EQ(p.globals[0], "count");
  EXPECT_TRUE(p.global_defined[0]);
}

TEST_F(AnalyzerTest, KnownGlobalsFromMemoryResolve) {
  AnalyzerOptions opts;
  opts.known_globals = {"saved"};
  auto p = analyze("saved", opts);
  EXPECT_EQ(body(p)->kind, NodeKind::Global);
  EXPECT_FALSE(p.global_defined[0]);
}

TEST_F(AnalyzerTest, DataKeysAreCollected) {
  auto p = analyze("(+ (count data/orders) (count data/orders) data/limit)");
  ASSERT_EQ(p.data_keys.size(), 2u);
  EXPECT_EQ(p.data_keys[0], "orders");
  EXPECT_EQ(p.data_keys[1], "limit");
}

TEST_F(AnalyzerTest, ClosuresCaptureThroughEveryLevel) {
  auto p = analyze("(let [a 1] (fn [] (fn [] a)))");
  auto* let = static_cast<LetNode*>(body(p));
  ASSERT_EQ(let->body->kind, NodeKind::Fn);
  auto* outer = static_cast<FnNode*>(let->body);
  auto* inner = static_cast<FnNode*>(outer->arities[0]->body);
  ASSERT_EQ(inner->kind, NodeKind::Fn);
  ASSERT_EQ(outer->captures.size(), 1u);
  ASSERT_EQ(inner->captures.size(), 1u);
  EXPECT_EQ(outer->captures[0], inner->captures[0]);
  EXPECT_TRUE(outer->captures[0]->captured);
}

TEST_F(AnalyzerTest, RecurTargetsItsLoop) {
  auto p = analyze("(loop [i 0] (if (< i 3) (recur (inc i)) i))");
  auto* loop = static_cast<LoopNode*>(body(p));
  ASSERT_EQ(loop->kind, NodeKind::Loop);
  EXPECT_TRUE(loop->counted);
  auto* branch = static_cast<IfNode*>(loop->body);
  ASSERT_EQ(branch->then->kind, NodeKind::Recur);
  EXPECT_EQ(static_cast<RecurNode*>(branch->then)->loop, loop);
}

TEST_F(AnalyzerTest, ForLoopsAreNotCounted) {
  auto p = analyze("(for [x [1 2]] x)");
  // let acc -> do (let items/count -> loop) (finish)
  std::vector<Node*> stack{body(p)};
  int loops = 0;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    switch (n->kind) {
      case NodeKind::Let: {
        auto* l = static_cast<LetNode*>(n);
        for (auto& b : l->bindings)
          stack.push_back(b.init);
        stack.push_back(l->body);
        break;
      }
      case NodeKind::Do:
        for (Node* c : static_cast<DoNode*>(n)->body)
          stack.push_back(c);
        break;
      case NodeKind::Loop:
        ++loops;
        EXPECT_FALSE(static_cast<LoopNode*>(n)->counted);
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(loops, 1);
}

TEST_F(AnalyzerTest, ConstantCollectionsFoldToOneValue) {
  auto p = analyze("[1 {:a [2 3]} #{4}]");
  ASSERT_EQ(body(p)->kind, NodeKind::Const);
  p = analyze("(let [x 1] [x 2])");
  auto* let = static_cast<LetNode*>(body(p));
  EXPECT_EQ(let->body->kind, NodeKind::MakeVector);
}

TEST_F(AnalyzerTest, CaseBuildsADispatchMap) {
  auto p = analyze("(case 1 (1 2) :low 3 :three :other)");
  ASSERT_EQ(body(p)->kind, NodeKind::Case);
  auto* c = static_cast<CaseNode*>(body(p));
  EXPECT_EQ(c->clauses.size(), 2u);
  EXPECT_TRUE(c->dispatch.is_map());
}

TEST_F(AnalyzerTest, MultiArityFunctionsAreSorted) {
  auto p = analyze("(fn ([a b & more] 3) ([] 0) ([a] 1))");
  auto* fn = static_cast<FnNode*>(body(p));
  ASSERT_EQ(fn->arities.size(), 3u);
  EXPECT_EQ(fn->arities[0]->params.size(), 0u);
  EXPECT_EQ(fn->arities[1]->params.size(), 1u);
  EXPECT_NE(fn->arities[2]->rest, nullptr);
}

TEST_F(AnalyzerTest, ErrorsCarryLocationAndHint) {
  Error e = error_of("(let [x 1]\n  (+ x y))");
  EXPECT_EQ(e.kind, ErrorKind::UnboundVar);
  EXPECT_EQ(e.loc.line, 2u);
  EXPECT_EQ(e.loc.col, 8u);
  e = error_of("(fn [x] (+ 1 (recur x)))");
  EXPECT_EQ(e.kind, ErrorKind::InvalidForm);
  EXPECT_NE(e.hint.find("last thing"), std::string::npos);
  e = error_of("(fn ([x & a] 1) ([x y z] 2))");
  EXPECT_NE(e.message.find("fixed arity"), std::string::npos) << e.message;
  e = error_of("(fn ([& a] 1) ([& b] 2))");
  EXPECT_NE(e.message.find("only one variadic"), std::string::npos) << e.message;
  e = error_of("(defn)");
  EXPECT_NE(e.message.find("needs a name"), std::string::npos);
  e = error_of("(defn f)");
  EXPECT_NE(e.message.find("parameter vector"), std::string::npos);
  e = error_of("(__tv_new)");
  EXPECT_EQ(e.kind, ErrorKind::UnboundVar) << "internal builtins are not reachable";
  e = error_of("#'nope");
  EXPECT_EQ(e.kind, ErrorKind::UnboundVar);
}

TEST_F(AnalyzerTest, ThreadingIntoALongChainStaysBounded) {
  std::string src = "(-> 0";
  for (int i = 0; i < 2000 / testing::kDepthScale; ++i)
    src += " inc";
  src += ")";
  auto p = analyze(src);
  EXPECT_NE(p.main, nullptr);
  std::string deep = "(-> 0";
  for (int i = 0; i < 100000; ++i)
    deep += " inc";
  deep += ")";
  Error e = error_of(deep);
  EXPECT_TRUE(e.kind == ErrorKind::InvalidForm || e.kind == ErrorKind::CallDepthExceeded ||
              e.kind == ErrorKind::MemoryLimit)
      << e.describe();
}

}  // namespace
}  // namespace ptc
