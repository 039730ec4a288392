// The VM's roots (runtime/roots.hpp, rule 2): the registers of every frame
// up to the top one, the frames' closures, the globals, the data/ map and
// *1..*3. Each value here is kept by that root alone: the test's own
// variables are not roots. A tool the program calls collects from inside the
// run and records which objects the collection found live.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "embedding/shared_inputs.hpp"
#include "runtime/collector.hpp"
#include "runtime/ctx.hpp"
#include "runtime/vector.hpp"
#include "vm/vm.hpp"

namespace ptc {
namespace {

class VmRoots : public ::testing::Test {
 protected:
  VmRoots() {
    RunOptions options;
    options.tools["probe"] = {[](const HostValue&) { return ToolResult::success(HostValue()); }};
    program = compile(
        "(defn probe [] (tool/probe {}))"
        "(defn inner [b] (probe) b)"
        "(defn outer [a] (let [r (inner 1)] [a r]))"
        "(defn make [v] (fn [] (probe) v))"
        "(def g nil)",
        options);
    ctx = std::make_unique<Ctx>(Limits{});
    ctx->interner.set_parent(&program->ctx.interner);
    ctx->start_collecting();
    vm = std::make_unique<VM>(*ctx, *program->code);
    vm->tool_caller = [this](Ctx& c, std::string_view, Value) {
      c.collect();
      if (on_probe) on_probe();
      return Value();
    };
    vm->run();
  }
  Value global(const std::string& name) {
    for (size_t i = 0; i < program->code->globals.size(); ++i)
      if (program->code->globals[i] == name) return vm->globals()[i];
    ADD_FAILURE() << name;
    return Value();
  }
  Value fresh(int n) {
    VecBuilder b(ctx->arena);
    for (int i = 0; i < n; ++i)
      b.push(ctx->string("item" + std::to_string(i)));
    return Value::object(b.finish());
  }
  bool live(Value v) const { return ctx->arena.space()->is_marked(v.obj()); }

  std::shared_ptr<const Program> program;
  std::unique_ptr<Ctx> ctx;
  std::unique_ptr<VM> vm;
  std::function<void()> on_probe;
};

TEST_F(VmRoots, RegistersOfEveryFrameUpToTheTop) {
  Value a = fresh(5);  // outer's argument: in outer's frame only
  Value b = fresh(6);  // made during the run, dead before the probe
  bool a_live = false, b_live = true;
  on_probe = [&] {
    a_live = live(a);
    b_live = live(b);
  };
  Value result = vm->invoke(global("outer"), &a, 1);  // outer -> inner -> probe
  EXPECT_TRUE(a_live);
  EXPECT_FALSE(b_live);
  ASSERT_TRUE(result.is_vector());
  EXPECT_EQ(result.vec()->nth(0).vec()->nth(4).str()->view(), "item4");
}

TEST_F(VmRoots, RegistersAboveTheTopAreCleared) {
  Value a = fresh(5);
  vm->invoke(global("outer"), &a, 1);  // leaves `a` in registers above the top
  ctx->collect();
  EXPECT_FALSE(live(a));
}

TEST_F(VmRoots, TheRunningClosureAndWhatItCaptured) {
  Value v = fresh(7);
  Value f = vm->invoke(global("make"), &v, 1);  // a closure over v, held by nothing
  bool f_live = false, v_live = false;
  on_probe = [&] {
    f_live = live(f);
    v_live = live(v);
  };
  Value got = vm->invoke(f, nullptr, 0);
  EXPECT_TRUE(f_live);
  EXPECT_TRUE(v_live);
  EXPECT_EQ(got.vec()->nth(6).str()->view(), "item6");
}

TEST_F(VmRoots, GlobalsDataAndTurnHistory) {
  for (size_t i = 0; i < program->code->globals.size(); ++i)
    if (program->code->globals[i] == "g") vm->globals()[i] = fresh(1);
  vm->data = fresh(2);
  vm->turn_history.push_back(fresh(3));
  Value dead = fresh(4);
  ctx->collect();
  EXPECT_TRUE(live(global("g")));
  EXPECT_TRUE(live(vm->data));
  EXPECT_TRUE(live(vm->turn_history[0]));
  EXPECT_TRUE(live(global("outer")));  // a function defined by the program
  EXPECT_FALSE(live(dead));
}

TEST_F(VmRoots, AVmThatEndedIsNoLongerARoot) {
  vm->data = fresh(2);
  Value data = vm->data;
  vm.reset();
  ctx->collect();
  EXPECT_FALSE(live(data));
}

}  // namespace
}  // namespace ptc
