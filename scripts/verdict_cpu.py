"""The service's CPU per verdict, in process: ``verdict.decide`` alone (the checks and, on
failing code, the diagnosis), on answers the sandbox produced beforehand, so that neither the
sandbox, HTTP nor the database is in the figure. What a change to the comparison or the
diagnosis moves, measured without the noise of the whole service (``scripts/benchmark.py``).

Two case sets: ``warm`` (one shared outcome store, every source graded twice before the timed
rounds, as a busy exercise's set is) and ``fresh`` (a new store per verdict: the first verdict
on a set, which runs the known mistakes it needs). Each checkout runs in its own interpreter
(``PYTHONPATH``, this checkout's ``.venv``), the checkouts alternated and their order swapped
every round, so that two builds are compared under the same load; the ratio to the first
checkout is the figure to quote, with the machine-speed line printed last.

    .venv/bin/python scripts/verdict_cpu.py --repo /path/to/base . --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SEED = 20240607


def _measure(slug: str, mode: str, rounds: int, passing: bool) -> None:
    """In the checkout on ``PYTHONPATH``: prints the median CPU milliseconds per verdict."""
    import time
    import warnings

    import torch

    from api.content.catalog import load_catalog
    from api.grading import casesets, coverage, harness, verdict

    root = Path(verdict.__file__).resolve().parent.parent.parent
    torch.set_num_threads(1)
    spec = load_catalog(root / "exercises")[slug].spec
    if passing:
        sources = [(root / "solutions" / f"{slug}.py").read_text()]
    else:
        paths = sorted((root / "exercises" / slug / "variants").glob("failed_*.py"))
        sources = [p.read_text() for p in paths]
    cases = coverage.cases(spec, torch.Generator().manual_seed(SEED))
    expected = [verdict.expected_outcome(spec.reference, c, spec) for c in cases]
    answers = []
    for source in sources:
        frame = harness.encode_job(
            code=source,
            class_name=spec.class_name,
            banned=spec.banned,
            cases=cases,
            kind=spec.kind,
            functions=spec.functions,
            allowed=spec.allowed,
            measure_saved=spec.saved_bytes_budget is not None,
        )
        out, err = sys.stdout, sys.stderr
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a learner's code may warn
                answers.append(harness.run_job(frame))
        finally:  # run_job redirects them for good
            sys.stdout, sys.stderr = out, err

    def decide(body: bytes, outcomes: Any) -> Any:
        return verdict.decide(
            spec,
            cases,
            body=body,
            timed_out=False,
            truncated=False,
            signal=None,
            time_limit=5.0,
            expected=expected,
            outcomes=outcomes,
        )

    def store() -> Any:
        return casesets.CaseSets().take(spec).outcomes

    shared = store()
    for _ in range(2 if mode == "warm" else 1):
        for body in answers:
            decide(body, shared)
    times = []
    statuses = set()
    for _ in range(rounds):
        for body in answers:
            outcomes = shared if mode == "warm" else store()
            t0 = time.process_time()
            decided = decide(body, outcomes)
            times.append(time.process_time() - t0)
            statuses.add(str(decided.status))
    median = statistics.median(times) * 1000
    print(json.dumps({"ms": median, "verdicts": len(times), "statuses": sorted(statuses)}))


def _run(repo: Path, slug: str, mode: str, rounds: int, passing: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--measure", mode, "--slug", slug]
    command += ["--rounds", str(rounds)] + (["--passing"] if passing else [])
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", type=Path, nargs="+", default=[REPO], help="checkouts")
    parser.add_argument("--slug", default="layer_norm")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the checkouts")
    parser.add_argument("--passing", action="store_true", help="the worked solution instead")
    parser.add_argument("--measure", choices=("warm", "fresh"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.slug, args.measure, args.rounds, args.passing)
        return
    repos = [r.resolve() for r in args.repo]
    what = "worked solution" if args.passing else "known mistakes"
    print(f"{args.slug}, {what}: CPU ms per verdict.decide, median per run")
    for mode in ("warm", "fresh"):
        figures: dict[Path, list[float]] = {r: [] for r in repos}
        for k in range(args.rounds):
            order = repos if k % 2 == 0 else repos[::-1]
            for repo in order:
                # Warm: each run grades every source twice; fresh: once (a set per verdict).
                found = _run(repo, args.slug, mode, 2 if mode == "warm" else 1, args.passing)
                figures[repo].append(found["ms"])
                print(f"  {mode} round {k + 1} {repo}: {found['ms']:.2f} {found['statuses']}")
        first = statistics.median(figures[repos[0]])
        for repo in repos:
            median = statistics.median(figures[repo])
            print(f"{mode:5} {repo}: {median:.2f} ms, {median / first:.3f}x the first")
    speed = min(timeit.repeat("sum(range(10000))", number=100, repeat=20)) / 100 * 1e6
    print(f"machine speed: sum(range(10000)) {speed:.0f} us")


if __name__ == "__main__":
    main()
