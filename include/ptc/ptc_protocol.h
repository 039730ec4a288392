/* The C API of ptc-lisp's protocol layer (libptc_protocol.so): the
 * `lisp_eval` tool that an LLM calls (its schema, one call answered as its
 * JSON payload, the payload renderers) and the agent loop that drives a
 * model through turns of lisp_eval calls. It sits above the engine's C API
 * (ptc.h, libptc.so, which it links) and uses its handles, status codes and
 * per-thread last error: read failures with ptc_last_error() /
 * ptc_last_status(), as for ptc.h. Every entry point catches everything: no
 * C++ exception crosses it.
 *
 * JSON in and out, UTF-8. Text in is (pointer, length) with PTC_NTS for
 * NUL-terminated, as in ptc.h; names and profiles are NUL-terminated. Text
 * out is a new NUL-terminated buffer the caller owns and frees with
 * ptc_protocol_free (its length, without the NUL, in *len when len is not
 * NULL); on failure *out is NULL. Payloads and schemas are compact JSON with
 * keys sorted at every depth, byte for byte what `ptc lisp-eval`, `ptc
 * tool-schema` and the MCP server give.
 *
 * Profiles (who calls lisp_eval, which decides what its description
 * promises): "in_process_with_app_tools" (the default for NULL: lisp_eval
 * is the model's one native tool, app tools are called inside programs),
 * "in_process_text_mode" (beside native app tools), "mcp_no_tools" (no
 * tools inside programs; data comes as the call's `context`). Another name
 * is PTC_INVALID_ARGUMENT.
 */
#ifndef PTC_PTC_PROTOCOL_H
#define PTC_PTC_PROTOCOL_H

#include <stddef.h>

#include "ptc/ptc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frees text this library handed out; NULL does nothing. */
PTC_API void ptc_protocol_free(char* text);

/* ---------------------------------------------------------------- the lisp_eval tool */

typedef enum ptc_protocol_schema_form {
  /* {"name":"lisp_eval","description":...,"inputSchema":{...}}: the tool as
   * an MCP server lists it, and what most agent frameworks take. */
  PTC_PROTOCOL_SCHEMA_TOOL = 0,
  /* {"type":"function","function":{"name","description","parameters"}}:
   * the OpenAI function-tool form. */
  PTC_PROTOCOL_SCHEMA_OPENAI = 1
} ptc_protocol_schema_form;

/* The lisp_eval tool of a profile (NULL: in_process_with_app_tools) in one
 * of the forms above, as `ptc tool-schema [--mcp] --profile P` prints it.
 * PTC_INVALID_ARGUMENT for an unknown profile or form. */
PTC_API ptc_status ptc_protocol_tool_schema(const char* profile, int form, char** out, size_t* len);

/* Include the memory block (names the program bound, against the options'
 * memory) in a success payload, as a turn of a conversation does. */
#define PTC_PROTOCOL_INCLUDE_MEMORY 1

/* Answers one lisp_eval call: `arguments` is the call's arguments as the
 * model sent them, JSON text of an object {"program": "...", "context":
 * {...}} (other keys are ignored). Runs the program with `options` (NULL:
 * the defaults; their tools, limits, memory, signature, context -- which the
 * call's `context` replaces when it gives one), the run tagged for the
 * profile, and hands back the payload for the model, exactly as `ptc
 * lisp-eval --profile P` prints it:
 *   {"feedback":"","prints":[],"result":"user=> 3","status":"ok","truncated":false}
 *   {"feedback":"...","message":"...","reason":"runtime_error","status":"error"}
 * Arguments that are malformed JSON, not an object, or with a missing, blank
 * or non-string program or a bad context give an args_error payload: they
 * come from a model, not from the host. With a signature in the options, a
 * success payload carries the typed value as "validated". `flags`: 0 or
 * PTC_PROTOCOL_INCLUDE_MEMORY.
 * PTC_OK with a success payload in *payload, PTC_PROGRAM_ERROR with an error
 * payload; PTC_INVALID_ARGUMENT (no payload) for NULL arguments or payload,
 * an unknown profile or flag, or options with tools under mcp_no_tools. May
 * be called from many threads at once with the same options. */
PTC_API ptc_status ptc_protocol_lisp_eval(const ptc_options* options, const char* profile,
                                          const char* arguments, size_t arguments_len, int flags,
                                          char** payload, size_t* payload_len);

/* The success payload of a successful result (ptc_run, ptc_session_eval,
 * ...), for a host that runs programs itself. `options_json` (may be NULL:
 * {}) is an object: "include_memory" (bool, default false: the memory
 * block, against no prior memory) and "validated" (any JSON: shown as the
 * typed value). PTC_INVALID_ARGUMENT for a failed result (see
 * ptc_protocol_render_step_error) or bad options. */
PTC_API ptc_status ptc_protocol_render_success(const ptc_result* result, const char* options_json,
                                               size_t options_len, char** out, size_t* len);

/* The error payload of a failed result: reason parse_error, runtime_error,
 * timeout, memory_limit, args_error, fail or validation_error (the
 * engine's error kinds mapped onto that closed set), the error's
 * description as message; for (fail v) the printed v as message and its
 * preview as result. PTC_INVALID_ARGUMENT for a successful result. */
PTC_API ptc_status ptc_protocol_render_step_error(const ptc_result* result, char** out,
                                                  size_t* len);

/* An error payload of the host's own: `reason` one of parse_error,
 * runtime_error, timeout, memory_limit, args_error, fail,
 * validation_error; `message` (UTF-8, `message_len` bytes or PTC_NTS);
 * `options_json` (may be NULL) an object with "feedback" (a string: what
 * the model is told, default the message) and "result" (for reason fail
 * only: the printed value; a non-string is shown in Clojure syntax).
 * PTC_INVALID_ARGUMENT for an unknown reason or bad options. */
PTC_API ptc_status ptc_protocol_render_error(const char* reason, const char* message,
                                             size_t message_len, const char* options_json,
                                             size_t options_len, char** out, size_t* len);

/* ---------------------------------------------------------------- the agent loop */

/* The answer of the model for one turn, filled in by the callback. */
typedef struct ptc_protocol_llm_reply ptc_protocol_llm_reply;

/* The host's model. `request_json` (NUL-terminated, `request_len` bytes) is
 * what the agent asks for this turn:
 *   {"system": "<system prompt>",
 *    "messages": [<the conversation in the OpenAI chat format: user,
 *                  assistant (with tool_calls), tool (with tool_call_id)>],
 *    "tools": [<OpenAI function-tool schemas offered natively>],
 *    "turn": 1, "output": "ptc_lisp" | "text"}
 * The callback sends it to a provider and answers through `reply` with
 * ptc_protocol_llm_reply_set_json or _set_error; neither ends the run with
 * llm_error. Called on the thread running ptc_protocol_agent_run, one turn
 * at a time. `request_json` and `reply` are valid only during the call. A
 * callback must not unwind through the library. */
typedef void (*ptc_protocol_llm_fn)(void* user, const char* request_json, size_t request_len,
                                    ptc_protocol_llm_reply* reply);

/* The model's answer: JSON of its assistant message in the OpenAI chat
 * format, {"role": "assistant", "content": "..." | null, "tool_calls":
 * [{"id", "type": "function", "function": {"name", "arguments": "<JSON
 * text>" or an object}}]} (role may be left out), optionally with "tokens":
 * {"input", "output", "cache_creation", "cache_read"} (summed into the
 * result); or {"error": "why"} for a call that failed. Malformed JSON or a
 * malformed message: PTC_INVALID_ARGUMENT, and the turn fails as llm_error
 * with that message. Replaces an earlier answer. */
PTC_API ptc_status ptc_protocol_llm_reply_set_json(ptc_protocol_llm_reply* reply, const char* json,
                                                   size_t len);
/* The model call failed: the run ends with llm_error and this message. */
PTC_API ptc_status ptc_protocol_llm_reply_set_error(ptc_protocol_llm_reply* reply,
                                                    const char* message, size_t len);

/* Runs the agent loop (protocol/agent/agent.hpp) to its end, exactly as `ptc
 * agent --script` runs a script whose "agent" object is `agent_json` and
 * whose model is `llm`. `agent_json` is an object:
 *   "prompt"            the mission (the first user message)
 *   "output"            "ptc_lisp" (default: the answer is a program's
 *                       (return v) or a direct answer) or "text" (combined
 *                       mode: native app tools beside lisp_eval, the answer
 *                       is the model's final text)
 *   "transport"         "tool_call" (default) | "content" (output ptc_lisp only: the
 *                       program in a fenced block of the reply, no native tools)
 *   "signature"         the answer's shape, e.g. "{total :int}"
 *   "system_prompt"     the host's own instructions, put first
 *   "max_turns" (5), "retry_turns" (0), "max_tool_calls" (unlimited),
 *   "memory_limit" (bytes, 1 MiB; 0 = none), "memory_strategy" ("strict" |
 *   "rollback"), "mission_timeout_ms"
 *   "context"           an object: every program's data/ names
 *   "tools"             {name: {"description", "signature", "expose"
 *                       ("native" | "ptc_lisp" | "both"), "cache" (bool),
 *                       "native_result" ({"preview": "metadata" | "rows",
 *                       "limit"})}}
 *   "model"             the agent calls a model provider itself (then `llm`
 *                       must be NULL): "openai:MODEL" | "anthropic:MODEL" |
 *                       "openai-compat:MODEL", or an object {"spec": that,
 *                       "base_url", "api_key_env", "api_key_file",
 *                       "temperature", "max_tokens", "seed",
 *                       "request_timeout_ms", "retries", "price_in",
 *                       "price_out" (USD per million tokens), "record",
 *                       "replay" (JSONL files), "ca_file",
 *                       "max_response_bytes"}, as `ptc agent --model`'s
 *                       flags; the key comes from the environment
 *                       (OPENAI_API_KEY, ANTHROPIC_API_KEY) or the named
 *                       variable or file, never from this JSON
 * `options` (may be NULL) give the tools' functions (ptc_options_add_tool;
 * every tool the options hold is an app tool, configured by its entry in
 * "tools" when it has one: an entry without a function in the options is
 * an invalid argument), the limits of every program, the memory before the
 * first program and the context (JSON, when "context" is not given; a
 * prepared context is not supported). Deferred tools and the options'
 * signature and history are not used.
 * On PTC_OK *result_json is the outcome, whether or not the agent found an
 * answer:
 *   {"ok": bool, "return": <the answer, null when it failed>,
 *    "fail": null | {"reason": "max_turns_exceeded" | "llm_error" | "failed"
 *                    | ..., "message": "..."},
 *    "messages": [<the conversation, system prompt first>],
 *    "turns": n, "turn_records": [{"number", "type", "program", "result",
 *                                  "prints", "tool_calls", "success"}],
 *    "memory": {...}, "fallback_used": bool, "native_tool_calls": n,
 *    "tokens": {"input", "output", "cache_creation", "cache_read"},
 *    "telemetry": [{"event": "run_start" | "llm_call" | "tool_call" |
 *                   "run_stop", "turn", ...}],
 *    with "model": "usage": {"calls", "retries", "input", "output", "cached",
 *                            "per_call": [...], "cost" (when priced)}}
 * A failed model call ends the run with reason "llm_error"; with "model",
 * "fail" also says which failure ("kind": "timeout" | "rate_limited" |
 * "auth_failed" | "bad_request" | "context_too_long" | "server_error" |
 * "malformed_response" | "tool_calling_unsupported" | "replay_miss") and
 * whether it is "retryable".
 * PTC_INVALID_ARGUMENT (nothing run) for NULL agent_json or result_json,
 * NULL llm without "model" (or both), a "model" that cannot work (an
 * unknown provider, no key, a bad base URL), JSON that is not an object,
 * a field of the wrong type or value (the message names it:
 * "agent.output: ..."), or a configuration the agent refuses (a tool named
 * lisp_eval, a bad signature, max_turns < 1). */
PTC_API ptc_status ptc_protocol_agent_run(const char* agent_json, size_t agent_len,
                                          const ptc_options* options, ptc_protocol_llm_fn llm,
                                          void* llm_user, char** result_json, size_t* result_len);

/* Checks an agent as ptc_protocol_agent_run would, without running it, and
 * hands back what its model gets on the first turn: {"system": "<system
 * prompt>", "tools": [<the tool schemas offered natively>]}. */
PTC_API ptc_status ptc_protocol_agent_describe(const char* agent_json, size_t agent_len,
                                               const ptc_options* options, char** out, size_t* len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTC_PTC_PROTOCOL_H */
