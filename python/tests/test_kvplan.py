"""The Python package over the library: standard library unittest (pytest
runs it too). CTest sets KVPLAN_LIBRARY (the library built), KVPLAN_BIN
(the command, to compare with) and KVPLAN_SOURCE (the project)."""

import json
import os
import subprocess
import sys
import threading
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import kvplan  # noqa: E402

BIN = os.environ.get("KVPLAN_BIN")
SOURCE = os.environ.get("KVPLAN_SOURCE",
                        os.path.dirname(os.path.dirname(os.path.dirname(
                            os.path.abspath(__file__)))))


def command(*args, stdin=None):
    """The command's --json document for the same flags."""
    if BIN is None:
        raise unittest.SkipTest("KVPLAN_BIN is not set")
    p = subprocess.run([BIN, *args], input=stdin, capture_output=True,
                       check=False)
    return p.returncode, json.loads(p.stdout)


class PlanTest(unittest.TestCase):
    def test_issue_figure(self):
        p = kvplan.plan("llama-3.1-8b-instruct", available_bytes=107374182400,
                        page_size=64)
        self.assertEqual(p["max_total_num_tokens"], 819200)
        # 100 GiB / (32 layers * 8 heads * 128 * 2 (K, V) * 2 bytes)
        self.assertEqual(p["cell_size"], 32 * 8 * 128 * 2 * 2)
        self.assertEqual(107374182400 // 131072 // 64 * 64, 819200)

    def test_same_document_as_the_command(self):
        p = kvplan.plan("gpt-oss-120b", gpu="H100-80GB", tp_size=2,
                        kv_cache_dtype="fp8_e4m3", mem_fraction_static=0.85,
                        disable_cuda_graph=True, enable_dp_attention=False,
                        context_length=None)
        rc, doc = command("--model-path", "gpt-oss-120b", "--gpu", "H100-80GB",
                          "--tp-size", "2", "--kv-cache-dtype", "fp8_e4m3",
                          "--mem-fraction-static", "0.85",
                          "--disable-cuda-graph", "--json")
        self.assertEqual(rc, 0)
        self.assertEqual(p, doc)

    def test_typed_view(self):
        v = kvplan.Plan.of(kvplan.plan("gpt-oss-120b", gpu="H100-80GB",
                                       tp_size=2))
        self.assertEqual(v.configurator, "HybridSWAPoolConfigurator")
        self.assertEqual(v.gpu, "H100-80GB")
        self.assertEqual(v.context_len, 131072)
        self.assertGreater(v.max_total_num_tokens, 1000000)
        self.assertEqual(v.binding, "full")
        self.assertIsInstance(v.cell_size, float)

    def test_inline_config(self):
        path = os.path.join(SOURCE, "data", "models", "llama-3.1-8b-instruct",
                            "config.json")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        by_name = kvplan.plan("llama-3.1-8b-instruct", gpu="A100-80GB")
        for config in (json.loads(text), text):
            p = kvplan.plan(config=config, gpu="A100-80GB")
            self.assertEqual(p["model"]["name"], "config.json")
            for key in ("max_total_num_tokens", "cell_size", "available_bytes",
                        "max_running_requests", "context_len"):
                self.assertEqual(p[key], by_name[key], key)

    def test_env(self):
        base = dict(gpu="H100-80GB", tp_size=4)
        half = kvplan.plan("qwen3-next-80b-a3b-thinking",
                           env={"SGLANG_MAMBA_SSM_DTYPE": "float16"}, **base)
        full = kvplan.plan("qwen3-next-80b-a3b-thinking", **base)
        self.assertEqual(half["max_running_requests"], 272)
        self.assertEqual(full["max_running_requests"], 139)

    def test_svg(self):
        p = kvplan.plan("qwen3-8b", gpu="L4", svg=True)
        self.assertTrue(p["svg"].startswith("<?xml"))
        self.assertIn("</svg>", p["svg"])


class ErrorTest(unittest.TestCase):
    def test_bad_value_names_the_flag(self):
        with self.assertRaises(kvplan.Error) as e:
            kvplan.plan("llama-3.1-8b-instruct", tp_size=0)
        self.assertEqual(e.exception.field, "tp_size")
        self.assertIn("expected a positive integer", e.exception.message)
        self.assertEqual(e.exception.exit_status, 2)

    def test_unknown_flag(self):
        # a keyword: Python's own TypeError, with the nearest keyword
        with self.assertRaises(TypeError) as e:
            kvplan.plan(tp_sizee=2)
        self.assertIn("unexpected keyword argument 'tp_sizee'",
                      str(e.exception))
        self.assertIn("did you mean 'tp_size'?", str(e.exception))
        # a request's member: the library's refusal names it
        with self.assertRaises(kvplan.Error) as e:
            kvplan.request({"flags": {"tp_sizee": 2}})
        self.assertEqual(e.exception.field, "tp_sizee")
        self.assertIn("did you mean tp_size?", e.exception.message)

    def test_wrong_type(self):
        # True or False for an option that takes a value: Python's
        # TypeError (issue 25: True leaked an argv, False was dropped)
        for value in (True, False, 2.0):
            with self.assertRaises(TypeError) as e:
                kvplan.plan(tp_size=value)
            self.assertIn("tp_size must be an int, not %s"
                          % type(value).__name__, str(e.exception))
        # and the library refuses them in a request, naming the member
        for value in (True, False):
            with self.assertRaises(kvplan.Error) as e:
                kvplan.request({"flags": {"tp_size": value}})
            self.assertEqual(e.exception.field, "tp_size")
            self.assertIn("expected a positive integer, got %s" %
                          str(value).lower(), e.exception.message)

    def test_does_not_fit(self):
        with self.assertRaises(kvplan.DoesNotFit) as e:
            kvplan.plan("deepseek-v3", gpu="L4")
        self.assertEqual(e.exception.exit_status, 1)
        self.assertIn("Not enough memory", e.exception.message)

    def test_unknown_model(self):
        with self.assertRaises(kvplan.Error) as e:
            kvplan.plan("no-such-model")
        self.assertEqual(e.exception.field, "model")
        self.assertEqual(e.exception.status, "KVPLAN_IO")


class CommandsTest(unittest.TestCase):
    def test_fit(self):
        doc = kvplan.fit("gpt-oss-120b", gpu="H100-80GB", tp_size=2,
                         concurrency=8)
        rc, want = command("fit", "--model-path", "gpt-oss-120b", "--gpu",
                           "H100-80GB", "--tp-size", "2", "--concurrency", "8",
                           "--json")
        self.assertEqual(doc, want)

    def test_solve(self):
        doc = kvplan.solve("deepseek-v3", gpu="H200", tp_size=8,
                           solve_for="mem-fraction-static",
                           target_tokens=400000)
        rc, want = command("solve", "--model-path", "deepseek-v3", "--gpu",
                           "H200", "--tp-size", "8", "--solve-for",
                           "mem-fraction-static", "--target-tokens", "400000",
                           "--json")
        self.assertEqual(doc, want)

    def test_sweep(self):
        rows = kvplan.sweep("qwen3-8b", gpu=["H100-80GB", "L4"],
                            tp_size=range(1, 3))
        rc, want = command("sweep", "--model-path", "qwen3-8b", "--gpu",
                           "H100-80GB,L4", "--tp-size", "1,2", "--json")
        self.assertEqual(rows, want)
        self.assertEqual(len(rows), 4)

    def test_engines(self):
        doc = kvplan.plan("llama-3.1-8b-instruct", engine="vllm",
                          kv_cache_memory=8 << 30, max_model_len=32768)
        self.assertEqual(doc["num_gpu_blocks"], 4096)
        self.assertEqual(doc["log"][0], "GPU KV cache size: 65,536 tokens")
        cmp = kvplan.compare("gpt-oss-20b", gpu="H100-80GB")
        rc, want = command("compare", "--model-path", "gpt-oss-20b", "--gpu",
                           "H100-80GB", "--json")
        self.assertEqual(cmp, want)
        self.assertEqual([e["engine"] for e in cmp["engines"]],
                         ["sglang", "vllm", "trtllm"])

    def test_trtllm_mamba_v2(self):
        # a hybrid Mamba under TensorRT-LLM's KV cache manager V2
        # (tests/test_trtllm_v2_mamba.c: 65 state slots, 70997 attention
        # slots), and its refusal named by the Python keyword
        doc = kvplan.plan("nemotron-3-nano-30b-a3b", engine="trtllm",
                          use_kv_cache_manager_v2=True, max_num_seqs=64,
                          max_gpu_total_bytes=16 << 30)
        self.assertEqual(doc["num_gpu_blocks"], 70997)
        self.assertEqual([(g["spec"], g["num_blocks"]) for g in doc["groups"]],
                         [("mamba", 65), ("full_attention", 70997)])
        with self.assertRaises(kvplan.DoesNotFit) as caught:
            kvplan.plan("nemotron-3-nano-30b-a3b", engine="trtllm",
                        use_kv_cache_manager_v2=True,
                        max_gpu_total_bytes=16 << 30)
        self.assertTrue(str(caught.exception).startswith("max_num_seqs:"))
        self.assertIn("need at least 100569968640 bytes", str(caught.exception))

    def test_log(self):
        path = os.path.join(SOURCE, "tests", "logs", "14-kimi-k2-5.log")
        doc = kvplan.log(path)
        with open(path, "rb") as f:
            rc, want = command("log", "-", "--json", stdin=f.read())
        self.assertEqual(doc, want)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(kvplan.log(f.read()), want)

    def test_pools_replays_golden(self):
        """The golden scenarios through Python: the reference's answers."""
        path = os.path.join(SOURCE, "tests", "data", "golden",
                            "configurator.jsonl")
        with open(path, encoding="utf-8") as f:
            scenarios = [json.loads(line) for line in f if line.strip()]
        answers = kvplan.pools(scenarios)
        self.assertEqual(len(answers), len(scenarios))
        with open(path, "rb") as f:
            proc = subprocess.run([BIN, "pools"], stdin=f, capture_output=True,
                                  check=True) if BIN else None
        if proc is not None:
            want = [json.loads(line) for line in proc.stdout.splitlines()]
            self.assertEqual(answers, want)

    def test_lists(self):
        names = {m["name"] for m in kvplan.models()}
        self.assertIn("deepseek-v3", names)
        self.assertIn("H200", {g["name"] for g in kvplan.gpus()})
        keys = {f["key"]: f for f in kvplan.flags()}
        self.assertTrue(keys["tp_size"]["sglang"])
        self.assertFalse(keys["gpu"]["sglang"])
        self.assertEqual(kvplan.library_version(), kvplan.__version__)


def same(a, b, path="$"):
    """Equal, type for type (True is not 1, 1.0 is not 1), float for float
    bit for bit; the first difference's path, or None."""
    if type(a) is not type(b):
        return "%s: %s vs %s" % (path, type(a).__name__, type(b).__name__)
    if isinstance(a, dict):
        if list(a) != list(b):
            return "%s: keys %s vs %s" % (path, list(a), list(b))
        for k in a:
            d = same(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if isinstance(a, float):
        return None if a.hex() == b.hex() else "%s: %r vs %r" % (path, a, b)
    return None if a == b else "%s: %r vs %r" % (path, a, b)


class EncodingTest(unittest.TestCase):
    """The binding reads the library's answers as pickle
    (KVPLAN_ENCODING_PICKLE); each is the JSON answer's document exactly:
    the same keys in the same order, types, floats bit for bit, text."""

    def both(self, request):
        from kvplan import _native
        st_p, doc_p = _native.call(request)
        st_j, doc_j = _native.call(request, _native.ENCODING_JSON)
        self.assertEqual(st_p, st_j)
        self.assertIsNone(same(doc_p, doc_j), request)
        return doc_p

    def test_every_command(self):
        log_path = os.path.join(SOURCE, "tests", "logs", "14-kimi-k2-5.log")
        with open(log_path, encoding="utf-8") as f:
            log_text = f.read()
        requests = [
            {"model": "deepseek-v3", "flags": {"gpu": "H200", "tp_size": 8,
                                               "explain": True}},
            {"model": "qwen3-8b", "svg": True},
            {"model": "gpt-oss-120b", "flags": {"gpu": "H100-80GB",
                                                "compare_version": "0.5.0"}},
            {"command": "fit", "model": "qwen3-8b",
             "flags": {"concurrency": 8}},
            {"command": "solve", "model": "qwen3-8b",
             "flags": {"solve_for": "tp-size", "target_tokens": 2000000}},
            {"command": "sweep", "model": "qwen3-8b",
             "flags": {"gpu": ["H100-80GB", "L4"], "tp_size": [1, 2]}},
            {"command": "compare", "model": "gpt-oss-20b"},
            {"model": "gpt-oss-20b", "flags": {"engine": "vllm"}},
            {"command": "log", "log": log_text, "calibrate": True},
            {"command": "models"}, {"command": "gpus"}, {"command": "flags"},
            {"command": "version"},
            {"model": "no-such-m\u00f6del"},            # an error, non-ASCII
            {"model": "qwen3-8b", "flags": {"tp_size": True}},
            {"model": "llama-3.1-8b-instruct",          # does not fit
             "flags": {"available_bytes": 1}},
        ]
        for r in requests:
            with self.subTest(request=r):
                doc = self.both(r)
                if r is requests[0]:  # integers past 32 bits (LONG1)
                    self.assertGreater(doc["available_bytes"], 2 ** 31)

    def test_pools_and_prepared_scenarios(self):
        path = os.path.join(SOURCE, "tests", "data", "golden",
                            "configurator.jsonl")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        answers = self.both({"command": "pools", "scenarios": text})
        prepared = kvplan.Scenarios(text).results()
        self.assertIsNone(same(prepared, [a["results"] for a in answers]))


class ServerArgsTest(unittest.TestCase):
    def test_from_server_args(self):
        # what sglang's ServerArgs holds for
        # --model-path openai/gpt-oss-120b --tp 2 --kv-cache-dtype fp8_e4m3
        args = types.SimpleNamespace(
            model_path="openai/gpt-oss-120b", tp_size=2, pp_size=1, dp_size=1,
            ep_size=1, enable_dp_attention=False, page_size=None,
            kv_cache_dtype="fp8_e4m3", dtype="auto", quantization=None,
            mem_fraction_static=None, max_total_tokens=None,
            max_running_requests=None, context_length=None,
            chunked_prefill_size=None, disable_radix_cache=False,
            disable_cuda_graph=False, cuda_graph_max_bs=None,
            attention_backend=None, speculative_algorithm=None,
            disaggregation_mode="null", json_model_override_args="{}",
            host="127.0.0.1", port=30000, log_level="info")
        doc = kvplan.plan_from_server_args(args, gpu="H100-80GB")
        want = kvplan.plan("openai/gpt-oss-120b", gpu="H100-80GB", tp_size=2,
                           kv_cache_dtype="fp8_e4m3", dtype="auto",
                           disaggregation_mode="null", pp_size=1, dp_size=1,
                           ep_size=1)
        self.assertEqual(doc["max_total_num_tokens"],
                         want["max_total_num_tokens"])
        self.assertEqual(doc["resolved"], want["resolved"])
        self.assertEqual(doc["requested"]["tp_size"], 2)


class ThreadsTest(unittest.TestCase):
    def test_threads_answer_as_one(self):
        alone = kvplan.plan("deepseek-v3", gpu="H200", tp_size=8)
        got = []

        def work():
            for _ in range(5):
                got.append(kvplan.plan("deepseek-v3", gpu="H200", tp_size=8))

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(len(got), 20)
        for doc in got:
            self.assertEqual(doc, alone)


if __name__ == "__main__":
    unittest.main()


class InputContractTest(unittest.TestCase):
    """Issue 25: every keyword read as meant, refused in Python's words, or
    named as not read."""

    def test_values_in_pythons_words(self):
        with self.assertRaises(ValueError) as e:
            kvplan.plan(mem_fraction_static=float("nan"))
        self.assertIn("mem_fraction_static must be finite", str(e.exception))
        with self.assertRaises(ValueError) as e:
            kvplan.plan(max_running_requests=10 ** 30)
        self.assertIn("does not fit in 64 bits", str(e.exception))
        with self.assertRaises(TypeError):
            kvplan.plan(available_bytes=5e10)
        with self.assertRaises(TypeError):
            kvplan.plan(123)
        with self.assertRaises(TypeError):
            kvplan.plan(kv_cache_dtype=8)
        with self.assertRaises(TypeError):
            kvplan.sweep(tp_size=[1, 2.5])
        # sizes take a unit as text, or bytes as an int
        self.assertEqual(kvplan.plan(available_bytes="100GiB", page_size=64)
                         ["max_total_num_tokens"], 819200)

    def test_config_and_env_values(self):
        cfg = json.load(open(os.path.join(
            SOURCE, "data", "models", "llama-3.1-8b-instruct", "config.json")))
        cfg["num_key_value_heads"] = float("nan")
        with self.assertRaises(kvplan.Error) as e:
            kvplan.plan(config=cfg)
        self.assertEqual(e.exception.field, "/num_key_value_heads")
        cfg["num_key_value_heads"] = 8
        cfg["unread_field"] = float("inf")  # as transformers reads it
        self.assertEqual(kvplan.plan(config=cfg)["max_total_num_tokens"],
                         kvplan.plan("llama-3.1-8b-instruct")
                         ["max_total_num_tokens"])
        with self.assertRaises(TypeError):
            kvplan.plan(env="X=1")
        with self.assertRaises(ValueError):
            kvplan.plan("qwen3\0-8b")

    def test_server_args_as_a_mapping(self):
        doc = kvplan.plan_from_server_args(
            {"model_path": "qwen3-8b", "tp_size": 2, "host": "0.0.0.0",
             "port": 30000}, gpu="H200")
        self.assertEqual(doc["model"]["name"], "qwen3-8b")
        self.assertEqual(doc["resolved"]["tp_size"], 2)
        self.assertEqual([f["flag"] for f in doc["ignored_flags"]],
                         ["--host", "--port"])
        with self.assertRaises(kvplan.Error) as e:
            kvplan.plan_from_server_args({"model_path": "qwen3-8b",
                                          "tp_szie": 2})
        self.assertEqual(e.exception.field, "tp_szie")
        # an object (sglang's ServerArgs is a dataclass): its unread flags
        # listed, an attribute kvplan does not know named in a warning
        ns = types.SimpleNamespace(model_path="qwen3-8b", tp_size=2,
                                   port=8000, brand_new_flag=1)
        with self.assertWarns(UserWarning) as w:
            doc = kvplan.plan_from_server_args(ns)
        self.assertIn("brand_new_flag", str(w.warning))
        self.assertEqual([f["flag"] for f in doc["ignored_flags"]], ["--port"])
        for bad in ("qwen3-8b", None, 3, ["qwen3-8b"]):
            with self.assertRaises(TypeError):
                kvplan.plan_from_server_args(bad)

    def test_errors_in_keyword_terms(self):
        # a refusal names the keyword, not the command's flag
        with self.assertRaises(kvplan.DoesNotFit) as e:
            kvplan.plan("qwen3-8b", mem_fraction_static=0.05)
        self.assertEqual(e.exception.field, "mem_fraction_static")
        self.assertIn("Raise mem_fraction_static above", e.exception.message)
        self.assertNotIn("--", e.exception.message)
        with self.assertRaises(kvplan.Error) as e:
            kvplan.fit("llama-3.1-8b-instruct", concurrency=5000)
        self.assertEqual(e.exception.field, "max_running_requests")

    def test_log_paths(self):
        with self.assertRaises(FileNotFoundError):
            kvplan.log("/nonexistent.log")
        with self.assertRaises(IsADirectoryError):
            kvplan.log(SOURCE)
        doc = kvplan.log(os.path.join(
            SOURCE, "tests", "logs", "01-meta-llama-3-1-8b-instruct.log"))
        self.assertEqual(doc["readings"]["max_total_num_tokens"], 442913)

    def test_plan_of_every_document(self):
        fit = kvplan.fit("qwen3-8b", concurrency=8)
        self.assertEqual(kvplan.Plan.of(fit).context_len,
                         fit["plan"]["context_len"])
        solve = kvplan.solve("qwen3-8b", target_tokens=400000)
        self.assertEqual(kvplan.Plan.of(solve).max_total_num_tokens,
                         solve["plan"]["max_total_num_tokens"])
        rows = kvplan.sweep("qwen3-8b", tp_size=[1, 2])
        self.assertEqual(kvplan.Plan.of(rows[0]).max_total_num_tokens,
                         rows[0]["plan"]["max_total_num_tokens"])
        vllm = kvplan.plan("qwen3-8b", engine="vllm")
        self.assertEqual(kvplan.Plan.of(vllm).max_total_num_tokens,
                         vllm["kv_cache_tokens"])
        with self.assertRaises(TypeError):
            kvplan.Plan.of(rows)
        with self.assertRaises(TypeError):
            kvplan.Plan.of(kvplan.compare("qwen3-8b"))

    def test_keyword_signatures(self):
        import inspect
        for fn in (kvplan.plan, kvplan.fit, kvplan.solve, kvplan.compare):
            params = inspect.signature(fn).parameters
            for name in ("tp_size", "gpu", "context_length", "kv_cache_dtype",
                         "mem_fraction_static"):
                self.assertIn(name, params, fn.__name__)
        self.assertIn("concurrency", inspect.signature(kvplan.fit).parameters)

    def test_python_m_kvplan(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))
        p = subprocess.run([sys.executable, "-m", "kvplan", "--model",
                            "qwen3-8b", "--tp", "2"], capture_output=True,
                           env=env, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["resolved"]["tp_size"], 2)
        p = subprocess.run([sys.executable, "-m", "kvplan", "--tp", "two"],
                           capture_output=True, env=env, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"expected a positive integer", p.stderr)

    def test_licence_metadata(self):
        with open(os.path.join(SOURCE, "python", "pyproject.toml")) as f:
            self.assertIn('license = {text = "Apache-2.0"}', f.read())
        with open(os.path.join(SOURCE, "LICENSE")) as f:
            self.assertIn("Apache License", f.read(200))

    def test_catalogue(self):
        """Every option kvplan reads, given a value of the wrong kind as a
        keyword: TypeError naming the keyword (test_catalogue.c does the
        command line and the request)."""
        wrong = {"integer": "x1", "number": "x1", "size": 1.5,
                 "boolean": "yes", "object": 5}
        funcs = {None: kvplan.plan, "fit": kvplan.fit, "solve": kvplan.solve,
                 "sweep": kvplan.sweep}
        for f in kvplan.flags():
            key = f["key"]
            with self.assertRaises(TypeError, msg=key) as e:
                funcs[f["question"]](**{key: wrong.get(f["kind"], 5)})
            self.assertIn(key, str(e.exception))
