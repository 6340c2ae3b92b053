"""The C library, found and called through its one JSON entry point.

kvplan_json takes a request document and answers with the document
``kvplan ... --json`` prints: no struct is mirrored here, so a new library
version cannot be misread. The library is looked for as:

1. ``$KVPLAN_LIBRARY`` (a path to libkvplan.so);
2. the one installed with the package (beside this file);
3. the project's own build, ``build/lib/libkvplan.so`` (an editable install
   or a checkout on ``PYTHONPATH``);
4. the system's (``ctypes.util.find_library("kvplan")``).
"""

import ctypes
import ctypes.util
import json
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_lib = None


def _candidates():
    given = os.environ.get("KVPLAN_LIBRARY")
    if given:
        return [given]
    out = [os.path.join(_HERE, "libkvplan.so"),
           os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", "lib",
                        "libkvplan.so")]
    found = ctypes.util.find_library("kvplan")
    if found:
        out.append(found)
    return out


def library():
    """The loaded library (ctypes.CDLL); OSError when none is found."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            if not hasattr(lib, "kvplan_json"):
                tried.append("%s (no kvplan_json: a library before 0.5)" % path)
                continue
            lib.kvplan_json.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_void_p),
                                        ctypes.POINTER(ctypes.c_size_t)]
            lib.kvplan_json.restype = ctypes.c_int
            lib.kvplan_json_free.argtypes = [ctypes.c_void_p]
            lib.kvplan_json_free.restype = None
            lib.kvplan_version.argtypes = []
            lib.kvplan_version.restype = ctypes.c_char_p
            _lib = lib
            return lib
        raise OSError("kvplan: the C library libkvplan.so was not found; "
                      "tried: " + "; ".join(tried) +
                      ". Install with pip install ./python, or set "
                      "KVPLAN_LIBRARY")


def call(request):
    """Runs one request (a dict); returns (exit status, document)."""
    lib = library()
    data = json.dumps(request).encode("utf-8")
    resp = ctypes.c_void_p()
    size = ctypes.c_size_t()
    status = lib.kvplan_json(data, len(data), ctypes.byref(resp),
                             ctypes.byref(size))
    if not resp.value:
        raise MemoryError("kvplan: out of memory")
    try:
        text = ctypes.string_at(resp.value, size.value).decode("utf-8")
    finally:
        lib.kvplan_json_free(resp)
    return status, json.loads(text)


def version():
    return library().kvplan_version().decode()
