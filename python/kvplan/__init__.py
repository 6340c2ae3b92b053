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

A value the library refuses raises kvplan.Error (``field`` names the
keyword as given, ``message`` says what was expected; True or False for an
option that takes a value is refused, as any value of the wrong type is); a
plan that does not fit raises kvplan.DoesNotFit, its subclass.

``kvplan.Scenarios`` reads configurator scenarios once (the golden schema)
and answers them as often as asked, without reading them again.
"""

import dataclasses
import json
import os
from typing import Any, Dict, Iterable, List, Optional

from . import _native

__version__ = "0.7.0"

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
         flags: Dict[str, Any]) -> Dict[str, Any]:
    env = flags.pop("env", None)
    r: Dict[str, Any] = {"command": command, "flags": _flags(flags)}
    if env is not None:
        r["env"] = dict(env)
    if model is not None:
        r["model"] = os.fspath(model)
    if config is not None:
        r["config"] = config
    return r


def plan(model: Optional[str] = None, *, config: Any = None,
         svg: bool = False, **flags: Any) -> Dict[str, Any]:
    """The plan of one server (``kvplan --json``): ``model`` a catalog name,
    a Hugging Face id or a path; or ``config`` config.json itself (a dict
    or its text). With ``svg=True`` the document has "svg", the picture."""
    r = _req("plan", model, config, flags)
    if svg:
        r["svg"] = True
    return request(r)


def fit(model: Optional[str] = None, *, config: Any = None,
        **flags: Any) -> Dict[str, Any]:
    """``kvplan fit``: the longest context at ``concurrency`` requests."""
    return request(_req("fit", model, config, flags))


def solve(model: Optional[str] = None, *, config: Any = None,
          **flags: Any) -> Dict[str, Any]:
    """``kvplan solve``: the least value of ``solve_for`` reaching
    ``target_tokens`` or ``target_concurrency``."""
    return request(_req("solve", model, config, flags))


def sweep(model: Optional[str] = None, *, config: Any = None,
          **flags: Any) -> List[Dict[str, Any]]:
    """``kvplan sweep``: each flag a value or a list; the rows, best first
    (``rank_by``)."""
    flags = {k: list(v) if isinstance(v, (tuple, set, range)) else v
             for k, v in flags.items()}
    return request(_req("sweep", model, config, flags))


def compare(model: Optional[str] = None, *, config: Any = None,
            **flags: Any) -> Dict[str, Any]:
    """``kvplan compare``: the model under sglang, vLLM and TensorRT-LLM
    side by side, and why they differ. ``plan(engine="vllm", ...)`` gives
    one engine's whole plan (docs/engines.md)."""
    return request(_req("compare", model, config, flags))


def log(text_or_path: str, model: Optional[str] = None, **flags: Any
        ) -> Dict[str, Any]:
    """``kvplan log``: an sglang start-up log (its text, or a file's path)
    read back and set beside the plan."""
    text = text_or_path
    if "\n" not in text_or_path and os.path.isfile(text_or_path):
        with open(text_or_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
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
    return doc if isinstance(doc, list) else [doc]


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
    sglang (one of sglang's, or kvplan's own), words, help."""
    return request({"command": "flags"})


def library_version() -> str:
    return _native.version()


def plan_from_server_args(args: Any, *, command: str = "plan",
                          **extra: Any) -> Dict[str, Any]:
    """The plan of the server sglang's ``ServerArgs`` (or any object with
    its attribute names) would launch. Every sglang flag kvplan reads is
    taken from the attributes that are set (not None); ``extra`` adds
    kvplan's own (gpu, available_bytes) and overrides."""
    taken: Dict[str, Any] = {}
    model = getattr(args, "model_path", None)
    for f in flags():
        key = f["key"]
        if not f["sglang"] or key == "model_path":
            continue
        v = getattr(args, key, None)
        if v is None:
            continue
        if key == "json_model_override_args" and v in ("", "{}"):
            continue
        taken[key] = v
    taken.update(extra)
    model = taken.pop("model", model)
    return request(_req(command, model, taken.pop("config", None), taken))


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
    def of(cls, doc: Dict[str, Any]) -> "Plan":
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
