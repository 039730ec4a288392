// ptc-worker-test: ptc-worker with crash and escape hooks, for the isolation
// tests only (never installed). A program whose source starts with
// ";;hook:NAME" makes its worker do NAME inside the jail before the program
// runs:
//   segv, abort, exit       crash or end the worker
//   open, socket, execve, ptrace, fork, kill-parent
//                           a system call the jail forbids (the worker must die
//                           by SIGSYS; if the call returns, the program runs and
//                           its value says what happened)
//   alloc                   8 GiB at once, past the address-space limit: the
//                           program then runs if the allocation failed
//   spin                    a native infinite loop
//   lie                     a malformed frame to the parent, then wait
//   env                     abort if the host's environment reached the worker
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "isolation/launcher.hpp"

namespace {

void hook(std::string_view source) {
  constexpr std::string_view kPrefix = ";;hook:";
  if (source.substr(0, kPrefix.size()) != kPrefix) return;
  std::string_view name = source.substr(kPrefix.size());
  name = name.substr(0, name.find_first_of(" \n"));
  if (name == "segv") {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  } else if (name == "abort") {
    std::abort();
  } else if (name == "exit") {
    _exit(3);
  } else if (name == "open") {
    int fd = open("/etc/passwd", O_RDONLY);
    if (fd >= 0) std::abort();  // never reached: SIGSYS first
  } else if (name == "socket") {
    (void)socket(AF_INET, SOCK_STREAM, 0);
  } else if (name == "execve") {
    char sh[] = "/bin/sh";
    char* argv[] = {sh, nullptr};
    execve(sh, argv, nullptr);
  } else if (name == "ptrace") {
    (void)ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  } else if (name == "fork") {
    if (fork() == 0) _exit(0);
  } else if (name == "kill-parent") {
    (void)kill(getppid(), SIGKILL);
  } else if (name == "alloc") {
    size_t n = size_t{8} << 30;
    void* p = std::malloc(n);
    if (p) std::memset(p, 1, n);
    std::free(p);
  } else if (name == "spin") {
    volatile unsigned spins = 0;
    for (;;)
      spins = spins + 1u;
  } else if (name == "lie") {
    const char frame[] = "\xff\xff\xff\x7f\x06garbage";
    (void)!write(ptc::isolation::kToParentFd, frame, sizeof frame - 1);
    for (;;)
      pause();
  } else if (name == "env") {
    if (std::getenv("PTC_ISOLATION_TEST_SECRET")) std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--launcher") == 0 && std::strcmp(argv[2], "3") == 0) {
    bool namespaces = !(argc >= 4 && std::strcmp(argv[3], "--no-namespaces") == 0);
    ptc::isolation::launcher_main(3, namespaces, hook);
  }
  return 2;
}
