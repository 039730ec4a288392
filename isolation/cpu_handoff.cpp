#include "isolation/cpu_handoff.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptc::isolation {

namespace {

bool bind(pid_t tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(tid, sizeof set, &set) == 0;
}

// Every CPU: the kernel keeps those of the worker's cpuset.
void unbind(pid_t tid) {
  cpu_set_t set;
  std::memset(&set, 0xff, sizeof set);
  sched_setaffinity(tid, sizeof set, &set);
}

}  // namespace

pid_t pid_of_pidfd(int pidfd) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[512];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return -1;
  text[n] = '\0';
  const char* line = std::strstr(text, "\nPid:");
  if (line == nullptr) return -1;
  long pid = std::strtol(line + 5, nullptr, 10);
  return pid > 0 ? static_cast<pid_t>(pid) : -1;
}

CpuHandoff::CpuHandoff(WorkerCpu& worker, bool alone) {
  if (worker.pid <= 0) return;
  int cpu = alone ? sched_getcpu() : -1;
  if (cpu < 0 || sched_getaffinity(0, sizeof saved_, &saved_) != 0 || CPU_COUNT(&saved_) < 2 ||
      !CPU_ISSET(cpu, &saved_)) {
    if (worker.bound >= 0) {
      unbind(worker.pid);
      worker.bound = -1;
    }
    return;
  }
  if (worker.bound != cpu) worker.bound = bind(worker.pid, cpu) ? cpu : -1;
  if (worker.bound == cpu) restore_ = bind(0, cpu);
}

CpuHandoff::~CpuHandoff() {
  if (restore_) sched_setaffinity(0, sizeof saved_, &saved_);
}

}  // namespace ptc::isolation
