"""The C library, found and called through its JSON entry point.

kvplan_json (kvplan_json.h) takes a request document and answers with the
document ``kvplan ... --json`` prints: no struct is mirrored here, so a new
library version cannot be misread. The answer comes as Python's pickle of
that document (KVPLAN_ENCODING_PICKLE: dicts, lists and scalars only, the
same values the JSON reads back; tests/test_binding.py checks the two
agree), which pickle.loads turns into dicts in half the time json.loads
takes. Each thread keeps one session (kvplan_json_session): the models it
loaded are kept for the calls that name them again, so that planning the
same model many times loads it once.
The library is looked for as:

1. ``$KVPLAN_LIBRARY`` (a path to libkvplan.so);
2. the one installed with the package (beside this file);
3. the project's own build, ``build/lib/libkvplan.so`` (an editable install
   or a checkout on ``PYTHONPATH``);
4. the system's (``ctypes.util.find_library("kvplan")``), asked only when
   the others are not there.
"""

import ctypes
import json
import os
import pickle
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_lib = None
_local = threading.local()

# kvplan_status values (kvplan.h): pinned, never renumbered
OK = 0
NOT_ENOUGH_MEMORY = 3
NOMEM = 6
# kvplan_encoding (kvplan_json.h)
ENCODING_JSON = 0
ENCODING_PICKLE = 1


def _candidates():
    given = os.environ.get("KVPLAN_LIBRARY")
    if given:
        yield given
        return
    yield os.path.join(_HERE, "libkvplan.so")
    yield os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", "lib",
                       "libkvplan.so")
    import ctypes.util  # slow (it may run a compiler): the last resort
    found = ctypes.util.find_library("kvplan")
    if found:
        yield found


def _declare(lib):
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.kvplan_json_session_new.argtypes = []
    lib.kvplan_json_session_new.restype = vp
    lib.kvplan_json_session_free.argtypes = [vp]
    lib.kvplan_json_session_free.restype = None
    lib.kvplan_json_session_call_as.argtypes = [
        vp, ctypes.c_int, ctypes.c_char_p, sz, ctypes.POINTER(vp),
        ctypes.POINTER(sz)]
    lib.kvplan_json_session_call_as.restype = ctypes.c_int
    lib.kvplan_json_free.argtypes = [vp]
    lib.kvplan_json_free.restype = None
    lib.kvplan_scenarios_load.argtypes = [ctypes.c_char_p, sz,
                                          ctypes.POINTER(vp), vp]
    lib.kvplan_scenarios_load.restype = ctypes.c_int
    lib.kvplan_scenarios_count.argtypes = [vp]
    lib.kvplan_scenarios_count.restype = sz
    lib.kvplan_scenarios_run_as.argtypes = [vp, ctypes.c_int,
                                            ctypes.POINTER(vp),
                                            ctypes.POINTER(sz)]
    lib.kvplan_scenarios_run_as.restype = ctypes.c_int
    lib.kvplan_scenarios_free.argtypes = [vp]
    lib.kvplan_scenarios_free.restype = None
    lib.kvplan_version.argtypes = []
    lib.kvplan_version.restype = ctypes.c_char_p
    lib.kvplan_option_find.argtypes = [ctypes.c_char_p]
    lib.kvplan_option_find.restype = vp


def library():
    """The loaded library (ctypes.CDLL); OSError when none is found."""
    global _lib
    if _lib is not None:  # loaded once, then only read
        return _lib
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
            if not hasattr(lib, "kvplan_json_session_call_as"):
                tried.append("%s (no kvplan_json_session_call_as: a library "
                             "before 0.7)" % path)
                continue
            _declare(lib)
            _lib = lib
            return lib
        raise OSError("kvplan: the C library libkvplan.so was not found; "
                      "tried: " + "; ".join(tried) +
                      ". Install with pip install ./python, or set "
                      "KVPLAN_LIBRARY")


class _Session:
    """This thread's kvplan_json_session, freed with the thread, and the
    places its calls write their answer's address and length (one thread's
    own: a call is made again only once the one before has returned)."""

    def __init__(self, lib):
        self.lib = lib
        self.handle = lib.kvplan_json_session_new()
        if not self.handle:
            raise MemoryError("kvplan: out of memory")
        self.resp = ctypes.c_void_p()
        self.size = ctypes.c_size_t()
        self.resp_ref = ctypes.byref(self.resp)
        self.size_ref = ctypes.byref(self.size)

    def __del__(self):
        if getattr(self, "handle", None):
            self.lib.kvplan_json_session_free(self.handle)
            self.handle = None


def _session(lib):
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = _Session(lib)
    return s


def _answer(lib, resp, size):
    """The document of an answer (pickle's bytes), the answer freed."""
    try:
        return pickle.loads(ctypes.string_at(resp.value, size.value))
    finally:
        lib.kvplan_json_free(resp)


def call(request, encoding=ENCODING_PICKLE):
    """Runs one request (a dict); returns (the library's status, document).
    ``encoding=ENCODING_JSON`` reads the JSON text instead (for a test
    that compares the two)."""
    lib = library()
    s = _session(lib)
    data = json.dumps(request).encode("utf-8")
    status = lib.kvplan_json_session_call_as(s.handle, encoding, data,
                                             len(data), s.resp_ref,
                                             s.size_ref)
    resp, size = s.resp, s.size
    if not resp.value:
        raise MemoryError("kvplan: out of memory")
    if encoding == ENCODING_PICKLE:
        return status, _answer(lib, resp, size)
    try:
        text = ctypes.string_at(resp.value, size.value).decode("utf-8")
    finally:
        lib.kvplan_json_free(resp)
    return status, json.loads(text)


class Prepared:
    """Scenarios read once by the library (kvplan_scenarios)."""

    def __init__(self, text):
        """`text`: a JSON list of scenarios, or their JSON lines. False
        (nothing read) when the library refuses one: ask command pools for
        its error document."""
        lib = self.lib = library()
        data = text.encode("utf-8")
        handle = ctypes.c_void_p()
        status = lib.kvplan_scenarios_load(data, len(data),
                                           ctypes.byref(handle), None)
        self.handle = handle.value
        self.ok = status == OK

    def __len__(self):
        return self.lib.kvplan_scenarios_count(self.handle)

    def run(self):
        resp = ctypes.c_void_p()
        size = ctypes.c_size_t()
        status = self.lib.kvplan_scenarios_run_as(
            self.handle, ENCODING_PICKLE, ctypes.byref(resp),
            ctypes.byref(size))
        if status != OK or not resp.value:
            raise MemoryError("kvplan: out of memory")
        return _answer(self.lib, resp, size)

    def __del__(self):
        if getattr(self, "handle", None):
            self.lib.kvplan_scenarios_free(self.handle)
            self.handle = None


def version():
    return library().kvplan_version().decode()


def option_known(name):
    """Whether the library takes an option of this name: one it reads, or
    one of sglang's flags it lists as not read (kvplan_option_find)."""
    return bool(library().kvplan_option_find(name.encode()))
