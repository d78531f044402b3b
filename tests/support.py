"""A real addnorm server for tests and the benchmark: ``addnorm serve`` as a subprocess, on a real
SQLite file in a temporary data directory, with the real sandbox."""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import httpx

if TYPE_CHECKING:
    from api.grading.grader import Grader

REPO = Path(__file__).resolve().parent.parent


T = TypeVar("T")


def known_mistakes(slug: str = "layer_norm") -> list[str]:
    """The sources of an exercise's failing known-mistake variants, in name order: what the
    benchmarks submit as the failing code a timed session mostly sees."""
    variants = sorted((REPO / "exercises" / slug / "variants").glob("failed_*.py"))
    return [p.read_text() for p in variants]


@contextmanager
def in_process_grader(slots: int = 1, *, catalog: bool = False) -> Iterator[Grader]:
    """A grader in this process with its own warm pool, under the suite's sandbox profile, and a
    generous time limit (a busy CI machine). Imported here, not above: the benchmarks' load
    generator imports this module and must not pay for torch. ``catalog``: the pool is given
    every exercise's backstop list, as the service's is (its slot servers arm themselves)."""
    from api.content.catalog import load_catalog
    from api.grading import allowlist
    from api.grading.grader import Grader
    from api.grading.pool import GraderPool

    banned = [
        allowlist.spec_backstop(e.spec.banned, e.spec.allowed, e.spec.kind)
        for e in (load_catalog(REPO / "exercises").values() if catalog else ())
    ]
    pool = GraderPool(
        slots=slots, profile=os.environ.get("ADDNORM_SANDBOX", "strict"), banned=banned
    )
    pool.start()
    try:
        yield Grader(pool, time_limit=30.0)
    finally:
        pool.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    data_dir: Path
    process: subprocess.Popen[bytes]
    log: Path
    # A secret only the server's environment holds: no verdict may ever contain it.
    canary: str

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def new_learner(self, name: str = "learner") -> str:
        with self.client() as c:
            r = c.post("/users", json={"name": name})
            r.raise_for_status()
            return str(r.json()["token"])


SERVE = (sys.executable, "-m", "api.cli", "serve")

# The suite's servers serve thousands of tests from one address (127.0.0.1), and its tests read
# the sandbox's detail from /health: both lifted here, unless a test passes its own value. The
# tests of the limits themselves (tests/hostile/test_shared_deployment.py) start servers with
# DEPLOYED_DEFAULTS, the limits a fresh deployment gets.
SUITE_ENV = {
    "ADDNORM_HEALTH_DETAILS": "true",
    "ADDNORM_REQUESTS_PER_MINUTE": "1000000",
    "ADDNORM_SIGNUPS_PER_HOUR": "1000000",
    "ADDNORM_SIGNINS_PER_MINUTE": "1000000",
    "ADDNORM_ADDRESS_SUBMISSIONS_PER_HOUR": "1000000",
    "ADDNORM_SUBMISSIONS_PER_HOUR": "1000000",
    "ADDNORM_STATIC_REJECTIONS_STORED_PER_HOUR": "1000000",
    "ADDNORM_ANSWERS_PER_HOUR": "1000000",
    "ADDNORM_DRAFT_SAVES_PER_HOUR": "1000000",
    "ADDNORM_INTERVIEWS_PER_HOUR": "1000000",
    "ADDNORM_INTERVIEW_CLOCK_PER_HOUR": "1000000",
    "ADDNORM_GRADINGS_PER_ADDRESS": "64",
    "ADDNORM_CONNECTIONS_PER_ADDRESS": "1024",
    "ADDNORM_IDLE_CONNECTIONS_PER_ADDRESS": "1024",
}
DEPLOYED_DEFAULTS = {name: "" for name in SUITE_ENV}


def start_server(data_dir: Path, **env: str) -> Server:
    """``addnorm serve`` as a subprocess, exactly as the README starts it (with ``SUITE_ENV``
    unless ``env`` says otherwise; an empty value means the deployed default)."""
    return start_server_on(data_dir, env)


def start_server_on(
    data_dir: Path,
    env: dict[str, str],
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    command_prefix: Sequence[str] = (),
) -> Server:
    """``start_server`` bound to ``host``; ``command_prefix`` runs it elsewhere (``ip netns exec
    NS``: a host of tests/multihost.py), and the calling thread must then reach ``host`` too."""
    port = port or free_port()
    log = data_dir / "server.log"
    canary = f"canary-{secrets.token_hex(16)}"
    full_env = {
        **os.environ,
        "ADDNORM_TEST_CANARY": canary,
        "ADDNORM_DATA_DIR": str(data_dir),
        # The strict profile unless the run says otherwise (CI runs it as root and non-root).
        "ADDNORM_SANDBOX": os.environ.get("ADDNORM_SANDBOX", "strict"),
        **SUITE_ENV,
        **env,
    }
    data_dir.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command_prefix, *SERVE, "--host", host, "--port", str(port)],
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
    url = f"http://{host}:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return Server(url, data_dir, process, log, canary)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not come up:\n{log.read_text()}")


TRACEBACK = "Traceback (most recent call last):"


def stop_server(server: Server) -> None:
    """Stop the server; then its log must hold no traceback. Each one is something that failed
    where no test looked: a request answered 500, a grading or a diagnosis that raised (the
    learner still gets a verdict, without the diagnosis). No test of the suite provokes one on
    purpose; one that must would say so here."""
    server.process.terminate()
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    found = logged_tracebacks(server.log)
    assert not found, f"the server logged {len(found)} traceback(s); the first:\n{found[0]}"


def logged_tracebacks(log: Path, *, context: int = 40) -> list[str]:
    """Each traceback in ``log``, with the line before it (what was logged with it) and up to
    ``context`` lines of it. Found anywhere in a line: uvicorn logs some behind its own prefix
    (``ERROR:    Traceback ...``, a lifespan that raised)."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    return [
        "\n".join(lines[max(i - 1, 0) : i + context])
        for i, line in enumerate(lines)
        if TRACEBACK in line
    ]


def browser_cookie(server: Server, token: str) -> str:
    """Sign in on the sign-in page with an API token, as a browser would; the session cookie the
    server set (a session of its own: the cookie never holds the token)."""
    with httpx.Client(base_url=server.url, timeout=60, follow_redirects=False) as browser:
        page = browser.get("/app/signin")
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
        assert csrf, "no CSRF field on the sign-in page"
        r = browser.post("/app/signin", data={"token": token, "csrf": csrf.group(1)})
        assert r.status_code == 303, (r.status_code, r.text[:300])
        cookie = r.cookies.get("addnorm_session")
        assert cookie, r.headers
        return cookie


def run_script(name: str, *args: str) -> str:
    """``scripts/<name>`` run to its end with this interpreter, from the checkout; its standard
    output, once it exited 0 (else the test fails with everything it printed)."""
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / name), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def at_once(count: int, send: Callable[[], T]) -> list[T]:
    """``send()`` run ``count`` times at the same moment (threads behind one barrier), for the
    races a group deployment meets: every result, in no particular order."""
    barrier = threading.Barrier(count)
    results: list[T] = []
    lock = threading.Lock()

    def one() -> None:
        barrier.wait()
        result = send()
        with lock:
            results.append(result)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert len(results) == count, f"{count - len(results)} of {count} did not finish"
    return results
