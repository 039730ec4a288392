#!/usr/bin/env bash
# scripts/check-layering can fail: on a scratch tree it passes while every
# include points down, then reports each kind of wrong-way include planted
# in it (a layer including one above, a protocol room including the room that
# includes it, a room beside it, a lower layer including the embedding API,
# a runtime-level public header including ptc.hpp). Then the build's own
# guard: a file compiled with a library's include root finds the layers below
# and not those above.
# Usage: check_layering_test.sh SOURCE_DIR CXX INCLUDE_ROOTS_DIR
set -euo pipefail
check="$1/scripts/check-layering"
cxx="$2"
roots="$3"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{runtime,scheduler,embedding,include/ptc} \
         "$tree"/protocol/{lisp_eval,agent/model,mcp}
echo '#include "runtime/value.hpp"' >"$tree/scheduler/lane.cpp"
echo '#include "include/ptc/tools.hpp"' >"$tree/scheduler/fiber.cpp"
echo '#include "protocol/lisp_eval/tool.hpp"' >"$tree/protocol/agent/agent.cpp"
echo '#include "protocol/agent/messages.hpp"' >"$tree/protocol/agent/model/wire.cpp"
echo '#include "host_value.hpp"' >"$tree/include/ptc/tools.hpp"
echo '#include "tools.hpp"' >"$tree/include/ptc/ptc.hpp"
bash "$check" "$tree" >/dev/null || { echo "FAIL: a clean tree was refused"; exit 1; }

expect_refused() {  # FILE INCLUDE WHAT
  local file=$1 include=$2 what=$3 out
  cp "$tree/$file" "$tree/$file.saved" 2>/dev/null || : >"$tree/$file.saved"
  echo "#include \"$include\"" >>"$tree/$file"
  if out=$(bash "$check" "$tree" 2>&1); then
    echo "FAIL: $what was not reported"
    exit 1
  fi
  grep -q "^$file:" <<<"$out" || { echo "FAIL: $what reported elsewhere: $out"; exit 1; }
  mv "$tree/$file.saved" "$tree/$file"
  echo "ok: $what"
}
expect_refused runtime/value.hpp scheduler/lane.hpp "runtime including scheduler"
expect_refused protocol/lisp_eval/tool.hpp protocol/agent/agent.hpp \
  "the lisp_eval room including the agent room above it"
expect_refused protocol/agent/messages.hpp protocol/agent/model/wire.hpp \
  "the agent room including its model room"
expect_refused protocol/mcp/server.cpp protocol/agent/agent.hpp \
  "the mcp room including the agent room beside it"
expect_refused scheduler/fiber.cpp include/ptc/ptc.hpp "scheduler including the embedding API"
expect_refused include/ptc/tools.hpp ptc.hpp "a runtime-level public header including ptc.hpp"
echo "check-layering: every planted include was reported"

compiles() {  # LAYER INCLUDE
  echo "#include \"$2\"" | (cd / && "$cxx" -std=c++20 -fsyntax-only -I"$roots/$1" -I"$roots/$1/include" \
    -x c++ - 2>/dev/null)
}
expect_root() {  # LAYER INCLUDE yes|no
  local got=no
  if compiles "$1" "$2"; then got=yes; fi
  [ "$got" = "$3" ] || { echo "FAIL: $1's include root: $2 compiles=$got, expected $3"; exit 1; }
}
expect_root runtime runtime/value.hpp yes
expect_root runtime include/ptc/tools.hpp yes
expect_root runtime include/ptc/ptc.hpp no
expect_root scheduler scheduler/lane.hpp yes
expect_root scheduler embedding/tool_broker.hpp no
expect_root lisp_eval protocol/lisp_eval/tool.hpp yes
expect_root lisp_eval protocol/agent/agent.hpp no
expect_root agent protocol/agent/agent.hpp yes
expect_root agent protocol/agent/model/wire.hpp no
expect_root mcp protocol/agent/agent.hpp no
echo "include roots: each layer sees itself and the layers below, nothing above"
