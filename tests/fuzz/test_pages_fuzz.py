"""The browser pages under hostile form values: no page or form answers with a 5xx.

A signed-in browser (cookies and CSRF tokens, as tests/browser does) crawls the pages under
``/app``, reads every ``<form method="post">`` it finds with its fields, and posts each form
again with one field at a time replaced by a hostile value: empty, huge, NUL, a lone surrogate's
bytes, non-ASCII in the CSRF token, numbers past 64 bits, markup, a path. Each page is also
fetched with hostile query values. Forms are discovered, not listed, so pages added later are
covered too. The sign-out form is only posted with a broken token (a valid one ends the crawl).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import quote, urljoin, urlsplit

import httpx

from tests.support import Server

HOSTILE = [
    "",
    " ",
    "0",
    "-1",
    "9" * 30,
    "NaN",
    "x" * 70_000,
    "\x00",
    "\udcff",  # a lone surrogate: httpx sends its UTF-8 bytes escaped as surrogatepass would
    "é\u200b中文",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%ff%fe",
]
QUERY_KEYS = ["lang", "topic", "type", "next", "page"]
# Query strings stay within the service's 16 KiB request head (a longer head is refused, 431).
QUERY_HOSTILE = [v if len(v) < 8_000 else v[:8_000] for v in HOSTILE]
MAX_PAGES = 40


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[dict[str, object]] = []
        self._form: dict[str, object] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "form" and a.get("method", "get").lower() == "post":
            self._form = {"action": a.get("action", ""), "fields": {}}
            self.forms.append(self._form)
        elif tag in ("input", "textarea", "select") and self._form is not None and a.get("name"):
            fields = self._form["fields"]
            assert isinstance(fields, dict)
            fields.setdefault(a["name"], a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def _kind(path: str) -> tuple[object, ...]:
    """Pages and forms of one kind (every question's page, every exercise's form) are fuzzed
    once: the section of the path, its depth, and below an item the action's own name (an
    exercise's hints and its submissions are two kinds of form)."""
    parts = path.rstrip("/").split("/")
    return (*parts[:3], len(parts), parts[-1] if len(parts) > 4 else "")


def _sign_up(client: httpx.Client) -> None:
    page = client.get("/app/signin")
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
    assert csrf, "no CSRF field on the sign-in page"
    r = client.post("/app/signup", data={"name": "fuzzer", "csrf": csrf.group(1)})
    assert r.status_code == 200, r.text


def _quoted(value: str) -> str:
    """Percent-encoded as a hostile client would send it: a lone surrogate as its raw bytes."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def _form(data: dict[str, str]) -> str:
    return "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in data.items())


def test_no_page_or_form_answers_with_a_server_error(server: Server) -> None:
    failures: list[str] = []
    with httpx.Client(base_url=server.url, timeout=120, follow_redirects=False) as client:
        _sign_up(client)
        queue, seen = ["/app/exercises"], set()
        forms: dict[str, dict[str, str]] = {}
        while queue and len(seen) < MAX_PAGES:
            path = queue.pop(0)
            if path in seen:
                continue
            seen.add(path)
            page = client.get(path)
            if page.status_code >= 500:
                failures.append(f"GET {path}: {page.status_code}")
            if "text/html" not in page.headers.get("content-type", ""):
                continue
            parser = _Forms()
            parser.feed(page.text)
            for href in parser.links:
                target = urlsplit(urljoin(path, href))
                if not target.netloc and target.path.startswith("/app/"):
                    queue.append(target.path)
            for form in parser.forms:
                action = urlsplit(urljoin(path, str(form["action"]) or path)).path
                fields = form["fields"]
                assert isinstance(fields, dict)
                if all(_kind(action) != _kind(known) for known in forms):
                    forms[action] = {str(k): str(v) for k, v in fields.items()}
        assert len(seen) >= 5, f"the crawl found only {sorted(seen)}"
        assert any("submissions" in action for action in forms), sorted(forms)

        kinds = {_kind(path): path for path in sorted(seen)}
        for path in kinds.values():
            for key in QUERY_KEYS:
                for value in QUERY_HOSTILE:
                    r = client.get(f"{path}?{key}={_quoted(value)}")
                    if r.status_code >= 500:
                        failures.append(f"GET {path}?{key}={value[:20]!r}: {r.status_code}")

        for action, defaults in sorted(forms.items(), key=lambda kv: "signout" in kv[0]):
            for field in defaults:
                if "signout" in action and field != "csrf":
                    continue
                for value in HOSTILE:
                    r = client.post(
                        action,
                        content=_form({**defaults, field: value}),
                        headers={"content-type": "application/x-www-form-urlencoded"},
                    )
                    if r.status_code >= 500:
                        failures.append(f"POST {action} {field}={value[:20]!r}: {r.status_code}")
            # The raw body itself: not form-encoded, cut multipart, invalid UTF-8.
            for body, ctype in [
                (b"\xff\xfe\x00", "application/x-www-form-urlencoded"),
                (b"a=" + b"%" * 5000, "application/x-www-form-urlencoded"),
                (b"--x\r\nContent-Disposition: form-data", "multipart/form-data; boundary=x"),
                (b"{}", "application/json"),
            ]:
                if "signout" in action:
                    continue
                r = client.post(action, content=body, headers={"content-type": ctype})
                if r.status_code >= 500:
                    failures.append(f"POST {action} raw {ctype}: {r.status_code}")
    assert not failures, "\n".join(failures[:50])
