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
"""

import ctypes
import json
import threading
from collections.abc import Mapping

from . import _lib

__all__ = [
    "run", "compile", "prepare_context", "Session", "Program", "PreparedContext",
    "CancelToken", "Tool", "Result", "Error", "CompileError", "PtcInternalError", "__version__",
]

_c = _lib.load()
__version__ = _c.ptc_version().decode()


class PtcInternalError(RuntimeError):
    """A bug in ptc-lisp (the C API reported PTC_INTERNAL)."""


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


class Result:
    """The outcome of a run. `value` is the program's value as Python data
    (keywords become str, sets and vectors list, maps dict, functions the str
    of their printed form); `printed` the value in Clojure syntax; `prints`
    the println output; `memory` the names bound by def/defn; `tool_calls`
    the tool-call ledger; `error` an Error when `ok` is False, else None."""

    __slots__ = ("ok", "value", "printed", "truncated", "returned", "prints", "memory",
                 "tool_calls", "pmap_calls", "usage", "error")

    def __init__(self, doc):
        _fields_from(self, doc)
        if self.error is not None:
            self.error = Error(self.error)

    def __repr__(self):
        if self.ok:
            return f"ptc.Result(ok, {self.printed})"
        return f"ptc.Result(error, {self.error.text!r})"


def _take_result(handle):
    """A Result from a ptc_result handle, which is freed."""
    try:
        length = ctypes.c_size_t()
        pointer = _c.ptc_result_json(handle, ctypes.byref(length))
        if not pointer:
            _check(_c.ptc_last_status())
        return Result(json.loads(_text_out(pointer, length)))
    finally:
        _c.ptc_result_free(handle)


def _deliver(status, handle):
    _check(status)
    return _take_result(handle)


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


class Tool:
    """A tool with options: ``tools={"get-user": ptc.Tool(fn, cacheable=True)}``.
    Calls of a cacheable tool with equal arguments are answered once per run."""

    __slots__ = ("fn", "cacheable")

    def __init__(self, fn, cacheable=False):
        if not callable(fn):
            raise TypeError(f"a tool must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.cacheable = bool(cacheable)


def _tool_callback(fn):
    """The C callback of a Python tool: args (a dict) in, a JSON-able value
    out; whatever it raises becomes a tool_error with the exception's text."""

    def call(user, name, args_json, args_len, reply):
        try:
            value = fn(json.loads(ctypes.string_at(args_json, args_len)))
            try:
                text = json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
            except (TypeError, ValueError) as e:
                raise TypeError(f"the tool's value has no JSON form: {e}") from None
            _c.ptc_tool_reply_set_result_json(reply, text, len(text))
        except BaseException as e:  # noqa: B036 - nothing may unwind into C
            message = (str(e) or type(e).__name__).encode("utf-8", "replace")
            _c.ptc_tool_reply_set_error(reply, message, len(message))

    return _lib.TOOL_FN(call)


# ---------------------------------------------------------------- options

_OPTION_NAMES = ("context", "tools", "memory", "history", "signature", "float_precision",
                 "filter_context", "display_limit", "cancel")


class _Options(_Handle):
    """A ptc_options handle built from keyword arguments. `keep` holds what
    C holds pointers to (tool callbacks): whoever uses the options, or a
    session copied from them, keeps `keep` alive."""

    _free = _c.ptc_options_free

    def __init__(self, context=None, tools=None, memory=None, history=None, signature=None,
                 float_precision=None, filter_context=None, display_limit=None, cancel=None,
                 **limits):
        handle = _c.ptc_options_new()
        if not handle:
            raise MemoryError(_last_error())
        super().__init__(handle)
        self.keep = []
        try:
            self._set(context, tools, memory, history, signature, float_precision,
                      filter_context, display_limit, cancel, limits)
        except BaseException:
            self.close()
            raise

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
            limit = _limit(name)
            if value is None and name == "max_tool_calls":
                value = -1  # unlimited
            _check(_c.ptc_options_set_limit(h, limit, _int(value, name)))
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
        float_precision, filter_context, display_limit, cancel (CancelToken).
    """
    source = _source(program)
    if timeout_ms is not None:
        options["timeout_ms"] = timeout_ms
    opts = _Options(context=context, tools=tools, memory=memory, signature=signature, **options)
    try:
        out = ctypes.c_void_p()
        status = _c.ptc_run(source, len(source), opts._handle, ctypes.byref(out))
        return _deliver(status, out.value)
    finally:
        opts.close()


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
            status = _c.ptc_program_run(self._handle, opts._handle, ctypes.byref(out))
            return _deliver(status, out.value)
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
            raise CompileError(_take_result(error.value).error)
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
            status = _c.ptc_session_eval(self._handle, source, len(source), ctypes.byref(out))
            return _deliver(status, out.value)

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
