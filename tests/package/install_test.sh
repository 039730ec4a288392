#!/usr/bin/env bash
# `cmake --install` of the build tree into a scratch prefix, then a host
# program (examples/embed.cpp) built against that prefix only, in a clean
# folder, three ways: find_package(ptc) (shared library), find_package(ptc
# COMPONENTS static), and pkg-config. Each must build and print the example's
# three turns; the installed `ptc` must run from the prefix. Then the C API
# (examples/embed.c with pkg-config, and an isolated run through the
# installed libptc.so.0 and libexec/ptc/ptc-worker) and the installed Python
# module (in-process and isolated).
# Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
unset PTC_WORKER # the installed library must find its own
src="$1"
build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }

# Public headers only: nothing from the engine's internal folders.
[ -f "$prefix/include/ptc/ptc.hpp" ] || fail "no include/ptc/ptc.hpp in the prefix"
if grep -rn '#include "\(runtime\|frontend\|compiler\|vm\|protocol\|include\)/' "$prefix/include"; then
  fail "installed headers include internal headers"
fi
libdir="$(dirname "$(find "$prefix" -name 'libptc.so.0' | head -1)")"
[ -n "$libdir" ] && [ -f "$libdir/libptc.a" ] || fail "libptc.so.0 / libptc.a not installed"
grep -q 'SONAME *libptc.so.0' <<<"$(objdump -p "$libdir/libptc.so.0")" || fail "libptc.so.0 has no SONAME libptc.so.0"
# (The symbol table is read into a variable: grep -q on a pipe would stop
# nm early, which pipefail reports as a failure.)
symbols="$(nm -D --defined-only "$libdir/libptc.so.0")"
grep -q '_ZN3ptc3run.*@@PTC_0' <<<"$symbols" || fail "ptc::run is not exported under the version node PTC_0"
if grep -v ' A ' <<<"$symbols" | grep -v '@@PTC_0'; then
  fail "libptc.so.0 exports the symbols above outside PTC_0"
fi
[ "$("$prefix/bin/ptc" eval '(+ 1 2)')" = 3 ] || fail "installed ptc eval failed"
grep -q '^ptc [0-9]' <<<"$("$prefix/bin/ptc" --version)" || fail "installed ptc --version failed"

expected="ok: #'big-orders
ok: [\"Ada\"]
  tool get-user {\"id\" 7} -> {\"name\" \"Ada\"}"
check_output() {
  local what="$1" out="$2"
  case "$out" in
    "$expected"*) ;;
    *) printf '%s\n' "$out" >&2; fail "$what: unexpected output" ;;
  esac
  grep -q '^error: fail' <<<"$out" || fail "$what: the third turn's error is missing"
}

# 1. CMake, shared and static.
mkdir -p "$work/host"
cp "$src/examples/embed.cpp" "$work/host/"
cat >"$work/host/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(embed_host CXX)
find_package(ptc 0.1 REQUIRED COMPONENTS static)
add_executable(embed_shared embed.cpp)
target_link_libraries(embed_shared PRIVATE ptc::ptc)
add_executable(embed_static embed.cpp)
target_link_libraries(embed_static PRIVATE ptc::ptc_static)
CMAKE
cmake -S "$work/host" -B "$work/host/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "find_package(ptc) failed"; }
cmake --build "$work/host/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building against ptc::ptc failed"; }
grep -q 'NEEDED *libptc.so.0' <<<"$(objdump -p "$work/host/build/embed_shared")" ||
  fail "embed_shared does not link libptc.so.0"
if grep -q 'NEEDED *libptc' <<<"$(objdump -p "$work/host/build/embed_static")"; then
  fail "embed_static links libptc dynamically"
fi
check_output "find_package shared" "$("$work/host/build/embed_shared")"
check_output "find_package static" "$("$work/host/build/embed_static")"

# 1b. A host giving its runs upstream MCP servers through <ptc/upstreams.hpp>:
# an upstream that cannot start is reported and unavailable to programs.
cat >"$work/host/upstreams.cpp" <<'CPP'
#include <ptc/upstreams.hpp>

#include <cstdio>

int main() {
  ptc::UpstreamStart start = ptc::start_upstreams_from_json(
      R"({"upstreams": {"gone": {"transport": "mcp_stdio", "command": "/nonexistent/mcp-server"}}})");
  if (!start.servers || start.errors.size() != 1) return 1;
  ptc::RunOptions options;
  ptc::attach_upstreams(options, start.servers);
  ptc::Step step = ptc::run(
      "[(:available (first (tool/servers))) (:reason (tool/call {:server \"gone\" :tool \"x\" :args {}}))]",
      options);
  std::printf("%s\n", step.ok ? step.printed.c_str() : ptc::format_error(step.error).c_str());
  return step.ok ? 0 : 1;
}
CPP
cat >>"$work/host/CMakeLists.txt" <<'CMAKE'
add_executable(upstreams_host upstreams.cpp)
target_link_libraries(upstreams_host PRIVATE ptc::ptc)
CMAKE
cmake -S "$work/host" -B "$work/host/build" >/dev/null 2>&1 || fail "reconfiguring the host failed"
cmake --build "$work/host/build" --target upstreams_host >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building the upstreams host failed"; }
out="$("$work/host/build/upstreams_host")" || { printf '%s\n' "$out" >&2; fail "the upstreams host failed"; }
[ "$out" = "[false :upstream_unavailable]" ] || fail "the upstreams host printed '$out'"

# 2. pkg-config, shared.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags="$(pkg-config --cflags --libs ptc)" || fail "pkg-config ptc failed"
# shellcheck disable=SC2086
c++ -std=c++20 -O1 "$src/examples/embed.cpp" -o "$work/embed_pc" $flags -Wl,-rpath,"$libdir" ||
  fail "building with pkg-config ptc failed"
check_output "pkg-config" "$("$work/embed_pc")"
# 3. The C API: examples/embed.c, compiled as C, with pkg-config.
[ -f "$prefix/include/ptc/ptc.h" ] || fail "no include/ptc/ptc.h in the prefix"
grep -q ' T ptc_run@@PTC_0' <<<"$symbols" || fail "the C API (ptc_run) is not exported under PTC_0"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "$src/examples/embed.c" -o "$work/embed_c" $flags \
  -Wl,-rpath,"$libdir" || fail "building examples/embed.c with pkg-config ptc failed"
out="$("$work/embed_c")" || fail "embed_c failed: $out"
grep -q '^ok: \[{"name":"Ada"}\]$' <<<"$out" || fail "embed_c printed: $out"
# An isolated run: libptc.so.0 finds ptc-worker in ../libexec/ptc/.
[ -x "$prefix/libexec/ptc/ptc-worker" ] || fail "no executable libexec/ptc/ptc-worker in the prefix"
cat >"$work/isolated.c" <<'C'
#include <ptc/ptc.h>
#include <stdio.h>

int main(void) {
  ptc_worker_pool* pool = NULL;
  if (ptc_worker_pool_new("{\"workers\": 1}", PTC_NTS, &pool) != PTC_OK) {
    printf("pool: %s: %s\n", ptc_status_name(ptc_last_status()), ptc_last_error());
    return 1;
  }
  ptc_options* options = ptc_options_new();
  ptc_options_set_isolate(options, pool);
  ptc_result* result = NULL;
  ptc_status status = ptc_run("(reduce + (map inc [1 2 3]))", PTC_NTS, options, &result);
  printf("%s %s %s\n", ptc_status_name(status), ptc_result_value_json(result, NULL),
         ptc_worker_pool_stats_json(pool, NULL));
  ptc_result_free(result);
  ptc_options_free(options);
  ptc_worker_pool_free(pool);
  return status == PTC_OK ? 0 : 1;
}
C
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "$work/isolated.c" -o "$work/isolated_c" $flags \
  -Wl,-rpath,"$libdir" || fail "building an isolated C host with pkg-config ptc failed"
out="$("$work/isolated_c")" || fail "the isolated C host failed: $out"
grep -q "^ok 9 .*\"runs\":1,.*\"worker_path\":\"$prefix/libexec/ptc/ptc-worker\"}$" <<<"$out" ||
  fail "the isolated C host printed: $out"

# 4. The Python module from the prefix, finding libptc.so.0 beside it.
python="$(command -v /usr/bin/python3 || command -v python3)"
out="$(cd "$work" && env -u PTC_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" \
  "$python" -c 'import ptc; print(ptc.run("(+ 1 2)").value, ptc.__version__)' 2>&1)" ||
  fail "the installed Python module failed: $out"
[ "$out" = "3 $("$prefix/bin/ptc" --version | cut -d' ' -f2)" ] || fail "the installed Python module printed: $out"
out="$(cd "$work" && env -u PTC_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c '
import ptc
with ptc.WorkerPool(workers=1) as pool:
    print(ptc.run("(* 6 7)", isolate=pool).value, pool.worker_path)' 2>&1)" ||
  fail "an isolated run of the installed Python module failed: $out"
[ "$out" = "42 $prefix/libexec/ptc/ptc-worker" ] || fail "the installed Python module's isolated run printed: $out"
echo "install_test: ok (prefix layout, SONAME, symbol version, find_package shared+static, pkg-config, C API, isolated runs, Python)"
