#!/usr/bin/env bash
# End-to-end checks of `ptc agent --script`: the seed transcript of combined
# mode, the tool-call and content transports, and bad scripts. Usage: agent_cli_test.sh PATH/TO/ptc
set -u
ptc="$1"
here="$(cd "$(dirname "$0")" && pwd)"
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
    *) echo "FAIL $1: '$2' not in: ${3:0:2000}"; failures=$((failures + 1)) ;;
  esac
}
lacks() {  # lacks NAME NEEDLE HAYSTACK
  case "$3" in
    *"$2"*) echo "FAIL $1: '$2' unexpectedly in the output"; failures=$((failures + 1)) ;;
  esac
}

# Seed 003: the native call gets a metadata preview of 1842 rows and no row
# values; lisp_eval reuses the cached rows (search_logs ran once); the
# program's result is {:total 1842}; the model's next text is the answer.
out="$("$ptc" agent --script "$here/agent/combined_cache_bridge.json")"; rc=$?
check "combined: exit code" "0" "$rc"
contains "combined: ok" '"ok":true' "$out"
contains "combined: answer" '"return":"There were 1842 errors with code 42 in the queried window."' "$out"
contains "combined: search_logs ran once" '"tool_executions":{"search_logs":1}' "$out"
contains "combined: metadata preview" '\"result_count\":1842' "$out"
contains "combined: cached" '\"full_result_cached\":true' "$out"
lacks "combined: no row values in the preview" '\"rows\":[' "$out"
contains "combined: program result" 'user=> {:total 1842}' "$out"
contains "combined: telemetry layer" '"exposure_layer":"ptc_lisp"' "$out"
contains "combined: three turns" '"turns":3' "$out"

out="$("$ptc" agent --script "$here/agent/tool_call_return.json")"; rc=$?
check "tool call: exit code" "0" "$rc"
contains "tool call: the returned value" '"return":{"total":42}' "$out"
contains "tool call: memory kept" '"memory":{"totals":[10,32]}' "$out"

# Content mode: the program comes as a fenced block in the reply, the request
# offers no tools, and the outcome comes back as the next user message.
out="$("$ptc" agent --script "$here/agent/content_return.json")"; rc=$?
check "content: exit code" "0" "$rc"
contains "content: the returned value" '"return":{"total":42}' "$out"
contains "content: memory kept" '"memory":{"totals":[10,32]}' "$out"
contains "content: program record" '"program":"(def totals (map :total data/orders))"' "$out"
contains "content: reasoning before the block is dropped" '{"content":"```clojure\n(def totals (map :total data/orders))\n```","role":"assistant"}' "$out"
contains "content: feedback as a user message" ';; totals = [10 32]' "$out"
lacks "content: no tool messages" '"role":"tool"' "$out"
contains "content: two turns" '"turns":2' "$out"
echo '{"agent": {"output": "text", "transport": "content"}, "prompt": "x", "llm": []}' >"$tmp/text_content.json"
err="$("$ptc" agent --script "$tmp/text_content.json" 2>&1 >/dev/null)"; rc=$?
check "text + content: exit code" "2" "$rc"
contains "text + content: message" "use transport tool_call for combined mode, or leave transport out" "$err"

# A run that fails: the script runs out of responses (llm_error), exit 1.
cat >"$tmp/short.json" <<'JSON'
{"prompt": "x", "llm": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "lisp_eval", "arguments": "{\"program\": \"(+ 1 2)\"}"}}]}]}
JSON
out="$("$ptc" agent --script "$tmp/short.json")"; rc=$?
check "out of responses: exit code" "1" "$rc"
contains "out of responses: llm_error" '"fail":{"message":"LLM call failed: the script has no response left for turn 2 (it has 1)","reason":"llm_error"}' "$out"

# Malformed tool-call JSON from the model is answered (args_error), not fatal.
cat >"$tmp/garbled.json" <<'JSON'
{"prompt": "x", "llm": [
  {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "lisp_eval", "arguments": "{\"program\": "}}]},
  {"role": "assistant", "tool_calls": [{"function": {"name": "lisp_eval", "arguments": "[1]"}}]},
  {"role": "assistant", "content": "fine"}]}
JSON
out="$("$ptc" agent --script "$tmp/garbled.json")"; rc=$?
check "garbled arguments: exit code" "0" "$rc"
contains "garbled arguments: args_error" '\"reason\":\"args_error\"' "$out"
contains "missing id: one is given" '"tool_call_id":"call_1"' "$out"

# Bad scripts: exit 2 with what and where.
"$ptc" agent >/dev/null 2>&1; check "no script: exit code" "2" "$?"
echo '{"llm": [{"role": "assistant", "tool_calls": {}}]}' >"$tmp/bad.json"
err="$("$ptc" agent --script "$tmp/bad.json" 2>&1 >/dev/null)"; rc=$?
check "bad llm entry: exit code" "2" "$rc"
contains "bad llm entry: where" "llm[0]: tool_calls: expected an array" "$err"
echo '{"agent": {"tools": {"lisp_eval": {}}}, "llm": []}' >"$tmp/reserved.json"
err="$("$ptc" agent --script "$tmp/reserved.json" 2>&1 >/dev/null)"; rc=$?
check "reserved tool name: exit code" "2" "$rc"
contains "reserved tool name: message" "lisp_eval" "$err"
echo 'not json' >"$tmp/notjson.json"
err="$("$ptc" agent --script "$tmp/notjson.json" 2>&1 >/dev/null)"; rc=$?
check "not json: exit code" "2" "$rc"
contains "not json: position" "at 1:" "$err"
contains "help" "--script FILE.json" "$("$ptc" agent --help)"

if [ "$failures" -ne 0 ]; then
  echo "$failures agent CLI check(s) failed"
  exit 1
fi
echo "agent CLI checks passed"
