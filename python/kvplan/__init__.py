"""kvplan: plan an LLM server's KV-cache memory as sglang would, exactly.

Each call asks the C library one question through its JSON entry point
(kvplan_json) and returns the document ``kvplan ... --json`` prints, as
plain dicts and lists. A model named again is not loaded again: each thread
keeps the models it loaded (by catalog name or inline config). Flags go by
sglang's ServerArgs names (kvplan.flags() lists them)::

    >>> import kvplan
    >>> p = kvplan.plan("llama-3.1-8b-instruct", available_bytes=107374182400,
    ...                 page_size=64)
    >>> p["max_total_num_tokens"]
    819200
    >>> kvplan.Plan.of(p).max_concurrency_at_context_len
    6

``env={"SGLANG_MAMBA_SSM_DTYPE": "float16"}`` sets sglang's variables for
one call (None unsets one), as the process's environment does for the
command.

A keyword kvplan does not take, or a value not of its option's kind (a
bool or a float where an integer goes), raises TypeError; NaN or an
integer past 64 bits raises ValueError, as Python says them. A value the
library refuses raises kvplan.Error (``field`` names the keyword as given,
``message`` says what was expected); a plan that does not fit raises
kvplan.DoesNotFit, its subclass.

``python -m kvplan`` (and the ``kvplan-py`` script) runs a question from
the command line and prints its JSON document.

``kvplan.Scenarios`` reads configurator scenarios once (the golden schema)
and answers them as often as asked, without reading them again.
"""

import dataclasses
import inspect
import json
import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

if TYPE_CHECKING:  # PEP 692's keywords of a TypedDict, for type checkers
    from typing_extensions import TypedDict, Unpack
else:
    from typing import TypedDict

from . import _check, _native

__version__ = "0.14.0"

__all__ = ["plan", "fit", "solve", "sweep", "compare", "log", "pools",
           "Scenarios", "models", "gpus", "flags", "request",
           "plan_from_server_args", "library_version", "Plan", "Error",
           "DoesNotFit"]


class Error(Exception):
    """A request kvplan refused: ``field`` (the keyword or member, or None),
    ``message``, ``status`` (the library's, "KVPLAN_PARSE"), ``exit_status``
    (the command's: 1 does not fit, 2 usage, 3 bad input, 4 internal) and
    the whole error ``document``."""

    def __init__(self, document: Dict[str, Any]):
        self.document = document
        self.field = document.get("field")
        self.message = document.get("message", "")
        self.status = document.get("error")
        self.exit_status = document.get("exit_status")
        super().__init__(("%s: %s" % (self.field, self.message))
                         if self.field else self.message)


class DoesNotFit(Error):
    """The budget cannot hold the pools (the command's exit status 1)."""


def request(req: Dict[str, Any]) -> Any:
    """Runs a request document as is (docs/json-api.md) and returns the
    answer; an error answer raises Error."""
    status, doc = _native.call(req)
    if isinstance(doc, dict) and "error" in doc:
        fits = status != _native.NOT_ENOUGH_MEMORY
        raise (Error if fits else DoesNotFit)(doc)
    return doc


def _flags(flags: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in flags.items() if v is not None}


def _req(command: str, model: Optional[str], config: Any,
         flags: Dict[str, Any], unread: Optional[Dict[str, Any]] = None
         ) -> Dict[str, Any]:
    _check.check(command, flags, _check.table(flags_table),
                 sweep=command == "sweep")
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise TypeError("%s(): model must be a str or a path, not %s"
                        % (command, type(model).__name__))
    env = flags.pop("env", None)
    if env is not None and not isinstance(env, Mapping):
        raise TypeError("%s(): env must be a mapping of variables to str or "
                        "None, not %s" % (command, type(env).__name__))
    if isinstance(model, str) and "\0" in model:
        raise ValueError("%s(): model: embedded null character" % command)
    if isinstance(config, Mapping):
        # config.json as Python's json writes it (NaN and Infinity as bare
        # tokens, which the library reads as transformers does and refuses
        # in a field it reads, naming the field)
        config = json.dumps(config)
    if unread:  # sglang's flags kvplan does not read: listed by the library
        flags = dict(flags, **unread)
    r: Dict[str, Any] = {"command": command, "flags": _flags(flags)}
    if env is not None:
        r["env"] = dict(env)
    if model is not None:
        r["model"] = os.fspath(model)
    if config is not None:
        r["config"] = config
    return r


class Options(TypedDict, total=False):
    """The common options, by their keys (``kvplan.flags()`` lists all):
    the keywords an editor completes for plan, fit, solve and compare."""

    tp_size: int
    pp_size: int
    dp_size: int
    gpu: str
    context_length: int
    kv_cache_dtype: str
    mem_fraction_static: float
    page_size: int
    max_running_requests: int
    available_bytes: Union[int, str]
    engine: str
    sglang_version: str
    env: Dict[str, Optional[str]]


def _options(fn):
    """Shows the common options in the function's signature (help(),
    inspect, a notebook's completion); type checkers read Options through
    ``**flags: Unpack[Options]``."""
    sig = inspect.signature(fn)
    own = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    rest = [p for p in sig.parameters.values() if p.kind == p.VAR_KEYWORD]
    common = [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None,
                                annotation=Optional[t])
              for k, t in Options.__annotations__.items()]
    fn.__signature__ = sig.replace(parameters=own + common + rest)
    return fn


@_options
def plan(model: Optional[str] = None, *, config: Any = None,
         svg: bool = False, **flags: "Unpack[Options]") -> Dict[str, Any]:
    """The plan of one server (``kvplan --json``): ``model`` a catalog name,
    a Hugging Face id or a path; or ``config`` config.json itself (a dict
    or its text). With ``svg=True`` the document has "svg", the picture."""
    r = _req("plan", model, config, dict(flags))
    if svg:
        r["svg"] = True
    return request(r)


@_options
def fit(model: Optional[str] = None, *, config: Any = None,
        concurrency: Optional[int] = None,
        **flags: "Unpack[Options]") -> Dict[str, Any]:
    """``kvplan fit``: the longest context at ``concurrency`` requests, or
    the most requests of ``context_length`` tokens."""
    flags = dict(flags)
    if concurrency is not None:
        flags["concurrency"] = concurrency
    return request(_req("fit", model, config, flags))


@_options
def solve(model: Optional[str] = None, *, config: Any = None,
          target_tokens: Optional[int] = None,
          target_concurrency: Optional[int] = None,
          solve_for: Optional[str] = None,
          **flags: "Unpack[Options]") -> Dict[str, Any]:
    """``kvplan solve``: the least value of ``solve_for`` reaching
    ``target_tokens`` or ``target_concurrency``."""
    flags = dict(flags)
    for k, v in (("target_tokens", target_tokens),
                 ("target_concurrency", target_concurrency),
                 ("solve_for", solve_for)):
        if v is not None:
            flags[k] = v
    return request(_req("solve", model, config, flags))


def sweep(model: Optional[str] = None, *, config: Any = None,
          **flags: Any) -> List[Dict[str, Any]]:
    """``kvplan sweep``: each flag a value or a list; the rows, best first
    (``rank_by``)."""
    flags = {k: list(v) if isinstance(v, (tuple, set, range)) else v
             for k, v in flags.items()}
    return request(_req("sweep", model, config, flags))


@_options
def compare(model: Optional[str] = None, *, config: Any = None,
            **flags: "Unpack[Options]") -> Dict[str, Any]:
    """``kvplan compare``: the model under sglang, vLLM and TensorRT-LLM
    side by side, and why they differ. ``plan(engine="vllm", ...)`` gives
    one engine's whole plan (docs/engines.md)."""
    return request(_req("compare", model, config, dict(flags)))


_MAX_LOG = 64 << 20  # the library's cap on a log


def log(text_or_path: Union[str, "os.PathLike[str]"],
        model: Optional[str] = None, **flags: Any) -> Dict[str, Any]:
    """``kvplan log``: an sglang start-up log (its text, or a file's path)
    read back and set beside the plan. A path that is not a file raises
    FileNotFoundError or IsADirectoryError; a file over 64 MiB ValueError."""
    path = None
    if isinstance(text_or_path, os.PathLike):
        path = os.fspath(text_or_path)
    elif not isinstance(text_or_path, str):
        raise TypeError("log(): text_or_path must be a str or a path, not %s"
                        % type(text_or_path).__name__)
    elif "\n" not in text_or_path and (
            os.path.exists(text_or_path) or " " not in text_or_path.strip()):
        path = text_or_path  # one word: a path, never a log's text
    text = text_or_path
    if path is not None:
        if os.path.isdir(path):
            raise IsADirectoryError("log(): %s is a folder, not a log" % path)
        if not os.path.exists(path):
            raise FileNotFoundError("log(): no such file: %s" % path)
        with open(path, "rb") as f:
            data = f.read(_MAX_LOG + 1)
        if len(data) > _MAX_LOG:
            raise ValueError("log(): %s is larger than 64 MiB; a start-up "
                             "log is far smaller" % path)
        text = data.decode("utf-8", errors="replace")
    r = _req("log", model, None, flags)
    r["log"] = text
    return request(r)


def pools(scenarios: Any) -> List[Dict[str, Any]]:
    """``kvplan pools``: configurator scenarios (the golden schema: dicts,
    or their JSON lines as one str) in, each answered with its "results"
    as the command writes it. One call reads the scenarios, as JSON, every
    time (about the reference's own time a configurator call): to answer
    the same scenarios again, read them once with ``Scenarios`` (about
    twenty times faster a call than the reference)."""
    if not isinstance(scenarios, str):
        scenarios = list(scenarios)
    status, doc = _native.call({"command": "pools", "scenarios": scenarios})
    if isinstance(doc, dict) and "error" in doc:
        raise Error(doc)
    doc = doc if isinstance(doc, list) else [doc]
    refused = [d for d in doc if isinstance(d, dict) and "error" in d]
    if refused:  # the others' answers ride along: e.results
        e = Error(refused[0])
        e.results = doc
        raise e
    return doc


class Scenarios:
    """Configurator scenarios read once (the golden schema: dicts, or their
    JSON lines as one str); ``results()`` builds each configurator and makes
    its calls, as the reference oracle does, and returns each scenario's
    "results", without reading the scenarios again. For answering the same
    ranks many times."""

    def __init__(self, scenarios: Any):
        if isinstance(scenarios, str):
            text = scenarios
        else:
            text = json.dumps(list(scenarios))
        self._prepared = _native.Prepared(text)
        if not self._prepared.ok:  # the error, in command pools' words
            pools(text if isinstance(scenarios, str) else json.loads(text))
            raise Error({"error": "KVPLAN_PARSE", "message":
                         "the scenarios could not be read"})

    def __len__(self) -> int:
        return len(self._prepared)

    def results(self) -> List[List[Dict[str, Any]]]:
        """Each scenario's answers, one per call."""
        return self._prepared.run()


def models() -> List[Dict[str, Any]]:
    """The built-in catalog: name, hf_id, architecture, draft_head."""
    return request({"command": "models"})


def gpus() -> List[Dict[str, Any]]:
    """The GPU presets: name, total_mib, arch."""
    return request({"command": "gpus"})


def flags() -> List[Dict[str, Any]]:
    """The flags kvplan reads: flag, key (the ServerArgs name), kind,
    sglang (one of sglang's, or kvplan's own), sweep, words, help."""
    return request({"command": "flags"})


flags_table = flags  # the keywords' kinds (_check.table reads it once)


def library_version() -> str:
    return _native.version()


def _given_attributes(args: Any) -> List[str]:
    """An object's attributes that were given: a dataclass's (sglang's
    ServerArgs) that differ from their defaults, else all of its own."""
    if dataclasses.is_dataclass(args):
        out = []
        for f in dataclasses.fields(args):
            v = getattr(args, f.name, None)
            default = (f.default if f.default is not dataclasses.MISSING
                       else f.default_factory()
                       if f.default_factory is not dataclasses.MISSING
                       else None)
            if v is not None and v != default:
                out.append(f.name)
        return out
    return [k for k, v in vars(args).items()
            if v is not None and not k.startswith("_")] \
        if hasattr(args, "__dict__") else []


def plan_from_server_args(args: Any, *, command: str = "plan",
                          **extra: Any) -> Dict[str, Any]:
    """The plan of the server sglang's ``ServerArgs`` would launch: the
    object itself (its attributes), or a mapping of its names
    (``{"model_path": ..., "tp_size": 2}``). Every sglang option kvplan
    reads is taken where set (not None); a mapping's other sglang flags are
    listed as not read, and a key that is no sglang flag is refused.
    ``extra`` adds kvplan's own (gpu, available_bytes) and overrides."""
    if isinstance(args, Mapping):
        get = args.get
        names = [k for k in args if args[k] is not None]
    elif isinstance(args, (str, bytes, int, float, list, tuple)) or args is None:
        raise TypeError("plan_from_server_args(): args must be sglang's "
                        "ServerArgs, an object with its attributes or a "
                        "mapping of them, not %s" % type(args).__name__)
    else:
        get = lambda key, default=None: getattr(args, key, default)  # noqa
        names = _given_attributes(args)
    tab = _check.table(flags_table)
    sglang = [key for key, (_, _, own) in tab.items() if own]
    taken: Dict[str, Any] = {}
    unread: Dict[str, Any] = {}
    unknown: List[str] = []
    for key in sglang:
        if key == "model_path":
            continue
        v = get(key, None)
        if v is None or (key == "json_model_override_args"
                         and v in ("", "{}")):
            continue
        taken[key] = v
    for key in names:  # the flags given that kvplan does not read
        if key in tab or key == "model_path":
            continue
        if isinstance(args, Mapping) or _native.option_known(key):
            unread[key] = True  # listed (a mapping's unknown key refused)
        else:
            unknown.append(key)
    if unknown:  # a newer sglang's, perhaps: named, not dropped silently
        warnings.warn("plan_from_server_args(): kvplan does not know these "
                      "attributes, and does not read them: %s"
                      % ", ".join(sorted(unknown)), stacklevel=2)
    taken.update(extra)
    model = taken.pop("model", get("model_path", None))
    return request(_req(command, model, taken.pop("config", None), taken,
                        unread))


@dataclasses.dataclass(frozen=True)
class Plan:
    """A small typed view of a plan document (``Plan.of(kvplan.plan(...))``);
    the document itself stays the whole answer."""

    model: str
    configurator: str
    max_total_num_tokens: int
    max_running_requests: int
    context_len: int
    page_size: int
    kv_cache_dtype: str
    cell_size: float
    available_bytes: int
    mem_fraction_static: Optional[float]
    gpu: Optional[str]
    max_concurrency_at_context_len: int
    longest_request_tokens: int
    binding: str
    warnings: List[str]

    @classmethod
    def of(cls, doc: Any) -> "Plan":
        """Of a plan, or of any document that holds one: fit's, solve's, a
        sweep row's ("plan"), or another engine's plan (--engine)."""
        if isinstance(doc, list):
            raise TypeError("Plan.of(): a sweep's rows hold a plan each: "
                            "[Plan.of(row) for row in rows]")
        if not isinstance(doc, Mapping):
            raise TypeError("Plan.of(): expected a document (dict), not %s"
                            % type(doc).__name__)
        if isinstance(doc.get("plan"), Mapping):
            return cls.of(doc["plan"])
        if "engines" in doc:
            raise TypeError("Plan.of(): a comparison holds one plan per "
                            "engine: Plan.of(doc['vllm']), "
                            "Plan.of(doc['trtllm'])")
        if "kv_cache_tokens" in doc:
            return cls._of_engine(doc)
        if "configurator" not in doc:
            raise TypeError("Plan.of(): not a plan document (it has no "
                            "configurator): %s" % ", ".join(sorted(doc)[:8]))
        cap = doc.get("capacity") or {}
        gpu = doc.get("gpu") or {}
        budget = doc.get("budget") or {}
        return cls(
            model=doc["model"]["name"],
            configurator=doc["configurator"],
            max_total_num_tokens=doc["max_total_num_tokens"],
            max_running_requests=doc["max_running_requests"],
            context_len=doc["context_len"],
            page_size=doc["page_size"],
            kv_cache_dtype=doc["kv_cache_dtype"],
            cell_size=float(doc["cell_size"]),
            available_bytes=doc["available_bytes"],
            mem_fraction_static=budget.get("mem_fraction_static"),
            gpu=gpu.get("name"),
            max_concurrency_at_context_len=cap.get(
                "max_concurrency_at_context_len", 0),
            longest_request_tokens=cap.get("longest_request_tokens", 0),
            binding=cap.get("binding", ""),
            warnings=list(doc.get("warnings") or []),
        )

    @classmethod
    def _of_engine(cls, doc: Dict[str, Any]) -> "Plan":
        """vLLM's or TensorRT-LLM's plan in the same terms."""
        gpu = doc.get("gpu") or {}
        budget = doc.get("budget") or {}
        return cls(
            model=doc["model"],
            configurator=doc["engine"],
            max_total_num_tokens=doc["kv_cache_tokens"],
            max_running_requests=doc["max_num_seqs"],
            context_len=doc["max_model_len"],
            page_size=doc["block_size"],
            kv_cache_dtype=(doc.get("requested") or {}).get(
                "kv_cache_dtype", "auto"),
            cell_size=float(doc["bytes_per_token"]),
            available_bytes=budget.get("available_bytes", 0),
            mem_fraction_static=None,
            gpu=gpu.get("name"),
            max_concurrency_at_context_len=int(doc["max_concurrency"]),
            longest_request_tokens=doc["max_model_len"],
            binding="",
            warnings=list(doc.get("notes") or []),
        )
