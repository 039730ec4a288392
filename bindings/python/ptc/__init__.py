"""ptc-lisp from Python: run PTC-Lisp programs (a sandboxed Clojure subset)
with a context, memory, tools and limits.

    >>> import ptc
    >>> r = ptc.run("(mapv :name (filter :active data/users))",
    ...             context={"users": [{"name": "Ada", "active": True}]})
    >>> r.ok, r.value
    (True, ['Ada'])

A program that fails does not raise: the Result says why (``r.ok`` is False,
``r.error`` has reason, message, hint, line and column). Bad arguments raise
TypeError or ValueError. Built with ctypes over the C API of libptc
(include/ptc/ptc.h); calls release the GIL, so threads run programs at once.
See README.md for how the library is found.

Programs can also wait for their host: ``ptc.start(program, defer=[...])``
runs until every live part of the program waits on a deferred tool and
returns an Execution to ``resume`` with the answers (now, later, from another
thread, or from another process after ``dump``/``ptc.load``);
``await ptc.run_async(program, tools=...)`` answers them with asyncio.

Isolated runs: ``ptc.run(program, isolate=True)`` (or a Session, or
Program.run) runs the program in a jailed worker process of a
``ptc.WorkerPool`` (seccomp, rlimits, namespaces; ``isolate=True`` is a pool
shared by the process, made on first use); the tools are still called here.

The protocol layer (libptc_protocol, loaded on first use): the `lisp_eval`
tool for an LLM (``ptc.tool_schema()``, ``ptc.lisp_eval_tool(tools=...)``
whose handler answers a call with its JSON payload, ``ptc.render_success``,
``ptc.render_error``) and the agent loop over a model you bring
(``ptc.Agent(llm=..., tools=...).run()``).
"""

import asyncio
import collections
import contextlib
import ctypes
import functools
import inspect
import json
import json.scanner
import os
import threading
from collections.abc import Mapping

from . import _lib

__all__ = [
    "run", "compile", "prepare_context", "Session", "Program", "PreparedContext",
    "CancelToken", "Tool", "Result", "Error", "CompileError", "PtcInternalError",
    "WorkerPool", "PtcUnavailable",
    "start", "load", "run_async", "Execution", "PendingCall", "ToolError", "Approve", "Reject",
    "__version__",
    "tool_schema", "lisp_eval_tool", "LispEvalTool", "render_success", "render_error",
    "Agent", "AgentTool", "AgentResult", "ProtocolUnavailable",
]

_c = _lib.load()
# The same library through ctypes.PyDLL, for the calls that read a result:
# they hold the GIL, which is cheaper than releasing it for so short a call
# and makes a Result shared by threads safe (a ptc_result builds its texts on
# first request).
_py = _lib.holding_gil(_c)
__version__ = _c.ptc_version().decode()


class PtcInternalError(RuntimeError):
    """A bug in ptc-lisp (the C API reported PTC_INTERNAL)."""


class PtcUnavailable(OSError):
    """Something ptc-lisp needs from the system is missing or did not start
    (the C API reported PTC_UNAVAILABLE): a WorkerPool found no ptc-worker
    executable, or it could not start. The message says how to fix it."""


def _last_error():
    pointer = _c.ptc_last_error()
    return ctypes.string_at(pointer).decode("utf-8", "replace") if pointer else ""


def _check(status):
    """Raises for a status that is neither OK nor PROGRAM_ERROR."""
    if status in (_lib.OK, _lib.PROGRAM_ERROR):
        return status
    message = _last_error()
    if status == _lib.INVALID_ARGUMENT:
        raise ValueError(message)
    if status == _lib.OUT_OF_MEMORY:
        raise MemoryError(message)
    if status == _lib.UNAVAILABLE:
        raise PtcUnavailable(message)
    raise PtcInternalError(f"{_c.ptc_status_name(status).decode()}: {message}")


def _text_out(pointer, length):
    return ctypes.string_at(pointer, length.value).decode("utf-8", "replace")


def _source(program, what="program"):
    if isinstance(program, str):
        return program.encode("utf-8")
    if isinstance(program, (bytes, bytearray)):
        return bytes(program)
    raise TypeError(f"{what} must be a str, got {type(program).__name__}")


def _json(value, what, kinds, kind_name):
    """JSON text (bytes) of an argument: a str is taken as JSON text already;
    otherwise it must be one of `kinds` and JSON-able."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if not isinstance(value, kinds):
        raise TypeError(f"{what} must be {kind_name} (or JSON text), got {type(value).__name__}")
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except TypeError as e:
        raise TypeError(f"{what} is not JSON-able: {e}") from None
    except ValueError as e:
        raise ValueError(f"{what} is not JSON-able: {e}") from None


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return value


_limits = {}


def _limit(name):
    """The ptc_limit of a keyword argument's name; TypeError when unknown."""
    if name not in _limits:
        out = ctypes.c_int()
        if _c.ptc_limit_from_name(name.encode(), ctypes.byref(out)) != _lib.OK:
            raise TypeError(f"unexpected keyword argument {name!r} (not an option or a limit)")
        _limits[name] = out.value
    return _limits[name]


# ---------------------------------------------------------------- results


def _fields_from(obj, doc):
    """Sets each of obj's __slots__ from the key of that name of a
    ptc_result_json document (None when absent, e.g. fail_value)."""
    for name in obj.__slots__:
        setattr(obj, name, doc.get(name))


class Error:
    """Why a program failed. `reason` is one of the closed set of
    include/ptc/ptc.h ("parse_error", "type_error", "timeout", "tool_error",
    "fail", ...); `line` and `column` are 1-based (None when unknown); `text`
    is the one-line description with the hint; `fail_value` is v of (fail v)."""

    __slots__ = ("reason", "message", "hint", "line", "column", "text", "fail_value")

    def __init__(self, doc):
        _fields_from(self, doc)

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"ptc.Error({self.text!r})"


_UNSET = object()


# json's own C scanner without json.loads's wrapper (which looks for
# whitespace around the document with two regular expressions): the JSON
# texts of the C API are compact. Half the cost of json.loads on small texts.
_scan = json.scanner.c_make_scanner(json.JSONDecoder()) if json.scanner.c_make_scanner \
    else json.scanner.py_make_scanner(json.JSONDecoder())


def _from_json(text):
    """Python data from a compact JSON text (str) of the C API."""
    return _scan(text, 0)[0]


def _result_json(getter, handle):
    """Python data from one of a ptc_result's JSON texts."""
    text = getter(handle, None)
    if text is None:
        _check(_c.ptc_last_status())  # out of memory
    return _from_json(text.decode("utf-8", "replace"))


class Result:
    """The outcome of a run. `value` is the program's value as Python data
    (keywords become str, sets and vectors list, maps dict, functions the str
    of their printed form); `printed` the value in Clojure syntax; `prints`
    the println output; `memory` the names bound by def/defn; `tool_calls`
    the tool-call ledger; `error` an Error when `ok` is False, else None.

    Immutable. It holds the engine's result and converts each field to Python
    the first time it is read (most callers read `ok` and `value` only), so
    a run costs little more than the C call."""

    # The fields, in the order of ptc_result_json.
    _fields = ("ok", "value", "printed", "truncated", "returned", "prints", "memory",
               "tool_calls", "pmap_calls", "usage", "error")
    __slots__ = ("_handle", "ok", "_value", "_memory", "_doc", "_error")

    def __init__(self, handle, ok, doc=None):
        self._handle = handle  # a ptc_result, freed with this object; None: from `doc`
        self.ok = ok
        self._value = self._memory = self._error = _UNSET
        self._doc = doc

    def __del__(self):
        handle, self._handle = self._handle, None
        if handle:
            try:
                _c.ptc_result_free(handle)
            except Exception:  # the interpreter is shutting down
                pass

    def __reduce__(self):  # copy, deepcopy and pickle: the converted fields
        return _result_from_doc, (self._full(),)

    def _full(self):
        """The ptc_result_json document (every field), built once."""
        if self._doc is None:
            self._doc = _result_json(_py.ptc_result_json, self._handle)
        return self._doc

    @property
    def value(self):
        if self._value is _UNSET:
            self._value = (_result_json(_py.ptc_result_value_json, self._handle)
                           if self._handle else self._doc["value"])
        return self._value

    @property
    def memory(self):
        if self._memory is _UNSET:
            self._memory = (_result_json(_py.ptc_result_memory_json, self._handle)
                            if self._handle else self._doc["memory"])
        return self._memory

    @property
    def error(self):
        if self._error is _UNSET:
            doc = None if self.ok else self._full()["error"]
            self._error = None if doc is None else Error(doc)
        return self._error

    printed = property(lambda self: self._full()["printed"])
    truncated = property(lambda self: self._full()["truncated"])
    returned = property(lambda self: self._full()["returned"])
    prints = property(lambda self: self._full()["prints"])
    tool_calls = property(lambda self: self._full()["tool_calls"])
    pmap_calls = property(lambda self: self._full()["pmap_calls"])
    usage = property(lambda self: self._full()["usage"])

    def __repr__(self):
        if self.ok:
            return f"ptc.Result(ok, {self.printed})"
        return f"ptc.Result(error, {self.error.text!r})"


def _result_from_doc(doc):
    return Result(None, doc["ok"], doc)


def _deliver(status, handle):
    """A Result from ptc_run's (or its kind's) status and result handle."""
    _check(status)
    return Result(handle.value, status == _lib.OK)


# ---------------------------------------------------------------- shared handles


class _Handle:
    """Owns a C handle, freed with `_free` when closed or collected."""

    _free = None

    def __init__(self, handle):
        self._handle = handle

    def close(self):
        handle, self._handle = self._handle, None
        if handle:
            type(self)._free(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:  # the interpreter is shutting down
            pass


class CancelToken(_Handle):
    """Stops the runs given ``cancel=token`` when cancelled (from any
    thread): they end with reason "cancelled". A token stays cancelled."""

    _free = _c.ptc_cancel_token_free

    def __init__(self):
        handle = _c.ptc_cancel_token_new()
        if not handle:
            raise MemoryError(_last_error())
        super().__init__(handle)

    def cancel(self):
        _c.ptc_cancel_token_cancel(self._handle)

    @property
    def cancelled(self):
        return bool(_c.ptc_cancel_token_is_cancelled(self._handle))


class PreparedContext(_Handle):
    """A context imported once (see prepare_context), for any number of runs
    on any threads: pass it as ``context=``."""

    _free = _c.ptc_prepared_context_free

    @property
    def bytes(self):
        return _c.ptc_prepared_context_bytes(self._handle)


def prepare_context(context, max_bytes=0):
    """A PreparedContext from a dict (or JSON text of an object); max_bytes
    caps its memory (0 = 1 GiB). ValueError for a context that is not an
    object or is too large."""
    text = _json(context, "context", Mapping, "a dict")
    out = ctypes.c_void_p()
    _check(_c.ptc_prepare_context(text, len(text), _int(max_bytes, "max_bytes"),
                                  ctypes.byref(out)))
    return PreparedContext(out.value)


class WorkerPool(_Handle):
    """Jailed worker processes for isolated runs: give it as ``isolate=pool``
    to run, Session, compile (Program.run), lisp_eval_tool or Agent, and the
    program runs in one of the workers instead of in this process. The worker has no
    new privileges, rlimits on memory, CPU time and files, a seccomp-bpf
    allowlist and, where the kernel allows, its own user, pid, network and
    IPC namespaces; the tools are still called in this process (each call on
    a thread of its own, several at once for a pmap), so the Result is the
    one an in-process run gives. A worker that dies (a crash, its jail, out
    of memory) ends only its run, with reason "internal_error"; one that
    overruns its deadline by kill_margin_ms is killed (reason "timeout").

    workers: processes kept ready (4); runs beyond them wait for one.
    max_runs: runs a worker takes before it is replaced (1000; 0 = no limit).
    max_heap_bytes: the largest max_heap_bytes runs will ask for; it sizes
        each worker's address-space cap (64 MiB).
    kill_margin_ms: past a run's compile_timeout_ms + timeout_ms +
        pmap_timeout_ms by this much, its worker is killed (1000).
    max_frame_bytes: the largest result a worker may send (0: 64 MiB plus 16
        times max_heap_bytes).
    worker_path: the ptc-worker executable; None: $PTC_WORKER, else the one
        beside libptc.so.0 (the wheel's, in the package folder) or in
        ../libexec/ptc/ from it (an installed prefix).
    namespaces: new namespaces where the kernel allows them (True).
    worker_stderr: the workers' standard error goes to this process's
        (False: to /dev/null).
    cpu_handoff: a run alone in the pool runs its worker on the caller's
        CPU, both bound to it for the run (True).

    Raises PtcUnavailable when no ptc-worker is found or it does not start,
    TypeError / ValueError for bad arguments. Thread-safe: any number of
    threads may run through one pool. close() (or ``with``, or dropping it)
    lets go of this reference; options, sessions and programs that use the
    pool keep it alive, and the workers end with the last of them. Make
    pools after forking: a pool does not survive into a forked child."""

    _free = _c.ptc_worker_pool_free
    _default = None
    _default_lock = threading.Lock()

    def __init__(self, workers=None, max_runs=None, max_heap_bytes=None, kill_margin_ms=None,
                 max_frame_bytes=None, worker_path=None, namespaces=None, worker_stderr=None,
                 cpu_handoff=None):
        given = dict(workers=workers, max_runs=max_runs, max_heap_bytes=max_heap_bytes,
                     kill_margin_ms=kill_margin_ms, max_frame_bytes=max_frame_bytes)
        options = {name: _int(value, name) for name, value in given.items() if value is not None}
        if worker_path is not None:
            options["worker_path"] = str(worker_path) if isinstance(worker_path, os.PathLike) \
                else worker_path
            if not isinstance(options["worker_path"], str):
                raise TypeError(f"worker_path must be a str or a path, got "
                                f"{type(worker_path).__name__}")
        for name, value in (("namespaces", namespaces), ("worker_stderr", worker_stderr),
                            ("cpu_handoff", cpu_handoff)):
            if value is not None:
                options[name] = bool(value)
        text = json.dumps(options).encode("utf-8")
        out = ctypes.c_void_p()
        _check(_c.ptc_worker_pool_new(text, len(text), ctypes.byref(out)))
        super().__init__(out.value)

    @classmethod
    def default(cls):
        """The pool ``isolate=True`` uses: one per process, with the default
        options, made on first use (PtcUnavailable when it cannot start)."""
        with cls._default_lock:
            if cls._default is None or not cls._default._handle:  # none yet, or closed
                cls._default = cls()
            return cls._default

    @property
    def stats(self):
        """The pool's figures: {"workers" (live processes), "busy",
        "started", "runs", "recycled" (after max_runs), "died", "killed"
        (past their deadline, or a malformed frame), "contexts_sent"
        (prepared contexts sent along with a run), "contexts_handed_over"
        (sent ahead, to a recycled worker's successor), "namespaces",
        "worker_path"}."""
        if not self._handle:
            raise ValueError("the worker pool is closed")
        length = ctypes.c_size_t()
        pointer = _c.ptc_worker_pool_stats_json(self._handle, ctypes.byref(length))
        if not pointer:
            _check(_c.ptc_last_status())
        return json.loads(_text_out(pointer, length))

    @property
    def worker_path(self):
        """The ptc-worker executable the pool runs."""
        return self.stats["worker_path"]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if not self._handle:
            return "ptc.WorkerPool(closed)"
        return f"ptc.WorkerPool(workers={self.stats['workers']})"


def _pool_of(isolate):
    """The WorkerPool of an `isolate` option (True: the default one); None
    for False."""
    if isolate is True:
        return WorkerPool.default()
    if isolate is False:
        return None
    if isinstance(isolate, WorkerPool):
        if not isolate._handle:
            raise ValueError("isolate: the worker pool is closed")
        return isolate
    raise TypeError(f"isolate must be True, False or a ptc.WorkerPool, got "
                    f"{type(isolate).__name__}")


class Tool:
    """A tool with options: ``tools={"get-user": ptc.Tool(fn, cacheable=True)}``.
    Calls of a cacheable tool with equal arguments are answered once per run.
    With ``approval="always"`` (or True) a person approves each call before
    it runs: ptc.run asks its `approver` (without one the call fails and the
    tool is not called), ptc.start suspends with a PendingCall of kind
    "approval" (answer ptc.Approve() or ptc.Reject(reason)), run_async awaits
    its `approver`."""

    __slots__ = ("fn", "cacheable", "approval")

    def __init__(self, fn, cacheable=False, approval=None):
        if not callable(fn):
            raise TypeError(f"a tool must be callable, got {type(fn).__name__}")
        if approval not in (None, False, True, "always"):
            raise ValueError(f"approval must be \"always\" (or True), got {approval!r}")
        self.fn = fn
        self.cacheable = bool(cacheable)
        self.approval = approval not in (None, False)


def _json_value(value):
    """JSON text of a tool's value; TypeError (the message a tool given to
    ptc.run gets) when it has none."""
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"the tool's value has no JSON form: {e}") from None


class Approve:
    """The answer "approved" to a call pending with kind "approval"
    (Execution.resume), or what an approver returns (True does too): the
    tool runs."""

    __slots__ = ()

    def __repr__(self):
        return "ptc.Approve()"


class Reject:
    """The answer "rejected, because `reason`" to a call pending with kind
    "approval" (Execution.resume), or what an approver returns (False does
    too, with no reason): the call fails with reason "tool_error" and the
    message "tool/<name> was rejected: <reason>"; the tool does not run."""

    __slots__ = ("reason",)

    def __init__(self, reason=""):
        if not isinstance(reason, str):
            raise TypeError(f"a rejection's reason must be a str, got {type(reason).__name__}")
        self.reason = reason

    def __repr__(self):
        return f"ptc.Reject({self.reason!r})"


def _decision(value):
    """An approver's answer as Approve() or Reject(...); TypeError otherwise."""
    if value is True or isinstance(value, Approve):
        return Approve()
    if value is False:
        return Reject()
    if isinstance(value, Reject):
        return value
    raise TypeError(f"an approver returns True, False, ptc.Approve() or ptc.Reject(reason), got "
                    f"{type(value).__name__}")


def _pending_call(c):
    return PendingCall(c["id"], c["tool"], c["args"], c.get("kind", "call"), c.get("line"),
                       c.get("column"))


def _approver_callback(fn):
    """The C callback of a Python approver: a PendingCall in, a decision
    out; whatever it raises (or a wrong answer) rejects the call with the
    exception's text."""

    def call(user, call_json, call_len, approval):
        try:
            decision = _decision(fn(_pending_call(json.loads(ctypes.string_at(call_json,
                                                                              call_len)))))
            if isinstance(decision, Approve):
                _c.ptc_approval_approve(approval)
                return
            reason = decision.reason.encode("utf-8")
        except BaseException as e:  # noqa: B036 - nothing may unwind into C
            reason = f"the approver failed: {_error_text(e)}".encode("utf-8", "replace")
        _c.ptc_approval_reject(approval, reason, len(reason))

    return _lib.APPROVER_FN(call)


def _error_text(e):
    """The message a tool's exception becomes: its text, or its type's name."""
    return str(e) or type(e).__name__


def _tool_callback(fn):
    """The C callback of a Python tool: args (a dict) in, a JSON-able value
    out; whatever it raises becomes a tool_error with the exception's text."""

    def call(user, name, args_json, args_len, reply):
        try:
            value = fn(json.loads(ctypes.string_at(args_json, args_len)))
            text = _json_value(value).encode("utf-8")
            _c.ptc_tool_reply_set_result_json(reply, text, len(text))
        except BaseException as e:  # noqa: B036 - nothing may unwind into C
            message = _error_text(e).encode("utf-8", "replace")
            _c.ptc_tool_reply_set_error(reply, message, len(message))

    return _lib.TOOL_FN(call)


# ---------------------------------------------------------------- options

class _Options(_Handle):
    """A ptc_options handle built from keyword arguments. `keep` holds what
    C holds pointers to (tool callbacks): whoever uses the options, or a
    session or execution copied from them, keeps `keep` alive. `_deferred`
    ({name: Tool}) adds deferred tools that may be cacheable or need approval
    (run_async's tools)."""

    _free = _c.ptc_options_free

    def __init__(self, context=None, tools=None, memory=None, history=None, signature=None,
                 float_precision=None, filter_context=None, display_limit=None, cancel=None,
                 defer=None, isolate=None, approver=None, _deferred=None, **limits):
        handle = _c.ptc_options_new()
        if not handle:
            raise MemoryError(_last_error())
        self._handle = handle
        self.keep = []
        try:
            self._set(context, tools, memory, history, signature, float_precision,
                      filter_context, display_limit, cancel, limits)
            if isolate is not None:
                pool = _pool_of(isolate)
                if pool is not None:
                    _check(_c.ptc_options_set_isolate(self._handle, pool._handle))
            if defer is not None or _deferred:
                self._defer(defer, _deferred or {})
            if approver is not None:
                if not callable(approver):
                    raise TypeError(f"approver must be callable, got {type(approver).__name__}")
                callback = _approver_callback(approver)
                self.keep.append(callback)
                _check(_c.ptc_options_set_approver(self._handle, callback, None, None))
        except BaseException:
            self.close()
            raise

    def _defer(self, defer, deferred):
        if defer is None:
            defer = []
        elif isinstance(defer, str):
            defer = [defer]
        elif not isinstance(defer, (list, tuple, set, frozenset)):
            raise TypeError(f"defer must be a list of tool names or \"*\", got "
                            f"{type(defer).__name__}")
        for name in defer:
            if not isinstance(name, str):
                raise TypeError(f"defer: tool names must be str, got {type(name).__name__}")
            text = name.encode("utf-8")
            _check(_c.ptc_options_defer_tool(self._handle, text, len(text)))
        for name, tool in deferred.items():
            _check(_c.ptc_options_add_deferred_tool(self._handle, name.encode("utf-8"),
                                                    int(tool.cacheable)))
            self._require_approval(name, tool)

    def _require_approval(self, name, tool):
        if tool.approval:
            text = name.encode("utf-8")
            _check(_c.ptc_options_require_approval(self._handle, text, len(text), 1))

    def _set(self, context, tools, memory, history, signature, float_precision, filter_context,
             display_limit, cancel, limits):
        h = self._handle
        if isinstance(context, PreparedContext):
            _check(_c.ptc_options_set_prepared_context(h, context._handle))
        elif context is not None:
            text = _json(context, "context", Mapping, "a dict")
            _check(_c.ptc_options_set_context_json(h, text, len(text)))
        if memory is not None:
            text = _json(memory, "memory", Mapping, "a dict")
            _check(_c.ptc_options_set_memory_json(h, text, len(text)))
        if history is not None:
            text = _json(history, "history", (list, tuple), "a list")
            _check(_c.ptc_options_set_history_json(h, text, len(text)))
        if signature is not None:
            if not isinstance(signature, str):
                raise TypeError(f"signature must be a str, got {type(signature).__name__}")
            _check(_c.ptc_options_set_signature(h, signature.encode("utf-8")))
        if float_precision is not None:
            _check(_c.ptc_options_set_float_precision(h, _int(float_precision, "float_precision")))
        if filter_context is not None:
            _check(_c.ptc_options_set_filter_context(h, 1 if filter_context else 0))
        if display_limit is not None:
            if _int(display_limit, "display_limit") < 0:
                raise ValueError(f"display_limit must be 0 or more, got {display_limit}")
            _check(_c.ptc_options_set_display_limit(h, display_limit))
        if cancel is not None:
            if not isinstance(cancel, CancelToken):
                raise TypeError(f"cancel must be a ptc.CancelToken, got {type(cancel).__name__}")
            _check(_c.ptc_options_set_cancel_token(h, cancel._handle))
        for name, value in limits.items():
            limit = _limits.get(name)
            if limit is None:
                limit = _limit(name)
            if value is None and name == "max_tool_calls":
                value = -1  # unlimited
            elif type(value) is not int:
                _int(value, name)
            status = _c.ptc_options_set_limit(h, limit, value)
            if status:
                _check(status)
        if tools is not None:
            if not isinstance(tools, Mapping):
                raise TypeError(f"tools must be a dict of name -> callable, got "
                                f"{type(tools).__name__}")
            for name, tool in tools.items():
                if not isinstance(name, str):
                    raise TypeError(f"tool names must be str, got {type(name).__name__}")
                if not isinstance(tool, Tool):
                    tool = Tool(tool)
                callback = _tool_callback(tool.fn)
                self.keep.append(callback)
                _check(_c.ptc_options_add_tool(h, name.encode("utf-8"), callback, None, None,
                                               int(tool.cacheable)))
                self._require_approval(name, tool)


# ---------------------------------------------------------------- runs


def run(program, context=None, tools=None, memory=None, timeout_ms=None, signature=None,
        **options):
    """Runs a PTC-Lisp program and returns a Result (a failing program does
    not raise: see Result.ok and Result.error).

    context: dict (or JSON text, or a PreparedContext): its keys are the
        program's data/ names.
    tools: {"get-user": fn} where fn(args: dict) returns a JSON-able value;
        an exception it raises is a tool_error the program ends with. Tools
        may be called from several threads at once (pmap).
    memory: dict of names bound by earlier runs (Result.memory).
    timeout_ms, and every other limit by name: max_heap_bytes, loop_limit,
        max_call_depth, max_symbols, max_program_bytes, max_print_length,
        max_nesting_depth, compile_timeout_ms, max_tool_calls (None =
        unlimited), max_tool_call_result_bytes, pmap_timeout_ms,
        pmap_max_concurrency, max_parallel_workers, worker_max_heap_bytes.
    signature: e.g. "{total :int}": the result must match it.
    Also: history (earlier results, oldest first: *1 is the last),
        float_precision, filter_context, display_limit, cancel (CancelToken),
        isolate (a WorkerPool, or True for the process's shared one: the
        program runs in a jailed worker process; the tools are called here),
        approver: fn(call: PendingCall) deciding the calls of tools made with
        approval="always" before they run: True or ptc.Approve() runs the
        tool, False or ptc.Reject(reason) fails the call (and what it raises
        rejects it). Without one, such calls fail and the tools are not called.
    """
    source = program.encode() if type(program) is str else _source(program)
    out = ctypes.c_void_p()
    if (context is None and tools is None and memory is None and timeout_ms is None
            and signature is None and not options):
        return _deliver(_c.ptc_run(source, len(source), None, out), out)  # the defaults
    if timeout_ms is not None:
        options["timeout_ms"] = timeout_ms
    if signature is not None:
        options["signature"] = signature
    if context is None and tools is None and memory is None:
        opts = _scalar_options(options)
        if opts is not None:
            return _deliver(_c.ptc_run(source, len(source), opts._handle, out), out)
    opts = _Options(context=context, tools=tools, memory=memory, **options)
    try:
        return _deliver(_c.ptc_run(source, len(source), opts._handle, out), out)
    finally:
        opts.close()


# Options made of limits and other plain values only, as runs give them again
# and again (timeout_ms=500): made once and kept, at most this many. Options
# are read-only once made, so runs on any threads may share them.
_SCALAR_OPTIONS_KEPT = 64
_scalar_kept = {}
_SCALAR_NAMES = frozenset(("signature", "float_precision", "filter_context", "display_limit"))


def _scalar_options(options):
    """The kept _Options for `options` (keyword arguments of run), made now
    if need be; None when they hold more than plain values (a history, a
    cancel token, deferred tools, a bool) or the cache is full."""
    for value in options.values():
        if type(value) not in _PLAIN:
            return None
    key = tuple(options.items())
    opts = _scalar_kept.get(key)
    if opts is not None:
        return opts
    for name in options:
        if name not in _SCALAR_NAMES and name not in _limits and name != "timeout_ms":
            return None
    if len(_scalar_kept) >= _SCALAR_OPTIONS_KEPT:
        return None
    opts = _Options(**options)  # raises for a bad name or value: nothing is kept
    return _scalar_kept.setdefault(key, opts)


_PLAIN = (int, str, type(None))


class CompileError(Exception):
    """ptc.compile of a program that does not compile; `error` says why."""

    def __init__(self, error):
        super().__init__(error.text)
        self.error = error


class Program(_Handle):
    """A program compiled once (ptc.compile), run many times from any
    threads with run(**options); the options given to compile are the
    defaults of every run."""

    _free = _c.ptc_program_free

    def __init__(self, handle, options):
        super().__init__(handle)
        self._options = options

    def run(self, **options):
        opts = _Options(**{**self._options, **options})
        try:
            out = ctypes.c_void_p()
            return _deliver(_c.ptc_program_run(self._handle, opts._handle, out), out)
        finally:
            opts.close()


def compile(program, **options):  # noqa: A001 - the natural name, as re.compile
    """Compiles a program once for many runs (Program.run). What shapes the
    code comes from `options`: the tools' names, the memory's names and the
    compile limits; they are also the defaults of every run. Raises
    CompileError when the program does not compile."""
    source = _source(program)
    opts = _Options(**options)
    try:
        out = ctypes.c_void_p()
        error = ctypes.c_void_p()
        status = _c.ptc_compile(source, len(source), opts._handle, ctypes.byref(out),
                                ctypes.byref(error))
        _check(status)
        if status == _lib.PROGRAM_ERROR:
            raise CompileError(Result(error.value, False).error)
        return Program(out.value, options)
    finally:
        opts.close()


class Session(_Handle):
    """A conversation: memory (functions too) carries from one eval to the
    next, and the values of the last `history_depth` successful evals are *1,
    *2, *3. A failed eval changes neither. Takes run()'s options (context,
    tools, memory, limits, ...). One eval at a time (calls are serialized)."""

    _free = _c.ptc_session_free

    def __init__(self, context=None, tools=None, memory=None, history_depth=3, **options):
        opts = _Options(context=context, tools=tools, memory=memory, **options)
        try:
            out = ctypes.c_void_p()
            _check(_c.ptc_session_new(opts._handle, _int(history_depth, "history_depth"),
                                      ctypes.byref(out)))
            super().__init__(out.value)
            self._keep = opts.keep  # the session's copy of the tools calls these
        finally:
            opts.close()
        self._lock = threading.Lock()

    def eval(self, program):
        source = _source(program)
        with self._lock:
            out = ctypes.c_void_p()
            return _deliver(_c.ptc_session_eval(self._handle, source, len(source), out), out)

    @property
    def memory(self):
        with self._lock:
            length = ctypes.c_size_t()
            pointer = _c.ptc_session_memory_json(self._handle, ctypes.byref(length))
            if not pointer:
                _check(_c.ptc_last_status())
            return json.loads(_text_out(pointer, length))

    def reset(self):
        with self._lock:
            _check(_c.ptc_session_reset(self._handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------- executions


class ToolError(Exception):
    """The answer "this call failed with this message": give it to
    Execution.resume for a call (``{id: ptc.ToolError("no such user")}``), or
    raise it from a tool. The program sees the tool's failure (reason
    "tool_error"), as when a tool given to ptc.run raises."""

    def __init__(self, message):
        super().__init__(message)
        self.message = str(message)


PendingCall = collections.namedtuple("PendingCall",
                                     ["id", "tool", "args", "kind", "line", "column"],
                                     defaults=("call", None, None))
PendingCall.__doc__ = """A tool call an execution waits on: `id` (stable across dump and load:
"c2" is the program's third call, "p0.3/c0" the first call of branch 3 of
its first pmap), `tool` (the name after tool/), `args` (the argument dict,
exactly as a tool given to ptc.run would receive it) and `kind`: "call"
(it waits for the tool's answer) or "approval" (for a person's decision:
answer ptc.Approve() or ptc.Reject(reason)); an approval's `line` and
`column` say where the program makes the call."""


def _answer_json(answer):
    """The JSON text of one answer of resume: {"error": ...} or {"value": ...},
    or for an approval {"approve": true} or {"reject": ...}."""
    if isinstance(answer, ToolError):
        return '{"error": ' + json.dumps(answer.message, ensure_ascii=False) + "}"
    if isinstance(answer, Approve):
        return '{"approve": true}'
    if isinstance(answer, Reject):
        return '{"reject": ' + json.dumps(answer.reason, ensure_ascii=False) + "}"
    return '{"value": ' + _json_value(answer) + "}"


def _answers_doc(encoded):
    """The answers document of ptc_resume from {id: answer JSON text}."""
    return ("{" + ", ".join(json.dumps(i, ensure_ascii=False) + ": " + a
                            for i, a in encoded.items()) + "}").encode("utf-8")


class Execution:
    """A program that waits for its host (ptc.start, ptc.load). While
    suspended, `pending` lists the calls it waits on; `resume(answers)`
    answers any of them and runs it on until it finishes or waits again. Once
    `done`, `result` is the Result ptc.run would have given with tools
    returning the same answers.

    A suspended execution holds no thread, only memory (`heap_bytes`);
    `dump()` turns it into bytes that ptc.load continues, in this process or
    another. Methods may be called from any thread (calls are taken one at a
    time). `close()` (or leaving a ``with`` block, or dropping the object)
    frees it, cancelling it if it is suspended; a call in progress on another
    thread finishes first."""

    def __init__(self, handle, keep):
        self._handle = handle
        self._keep = keep  # the tool callbacks the execution's copy of the options calls
        self._lock = threading.Lock()
        # The pending-calls text lasts until the next resume or cancel: it is
        # read under this lock, which those hold too.
        self._text_lock = threading.Lock()
        self._calls = 0  # C calls in progress
        self._closing = False
        self._result = None

    # The handle is freed only when no call uses it: close() from one thread
    # while another resumes (run_async cancelled) must not free it under it.
    @contextlib.contextmanager
    def _using(self):
        with self._lock:
            if self._handle is None or self._closing:
                raise ValueError("the execution is closed")
            self._calls += 1
        try:
            yield self._handle
        finally:
            with self._lock:
                self._calls -= 1
                handle = self._take_if_idle()
            if handle:
                _c.ptc_execution_free(handle)

    def _take_if_idle(self):
        if self._closing and self._calls == 0 and self._handle:
            handle, self._handle = self._handle, None
            return handle
        return None

    def close(self):
        with self._lock:
            self._closing = True
            handle = self._take_if_idle()
        if handle:
            _c.ptc_execution_free(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:  # the interpreter is shutting down
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self._handle is None or self._closing:
            return "ptc.Execution(closed)"
        if self.done:
            return f"ptc.Execution(done, {self.result!r})"
        return f"ptc.Execution(suspended, {len(self.pending)} pending)"

    @property
    def done(self):
        """True once the program finished (see `result`), False while it
        waits (see `pending`)."""
        with self._using() as h:
            return bool(_c.ptc_execution_done(h))

    @property
    def pending(self):
        """The calls it waits on, in the order they were made, as
        PendingCall(id, tool, args); [] once done."""
        with self._using() as h, self._text_lock:
            length = ctypes.c_size_t()
            pointer = _c.ptc_execution_pending_json(h, ctypes.byref(length))
            if not pointer:
                _check(_c.ptc_last_status())
            calls = json.loads(_text_out(pointer, length))
        return [_pending_call(c) for c in calls]

    @property
    def result(self):
        """The Result once done; ValueError while suspended."""
        if self._result is None:
            with self._using() as h:
                out = ctypes.c_void_p()
                self._result = _deliver(_c.ptc_execution_result(h, out), out)
        return self._result

    def resume(self, answers):
        """Answers pending calls, {id: value} (a JSON-able value, or a
        ptc.ToolError for a failed call; for a call of kind "approval",
        ptc.Approve() or ptc.Reject(reason)), any non-empty subset of them, and
        runs the program on until it finishes or waits again (the calls left
        out stay pending). Returns the execution. Raises ValueError, changing
        nothing, for no answers, an id that is not pending (unknown or
        answered before) or an execution that is done; TypeError for answers
        that are not a dict or a value with no JSON form."""
        if not isinstance(answers, Mapping):
            raise TypeError(f"answers must be a dict of call id -> value, got "
                            f"{type(answers).__name__}")
        encoded = {}
        for call_id, answer in answers.items():
            if not isinstance(call_id, str):
                raise TypeError(f"call ids must be str, got {type(call_id).__name__}")
            try:
                encoded[call_id] = _answer_json(answer)
            except TypeError as e:
                raise TypeError(f"the answer to {call_id}: {e}") from None
        return self._resume_json(_answers_doc(encoded))

    def _resume_json(self, doc):
        with self._using() as h, self._text_lock:
            _check(_c.ptc_resume(h, doc, len(doc)))
        return self

    def cancel(self):
        """Ends a suspended execution: it finishes with reason "cancelled".
        A finished one is left as it is."""
        with self._using() as h, self._text_lock:
            _check(_c.ptc_execution_cancel(h))

    @property
    def heap_bytes(self):
        """Bytes of memory the execution holds (its heaps and journal)."""
        with self._using() as h:
            return _c.ptc_execution_heap_bytes(h)

    def dump(self, key=None):
        """The suspended execution as bytes for ptc.load: the program's
        inputs and the journal of the answers so far. With a key (str or
        bytes) they carry an HMAC-SHA256 that load checks. The execution is
        unchanged. ValueError once done."""
        key_bytes = _key(key)
        with self._using() as h:
            pointer = ctypes.c_void_p()
            length = ctypes.c_size_t()
            _check(_c.ptc_execution_dump(h, key_bytes, len(key_bytes), ctypes.byref(pointer),
                                         ctypes.byref(length)))
        try:
            return ctypes.string_at(pointer.value, length.value)
        finally:
            _c.ptc_bytes_free(pointer.value)


def _key(key):
    if key is None:
        return b""
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    raise TypeError(f"key must be str or bytes, got {type(key).__name__}")


def _refuse_isolation(options, what):
    """Executions wait in this process's memory: TypeError for isolate."""
    if options.get("isolate") not in (None, False):
        raise TypeError(f"{what} cannot run isolated: an execution waits in this process's "
                        f"memory (use ptc.run or a Session with isolate; give isolate=False to "
                        f"start a Program compiled with one)")


def _start(program, options):
    """An Execution of `program` (source or Program) with _Options(**options)."""
    if isinstance(program, Program):
        options = {**program._options, **options}
    else:
        source = _source(program)
    _refuse_isolation(options, "start" if "_deferred" not in options else "run_async")
    opts = _Options(**options)
    try:
        out = ctypes.c_void_p()
        if isinstance(program, Program):
            _check(_c.ptc_start_compiled(program._handle, opts._handle, ctypes.byref(out)))
        else:
            _check(_c.ptc_start(source, len(source), opts._handle, ctypes.byref(out)))
        return Execution(out.value, opts.keep)
    finally:
        opts.close()


def start(program, defer=None, context=None, tools=None, memory=None, timeout_ms=None,
          signature=None, **options):
    """Starts a program (source, or a ptc.Program) that may wait for its
    host, and returns an Execution: finished already, or suspended because
    every live part of it waits on a deferred tool or on a person's approval
    of a call (a tool made with approval="always": the PendingCall's kind is
    "approval"; answer ptc.Approve() or ptc.Reject(reason)).

    defer: the tools the host answers through Execution.resume: a list of
        names, or "*" for every tool the program calls that `tools` does not
        give. A deferred name needs no entry in `tools`.
    approver: decides approvals in place, as ptc.run's (then the execution
        does not suspend for them).
    Everything else as ptc.run: tools (called as ptc.run calls them),
    context, memory, limits (timeout_ms counts the time the program runs, not
    the time it waits), signature, cancel, ...
    """
    named = dict(defer=defer, context=context, tools=tools, memory=memory, signature=signature,
                 timeout_ms=timeout_ms)
    # Only what is given: a Program's own options stay the defaults.
    options.update((name, value) for name, value in named.items() if value is not None)
    return _start(program, options)


_FROM_SNAPSHOT = ("context", "memory", "history", "signature", "float_precision",
                  "filter_context")


def load(data, key=None, tools=None, defer=None, **options):
    """An Execution from Execution.dump's bytes, continuing where it stood
    (with the same pending ids), in this process or another. The program,
    context, memory, history and signature come from the bytes; tools (a
    tool the program calls that `tools` does not give is deferred), defer,
    cancel and the limits from the arguments (leave pmap_max_concurrency
    out, or as it was at the start: another window starts other branches and
    the replay diverges). `key` as given to dump.
    ValueError when the bytes are not a snapshot, or a damaged one, or the
    key does not match ("snapshot_error: ..."), or when the program does not
    replay to the same calls ("snapshot_divergence: ...")."""
    for name in _FROM_SNAPSHOT:
        if name in options:
            raise TypeError(f"load takes {name} from the snapshot, not as an argument")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes (from Execution.dump), got {type(data).__name__}")
    data = bytes(data)
    key_bytes = _key(key)
    _refuse_isolation(options, "load")
    opts = _Options(tools=tools, defer=defer, **options)
    try:
        out = ctypes.c_void_p()
        _check(_c.ptc_load(data, len(data), opts._handle, key_bytes, len(key_bytes),
                           ctypes.byref(out)))
        return Execution(out.value, opts.keep)
    finally:
        opts.close()


async def _answer(fn, args):
    """The JSON text of a tool's answer to one call: its value, or the error
    of what it raised (as a tool given to ptc.run)."""
    try:
        value = fn(args)
        if inspect.isawaitable(value):
            value = await value
        return _answer_json(value)
    except Exception as e:  # cancellation (a BaseException) goes through
        return _answer_json(e if isinstance(e, ToolError) else ToolError(_error_text(e)))


def _tool_of(table, name):
    """The function answering tool `name` (one that a compiled program's own
    `defer` deferred has none: its calls fail)."""
    if name in table:
        return table[name].fn

    def missing(args):
        raise ToolError(f"run_async was given no tool {name}")

    return missing


async def _decide(approver, call):
    """The answer text of one approval: the approver's decision (awaited when
    it is a coroutine), a rejection with what it raised, or -- with no
    approver -- a rejection that says so."""
    if approver is None:
        return _answer_json(Reject("run_async was given no approver"))
    try:
        decision = approver(call)
        if inspect.isawaitable(decision):
            decision = await decision
        return _answer_json(_decision(decision))
    except Exception as e:  # cancellation (a BaseException) goes through
        return _answer_json(Reject(f"the approver failed: {_error_text(e)}"))


async def run_async(program, tools=None, context=None, memory=None, timeout_ms=None,
                    signature=None, approver=None, **options):
    """Runs a program whose tools are coroutine functions (or plain
    callables), without blocking the event loop, and returns its Result.

    Every tool in `tools` is deferred: whenever the program waits, all the
    calls it waits on (every branch of a pmap) are answered at once with
    asyncio.gather -- an async tool is awaited, a plain one called, and what
    either raises becomes that call's tool error, as with ptc.run. Starting
    and resuming run in the loop's default executor, so the loop runs other
    tasks while the program computes. `tools` values may be ptc.Tool(fn,
    cacheable=True). The calls of tools made with approval="always" wait
    for `approver` (a coroutine function or a plain callable, given the
    PendingCall: True or ptc.Approve() runs the tool, False or
    ptc.Reject(reason) fails the call); without one they are rejected.
    Other options as ptc.run. Cancelling the task cancels the program.
    """
    if "defer" in options:
        raise TypeError("run_async defers every tool of `tools` and answers them: it takes no "
                        "defer")
    table = {}
    for name, tool in (tools or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"tool names must be str, got {type(name).__name__}")
        table[name] = tool if isinstance(tool, Tool) else Tool(tool)
    named = dict(context=context, memory=memory, signature=signature, timeout_ms=timeout_ms)
    options.update((name, value) for name, value in named.items() if value is not None)
    options["_deferred"] = table
    loop = asyncio.get_running_loop()
    execution = await loop.run_in_executor(None, functools.partial(_start, program, options))
    try:
        while not execution.done:
            calls = execution.pending
            answers = await asyncio.gather(*(
                _decide(approver, c) if c.kind == "approval" else
                _answer(_tool_of(table, c.tool), c.args) for c in calls))
            doc = _answers_doc({c.id: a for c, a in zip(calls, answers)})
            await loop.run_in_executor(None, execution._resume_json, doc)
        return execution.result
    finally:
        execution.close()


# The protocol layer (last: it builds on the above).
from ._lib import ProtocolUnavailable  # noqa: E402
from ._protocol import (  # noqa: E402
    Agent, AgentResult, AgentTool, LispEvalTool, lisp_eval_tool, render_error, render_success,
    tool_schema)
