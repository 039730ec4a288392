#!/usr/bin/env bash
# The Debian packages: cpack builds ptc and libptc-dev from the build tree;
# both are unpacked into a scratch root (dpkg -x: no root needed, nothing on
# the machine changes) and the ptc found there evaluates a program. Their
# control data must declare the dependencies. The Python module of the ptc
# package runs programs in-process and isolated (its libptc.so.0 finding
# usr/libexec/ptc/ptc-worker).
# Usage: deb_test.sh BUILD_DIR
set -euo pipefail
unset PTC_WORKER # the packaged library must find its own
build="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
runtime="$(ls "$work"/out/ptc_*.deb 2>/dev/null | head -1)"
dev="$(ls "$work"/out/libptc-dev_*.deb 2>/dev/null | head -1)"
[ -n "$runtime" ] || fail "no ptc_*.deb in $(ls "$work/out")"
[ -n "$dev" ] || fail "no libptc-dev_*.deb in $(ls "$work/out")"

depends="$(dpkg-deb -f "$runtime" Depends)"
for lib in libre2 libsimdjson libmimalloc libfmt libgmp libc6; do
  grep -q "$lib" <<<"$depends" || fail "ptc's Depends lacks $lib: $depends"
done
dev_depends="$(dpkg-deb -f "$dev" Depends)"
grep -q 'ptc (= ' <<<"$dev_depends" || fail "libptc-dev does not depend on ptc: $dev_depends"
grep -q 'libre2-dev' <<<"$dev_depends" || fail "libptc-dev's Depends lacks libre2-dev"
grep -q 'libseccomp2' <<<"$depends" || fail "ptc's Depends lacks libseccomp2: $depends"
grep -q 'libseccomp-dev' <<<"$dev_depends" || fail "libptc-dev's Depends lacks libseccomp-dev"

root="$work/root"
dpkg -x "$runtime" "$root"
dpkg -x "$dev" "$root"
[ -x "$root/usr/bin/ptc" ] || fail "no usr/bin/ptc in the package"
[ -f "$root/usr/include/ptc/ptc.hpp" ] || fail "no usr/include/ptc/ptc.hpp in libptc-dev"
ls "$root"/usr/lib/*/libptc.so.0 "$root"/usr/lib/*/libptc.a >/dev/null 2>&1 ||
  ls "$root"/usr/lib/libptc.so.0 "$root"/usr/lib/libptc.a >/dev/null 2>&1 ||
  fail "libptc.so.0 / libptc.a missing from the packages"
out="$("$root/usr/bin/ptc" eval '(reduce + (map inc [1 2 3]))')"
[ "$out" = 9 ] || fail "ptc eval from the scratch root printed '$out', expected 9"

# The Python module of the ptc package finds the libptc.so.0 beside it.
[ -f "$root/usr/lib/python3/dist-packages/ptc/__init__.py" ] || fail "no Python module in the ptc package"
python="$(command -v /usr/bin/python3 || command -v python3)"
out="$(cd "$work" && PYTHONPATH="$root/usr/lib/python3/dist-packages" "$python" -c \
  'import ptc; r = ptc.run("(+ 1 data/x)", context={"x": 41}); print(r.value)')" ||
  fail "importing the packaged Python module failed"
[ "$out" = 42 ] || fail "the packaged Python module printed '$out', expected 42"
[ -x "$root/usr/libexec/ptc/ptc-worker" ] || fail "no executable usr/libexec/ptc/ptc-worker in the ptc package"
out="$(cd "$work" && PYTHONPATH="$root/usr/lib/python3/dist-packages" "$python" -c '
import ptc
with ptc.WorkerPool(workers=1) as pool:
    r = ptc.run("(+ 1 data/x)", context={"x": 41}, isolate=pool)
    print(r.value if r.ok else r.error, pool.worker_path)')" ||
  fail "an isolated run of the packaged Python module failed"
[ "$out" = "42 $root/usr/libexec/ptc/ptc-worker" ] ||
  fail "the packaged Python module's isolated run printed '$out'"
echo "deb_test: ok ($(basename "$runtime"), $(basename "$dev"))"
