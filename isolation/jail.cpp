#include "isolation/jail.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

#include <fmt/format.h>

namespace ptc::isolation {

namespace {

std::string failed(std::string_view what, int err = errno) {
  return fmt::format("{}: {}", what, std::strerror(err));
}

bool set_limit(int resource, rlim_t value) {
  struct rlimit l {
    value, value
  };
  return setrlimit(resource, &l) == 0;
}

std::string drop_capabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) return failed("capset");
  return {};
}

// A root worker outside a user namespace becomes nobody: without
// capabilities root still owns root's files.
std::string leave_root() {
  if (geteuid() != 0) return {};
  constexpr uid_t kNobody = 65534;
  if (setgroups(0, nullptr) != 0) return failed("setgroups");
  if (setresgid(kNobody, kNobody, kNobody) != 0) return failed("setresgid");
  if (setresuid(kNobody, kNobody, kNobody) != 0) return failed("setresuid");
  return {};
}

std::string load_seccomp(const JailSettings& s) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (!ctx) return "seccomp_init failed";
  struct Release {
    scmp_filter_ctx c;
    ~Release() { seccomp_release(c); }
  } release{ctx};
  int rc = 0;
  auto allow = [&](int nr) {
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  };
  auto allow_if = [&](int nr, scmp_arg_cmp cmp) {
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, cmp);
  };
  // Its sockets to and from the parent, diagnostics on standard error, and
  // the eventfds its threads wait on (scheduler/lane.cpp), which it makes
  // after the jail and so get numbers above the sockets'. No call that opens
  // anything else is allowed: those are every fd it can hold.
  allow_if(SCMP_SYS(read), SCMP_A0(SCMP_CMP_GE, static_cast<scmp_datum_t>(s.from_parent_fd)));
  allow_if(SCMP_SYS(write), SCMP_A0(SCMP_CMP_GE, 2));
  allow_if(SCMP_SYS(sendto), SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(s.to_parent_fd)));
  allow(SCMP_SYS(eventfd2));
  allow(SCMP_SYS(poll));
  allow(SCMP_SYS(ppoll));
  allow(SCMP_SYS(close));
  // Memory: never executable (no new code can be mapped or made runnable).
  allow_if(SCMP_SYS(mmap), SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  allow_if(SCMP_SYS(mprotect), SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  for (int nr : {SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk)})
    allow(nr);
  // Threads (pmap branches): clone only as a thread of this process; clone3
  // cannot be inspected, so it answers ENOSYS and the C library uses clone.
  allow_if(SCMP_SYS(clone), SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  for (int nr : {SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sched_yield),
                 SCMP_SYS(sched_getaffinity), SCMP_SYS(gettid), SCMP_SYS(getpid), SCMP_SYS(exit),
                 SCMP_SYS(exit_group), SCMP_SYS(restart_syscall), SCMP_SYS(rt_sigreturn),
                 SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack),
                 SCMP_SYS(getrandom)})
    allow(nr);
  // Clocks and waits.
  for (int nr : {SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday),
                 SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep)})
    allow(nr);
  // Reading its own limits (a thread's stack bound), never setting them.
  allow_if(SCMP_SYS(prlimit64), SCMP_A2(SCMP_CMP_EQ, 0));
  allow(SCMP_SYS(getrlimit));
  // Signals to itself only (abort()).
  allow_if(SCMP_SYS(tgkill), SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid())));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Sanitizer builds only: their runtime probes whether memory is readable
  // by writing it to a pipe (IsAccessibleMemoryRange).
  allow(SCMP_SYS(pipe2));
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  allow(SCMP_SYS(pipe2));
#endif
#endif
  if (rc != 0) return failed("seccomp_rule_add", -rc);
  if ((rc = seccomp_load(ctx)) != 0) return failed("seccomp_load", -rc);
  return {};
}

}  // namespace

std::string enter_jail(const JailSettings& s) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return failed("PR_SET_NO_NEW_PRIVS");
  if (!s.in_user_namespace)
    if (std::string e = leave_root(); !e.empty()) return e;
  if (std::string e = drop_capabilities(); !e.empty()) return e;
  if (s.address_space_bytes && !set_limit(RLIMIT_AS, s.address_space_bytes))
    return failed("RLIMIT_AS");
  if (s.cpu_seconds && !set_limit(RLIMIT_CPU, s.cpu_seconds)) return failed("RLIMIT_CPU");
  if (s.open_files && !set_limit(RLIMIT_NOFILE, s.open_files)) return failed("RLIMIT_NOFILE");
  if (!set_limit(RLIMIT_FSIZE, 0)) return failed("RLIMIT_FSIZE");
  if (!set_limit(RLIMIT_CORE, 0)) return failed("RLIMIT_CORE");
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return failed("PR_SET_DUMPABLE");
  return load_seccomp(s);
}

}  // namespace ptc::isolation
