// Programs in jailed worker processes (ptc.hpp's RunOptions::isolate). A
// WorkerPool keeps worker processes ready, forked ahead of time from a small
// launcher process it starts (the `ptc-worker` executable). Each worker is
// jailed before it takes a program: no new privileges, no capabilities,
// rlimits on its address space, CPU time, open files and core dumps, a
// seccomp-bpf allowlist (its own pipe, memory, threads, clocks, exit: any other
// system call kills it with SIGSYS), and new user, pid, network and IPC
// namespaces where the kernel allows them.
//
// The host process keeps everything else: a program's tool calls come back
// over the pipe and are answered here by the host's tools (on this process's
// threads), so tools, pmap and sessions behave as in-process. A worker that
// crashes, is killed by its jail, runs out of memory or sends anything but
// well-formed frames ends only its own run, with internal_error, and is
// replaced; one that overruns its timeout by `kill_margin_ms` is killed
// (SIGKILL) and its run ends with timeout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ptc {

struct RunOptions;
struct Step;
class Program;

// What runs a program somewhere other than the calling thread: set as
// RunOptions::isolate, ptc::run and run(Program) hand it the program.
class Isolation {
 public:
  virtual ~Isolation() = default;
  // The Step ptc::run would give (options.isolate is not looked at again).
  virtual Step run(std::string_view source, const RunOptions& options) = 0;
};

struct WorkerPoolOptions {
  size_t workers = 4;      // processes kept ready; runs beyond it wait for one
  size_t max_runs = 1000;  // runs a worker takes before it is replaced; 0 = no limit
  // The largest max_heap runs will ask for: it sizes each worker's address
  // space limit (this, times four, plus kAddressSpaceBase).
  size_t max_heap_bytes = size_t{64} << 20;
  // A worker still running a program this long past the program's
  // compile_timeout + timeout is killed (its host tools' time not counted).
  uint32_t kill_margin_ms = 1000;
  // The largest frame a worker may send (a run's result); past it the worker
  // is killed. 0 = 64 MiB plus 16 times max_heap_bytes.
  size_t max_frame_bytes = 0;
  // The `ptc-worker` executable. Empty: $PTC_WORKER, else the one installed
  // beside this library or executable (the same folder, then
  // ../libexec/ptc/).
  std::string worker_path;
  // New user, pid, network and IPC namespaces for the workers where the
  // kernel allows them (the jail holds without them).
  bool namespaces = true;
  // The workers' standard error goes to this process's (their diagnostics,
  // e.g. a sanitizer's report) instead of /dev/null.
  bool worker_stderr = false;
  // A run alone in the pool runs its worker on the caller's CPU, the two
  // bound to it for the run: the caller only waits meanwhile, and a switch
  // on one CPU costs far less than waking an idle one (isolation/README.md).
  // Overlapping runs are left to the scheduler.
  bool cpu_handoff = true;

  static constexpr size_t kAddressSpaceBase = size_t{2} << 30;
};

struct WorkerPoolStats {
  size_t workers = 0;     // live worker processes (ready or running a program)
  size_t busy = 0;        // running a program
  uint64_t started = 0;   // workers started since the pool was made
  uint64_t runs = 0;      // programs run
  uint64_t recycled = 0;  // workers retired after max_runs
  uint64_t died = 0;      // workers that died (crash, jail, memory), running or idle
  uint64_t killed = 0;    // workers killed: past their deadline, or lying
  // Prepared contexts sent to a worker along with a run (it did not hold
  // them), and ahead of any run (a recycled worker's successor gets those
  // its predecessor held).
  uint64_t contexts_sent = 0;
  uint64_t contexts_handed_over = 0;
  bool namespaces = false;  // the workers run in their own namespaces
};

// Thread-safe: any number of threads may run programs through one pool.
// Throws LispError (internal_error) when the launcher cannot be started (no
// ptc-worker found, or it failed to come up).
class WorkerPool final : public Isolation {
 public:
  explicit WorkerPool(WorkerPoolOptions options = {});
  ~WorkerPool() override;  // kills the launcher and every worker, after running calls end
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  Step run(std::string_view source, const RunOptions& options) override;
  WorkerPoolStats stats() const;
  // Blocks until every worker is ready (a warm pool: after start, or after
  // workers were replaced), or `timeout_ms` passed; whether it is.
  bool wait_ready(uint32_t timeout_ms) const;
  // Where the worker executable was found.
  const std::string& worker_path() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ptc
