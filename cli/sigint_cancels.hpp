// Ctrl-C stops the running program, not the process: while a SigintCancels
// lives, SIGINT raises a flag that the run was given as RunOptions::cancel
// (the run then ends with ErrorKind::Cancelled). They nest: the newest one
// is in force until it ends, then the one before it again.
#pragma once

#include <signal.h>

#include <atomic>

namespace ptc::cli {

class SigintCancels {
 public:
  explicit SigintCancels(std::atomic<bool>& cancel);
  ~SigintCancels();
  SigintCancels(const SigintCancels&) = delete;
  SigintCancels& operator=(const SigintCancels&) = delete;

 private:
  struct sigaction previous_ = {};
  std::atomic<bool>* previous_cancel_ = nullptr;
};

}  // namespace ptc::cli
