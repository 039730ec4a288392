// ptc-worker: the launcher of isolated runs' worker processes. A WorkerPool
// starts it with its control socket as fd 3; nothing else should.
#include <cstdio>
#include <cstring>

#include "isolation/launcher.hpp"

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--launcher") == 0 && std::strcmp(argv[2], "3") == 0) {
    bool namespaces = !(argc >= 4 && std::strcmp(argv[3], "--no-namespaces") == 0);
    ptc::isolation::launcher_main(3, namespaces, nullptr);
  }
  std::fprintf(stderr,
               "ptc-worker: the worker processes of isolated runs (ptc ... --isolate, "
               "ptc::WorkerPool); it is started by them, not by hand\n");
  return 2;
}
