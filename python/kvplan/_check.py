"""Keyword values checked in Python's own words before a request is sent.

The library refuses a value of the wrong type too, but in a request's
terms; here a bool or a float where an integer goes is a TypeError, NaN or
a number past 64 bits a ValueError, and an unknown keyword a TypeError with
the nearest one, as Python names them. The kinds come from the library's
own table of options (``kvplan.flags()``), read once.
"""

import difflib
import math
import numbers
import operator
import os
import threading
from typing import Any, Dict, Optional, Tuple

_lock = threading.Lock()
# key -> (kind, sweep, sglang's own)
_table: Optional[Dict[str, Tuple[str, bool, bool]]] = None

# the keywords the functions take beside the options
OWN = frozenset({"env"})
INT64 = 1 << 63


def table(flags_doc) -> Dict[str, Tuple[str, bool, bool]]:
    """key -> (kind, sweep, sglang) of every option kvplan reads, read
    once."""
    global _table
    with _lock:
        if _table is None:
            _table = {f["key"]: (f["kind"], bool(f.get("sweep")),
                                 bool(f["sglang"])) for f in flags_doc()}
        return _table


def _type_name(v: Any) -> str:
    return type(v).__name__


def _integer(fn: str, key: str, v: Any) -> None:
    if isinstance(v, bool):
        raise TypeError("%s(): %s must be an int, not bool" % (fn, key))
    if isinstance(v, float):
        raise TypeError("%s(): %s must be an int, not float (%r)"
                        % (fn, key, v))
    try:
        i = operator.index(v)
    except TypeError:
        raise TypeError("%s(): %s must be an int, not %s"
                        % (fn, key, _type_name(v))) from None
    if not -INT64 <= i < INT64:
        raise ValueError("%s(): %s=%d does not fit in 64 bits" % (fn, key, i))


def _number(fn: str, key: str, v: Any) -> None:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s(): %s must be a float, not %s"
                        % (fn, key, _type_name(v)))
    if isinstance(v, numbers.Integral):
        _integer(fn, key, v)
    elif not math.isfinite(float(v)):
        raise ValueError("%s(): %s must be finite, not %r" % (fn, key, v))


def _one(fn: str, key: str, kind: str, v: Any) -> None:
    if kind == "integer":
        _integer(fn, key, v)
    elif kind == "number":
        _number(fn, key, v)
    elif kind == "size":  # bytes (or MiB for gpu_memory_mib), or "16GB"
        if not isinstance(v, str):
            _integer(fn, key, v)
    elif kind == "boolean":
        if not isinstance(v, bool):
            raise TypeError("%s(): %s must be a bool, not %s"
                            % (fn, key, _type_name(v)))
    elif kind == "object":  # hisparse_config: a dict or its JSON text
        if not isinstance(v, (dict, str)):
            raise TypeError("%s(): %s must be a dict or str, not %s"
                            % (fn, key, _type_name(v)))
    elif not isinstance(v, (str, os.PathLike)):  # words, text, gpu, version
        raise TypeError("%s(): %s must be a str, not %s"
                        % (fn, key, _type_name(v)))
    if isinstance(v, str) and "\0" in v:
        raise ValueError("%s(): %s: embedded null character" % (fn, key))


def check(fn: str, flags: Dict[str, Any],
          tab: Dict[str, Tuple[str, bool, bool]],
          sweep: bool = False) -> None:
    """Raises TypeError or ValueError for a keyword kvplan does not take or a
    value not of its option's kind."""
    for key, v in flags.items():
        if key in OWN or v is None:
            continue
        entry = tab.get(key)
        if entry is None:
            near = difflib.get_close_matches(key, list(tab), n=1)
            raise TypeError("%s() got an unexpected keyword argument %r%s"
                            % (fn, key,
                               "; did you mean %r?" % near[0] if near else ""))
        kind, swept, _ = entry
        if sweep and swept and isinstance(v, list):
            for item in v:
                _one(fn, key, kind, item)
        else:
            _one(fn, key, kind, v)
