#!/usr/bin/env bash
# docs/language.md must be exactly what `ptc doc --markdown` prints: the
# reference is generated from the engine's tables, never edited by hand. On a
# difference, prints it and the command that regenerates the file.
# Usage: doc_drift_test.sh PATH/TO/ptc PATH/TO/docs/language.md
set -u
ptc="$1"
committed="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
generated="$(mktemp)"
trap 'rm -f "$generated"' EXIT

if ! "$ptc" doc --markdown >"$generated"; then
  echo "FAIL: $ptc doc --markdown failed"
  exit 1
fi
if [ ! -f "$committed" ]; then
  echo "FAIL: $committed does not exist"
elif diff -u --label "$committed (committed)" --label "ptc doc --markdown" \
  "$committed" "$generated"; then
  echo "docs/language.md is up to date"
  exit 0
fi
echo
echo "docs/language.md differs from the output of ptc doc --markdown; regenerate it"
echo "from the repository root with:"
echo "  ${ptc#"$root"/} doc --markdown > ${committed#"$root"/}"
exit 1
