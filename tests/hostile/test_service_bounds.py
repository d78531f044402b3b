"""Round two of the hostile suite (issue 8): everything *around* the sandbox. What the service
decodes from the child, what HTTP lets in before authentication, what the static check parses,
what text reaches the database, how a child's death is told, whether the banned-API check can be
switched off from Python.

Every attack runs over HTTP against the session's real server and is checked for: its verdict
(never ``passed``), no 5xx, the server alive and grading, the service's memory (RSS, sampled
every few milliseconds during the attack) and its database within stated bounds, and the
learner's listings still readable. ``test_bounds_see_real_growth`` shows the memory and
database checks fire; the control run under ``insecure`` (``test_attacks_over_http``) covers
the thread-count attack.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.hostile.attacks import ROUND_TWO, Attack, prelude
from tests.hostile.conftest import FIGURES, OBSERVED, drop_ctx, make_ctx
from tests.hostile.probes import SOLUTION, Ctx, needles, side_effects
from tests.hostile.test_attacks_over_http import (  # noqa: F401 - insecure_server: a fixture
    PROFILE,
    SUBMIT,
    _response_problems,
    _sandbox,
    insecure_server,
)
from tests.support import Server

pytestmark = pytest.mark.hostile

# Bounds this suite holds the service to (SECURITY.md, "Bounds"): growth over the idle server
# during one attack. An unbounded decode of the overlapping descriptors allocates ~320 MiB; a
# chunked body read whole, its size.
RSS_BOUND = 96 << 20
DB_BOUND = 1 << 20
HEAD_SECONDS = 10.0
BODY_SECONDS = 30.0


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def db_bytes(server: Server) -> int:
    """What the database holds: the write-ahead log folded in first. The WAL file keeps a page
    image per transaction that wrote the page since the last checkpoint and never shrinks on its
    own, so its size says how much was written, not how much is stored."""
    with contextlib.closing(sqlite3.connect(server.data_dir / "addnorm.db", timeout=30)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in server.data_dir.glob("addnorm.db*"))


def deciders_of(pid: int) -> list[int]:
    """The service's decider processes: a forged answer is parsed there, so their memory is the
    service's as far as these bounds go."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == pid and b"\x00api.cli\x00decider\x00" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
    return found


class Watch:
    """The server's peak RSS, its deciders' included (sampled every 5 ms), and its database
    growth, while in use."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.pid = server.process.pid
        self.deciders = deciders_of(self.pid)
        self.base_rss = self._rss()
        self.peak_rss = self.base_rss
        self.base_db = db_bytes(server)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _rss(self) -> int:
        total = rss(self.pid)
        for pid in self.deciders:
            with contextlib.suppress(OSError, AssertionError):
                total += rss(pid)
        return total

    def _sample(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError, AssertionError):
                self.peak_rss = max(self.peak_rss, self._rss())
            time.sleep(0.005)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def rss_growth(self) -> int:
        return self.peak_rss - self.base_rss

    @property
    def db_growth(self) -> int:
        return db_bytes(self.server) - self.base_db

    def problems(self) -> list[str]:
        found = []
        if self.rss_growth > RSS_BOUND:
            found.append(
                f"service RSS (its {len(self.deciders)} deciders with it) grew by"
                f" {self.rss_growth >> 20} MiB (bound {RSS_BOUND >> 20})"
            )
        if self.db_growth > DB_BOUND:
            found.append(f"database grew by {self.db_growth >> 10} KiB (bound {DB_BOUND >> 10})")
        return found


def _after(server: Server, api: httpx.Client) -> list[str]:
    """The service still answers, still grades, and the learner can still read their list."""
    problems = []
    if server.process.poll() is not None:
        return [f"the server exited with {server.process.returncode}"]
    listing = api.get("/submissions")
    if listing.status_code != 200:
        problems.append(f"listing: HTTP {listing.status_code}: {listing.text[:200]}")
    else:
        rows = listing.json()
        if rows:
            one = api.get(f"/submissions/{rows[0]['id']}")
            if one.status_code != 200:
                problems.append(f"reading the latest row: HTTP {one.status_code}")
    r = api.post(SUBMIT, json={"code": SOLUTION})
    if r.status_code != 201 or r.json()["verdict"] != "passed":
        problems.append(f"the solution afterwards: {r.status_code} {r.text[:200]}")
    return problems


def _params() -> list[object]:
    return [
        pytest.param(attack, id=f"{group}/{attack.name}")
        for group, attacks in ROUND_TWO.items()
        for attack in attacks
    ]


@pytest.mark.parametrize("attack", _params())
def test_round_two_attack(attack: Attack, server: Server, api: httpx.Client, ctx: Ctx) -> None:
    if PROFILE == "insecure":
        pytest.skip("the insecure profile defends nothing but resource limits (SECURITY.md)")
    inactive = [n for n in attack.needs if not _sandbox(server)["layers"][n]["active"]]
    if inactive:
        pytest.skip(f"needs the {', '.join(inactive)} layer, inactive here (see /health)")
    code = prelude(ctx) + attack.code
    with Watch(server) as watch:
        started = time.monotonic()
        r = api.post(SUBMIT, json={"code": code})
        elapsed = time.monotonic() - started
    verdict = r.json().get("verdict", "?") if r.status_code == 201 else f"HTTP {r.status_code}"
    OBSERVED.append((PROFILE, attack.name, str(verdict), elapsed))
    FIGURES.append((attack.name, str(verdict), watch.rss_growth, watch.db_growth))
    problems = _response_problems(attack, r, elapsed, needles(ctx))
    problems += watch.problems()
    effects = side_effects(ctx)
    if effects:
        problems.append(f"side effects: {effects}")
    problems += _after(server, api)
    assert not problems, "\n".join(problems)
    if attack.extra is not None:
        attack.extra(r.json())


@pytest.mark.parametrize(
    "attack",
    [a for group in ROUND_TWO.values() for a in group if a.control],
    ids=lambda a: a.name,
)
def test_round_two_controls_work_without_the_sandbox(
    attack: Attack,
    insecure_server: Server,  # noqa: F811 - the fixture imported above
) -> None:
    """Under ``insecure`` the attack gets through (``passed``): the leak it looks for is real."""
    ctx = make_ctx(insecure_server)
    try:
        with insecure_server.client(insecure_server.new_learner()) as api:
            r = api.post(SUBMIT, json={"code": prelude(ctx) + attack.code})
        assert r.status_code == 201, r.text[:300]
        body = r.json()
        OBSERVED.append(("insecure", attack.name, body["verdict"], 0.0))
        assert body["verdict"] == "passed", body["message"][:300]
        assert body["stdout"].startswith("learned {"), body["stdout"][:300]
    finally:
        drop_ctx(ctx)


# --- text: what reaches the database and the responses ------------------------------------------

SURROGATE_LITERAL = """
import torch
from torch import nn

NOTE = "\\ud800 lone \\udfff"  # a lone surrogate in the learner's own text


class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        {forward}
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
"""


@pytest.mark.parametrize(
    ("name", "code", "verdict", "field"),
    [
        # The JSON body carries "\ud800" itself (json.dumps escapes it): the code is the text.
        ("in_the_code", SURROGATE_LITERAL.format(forward="pass") + "# \ud800\n", "passed", None),
        ("in_stdout", SURROGATE_LITERAL.format(forward="print(NOTE)"), "passed", "stdout"),
        ("in_stderr", SURROGATE_LITERAL.format(forward="sys.stderr.write(NOTE)"), "passed", None),
        (
            "in_an_exception_message",
            SURROGATE_LITERAL.format(forward="raise ValueError(NOTE)"),
            "error",
            "message",
        ),
    ],
)
def test_lone_surrogates_are_replaced(
    name: str, code: str, verdict: str, field: str | None, server: Server, api: httpx.Client
) -> None:
    code = code.replace("import torch\n", "import sys\nimport torch\n", 1)
    # json.dumps escapes the surrogate as \ud800, which is what a hostile client sends.
    raw = json.dumps({"code": code}).encode()
    with Watch(server) as watch:
        r = api.post(SUBMIT, content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text[:300]
    body = r.json()
    assert body["verdict"] == verdict, body["message"][:300]
    if field is not None:
        assert "\ufffd lone \ufffd" in body[field], body[field][:300]
    problems = watch.problems() + _after(server, api)
    assert not problems, "\n".join(problems)
    FIGURES.append((f"surrogate_{name}", body["verdict"], watch.rss_growth, watch.db_growth))


def test_a_lone_surrogate_elsewhere_is_a_client_error(server: Server, api: httpx.Client) -> None:
    """Fields nothing sanitises (a learner's name) answer 422, never 500."""
    raw = json.dumps({"name": "\ud800"}).encode()
    with server.client() as c:
        r = c.post("/users", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code in (201, 422), r.text[:300]
    assert _after(server, api) == []


# --- the banned-API check: correct alternatives still pass --------------------------------------

ALTERNATIVES = {
    "var_mean": "var, mean = torch.var_mean(x, -1, keepdim=True, unbiased=False)\n"
    "        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
    "float64_upcast": "y = x.double()\n"
    "        mean = y.mean(-1, keepdim=True)\n"
    "        var = ((y - mean) ** 2).mean(-1, keepdim=True)\n"
    "        out = (y - mean) * torch.rsqrt(var + self.eps)\n"
    "        return out.to(x.dtype) * self.weight + self.bias",
    # Sums divided by the size: in float32 for half-precision input, as the prompt asks (a sum
    # rounded to bfloat16 before the division fails the platform's constant bfloat16 rows).
    "einsum": "y = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x\n"
    "        mean = torch.einsum('...d->...', y).unsqueeze(-1) / x.shape[-1]\n"
    "        c = y - mean\n"
    "        var = torch.einsum('...d,...d->...', c, c).unsqueeze(-1) / x.shape[-1]\n"
    "        out = c * torch.rsqrt(var + self.eps)\n"
    "        return (out * self.weight + self.bias).to(x.dtype)",
}


@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_correct_alternatives_still_pass(name: str, api: httpx.Client) -> None:
    code = (
        "import torch\nfrom torch import nn\n\n\nclass LayerNorm(nn.Module):\n"
        "    def __init__(self, dim, eps=1e-5):\n        super().__init__()\n"
        "        self.eps = eps\n        self.weight = nn.Parameter(torch.ones(dim))\n"
        "        self.bias = nn.Parameter(torch.zeros(dim))\n\n"
        f"    def forward(self, x):\n        {ALTERNATIVES[name]}\n"
    )
    r = api.post(SUBMIT, json={"code": code})
    assert r.status_code == 201, r.text[:300]
    assert r.json()["verdict"] == "passed", r.json()["message"][:500]


def test_layer_norm_inside_residual_block_still_passes(api: httpx.Client) -> None:
    """Nothing is banned there: the dispatcher block must not leak across exercises."""
    code = (Path(__file__).resolve().parents[2] / "solutions" / "residual_block.py").read_text()
    for _ in range(3):  # more than one child, on more than one slot
        r = api.post("/exercises/residual_block/submissions", json={"code": code})
        assert r.status_code == 201, r.text[:300]
        assert r.json()["verdict"] == "passed", r.json()["message"][:500]


# --- HTTP: before any route runs ----------------------------------------------------------------


def _connect(server: Server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)), timeout=60)
    return s


def _status_of(raw: bytes) -> int:
    line = raw.split(b"\r\n", 1)[0]
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0


def _read_response(s: socket.socket, timeout: float = 30.0) -> bytes:
    s.settimeout(timeout)
    data = b""
    with contextlib.suppress(TimeoutError, ConnectionError):
        while chunk := s.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, rest = data.partition(b"\r\n\r\n")
                length = [
                    int(h.split(b":")[1])
                    for h in head.split(b"\r\n")
                    if h.lower().startswith(b"content-length:")
                ]
                if length and len(rest) >= length[0]:
                    break
    return data


def _stream_chunked(s: socket.socket, total: int, chunk: int = 1 << 16) -> int:
    """Send up to ``total`` bytes as chunks until the server answers or closes; bytes sent."""
    piece = b"%x\r\n" % chunk + b"a" * chunk + b"\r\n"
    sent = 0
    s.setblocking(False)
    try:
        while sent < total:
            try:
                if s.recv(1, socket.MSG_PEEK):
                    break  # the server answered
            except BlockingIOError:
                pass
            try:
                s.sendall(piece)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            sent += chunk
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        s.setblocking(True)
    return sent


def _post_head(path: str, extra: str = "", token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}{extra}\r\n"
    ).encode()


@pytest.fixture
def watched(server: Server) -> Iterator[Watch]:
    with Watch(server) as watch:
        yield watch
    assert server.process.poll() is None, "the server died"
    assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200


@pytest.mark.parametrize("authenticated", [False, True], ids=["stranger", "learner"])
def test_chunked_body_is_counted_as_it_arrives(
    authenticated: bool, server: Server, token: str, watched: Watch
) -> None:
    """The attack that OOM-killed the service: a chunked body streamed past a Content-Length
    check. Refused after 4 KiB (stranger) or 1 MiB (learner), never buffered."""
    with _connect(server) as s:
        s.sendall(
            _post_head(SUBMIT, "Transfer-Encoding: chunked\r\n", token if authenticated else None)
        )
        sent = _stream_chunked(s, 512 << 20)
        answer = _read_response(s)
    status = _status_of(answer)
    assert status == (413 if authenticated else 401), answer[:300]
    assert sent < 64 << 20, f"the server let {sent >> 20} MiB in before answering"
    assert not watched.problems(), watched.problems()
    FIGURES.append(
        (
            f"chunked_{'learner' if authenticated else 'stranger'}",
            str(status),
            watched.rss_growth,
            sent,
        )
    )


def test_broken_framing_after_a_refusal_only_closes(server: Server, token: str) -> None:
    """A chunked body refused with a 413 while it streams, then a chunk size HTTP cannot parse:
    the connection is closed, and nothing is logged as a failure of the service (uvicorn tried
    to write a 400 after the 413 and logged h11's refusal as a traceback)."""
    logged = server.log.stat().st_size
    with _connect(server) as s:
        s.sendall(_post_head(SUBMIT, "Transfer-Encoding: chunked\r\n", token))
        _stream_chunked(s, 512 << 20)
        answer = _read_response(s)
        with contextlib.suppress(OSError):
            s.sendall(b"zz-not-a-chunk-size\r\n" * 64)
            s.settimeout(10)
            while s.recv(65536):
                pass
    assert _status_of(answer) == 413, answer[:300]
    assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200
    with server.log.open("rb") as log:
        log.seek(logged)
        after = log.read().decode(errors="replace")
    assert "Traceback" not in after and "Fatal error" not in after, after[-3000:]


@pytest.mark.parametrize(
    ("head", "status"),
    [
        ("Content-Length: 10737418240\r\n", 413),  # 10 GiB declared
        ("Content-Length: 200000\r\n", 401),  # more than a stranger may send, no token
    ],
)
def test_declared_bodies_are_refused_before_reading(
    head: str, status: int, server: Server, watched: Watch
) -> None:
    with _connect(server) as s:
        s.sendall(_post_head(SUBMIT, head))
        answer = _read_response(s, timeout=10)
    assert _status_of(answer) == status, answer[:300]


def test_a_small_stranger_body_still_works(server: Server) -> None:
    """Creating a learner (no token, a few bytes, chunked too) is not caught by the guard."""
    with _connect(server) as s:
        body = json.dumps({"name": "chunked-learner"}).encode()
        s.sendall(
            _post_head("/users", "Transfer-Encoding: chunked\r\n")
            + b"%x\r\n" % len(body)
            + body
            + b"\r\n0\r\n\r\n"
        )
        answer = _read_response(s)
    assert _status_of(answer) == 201, answer[:300]


def test_oversized_headers_are_refused(server: Server, watched: Watch) -> None:
    with _connect(server) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
        answer = _read_response(s, timeout=10)
    status = _status_of(answer)
    assert status == 400 or answer == b"", answer[:300]
    assert status < 500


@pytest.mark.parametrize("size", [17 << 10, 40 << 10, 60 << 10])
@pytest.mark.parametrize("where", ["header", "query"])
def test_a_head_over_the_bound_is_refused_however_it_arrives(
    server: Server, watched: Watch, size: int, where: str
) -> None:
    """Sent in one write, a head under uvicorn's 64 KiB read arrives whole, and h11 bounds only
    a head still arriving: such heads were parsed and answered 200 before the service
    counted them itself."""
    target = b"/health" + (b"?q=" + b"a" * size if where == "query" else b"")
    extra = b"X-Big: " + b"a" * size + b"\r\n" if where == "header" else b""
    with _connect(server) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n")
        answer = _read_response(s, timeout=10)
    assert _status_of(answer) in (400, 431), answer[:300]


def test_a_head_within_the_bound_is_served(server: Server) -> None:
    with _connect(server) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (15 << 10) + b"\r\n\r\n")
        answer = _read_response(s, timeout=10)
    assert _status_of(answer) == 200, answer[:300]


def test_a_slow_request_head_is_cut_off(server: Server, watched: Watch) -> None:
    """Slowloris: a byte of header every second never completes a request."""
    started = time.monotonic()
    with _connect(server) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        closed = False
        while time.monotonic() - started < HEAD_SECONDS + 10:
            try:
                s.sendall(b"X")
                s.settimeout(1.0)
                if s.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
    assert closed, "the connection was still open"
    assert time.monotonic() - started < HEAD_SECONDS + 5


def test_an_idle_connection_outlives_the_clients_own_expiry(server: Server) -> None:
    """httpx drops a connection idle for 5 s. Had the server closed idle connections at the
    same 5 s, a request sent at that moment could be lost (the likely cause of one lost in the
    queue benchmark); the server keeps them longer, so such a client always lets go first."""
    request = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    with _connect(server) as s:
        s.sendall(request)
        assert _status_of(_read_response(s)) == 200
        time.sleep(6)
        s.sendall(request)
        answer = _read_response(s, timeout=10)
    assert _status_of(answer) == 200, f"the idle connection was closed: {answer[:300]!r}"


def test_a_dribbled_body_times_out(server: Server, token: str, watched: Watch) -> None:
    started = time.monotonic()
    with _connect(server) as s:
        s.sendall(_post_head(SUBMIT, "Content-Length: 100\r\n", token) + b'{"code": "')
        answer = _read_response(s, timeout=BODY_SECONDS + 15)
    assert _status_of(answer) == 408, answer[:300]
    assert time.monotonic() - started < BODY_SECONDS + 10


# --- the bounds can fail ------------------------------------------------------------------------


def test_bounds_see_real_growth(server: Server, tmp_path: Path) -> None:
    """The RSS sampler sees a process that grows, and the database check sees a file grow."""
    import subprocess
    import sys

    grower = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; b = bytearray(200 << 20); b[::4096] = b'x' * (200 << 8); time.sleep(3)",
        ]
    )
    try:
        fake = Server(server.url, tmp_path, grower, tmp_path / "log", "")  # type: ignore[arg-type]
        db_path = tmp_path / "addnorm.db"
        with contextlib.closing(sqlite3.connect(db_path)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE t (b BLOB)")
            db.commit()
        with Watch(fake) as watch:
            with contextlib.closing(sqlite3.connect(db_path)) as db:
                db.execute("INSERT INTO t VALUES (?)", (bytes(2 << 20),))
                db.commit()
            time.sleep(2.0)
        found = watch.problems()
        assert any("RSS" in p for p in found) and any("database" in p for p in found), found
    finally:
        grower.kill()
        grower.wait()
