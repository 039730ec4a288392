// The launcher: the process a WorkerPool starts (`ptc-worker --launcher`),
// single-threaded, that forks jailed workers on request. Where the kernel
// allows it, it first enters new user, pid, network and IPC namespaces and
// forks once more, so that it is pid 1 of a namespace holding only workers:
// when it ends, every worker ends with it.
#pragma once

#include "isolation/worker_loop.hpp"

namespace ptc::isolation {

// A worker reads frames from fd 3 and writes them to fd 4.
constexpr int kFromParentFd = 3;
constexpr int kToParentFd = 4;

// Serves the pool on `control_fd` until the pool closes it, then ends the
// process.
[[noreturn]] void launcher_main(int control_fd, bool namespaces, WorkerTestHook hook);

}  // namespace ptc::isolation
