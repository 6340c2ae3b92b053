"""The Python binding beside the pure-Python reference, in one process.

usage: python3 bench/python.py GOLDEN.jsonl [ANCHOR_DIR] [ROUNDS]

GOLDEN.jsonl: configurator scenarios in the golden schema (their
"results" are dropped). ANCHOR_DIR: the reference's oracle.py (sglang's
configurator, ../shared/oracle); without it only kvplan's figures print.
The two are timed in alternating rounds and each figure is the median of
its rounds, as bench/compare.sh does for the command.

Prints, one per line, "name: value":

  py_pools_call_us      kvplan.pools(scenarios) on the dicts, per call of
                        a configurator (each scenario's configurator
                        built, its calls made, the answers read back)
  py_scenarios_call_us  the same through kvplan.Scenarios (read once,
                        answered again), per call
  oracle_call_us        the reference's oracle.run on the same dicts, per
                        call (bench_seed.py's "scenario (build + calls)")
  py_plan_us            one kvplan.plan() of llama-3.1-8b-instruct on an
                        H100-80GB (the model loaded once per thread, as
                        the binding keeps it), the document read into
                        dicts: to set beside kvplan-bench's
                        plan_compute_ns, the same plan in C
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import kvplan  # noqa: E402


def per_call(fn, calls, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / (reps * calls) * 1e6


def main():
    golden = sys.argv[1]
    anchor = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    scenarios = [json.loads(line) for line in open(golden)]
    for s in scenarios:
        s.pop("results", None)
    calls = sum(len(s["calls"]) for s in scenarios)
    oracle = None
    if anchor and os.path.isfile(os.path.join(anchor, "oracle.py")):
        sys.path.insert(0, anchor)
        import oracle  # noqa: F401  the reference, sglang's configurator

    prepared = kvplan.Scenarios(scenarios)
    plan_args = dict(gpu="h100-80gb")
    kvplan.plan("llama-3.1-8b-instruct", **plan_args)  # loads the model

    figures = {"py_pools_call_us": [], "py_scenarios_call_us": [],
               "oracle_call_us": [], "py_plan_us": []}
    for _ in range(rounds):
        figures["py_pools_call_us"].append(
            per_call(lambda: kvplan.pools(scenarios), calls, 3))
        figures["py_scenarios_call_us"].append(
            per_call(prepared.results, calls, 3))
        if oracle is not None:
            figures["oracle_call_us"].append(per_call(
                lambda: [oracle.run(dict(s)) for s in scenarios], calls, 1))
        figures["py_plan_us"].append(per_call(
            lambda: kvplan.plan("llama-3.1-8b-instruct", **plan_args), 1,
            2000))
    for name, values in figures.items():
        if values:
            print("%s: %.2f" % (name, statistics.median(values)))


if __name__ == "__main__":
    main()
