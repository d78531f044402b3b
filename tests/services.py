"""The project's servers, for real: a PostgreSQL database of our own per test session, a Redis
key prefix of our own, a private ``redis-server`` for restart tests, and ``addnorm worker``
processes to start and kill.

PostgreSQL (127.0.0.1:5432, trust, user postgres) and Redis (127.0.0.1:6379) are shared with
other work on the machine: nothing here touches what it did not create.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
import redis

from tests.support import REPO, free_port, logged_tracebacks

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
SYSTEM_REDIS = "redis://127.0.0.1:6379/0"


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh database ``addnorm_<random>``; yields its SQLAlchemy URL; dropped afterwards."""
    name = f"addnorm_{secrets.token_hex(6)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def redis_prefix(url: str = SYSTEM_REDIS) -> Iterator[str]:
    """A key prefix of our own on a shared Redis; every key under it deleted afterwards."""
    prefix = f"addnorm-test-{secrets.token_hex(4)}:"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(url)
        with contextlib.suppress(redis.RedisError):
            for key in client.scan_iter(match=f"{prefix}*", count=500):
                client.delete(key)
        client.close()


@dataclass
class PrivateRedis:
    """A ``redis-server`` of our own with append-only persistence (fsync on every write), so a
    test may kill and restart it without touching the machine's."""

    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server")
        assert server, "redis-server is not installed (apt-get install redis-server)"
        argv = [
            server,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
        ]
        # Every write fsynced to the append-only file; no snapshots.
        argv += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        with (self.directory / "redis.log").open("ab") as out:
            self.process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
            try:
                if client.ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
            finally:
                client.close()
        raise RuntimeError((self.directory / "redis.log").read_text())

    def kill(self) -> None:
        """kill -9: no shutdown save; only what the append-only file holds survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def private_redis(directory: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(free_port(), directory)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """kill -9 of the worker and everything it started (its grader zygote); then, as for a
        server (tests.support.stop_server), its log must hold no traceback: the workers of these
        tests meet dead brokers, cut links and killed peers, and report them without one."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        found = logged_tracebacks(self.log)
        assert not found, f"the worker logged {len(found)} traceback(s); the first:\n{found[0]}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=30)
        self.kill()


def start_worker(
    data_dir: Path,
    env: dict[str, str],
    *,
    name: str = "worker",
    command_prefix: Sequence[str] = (),
) -> Worker:
    """``addnorm worker`` as a subprocess in its own process group; returns once it consumes.
    ``command_prefix`` runs it elsewhere (``ip netns exec NS``: a host of tests/multihost.py)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / f"{name}-{secrets.token_hex(3)}.log"
    full_env = {
        **os.environ,
        "ADDNORM_DATA_DIR": str(data_dir),
        "ADDNORM_SANDBOX": os.environ.get("ADDNORM_SANDBOX", "strict"),
        **env,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command_prefix, sys.executable, "-m", "api.cli", "worker"],
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )
    worker = Worker(process, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"worker exited with {process.returncode}:\n{log.read_text()}")
        if " ready." in log.read_text(errors="replace"):
            return worker
        time.sleep(0.2)
    worker.kill()
    raise RuntimeError(f"worker did not become ready:\n{log.read_text()}")
