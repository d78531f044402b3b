"""Grading benchmark: starts the service as the README does and prints, in one run,

- submit-to-verdict latency over HTTP for a correct ``layer_norm`` (one client): p50/p90/p99;
- verdicts per second with 16 concurrent clients, and how many requests failed;
- the time of a fresh interpreter that imports torch and checks the same code, and the ratio;
- the grader pool's memory (PSS of the zygote and its slot servers) under that load.

Figures, not assertions: run it with ``.venv/bin/python scripts/benchmark.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support import start_server, stop_server  # noqa: E402

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()

# What a grader without a warm pool does per submission: a new interpreter imports torch,
# execs the learner's code and compares it with the reference on one input.
FRESH_CHECK = """
import sys, torch
ns = {}
exec(compile(sys.stdin.read(), "<submission>", "exec"), ns)
x = torch.randn(4, 7, 64, requires_grad=True)
ours, ref = ns["LayerNorm"](64), torch.nn.LayerNorm(64)
torch.testing.assert_close(ours(x), ref(x))
ours(x).sum().backward()
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def submit(client: httpx.Client) -> float:
    start = time.perf_counter()
    r = client.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
    elapsed = (time.perf_counter() - start) * 1000
    if r.status_code != 201 or r.json()["verdict"] != "passed":
        raise RuntimeError(f"{r.status_code}: {r.text[:300]}")
    return elapsed


def pool_pss_mib() -> float:
    """Proportional set size of the zygote and every process below it (shared pages split)."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    rows = [line.split(None, 2) for line in out.splitlines()[1:]]
    roots = {int(r[0]) for r in rows if len(r) == 3 and "api.grading.zygote" in r[2]}
    members, changed = set(roots), True
    while changed:
        changed = False
        for r in rows:
            pid, ppid = int(r[0]), int(r[1])
            if ppid in members and pid not in members:
                members.add(pid)
                changed = True
    total_kib = 0
    for pid in members:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kib += int(line.split()[1])
        except OSError:
            continue
    return total_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sequential", type=int, default=200, help="submissions for the latency run"
    )
    parser.add_argument("--concurrent", type=int, default=16, help="concurrent clients")
    parser.add_argument(
        "--per-client", type=int, default=20, help="submissions per concurrent client"
    )
    parser.add_argument("--fresh", type=int, default=5, help="fresh-interpreter runs")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp), ADDNORM_SUBMISSIONS_PER_MINUTE="100000")
        try:
            health = httpx.get(f"{server.url}/health").json()["sandbox"]
            active = [k for k, v in health["layers"].items() if v.get("active")]
            print(f"sandbox profile {health['profile']}, {health['slots']} slots")
            print(f"active layers: {', '.join(active)}")
            print(f"machine: {os.cpu_count()} cores\n")

            with server.client(server.new_learner("bench")) as client:
                for _ in range(10):
                    submit(client)  # warm the HTTP path and the allocator
                latencies = [submit(client) for _ in range(args.sequential)]
            p50, p90, p99 = (percentile(latencies, q) for q in (50, 90, 99))
            print(f"latency, one client, {args.sequential} correct layer_norm submissions:")
            print(f"  p50 {p50:.1f} ms   p90 {p90:.1f} ms   p99 {p99:.1f} ms")
            print("  (targets: p50 <= 50 ms, p99 <= 150 ms)")

            tokens = [server.new_learner(f"client{i}") for i in range(args.concurrent)]
            failures: list[str] = []
            peak_pss = [0.0]
            stop = threading.Event()

            def sample_memory() -> None:
                while not stop.is_set():
                    peak_pss[0] = max(peak_pss[0], pool_pss_mib())
                    time.sleep(0.25)

            def client_run(token: str) -> list[float]:
                done = []
                with server.client(token) as c:
                    for _ in range(args.per_client):
                        try:
                            done.append(submit(c))
                        except Exception as exc:  # counted and reported, never hidden
                            failures.append(str(exc))
                return done

            sampler = threading.Thread(target=sample_memory, daemon=True)
            sampler.start()
            start = time.perf_counter()
            with ThreadPoolExecutor(args.concurrent) as ex:
                results = list(ex.map(client_run, tokens))
            wall = time.perf_counter() - start
            stop.set()
            sampler.join()
            ok = sum(len(r) for r in results)
            under_load = [v for r in results for v in r]
            print(f"\nthroughput, {args.concurrent} concurrent clients x {args.per_client}:")
            print(f"  {ok / wall:.1f} verdicts/s ({ok} in {wall:.1f} s), {len(failures)} failed")
            print("  (target: >= 40 verdicts/s, no failed requests)")
            if under_load:
                p50_load, p99_load = percentile(under_load, 50), percentile(under_load, 99)
                print(f"  latency under load: p50 {p50_load:.0f} ms, p99 {p99_load:.0f} ms")
            print(f"  grader pool memory (PSS, peak): {peak_pss[0]:.0f} MiB   (target: <= 1024)")
            for f in failures[:3]:
                print(f"  failure: {f}")
        finally:
            stop_server(server)

    fresh = []
    for _ in range(args.fresh):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", FRESH_CHECK], input=SOLUTION, text=True, check=True)
        fresh.append((time.perf_counter() - start) * 1000)
    fresh_median = statistics.median(fresh)
    print(f"\nfresh interpreter per submission (import torch + one check): {fresh_median:.0f} ms")
    print(f"  (median of {args.fresh} runs)")
    print(f"  warm pool is {fresh_median / p50:.0f}x faster at p50   (target: >= 25x)")


if __name__ == "__main__":
    main()
