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


def test_a_rejected_token_from_the_environment_says_where_it_came_from(
    signed_up: Learner, server: Server
) -> None:
    """``ADDNORM_TOKEN`` overrides the saved token, so `addnorm login` cannot help while it
    holds a rotated one: the advice names the variable instead."""
    old = _saved_token(signed_up, server.url)
    assert signed_up.run("token", "rotate").returncode == 0
    line = one_line_error(signed_up.run("list", ADDNORM_TOKEN=old))
    assert "ADDNORM_TOKEN" in line and "unset ADDNORM_TOKEN" in line, line
    assert "run `addnorm login`" not in line, line
    new = _saved_token(signed_up, server.url)
    # Without a saved token, the advice is to fix the variable (or unset it and log in).
    signed_up.config.unlink()
    line = one_line_error(signed_up.run("list", ADDNORM_TOKEN=old))
    assert "ADDNORM_TOKEN" in line and "addnorm login" in line, line
    # A token given on the command line is not blamed on the variable.
    line = one_line_error(signed_up.run("login", "--token", "wrong", ADDNORM_TOKEN=old))
    assert "ADDNORM_TOKEN" not in line, line
    # Logging in while the variable holds another token: saved, and the override is said.
    logged = signed_up.run("login", "--token", new, ADDNORM_TOKEN=old)
    assert logged.returncode == 0, logged.stderr
    assert "ADDNORM_TOKEN is set and overrides the saved token" in logged.stderr
