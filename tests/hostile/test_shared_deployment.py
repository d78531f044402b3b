"""A stranger on the network against a server with the limits a fresh deployment gets, over HTTP
on loopback: floods from one address and from rotating accounts (database growth measured, the
429s and their Retry-After checked), grading slots shared between addresses, and hundreds of
idle sockets from one address while clients of another are served. Distinct loopback sources
(127.0.0.2, 127.0.0.3, ...) act as distinct clients. Every flood is bounded in count and time.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.hostile.conftest import FIGURES
from tests.support import DEPLOYED_DEFAULTS, REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
# Refused by the static check (a syntax error), padded to 60 KiB: what a flood would store.
REFUSED = "def forward(:\n" + "#" * (60 << 10) + "\n"
# Passes the static check and sleeps in the sandbox until the time limit kills it.
SLOW = """\
import time
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(30)
        return x
"""


def client_from(server: Server, source: str, token: str | None = None) -> httpx.Client:
    """A client whose connections come from ``source`` (a loopback address of its own)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        base_url=server.url,
        headers=headers,
        timeout=60,
        transport=httpx.HTTPTransport(local_address=source),
    )


def database_bytes(server: Server) -> int:
    return sum(p.stat().st_size for p in server.data_dir.glob("addnorm.db*"))


def rows(server: Server, table: str) -> int:
    with sqlite3.connect(server.data_dir / "addnorm.db") as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def assert_limited(r: httpx.Response) -> None:
    assert r.status_code == 429, r.text[:300]
    retry = r.headers.get("retry-after", "")
    assert retry.isdigit() and int(retry) >= 1, r.headers
    detail = r.json()["detail"]
    assert detail.startswith("Too many") and "\n" not in detail


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The deployed defaults (SECURITY.md's bounds), two slots, a 3 s grading limit."""
    srv = start_server(
        tmp_path_factory.mktemp("deployed"),
        **DEPLOYED_DEFAULTS,
        ADDNORM_GRADER_SLOTS="2",
        ADDNORM_TIME_LIMIT_SECONDS="3",
    )
    yield srv
    stop_server(srv)


def test_health_tells_a_stranger_only_that_it_is_up(deployed: Server) -> None:
    r = httpx.get(f"{deployed.url}/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_account_flood_from_one_address(deployed: Server) -> None:
    """One address creating learners as fast as it can, for at most 10 s / 400 requests: at
    most ADDNORM_SIGNUPS_PER_HOUR (10) are made; the rest are 429 with Retry-After. A client of
    another address signs up meanwhile."""
    users_before, bytes_before = rows(deployed, "user"), database_bytes(deployed)
    created = refused = 0
    started = time.monotonic()
    with client_from(deployed, "127.0.0.2") as flood:
        while created + refused < 400 and time.monotonic() - started < 10:
            r = flood.post("/users", json={"name": "flood"})
            if r.status_code == 201:
                created += 1
            else:
                assert_limited(r)
                refused += 1
    elapsed = time.monotonic() - started
    with client_from(deployed, "127.0.0.3") as other:
        assert other.post("/users", json={"name": "neighbour"}).status_code == 201
    assert created == 10
    assert refused >= 1
    assert rows(deployed, "user") - users_before == created + 1
    grown = database_bytes(deployed) - bytes_before
    FIGURES.append(("account flood, one address", f"{created}/{created + refused}", 0, grown))
    print(f"account flood: {created} made, {refused} refused in {elapsed:.1f} s, DB +{grown} B")


def test_the_sign_up_page_says_why_in_both_languages(deployed: Server) -> None:
    with client_from(deployed, "127.0.0.4") as api:
        for _ in range(10):
            assert api.post("/users", json={"name": "fill"}).status_code == 201
    for lang, reason in [("en", "accounts an hour"), ("zh", "每小时创建的账户")]:
        with client_from(deployed, "127.0.0.4") as page:
            page.cookies.set("addnorm_lang", lang)
            form = page.get("/app/signin")
            from tests.browser.test_sessions_http import csrf_of

            r = page.post("/app/signup", data={"name": "x", "csrf": csrf_of(form.text)})
            assert r.status_code == 429
            assert int(r.headers["retry-after"]) >= 1
            assert reason in r.text
            assert 'data-testid="limited-reason"' in r.text


def test_refused_code_from_rotating_accounts_is_not_stored_again_and_again(
    deployed: Server,
) -> None:
    """Ten fresh learners (all the address may make in an hour) each sending 60 KiB of code the
    static check refuses, for at most 20 s: each learner's first 10 refusals are stored, the rest
    answered and dropped; growth stays near 10 x 10 x 60 KiB however long it goes on."""
    with client_from(deployed, "127.0.0.5") as signup:
        tokens = [signup.post("/users", json={"name": f"r{i}"}).json()["token"] for i in range(10)]
    before_rows, before_bytes = rows(deployed, "submission"), database_bytes(deployed)
    answered = unstored = limited = 0
    started = time.monotonic()
    for token in tokens:
        with client_from(deployed, "127.0.0.5", token) as c:
            for _ in range(25):
                if time.monotonic() - started > 20:
                    break
                r = c.post("/exercises/layer_norm/submissions", json={"code": REFUSED})
                if r.status_code == 429:
                    assert_limited(r)
                    limited += 1
                    continue
                assert r.status_code in (200, 201), r.text[:200]
                assert r.json()["verdict"] == "error"
                answered += 1
                unstored += r.status_code == 200 and r.json()["id"] is None
    stored = rows(deployed, "submission") - before_rows
    grown = database_bytes(deployed) - before_bytes
    FIGURES.append(("refused code, rotating accounts", f"{stored} kept", 0, grown))
    print(f"refused flood: {answered} answered, {stored} stored, {unstored} dropped, DB +{grown} B")
    assert stored <= 10 * len(tokens)
    assert unstored == answered - stored
    assert unstored > 0
    # Each stored row holds the 60 KiB once (plus its verdict); nothing for the dropped ones.
    assert grown < stored * 2 * len(REFUSED) + (1 << 20)


def test_a_flood_of_slow_jobs_from_one_address_delays_another_by_one_job(
    deployed: Server,
) -> None:
    """Eight fresh learners on 127.0.0.6 keep both slots busy with 3 s jobs (as many at once as
    they can); a learner on 127.0.0.7 submits a correct solution meanwhile and waits for at most
    one of those jobs, not their queue. The flood's excess is 429, never 503."""
    with client_from(deployed, "127.0.0.6") as signup:
        tokens = [signup.post("/users", json={"name": f"s{i}"}).json()["token"] for i in range(8)]
    with client_from(deployed, "127.0.0.7") as signup:
        victim = signup.post("/users", json={"name": "victim"}).json()["token"]
    statuses: list[int] = []
    stop = threading.Event()

    def flood(token: str) -> None:
        with client_from(deployed, "127.0.0.6", token) as c:
            while not stop.is_set():
                r = c.post("/exercises/layer_norm/submissions", json={"code": SLOW})
                statuses.append(r.status_code)
                if r.status_code == 429:
                    time.sleep(0.5)

    threads = [threading.Thread(target=flood, args=(t,)) for t in tokens for _ in range(2)]
    for t in threads:
        t.start()
    try:
        time.sleep(4)  # the flood fills both slots and its address's queue
        waits = []
        with client_from(deployed, "127.0.0.7", victim) as c:
            for _ in range(3):
                began = time.monotonic()
                r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
                waits.append(time.monotonic() - began)
                assert r.status_code == 201, r.text[:300]
                assert r.json()["verdict"] == "passed"
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    print(f"victim waits {[round(w, 2) for w in waits]} s; flood statuses {sorted(set(statuses))}")
    FIGURES.append(
        ("slow-job flood: victim's worst wait (ms)", "passed", 0, int(max(waits) * 1000))
    )
    # One 3 s job at most, plus the victim's own grading on a loaded machine.
    assert max(waits) < 3 + 3.5
    assert 503 not in statuses
    assert 429 in statuses


def _half_sent(server: Server, source: str) -> socket.socket | None:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        s.close()
        return None
    return s


def _fds(server: Server) -> int:
    return len(list(Path(f"/proc/{server.process.pid}/fd").iterdir()))


def _still_open(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        return s.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        s.setblocking(True)


def test_hundreds_of_idle_sockets_from_one_address_deny_nobody_else(deployed: Server) -> None:
    """127.0.0.8 holds 300 half-sent request heads, reopening each one the server closes, for
    12 s; 48 requests from 127.0.0.9 meanwhile are all answered. The attacker keeps at most
    ADDNORM_IDLE_CONNECTIONS_PER_ADDRESS (16) of them open in the server."""
    stop = threading.Event()
    held: list[socket.socket] = []
    reopened = 0
    surviving: list[int] = []
    server_fds: list[int] = []
    baseline = _fds(deployed)

    def attack() -> None:
        nonlocal reopened
        for _ in range(300):
            s = _half_sent(deployed, "127.0.0.8")
            if s is not None:
                held.append(s)
        while not stop.is_set():
            time.sleep(0.5)
            server_fds.append(_fds(deployed))
            alive = [s for s in held if _still_open(s)]
            surviving.append(len(alive))
            for s in held:
                if s not in alive:
                    s.close()
            held[:] = alive
            while len(held) < 300 and not stop.is_set():
                s = _half_sent(deployed, "127.0.0.8")
                if s is None:
                    break
                held.append(s)
                reopened += 1

    attacker = threading.Thread(target=attack)
    attacker.start()
    answered: list[int] = []
    refusals: list[str] = []  # every answer that was not a success, as the client saw it
    try:
        time.sleep(2)
        with client_from(deployed, "127.0.0.9") as c:
            r = c.post("/users", json={"name": "served"})
            answered.append(r.status_code)
            assert r.status_code == 201, r.text[:300]
            token = r.json()["token"]
            for _ in range(47):
                r = c.get("/users/me", headers={"Authorization": f"Bearer {token}"})
                answered.append(r.status_code)
                if r.status_code != 200:
                    refusals.append(f"{r.status_code} {r.text[:120]!r}")
                time.sleep(0.2)
    finally:
        stop.set()
        attacker.join(timeout=60)
        for s in held:
            s.close()
    served = sum(status in (200, 201) for status in answered)
    print(
        f"idle-socket attack: legitimate {served}/48 answered; attacker reopened "
        f"{reopened}; server descriptors {baseline} before, {server_fds} during; open from the "
        f"attacker's side {surviving}; refused {refusals}"
    )
    FIGURES.append(("idle sockets: legitimate answered of 48", "200", 0, served))
    assert served == 48, refusals
    # Counted in the server (its open descriptors): the attacker's 16, the legitimate client's
    # one, and a few being closed as we looked. Not at every look: one accept burst (hundreds of
    # reopened sockets) is held until the loop closes them on its next turns, a second or so on
    # a loaded machine; so at least four looks in five.
    assert len(server_fds) >= 10
    within = [n for n in server_fds if n - baseline <= 16 + 1 + 4]
    assert len(within) >= 0.8 * len(server_fds), (baseline, server_fds)


def test_a_burst_accepted_in_one_turn_denies_nobody_else(deployed: Server) -> None:
    """The server paused (SIGSTOP) while 127.0.0.10 opens 300 half-sent request heads, then
    resumed: the loop accepts them all in one turn, each closing an older one of its own
    address. A closed connection must stop counting towards the server's connection limit at
    once, or a client of 127.0.0.11, sending throughout, meets 503s while they are counted.
    Twenty-five bursts; before the fix 2 of 120 requests got a 503 (15 of 247 in a longer
    run)."""
    port = int(deployed.url.rsplit(":", 1)[1])
    stop = threading.Event()
    answered: list[int] = []

    def legitimate() -> None:
        with client_from(deployed, "127.0.0.11") as c:
            r = c.post("/users", json={"name": "burst neighbour"})
            answered.append(r.status_code)
            token = r.json()["token"]
            while not stop.is_set():
                r = c.get("/users/me", headers={"Authorization": f"Bearer {token}"})
                answered.append(r.status_code)
                time.sleep(0.08)

    client = threading.Thread(target=legitimate)
    client.start()
    held: list[socket.socket] = []
    try:
        time.sleep(1)
        for _ in range(25):
            deployed.process.send_signal(signal.SIGSTOP)
            try:
                for _ in range(300):
                    s = socket.socket()
                    s.settimeout(2)
                    try:
                        s.bind(("127.0.0.10", 0))
                        s.connect(("127.0.0.1", port))
                        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                    except OSError:
                        s.close()
                        continue
                    held.append(s)
            finally:
                deployed.process.send_signal(signal.SIGCONT)
            time.sleep(0.4)
            for s in held:
                s.close()
            held.clear()
    finally:
        stop.set()
        client.join(timeout=60)
        for s in held:
            s.close()
    refused = [status for status in answered if status not in (200, 201)]
    print(f"bursts: legitimate {len(answered) - len(refused)}/{len(answered)} answered")
    assert len(answered) >= 50
    assert not refused, refused
