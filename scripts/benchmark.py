"""Grading benchmark: starts the service as scripts/serve does and prints, in one run,

- submit-to-verdict latency over HTTP for a correct ``layer_norm`` (one client): p50/p90/p99;
- verdicts per second with 16 concurrent clients, and how many requests failed; then again
  with the clients submitting ``layer_norm``'s known mistakes, which a timed session sees more
  of than correct code and which cost the service more (the diagnosis names the mistake);
- one learner alone (``--spaced N``): submissions spaced beyond a case set's life, so that
  each verdict pays for its own cases, reference and known mistakes' runs, as a learner
  practising on their own does; the runs above submit back to back and share them;
- the time of a fresh interpreter that imports torch and checks the same code, and the ratio;
- the grader pool's memory (PSS of the zygote and its slot servers) under that load;
- CPU time per verdict in both runs, split into the service process (HTTP, database, drawing
  the cases, the reference, the comparison) and the grader pool (the zygote, its slot servers and
  every child they reaped), from the kernel's accounting in ``/proc``: less sensitive to other
  load on the machine than wall-clock figures, so the figure to compare two builds by.

``--repo PATH`` benchmarks another checkout (its own ``.venv``) with this script, so two builds
can be measured side by side, interleaved, under the same load. ``--cores 1,2`` runs the
throughput part confined to 1, then 2 cores (as ``taskset -c`` would), prints the gain and what
4 and 8 cores would give, worked out from the per-verdict figures.

Figures, not assertions: run it with ``.venv/bin/python scripts/benchmark.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import importlib
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import httpx
import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from api.config import deciders_for  # noqa: E402
from tests.support import (  # noqa: E402
    SUITE_ENV,
    Server,
    free_port,
    known_mistakes,
    start_server,
    stop_server,
)

# Sixteen learners from one address: the per-address and per-learner limits (docs/
# shared-deployment.md) are lifted, as for the test suite, so the figures measure grading, not
# the limiter. A checkout older than those limits ignores the settings it does not know.
BENCHMARK_LIMITS = {
    **SUITE_ENV,
    "ADDNORM_SUBMISSIONS_PER_MINUTE": "100000",
    # The deployment's default for this machine's cores unless the caller's environment sets it.
    "ADDNORM_DECIDERS": os.environ.get("ADDNORM_DECIDERS", ""),
}

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
# What most submissions of a timed session are: code with a known mistake in it. A failing
# verdict costs the service more than a pass (the diagnosis runs the known mistakes on the
# failing cases to name the learner's), so capacity is measured on these too.
MISTAKES = known_mistakes("layer_norm")

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


class Learner:
    """One client's keep-alive connection, submitting with as little CPU as a client can.

    The load generator shares the machine's cores with the service: httpx spent about 3 ms of
    CPU per verdict with 16 clients, counted against the service's throughput. This sends a
    pre-encoded request over ``http.client`` and parses the answer with orjson instead; every
    verdict is still read and checked."""

    def __init__(self, server: Server, token: str) -> None:
        url = urllib.parse.urlsplit(server.url)
        self._connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=60)
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self._bodies: dict[tuple[str, str], bytes] = {}

    def __enter__(self) -> Learner:
        return self

    def __exit__(self, *exc: object) -> None:
        self._connection.close()

    def submit(
        self, slug: str = "layer_norm", code: str = SOLUTION, expect: str = "passed"
    ) -> float:
        """Submit ``code`` and check its verdict is ``expect``; the milliseconds to it."""
        body = self._bodies.get((slug, code))
        if body is None:
            body = self._bodies[slug, code] = orjson.dumps({"code": code})
        start = time.perf_counter()
        self._connection.request("POST", f"/exercises/{slug}/submissions", body, self._headers)
        response = self._connection.getresponse()
        answer = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status != 201 or orjson.loads(answer).get("verdict") != expect:
            raise RuntimeError(f"{response.status}: {answer[:300]!r}")
        return elapsed


def pool_pss_mib(zygote: int) -> float:
    """Proportional set size of the zygote and every process below it (shared pages split).
    This server's zygote only: other services on the machine have their own."""
    # From /proc, not `ps`: a process spawned four times a second took CPU from the service
    # on the same cores.
    rows = [(pid, ppid) for pid, (ppid, _cmdline) in _processes().items()]
    members, changed = {zygote}, True
    while changed:
        changed = False
        for pid, ppid in rows:
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


def huge_pages_mib(pid: int) -> float:
    """Anonymous memory of ``pid`` backed by transparent huge pages (api.grading.hugepages)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) / 1024
    return 0.0


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, *, reaped: bool = False) -> float:
    """User + system CPU of a process (all its threads), and with ``reaped`` also that of every
    descendant it has waited for (the kernel adds a reaped child's totals to its parent's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3 of stat): utime is field 14, cutime 16.
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / _TICK


def _processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[int(proc.name)] = (int(stat[1]), cmdline)
    return found


def zygote_pid(server_pid: int) -> int:
    for pid, (ppid, cmdline) in _processes().items():
        if ppid == server_pid and b"api.grading.zygote" in cmdline:
            return pid
    raise RuntimeError("no grader zygote under the server")


def pool_cpu_seconds(zygote: int) -> float:
    """The zygote, its live slot servers and everything either has reaped (slot servers that
    exited, children): slot servers serve many jobs, so their own totals count while they live."""
    total = cpu_seconds(zygote, reaped=True)
    for pid, (ppid, _) in _processes().items():
        if ppid == zygote:
            with contextlib.suppress(OSError, IndexError, ValueError):
                total += cpu_seconds(pid, reaped=True)
    return total


class Cpu(NamedTuple):
    """CPU ms per verdict: the service process, its decider processes, the grader pool."""

    service: float
    deciders: float
    pool: float

    @property
    def total(self) -> float:
        return self.service + self.deciders + self.pool


def decider_pids(server_pid: int) -> list[int]:
    """The service's decider processes (``api.grading.deciders``): none with ADDNORM_DECIDERS=0,
    or in a build that has none."""
    return [
        pid
        for pid, (ppid, cmdline) in _processes().items()
        if ppid == server_pid and b"\x00api.cli\x00decider\x00" in cmdline
    ]


class CpuMeter:
    """CPU spent by the service, its deciders and the grader pool between ``start`` and
    ``per_verdict``.

    The pool's figure counts children once reaped: a job still running at the end is missed, so
    read it over many verdicts.
    """

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.zygote = zygote_pid(server_pid)
        self.start()

    def _now(self) -> tuple[float, float, float]:
        deciders = 0.0
        for pid in decider_pids(self.server_pid):
            with contextlib.suppress(OSError, IndexError, ValueError):
                deciders += cpu_seconds(pid)
        return cpu_seconds(self.server_pid), deciders, pool_cpu_seconds(self.zygote)

    def start(self) -> None:
        self._start = self._now()

    def per_verdict(self, verdicts: int) -> Cpu:
        """CPU ms per verdict since ``start`` (a decider that died and was started again in
        between is undercounted: the service's log says so)."""
        now = self._now()
        n = max(verdicts, 1)
        return Cpu(*((b - a) * 1000 / n for a, b in zip(self._start, now, strict=True)))


def cpu_line(meter: CpuMeter, verdicts: int) -> str:
    cpu = meter.per_verdict(verdicts)
    cores = usable_cores()
    return (
        f"  CPU per verdict: {cpu.total:.1f} ms (service {cpu.service:.1f} ms, grader pool "
        f"{cpu.pool:.1f} ms, deciders {cpu.deciders:.1f} ms); "
        f"at most {cores * 1000 / max(cpu.total, 1e-9):.1f} verdicts/s on {cores} cores"
    )


def usable_cores() -> int:
    """The cores this process may run on: under ``taskset -c 0`` one, whatever the machine has
    (the service and its grader pool inherit the mask)."""
    return len(os.sched_getaffinity(0))


def interpreter_speed_us() -> float:
    """How fast this machine runs Python now: the best of seven timings of
    ``sum(range(10000))``, in microseconds. Printed beside the figures because machines of one
    kind differ (and a shared one changes from hour to hour) by a factor of two and more:
    figures from two machines compare only in proportion to it."""
    best = math.inf
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            sum(range(10000))
        best = min(best, (time.perf_counter() - start) / 200)
    return best * 1e6


def start_other(repo: Path, data_dir: Path, **env: str) -> Server:
    """``addnorm serve`` from another checkout, started the way ``tests.support`` starts ours."""
    port = free_port()
    log = data_dir / "server.log"
    full_env = {
        **os.environ,
        "ADDNORM_TEST_CANARY": "benchmark",
        "ADDNORM_DATA_DIR": str(data_dir),
        "ADDNORM_SANDBOX": os.environ.get("ADDNORM_SANDBOX", "strict"),
        **env,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(repo / ".venv/bin/python"), "-m", "api.cli", "serve", "--port", str(port)],
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=repo,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return Server(url, data_dir, process, log, "benchmark")
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not come up:\n{log.read_text()}")


def _floor(slug: str, sources: list[str]) -> float:
    """``scripts/floor.py``'s figure for ``slug`` on ``sources``, CPU ms per verdict. Imported
    here: the load generator must not pay for torch unless a floor is asked for."""
    sys.path.insert(0, str(REPO / "scripts"))
    module = importlib.import_module("floor")
    total: float = module.floor(slug, sources, REPO).total
    return total


def per_exercise(server: Server, n: int) -> None:
    """Per exercise, one client: latency and CPU per verdict of the worked solution, then CPU per
    verdict of its known mistakes in turn; each beside its floor (``scripts/floor.py``), the
    same checks in one process, and the ratio."""
    print(f"each exercise, one client, {n} submissions of the worked solution and {n} failing:")
    print(
        f"  {'exercise':<30} {'p50 ms':>7} {'pass CPU':>9} {'floor':>6} {'ratio':>6}"
        f" {'fail CPU':>9} {'service':>8} {'floor':>6} {'ratio':>6} {'fail/pass':>9}"
    )
    token = server.new_learner("each")
    # The catalogue is for signed-in learners (a shared deployment lists it to no stranger).
    listed = httpx.get(f"{server.url}/exercises", headers={"Authorization": f"Bearer {token}"})
    listed.raise_for_status()
    for slug in [e["slug"] for e in listed.json()]:
        code = (REPO / "solutions" / f"{slug}.py").read_text()
        mistakes = known_mistakes(slug)
        # A connection per exercise: the floor below takes longer than the server keeps an
        # idle connection open.
        with Learner(server, token) as learner:
            for _ in range(3):
                learner.submit(slug, code)
            meter = CpuMeter(server.process.pid)
            times = [learner.submit(slug, code) for _ in range(n)]
            passing = meter.per_verdict(n).total
            failing = fail_service = math.nan
            if mistakes:
                meter.start()
                for k in range(n):
                    learner.submit(slug, mistakes[k % len(mistakes)], expect="failed")
                fail = meter.per_verdict(n)
                failing, fail_service = fail.total, fail.service
        pass_floor = _floor(slug, [code])
        fail_floor = _floor(slug, mistakes[:n]) if mistakes else math.nan
        print(
            f"  {slug:<30} {percentile(times, 50):>7.1f} {passing:>9.1f} {pass_floor:>6.1f}"
            f" {passing / pass_floor:>5.1f}x {failing:>9.1f} {fail_service:>8.1f}"
            f" {fail_floor:>6.1f} {failing / fail_floor:>5.1f}x {failing / passing:>8.2f}x",
            flush=True,
        )
    print("  (CPU per verdict in ms, service + grader pool + deciders; goals: ratio to the")
    print("   floor <= 2 passing, <= 2.5 failing; failing <= 1.3x passing; the service < 15 ms)")


def submit_nth(learner: Learner, client: int, k: int, *, mistakes: bool) -> float:
    """Client ``client``'s ``k``-th submission: the worked solution, or with ``mistakes`` the
    known mistakes in turn (each client starting at its own), checked to fail."""
    if mistakes:
        return learner.submit(code=MISTAKES[(client + k) % len(MISTAKES)], expect="failed")
    return learner.submit()


def mistakes_run(server: Server, tokens: list[str], per_client: int) -> float:
    """The throughput run again, each client submitting layer_norm's known mistakes in turn:
    every answer must be 201 and ``failed``. Returns the CPU ms per verdict."""
    meter = CpuMeter(server.process.pid)
    failures: list[str] = []

    def client_run(index: int) -> int:
        done = 0
        with Learner(server, tokens[index]) as learner:
            for k in range(per_client):
                try:
                    submit_nth(learner, index, k, mistakes=True)
                    done += 1
                except Exception as exc:  # counted and reported, never hidden
                    failures.append(str(exc))
        return done

    start = time.perf_counter()
    with ThreadPoolExecutor(len(tokens)) as ex:
        ok = sum(ex.map(client_run, range(len(tokens))))
    wall = time.perf_counter() - start
    time.sleep(0.5)  # the last slot servers exit and are reaped
    print(
        f"\nthroughput on known mistakes ({len(MISTAKES)} of layer_norm, in turn), "
        f"{len(tokens)} clients x {per_client}:"
    )
    print(f"  {ok / wall:.1f} verdicts/s ({ok} in {wall:.1f} s), {len(failures)} failed")
    print(cpu_line(meter, ok + len(failures)))
    for f in failures[:3]:
        print(f"  failure: {f}")
    return meter.per_verdict(ok + len(failures)).total


# How long the service shares a case set (``api.grading.casesets.MAX_AGE``, not imported: the
# load generator must not pay for torch). A submission after a longer pause draws its own.
CASE_SET_LIFE = 2.0
SETTLE = 0.3  # after a verdict: the child is reaped and the next one forked, counted too


def spaced_run(server: Server, n: int) -> tuple[Cpu, Cpu]:
    """One learner alone, as a learner really submits: each submission after a pause longer
    than a case set lives, so that each verdict pays for its own draw, its reference and, when
    it fails, its known mistakes' runs, which back-to-back submissions share 64 to a set.
    CPU is counted around each submission only (from just before it until ``SETTLE`` after its
    verdict): what the idle service spends in the pauses is not a verdict's."""
    print(
        f"\none learner alone, a submission every {CASE_SET_LIFE + 0.5:.1f} s or more (each on a"
        f" case set of its own), {n} worked solutions then {n} of layer_norm's known mistakes:"
    )
    meter = CpuMeter(server.process.pid)
    results = []
    with Learner(server, server.new_learner("alone")) as learner:
        for mistakes in (False, True):
            spent = [0.0, 0.0, 0.0]
            latencies = []
            for k in range(n):
                time.sleep(CASE_SET_LIFE + 0.5)
                meter.start()
                latencies.append(submit_nth(learner, 0, k, mistakes=mistakes))
                time.sleep(SETTLE)
                for i, figure in enumerate(meter.per_verdict(1)):
                    spent[i] += figure
            cpu = Cpu(*(s / n for s in spent))
            label = "known mistakes" if mistakes else "worked solution"
            print(
                f"  {label}: p50 {percentile(latencies, 50):.1f} ms; CPU per verdict "
                f"{cpu.total:.1f} ms (service {cpu.service:.1f} ms, grader pool {cpu.pool:.1f} ms,"
                f" deciders {cpu.deciders:.1f} ms)"
            )
            results.append(cpu)
    print(f"  failing / passing CPU per verdict: {results[1].total / results[0].total:.2f}x")
    return results[0], results[1]


def _throughput_round(
    repo: Path,
    concurrent: int,
    per_client: int,
    mistakes: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[float, ...]:
    """One server from ``repo``, warmed, then ``concurrent`` clients submitting the worked
    solution (or, with ``mistakes``, layer_norm's known mistakes in turn): (verdicts/s, service
    ms, deciders ms, pool ms, load generator ms), CPU per verdict."""
    limits = BENCHMARK_LIMITS
    with tempfile.TemporaryDirectory() as tmp:
        server = start_other(repo, Path(tmp), **{**limits, **(env or {})})
        try:
            tokens = [server.new_learner(f"client{i}") for i in range(concurrent)]
            with Learner(server, tokens[0]) as learner:
                for _ in range(10):
                    learner.submit()
            meter = CpuMeter(server.process.pid)

            def client_run(index: int) -> int:
                with Learner(server, tokens[index]) as learner:
                    for k in range(per_client):
                        # A failure ends the round: a broken build misleads.
                        submit_nth(learner, index, k, mistakes=mistakes)
                return per_client

            start, client_start = time.perf_counter(), time.process_time()
            with ThreadPoolExecutor(concurrent) as ex:
                done = sum(ex.map(client_run, range(concurrent)))
            wall = time.perf_counter() - start
            generator = (time.process_time() - client_start) * 1000 / done
            time.sleep(0.5)  # the last slot servers exit and are reaped
            return (done / wall, *meter.per_verdict(done), generator)
        finally:
            stop_server(server)


def contender(text: str) -> tuple[str, Path, dict[str, str]]:
    """``PATH`` or ``PATH:NAME=VALUE[,NAME=VALUE]``: a checkout, and the settings its service
    runs with (``.:ADDNORM_DECIDERS=0`` against ``.``: one build, two settings)."""
    path, _, settings = text.partition(":")
    env = dict(item.split("=", 1) for item in settings.split(",") if item)
    return text, Path(path).resolve(), env


def interleaved(
    contenders: list[tuple[str, Path, dict[str, str]]],
    rounds: int,
    concurrent: int,
    per_client: int,
    mistakes: bool = False,
) -> None:
    """The throughput run only, each checkout (with its settings) in turn, ``rounds`` times;
    then the medians.

    On a shared or virtual machine one run of a build varies by 15% and more (whatever the
    neighbours do): builds are compared by rounds that alternate, not by runs taken apart, and
    each round runs them in the other order from the round before."""
    rows: dict[str, list[tuple[float, ...]]] = {label: [] for label, _, _ in contenders}
    width = max(len(label) for label in rows)

    def line(label: str, repo: str, f: Sequence[float]) -> str:
        return (
            f"  {label:<8} {repo:<{width}}  {f[0]:5.1f} verdicts/s, CPU per verdict "
            f"{f[1] + f[2] + f[3]:5.1f} ms (service {f[1]:4.1f}, pool {f[3]:4.1f}, "
            f"deciders {f[2]:4.1f}), load generator {f[4]:3.1f} ms"
        )

    what = "known mistakes" if mistakes else "worked solution"
    print(f"throughput ({what}), {concurrent} clients x {per_client}, {rounds} interleaved rounds:")
    for r in range(rounds):
        print(f"  (sum(range(10000)) takes {interpreter_speed_us():.0f} µs in CPython now)")
        # The order turns every round, so that the machine's drift within a round (its speed
        # moves for minutes at a time) does not always favour the same build.
        for label, repo, env in contenders if r % 2 == 0 else contenders[::-1]:
            figures = _throughput_round(repo, concurrent, per_client, mistakes, env)
            rows[label].append(figures)
            print(line(f"round {r + 1}", label, figures), flush=True)
    for label, got in rows.items():
        print(line("median", label, [statistics.median(f[i] for f in got) for i in range(5)]))


def core_counts(text: str) -> list[int]:
    """``1,2``: the core counts of a ``--cores`` run, each at least 1, in rising order."""
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: core counts such as 1,2") from None
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: core counts such as 1,2")
    return counts


@contextlib.contextmanager
def confined(cores: int) -> Iterator[None]:
    """This process, and what it starts meanwhile (the service, its grader pool, its deciders),
    on the first ``cores`` cores it may use, as ``taskset -c`` would confine the whole tree; the
    service then picks its defaults (slots, deciders) for that many cores."""
    mask = os.sched_getaffinity(0)
    os.sched_setaffinity(0, sorted(mask)[:cores])
    try:
        yield
    finally:
        os.sched_setaffinity(0, mask)


def scaling(counts: list[int], rounds: int, concurrent: int, per_client: int) -> None:
    """The throughput runs (worked solution, then known mistakes) on 1, 2, ... cores in turn,
    ``rounds`` times, medians; the gain from the fewest cores to the most; and what 4 and 8 cores
    would give, worked out from the per-verdict figures of the largest run."""
    usable = usable_cores()
    if counts[-1] > usable:
        raise SystemExit(f"--cores {counts[-1]}: only {usable} cores are usable here")
    rows: dict[tuple[int, bool], list[tuple[float, ...]]] = {
        (n, m): [] for n in counts for m in (False, True)
    }
    print(
        f"throughput on {', '.join(map(str, counts))} cores, {concurrent} clients x "
        f"{per_client}, {rounds} rounds (the load generator shares the cores):"
    )
    for r in range(rounds):
        print(f"  (sum(range(10000)) takes {interpreter_speed_us():.0f} µs in CPython now)")
        for n in counts if r % 2 == 0 else counts[::-1]:
            for mistakes in (False, True):
                with confined(n):
                    f = _throughput_round(REPO, concurrent, per_client, mistakes)
                rows[(n, mistakes)].append(f)
                print(
                    f"  round {r + 1}, {n} core(s), {'failing' if mistakes else 'passing'}: "
                    f"{f[0]:5.1f} verdicts/s, CPU per verdict {f[1] + f[2] + f[3]:5.1f} ms "
                    f"(service {f[1]:4.1f}, deciders {f[2]:4.1f}, pool {f[3]:4.1f})",
                    flush=True,
                )
    medians = {
        key: [statistics.median(f[i] for f in got) for i in range(5)] for key, got in rows.items()
    }
    print("medians:")
    for n in counts:
        ok, bad = medians[(n, False)], medians[(n, True)]
        print(
            f"  {n} core(s): passing {ok[0]:5.1f} verdicts/s ({sum(ok[1:4]):5.1f} ms, service "
            f"{ok[1]:4.1f}), failing {bad[0]:5.1f} verdicts/s ({sum(bad[1:4]):5.1f} ms, service "
            f"{bad[1]:4.1f})"
        )
    if len(counts) > 1:
        low, high = counts[0], counts[-1]
        for mistakes, what in ((False, "passing"), (True, "failing")):
            gain = medians[(high, mistakes)][0] / max(medians[(low, mistakes)][0], 1e-9)
            print(
                f"  {what}: {high} cores give {gain:.2f}x the verdicts/s of {low}"
                f" (ideal {high / low:.0f}x)"
            )
    # What more cores would give: the cores' CPU, or one service process (one interpreter lock),
    # or the deciders, whichever runs out first. Where this run decided in the service, so does
    # the estimate (ADDNORM_DECIDERS=0 on more cores); where deciders ran, it counts as many as
    # the default starts on that many cores (their CPU per verdict does not depend on how many).
    measured = counts[-1]
    beside = any(medians[(measured, m)][2] > 0 for m in (False, True))
    print(
        f"what more cores would give, from the {measured}-core figures (an estimate, not"
        " measured; "
        + (
            "deciders as the default starts them"
            if beside
            else "every verdict decided in the service, as in this run: ADDNORM_DECIDERS=0"
        )
        + "):"
    )
    for mistakes, what in ((False, "passing"), (True, "failing")):
        _, service, deciders, pool, _ = medians[(measured, mistakes)]
        for cores in (4, 8):
            bounds = {"CPU": cores * 1000 / max(service + deciders + pool, 1e-9)}
            bounds["the service's one core"] = 1000 / max(service, 1e-9)
            if deciders > 0:
                count = max(deciders_for(cores), 1)
                bounds[f"{count} decider(s)"] = count * 1000 / deciders
            limit = min(bounds, key=lambda k: bounds[k])
            print(
                f"  {what}, {cores} cores: about {bounds[limit]:.0f} verdicts/s"
                f" (bounded by {limit})"
            )


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
    parser.add_argument(
        "--spaced",
        type=int,
        default=20,
        metavar="N",
        help="submissions each way (passing, failing) of one learner alone, spaced beyond a case"
        " set's life (0: skip that part)",
    )
    parser.add_argument(
        "--repo", type=Path, default=None, help="benchmark this checkout instead (its .venv)"
    )
    parser.add_argument(
        "--each",
        type=int,
        default=0,
        metavar="N",
        help="instead: N sequential submissions of every exercise's worked solution, one table",
    )
    parser.add_argument(
        "--interleave",
        type=contender,
        nargs="+",
        metavar="PATH[:NAME=VALUE,...]",
        help="instead: the throughput run of each checkout in turn (. is this one), --rounds"
        " times, its service run with the settings given (.:ADDNORM_DECIDERS=0)",
    )
    parser.add_argument("--rounds", type=int, default=4, help="rounds for --interleave")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also the floor (scripts/floor.py) and each verdict's CPU as a ratio to it",
    )
    parser.add_argument(
        "--mistakes",
        action="store_true",
        help="with --interleave: submit layer_norm's known mistakes instead of the solution",
    )
    parser.add_argument(
        "--cores",
        type=core_counts,
        metavar="N,N",
        help="instead: the throughput runs on the first N usable cores for each N (1,2), "
        "--rounds times, the gain between them and an estimate for 4 and 8 cores",
    )
    args = parser.parse_args()
    if args.cores:
        scaling(args.cores, args.rounds, args.concurrent, args.per_client)
        return
    if args.interleave:
        interleaved(args.interleave, args.rounds, args.concurrent, args.per_client, args.mistakes)
        return
    limits = BENCHMARK_LIMITS

    with tempfile.TemporaryDirectory() as tmp:
        if args.repo is None:
            server = start_server(Path(tmp), **limits)
        else:
            server = start_other(args.repo.resolve(), Path(tmp), **limits)
            print(f"checkout: {args.repo.resolve()}")
        try:
            health = httpx.get(f"{server.url}/health").json()["sandbox"]
            active = [k for k, v in health["layers"].items() if v.get("active")]
            deciders = httpx.get(f"{server.url}/health").json().get("deciders", {})
            print(
                f"sandbox profile {health['profile']}, {health['slots']} slots,"
                f" {deciders.get('processes', 0)} decider processes"
            )
            print(f"active layers: {', '.join(active)}")
            print(
                f"machine: {os.cpu_count()} cores, {usable_cores()} usable here;"
                f" sum(range(10000)) takes "
                f"{interpreter_speed_us():.0f} µs in CPython here\n"
            )
            if args.each > 0:
                per_exercise(server, args.each)
                return

            with Learner(server, server.new_learner("bench")) as learner:
                for _ in range(10):
                    learner.submit()  # warm the HTTP path and the allocator
                meter = CpuMeter(server.process.pid)
                latencies = [learner.submit() for _ in range(args.sequential)]
                sequential_cpu = cpu_line(meter, args.sequential)
            p50, p90, p99 = (percentile(latencies, q) for q in (50, 90, 99))
            print(f"latency, one client, {args.sequential} correct layer_norm submissions:")
            print(f"  p50 {p50:.1f} ms   p90 {p90:.1f} ms   p99 {p99:.1f} ms")
            print("  (targets: p50 <= 50 ms, p99 <= 150 ms)")
            print(sequential_cpu)
            passing_cpu = meter.per_verdict(args.sequential).total

            tokens = [server.new_learner(f"client{i}") for i in range(args.concurrent)]
            failures: list[str] = []
            peak_pss = [0.0]
            stop = threading.Event()

            def sample_memory() -> None:
                while not stop.is_set():
                    peak_pss[0] = max(peak_pss[0], pool_pss_mib(meter.zygote))
                    # Once a second: a sample walks every pool process's page tables (~10 ms
                    # of CPU here), and the zygote and slot servers, most of the peak, live
                    # throughout the run.
                    time.sleep(1.0)

            def client_run(token: str) -> list[float]:
                done = []
                with Learner(server, token) as learner:
                    for _ in range(args.per_client):
                        try:
                            done.append(learner.submit())
                        except Exception as exc:  # counted and reported, never hidden
                            failures.append(str(exc))
                return done

            sampler = threading.Thread(target=sample_memory, daemon=True)
            sampler.start()
            meter.start()
            start, client_start = time.perf_counter(), time.process_time()
            with ThreadPoolExecutor(args.concurrent) as ex:
                results = list(ex.map(client_run, tokens))
            wall = time.perf_counter() - start
            client_cpu = time.process_time() - client_start
            time.sleep(0.5)  # the last slot servers exit and are reaped
            stop.set()
            sampler.join()
            ok = sum(len(r) for r in results)
            under_load = [v for r in results for v in r]
            print(f"\nthroughput, {args.concurrent} concurrent clients x {args.per_client}:")
            print(f"  {ok / wall:.1f} verdicts/s ({ok} in {wall:.1f} s), {len(failures)} failed")
            print("  (target: >= 40 verdicts/s, no failed requests)")
            print(cpu_line(meter, ok + len(failures)))
            # The clients run on the same cores: their share is CPU the service did not get.
            per = client_cpu * 1000 / max(ok, 1)
            print(f"  load generator (this script): {per:.1f} ms CPU per verdict")
            if under_load:
                p50_load, p99_load = percentile(under_load, 50), percentile(under_load, 99)
                print(f"  latency under load: p50 {p50_load:.0f} ms, p99 {p99_load:.0f} ms")
            print(f"  grader pool memory (PSS, peak): {peak_pss[0]:.0f} MiB   (target: <= 1024)")
            print(f"  zygote memory in huge pages: {huge_pages_mib(meter.zygote):.0f} MiB")
            for f in failures[:3]:
                print(f"  failure: {f}")
            failing_cpu = mistakes_run(server, tokens, args.per_client)
            print(f"\nfailing / passing CPU per verdict: {failing_cpu / passing_cpu:.2f}x")
            print("  (passing: the one-client run; failing: the 16-client run; goal: <= 1.3x)")
            alone = spaced_run(server, args.spaced) if args.spaced > 0 else None
            if args.floor:
                pass_floor = _floor("layer_norm", [SOLUTION])
                fail_floor = _floor("layer_norm", MISTAKES)
                print("\nfloor (the same checks in one process: learner, reference, comparison):")
                print(
                    f"  passing {pass_floor:.1f} ms, verdict {passing_cpu / pass_floor:.1f}x it"
                    " (goal: <= 2x)"
                )
                print(
                    f"  failing {fail_floor:.1f} ms, verdict {failing_cpu / fail_floor:.1f}x it"
                    " (goal: <= 2.5x)"
                )
                if alone is not None:
                    # The floor counts the reference in full, as a learner alone pays it.
                    print(
                        f"  a learner alone: passing {alone[0].total / pass_floor:.1f}x,"
                        f" failing {alone[1].total / fail_floor:.1f}x (nothing shared)"
                    )
        finally:
            stop_server(server)

    if args.fresh <= 0:
        return
    fresh = []
    for _ in range(args.fresh):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", FRESH_CHECK], input=SOLUTION, text=True, check=True)
        fresh.append((time.perf_counter() - start) * 1000)
    fresh_median = statistics.median(fresh)
    print(f"\nfresh interpreter per submission (import torch + one check): {fresh_median:.0f} ms")
    print(f"  (median of {args.fresh} runs)")
    print(f"  warm pool is {fresh_median / p50:.0f}x faster at p50   (target: >= 100x)")


if __name__ == "__main__":
    main()
