"""The protocol layer from Python, over libptc_protocol (the C API of
include/ptc/ptc_protocol.h): the `lisp_eval` tool an LLM calls (its schema,
a handler that answers a call with its JSON payload, the payload renderers)
and the agent loop that drives a model through turns of lisp_eval calls.

Everything here is rendered and decided by the C++ protocol layer, so a
payload, a schema or an agent run is byte for byte what `ptc lisp-eval`,
`ptc tool-schema` and `ptc agent` give. libptc_protocol is loaded on first
use: `import ptc` works without it, and these functions then raise
ptc.ProtocolUnavailable naming the file.
"""

import asyncio
import ctypes
import inspect
import json
import threading
from collections.abc import Mapping

from . import _Options, _check, _error_text, _from_json, _json, _lib, PreparedContext, Result, Tool

_library = None
_library_lock = threading.Lock()


def _p():
    """libptc_protocol, loaded on first use."""
    global _library
    if _library is None:
        with _library_lock:
            if _library is None:
                _library = _lib.load_protocol()
    return _library


def _text_of(function, *args):
    """Calls a ptc_protocol function whose last two arguments receive a text
    (char** out, size_t* len); the text as str. Raises for a status other
    than OK and PROGRAM_ERROR (an error payload is a text too)."""
    out = ctypes.c_void_p()
    length = ctypes.c_size_t()
    status = function(*args, ctypes.byref(out), ctypes.byref(length))
    try:
        _check(status)
        return ctypes.string_at(out.value, length.value).decode("utf-8", "replace")
    finally:
        if out.value:
            _p().ptc_protocol_free(out.value)


def _name(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value.encode("utf-8")


# ---------------------------------------------------------------- the lisp_eval tool

_FORMS = {"tool": 0, "openai": 1}


def tool_schema(profile="in_process_with_app_tools", form="tool"):
    """The lisp_eval tool as a dict: with form "tool" (the default)
    {"name": "lisp_eval", "description": ..., "inputSchema": {...}} (the MCP
    tool object, what most agent frameworks take); with form "openai" the
    OpenAI function tool {"type": "function", "function": {"name",
    "description", "parameters"}}. The profile says who calls it, which
    decides what the description promises: "in_process_with_app_tools"
    (lisp_eval is the model's one tool; app tools are called inside
    programs), "in_process_text_mode" (beside native app tools) or
    "mcp_no_tools" (no tools inside programs; data comes as the call's
    `context`). ValueError for another profile or form."""
    if form not in _FORMS:
        raise ValueError(f"form must be 'tool' or 'openai', got {form!r}")
    return _from_json(_text_of(_p().ptc_protocol_tool_schema, _name(profile, "profile"),
                               _FORMS[form]))


def _arguments_text(arguments):
    """A call's arguments as JSON text (bytes): a dict is encoded, a str or
    bytes is taken as the JSON the model sent (checked by the handler)."""
    if isinstance(arguments, str):
        return arguments.encode("utf-8")
    if isinstance(arguments, (bytes, bytearray)):
        return bytes(arguments)
    if isinstance(arguments, Mapping):
        return _json(arguments, "arguments", Mapping, "a dict")
    raise TypeError(f"arguments must be a dict or JSON text, got {type(arguments).__name__}")


class _Bridge:
    """Runs what a tool or model callable returns to await on the event loop
    of an async caller (asyncio.run_coroutine_threadsafe), from the thread the
    C++ side calls it on; in sync use (`loop` None) an awaitable is an error.
    Once `cancel`led, waits end at once."""

    def __init__(self, loop=None):
        self.loop = loop
        self.cancelled = False
        self._futures = set()
        self._lock = threading.Lock()

    def settle(self, value, what):
        if not inspect.isawaitable(value):
            return value
        if self.loop is None:
            if inspect.iscoroutine(value):
                value.close()  # never awaited: no warning
            raise TypeError(f"{what} returned an awaitable: use the async entry point "
                            f"(Agent.run_async, LispEvalTool.handler_async)")
        with self._lock:  # not between cancel() and its sweep of the futures
            if self.cancelled:
                if inspect.iscoroutine(value):
                    value.close()
                raise asyncio.CancelledError()
            future = asyncio.run_coroutine_threadsafe(_awaited(value), self.loop)
            self._futures.add(future)
        try:
            return future.result()
        finally:
            with self._lock:
                self._futures.discard(future)

    def cancel(self):
        with self._lock:
            self.cancelled = True
            for future in self._futures:
                future.cancel()

    def tool(self, fn, name):
        what = f"tool {name}"

        def call(args):
            if self.cancelled:
                raise asyncio.CancelledError()
            return self.settle(fn(args), what)

        return call


async def _awaited(awaitable):
    return await awaitable


def _tool_table(tools, what="tools"):
    """{name: Tool-like} from a dict of callables, ptc.Tool or ptc.AgentTool."""
    if tools is None:
        return {}
    if not isinstance(tools, Mapping):
        raise TypeError(f"{what} must be a dict of name -> callable, got {type(tools).__name__}")
    table = {}
    for name, tool in tools.items():
        if not isinstance(name, str):
            raise TypeError(f"tool names must be str, got {type(name).__name__}")
        if isinstance(tool, (Tool, AgentTool)):
            table[name] = tool
        else:
            table[name] = Tool(tool)
    return table


def _options_with_tools(table, bridge, options):
    """_Options(**options) with the tools of `table`, each function called
    through `bridge` (the options keep the C callbacks alive)."""
    tools = {name: Tool(bridge.tool(t.fn, name),
                        cacheable=t.cache if isinstance(t, AgentTool) else t.cacheable)
             for name, t in table.items()}
    return _Options(tools=tools, **options)


def lisp_eval_tool(tools=None, profile="in_process_with_app_tools", context=None,
                   include_memory=False, **options):
    """The lisp_eval tool, ready for an agent framework: returns a
    LispEvalTool with `name`, `description`, `input_schema` (a dict) and
    `handler(arguments)`, which runs the call's program and returns the
    payload for the model as a JSON str, exactly as `ptc lisp-eval --profile
    P` prints it.

    tools: {"get-user": fn} that programs call as (tool/get-user {...}) (as
        for ptc.run: an exception is the program's tool_error); a coroutine
        function works through handler_async. Not with mcp_no_tools.
    profile: see tool_schema.
    context: the data/ names of calls that give no `context` of their own (a
        dict, JSON text or a ptc.PreparedContext).
    include_memory: add the memory block (names a program bound) to success
        payloads.
    options: memory, signature (the result then comes back typed, as
        "validated"), float_precision, display_limit and every limit by name
        (timeout_ms, max_heap_bytes, ...), as for ptc.run.
    Raises TypeError / ValueError for wrong arguments (an unknown profile,
    tools under mcp_no_tools), now rather than at the first call.
    """
    if "defer" in options or "cancel" in options:
        raise TypeError("lisp_eval_tool takes no defer or cancel: each call runs to its end")
    return LispEvalTool(_tool_table(tools), profile, 1 if include_memory else 0,
                        dict(options, context=context))


class LispEvalTool:
    """The lisp_eval tool of ptc.lisp_eval_tool(): give `name`,
    `description` and `input_schema` to an agent framework (or the whole
    OpenAI form, `openai_schema`) and answer its calls with `handler`.
    Thread-safe: calls may run at once on any threads."""

    def __init__(self, table, profile, flags, options):
        self._profile = _name(profile, "profile")
        self._flags = flags
        self._table = table
        self._options = options
        # The options of handler's calls, made once; also checks the profile
        # and the tools against it now (the arguments, none here, are looked
        # at only after those).
        self._opts = _options_with_tools(table, _Bridge(), options)
        try:
            self._answer(self._opts, b"")
            schema = tool_schema(profile)
        except BaseException:
            self._opts.close()
            raise
        self.profile = profile
        self.name = schema["name"]
        self.description = schema["description"]
        self.input_schema = schema["inputSchema"]

    def _answer(self, opts, text):
        return _text_of(_p().ptc_protocol_lisp_eval, opts._handle, self._profile, text,
                        len(text), self._flags)

    @property
    def openai_schema(self):
        """The OpenAI function-tool form of the same tool."""
        return tool_schema(self.profile, form="openai")

    def handler(self, arguments):
        """Answers one call: `arguments` as the model sent them (a dict, or
        the JSON text {"program": "...", "context": {...}}). Runs the program
        and returns the payload to give the model, a JSON str:
        {"status": "ok", "result": "user=> ...", "prints", "feedback",
        "truncated"} or {"status": "error", "reason", "message",
        "feedback"} -- also for arguments that are wrong (args_error): they
        come from the model. A call's `context` replaces the tool's."""
        return self._answer(self._opts, _arguments_text(arguments))

    __call__ = handler

    async def handler_async(self, arguments):
        """handler() on a thread (asyncio.to_thread), so that the event loop
        runs on while the program does; tools that are coroutine functions
        are awaited on this loop, the calls of a pmap at once."""
        text = _arguments_text(arguments)
        bridge = _Bridge(asyncio.get_running_loop())

        def answer():
            opts = _options_with_tools(self._table, bridge, self._options)
            try:
                return self._answer(opts, text)
            finally:
                opts.close()

        try:
            return await asyncio.to_thread(answer)
        except asyncio.CancelledError:
            bridge.cancel()
            raise

    def __repr__(self):
        return f"ptc.LispEvalTool(profile={self.profile!r})"


# ---------------------------------------------------------------- payloads


def _result_handle(result):
    if not isinstance(result, Result):
        raise TypeError(f"result must be a ptc.Result, got {type(result).__name__}")
    if not result._handle:
        raise ValueError("this Result was copied or unpickled: it no longer holds the run "
                         "that rendering needs")
    return result._handle


def render_success(result, include_memory=False, validated=None):
    """The success payload of a successful ptc.Result (of ptc.run,
    Session.eval, ...), as a JSON str: what lisp_eval answers a model with
    for that run, for a host that runs programs itself. include_memory adds
    the memory block (the names the program bound); `validated` (any
    JSON-able value) is shown as the typed result. ValueError for a failed
    result: use render_error(result)."""
    handle = _result_handle(result)
    doc = {"include_memory": bool(include_memory)}
    if validated is not None:
        doc["validated"] = validated
    text = _json(doc, "validated", Mapping, "JSON-able")
    return _text_of(_p().ptc_protocol_render_success, handle, text, len(text))


_REASONS = ("parse_error", "runtime_error", "timeout", "memory_limit", "args_error", "fail",
            "validation_error")


def render_error(reason, message=None, *, feedback=None, result=None):
    """An error payload, as a JSON str. Either of a failed ptc.Result
    (``render_error(r)``: its reason mapped onto the closed set, its message
    with line:column and hint; for (fail v) the printed v), or of the host's
    own: ``render_error(reason, message, feedback=None, result=None)`` with
    reason one of parse_error, runtime_error, timeout, memory_limit,
    args_error, fail, validation_error; `feedback` what the model is told
    (default: the message); `result` for reason fail only, the printed
    value. ValueError for an unknown reason or a successful result."""
    if isinstance(reason, Result):
        if message is not None or feedback is not None or result is not None:
            raise TypeError("render_error(result) takes no other argument")
        return _text_of(_p().ptc_protocol_render_step_error, _result_handle(reason))
    if message is None:
        raise TypeError("render_error(reason, message): the message is missing")
    message_bytes = _name(message, "message")
    doc = {}
    if feedback is not None:
        doc["feedback"] = _name(feedback, "feedback").decode("utf-8")
    if result is not None:
        doc["result"] = result
    text = _json(doc, "result", Mapping, "JSON-able") if doc else b""
    return _text_of(_p().ptc_protocol_render_error, _name(reason, "reason"), message_bytes,
                    len(message_bytes), text or None, len(text))


# ---------------------------------------------------------------- the agent loop


class AgentTool:
    """An app tool of an Agent with its configuration:
    ``tools={"search-logs": ptc.AgentTool(fn, description="...",
    signature="(query :string) -> [:any]", expose="both", cache=True)}``.

    fn(args: dict) returns a JSON-able value (an exception is a tool error);
    in run_async it may be a coroutine function. description and signature
    are shown to the model (the signature also types the native schema);
    expose is "native" (the model calls it as a tool of its own), "ptc_lisp"
    (programs call it as (tool/name ...)) or "both" (default: ptc_lisp with
    output "ptc_lisp", native with output "text"); cache shares results
    between equal calls, across both layers; native_result ({"preview":
    "metadata" | "rows", "limit": n}, needs expose "both" and cache) gives a
    native call a preview while programs get the whole cached result."""

    __slots__ = ("fn", "description", "signature", "expose", "cache", "native_result")

    def __init__(self, fn, description=None, signature=None, expose=None, cache=False,
                 native_result=None):
        if not callable(fn):
            raise TypeError(f"a tool must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.description = description
        self.signature = signature
        self.expose = expose
        self.cache = bool(cache)
        self.native_result = native_result

    def spec(self):
        """Its entry in the agent's "tools" (everything but the function)."""
        out = {}
        for key in ("description", "signature", "expose", "native_result"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.cache:
            out["cache"] = True
        return out


class AgentResult:
    """The outcome of Agent.run: `ok`; `value`, the answer (a program's
    (return v) as Python data, or the model's text with output "text");
    `fail_reason` and `fail_message` when not ok (max_turns_exceeded,
    llm_error, failed, budget_exhausted, mission_timeout, ...); `messages`,
    the whole conversation in the OpenAI chat format (the system prompt
    first); `turns`, one record per turn ({number, type, program, result,
    prints, tool_calls, success}); `memory`, the names programs bound;
    `tokens` summed over the turns that reported them; `fallback_used`;
    `native_tool_calls`; `telemetry`, the run's events; with a `model`:
    `usage` ({calls, retries, input, output, cached, per_call, cost}), and
    for an llm_error `fail_kind` (timeout, rate_limited, auth_failed,
    bad_request, context_too_long, server_error, malformed_response,
    tool_calling_unsupported, replay_miss) and `retryable`; `doc`, all of it
    as the dict `ptc agent` prints (without its tool_executions)."""

    __slots__ = ("ok", "value", "fail_reason", "fail_message", "fail_kind", "retryable",
                 "messages", "turns", "memory", "tokens", "fallback_used", "native_tool_calls",
                 "telemetry", "usage", "doc")

    def __init__(self, doc):
        self.doc = doc
        self.ok = doc["ok"]
        self.value = doc["return"]
        fail = doc["fail"] or {}
        self.fail_reason = fail.get("reason")
        self.fail_message = fail.get("message")
        self.fail_kind = fail.get("kind")
        self.retryable = fail.get("retryable", False)
        self.messages = doc["messages"]
        self.turns = doc["turn_records"]
        self.memory = doc["memory"]
        self.tokens = doc["tokens"]
        self.fallback_used = doc["fallback_used"]
        self.native_tool_calls = doc["native_tool_calls"]
        self.telemetry = doc["telemetry"]
        self.usage = doc.get("usage")

    def __repr__(self):
        if self.ok:
            return f"ptc.AgentResult(ok, {self.value!r}, turns={len(self.turns)})"
        return f"ptc.AgentResult({self.fail_reason}: {self.fail_message!r})"


def _assistant_json(answer):
    """The JSON text (bytes) of a model's answer: a dict (an assistant
    message in the OpenAI chat format, or {"error": ...}), a str (its
    content), or an object with model_dump() (the OpenAI SDK's message)."""
    if isinstance(answer, str):
        answer = {"role": "assistant", "content": answer}
    elif hasattr(answer, "model_dump") and not isinstance(answer, Mapping):
        answer = answer.model_dump(exclude_none=True)
    if not isinstance(answer, Mapping):
        raise TypeError(f"the llm must return an assistant message (a dict or a str), got "
                        f"{type(answer).__name__}")
    try:
        return json.dumps(dict(answer), ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise TypeError(f"the llm's answer is not JSON-able: {e}") from None


def _llm_callback(llm, bridge):
    """The C callback of the agent's model: the request as a dict in, the
    answer out; whatever it raises ends the run with llm_error."""

    def call(user, request_json, request_len, reply):
        p = _p()
        try:
            request = _from_json(ctypes.string_at(request_json, request_len).decode("utf-8"))
            text = _assistant_json(bridge.settle(llm(request), "the llm"))
            p.ptc_protocol_llm_reply_set_json(reply, text, len(text))
        except BaseException as e:  # noqa: B036 - nothing may unwind into C
            message = (_error_text(e) if not isinstance(e, asyncio.CancelledError)
                       else "cancelled").encode("utf-8", "replace")
            p.ptc_protocol_llm_reply_set_error(reply, message, len(message))

    return _lib.LLM_FN(call)


_OUTPUTS = ("ptc_lisp", "text")


class Agent:
    """The agent loop over a model: a provider it calls itself (`model=`,
    as `ptc agent --model`) or one you bring (`llm(request) -> answer`,
    called once per turn).

    model: "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5" or
        "openai-compat:NAME" (with model_options={"base_url": ...}); the key
        comes from OPENAI_API_KEY / ANTHROPIC_API_KEY, or
        model_options={"api_key_env": NAME} / {"api_key_file": PATH}.
    model_options: {"base_url", "api_key_env", "api_key_file", "temperature",
        "max_tokens", "seed", "request_timeout_ms", "retries", "price_in",
        "price_out", "record", "replay", "ca_file", "max_response_bytes"}
        (see `ptc agent --help`).

    With llm: the request is a dict {"system": the system
    prompt, "messages": the conversation in the OpenAI chat format, "tools":
    the OpenAI function schemas to offer, "turn", "output"}; the answer is
    the model's assistant message as a dict ({"content": ..., "tool_calls":
    [...]}, optionally "tokens": {"input", "output", ...}), a str (content
    only), or the OpenAI SDK's message object. What it raises ends the run
    with llm_error. Runs are exactly those of `ptc agent --script` with the
    same options (one C++ loop, protocol/agent/agent.hpp).

    tools: {"name": fn | ptc.Tool | ptc.AgentTool}.
    prompt: the mission (the first user message); run(prompt) may give it.
    output: "ptc_lisp" (the answer is a program's (return v), checked against
        `signature`, or a direct answer of that shape) or "text" (combined
        mode: tools exposed natively beside lisp_eval, the model's final text
        is the answer).
    transport: "tool_call" (programs come as lisp_eval calls; the default) or
        "content" (output "ptc_lisp" only: no native tools, the model writes
        each program as one ```clojure block in its reply and gets the
        outcome as the next user message; (return v) / (fail v) end the run).
    signature ("{total :int}"), system_prompt (your instructions, first in
    the system prompt), max_turns (5), retry_turns (0), max_tool_calls,
    context (a dict: every program's data/), memory (names bound before the
    first program), memory_limit (bytes), memory_strategy ("strict" |
    "rollback"), mission_timeout_ms, and the limits of each program by name
    (timeout_ms, max_heap_bytes, ...).
    Raises TypeError / ValueError at once for options that cannot work.
    """

    def __init__(self, llm=None, tools=None, *, model=None, model_options=None, prompt=None,
                 output="ptc_lisp", transport="tool_call", signature=None, system_prompt=None,
                 max_turns=None, retry_turns=None, max_tool_calls=None, context=None,
                 memory=None, memory_limit=None, memory_strategy=None, mission_timeout_ms=None,
                 **limits):
        if (llm is None) == (model is None):
            raise TypeError("give an Agent either llm (a callable) or model (e.g. "
                            "\"openai:gpt-4.1-mini\"), not both")
        if llm is not None and not callable(llm):
            raise TypeError(f"llm must be callable, got {type(llm).__name__}")
        if model is not None and not isinstance(model, str):
            raise TypeError(f"model must be a str such as 'openai:gpt-4.1-mini', got "
                            f"{type(model).__name__}")
        if model_options is not None and not isinstance(model_options, Mapping):
            raise TypeError(f"model_options must be a dict, got {type(model_options).__name__}")
        if model_options is not None and model is None:
            raise TypeError("model_options need a model")
        if "defer" in limits:
            raise TypeError("an Agent's tools are called, not deferred: it takes no defer")
        if output not in _OUTPUTS:
            raise ValueError(f"output must be 'ptc_lisp' or 'text', got {output!r}")
        if isinstance(context, PreparedContext):
            raise TypeError("an Agent's context is a dict (its data/ names are shown to the "
                            "model), not a PreparedContext")
        if context is not None and not isinstance(context, Mapping):
            raise TypeError(f"context must be a dict, got {type(context).__name__}")
        self._llm = llm
        self._tools = _tool_table(tools)
        self._limits = dict(limits, memory=memory)
        spec = {"output": output, "transport": transport, "prompt": prompt,
                "signature": signature, "system_prompt": system_prompt,
                "max_turns": max_turns, "retry_turns": retry_turns,
                "max_tool_calls": max_tool_calls, "context": context,
                "memory_limit": memory_limit, "memory_strategy": memory_strategy,
                "mission_timeout_ms": mission_timeout_ms}
        for key in ("prompt", "signature", "system_prompt", "transport"):
            if spec[key] is not None:
                _name(spec[key], key)
        for key in ("max_turns", "retry_turns", "max_tool_calls", "memory_limit",
                    "mission_timeout_ms"):
            value = spec[key]
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{key} must be an int, got {type(value).__name__}")
        spec = {key: value for key, value in spec.items() if value is not None}
        if model is not None:
            spec["model"] = dict(model_options or {}, spec=model)
        spec["tools"] = {name: (t.spec() if isinstance(t, AgentTool)
                                else {"cache": True} if t.cacheable else {})
                         for name, t in self._tools.items()}
        self._spec = spec
        self._described = self._describe()

    def _options(self, bridge):
        return _options_with_tools(self._tools, bridge, self._limits)

    def _agent_json(self, prompt):
        spec = self._spec
        if prompt is not None:
            _name(prompt, "prompt")
            spec = dict(spec, prompt=prompt)
        return _json(spec, "the agent's options", Mapping, "a dict")

    def _describe(self):
        text = self._agent_json(None)
        opts = self._options(_Bridge())
        try:
            return _from_json(_text_of(_p().ptc_protocol_agent_describe, text, len(text),
                                       opts._handle))
        finally:
            opts.close()

    @property
    def system_prompt(self):
        """The system prompt the model gets (the reference card, the tools)."""
        return self._described["system"]

    @property
    def request_tools(self):
        """The tool schemas offered to the model natively (OpenAI form)."""
        return self._described["tools"]

    def _run(self, prompt, bridge):
        text = self._agent_json(prompt)
        opts = self._options(bridge)
        # With a model the library calls the provider itself: a NULL callback.
        callback = _llm_callback(self._llm, bridge) if self._llm is not None else _lib.LLM_FN()
        try:
            return AgentResult(_from_json(_text_of(_p().ptc_protocol_agent_run, text, len(text),
                                                   opts._handle, callback, None)))
        finally:
            opts.close()

    def run(self, prompt=None):
        """Runs the loop to its end on this thread and returns an
        AgentResult (a run that finds no answer is not an exception: see
        `ok`). `prompt` replaces the Agent's. The llm and the tools must be
        plain callables here (see run_async)."""
        return self._run(prompt, _Bridge())

    async def run_async(self, prompt=None):
        """run() without blocking the event loop: the loop runs on a thread
        (asyncio.to_thread), and an llm or tool that is a coroutine function
        is awaited on this event loop (so several agents share it:
        asyncio.gather(a.run_async(), b.run_async())). Cancelling the task
        ends the run at its next model or tool call."""
        bridge = _Bridge(asyncio.get_running_loop())
        try:
            return await asyncio.to_thread(self._run, prompt, bridge)
        except asyncio.CancelledError:
            bridge.cancel()
            raise

    def __repr__(self):
        return (f"ptc.Agent(output={self._spec['output']!r}, "
                f"tools={list(self._tools)!r})")
