"""What ptc.run costs over the C call it makes: ptc_run of '(+ 1 2)' timed
from C (a tiny C loop, when a C compiler is at hand), from Python through
bare ctypes (ptc_run + ptc_result_free, nothing converted), and through
ptc.run with and without reading the value and with an option. Rounds of
each are interleaved and the best round of each is kept, so that a busy
machine disturbs the comparison less.

    PTC_LIBRARY=build/libptc.so.0 python3 bindings/python/bench/overhead.py [N]
"""

import ctypes
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import ptc  # noqa: E402

C_LOOP = r"""
#include <ptc/ptc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char** argv) {
  int n = atoi(argv[1]), rounds = atoi(argv[2]);
  double best = 1e9;
  for (int r = 0; r < rounds; r++) {
    double t = now();
    for (int i = 0; i < n; i++) {
      ptc_result* result;
      ptc_run("(+ 1 2)", 7, NULL, &result);
      ptc_result_free(result);
    }
    double per = (now() - t) / n;
    if (per < best) best = per;
  }
  printf("%.9f\n", best);
  return 0;
}
"""


def c_loop(n, rounds):
    """Seconds per ptc_run from C, or None without a compiler."""
    cc = shutil.which("cc")
    include = HERE.parents[2] / "include"
    if not cc or not (include / "ptc" / "ptc.h").exists():
        return None
    library = pathlib.Path(ptc._c._name).resolve()
    with tempfile.TemporaryDirectory() as work:
        source = pathlib.Path(work) / "loop.c"
        source.write_text(C_LOOP)
        binary = pathlib.Path(work) / "loop"
        subprocess.run([cc, "-O2", f"-I{include}", str(source), str(library),
                        f"-Wl,-rpath,{library.parent}", "-o", str(binary)], check=True)
        out = subprocess.run([str(binary), str(n), str(rounds)], check=True,
                             capture_output=True, text=True)
        return float(out.stdout)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rounds = 15
    c = ptc._c
    out = ctypes.c_void_p()

    def bare():
        c.ptc_run(b"(+ 1 2)", 7, None, out)
        c.ptc_result_free(out.value)

    cases = {
        "ctypes: ptc_run + ptc_result_free": bare,
        "ptc.run('(+ 1 2)')": lambda: ptc.run("(+ 1 2)"),
        "ptc.run('(+ 1 2)').value": lambda: ptc.run("(+ 1 2)").value,
        "ptc.run('(+ 1 2)', timeout_ms=500).value": lambda: ptc.run("(+ 1 2)",
                                                                     timeout_ms=500).value,
    }
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(rounds):
        for name, fn in cases.items():
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / n)
    from_c = c_loop(n, rounds)
    base = from_c if from_c is not None else best["ctypes: ptc_run + ptc_result_free"]
    print(f"{'C: ptc_run + ptc_result_free':44s} "
          + (f"{from_c * 1e6:7.2f} us" if from_c is not None else "    (no C compiler)"))
    for name, seconds in best.items():
        print(f"{name:44s} {seconds * 1e6:7.2f} us  (+{(seconds - base) * 1e6:.2f} over C)")


if __name__ == "__main__":
    main()
