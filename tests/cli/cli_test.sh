#!/usr/bin/env bash
# End-to-end checks of the ptc executable: output, exit codes, batch lines,
# JSON mode, bench and help. Usage: cli_test.sh PATH/TO/ptc
set -u
ptc="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL $1"
    echo "  expected: $2"
    echo "  actual:   $3"
    failures=$((failures + 1))
  fi
}
contains() {  # contains NAME NEEDLE HAYSTACK
  case "$3" in
    *"$2"*) ;;
    *) echo "FAIL $1: '$2' not in: $3"; failures=$((failures + 1)) ;;
  esac
}

check "eval prints clojure syntax" "3" "$("$ptc" eval '(let [{:keys [a b] :or {b 2}} {:a 1}] (+ a b))')"
check "eval map" '{:a [1 2.5 "x"]}' "$("$ptc" eval '{:a [1 2.5 "x"]}')"

out="$("$ptc" eval '(+ 1 :a)' 2>&1)"; rc=$?
check "error exit code" "1" "$rc"
contains "error names reason and location" "error: type_error at 1:1:" "$out"

"$ptc" eval '(+ 1 :a)' >"$tmp/out" 2>"$tmp/err"
check "errors go to stderr, not stdout" "" "$(cat "$tmp/out")"

"$ptc" bogus >/dev/null 2>&1; check "unknown command exit code" "2" "$?"
"$ptc" eval >/dev/null 2>&1; check "missing argument exit code" "2" "$?"
"$ptc" eval '1' --timeout abc >/dev/null 2>&1; check "bad option exit code" "2" "$?"

echo '{"items":[{"v":1},{"v":2}],"name":"ctx"}' >"$tmp/ctx.json"
check "context" "[1 2]" "$("$ptc" eval '(map :v data/items)' --context "$tmp/ctx.json")"
echo '[1,2]' >"$tmp/bad_ctx.json"
"$ptc" eval 'data/x' --context "$tmp/bad_ctx.json" >/dev/null 2>&1; check "non-object context" "2" "$?"

check "json output" '{"a":[1,2.5,"x"],"b":null}' "$("$ptc" eval '{:a [1 2.5 "x"] :b nil}' --json)"
out="$("$ptc" eval '(do (println "hi") 5)' --json 2>/dev/null)"
check "json mode keeps prints off stdout" "5" "$out"
check "prints go to stdout normally" "$(printf 'hi\n5')" "$("$ptc" eval '(do (println "hi") 5)')"

printf '(defn sq [x] (* x x))\n(sq 12)\n' >"$tmp/prog.clj"
check "run file" "144" "$("$ptc" run "$tmp/prog.clj")"
check "run stdin" "144" "$(cat "$tmp/prog.clj" | "$ptc" run -)"
"$ptc" run "$tmp/missing.clj" >/dev/null 2>&1; check "missing file exit code" "2" "$?"

cat >"$tmp/batch.jsonl" <<'JSONL'
{"id":1,"program":"(+ 1 2)"}
not json at all
{"id":"b","program":"(count data/xs)","context":{"xs":[1,2,3]},"extra":"ignored"}

{"id":3,"program":"(/ 1 0)"}
{"id":4}
{"id":5,"program":"(str \"a\" \"b\")"}
JSONL
"$ptc" batch "$tmp/batch.jsonl" >"$tmp/batch.out"; rc=$?
check "batch exit code" "0" "$rc"
check "batch line count" "6" "$(wc -l <"$tmp/batch.out" | tr -d ' ')"
check "batch ok line" '{"id":1,"ok":true,"result":"3"}' "$(sed -n 1p "$tmp/batch.out")"
contains "batch bad json line" '"ok":false,"error":{"reason":"args_error"' "$(sed -n 2p "$tmp/batch.out")"
check "batch context line" '{"id":"b","ok":true,"result":"3"}' "$(sed -n 3p "$tmp/batch.out")"
contains "batch runtime error" '{"id":3,"ok":false,"error":{"reason":"arithmetic_error"' "$(sed -n 4p "$tmp/batch.out")"
contains "batch missing program" '{"id":4,"ok":false' "$(sed -n 5p "$tmp/batch.out")"
check "batch string result" '{"id":5,"ok":true,"result":"\"ab\""}' "$(sed -n 6p "$tmp/batch.out")"
check "batch from stdin" '{"id":1,"ok":true,"result":"3"}' "$(head -1 "$tmp/batch.jsonl" | "$ptc" batch -)"

printf '{"id":"a","program":"(+ 1 2)"}\n{"id":"bad","program":"(foo)"}\n' >"$tmp/bench.jsonl"
out="$("$ptc" bench "$tmp/bench.jsonl" -n 20 2>&1)"; rc=$?
contains "bench reports timing" "median us" "$out"
contains "bench reports failures" "bad" "$out"
check "bench exit code with a failure" "1" "$rc"
out="$("$ptc" bench "$tmp/bench.jsonl" -n 20 --json 2>&1)"
contains "bench json" '"median_us":' "$out"

echo '{"get-user": [{"args": {"id": 7}, "result": {"name": "Ada"}}]}' >"$tmp/tools.json"
check "tools replay" '"Ada"' "$("$ptc" eval '(:name (tool/get-user {:id 7}))' --tools "$tmp/tools.json")"
out="$("$ptc" eval '(tool/get-user {:id 8})' --tools "$tmp/tools.json" 2>&1)"
contains "unrecorded tool call is a tool error" "tool_error" "$out"
line='{"id":9,"program":"(tool/t {})","tools":{"t":[{"args":{},"result":2}]}}'
check "batch tools" '{"id":9,"ok":true,"result":"2"}' "$(echo "$line" | "$ptc" batch -)"
echo '{"x": 5}' >"$tmp/mem.json"
check "memory" "6" "$("$ptc" eval '(inc x)' --memory "$tmp/mem.json")"
out="$("$ptc" eval '"a"' --signature ':int' 2>&1)"
contains "signature mismatch" "validation_error" "$out"
out="$("$ptc" eval '(tool/t {})' --max-tool-calls 0 2>&1)"; rc=$?
check "limit flags are validated" "2" "$rc"

contains "disasm" "RETURN" "$("$ptc" disasm -e '(+ 1 2)')"
contains "help lists commands" "ptc batch FILE.jsonl" "$("$ptc" --help)"
contains "command help" "usage: ptc bench" "$("$ptc" bench --help)"

if [ "$failures" -ne 0 ]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
