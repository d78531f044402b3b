"""What one grading child costs the pool, part by part: where a verdict's CPU goes beyond the
floor (``scripts/floor.py``), which counts only the math.

Builds a zygote in this process as the service's is built (``zygote.make_ready``: warm-up,
the tripwire's preparations, ``gc.freeze``, huge pages, the sandbox probed), forks a slot
server from it that arms itself for the exercise (``tripwire.arm_slot_server``), and has it
fork children that lock down and run one job each, as ``zygote._prefork_child`` does. Each
measured child takes CPU time (``CLOCK_PROCESS_CPUTIME_ID``) and minor page faults at the
end of each stage, and runs the job a second time after the first, so that the first run's
copy-on-write faults on the zygote's pages show as the difference; its exit is what the
kernel counts after its last reading (``wait4``). The production path
(``zygote._prefork_child``, one run per child) is measured beside it, its total the check on
the stages. The same job in this process, with and without the two interception modes
(``tripwire``'s function mode, ``allowlist.Guard``), gives their share; an empty job (no
cases) what a child costs whatever the code.

Figures, not assertions. Needs the service's sandbox profile to be available here (strict
needs root). Run it with ``.venv/bin/python scripts/child_cost.py [--exercise SLUG]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import sys
import time
import timeit
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api.content.catalog import load_catalog  # noqa: E402
from api.grading import (  # noqa: E402
    allowlist,
    casesets,
    frames,
    grader,
    harness,
    sandbox,
    tripwire,
    zygote,
)

STAGES = ("start and lock down", "read the job", "run the job", "run it again", "write the answer")
SEED = 20240607


def _reading() -> tuple[float, int]:
    """(CPU milliseconds, minor faults) of this process so far."""
    return time.process_time() * 1000, resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _huge_mib() -> int:
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1]) // 1024
    return 0


def _measured_child(
    job: bytes, slot: int, profile: sandbox.Profile, limits: Any
) -> tuple[list[list[float]], float]:
    """A child as ``zygote._prefork_child`` forks it, reading its CPU and faults after each
    stage (its readings come back on a pipe of their own); with its CPU in all, in ms."""
    job_r, job_w = os.pipe()
    result_r, result_w = os.pipe()
    side_r, side_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            # A new process's CPU clock and fault count start at zero: the first stage
            # includes the fork's return.
            readings: list[tuple[float, int]] = [(0.0, 0)]
            tripwire.seal_inherited()
            os.close(job_w)
            os.close(result_r)
            os.close(side_r)
            zygote._batch_policy()
            sandbox.lock_down(
                slot=slot, keep_fds=[job_r, result_w, side_w], profile=profile, limits=limits
            )
            tripwire.arm()
            readings.append(_reading())
            frame = zygote._read_to_eof(job_r)
            readings.append(_reading())
            answer = harness.run_job(frame)
            readings.append(_reading())
            harness.run_job(frame)
            readings.append(_reading())
            frames.write_all(result_w, answer)
            readings.append(_reading())
            frames.write_all(side_w, json.dumps(readings).encode())
            code = 0
        finally:
            os._exit(code)
    for fd in (job_r, result_w, side_w):
        os.close(fd)
    frames.write_all(job_w, job)
    os.close(job_w)
    zygote._read_to_eof(result_r)
    os.close(result_r)
    sent: list[list[float]] = json.loads(zygote._read_to_eof(side_r))
    os.close(side_r)
    _, _, usage = os.wait4(pid, 0)
    return sent, (usage.ru_utime + usage.ru_stime) * 1000


def _production_child(job: bytes, slot: int, profile: sandbox.Profile, limits: Any) -> float:
    """The child the slot server forks, unmeasured inside: its CPU in all, in ms."""
    child = zygote._prefork_child(slot, profile, limits)
    frames.write_all(child.job_w, job)
    os.close(child.job_w)
    zygote._read_to_eof(child.result_r)
    os.close(child.result_r)
    _, _, usage = os.wait4(child.pid, 0)
    return float((usage.ru_utime + usage.ru_stime) * 1000)


def _slot_server(
    jobs: dict[str, bytes],
    runs: int,
    profile: sandbox.Profile,
    limits: Any,
    arm: Callable[[], None],
) -> dict[str, Any]:
    """In a forked slot server: arm, then fork and measure ``runs`` children per job."""
    report: dict[str, Any] = {"huge_after_fork": _huge_mib()}
    arm()
    report["huge_after_arming"] = _huge_mib()
    for name, job in jobs.items():
        stages: list[list[list[float]]] = []
        exits, totals, production, served, reaps = [], [], [], [], []
        for i in range(runs + 2):  # two to settle
            # The slot server's share: the fork, handing the job over, reading the answer.
            before = time.process_time()
            readings, total = _measured_child(job, 0, profile, limits)
            served_ms = (time.process_time() - before) * 1000
            reap = time.process_time()
            sandbox.reap_slot(0, limits)
            reap_ms = (time.process_time() - reap) * 1000
            paid = _production_child(job, 0, profile, limits)
            sandbox.reap_slot(0, limits)
            if i < 2:
                continue
            stages.append(readings)
            exits.append(total - readings[-1][0])
            totals.append(total)
            production.append(paid)
            served.append(served_ms)
            reaps.append(reap_ms)
        report[name] = {
            "stages": [
                [
                    statistics.median(s[k + 1][0] - s[k][0] for s in stages),
                    statistics.median(s[k + 1][1] - s[k][1] for s in stages),
                ]
                for k in range(len(STAGES))
            ],
            "exit": statistics.median(exits),
            "total": statistics.median(totals),
            "production": statistics.median(production),
            "slot_server": statistics.median(served) + statistics.median(reaps),
        }
    return report


def _in_slot_server(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            frames.write_all(write, json.dumps(work()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    data = zygote._read_to_eof(read)
    os.close(read)
    os.waitpid(pid, 0)
    if not data:
        raise SystemExit("the measuring slot server failed: see its output above")
    report: dict[str, Any] = json.loads(data)
    return report


def _no_function_mode(banned: Any, tripped: Any) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


@contextlib.contextmanager
def _modes(function_mode: bool, guard: bool) -> Iterator[None]:
    """``run_job`` with either interception mode left out (for the figure only)."""
    real_guard, real_class = tripwire.guard, allowlist.Guard
    try:
        if not function_mode:
            tripwire.guard = _no_function_mode
        if not guard:
            allowlist.Guard = lambda *a, **k: None  # type: ignore[assignment,misc]
        yield
    finally:
        tripwire.guard, allowlist.Guard = real_guard, real_class  # type: ignore[misc]


def _modes_share(job: bytes, rounds: int) -> dict[str, float]:
    """Median CPU ms of ``run_job`` here, with both modes, without the function mode, with
    neither; the variants alternated round by round."""
    out, err = sys.stdout, sys.stderr
    variants = {
        "both modes": (True, True),
        "no function mode": (False, True),
        "neither": (False, False),
    }
    times: dict[str, list[float]] = {k: [] for k in variants}
    try:
        for _ in range(rounds):
            for name, (function_mode, guard) in variants.items():
                with _modes(function_mode, guard):
                    start = time.process_time()
                    harness.run_job(job)
                    times[name].append((time.process_time() - start) * 1000)
    finally:  # run_job redirects them for good: it owns the child, not this process
        sys.stdout, sys.stderr = out, err
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", default="layer_norm")
    parser.add_argument("--runs", type=int, default=15, help="measured children per job")
    parser.add_argument("--profile", default=os.environ.get("ADDNORM_SANDBOX", "strict"))
    args = parser.parse_args()

    catalog = load_catalog(REPO / "exercises")
    if args.exercise not in catalog:
        raise SystemExit(f"no exercise {args.exercise!r}; one of: {', '.join(catalog)}")
    banned = [
        allowlist.spec_backstop(e.spec.banned, e.spec.allowed, e.spec.kind)
        for e in catalog.values()
    ]
    index = list(catalog).index(args.exercise)
    spec = catalog[args.exercise].spec
    code = (REPO / "solutions" / f"{args.exercise}.py").read_text()
    cases = casesets.draw(spec, SEED)
    jobs = {
        "worked solution": grader.job_template(spec, cases).with_code(code),
        "empty job (no cases)": grader.job_template(spec, []).with_code(code),
    }

    status = zygote.make_ready(banned)
    profile = sandbox.Profile(args.profile)
    missing = sandbox.check_profile(profile, status)
    if missing:
        raise SystemExit(f"sandbox profile {profile.value} unavailable here: {'; '.join(missing)}")
    limits = sandbox.Limits(
        cpu_seconds=10,
        address_space_headroom=1 << 30,
        uid_base=zygote.UID_RANGE_START + os.getpid() * zygote.MAX_SLOTS,
    )
    huge_zygote = _huge_mib()
    report = _in_slot_server(
        lambda: _slot_server(
            jobs,
            args.runs,
            profile,
            limits,
            lambda: tripwire.arm_slot_server(index, banned[index]),
        )
    )
    share = _modes_share(jobs["worked solution"], max(args.runs, 10))
    speed = timeit.timeit("sum(range(10000))", number=1000) * 1000

    print(f"exercise {args.exercise}, {len(cases)} cases; sandbox profile {profile.value}")
    print(
        f"huge pages: zygote {huge_zygote} MiB; a slot server {report['huge_after_fork']} MiB"
        f" after its fork, {report['huge_after_arming']} MiB once armed for the exercise"
    )
    for name in jobs:
        r = report[name]
        print(f"\n{name}: median over {args.runs} children, CPU ms and minor faults per stage")
        for stage, (ms, faults) in zip(STAGES, r["stages"], strict=True):
            print(f"  {stage:<22} {ms:7.2f} ms {faults:7.0f} faults")
        print(f"  {'exit':<22} {r['exit']:7.2f} ms")
        once = r["total"] - r["stages"][3][0]
        print(
            f"  child, the job run once {once:5.2f} ms"
            f"   (production child: {r['production']:.2f} ms)"
        )
        print(
            f"  slot server, per child: {r['slot_server']:.2f} ms"
            " (fork, job handed over, answer read, slot reaped)"
        )
        first, again = r["stages"][2], r["stages"][3]
        if name == "worked solution":
            print(
                f"  first touches of the zygote's pages: {first[0] - again[0]:.2f} ms,"
                f" {first[1] - again[1]:.0f} faults (the run less its second run)"
            )
    print(f"\nrun_job in this process (median of {max(args.runs, 10)} alternated rounds):")
    for name, ms in share.items():
        print(f"  {name:<18} {ms:6.2f} ms")
    print(
        f"  the modes' share: {share['both modes'] - share['neither']:.2f} ms"
        f" (function mode {share['both modes'] - share['no function mode']:.2f},"
        f" guard {share['no function mode'] - share['neither']:.2f})"
    )
    print(f"\nmachine: sum(range(10000)) takes {speed:.0f} µs in CPython here")


if __name__ == "__main__":
    main()
