#!/usr/bin/env bash
# The Python wheel (cmake/PythonWheel.cmake, built with ALL): pip-installed,
# offline, into a fresh venv in a scratch folder, it must import from the venv
# with the libptc.so.0 and libptc_protocol.so.0 it carries, run isolated
# programs with the ptc-worker it carries, show in `pip show`, and pass the pytest suite of bindings/python/tests run against the
# installed package (PTC_TEST_INSTALLED=1). The venv sees the system site
# packages only for Debian's python3-pytest; no PTC_LIBRARY,
# PTC_PROTOCOL_LIBRARY or PYTHONPATH points elsewhere, and everything runs
# outside the source tree (PTC_CLI, the ptc command the protocol tests
# compare with, is kept). Builds nothing.
# Usage: python_wheel_test.sh SOURCE_DIR WHEEL PYTHON VERSION
set -euo pipefail
src="$1"
wheel="$2"
python="$3"
version="$4"
fail() { echo "python_wheel_test: $*" >&2; exit 1; }

[ -f "$wheel" ] || fail "no $wheel: build the python-wheel target" \
  "(it needs python3-setuptools and python3-wheel: scripts/setup, then reconfigure)"
unset PTC_LIBRARY PTC_PROTOCOL_LIBRARY PYTHONPATH PTC_WORKER
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

"$python" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1 ||
  { cat "$work/venv.log"; fail "$python -m venv failed (python3-venv installed?)"; }
venv_python="$work/venv/bin/python"

start="$(date +%s%N)"
"$venv_python" -m pip install --no-index --no-deps --disable-pip-version-check -q "$wheel" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "pip install $wheel failed"; }
install_ms=$((($(date +%s%N) - start) / 1000000))

show="$("$work/venv/bin/pip" show -f ptc-lisp 2>&1)" || fail "pip show ptc-lisp failed: $show"
grep -qx 'Name: ptc-lisp' <<<"$show" || fail "pip show names another package: $show"
grep -qx "Version: $version" <<<"$show" || fail "pip show: not version $version: $show"
grep -qx ' *ptc/libptc.so.0' <<<"$show" || fail "the installed files lack ptc/libptc.so.0: $show"
grep -qx ' *ptc/libptc_protocol.so.0' <<<"$show" ||
  fail "the installed files lack ptc/libptc_protocol.so.0: $show"
grep -qx ' *ptc/ptc-worker' <<<"$show" || fail "the installed files lack ptc/ptc-worker: $show"

out="$("$venv_python" -c "import ptc; print(ptc.run('(+ 1 2)').value)" 2>&1)" ||
  fail "import ptc in the venv failed: $out"
[ "$out" = 3 ] || fail "ptc.run('(+ 1 2)') printed '$out', expected 3"

# Where the module, its libraries and its worker came from: the venv, all four.
"$venv_python" - "$work/venv" "$version" <<'EOF' || fail "ptc does not come from the wheel"
import os
import pathlib
import sys

import ptc

venv = pathlib.Path(sys.argv[1]).resolve()
package = pathlib.Path(ptc.__file__).resolve().parent
for variable in ("PTC_LIBRARY", "PTC_PROTOCOL_LIBRARY", "PYTHONPATH", "PTC_WORKER"):
    assert variable not in os.environ, f"{variable} is set"
assert package.is_relative_to(venv), f"ptc imported from {package}, not from the venv {venv}"
assert pathlib.Path(ptc._c._name) == package / "libptc.so.0", f"library loaded: {ptc._c._name}"
assert ptc.tool_schema()["name"] == "lisp_eval"
protocol = pathlib.Path(ptc._protocol._p()._name)
assert protocol == package / "libptc_protocol.so.0", f"protocol library loaded: {protocol}"
assert ptc.__version__ == sys.argv[2], f"the library is version {ptc.__version__}"
with ptc.WorkerPool(workers=1) as pool:
    worker = pathlib.Path(pool.worker_path)
    assert worker == package / "ptc-worker", f"worker found: {worker}"
    assert os.access(worker, os.X_OK), f"{worker} is not executable"
    result = ptc.run("(+ 1 data/x)", context={"x": 41}, isolate=pool)
    assert result.ok and result.value == 42, result
    assert pool.stats["runs"] == 1, pool.stats
EOF

PTC_TEST_INSTALLED=1 "$venv_python" -m pytest -q -p no:cacheprovider \
  "$src/bindings/python/tests" || fail "the pytest suite failed against the installed wheel"
echo "python_wheel_test: ok ($(basename "$wheel"), $(stat -c %s "$wheel") bytes, pip install ${install_ms} ms)"
