"""No English sentence on a Chinese exercise page or in a Chinese verdict, for every exercise in
the catalogue: the starter and a known mistake are submitted over HTTP by a learner whose
language is Chinese, and the page and the verdict JSON (``?lang=zh``) are read for English; so
is the Chinese verdict of every failing variant of every exercise.

An English sentence is a run of three or more English words in running text. Not text: code
(``pre``, ``code``, ``textarea``, the editor), typeset formulas (``.katex``), scripts and styles;
in the JSON, the exception Python raised, the learner's output and the fields that are names
(case, target, function, dtype). Not words: identifiers and tensor names, i.e. anything touching
``_``, ``.``, ``(`` or a digit (``default_init``, ``x.var(-1)``, ``w1``); CamelCase names
(``LayerNorm``, ``NotImplementedError``); Python's constants (``None``, ``True``). Not sentences
either: a cited title, which Chinese marks with 《》 or “”; an English gloss in full-width
brackets right after the Chinese term it glosses (均方根（root mean square）), as Chinese
technical writing does; the text of an exception the learner's code raised, quoted after its
type (``RuntimeError: element 0 of tensors does not require grad``), which is Python's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest

from api.content.catalog import load_catalog
from tests.browser.test_pages_http import csrf_of, sign_up
from tests.support import REPO, Server

CATALOGUE = sorted(load_catalog(REPO / "exercises"))
GOLDEN = REPO / "tests" / "exercises" / "golden"

# A word: two or more letters, not part of an identifier, a call, a path or a number, and not
# a CamelCase name or one of Python's constants.
_WORD = r"(?<![\w.\-/`'])(?![A-Za-z][a-z]*[A-Z])(?!(?:None|True|False)\b)[A-Za-z]{2,}(?![\w.(/`])"
_RAISED = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)[:：] ?[^。；\n]*")
_TITLE = re.compile(r"《[^》]*》|“[^”]*”")
_GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])（[A-Za-z][A-Za-z ,\-]{0,60}(?:[，、][^）]*)?）")
ENGLISH_SENTENCE = re.compile(_WORD + r"(?:[ ,;:'’-]+" + _WORD + r"){2,}")
# Fields of a verdict that are names or the learner's own (or Python's) text, not sentences.
_NAMES = {"case", "target", "function", "dtype", "name", "type", "stdout", "stderr", "exercise"}
_NOT_PROSE = {"error", "timings_ms"}


def english_sentences(text: str) -> list[str]:
    prose = _GLOSS.sub("", _TITLE.sub("", _RAISED.sub("", text)))
    return [m.group(0) for m in ENGLISH_SENTENCE.finditer(prose)]


def test_the_definition_finds_english_and_spares_code() -> None:
    """Control: the detector fires on a sentence and stays quiet on names and code."""
    assert english_sentences("输出与参考值相差 0.3：differs from the reference") != []
    assert english_sentences("x.var(-1, keepdim=True, unbiased=False) 不对") == []
    assert english_sentences("用例 default_init：grad of w1，float32，LayerNorm") == []
    assert english_sentences("run NotImplementedError: implement softmax") == []
    assert english_sentences("文章《FFN, Residual Addition, LN》与“GLU Variants Improve”") == []
    assert english_sentences("均方根（root mean square）") == []
    assert english_sentences("（root mean square）不是注释") != []
    assert english_sentences("抛出 RuntimeError: element 0 of tensors does not require grad") == []
    assert english_sentences("RuntimeError 说明 element 0 of tensors does not require grad") != []


class _Text(HTMLParser):
    """A page's running text: not code, formulas, scripts or the language switch."""

    SKIP_TAGS = frozenset({"pre", "code", "textarea", "script", "style", "title", "svg"})
    SKIP_CLASSES = ("katex", "cm-editor", "brand", "who")

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "img", "input", "meta", "link", "hr", "wbr", "col", "source"):
            return
        got = dict(attrs)
        classes = (got.get("class") or "").split()
        skip = (
            tag in self.SKIP_TAGS
            or any(c.startswith(self.SKIP_CLASSES) for c in classes)
            or got.get("data-testid") in ("switch-lang", "editor")
        )
        self.stack.append(skip or (bool(self.stack) and self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("br", "img", "input", "meta", "link", "hr", "wbr", "col", "source"):
            return
        if self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]) and data.strip():
            self.parts.append(data.strip())


# Chinese typography slips in running text: a half-width colon or semicolon after a Chinese
# word, and a space after full-width punctuation or between two Chinese characters (a
# hard-wrapped source line shown as a space).
_SLIP = re.compile(
    r"[\u4e00-\u9fff][:;](?:\s|$)"
    r"|[，。；：、！？）][ \t\n]+(?=[\u4e00-\u9fff])"
    r"|(?<=[\u4e00-\u9fff])[ \t\n]+(?=[\u4e00-\u9fff])"
)


def typography_slips(html: str) -> list[str]:
    """Each slip of Chinese typography in a page's running text, with its neighbourhood."""
    parser = _Text()
    parser.feed(html)
    return [
        part[max(0, m.start() - 8) : m.end() + 8]
        for part in parser.parts
        for m in _SLIP.finditer(part)
    ]


def test_the_typography_check_finds_slips() -> None:
    assert typography_slips("<p>评测结果: 未通过</p>") == ["评测结果: 未通过"]
    assert typography_slips("<p>标准差，\n再逐特征</p>") != []
    assert typography_slips("<p>标准差\n再逐特征</p>") != []
    # Chinese beside a Latin word, a number or code keeps its space; code is not running text.
    assert typography_slips("<p>在 torch.no_grad() 下只做前向，形状 (2, 3)：x</p>") == []
    assert typography_slips("<pre>标准差: 再</pre>") == []


def page_sentences(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    return [s for part in parser.parts for s in english_sentences(part)]


def _texts(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every learner-facing text of a verdict JSON with its path."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in _NAMES or k in _NOT_PROSE or k == "lang":
                continue
            yield from _texts(v, f"{key}.{k}" if key else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _texts(v, f"{key}[{i}]")
    elif isinstance(value, str):
        yield key, value


def known_mistake(slug: str) -> str:
    """A variant the grader names a known mistake for (the first, by name), else the first
    failing one."""
    golden = json.loads((GOLDEN / f"{slug}.json").read_text())["variants"]
    failing = [n for n, g in sorted(golden.items()) if g["status"] == "failed"]
    named = [n for n in failing if golden[n]["diagnosis"]]
    chosen = (named or failing)[0]
    return (REPO / "exercises" / slug / "variants" / f"{chosen}.py").read_text()


@pytest.fixture(scope="module")
def zh_learner(server: Server) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    """One learner, Chinese chosen on the page: a browser-like client and an API client."""
    with httpx.Client(base_url=server.url, timeout=120, follow_redirects=False) as web:
        token = sign_up(web, "zh everywhere")
        page = web.get("/app/exercises").text
        web.post("/app/lang", data={"lang": "zh", "next": "/app/exercises", "csrf": csrf_of(page)})
        with server.client(token) as api:
            api.timeout = httpx.Timeout(120)
            yield web, api


@pytest.mark.parametrize("what", ["starter", "mistake"])
@pytest.mark.parametrize("slug", CATALOGUE)
def test_no_english_on_chinese_pages_and_verdicts(
    zh_learner: tuple[httpx.Client, httpx.Client], slug: str, what: str
) -> None:
    web, api = zh_learner
    if what == "starter":
        code = str(api.get(f"/exercises/{slug}?lang=zh").json()["starter"])
    else:
        code = known_mistake(slug)
    page = web.get(f"/app/exercises/{slug}")
    assert page.status_code == 200 and 'lang="zh-CN"' in page.text
    r = web.post(
        f"/app/exercises/{slug}/submissions", data={"code": code, "csrf": csrf_of(page.text)}
    )
    assert r.status_code == 303, r.text
    html = web.get(f"/app/exercises/{slug}").text
    assert 'data-testid="verdict"' in html
    found = {f"page: {s}" for s in page_sentences(html)}
    found |= {f"page typography: {s!r}" for s in typography_slips(html)}

    verdict = api.post(f"/exercises/{slug}/submissions?lang=zh", json={"code": code})
    assert verdict.status_code in (200, 201), verdict.text
    body = verdict.json()
    assert body["verdict"] != "passed", body["message"]
    found |= {f"{path}: {s}" for path, text in _texts(body) for s in english_sentences(text)}
    assert not found, f"{slug} {what}: English in Chinese:\n" + "\n".join(sorted(found))


def test_the_english_page_and_verdict_are_found_english(server: Server) -> None:
    """Control: the same reading of an English page and verdict finds English sentences, so
    the Chinese test's silence means something."""
    with httpx.Client(base_url=server.url, timeout=120, follow_redirects=False) as web:
        token = sign_up(web, "en control")
        page = web.get("/app/exercises/layer_norm")
        code = known_mistake("layer_norm")
        r = web.post(
            "/app/exercises/layer_norm/submissions", data={"code": code, "csrf": csrf_of(page.text)}
        )
        assert r.status_code == 303
        assert page_sentences(web.get("/app/exercises/layer_norm").text)
        with server.client(token) as api:
            api.timeout = httpx.Timeout(120)
            body = api.post("/exercises/layer_norm/submissions?lang=en", json={"code": code}).json()
        found = [s for path, text in _texts(body) for s in english_sentences(text)]
        assert any("differs from the reference" in s for s in found), found


def _variants(slugs: list[str]) -> list[tuple[str, str]]:
    return [
        (slug, path.stem)
        for slug in slugs
        for path in sorted((REPO / "exercises" / slug / "variants").glob("*.py"))
        if not path.stem.startswith("passed")
    ]


@pytest.mark.parametrize(("slug", "variant"), _variants(CATALOGUE))
def test_every_failing_variant_reads_in_chinese(
    zh_learner: tuple[httpx.Client, httpx.Client], slug: str, variant: str
) -> None:
    """Every failing variant of every exercise (the five newest, scaled_dot_product_attention,
    batch_norm_backward, online_softmax, dropout and checkpointed_ffn, have the newest verdict
    phrases): its Chinese verdict JSON, targets and the diagnosis' scope and advice included,
    is read for English."""
    _, api = zh_learner
    code = (REPO / "exercises" / slug / "variants" / f"{variant}.py").read_text()
    verdict = api.post(f"/exercises/{slug}/submissions?lang=zh", json={"code": code})
    assert verdict.status_code in (200, 201), verdict.text
    body = verdict.json()
    found = sorted({f"{p}: {s}" for p, text in _texts(body) for s in english_sentences(text)})
    assert not found, f"{slug} {variant}: English in Chinese:\n" + "\n".join(found)
