// The jail a worker process enters before it reads its first program, in
// this order: no new privileges, no capabilities, rlimits (address space,
// CPU time, open files, file size, core dumps), not dumpable (no ptrace by
// the same user), then the seccomp-bpf allowlist. Everything after it runs
// with only what a run needs: read and write on its sockets (and write on
// standard error), memory mapping without PROT_EXEC, threads, futexes,
// clocks, signals to itself, exit. Any other system call kills the whole
// process with SIGSYS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptc::isolation {

struct JailSettings {
  int from_parent_fd = 3;          // the socket it reads frames from (the lowest fd it reads)
  int to_parent_fd = 4;            // the only socket it writes to
  size_t address_space_bytes = 0;  // RLIMIT_AS; 0 = left as it is (sanitizer builds)
  uint32_t cpu_seconds = 0;        // RLIMIT_CPU; 0 = none
  uint32_t open_files = 0;         // RLIMIT_NOFILE: just above the fds it holds
  bool in_user_namespace = false;  // else a root worker first becomes nobody
};

// Empty when the jail holds; else what failed (the worker then exits).
std::string enter_jail(const JailSettings& settings);

}  // namespace ptc::isolation
