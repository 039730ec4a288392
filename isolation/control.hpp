// The control channel between a WorkerPool and its launcher: one
// SOCK_SEQPACKET socket of fixed-size messages. The pool asks for workers;
// the launcher forks each, hands back the worker's two sockets and a pidfd
// (SCM_RIGHTS), and reports how each worker ended once it has reaped it.
#pragma once

#include <cstdint>

namespace ptc::isolation {

struct ControlMessage {
  enum Kind : uint32_t {
    Ready = 1,    // launcher -> pool, once: a = 1 when workers get their own namespaces
    Spawn = 2,    // pool -> launcher: a = RLIMIT_AS bytes, b = RLIMIT_CPU seconds, c = flags
    Spawned = 3,  // launcher -> pool: a = 0 and kSpawnedFds fds, or a = errno
    Exited = 4,   // launcher -> pool: a = the wait status
  };
  uint32_t magic = kMagic;
  uint32_t kind = 0;
  uint64_t worker = 0;  // the pool's number for the worker
  uint64_t a = 0;
  uint64_t b = 0;
  uint64_t c = 0;

  static constexpr uint32_t kMagic = 0x70746377;  // "ptcw"
  static constexpr uint64_t kStderr = 1;          // Spawn flag: keep standard error
};

// What a Spawned message carries: the pool's ends of the worker's two
// one-way sockets (it writes frames to the first and reads the second), and
// the worker's pidfd. One socket per direction: a reader consuming bytes
// wakes the writer's socket's sleepers, and on one shared socket that is
// the other side, asleep waiting for its answer, woken for nothing.
constexpr int kSpawnedFds = 3;
enum SpawnedFd { kToWorker = 0, kFromWorker = 1, kWorkerPidfd = 2 };

}  // namespace ptc::isolation
