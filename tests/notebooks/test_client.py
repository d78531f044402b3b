"""addnorm_client against a live server: the messages a learner sees when something is off."""

from __future__ import annotations

from typing import Any

import pytest

from addnorm_client import Client, CodeTooLarge, NotFound, ServerUnreachable, TokenRejected
from addnorm_client.render import render_html, render_text


def test_unreachable_server_says_how_to_start_it(unreachable_url: str) -> None:
    with Client(unreachable_url, "t") as client, pytest.raises(ServerUnreachable) as caught:
        client.exercises()
    assert str(caught.value) == (
        f"addnorm server not reachable at {unreachable_url}: is it running? start it with "
        "`addnorm serve` (or set ADDNORM_URL to where it runs)"
    )


def test_url_and_token_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADDNORM_URL", "http://example.invalid:1234/")
    monkeypatch.setenv("ADDNORM_TOKEN", "secret")
    with Client() as client:
        assert (client.url, client.token) == ("http://example.invalid:1234", "secret")
    monkeypatch.delenv("ADDNORM_URL")
    monkeypatch.setenv("ADDNORM_TOKEN", "")
    with Client() as client:
        assert (client.url, client.token) == ("http://127.0.0.1:8000", None)


@pytest.mark.slow
def test_health_and_a_new_user(live_server: Any) -> None:
    with Client(live_server.url) as client:
        assert client.health()["status"] == "ok"
        user = client.create_user("second learner")
    assert user["name"] == "second learner" and user["token"]


@pytest.mark.slow
def test_wrong_or_missing_token(live_server: Any) -> None:
    with Client(live_server.url, "not-a-token") as client, pytest.raises(TokenRejected) as caught:
        client.exercises()
    assert str(caught.value) == (
        "token rejected: set ADDNORM_TOKEN to the token POST /users gave you"
    )
    with Client(live_server.url, "") as client, pytest.raises(TokenRejected) as caught:
        client.exercises()
    assert str(caught.value).startswith("no token: set ADDNORM_TOKEN")


@pytest.mark.slow
def test_unknown_exercise_and_oversized_code(live_server: Any) -> None:
    with Client(live_server.url, live_server.token) as client:
        slugs = [e["slug"] for e in client.exercises()]
        assert "layer_norm" in slugs
        with pytest.raises(NotFound, match="unknown exercise 'no_such_block'"):
            client.submit("no_such_block", "x = 1\n")
        with pytest.raises(CodeTooLarge, match="code too large"):
            client.submit("layer_norm", "#" * (65 * 1024))


@pytest.mark.slow
def test_a_syntax_error_is_rendered_with_its_line(live_server: Any) -> None:
    with Client(live_server.url, live_server.token) as client:
        verdict = client.submit("layer_norm", "import torch\n\nclass LayerNorm(:\n")
    assert verdict["verdict"] == "error"
    text = render_text(verdict, "layer_norm")
    assert text.startswith("layer_norm: ERROR:")
    assert "data-verdict='error'" in render_html(verdict, "layer_norm")


def test_rendering_escapes_and_orders_failures_first() -> None:
    verdict = {
        "verdict": "failed",
        "message": "1 of 2 checks failed <script>",
        "checks": [
            {"case": "std", "target": "output", "passed": True, "shape": [4, 8]},
            {
                "case": "offset",
                "target": "grad:weight",
                "passed": False,
                "shape": [8],
                "dtype": "float32",
                "max_abs_error": 0.5,
                "max_rel_error": 0.25,
                "worst_index": [3],
                "message": "values differ",
            },
        ],
        "diagnosis": {"name": "unbiased_variance", "title": "Unbiased", "explanation": "x.var()"},
        "error": None,
        "timings_ms": {"total": 12.3},
    }
    text = render_text(verdict, "layer_norm")
    assert text.splitlines()[0] == "layer_norm: FAILED: 1 of 2 checks failed <script>"
    assert "Diagnosis: Unbiased" in text
    assert "offset [grad:weight]" in text and "5.00e-01" in text and "(3)" in text
    assert "1 of 2 checks passed." in text
    html = render_html(verdict, "layer_norm")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.index("offset [grad:weight]") < html.index("std [output]")
