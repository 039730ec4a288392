#!/usr/bin/env bash
# End-to-end checks of the ptc executable: output, exit codes, batch lines,
# JSON mode, bench, help, lisp-eval, tool-schema, doc, start and resume. Usage: cli_test.sh PATH/TO/ptc
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

# --usage: the value on stdout as ever, one usage line on stderr; a
# garbage-heavy program collects, and its peak live heap stays far below
# what it allocated (45 MB allocated, a few MB live, at the default cap).
"$ptc" eval '(count (reduce (fn [m i] (assoc m i (* i i))) {} (range 50000)))' --usage \
  >"$tmp/out" 2>"$tmp/err"
check "--usage keeps stdout the value" "50000" "$(cat "$tmp/out")"
usage_line="$(cat "$tmp/err")"
contains "--usage line" "usage: " "$usage_line"
collections="$(sed -n 's/.* \([0-9][0-9]*\) collections\{0,1\} (.*/\1/p' <<<"$usage_line")"
[ "${collections:-0}" -gt 0 ] || { echo "FAIL --usage counts collections: $usage_line"; failures=$((failures + 1)); }
contains "--usage shows the heap" "peak live" "$usage_line"
"$ptc" eval '(count (mapv (fn [i] (vec (range 1000))) (range 1000)))' --usage >/dev/null \
  2>"$tmp/err"
check "--usage on a failed run" "1" "$(grep -c '^usage: ' "$tmp/err")"
contains "memory_limit says what is live" "still reachable after a collection" "$(cat "$tmp/err")"

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

# Consecutive lines with one context share it prepared; each still sees only
# its own line's context, and a malformed one is that line's error.
cat >"$tmp/shared.jsonl" <<'JSONL'
{"id":1,"program":"(count data/xs)","context":{"xs":[1,2,3]}}
{"id":2,"program":"(conj data/xs 4)","context":{"xs":[1,2,3]}}
{"id":3,"program":"(conj data/xs 5)","context":{"xs":[1,2,3]}}
{"id":4,"program":"(count data/xs)","context":{"xs":[9]}}
{"id":5,"program":"(count data/xs)"}
{"id":6,"program":"(count data/xs)","context":[1]}
JSONL
"$ptc" batch "$tmp/shared.jsonl" >"$tmp/shared.out"
check "batch shared context" '{"id":1,"ok":true,"result":"3"}
{"id":2,"ok":true,"result":"[1 2 3 4]"}
{"id":3,"ok":true,"result":"[1 2 3 5]"}
{"id":4,"ok":true,"result":"1"}
{"id":5,"ok":true,"result":"0"}' "$(head -5 "$tmp/shared.out")"
contains "batch context not an object" '"context\" must be a JSON object' "$(sed -n 6p "$tmp/shared.out")"
echo '{"xs":[7,8]}' >"$tmp/default_ctx.json"
check "batch line without a context gets --context's" '{"id":5,"ok":true,"result":"2"}' \
  "$("$ptc" batch "$tmp/shared.jsonl" --context "$tmp/default_ctx.json" | sed -n 5p)"
for mode in json host prepared; do
  out="$("$ptc" bench "$tmp/shared.jsonl" -n 5 --context-as $mode 2>&1)"
  contains "bench --context-as $mode" "median us" "$out"
done
contains "bench --no-cache" "median us" "$("$ptc" bench "$tmp/shared.jsonl" -n 5 --no-cache 2>&1)"
"$ptc" bench "$tmp/shared.jsonl" --context-as disk >/dev/null 2>&1
check "bench bad --context-as" "2" "$?"

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

# ptc lisp-eval: one tool call's arguments on stdin, the JSON payload on stdout.
lisp_eval() {  # lisp_eval JSON [options]: prints the payload, then "rc=N"
  local input="$1"; shift
  printf '%s' "$input" | "$ptc" lisp-eval "$@" 2>"$tmp/le_err"
  echo "rc=$?"
}
check "lisp-eval success" '{"feedback":"","prints":[],"result":"user=> 3","status":"ok","truncated":false}
rc=0' "$(lisp_eval '{"program":"(+ 1 2)"}')"
check "lisp-eval context and unknown fields" '{"feedback":"","prints":[],"result":"user=> 6","status":"ok","truncated":false}
rc=0' "$(lisp_eval '{"program":"(reduce + data/xs)","context":{"xs":[1,2,3]},"extra":true}')"
out="$(lisp_eval '{"program":"(println \"hi\")"}')"
contains "lisp-eval prints" '"prints":["hi"],"status":"ok"' "$out"
contains "lisp-eval prints are quoted as data" 'source=\"println\">\nhi\n</untrusted_ptc_output>' "$out"
check "lisp-eval def has a null result" '{"feedback":"","prints":[],"result":null,"status":"ok","truncated":false}
rc=0' "$(lisp_eval '{"program":"(def x 10)"}')"
check "lisp-eval fail" '{"feedback":"\"boom\"","message":"\"boom\"","reason":"fail","result":"\"boom\"","status":"error"}
rc=1' "$(lisp_eval '{"program":"(fail \"boom\")"}')"
out="$(lisp_eval '{"program":"((((not balanced"}')"
contains "lisp-eval parse error" '"reason":"parse_error","status":"error"}' "$out"
contains "lisp-eval parse error says where" 'parse_error at 1:' "$out"
contains "lisp-eval error exit code" "rc=1" "$out"
out="$(lisp_eval '{"program":"(undefined-fn 1 2)"}')"
contains "lisp-eval runtime error" '"message":"unbound_var at 1:2: ' "$out"
contains "lisp-eval runtime error reason" '"reason":"runtime_error"' "$out"
out="$(lisp_eval '{"program":"(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 40)"}' --timeout 50)"
contains "lisp-eval timeout" '"reason":"timeout"' "$out"
out="$(lisp_eval '{"program":"(def big (vec (range 1000000)))"}' --max-heap 100000)"
contains "lisp-eval memory limit" '"reason":"memory_limit"' "$out"
out="$(lisp_eval '{"program":"(range 100)"}')"
contains "lisp-eval collection marker" '48 49 ...] (50/100)","status":"ok","truncated":true}' "$out"
check "lisp-eval not JSON" '{"feedback":"Invalid tool arguments: invalid JSON at line 1, column 1: invalid literal (expected a value)","message":"Invalid tool arguments: invalid JSON at line 1, column 1: invalid literal (expected a value)","reason":"args_error","status":"error"}
rc=1' "$(lisp_eval 'not json')"
out="$(lisp_eval '{"program": "(+ 1 2)",
  "context": }')"
contains "lisp-eval bad JSON says where" 'invalid JSON at line 2, column ' "$out"
contains "lisp-eval bad JSON is an args_error" '"reason":"args_error"' "$out"
out="$(lisp_eval '')"
contains "lisp-eval empty stdin" '"reason":"args_error"' "$out"
contains "lisp-eval not an object" '"message":"Invalid tool arguments: the arguments must be a JSON object' "$(lisp_eval '["(+ 1 2)"]')"
contains "lisp-eval missing program" '"message":"lisp_eval requires a non-empty `program` string argument."' "$(lisp_eval '{"context":{}}')"
contains "lisp-eval blank program" '"message":"lisp_eval `program` must be a non-empty string."' "$(lisp_eval '{"program":" \n\t"}')"
contains "lisp-eval non-string program" '"message":"lisp_eval `program` must be a string, got [\"a\"]."' "$(lisp_eval '{"program":["a"]}')"
contains "lisp-eval non-object context" '"message":"lisp_eval `context` must be an object, got [1 2]."' "$(lisp_eval '{"program":"1","context":[1,2]}')"
contains "lisp-eval context key with a slash" '"reason":"args_error"' "$(lisp_eval '{"program":"1","context":{"a/b":1}}')"
check "lisp-eval null context" '{"feedback":"","prints":[],"result":"user=> 1","status":"ok","truncated":false}
rc=0' "$(lisp_eval '{"program":"1","context":null}')"
{ printf '{"program":"(+ 1 2)'; head -c 10000000 /dev/zero | tr '\0' ' '; printf '"}'; } >"$tmp/big.json"
"$ptc" lisp-eval <"$tmp/big.json" >"$tmp/big.out" 2>&1; rc=$?
check "lisp-eval 10 MB program exit code" "1" "$rc"
contains "lisp-eval 10 MB program" '"message":"program_too_large: program is 1000000' "$(cat "$tmp/big.out")"
contains "lisp-eval 10 MB program is an args_error" '"reason":"args_error"' "$(cat "$tmp/big.out")"
echo '{"n": 1}' >"$tmp/prior.json"
out="$(lisp_eval '{"program":"(def m 2)"}' --include-memory --memory "$tmp/prior.json")"
contains "lisp-eval memory block" '"memory":{"changed":{"m":"2"},"stored_keys":["m","n"],"truncated":false}' "$out"
contains "lisp-eval memory feedback" ';; m = 2' "$out"
contains "lisp-eval signature validated" '"validated":{"total":3}' "$(lisp_eval '{"program":"{:total 3}"}' --signature '{total :int}')"
contains "lisp-eval signature mismatch" '"reason":"validation_error"' "$(lisp_eval '{"program":"\"x\""}' --signature ':int')"
echo '{"get-user": [{"args": {"id": 7}, "result": {"name": "Ada"}}]}' >"$tmp/le_tools.json"
contains "lisp-eval tools in process" '"result":"user=> \"Ada\""' \
  "$(lisp_eval '{"program":"(:name (tool/get-user {:id 7}))"}' --profile in_process_with_app_tools --tools "$tmp/le_tools.json")"
out="$(lisp_eval '{"program":"1"}' --tools "$tmp/le_tools.json")"
contains "lisp-eval: no tools for mcp_no_tools" "rc=2" "$out"
out="$(lisp_eval '{"program":"1"}' --profile nope)"
check "lisp-eval bad profile prints nothing" "rc=2" "$out"
contains "lisp-eval bad profile message" "unknown profile 'nope'" "$(cat "$tmp/le_err")"
check "lisp-eval --context does not apply" "rc=2" "$(lisp_eval '{"program":"1"}' --context "$tmp/ctx.json")"
check "lisp-eval stray argument" "rc=2" "$(lisp_eval '{"program":"1"}' extra)"
contains "lisp-eval help" "usage: ptc lisp-eval" "$("$ptc" lisp-eval --help)"
contains "lisp-eval help documents exit codes" "1 an error payload" "$("$ptc" help lisp-eval)"

# ptc tool-schema: the tool definition.
out="$("$ptc" tool-schema)"; rc=$?
check "tool-schema exit code" "0" "$rc"
contains "tool-schema openai form" '{"function":{"description":"' "$out"
contains "tool-schema default profile" 'only `lisp_eval` is available natively' "$out"
contains "tool-schema parameters" '"name":"lisp_eval","parameters":{"additionalProperties":false,"properties":{"program":{"description":' "$out"
contains "tool-schema ends with the type" '"required":["program"],"type":"object"}},"type":"function"}' "$out"
out="$("$ptc" tool-schema --profile in_process_text_mode)"
contains "tool-schema text mode" 'but not in the same turn as `lisp_eval`' "$out"
out="$("$ptc" tool-schema --mcp)"
contains "tool-schema mcp object" '"inputSchema":{"additionalProperties":false,"properties":{"context":{' "$out"
contains "tool-schema mcp default profile" 'No app tools are available inside the program' "$out"
contains "tool-schema mcp name" '"name":"lisp_eval"}' "$out"
out="$("$ptc" tool-schema --profile mcp_no_tools)"
contains "tool-schema mcp profile in openai form" '"output_schema":{' "$out"
"$ptc" tool-schema --profile bogus >/dev/null 2>&1; check "tool-schema bad profile" "2" "$?"
"$ptc" tool-schema --profile >/dev/null 2>&1; check "tool-schema missing profile" "2" "$?"
contains "tool-schema help" "usage: ptc tool-schema" "$("$ptc" tool-schema --help)"
contains "help lists lisp-eval" "ptc lisp-eval" "$("$ptc" help)"
contains "help lists tool-schema" "ptc tool-schema" "$("$ptc" help)"

# ptc doc: the documented names, as (doc NAME) shows them.
out="$("$ptc" doc map)"; rc=$?
check "doc NAME exit code" "0" "$rc"
check "doc NAME prints what (doc NAME) prints" "$("$ptc" eval '(doc map)' | sed '$d')" "$out"
contains "doc NAME signature" "Signature: (map f coll)" "$out"
contains "doc qualified NAME" "clojure.string/join" "$("$ptc" doc str/join)"
contains "doc special form" "Kind: special-form" "$("$ptc" doc '->')"
out="$("$ptc" doc mapp 2>&1 >"$tmp/out")"; rc=$?
check "doc unknown NAME exit code" "2" "$rc"
check "doc unknown NAME prints nothing on stdout" "" "$(cat "$tmp/out")"
contains "doc unknown NAME message" "no documentation for mapp" "$out"
contains "doc unknown NAME did you mean" "hint: did you mean: map" "$out"
out="$("$ptc" doc)"
contains "doc lists special forms" "(when-let [pattern expr] body...) - " "$out"
contains "doc lists functions" "(map f coll) or (map f c1 c2 ...) - " "$out"
contains "doc --markdown" "- **\`map\`** \`(map f coll)\` or \`(map f c1 c2 ...)\` \\" "$("$ptc" doc --markdown)"
"$ptc" doc map --markdown >/dev/null 2>&1; check "doc NAME --markdown exit code" "2" "$?"
"$ptc" doc --bogus >/dev/null 2>&1; check "doc unknown option exit code" "2" "$?"
contains "doc help" "usage: ptc doc" "$("$ptc" help doc)"
contains "help lists doc" "ptc doc" "$("$ptc" help)"

# ptc start / ptc resume: executions that wait on tools the host answers.
ex="$tmp/ex"; mkdir -p "$ex"
step() {  # step start|resume ARGS...: the JSON line on stdout, then "rc=N"; stderr in $ex/err
  "$ptc" "$@" 2>"$ex/err"
  echo "rc=$?"
}
json_text() {  # json_text TEXT: TEXT as the inside of a JSON string (one line)
  sed 's/\\/\\\\/g; s/"/\\"/g' <<<"$1"
}
cat >"$ex/users.json" <<'JSON'
{"get-user": [{"args": {"id": 1}, "result": {"name": "Ada"}},
              {"args": {"id": 2}, "result": {"name": "Bob"}},
              {"args": {"id": 3}, "result": {"name": "Cy"}}],
 "get-orders": [{"args": {"user": "Ada"}, "result": [10, 20, 5]}]}
JSON
cat >"$ex/two.clj" <<'CLJ'
(println "start")
(def a (tool/get-user {:id 1}))
(println "got" (:name a))
(def b (tool/get-user {:id 2}))
{:names [(:name a) (:name b)] :n 2}
CLJ
check "start suspends at a deferred tool" '{"status":"suspended","calls":[{"id":"c0","tool":"get-user","args":{"id":1}}]}
rc=0' "$(step start "$ex/two.clj" --defer get-user --snapshot "$ex/two.1")"
check "start writes the snapshot, owner-only" "600" "$(stat -c %a "$ex/two.1")"
echo '{"c0": {"value": {"name": "Ada"}}}' >"$ex/two_r1.json"
check "resume suspends at the next call" '{"status":"suspended","calls":[{"id":"c1","tool":"get-user","args":{"id":2}}]}
rc=0' "$(step resume "$ex/two.1" --results "$ex/two_r1.json" --snapshot "$ex/two.2")"
echo '{"c1": {"value": {"name": "Bob"}}}' >"$ex/two_r2.json"
run_value="$("$ptc" run "$ex/two.clj" --tools "$ex/users.json" | tail -1)"
check "start, resume, resume: the value ptc run --tools prints, prints carried" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[\"start\",\"got Ada\"]}
rc=0" "$(step resume "$ex/two.2" --results "$ex/two_r2.json" --snapshot "$ex/two.3")"
check "a done execution writes no snapshot" "no" "$([ -e "$ex/two.3" ] && echo yes || echo no)"
check "the earlier snapshot is left as it was" "yes" "$([ -e "$ex/two.2" ] && echo yes || echo no)"
check "no temporary files are left" "" "$(ls "$ex" | grep '\.tmp\.')"

# A pmap suspends once with its three calls, answered in two resumes; OUT is
# the snapshot itself, removed once the execution is done.
echo '(pmap #(:name (tool/get-user {:id %})) [1 2 3])' >"$ex/pmap.clj"
check "pmap suspends once with every call" '{"status":"suspended","calls":[{"id":"p0.0/c0","tool":"get-user","args":{"id":1}},{"id":"p0.1/c0","tool":"get-user","args":{"id":2}},{"id":"p0.2/c0","tool":"get-user","args":{"id":3}}]}
rc=0' "$(step start "$ex/pmap.clj" --defer get-user --pmap-max-concurrency 4 --snapshot "$ex/pmap.snap")"
echo '{"p0.2/c0": {"value": {"name": "Cy"}}, "p0.0/c0": {"value": {"name": "Ada"}}}' >"$ex/pmap_r1.json"
check "pmap answered in part: the rest stays pending" '{"status":"suspended","calls":[{"id":"p0.1/c0","tool":"get-user","args":{"id":2}}]}
rc=0' "$(step resume "$ex/pmap.snap" --results "$ex/pmap_r1.json" --snapshot "$ex/pmap.snap")"
echo '{"p0.1/c0": {"value": {"name": "Bob"}}}' >"$ex/pmap_r2.json"
run_value="$("$ptc" run "$ex/pmap.clj" --tools "$ex/users.json")"
check "pmap done: the value ptc run --tools prints" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[]}
rc=0" "$(step resume "$ex/pmap.snap" --results "$ex/pmap_r2.json" --snapshot "$ex/pmap.snap")"
check "done removes the stale snapshot at OUT" "no" "$([ -e "$ex/pmap.snap" ] && echo yes || echo no)"

# A deferred tool beside a --tools table's tool, answered synchronously.
cat >"$ex/mix.clj" <<'CLJ'
(let [u (tool/get-user {:id 1})
      orders (tool/get-orders {:user (:name u)})]
  {:user (:name u) :total (reduce + orders)})
CLJ
check "mix: only the deferred tool suspends" '{"status":"suspended","calls":[{"id":"c0","tool":"get-user","args":{"id":1}}]}
rc=0' "$(step start "$ex/mix.clj" --tools "$ex/users.json" --defer get-user --snapshot "$ex/mix.snap")"
echo '{"c0": {"value": {"name": "Ada"}}}' >"$ex/mix_r.json"
run_value="$("$ptc" run "$ex/mix.clj" --tools "$ex/users.json")"
check "mix: the table answers the other tool after resume" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[]}
rc=0" "$(step resume "$ex/mix.snap" --results "$ex/mix_r.json" --tools "$ex/users.json" --snapshot "$ex/mix.out")"
check "mix: without --tools on resume, the host answers the table's tool" '{"status":"suspended","calls":[{"id":"c1","tool":"get-orders","args":{"user":"Ada"}}]}
rc=0' "$(step resume "$ex/mix.snap" --results "$ex/mix_r.json" --snapshot "$ex/mix.out")"

# --defer all: every tool waits for the host, the table's too; given again on
# resume, the table answers its tools.
check "defer all defers the table's tools" '{"status":"suspended","calls":[{"id":"c0","tool":"get-user","args":{"id":1}}]}
rc=0' "$(step start "$ex/mix.clj" --tools "$ex/users.json" --defer all --snapshot "$ex/all.snap")"
check "defer all, resumed with --tools" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[]}
rc=0" "$(step resume "$ex/all.snap" --results "$ex/mix_r.json" --tools "$ex/users.json" --snapshot "$ex/all.out")"
echo '(tool/anything {:k :v})' >"$ex/any.clj"
check "defer all defers tools nobody gives" '{"status":"suspended","calls":[{"id":"c0","tool":"anything","args":{"k":"v"}}]}
rc=0' "$(step start "$ex/any.clj" --defer all --snapshot "$ex/any.snap")"

# Approvals: a call of a tool named by --approval waits for a person's
# decision before the table's tool runs; approved it runs, rejected the
# program fails with a tool_error that says so.
check "approval: start suspends with an approval, and where" '{"status":"suspended","calls":[{"id":"c1","tool":"get-orders","kind":"approval","args":{"user":"Ada"},"line":2,"column":14}]}
rc=0' "$(step start "$ex/mix.clj" --tools "$ex/users.json" --approval get-orders --snapshot "$ex/appr.snap")"
echo '{"c1": {"approve": true}}' >"$ex/appr_yes.json"
check "approval: approved, the table answers it" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[]}
rc=0" "$(step resume "$ex/appr.snap" --results "$ex/appr_yes.json" --tools "$ex/users.json" --snapshot "$ex/appr.out")"
echo '{"c1": {"reject": "not before the audit"}}' >"$ex/appr_no.json"
out="$(step resume "$ex/appr.snap" --results "$ex/appr_no.json" --tools "$ex/users.json" --snapshot "$ex/appr.out")"
contains "approval: rejected, a tool_error that says so" '"reason":"tool_error","message":"tool/get-orders was rejected: not before the audit"' "$out"
contains "approval: rejected, exit code 1" "rc=1" "$out"
echo '{"c1": {"value": [1]}}' >"$ex/appr_forged.json"
check "approval: a result does not answer an approval" "rc=2" "$(step resume "$ex/appr.snap" --results "$ex/appr_forged.json" --tools "$ex/users.json" --snapshot "$ex/appr.out")"
contains "approval: the refusal says what it waits for" "waits for a person's approval" "$(cat "$ex/err")"
echo '{"c1": {"approve": false}}' >"$ex/appr_false.json"
check "approval: approve must be true" "rc=2" "$(step resume "$ex/appr.snap" --results "$ex/appr_false.json" --snapshot "$ex/appr.out")"
contains "approval: how to reject instead" '"approve" must be true' "$(cat "$ex/err")"
check "approval: start needs --defer or --approval" "2" "$("$ptc" start "$ex/mix.clj" --snapshot "$ex/x.snap" >/dev/null 2>&1; echo $?)"

# An error answer is the tool's failure.
echo '{"c0": {"error": "no such user"}}' >"$ex/err_r.json"
out="$(step resume "$ex/two.1" --results "$ex/err_r.json" --snapshot "$ex/err.out")"
contains "error answer: tool_error" '{"status":"done","ok":false,"error":{"reason":"tool_error","message":"tool/get-user failed: no such user"' "$out"
contains "error answer: exit code 1" "rc=1" "$out"
check "error answer: no snapshot" "no" "$([ -e "$ex/err.out" ] && echo yes || echo no)"

# Answers to ids that are not pending, and malformed answers: exit 2, nothing written.
echo '{"c7": {"value": 1}}' >"$ex/bad_id.json"
check "unknown id: exit 2, nothing on stdout" "rc=2" "$(step resume "$ex/two.1" --results "$ex/bad_id.json" --snapshot "$ex/bad.out")"
contains "unknown id: args_error" "error: args_error" "$(cat "$ex/err")"
contains "unknown id: the hint names the pending calls" "hint: answer only the pending calls: c0" "$(cat "$ex/err")"
check "answered before: exit 2" "rc=2" "$(step resume "$ex/two.2" --results "$ex/two_r1.json" --snapshot "$ex/bad.out")"
for answers in '{"c0": 5}' '{"c0": {"value": 1, "error": "x"}}' '{"c0": {"error": 3}}' '{}' '[1]' '{"c0":'; do
  echo "$answers" >"$ex/malformed.json"
  check "malformed results $answers: exit 2" "rc=2" "$(step resume "$ex/two.1" --results "$ex/malformed.json" --snapshot "$ex/bad.out")"
  contains "malformed results $answers: args_error with the shape" 'hint: RESULTS.json is {"<call id>": {"value": JSON} or {"error": "message"}' "$(cat "$ex/err")"
done
check "bad answers write no snapshot" "no" "$([ -e "$ex/bad.out" ] && echo yes || echo no)"

# Snapshots that cannot be used: exit 2, snapshot_error or snapshot_divergence.
head -c 60 "$ex/two.1" >"$ex/truncated.snap"
check "truncated snapshot: exit 2" "rc=2" "$(step resume "$ex/truncated.snap" --results "$ex/two_r1.json" --snapshot "$ex/bad.out")"
contains "truncated snapshot: snapshot_error" "error: snapshot_error: " "$(cat "$ex/err")"
echo 'not a snapshot' >"$ex/garbage.snap"
check "corrupt snapshot: exit 2" "rc=2" "$(step resume "$ex/garbage.snap" --results "$ex/two_r1.json" --snapshot "$ex/bad.out")"
contains "corrupt snapshot: snapshot_error" "error: snapshot_error: " "$(cat "$ex/err")"
contains "snapshot_error hint" "hint: give the whole file that ptc start or ptc resume wrote" "$(cat "$ex/err")"
check "missing snapshot: exit 2" "rc=2" "$(step resume "$ex/missing.snap" --results "$ex/two_r1.json" --snapshot "$ex/bad.out")"
contains "missing snapshot: snapshot_error" "error: snapshot_error: cannot read" "$(cat "$ex/err")"
LC_ALL=C sed 's/{:id 1}/{:id 9}/' "$ex/two.2" >"$ex/changed.snap"  # the answered call's arguments
check "changed program: exit 2" "rc=2" "$(step resume "$ex/changed.snap" --results "$ex/two_r2.json" --snapshot "$ex/bad.out")"
contains "changed program: snapshot_divergence" "error: snapshot_divergence" "$(cat "$ex/err")"
check "unusable snapshots write nothing" "no" "$([ -e "$ex/bad.out" ] && echo yes || echo no)"

# --key-file signs the snapshot; resume checks it.
printf 'key-sekrit-1' >"$ex/key"; printf 'key-other-2' >"$ex/other_key"
check "signed start" '{"status":"suspended","calls":[{"id":"c0","tool":"get-user","args":{"id":1}}]}
rc=0' "$(step start "$ex/two.clj" --defer get-user --snapshot "$ex/signed.1" --key-file "$ex/key")"
out="$(step resume "$ex/signed.1" --results "$ex/two_r1.json" --snapshot "$ex/signed.2" --key-file "$ex/key")"
contains "signed round trip" '"status":"suspended"' "$out"
check "signed round trip: the next snapshot is signed" "rc=2" "$(step resume "$ex/signed.2" --results "$ex/two_r2.json" --snapshot "$ex/bad.out")"
contains "signed round trip: done" '"status":"done","ok":true' "$(step resume "$ex/signed.2" --results "$ex/two_r2.json" --snapshot "$ex/bad.out" --key-file "$ex/key")"
check "wrong key: exit 2" "rc=2" "$(step resume "$ex/signed.1" --results "$ex/two_r1.json" --snapshot "$ex/bad.out" --key-file "$ex/other_key")"
contains "wrong key: snapshot_error" "error: snapshot_error: the snapshot's HMAC does not match" "$(cat "$ex/err")"
case "$(cat "$ex/err")" in *sekrit*|*other-2*) check "the key is never printed" "" "printed" ;; esac
check "a key for an unsigned snapshot: exit 2" "rc=2" "$(step resume "$ex/two.1" --results "$ex/two_r1.json" --snapshot "$ex/bad.out" --key-file "$ex/key")"
check "wrong keys write nothing" "no" "$([ -e "$ex/bad.out" ] && echo yes || echo no)"

# Limits: the snapshot's, unless given again.
echo '[(tool/f {}) (tool/f {:again true})]' >"$ex/limits.clj"
step start "$ex/limits.clj" --defer f --max-tool-calls 1 --snapshot "$ex/limits.snap" >/dev/null
echo '{"c0": {"value": 1}}' >"$ex/limits_r.json"
contains "resume keeps the snapshot's limits" '"reason":"tool_call_limit_exceeded"' \
  "$(step resume "$ex/limits.snap" --results "$ex/limits_r.json" --snapshot "$ex/limits.out")"
check "resume takes limits given again" '{"status":"suspended","calls":[{"id":"c1","tool":"f","args":{"again":true}}]}
rc=0' "$(step resume "$ex/limits.snap" --results "$ex/limits_r.json" --snapshot "$ex/limits.out" --max-tool-calls 2)"

# The context, memory and signature come from the snapshot.
echo '{"ids": [1, 2], "label": "L"}' >"$ex/ctx.json"; echo '{"greeting": "hi"}' >"$ex/mem.json"
echo '{:label data/label :out (mapv #(str greeting " " (:name (tool/get-user {:id %}))) data/ids)}' >"$ex/ctx.clj"
inputs=(--context "$ex/ctx.json" --memory "$ex/mem.json" --signature '{label :string, out [:string]}')
step start "$ex/ctx.clj" "${inputs[@]}" --defer get-user --snapshot "$ex/ctx.snap" >/dev/null
step resume "$ex/ctx.snap" --results "$ex/two_r1.json" --snapshot "$ex/ctx.snap" >/dev/null
run_value="$("$ptc" run "$ex/ctx.clj" "${inputs[@]}" --tools "$ex/users.json")"
check "context, memory and signature carried by the snapshot" \
  "{\"status\":\"done\",\"ok\":true,\"value\":\"$(json_text "$run_value")\",\"prints\":[]}
rc=0" "$(step resume "$ex/ctx.snap" --results "$ex/two_r2.json" --snapshot "$ex/ctx.snap")"

# A program that finishes without suspending: its outcome, and no snapshot.
echo stale >"$ex/plain.snap"
check "start without suspending" '{"status":"done","ok":true,"value":"{:sum 6}","prints":["hi"]}
rc=0' "$(echo '(println "hi") {:sum (+ 1 2 3)}' | step start - --defer get-user --snapshot "$ex/plain.snap")"
check "start without suspending removes OUT" "no" "$([ -e "$ex/plain.snap" ] && echo yes || echo no)"
contains "start: a failing program is exit 1" '{"status":"done","ok":false,"error":{"reason":"arithmetic_error"' \
  "$(echo '(/ 1 0)' | step start - --defer f --snapshot "$ex/plain.snap")"

# Bad command lines: exit 2 with the usage.
check "start without --defer" "rc=2" "$(step start "$ex/two.clj" --snapshot "$ex/bad.out")"
check "start without --snapshot" "rc=2" "$(step start "$ex/two.clj" --defer get-user)"
check "start --json" "rc=2" "$(step start "$ex/two.clj" --defer get-user --snapshot "$ex/bad.out" --json)"
check "resume without --results" "rc=2" "$(step resume "$ex/two.1" --snapshot "$ex/bad.out")"
check "resume --context" "rc=2" "$(step resume "$ex/two.1" --results "$ex/two_r1.json" --snapshot "$ex/bad.out" --context "$tmp/ctx.json")"
contains "resume --context message" "--context comes from the snapshot" "$(cat "$ex/err")"
check "bad command lines write nothing" "no" "$([ -e "$ex/bad.out" ] && echo yes || echo no)"
contains "help start" "usage: ptc start FILE.clj --defer NAMES|all --snapshot OUT" "$("$ptc" help start)"
contains "start --help" "--key-file FILE" "$("$ptc" start --help)"
contains "help resume" "usage: ptc resume SNAPSHOT --results RESULTS.json --snapshot OUT" "$("$ptc" help resume)"
contains "help lists start" "ptc start FILE.clj" "$("$ptc" help)"
contains "help lists resume" "ptc resume SNAPSHOT" "$("$ptc" help)"

if [ "$failures" -ne 0 ]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
