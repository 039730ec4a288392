// Inside a worker process, once jailed: read programs from the parent's
// socket, run each with proxies for the host's tools (their calls go back
// over the socket to the parent and wait for its reply), and send back the
// Step.
#pragma once

#include <string_view>

namespace ptc::isolation {

// Test builds of the worker (tests/isolation) pass a hook called with each
// program's source before it runs, inside the jail, to crash or to probe the
// jail on demand; release binaries pass nullptr and have no such code.
using WorkerTestHook = void (*)(std::string_view source);

// Installs the handler of a cancel (SIGUSR1 with the run's number): before
// the jail, in the worker.
void prepare_cancel_signal();

// Serves runs read from `from_parent` (answers, tool calls and the rest go
// to `to_parent`) until the parent closes its socket; then ends the process.
[[noreturn]] void serve_worker(int from_parent, int to_parent, WorkerTestHook hook);

}  // namespace ptc::isolation
