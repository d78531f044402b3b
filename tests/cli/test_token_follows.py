"""A saved token follows the server's data directory, not its port: the learner signs up with the
server on one port, the server comes back on another with the same data directory, and the next
command carries the token over once the new address has proved it holds it. A server with other
data proves nothing, gets no token, and the learner reads the fix."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from addnorm_client.cli import config
from tests.cli.conftest import learner_env
from tests.support import start_server, stop_server


def test_the_token_follows_the_data_directory_to_a_new_port(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_server(data)
    try:
        learner = learner_env(tmp_path / "learner", first.url)
        signed = learner.run("signup", "moving")
        assert signed.returncode == 0, signed.stderr
    finally:
        stop_server(first)
    saved = json.loads(learner.config.read_text())
    token, learner_id = saved["tokens"][first.url], saved["learners"][first.url]

    second = start_server(data)  # the same data directory, a new free port
    other = start_server(tmp_path / "other")  # another server's data
    try:
        assert second.url != first.url
        moved = learner.run("list", ADDNORM_URL=second.url)
        assert moved.returncode == 0, moved.stderr
        assert f"{second.url} holds the account saved for {first.url}" in moved.stderr
        saved = json.loads(learner.config.read_text())
        assert saved["tokens"][second.url] == token
        assert saved["learners"][second.url] == learner_id
        assert saved["url"] == first.url  # carried over, not made the default
        # Now saved: the next command needs no proof and says nothing about it.
        again = learner.run("list", ADDNORM_URL=second.url)
        assert again.returncode == 0 and "holds the account" not in again.stderr

        # Another data directory cannot prove it holds the token, so it is never sent there.
        refused = learner.run("list", ADDNORM_URL=other.url)
        assert refused.returncode == 2
        assert f"addnorm login --url {other.url} --from" in refused.stderr
        assert other.url not in json.loads(learner.config.read_text())["tokens"]

        # The proof over HTTP: right from the server that holds the token, wrong elsewhere,
        # and the same shape for a learner who does not exist.
        nonce = secrets.token_hex(16)
        expected = config.expected_proof(token, nonce)
        asked = {"user": learner_id, "nonce": nonce}
        with second.client() as c:
            assert c.post("/users/token-proof", json=asked).json() == {"proof": expected}
            nobody = c.post("/users/token-proof", json={"user": 10**9, "nonce": nonce})
            assert nobody.status_code == 200 and nobody.json()["proof"] != expected
            for bad in (
                {"user": 0, "nonce": nonce},
                {"user": str(learner_id), "nonce": nonce},
                {"user": learner_id, "nonce": "short"},
                {"user": learner_id, "nonce": "G" * 32},
                {"user": learner_id, "nonce": nonce, "token": token},
            ):
                assert c.post("/users/token-proof", json=bad).status_code == 422
        with other.client() as c:
            assert c.post("/users/token-proof", json=asked).json()["proof"] != expected
    finally:
        stop_server(second)
        stop_server(other)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8001", True),
        ("http://localhost:9000", True),
        ("http://[::1]:8000", True),
        ("https://addnorm.example.com", False),
        ("http://10.0.0.5:8000", False),
    ],
)
def test_a_token_follows_only_between_local_addresses(url: str, local: bool) -> None:
    cfg = config.Config(
        tokens={"http://127.0.0.1:8000": "t", "https://team.example.com": "u"},
        learners={"http://127.0.0.1:8000": 3, "https://team.example.com": 4},
    )
    offered = config.carried_over(cfg, url)
    assert offered == ([("http://127.0.0.1:8000", "t", 3)] if local else [])
