"""The practice loop's server side over plain HTTP (no browser): the bundle under hashed names,
precompressed and cached for a year; `/app` sending each visitor where they belong; hints and
the solution as partials for the page's script; the Chinese verdict page free of "(英文)"
markers, with the English the grader still writes listed."""

from __future__ import annotations

import gzip
import json
import re
from html.parser import HTMLParser

import httpx
import pytest

from api.web.assets import DIST
from api.web.i18n import UI
from tests.browser.test_learner_flow import WRONG_LAYER_NORM
from tests.browser.test_pages_http import csrf_of, sign_up, submit
from tests.support import Server

ASSET = re.compile(r'(?:src|href)="(/static/dist/[^"]+)"')


def _client(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60, follow_redirects=False)


def _raw(client: httpx.Client, path: str, accept: str | None) -> tuple[httpx.Response, bytes]:
    headers = {"accept-encoding": accept} if accept is not None else {"accept-encoding": ""}
    with client.stream("GET", path, headers=headers) as r:
        return r, b"".join(r.iter_raw())


def test_bundle_is_served_precompressed_under_hashed_names(server: Server) -> None:
    with _client(server) as client:
        page = client.get("/app/signin").text
        assets = ASSET.findall(page)
        names = json.loads((DIST / "manifest.json").read_text())
        assert sorted(assets) == sorted(f"/static/dist/{n}" for n in names.values())
        for path in assets:
            plain = (DIST / path.removeprefix("/static/dist/")).read_bytes()
            assert re.search(r"-[A-Z2-7]{8}\.(js|css)$", path), path
            r, body = _raw(client, path, "gzip, deflate, br")
            assert r.status_code == 200
            assert r.headers["content-encoding"] == "br"
            assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert r.headers["vary"] == "Accept-Encoding"
            assert len(body) < len(plain) / 3, path
            r, body = _raw(client, path, "gzip")
            assert r.headers["content-encoding"] == "gzip"
            assert gzip.decompress(body) == plain
            # A client that takes no coding (or refuses gzip outright) gets the plain file.
            for accept in ("", "identity", "gzip;q=0"):
                r, body = _raw(client, path, accept)
                assert "content-encoding" not in r.headers, accept
                assert body == plain
        # Files whose names do not change with their content are revalidated, not kept.
        style = client.get("/static/style.css")
        assert style.status_code == 200 and style.headers["cache-control"] == "no-cache"
        assert client.get("/static/dist/nope-AAAAAAAA.js").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/static/a%00.css",  # a NUL byte: no file system takes it
        "/static/style.css%00.css",
        "/static/" + "a" * 252 + ".css",  # a name of 256 bytes, too long once .br is added
        "/static/dist/" + "a" * 300 + ".js",
    ],
)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_name_no_file_system_takes_is_not_found_whatever_the_client_accepts(
    server: Server, path: str, method: str
) -> None:
    """The precompressed twin's lookup once let these through to a 500 (the plain lookup
    answered them 404): a browser sends ``Accept-Encoding: gzip, deflate, br`` with any URL."""
    with _client(server) as client:
        for accept in ("gzip, deflate, br", "gzip", "br", ""):
            r = client.request(method, path, headers={"accept-encoding": accept})
            assert r.status_code == 404, (accept, r.status_code, r.text[:200])


def test_app_root_redirects_by_who_asks(server: Server) -> None:
    with _client(server) as client:
        r = client.get("/app")
        assert r.status_code == 303 and r.headers["location"] == "/app/signin"
        landing = client.get("/app/signin").text
        assert 'data-testid="landing"' in landing and 'action="/app/signup"' in landing
        sign_up(client)
        r = client.get("/app")
        assert r.status_code == 303 and r.headers["location"] == "/app/exercises"


def test_hint_and_solution_come_back_as_partials(server: Server) -> None:
    with _client(server) as client:
        sign_up(client)
        page = client.get("/app/exercises/layer_norm").text
        partial = {"x-addnorm-partial": "1"}
        r = client.post(
            "/app/exercises/layer_norm/hints",
            data={"csrf": csrf_of(page), "rung": "1"},
            headers=partial,
        )
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert r.text.lstrip().startswith('<section class="hints"') and "<html" not in r.text
        assert r.text.count("data-rung=") == 1
        # Without the header the form behaves as without script: back to the page.
        r = client.post(
            "/app/exercises/layer_norm/hints", data={"csrf": csrf_of(page), "rung": "2"}
        )
        assert r.status_code == 303 and r.headers["location"].endswith("#hint-2")
        # The solution is still closed (no pass yet): the partial says why, no 5xx.
        r = client.post(
            "/app/exercises/layer_norm/solution", data={"csrf": csrf_of(page)}, headers=partial
        )
        assert r.status_code == 200 and 'data-testid="help-problem"' in r.text


class _Text(HTMLParser):
    """The text of a page outside code (pre, code, textarea, script, style)."""

    SKIP = frozenset({"pre", "code", "textarea", "script", "style", "title"})

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth and data.strip():
            self.parts.append(data.strip())


ENGLISH_SENTENCE = re.compile(r"[A-Za-z]{3,}(?:[ ,'-]+[A-Za-z]{2,}){3,}")


def test_chinese_verdict_page_lists_its_english(server: Server) -> None:
    """No "(英文)" marker where a Chinese text exists; the English sentences the page still
    carries are all the grader's (the prompt's function names aside), and are printed."""
    with _client(server) as client:
        sign_up(client, "zh residue")
        page = client.get("/app/exercises/layer_norm").text
        client.post(
            "/app/lang", data={"lang": "zh", "next": "/app/exercises", "csrf": csrf_of(page)}
        )
        assert submit(client, WRONG_LAYER_NORM).status_code == 303
        html = client.get("/app/exercises/layer_norm").text
        assert 'lang="zh-CN"' in html and "英文" not in html
        parser = _Text()
        parser.feed(html)
        english = sorted({m.group(0) for t in parser.parts for m in ENGLISH_SENTENCE.finditer(t)})
        print("English left on the Chinese LayerNorm page:", *english, sep="\n  ")
        # Interface strings come from the catalogue in Chinese: none of the English ones is here.
        chrome = [en for en, zh in UI.values() if en != zh and len(en.split()) >= 3]
        leaked = [en for en in chrome if en in html]
        assert leaked == []
