"""kvplan serve as an admission webhook: the answer time of /validate.

usage: python3 bench/webhook.py KVPLAN [REQUESTS] [CLIENTS]

Starts `kvplan serve --listen 127.0.0.1:0` (HTTP, the Hub offline) and
sends REQUESTS (default 400) AdmissionReviews of a Deployment whose model
is in the catalog (tests/k8s/23: vLLM serving Llama-3.1-70B-Instruct on
one A100-80GB: it does not start, so the answer also searches the fix,
the most work a review does), from CLIENTS (default 1) threads at once, each
on its own connection. The first 20 are a warm-up and not counted.

Prints, one per line, "name: value":

  webhook_median_ms   the median time from sending a review to its whole
                      answer, as the API server waits for it
  webhook_p99_ms      the 99th percentile
  webhook_reviews     the reviews counted
  webhook_goal_ms     50 (issue 30: under 50 ms median for a manifest
                      whose model is in the catalog or the Hub cache)
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time

KVPLAN = sys.argv[1]
REQUESTS = int(sys.argv[2]) if len(sys.argv) > 2 else 400
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 1
WARM = 20

# tests/k8s/23: vLLM serving Llama-3.1-70B-Instruct on one A100-80GB
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "tests", "k8s", "23-vllm-no-memory.json")) as f:
    OBJECT = json.load(f)


def review(i):
    return json.dumps({"apiVersion": "admission.k8s.io/v1",
                       "kind": "AdmissionReview",
                       "request": {"uid": "bench-%d" % i,
                                   "operation": "CREATE",
                                   "object": OBJECT}}).encode()


def client(port, n, first, times):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for i in range(first, first + n):
        body = review(i)
        t0 = time.perf_counter()
        conn.request("POST", "/validate", body,
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        answer = json.loads(r.read())
        dt = time.perf_counter() - t0
        assert answer["response"]["uid"] == "bench-%d" % i, answer
        if i - first >= WARM // CLIENTS:
            times.append(dt)
    conn.close()


def main():
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    p = subprocess.Popen([KVPLAN, "serve", "--listen", "127.0.0.1:0",
                          "--workers", str(max(CLIENTS, 1))],
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        port = int(p.stdout.readline().strip().rsplit(":", 1)[1])
        times = []
        per = REQUESTS // CLIENTS
        threads = [threading.Thread(target=client,
                                    args=(port, per, k * per, times))
                   for k in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        p.terminate()
        p.wait(timeout=20)
    times.sort()
    print("webhook_median_ms: %.3f" % (statistics.median(times) * 1e3))
    print("webhook_p99_ms: %.3f" % (times[int(len(times) * 0.99) - 1] * 1e3))
    print("webhook_reviews: %d" % len(times))
    print("webhook_goal_ms: 50")


main()
