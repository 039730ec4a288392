// ptc_conformance --self-test: checks of the runner's own Clojure-data
// parser, comparer and expected-list handling, so that a runner bug cannot
// silently turn failures into passes. Returns the process exit code.
#pragma once

namespace spec {

int run_self_test();

}  // namespace spec
