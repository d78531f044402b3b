"""`bash scripts/serve --create-learner ada` is the README's command, and a newcomer types it
again at every restart: the second run must keep ada and the token it saved (it created a second
"ada" and replaced the saved token, so `addnorm status` showed nothing solved)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import REPO, Server, start_server, stop_server


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("serve-again"))
    yield srv
    stop_server(srv)


def _announce(server: Server, config: Path, name: str) -> str:
    port = str(httpx.URL(server.url).port)
    script = str(REPO / "scripts" / "announce.py")
    done = subprocess.run(
        [
            sys.executable,
            script,
            "--port",
            port,
            "--pid",
            str(server.process.pid),
            "--create-learner",
            name,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "ADDNORM_CONFIG": str(config)} | {"ADDNORM_TOKEN": ""},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _saved_token(config: Path, server: Server) -> str:
    return str(json.loads(config.read_text())["tokens"][server.url])


def _learners_named(server: Server, token: str, name: str) -> int:
    with server.client(token) as c:
        me = c.get("/users/me")
        assert me.status_code == 200, me.text
        return int(me.json()["name"] == name)


def test_the_readme_command_twice_keeps_the_learner_and_its_token(
    fresh_server: Server, tmp_path: Path
) -> None:
    config = tmp_path / "config.json"
    first = _announce(fresh_server, config, "ada")
    assert "token:" in first
    token = _saved_token(config, fresh_server)
    with fresh_server.client(token) as c:
        ada = c.get("/users/me").json()

    again = _announce(fresh_server, config, "ada")
    assert "created before; kept" in again and "token:" not in again
    assert _saved_token(config, fresh_server) == token  # the same token, still saved
    assert _learners_named(fresh_server, token, "ada") == 1
    with fresh_server.client(token) as c:
        assert c.get("/users/me").json()["id"] == ada["id"]


def test_a_token_saved_for_someone_else_is_not_dropped(
    fresh_server: Server, tmp_path: Path
) -> None:
    config = tmp_path / "config.json"
    _announce(fresh_server, config, "grace")
    token = _saved_token(config, fresh_server)
    other = _announce(fresh_server, config, "linus")
    assert "not created" in other and "grace" in other and "--force" in other
    assert _saved_token(config, fresh_server) == token


def test_a_saved_token_the_server_no_longer_takes_is_replaced(
    fresh_server: Server, tmp_path: Path
) -> None:
    # Another server's database (the data directory was removed): the saved token is dead, so a
    # new learner is created and saved, as on a first start.
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"url": fresh_server.url, "tokens": {fresh_server.url: "dead"}}))
    out = _announce(fresh_server, config, "ada")
    assert "token:" in out
    assert _saved_token(config, fresh_server) != "dead"
