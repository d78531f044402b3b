"""``addnorm grade``'s shortcut: a warm grader pool already runs inside a local ``addnorm serve``.

A grader pool cannot be shared between processes (its zygote talks to its parent over pipes),
so the way to reuse a running one is to ask the server that owns it. Only a server on this
machine (a loopback URL) that the learner is logged in to is used: ``grade`` promises a local
verdict, not one from a remote host.

A server that answers and refuses (a 4xx: practice paused by a mock interview, a rejected token,
code over the size limit, too many submissions) has decided: its refusal is raised, and no pool
of ``grade``'s own grades the file behind its back. Only when no server answers, or it fails
(5xx), does ``grade`` start a pool of its own.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import httpx
from rich.console import Console

from addnorm_client.cli import config
from addnorm_client.client import AddnormError, ApiError, Client, ServerUnreachable

# A server that takes longer than this to answer /health is not worth waiting for.
HEALTH_TIMEOUT_S = 1.0


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def grade_on_running_server(slug: str, code: str) -> dict[str, Any] | None:
    """The verdict from a warm local server, or None when there is none to use (none answers,
    or it failed). A refusal from the server is raised as the ``AddnormError`` it is."""
    try:
        cfg = config.load()
        url = cfg.server_url()
    except AddnormError:
        return None
    token = cfg.token_for(url)
    if token is None or not is_loopback(url):
        return None
    try:
        health = httpx.get(f"{url}/health", timeout=HEALTH_TIMEOUT_S).json()
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(health, dict) or health.get("status") != "ok":
        return None
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        with Client(url, token) as client:
            answer = client.submit(slug, code)
    except (ServerUnreachable, ApiError) as exc:
        if isinstance(exc, ApiError) and exc.status < 500:
            raise  # the server's decision (409 paused, 429 too many, ...), not an outage
        console.print(f"addnorm: {exc}; starting a pool of its own instead")
        return None
    console.print(f"using the warm grader pool of the server at {url} (--own-pool to start one)")
    return answer
