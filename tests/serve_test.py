#!/usr/bin/env python3
"""kvplan serve over HTTP and HTTPS on 127.0.0.1 (docs/kubernetes.md).

    serve_test.py KVPLAN TESTS_DIR

Starts `kvplan serve --listen 127.0.0.1:0`, reads the port it prints, and
asks every route: /healthz, /v1/plan (a JSON request, answered as
kvplan_json answers it), /v1/check (tests/k8s/07: vLLM does not start, the
fix is tensor parallel 2), /validate (an AdmissionReview round trip: the
uid echoed, allowed for tests/k8s/18, denied with status 403 for a vLLM
Deployment that has no memory for its cache), a body over --max-body
(413), 16 reviews at once (each its own answer), an unknown route (404), a review that is not JSON (400), /metrics
(the counters of the requests made). Then the same review over HTTPS with a
certificate made by openssl for this test (skipped, exit 77, without
openssl), and SIGTERM: the server stops, exit 0.
"""
import json
import os
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

KVPLAN, TESTS = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, HF_HUB_OFFLINE="1", HF_HUB_CACHE="/nonexistent/kvplan-tests")


def start(*flags):
    p = subprocess.Popen([KVPLAN, "serve", "--listen", "127.0.0.1:0",
                          "--max-body", "65536", *flags],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=ENV, text=True)
    line = p.stdout.readline().strip()
    assert line.startswith("kvplan serve: listening on "), line
    return p, line.rsplit(" ", 1)[1]


def ask(base, path, data=None, ctx=None):
    req = urllib.request.Request(base + path, data=data,
                                 method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=20, context=ctx) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def review(obj, uid="705ab4f5-6393-11e8-b7cc-42010a800002"):
    return json.dumps({"apiVersion": "admission.k8s.io/v1",
                       "kind": "AdmissionReview",
                       "request": {"uid": uid, "operation": "CREATE",
                                   "object": obj}}).encode()


# a Deployment vLLM cannot start: Llama-3.1-70B on one A100-80GB
with open(os.path.join(TESTS, "k8s", "23-vllm-no-memory.json")) as f:
    NO_MEMORY = json.load(f)


def stop(p):
    p.terminate()
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, (p.returncode, err)
    assert "stopped (SIGTERM)" in out, out


def http_round_trip():
    p, base = start()
    try:
        assert ask(base, "/healthz") == (200, "ok\n")
        code, text = ask(base, "/v1/plan", json.dumps(
            {"model": "llama-3.1-8b-instruct",
             "flags": {"gpu": "H100-80GB", "page_size": 64,
                       "available_bytes": 107374182400}}).encode())
        # the README's example: 819,200 tokens, 3,200 requests
        doc = json.loads(text)
        assert code == 200 and doc["max_total_num_tokens"] == 819200, text
        assert doc["max_running_requests"] == 3200, text
        with open(os.path.join(TESTS, "k8s", "07-vllm-no-cache-memory.yaml"),
                  "rb") as f:
            code, text = ask(base, "/v1/check", f.read())
        doc = json.loads(text)
        server = doc["servers"][0]
        assert code == 200 and server["verdict"] == "does_not_start", text
        assert server["fix"].startswith("--tensor-parallel-size 2"), text
        assert doc["summary"]["does_not_start"] == 1, text
        with open(os.path.join(TESTS, "k8s", "18-json-pod.json")) as f:
            code, text = ask(base, "/validate", review(json.load(f)))
        resp = json.loads(text)["response"]
        assert code == 200 and resp["allowed"] is True, text
        assert resp["uid"] == "705ab4f5-6393-11e8-b7cc-42010a800002", text
        code, text = ask(base, "/validate", review(NO_MEMORY, "u-2"))
        resp = json.loads(text)["response"]
        assert code == 200 and resp["allowed"] is False, text
        assert resp["uid"] == "u-2" and resp["status"]["code"] == 403, text
        assert "No available memory for the cache blocks" in \
            resp["status"]["message"], text
        # 16 reviews at once, over the workers: each its own answer
        import threading
        answers = {}

        def one(k):
            answers[k] = ask(base, "/validate", review(NO_MEMORY, "c-%d" % k))
        threads = [threading.Thread(target=one, args=(k,)) for k in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for k in range(16):
            code, text = answers[k]
            r = json.loads(text)["response"]
            assert code == 200 and r["uid"] == "c-%d" % k, text
            assert r["status"]["message"] == resp["status"]["message"], text
        assert ask(base, "/v1/check", b"x" * 70000)[0] == 413
        assert ask(base, "/nowhere")[0] == 404
        assert ask(base, "/validate", b"{not json")[0] == 400
        code, text = ask(base, "/metrics")
        assert code == 200, text
        assert 'kvplan_requests_total{route="/validate"} 19' in text, text
        assert 'kvplan_errors_total{route="/validate"} 1' in text, text
    finally:
        stop(p)


def https_round_trip():
    with tempfile.TemporaryDirectory() as d:
        cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
        try:
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                            "-nodes", "-keyout", key, "-out", cert, "-days",
                            "1", "-subj", "/CN=127.0.0.1", "-addext",
                            "subjectAltName=IP:127.0.0.1"],
                           check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            return False
        p, base = start("--tls-cert", cert, "--tls-key", key)
        try:
            assert base.startswith("https://"), base
            ctx = ssl.create_default_context(cafile=cert)
            code, text = ask(base, "/validate", review(NO_MEMORY, "u-3"), ctx)
            resp = json.loads(text)["response"]
            assert code == 200 and resp["uid"] == "u-3", text
            assert resp["allowed"] is False, text
        finally:
            stop(p)
    return True


http_round_trip()
print("http: every route answered")
if not https_round_trip():
    print("https: skipped (no openssl to make a certificate)")
    sys.exit(77)
print("https: the AdmissionReview answered over TLS")
