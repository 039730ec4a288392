"""Finds and loads libptc (the C API of include/ptc/ptc.h) and
libptc_protocol (the lisp_eval tool and the agent loop,
include/ptc/ptc_protocol.h), and declares the functions this package calls.

Where each library is looked for, in order:

1. ``$PTC_LIBRARY`` (``$PTC_PROTOCOL_LIBRARY``), a full path; when set, it
   is the only candidate.
2. In the package folder: ``ptc/libptc.so.0`` (``ptc/libptc_protocol.so.0``),
   where the wheel (``cmake --build build --target python-wheel``) puts it.
3. Next to an installed package: the package is ``<prefix>/lib/python3/
   dist-packages/ptc/`` and the library ``<prefix>/lib/<name>`` or
   ``<prefix>/lib/<multiarch>/<name>``.
4. The system loader: ``libptc.so.0`` (``libptc_protocol.so.0``):
   ld.so.cache, LD_LIBRARY_PATH.

libptc is loaded by ``import ptc``; libptc_protocol only when a protocol
function is first used, so ``import ptc`` works without it. libptc_protocol
links libptc.so.0 and uses the one already loaded (the loader matches it by
its SONAME): one engine per process.

ctypes.CDLL releases the GIL for the duration of every call, so Python
threads run programs at once; tool callbacks take the GIL back while they run.
"""

import ctypes
import os
import pathlib
import sysconfig

SONAME = "libptc.so.0"
PROTOCOL_SONAME = "libptc_protocol.so.0"

# ptc_status
OK = 0
PROGRAM_ERROR = 1
INVALID_ARGUMENT = 2
OUT_OF_MEMORY = 3
INTERNAL = 4
UNAVAILABLE = 5

# Handles are opaque pointers; text goes in as (bytes, length).
_handle = ctypes.c_void_p
_size = ctypes.c_size_t
_status = ctypes.c_int
_text = ctypes.c_char_p

# void (*ptc_tool_fn)(void* user, const char* name, const char* args_json,
#                     size_t args_len, ptc_tool_reply* reply)
TOOL_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, _size,
                           ctypes.c_void_p)

# void (*ptc_approver_fn)(void* user, const char* call_json, size_t call_len,
#                        ptc_approval* approval)
APPROVER_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, _size, ctypes.c_void_p)

# name: (restype, argtypes)
_SIGNATURES = {
    "ptc_version": (_text, []),
    "ptc_status_name": (_text, [_status]),
    "ptc_last_error": (ctypes.c_void_p, []),
    "ptc_last_status": (_status, []),
    # cancel tokens
    "ptc_cancel_token_new": (_handle, []),
    "ptc_cancel_token_cancel": (None, [_handle]),
    "ptc_cancel_token_is_cancelled": (ctypes.c_int, [_handle]),
    "ptc_cancel_token_free": (None, [_handle]),
    # prepared contexts
    "ptc_prepare_context": (_status, [_text, _size, _size, ctypes.POINTER(_handle)]),
    "ptc_prepared_context_bytes": (_size, [_handle]),
    "ptc_prepared_context_free": (None, [_handle]),
    # worker pools
    "ptc_worker_pool_new": (_status, [_text, _size, ctypes.POINTER(_handle)]),
    "ptc_worker_pool_stats_json": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "ptc_worker_pool_free": (None, [_handle]),
    # tools
    "ptc_tool_reply_set_result_json": (_status, [_handle, _text, _size]),
    "ptc_tool_reply_set_error": (_status, [_handle, _text, _size]),
    "ptc_tool_reply_cancelled": (ctypes.c_int, [_handle]),
    # options
    "ptc_limit_from_name": (_status, [_text, ctypes.POINTER(ctypes.c_int)]),
    "ptc_options_new": (_handle, []),
    "ptc_options_free": (None, [_handle]),
    "ptc_options_set_context_json": (_status, [_handle, _text, _size]),
    "ptc_options_set_prepared_context": (_status, [_handle, _handle]),
    "ptc_options_set_memory_json": (_status, [_handle, _text, _size]),
    "ptc_options_set_history_json": (_status, [_handle, _text, _size]),
    "ptc_options_set_limit": (_status, [_handle, ctypes.c_int, ctypes.c_int64]),
    "ptc_options_set_signature": (_status, [_handle, _text]),
    "ptc_options_set_float_precision": (_status, [_handle, ctypes.c_int]),
    "ptc_options_set_filter_context": (_status, [_handle, ctypes.c_int]),
    "ptc_options_set_display_limit": (_status, [_handle, _size]),
    "ptc_options_set_cancel_token": (_status, [_handle, _handle]),
    "ptc_options_set_isolate": (_status, [_handle, _handle]),
    "ptc_options_add_tool": (_status, [_handle, _text, TOOL_FN, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_int]),
    "ptc_options_defer_tool": (_status, [_handle, _text, _size]),
    "ptc_options_add_deferred_tool": (_status, [_handle, _text, ctypes.c_int]),
    "ptc_options_require_approval": (_status, [_handle, _text, _size, ctypes.c_int]),
    "ptc_options_set_approver": (_status, [_handle, APPROVER_FN, ctypes.c_void_p,
                                           ctypes.c_void_p]),
    "ptc_approval_approve": (_status, [ctypes.c_void_p]),
    "ptc_approval_reject": (_status, [ctypes.c_void_p, _text, _size]),
    # runs
    "ptc_run": (_status, [_text, _size, _handle, ctypes.POINTER(_handle)]),
    "ptc_compile": (_status, [_text, _size, _handle, ctypes.POINTER(_handle),
                              ctypes.POINTER(_handle)]),
    "ptc_program_run": (_status, [_handle, _handle, ctypes.POINTER(_handle)]),
    "ptc_program_free": (None, [_handle]),
    # results
    "ptc_result_json": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "ptc_result_free": (None, [_handle]),
    # sessions
    "ptc_session_new": (_status, [_handle, _size, ctypes.POINTER(_handle)]),
    "ptc_session_eval": (_status, [_handle, _text, _size, ctypes.POINTER(_handle)]),
    "ptc_session_reset": (_status, [_handle]),
    "ptc_session_memory_json": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "ptc_session_free": (None, [_handle]),
    # executions
    "ptc_start": (_status, [_text, _size, _handle, ctypes.POINTER(_handle)]),
    "ptc_start_compiled": (_status, [_handle, _handle, ctypes.POINTER(_handle)]),
    "ptc_execution_done": (ctypes.c_int, [_handle]),
    "ptc_execution_pending_json": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "ptc_resume": (_status, [_handle, _text, _size]),
    "ptc_execution_result": (_status, [_handle, ctypes.POINTER(_handle)]),
    "ptc_execution_cancel": (_status, [_handle]),
    "ptc_execution_heap_bytes": (_size, [_handle]),
    "ptc_execution_dump": (_status, [_handle, _text, _size, ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(_size)]),
    "ptc_bytes_free": (None, [ctypes.c_void_p]),
    "ptc_load": (_status, [_text, _size, _handle, _text, _size, ctypes.POINTER(_handle)]),
    "ptc_execution_free": (None, [_handle]),
}


def candidates(variable="PTC_LIBRARY", soname=SONAME):
    """The paths (or loader names) tried, in order."""
    explicit = os.environ.get(variable)
    if explicit:
        return [explicit]
    package = pathlib.Path(__file__).resolve().parent
    # A wheel carries its own library: it goes before any other a prefix or
    # the system may hold, which could be of another version.
    found = [str(package / soname)]
    # <prefix>/lib/python3/dist-packages/ptc -> <prefix>/lib
    if len(package.parents) >= 3:
        lib = package.parents[2]
        found.append(str(lib / soname))
        multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
        found.append(str(lib / multiarch / soname))
    found.append(soname)
    return found


def _load(variable, soname, signatures, what):
    """The first candidate that loads and exports `signatures`, with its
    functions declared; else the list of what was tried and why each failed."""
    tried = []
    for candidate in candidates(variable, soname):
        # A path that does not exist is skipped; the bare name goes to the loader.
        if os.sep in candidate and not os.path.exists(candidate):
            tried.append(f"{candidate} (no such file)")
            continue
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as e:
            tried.append(f"{candidate} ({e})")
            continue
        missing = [name for name in signatures if not hasattr(lib, name)]
        if missing:
            tried.append(f"{candidate} (does not export {what}: no {missing[0]})")
            continue
        _declare(lib, signatures)
        return lib, tried
    return None, tried


def _declare(lib, signatures):
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def load():
    """The loaded library with its functions declared; ImportError naming
    every candidate tried (and why each failed) when none loads."""
    lib, tried = _load("PTC_LIBRARY", SONAME, _SIGNATURES, "the C API")
    if lib is None:
        raise ImportError(
            "ptc: cannot load the ptc-lisp library; tried " + "; ".join(tried) +
            ". Install libptc (libptc.so.0) or set PTC_LIBRARY to its full path.")
    return lib


# The calls that read a ptc_result: made through ctypes.PyDLL (holding_gil).
# JSON texts never hold a NUL byte, so they come back as bytes (c_char_p),
# None when out of memory; the length argument is left NULL.
_RESULT_SIGNATURES = {
    "ptc_result_value_json": (ctypes.c_char_p, [_handle, ctypes.c_void_p]),
    "ptc_result_memory_json": (ctypes.c_char_p, [_handle, ctypes.c_void_p]),
    "ptc_result_json": (ctypes.c_char_p, [_handle, ctypes.c_void_p]),
}


def holding_gil(lib):
    """`lib` loaded again through ctypes.PyDLL (the same library: dlopen
    hands back the loaded one), with the result readers declared: its calls
    keep the GIL."""
    py = ctypes.PyDLL(lib._name)
    _declare(py, _RESULT_SIGNATURES)
    return py


class ProtocolUnavailable(ImportError):
    """libptc_protocol (the lisp_eval tool and the agent loop) could not be
    loaded; `import ptc` and everything else of the module still work."""


# void (*ptc_protocol_llm_fn)(void* user, const char* request_json,
#                             size_t request_len, ptc_protocol_llm_reply* reply)
LLM_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, _size, ctypes.c_void_p)

_out_text = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_size)]
_PROTOCOL_SIGNATURES = {
    "ptc_protocol_free": (None, [ctypes.c_void_p]),
    "ptc_protocol_tool_schema": (_status, [_text, ctypes.c_int] + _out_text),
    "ptc_protocol_lisp_eval": (_status, [_handle, _text, _text, _size, ctypes.c_int] + _out_text),
    "ptc_protocol_render_success": (_status, [_handle, _text, _size] + _out_text),
    "ptc_protocol_render_step_error": (_status, [_handle] + _out_text),
    "ptc_protocol_render_error": (_status, [_text, _text, _size, _text, _size] + _out_text),
    "ptc_protocol_llm_reply_set_json": (_status, [ctypes.c_void_p, _text, _size]),
    "ptc_protocol_llm_reply_set_error": (_status, [ctypes.c_void_p, _text, _size]),
    "ptc_protocol_agent_run": (_status, [_text, _size, _handle, LLM_FN, ctypes.c_void_p]
                               + _out_text),
    "ptc_protocol_agent_describe": (_status, [_text, _size, _handle] + _out_text),
}


def load_protocol():
    """libptc_protocol with its functions declared; ProtocolUnavailable
    naming the file and every place tried when it does not load."""
    lib, tried = _load("PTC_PROTOCOL_LIBRARY", PROTOCOL_SONAME, _PROTOCOL_SIGNATURES,
                       "the protocol C API")
    if lib is None:
        raise ProtocolUnavailable(
            f"ptc: the protocol layer (lisp_eval_tool, tool_schema, render_*, Agent) needs "
            f"{PROTOCOL_SONAME}, which could not be loaded; tried " + "; ".join(tried) +
            ". Install it beside libptc.so.0 (the wheel and `cmake --install` do) or set "
            "PTC_PROTOCOL_LIBRARY to its full path.")
    return lib
