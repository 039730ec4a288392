"""Finds and loads libptc (the C API of include/ptc/ptc.h) and declares the
functions this package calls.

Where the library is looked for, in order:

1. ``$PTC_LIBRARY``, a full path; when set, it is the only candidate.
2. In the package folder: ``ptc/libptc.so.0``, where the wheel
   (``cmake --build build --target python-wheel``) puts it.
3. Next to an installed package: the package is ``<prefix>/lib/python3/
   dist-packages/ptc/`` and the library ``<prefix>/lib/libptc.so.0`` or
   ``<prefix>/lib/<multiarch>/libptc.so.0``.
4. The system loader: ``libptc.so.0`` (ld.so.cache, LD_LIBRARY_PATH).

ctypes.CDLL releases the GIL for the duration of every call, so Python
threads run programs at once; tool callbacks take the GIL back while they run.
"""

import ctypes
import os
import pathlib
import sysconfig

SONAME = "libptc.so.0"

# ptc_status
OK = 0
PROGRAM_ERROR = 1
INVALID_ARGUMENT = 2
OUT_OF_MEMORY = 3
INTERNAL = 4

# Handles are opaque pointers; text goes in as (bytes, length).
_handle = ctypes.c_void_p
_size = ctypes.c_size_t
_status = ctypes.c_int
_text = ctypes.c_char_p

# void (*ptc_tool_fn)(void* user, const char* name, const char* args_json,
#                     size_t args_len, ptc_tool_reply* reply)
TOOL_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, _size,
                           ctypes.c_void_p)

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
    "ptc_options_add_tool": (_status, [_handle, _text, TOOL_FN, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_int]),
    "ptc_options_defer_tool": (_status, [_handle, _text, _size]),
    "ptc_options_add_deferred_tool": (_status, [_handle, _text, ctypes.c_int]),
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


def candidates():
    """The paths (or loader names) tried, in order."""
    explicit = os.environ.get("PTC_LIBRARY")
    if explicit:
        return [explicit]
    package = pathlib.Path(__file__).resolve().parent
    # A wheel carries its own library: it goes before any other a prefix or
    # the system may hold, which could be of another version.
    found = [str(package / SONAME)]
    # <prefix>/lib/python3/dist-packages/ptc -> <prefix>/lib
    if len(package.parents) >= 3:
        lib = package.parents[2]
        found.append(str(lib / SONAME))
        multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
        found.append(str(lib / multiarch / SONAME))
    found.append(SONAME)
    return found


def load():
    """The loaded library with its functions declared; ImportError naming
    every candidate tried (and why each failed) when none loads."""
    tried = []
    for candidate in candidates():
        # A path that does not exist is skipped; the bare name goes to the loader.
        if os.sep in candidate and not os.path.exists(candidate):
            tried.append(f"{candidate} (no such file)")
            continue
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as e:
            tried.append(f"{candidate} ({e})")
            continue
        missing = [name for name in _SIGNATURES if not hasattr(lib, name)]
        if missing:
            tried.append(f"{candidate} (does not export the C API: no {missing[0]})")
            continue
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        return lib
    raise ImportError(
        "ptc: cannot load the ptc-lisp library; tried " + "; ".join(tried) +
        ". Install libptc (libptc.so.0) or set PTC_LIBRARY to its full path.")
