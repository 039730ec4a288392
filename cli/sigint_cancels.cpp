#include "cli/sigint_cancels.hpp"

namespace ptc::cli {

namespace {

// A signal handler may only touch lock-free atomics.
static_assert(std::atomic<bool>::is_always_lock_free &&
              std::atomic<std::atomic<bool>*>::is_always_lock_free);
std::atomic<std::atomic<bool>*> g_cancel{nullptr};

extern "C" void raise_cancel(int) {
  if (std::atomic<bool>* cancel = g_cancel.load()) cancel->store(true);
}

}  // namespace

SigintCancels::SigintCancels(std::atomic<bool>& cancel) : previous_cancel_(g_cancel.load()) {
  g_cancel.store(&cancel);
  struct sigaction action = {};
  action.sa_handler = raise_cancel;
  sigemptyset(&action.sa_mask);
  // Output being written when the key is pressed is finished, not cut short.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &previous_);
}

SigintCancels::~SigintCancels() {
  sigaction(SIGINT, &previous_, nullptr);
  g_cancel.store(previous_cancel_);
}

}  // namespace ptc::cli
