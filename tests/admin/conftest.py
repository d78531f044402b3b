"""Servers run for a group: an operator made on the host with ``addnorm admin
create-operator``, and registration by invite, open or closed. The invite deployment runs on
SQLite and on PostgreSQL (a database of its own, dropped afterwards), as tests/api does."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.content.questions import QuestionBank, load_question_bank
from tests.services import postgres_database
from tests.support import REPO, Server, start_server, stop_server


@dataclass
class Deployment:
    server: Server
    database_url: str
    env: dict[str, str]
    operator: str  # the operator's token

    def admin(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return admin_cli(self.env, *args, check=check)

    def as_operator(self) -> httpx.Client:
        return self.server.client(self.operator)

    def invite(self, uses: int = 1, **expiry: Any) -> str:
        with self.as_operator() as op:
            r = op.post("/admin/invites", json={"uses": uses, **expiry})
            assert r.status_code == 201, r.text
            return str(r.json()["code"])

    def new_learner(self, name: str) -> tuple[int, str]:
        """A learner signed up over HTTP with an invite of their own: (id, token)."""
        with self.server.client() as c:
            r = c.post("/users", json={"name": name, "invite": self.invite()})
            assert r.status_code == 201, r.text
            return int(r.json()["id"]), str(r.json()["token"])


def admin_cli(
    env: dict[str, str], *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``addnorm admin ...`` on the host, against the deployment's database."""
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "admin", *args],
        env={**os.environ, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert done.returncode == 0, done.stderr + done.stdout
    return done


def deploy(data_dir: Path, database_url: str, **env: str) -> Deployment:
    full = {
        "ADDNORM_DATA_DIR": str(data_dir),
        "ADDNORM_DATABASE_URL": database_url,
        "ADDNORM_SUBMISSIONS_PER_MINUTE": "1000",
        # Grading is a small part of these tests: one slot spares the shared machine's cores.
        "ADDNORM_GRADER_SLOTS": "1",
        **env,
    }
    data_dir.mkdir(parents=True, exist_ok=True)
    # The operator is made before the server starts, on the host, as docs/operators.md says.
    token = admin_cli(full, "create-operator", "Olga Operator").stdout.strip()
    server = start_server(data_dir, **full)
    return Deployment(server, database_url, full, token)


@contextlib.contextmanager
def fresh_database(kind: str, directory: Path) -> Iterator[str]:
    """An empty database of its own: a SQLite file in ``directory``, or a PostgreSQL database
    created for it and dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{directory / 'addnorm.db'}"
    else:
        with postgres_database() as url:
            yield url


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with fresh_database(request.param, tmp_path_factory.mktemp("sqlite")) as url:
        yield url


@pytest.fixture(scope="session")
def deployment(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[Deployment]:
    """Registration by invite, on SQLite and on PostgreSQL."""
    d = deploy(tmp_path_factory.mktemp("invite"), database_url, ADDNORM_REGISTRATION="invite")
    yield d
    stop_server(d.server)


@pytest.fixture(scope="session")
def bank() -> QuestionBank:
    return load_question_bank(Path(REPO) / "exercises" / "questions")
