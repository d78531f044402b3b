"""Where the service's own CPU goes per verdict: the service started as ``tests.support`` starts
it, with each of the functions below counting the CPU time of the thread that runs it
(``time.thread_time``), while one learner submits ``layer_norm``'s worked solution or known
mistakes, back to back or spaced beyond a case set's life (``--spaced``: each verdict draws its
own cases and runs its own reference, as a learner practising alone does).

The figures nest (``grader.judge`` is inside ``grader.grade_for_record``, which is inside
``http.grade_submission``); what ``http.grade_submission`` leaves of the process's CPU is the
HTTP stack, sign-in, the rate limits and whatever runs between requests (spaced runs count
their pauses too: the idle service's own timers). Figures, not assertions:

    .venv/bin/python scripts/service_cost.py [--spaced] [--failing] [-n 60]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# (module, attribute or Class.method, label): looked up at call time by their callers, so
# replacing the attribute counts every call.
COUNTED = (
    ("api.http.submissions", "grade_submission", "http.grade_submission"),
    ("api.http.submissions", "static_verdict", "  static check"),
    ("api.learning.submissions", "start", "  db: submission row"),
    ("api.grading.grader", "Grader.grade_for_record", "  grader.grade_for_record"),
    ("api.grading.casesets", "draw", "    cases drawn"),
    ("api.grading.grader", "job_template", "    job template"),
    ("api.grading.verdict", "reference_outcome", "    reference (every case)"),
    ("api.grading.grader", "judge", "    grader.judge"),
    ("api.grading.diagnosis", "diagnose", "      diagnosis"),
    ("api.grading.grader", "stored", "    stored form"),
    ("api.learning.submitting", "record", "  db: verdict and review card"),
    ("api.http.submissions", "render", "  answer rendered"),
)
OUT_ENV = "ADDNORM_SERVICE_COST_OUT"


def _install(stats: dict[str, list[float]], lock: threading.Lock) -> None:
    for module_name, attribute, label in COUNTED:
        owner: Any = importlib.import_module(module_name)
        name = attribute
        if "." in attribute:
            cls, name = attribute.split(".")
            owner = getattr(owner, cls)
        original = getattr(owner, name)

        def counted(*args: Any, _f: Any = original, _label: str = label, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return _f(*args, **kwargs)
            finally:
                spent = time.thread_time() - start
                with lock:
                    entry = stats.setdefault(_label, [0, 0.0])
                    entry[0] += 1
                    entry[1] += spent

        setattr(owner, name, functools.wraps(original)(counted))


def serve() -> None:
    """The service, counting; its figures written to ``$ADDNORM_SERVICE_COST_OUT`` on SIGUSR1."""
    import runpy

    stats: dict[str, list[float]] = {}
    lock = threading.Lock()
    _install(stats, lock)

    def dump(*_: Any) -> None:
        with lock:
            Path(os.environ[OUT_ENV]).write_text(json.dumps(stats))

    signal.signal(signal.SIGUSR1, dump)
    sys.argv = ["api.cli", *sys.argv[1:]]
    runpy.run_module("api.cli", run_name="__main__", alter_sys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=60, help="submissions measured")
    parser.add_argument("--spaced", action="store_true", help="a pause beyond a set's life first")
    parser.add_argument("--failing", action="store_true", help="known mistakes, in turn")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO / "scripts"))
    import tests.support as support

    # Beside this script, not a package: imported by name, as benchmark.py imports floor.py.
    benchmark = importlib.import_module("benchmark")
    from api.grading import casesets

    # The service as tests.support starts it, but through this script (unbuffered, as -u).
    support.SERVE = (sys.executable, "-u", str(Path(__file__).resolve()), "serve")
    codes = benchmark.MISTAKES if args.failing else [benchmark.SOLUTION]
    expect = "failed" if args.failing else "passed"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        os.environ[OUT_ENV] = str(out)

        def snapshot(pid: int) -> dict[str, list[float]]:
            os.kill(pid, signal.SIGUSR1)
            for _ in range(100):
                time.sleep(0.05)
                if out.exists():
                    figures: dict[str, list[float]] = json.loads(out.read_text())
                    out.unlink()
                    return figures
            raise SystemExit("the service wrote no figures")

        data = Path(tmp) / "data"
        data.mkdir()
        server = support.start_server(data, **benchmark.BENCHMARK_LIMITS)
        try:
            with benchmark.Learner(server, server.new_learner("cost")) as learner:
                for i in range(10):
                    learner.submit(code=codes[i % len(codes)], expect=expect)
                before = snapshot(server.process.pid)
                cpu = benchmark.cpu_seconds(server.process.pid)
                for i in range(args.n):
                    if args.spaced:
                        time.sleep(casesets.MAX_AGE + 0.2)
                    learner.submit(code=codes[i % len(codes)], expect=expect)
                cpu = benchmark.cpu_seconds(server.process.pid) - cpu
                after = snapshot(server.process.pid)
        finally:
            support.stop_server(server)

    what = "known mistakes" if args.failing else "the worked solution"
    how = "spaced beyond a case set's life" if args.spaced else "back to back"
    print(f"layer_norm, {what}, {args.n} submissions {how}, one learner")
    print(f"  the service process in all {cpu / args.n * 1000:8.2f} ms per verdict")
    for _, _, label in COUNTED:
        calls, spent = after.get(label, [0, 0.0])
        calls0, spent0 = before.get(label, [0, 0.0])
        if calls > calls0:
            per = (spent - spent0) / args.n * 1000
            print(f"  {label:<34} {per:8.2f} ms   ({(calls - calls0) / args.n:.2f} calls)")
    print(f"\nmachine: sum(range(10000)) takes {benchmark.interpreter_speed_us():.0f} µs here")


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve()
    else:
        main()
