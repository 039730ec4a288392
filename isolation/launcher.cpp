#include "isolation/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "include/ptc/ptc.hpp"
#include "isolation/control.hpp"
#include "isolation/frames.hpp"
#include "isolation/jail.hpp"

namespace ptc::isolation {

namespace {

// Its two sockets, standard in, out and error (/dev/null), and an eventfd for
// each thread that runs parallel branches (scheduler: at most 64, and this one).
constexpr uint32_t kOpenFiles = kToParentFd + 1 + 64 + 2;

bool write_file(const char* path, const std::string& text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// New user, pid, network, IPC and UTS namespaces, this process's user and
// group mapped to root inside. False where the kernel or a container refuses.
bool enter_namespaces() {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) != 0)
    return false;
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
  write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
  return true;
}

// Runs what the language initializes on first use (regex, JSON, big
// integers, formatting) before the jail, so that no first use inside it asks
// the kernel for more than the allowlist gives. Single-threaded: the launcher
// forks afterwards.
void warm_up_engine() {
  for (const char* program :
       {R"P((re-find #"a+(b)" "caab"))P", R"P((json/parse-string "{\"a\":[1,2.5,null]}"))P",
        R"P((str (* 99999999999999 99999999999999) 1.5 (/ 1 3.0)))P",
        R"P((sort-by :a [{:a "é"} {:a "b"}]))P", R"P((str/upper-case "straße"))P",
        R"P((format "%.2f %s" 1.5 :k))P"})
    (void)ptc::run(program);
}

// Threads for parallel branches, and what they read once (the number of
// processors): started in the worker, before its jail.
void warm_up_threads() {
  (void)ptc::run("(pmap inc [1 2 3 4])");
}

// Sends `m`, with the kSpawnedFds fds of a Spawned message when `fds` is set.
bool send_message(int fd, const ControlMessage& m, const int* fds = nullptr) {
  iovec iov{const_cast<ControlMessage*>(&m), sizeof m};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(kSpawnedFds * sizeof(int))];
  if (fds) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(kSpawnedFds * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, kSpawnedFds * sizeof(int));
  }
  for (;;) {
    if (sendmsg(fd, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof m)) return true;
    if (errno != EINTR) return false;
  }
}

[[noreturn]] void worker_process(int from_parent, int to_parent, const ControlMessage& spawn,
                                 bool in_namespaces, pid_t launcher, WorkerTestHook hook) {
  // Both out of the way first (either may sit on 3 or 4), then in place;
  // close_range below closes the copies.
  from_parent = fcntl(from_parent, F_DUPFD, 16);
  to_parent = fcntl(to_parent, F_DUPFD, 16);
  if (from_parent < 0 || to_parent < 0 || dup2(from_parent, kFromParentFd) < 0 ||
      dup2(to_parent, kToParentFd) < 0)
    _exit(71);
  // Each socket carries one direction: the kernel refuses the other.
  shutdown(kFromParentFd, SHUT_WR);
  shutdown(kToParentFd, SHUT_RD);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    if (!(spawn.c & ControlMessage::kStderr)) dup2(null, 2);
  }
  syscall(SYS_close_range, kToParentFd + 1, ~0U, 0);
  prctl(PR_SET_NAME, "ptc-worker");
  // The launcher's death ends it; so does the parent's (its sockets close).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGCHLD, SIG_DFL);
  prepare_cancel_signal();
  warm_up_threads();

  JailSettings jail;
  jail.from_parent_fd = kFromParentFd;
  jail.to_parent_fd = kToParentFd;
  jail.address_space_bytes = static_cast<size_t>(spawn.a);
  jail.cpu_seconds = static_cast<uint32_t>(spawn.b);
  jail.open_files = kOpenFiles;
  jail.in_user_namespace = in_namespaces;
  if (std::string error = enter_jail(jail); !error.empty()) {
    std::fprintf(stderr, "ptc-worker: the jail failed: %s\n", error.c_str());
    _exit(71);
  }
  Hello hello;
  hello.seccomp = true;
  hello.namespaces = in_namespaces;
  if (!write_frame(kToParentFd, FrameKind::Hello, encode_hello(hello))) _exit(0);
  serve_worker(kFromParentFd, kToParentFd, hook);
}

class Launcher {
 public:
  Launcher(int control, bool in_namespaces, WorkerTestHook hook)
      : control_(control), in_namespaces_(in_namespaces), hook_(hook) {}

  int serve() {
    sigset_t child;
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child, nullptr);
    int children = signalfd(-1, &child, SFD_CLOEXEC);
    if (children < 0) return 1;
    ControlMessage ready;
    ready.kind = ControlMessage::Ready;
    ready.a = in_namespaces_ ? 1 : 0;
    if (!send_message(control_, ready)) return 1;
    for (;;) {
      pollfd fds[2] = {{control_, POLLIN, 0}, {children, POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return 1;
      }
      if (fds[1].revents & POLLIN) {
        signalfd_siginfo info;
        (void)!read(children, &info, sizeof info);
        reap();
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ControlMessage m;
        ssize_t n = recv(control_, &m, sizeof m, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the pool is gone
        if (n != sizeof m || m.magic != ControlMessage::kMagic || m.kind != ControlMessage::Spawn)
          break;
        spawn(m, children);
      }
    }
    for (const auto& [pid, worker] : workers_)
      kill(pid, SIGKILL);
    while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {}
    return 0;
  }

 private:
  void spawn(const ControlMessage& m, int children) {
    ControlMessage reply;
    reply.kind = ControlMessage::Spawned;
    reply.worker = m.worker;
    // The pool's ends ([0]) and the worker's ([1]) of its two sockets.
    int down[2] = {-1, -1}, up[2] = {-1, -1};
    auto close_all = [&] {
      for (int fd : {down[0], down[1], up[0], up[1]})
        if (fd >= 0) close(fd);
    };
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, down) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, up) != 0) {
      reply.a = static_cast<uint64_t>(errno);
      close_all();
      send_message(control_, reply);
      return;
    }
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid == 0) {
      close(control_);
      close(children);
      close(down[0]);
      close(up[0]);
      worker_process(down[1], up[1], m, in_namespaces_, self, hook_);
    }
    close(down[1]);
    close(up[1]);
    down[1] = up[1] = -1;
    int pidfd = pid < 0 ? -1 : static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pid >= 0) workers_[pid] = m.worker;
    if (pidfd < 0) {
      reply.a = static_cast<uint64_t>(errno);
      if (pid >= 0) kill(pid, SIGKILL);
      close_all();
      send_message(control_, reply);
      return;
    }
    // The pool writes down and reads up; the kernel refuses the other ways.
    shutdown(down[0], SHUT_RD);
    shutdown(up[0], SHUT_WR);
    int fds[kSpawnedFds];
    fds[kToWorker] = down[0];
    fds[kFromWorker] = up[0];
    fds[kWorkerPidfd] = pidfd;
    send_message(control_, reply, fds);
    close_all();
    close(pidfd);
  }

  void reap() {
    int status = 0;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
      auto it = workers_.find(pid);
      if (it == workers_.end()) continue;
      ControlMessage m;
      m.kind = ControlMessage::Exited;
      m.worker = it->second;
      m.a = static_cast<uint64_t>(status);
      workers_.erase(it);
      send_message(control_, m);
    }
  }

  int control_;
  bool in_namespaces_;
  WorkerTestHook hook_;
  std::map<pid_t, uint64_t> workers_;
};

}  // namespace

void launcher_main(int control_fd, bool namespaces, WorkerTestHook hook) {
  bool in_namespaces = namespaces && enter_namespaces();
  if (in_namespaces) {
    // The first child in a new pid namespace is its init: it serves the pool.
    pid_t init = fork();
    if (init < 0) _exit(1);
    if (init == 0) prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (init > 0) {
      close(control_fd);
      int status = 0;
      while (waitpid(init, &status, 0) < 0 && errno == EINTR) {}
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  }
  prctl(PR_SET_NAME, "ptc-launcher");
  warm_up_engine();
  // _exit: no exit handlers (a leak checker cannot stop the world in a pid
  // namespace, and the engine's caches are meant to live to the end).
  _exit(Launcher(control_fd, in_namespaces, hook).serve());
}

}  // namespace ptc::isolation
