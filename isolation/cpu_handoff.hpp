#pragma once
// A run alone in its pool hands the caller's CPU to its worker: the caller
// waits while the worker runs, so the two take turns on one CPU. A wake-up
// on another, idle CPU costs far more than a switch on this one (tens of
// microseconds each way on a virtual machine whose idle vCPUs halt), and
// the worker finds the caller's caches warm. Runs that overlap are left to
// the scheduler, which spreads them.
#include <sched.h>
#include <sys/types.h>

namespace ptc::isolation {

// A worker's main thread, as this process sees it, and the CPU it is bound
// to (-1: none, it may run anywhere).
struct WorkerCpu {
  pid_t pid = -1;
  int bound = -1;
};

// The worker's process id in this process's pid namespace, read from its
// pidfd's /proc entry; -1 when /proc is not there.
pid_t pid_of_pidfd(int pidfd);

class CpuHandoff {
 public:
  // alone: no other run of the pool is in flight.
  CpuHandoff(WorkerCpu& worker, bool alone);
  ~CpuHandoff();
  CpuHandoff(const CpuHandoff&) = delete;
  CpuHandoff& operator=(const CpuHandoff&) = delete;

 private:
  cpu_set_t saved_{};
  bool restore_ = false;
};

}  // namespace ptc::isolation
