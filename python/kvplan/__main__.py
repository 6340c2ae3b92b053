"""``python -m kvplan`` and the ``kvplan`` script of the Python package:
one question asked from the command line, its JSON document printed.

    python -m kvplan [COMMAND] [--flag VALUE | --flag=VALUE | --switch]...

COMMAND is plan (default), fit, solve, sweep, compare, models, gpus, flags
or version; the flags are the C command's (``python -m kvplan flags``
lists them), read by the same library with the same words and checks.
A sweep's comma lists are its values. An error prints ``kvplan: MESSAGE``
on standard error and exits with the command's status (1 does not fit, 2
usage, 3 bad input, 4 internal).
"""

import json
import os
import sys
from typing import Dict, List, Optional

from . import Error, _native, flags as _flag_docs

COMMANDS = ("plan", "fit", "solve", "sweep", "compare", "models", "gpus",
            "flags", "version")


USAGE = ("usage: python -m kvplan [COMMAND] [--flag VALUE | --flag=VALUE | "
         "--switch]...\n  COMMAND: %s (default plan); the flags: python -m "
         "kvplan flags\n" % ", ".join(COMMANDS))


def _usage(out) -> None:
    out.write(USAGE)


def _request(argv: List[str]) -> Dict:
    command = "plan"
    if argv and not argv[0].startswith("-"):
        command = argv.pop(0)
        if command not in COMMANDS:
            raise SystemExit("kvplan: %r is not a command: %s"
                             % (command, ", ".join(COMMANDS)))
    docs = {f["flag"]: f for f in _flag_docs()}
    flags: Dict[str, object] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--json",):
            i += 1
            continue
        if arg == "--":
            raise SystemExit("kvplan: a pasted launch command is read by the "
                             "C command (kvplan -- ...), not by python -m "
                             "kvplan")
        if not arg.startswith("--"):
            raise SystemExit("kvplan: unexpected argument %r" % arg)
        name, eq, value = arg.partition("=")
        doc: Optional[Dict] = docs.get(name)
        if doc is not None and doc["kind"] == "boolean" and not eq:
            flags[name] = True
            i += 1
            continue
        if not eq:
            if i + 1 >= len(argv):
                raise SystemExit("kvplan: %s needs a value" % name)
            value = argv[i + 1]
            i += 1
        i += 1
        if command == "sweep" and doc is not None and doc.get("sweep"):
            flags[name] = value.split(",")
        else:
            flags[name] = value
    return {"command": command, "flags": flags}


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help", "help"):
        _usage(sys.stdout)
        return 0
    req = _request(argv)
    status, doc = _native.call(req)
    if isinstance(doc, dict) and "error" in doc:
        e = Error(doc)
        sys.stderr.write("kvplan: %s\n" % e.message)
        return int(doc.get("exit_status") or 3)
    try:
        json.dump(doc, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that stopped (| head): as sh does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:
        sys.stderr.write("kvplan: cannot write the output: %s\n" % e.strerror)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
