// A thread's run tells this hook when its program is compiled and the run's
// own clock (timeout) starts. The worker of an isolated run (isolation/)
// reports it to its parent, whose kill deadline is then the run's timeout
// from here rather than from the start with the whole compile budget.
// Internal: not part of the public API.
#pragma once

namespace ptc {

using CompiledHook = void (*)(void* data);
// For the runs this thread starts from now on; nullptr clears it.
void set_compiled_hook(CompiledHook hook, void* data);
// Called by the run (embedding/run.cpp).
void notify_compiled();

}  // namespace ptc
