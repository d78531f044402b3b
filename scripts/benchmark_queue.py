"""Queue-mode capacity: 1 API process + 1 or 2 ``addnorm worker`` processes on PostgreSQL and
Redis, driven by an open-loop load (a fixed arrival rate for a bounded time, on 127.0.0.1).

Open loop: a submission arrives every 1/rate seconds whether or not earlier ones are done, as
learners in a timed session do; a closed loop (N clients each waiting for its verdict) hides
queueing by slowing its own arrivals. For each worker count and rate it prints:

- queue wait p50/p99: from the row being stored (`queued`) to a worker beginning it;
- submit-to-answer p50/p99 over HTTP (201 with the verdict, or 202 once the bounded wait ends);
- verdicts/s: verdicts stored over the span from the first arrival to the last verdict;
- how many answers were 201, 202, or failed; every verdict is checked to be `passed` (with
  `--mistakes`, `failed`: the submissions are then `layer_norm`'s known mistakes in turn, which
  a timed session sees more of than correct code, and which cost the worker more).

Uses the machine's PostgreSQL (a database of its own, dropped afterwards) and Redis (a key
prefix of its own). Figures, not assertions:

    .venv/bin/python scripts/benchmark_queue.py --workers 1,2 --rates 10,20,30 --duration 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import create_engine
from sqlmodel import Session, col, select

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api.models import Submission  # noqa: E402
from tests.services import (  # noqa: E402
    SYSTEM_REDIS,
    Worker,
    postgres_database,
    redis_prefix,
    start_worker,
)
from tests.support import Server, known_mistakes, start_server, stop_server  # noqa: E402

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
MISTAKES = known_mistakes("layer_norm")
LEARNERS = 50


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU time of a process and its descendants, reaped children included (utime, stime,
    cutime, cstime): what grading cost, whatever share of the cores the machine gave us."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(f) for f in fields[11:15]) / CLOCK_TICKS
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, ppid in parents.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(times.get(pid, 0.0) for pid in tree)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass
class Run:
    workers: int
    rate: float
    sent: int
    answered_201: int
    answered_202: int
    failures: list[str]  # what each failed request got, so a failure can be chased
    http_ms: list[float]
    wait_ms: list[float]
    verdicts: int
    wrong: int
    verdicts_per_s: float
    worker_cpu_ms: float  # worker CPU (pool, zygote, children) per verdict
    api_cpu_ms: float  # API CPU per submission


def open_loop(
    server: Server, tokens: list[str], *, rate: float, duration: float, codes: list[str]
) -> list[object]:
    """Fire one submission every 1/rate s for `duration` s, the codes in turn; each runs on
    its own thread."""
    results: list[object] = []
    lock = threading.Lock()
    clients = [server.client(t) for t in tokens]

    def one(i: int) -> None:
        start = time.perf_counter()
        try:
            r = clients[i % len(clients)].post(
                "/exercises/layer_norm/submissions", json={"code": codes[i % len(codes)]}
            )
            outcome: object = (
                (r.status_code, (time.perf_counter() - start) * 1000, r.json()["id"])
                if r.status_code in {201, 202}
                else f"HTTP {r.status_code}: {r.text[:200]}"
            )
        except Exception as exc:  # a failed request is a figure here, not a crash
            outcome = f"{type(exc).__name__}: {exc}"[:300]
        with lock:
            results.append(outcome)

    total = int(rate * duration)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=256) as pool:
        for i in range(total):
            # Arrivals on a fixed schedule: a late tick fires at once, it is never skipped.
            delay = t0 + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(one, i)
    for c in clients:
        c.close()
    return results


def settle(database_url: str, ids: list[int], timeout: float = 300) -> list[Submission]:
    """Wait until every submission has its outcome; return the rows."""
    engine = create_engine(database_url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            with Session(engine) as session:
                rows = list(session.exec(select(Submission).where(col(Submission.id).in_(ids))))
            if all(r.state not in {"queued", "grading"} for r in rows) or (
                time.monotonic() > deadline
            ):
                return rows
            time.sleep(0.5)
    finally:
        engine.dispose()


def measure(
    server: Server, database_url: str, tokens: list[str], pool: list[Worker], *, rate: float,
    duration: float, codes: list[str], expect: str,
) -> Run:  # fmt: skip
    cpu_before = sum(tree_cpu_seconds(w.process.pid) for w in pool)
    api_before = tree_cpu_seconds(server.process.pid)
    results = open_loop(server, tokens, rate=rate, duration=duration, codes=codes)
    answers = [r for r in results if isinstance(r, tuple)]
    ids = [int(a[2]) for a in answers]
    rows = settle(database_url, ids)
    worker_cpu = sum(tree_cpu_seconds(w.process.pid) for w in pool) - cpu_before
    api_cpu = tree_cpu_seconds(server.process.pid) - api_before
    done = [r for r in rows if r.state == "done"]
    waits = [
        (r.started_at - r.created_at).total_seconds() * 1000
        for r in done
        if r.started_at is not None and r.attempts == 1
    ]
    first: datetime = min(r.created_at for r in rows)
    last = max(r.completed_at for r in done if r.completed_at is not None)
    span = (last - first).total_seconds()
    return Run(
        workers=len(pool),
        rate=rate,
        sent=len(results),
        answered_201=sum(a[0] == 201 for a in answers),
        answered_202=sum(a[0] == 202 for a in answers),
        failures=[str(r) for r in results if not isinstance(r, tuple)],
        http_ms=[float(a[1]) for a in answers],
        wait_ms=waits,
        verdicts=len(done),
        wrong=sum(r.verdict != expect for r in done),
        verdicts_per_s=len(done) / span if span > 0 else float("nan"),
        worker_cpu_ms=worker_cpu * 1000 / max(len(done), 1),
        api_cpu_ms=api_cpu * 1000 / max(len(results), 1),
    )


def report(run: Run) -> None:
    print(
        f"workers={run.workers} rate={run.rate:g}/s sent={run.sent} "
        f"201={run.answered_201} 202={run.answered_202} failed={len(run.failures)} | "
        f"queue wait p50={percentile(run.wait_ms, 50):.0f} ms "
        f"p99={percentile(run.wait_ms, 99):.0f} ms | "
        f"answer p50={percentile(run.http_ms, 50):.0f} ms p99={percentile(run.http_ms, 99):.0f} ms"
        f" | verdicts={run.verdicts} (unexpected: {run.wrong}) "
        f"verdicts/s={run.verdicts_per_s:.1f} | CPU per verdict: worker "
        f"{run.worker_cpu_ms:.0f} ms, api {run.api_cpu_ms:.0f} ms",
        flush=True,
    )
    for failure in sorted(set(run.failures)):
        print(f"  failed {run.failures.count(failure)}x: {failure}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2", help="worker counts to run, e.g. 1,2")
    parser.add_argument("--rates", default="10,20,30", help="arrival rates per second")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of arrivals")
    parser.add_argument("--verdict-wait", default="5", help="ADDNORM_VERDICT_WAIT_SECONDS")
    parser.add_argument(
        "--mistakes", action="store_true", help="submit layer_norm's known mistakes in turn"
    )
    args = parser.parse_args()
    codes, expect = (MISTAKES, "failed") if args.mistakes else ([SOLUTION], "passed")
    counts = [int(n) for n in args.workers.split(",")]
    rates = [float(r) for r in args.rates.split(",")]
    runs: list[Run] = []
    with (
        postgres_database() as database_url,
        redis_prefix() as prefix,
        tempfile.TemporaryDirectory() as tmp,
    ):
        env = {
            "ADDNORM_DATABASE_URL": database_url,
            "ADDNORM_BROKER_URL": SYSTEM_REDIS,
            "ADDNORM_REDIS_PREFIX": prefix,
            "ADDNORM_VERDICT_WAIT_SECONDS": args.verdict_wait,
            "ADDNORM_SUBMISSIONS_PER_MINUTE": "100000",
            "ADDNORM_MAX_CONCURRENT_GRADINGS": "1000",
        }
        server = start_server(Path(tmp) / "api", **env)
        started: list[Worker] = []
        try:
            tokens = [server.new_learner(f"bench-{i}") for i in range(LEARNERS)]
            for count in counts:
                while len(started) < count:
                    started.append(start_worker(Path(tmp) / f"w{len(started)}", env))
                while len(started) > count:
                    started.pop().stop()
                # Warm-up: the first gradings of each worker pay for lazy imports.
                open_loop(server, tokens, rate=5, duration=2, codes=codes)
                time.sleep(2)
                for rate in rates:
                    run = measure(
                        server,
                        database_url,
                        tokens,
                        started,
                        rate=rate,
                        duration=args.duration,
                        codes=codes,
                        expect=expect,
                    )
                    report(run)
                    runs.append(run)
                    if run.failures:  # the API's own account of what went wrong
                        tail = server.log.read_text(errors="replace").splitlines()[-60:]
                        print("  API log, last lines:", *tail, sep="\n    ", flush=True)
        finally:
            for w in started:
                w.stop()
            stop_server(server)
    best = {c: max(r.verdicts_per_s for r in runs if r.workers == c) for c in counts}
    print("best verdicts/s by worker count:", {c: round(v, 1) for c, v in best.items()})
    cpu = statistics.median(r.worker_cpu_ms + r.api_cpu_ms for r in runs)
    print(
        f"median CPU per verdict (worker + api): {cpu:.0f} ms, {1000 / cpu:.1f} verdicts/s per core"
    )


if __name__ == "__main__":
    main()
