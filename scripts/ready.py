"""How long ``addnorm serve`` takes to be ready, against importing torch in the same venv.

Ready: ``/health`` answers 200 with status ``ok`` (the database reached, the sandbox's slots
armed), measured from the moment the process is spawned, on a fresh data directory each time.
The two are timed alternately (torch, serve, torch, serve...) so that the machine's drift falls
on both; the figure is the ratio of their medians, printed beside the machine-speed line. With
``--baseline DIR`` a second checkout (its own .venv, e.g. a worktree of an earlier commit) is
timed in the same rounds, so two builds compare as a ratio measured in one run.

    .venv/bin/python scripts/ready.py [--runs 7] [--baseline ../addnorm-before]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark import interpreter_speed_us, usable_cores  # noqa: E402
from tests.support import free_port  # noqa: E402


def import_torch(repo: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(repo / ".venv/bin/python"), "-c", "import torch"], check=True)
    return time.perf_counter() - started


def serve_until_ready(repo: Path, timeout: float = 180.0) -> float:
    """Seconds from spawning ``addnorm serve`` to its first ``/health`` status ``ok``."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "ADDNORM_DATA_DIR": tmp,
            "ADDNORM_HEALTH_DETAILS": "true",
            "ADDNORM_SANDBOX": os.environ.get("ADDNORM_SANDBOX", "strict"),
        }
        log = Path(tmp) / "server.log"
        url = f"http://127.0.0.1:{port}/health"
        with log.open("wb") as out:
            started = time.perf_counter()
            process = subprocess.Popen(
                [str(repo / ".venv/bin/python"), "-m", "api.cli", "serve", "--port", str(port)],
                env=env,
                cwd=repo,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            try:
                while time.perf_counter() - started < timeout:
                    if process.poll() is not None:
                        raise RuntimeError(f"serve exited {process.returncode}:\n{log.read_text()}")
                    try:
                        r = httpx.get(url, timeout=1.0)
                        if r.status_code == 200 and r.json().get("status") == "ok":
                            return time.perf_counter() - started
                    except httpx.HTTPError:
                        pass
                    time.sleep(0.02)
                raise RuntimeError(f"not ready within {timeout:.0f} s:\n{log.read_text()}")
            finally:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="alternated runs of each")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="another checkout to time in the same rounds"
    )
    args = parser.parse_args()
    builds = {"this": REPO}
    if args.baseline is not None:
        builds["baseline"] = args.baseline.resolve()
    torch_s: list[float] = []
    ready: dict[str, list[float]] = {name: [] for name in builds}
    for run in range(args.runs):
        for name, repo in builds.items():
            torch_s.append(import_torch(repo))
            ready[name].append(serve_until_ready(repo))
        shown = ", ".join(f"{n} {ready[n][-1]:.2f} s" for n in builds)
        print(f"run {run + 1}/{args.runs}: import torch {torch_s[-1]:.2f} s; ready: {shown}")
    print(
        f"machine: {os.cpu_count()} cores, {usable_cores()} usable here; sum(range(10000)) takes "
        f"{interpreter_speed_us():.0f} µs in CPython here"
    )
    torch_median = statistics.median(torch_s)
    print(f"import torch: median {torch_median:.2f} s (min {min(torch_s):.2f})")
    for name, times in ready.items():
        median = statistics.median(times)
        print(
            f"ready ({name}, {builds[name]}): median {median:.2f} s (min {min(times):.2f}, "
            f"max {max(times):.2f}), {median / torch_median:.2f}x importing torch (goal: 3x)"
        )
    if "baseline" in ready:
        ratio = statistics.median(ready["this"]) / statistics.median(ready["baseline"])
        print(f"this build against the baseline: {ratio:.2f}x the time to ready")


if __name__ == "__main__":
    main()
