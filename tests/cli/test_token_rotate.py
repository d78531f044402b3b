"""``addnorm token rotate``: a new token from the server, saved where ``addnorm login`` saves it;
the old one refused at once."""

from __future__ import annotations

import json

import httpx

from tests.cli.conftest import Learner, one_line_error
from tests.support import Server


def _saved_token(learner: Learner, url: str) -> str:
    return str(json.loads(learner.config.read_text())["tokens"][url])


def test_token_rotate_saves_the_new_token_and_the_old_one_stops(
    signed_up: Learner, server: Server
) -> None:
    old = _saved_token(signed_up, server.url)
    r = signed_up.run("token", "rotate")
    assert r.returncode == 0, r.stderr
    new = _saved_token(signed_up, server.url)
    assert new != old and new in r.stdout
    assert (
        httpx.get(f"{server.url}/users/me", headers={"Authorization": f"Bearer {old}"}).status_code
        == 401
    )
    # The commands carry on with the saved new token.
    assert signed_up.run("status").returncode == 0
    assert signed_up.config.stat().st_mode & 0o077 == 0


def test_token_rotate_with_a_rejected_token_is_one_line(signed_up: Learner) -> None:
    r = signed_up.run("token", "rotate", ADDNORM_TOKEN="not-a-token")
    assert "token rejected" in one_line_error(r)
