"""Templates (Jinja2, autoescaped) and the response every page goes out with."""

from __future__ import annotations

import html as html_lib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from api.web.assets import asset_url
from api.web.i18n import text, topic_name
from api.web.security import LONG_LIVED, VISITOR_COOKIE, content_security_policy, new_nonce
from api.web.session import WebSession
from api.web.verdicts import error_figure, tolerance_figure, value_figure

HERE = Path(__file__).resolve().parent

# Prompts are our own content, but raw HTML in Markdown is still off: the CSP forbids inline
# script anyway, and a prompt has no need for it.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

# Chinese prose is hard-wrapped in the sources like English, and a line break in a paragraph
# shows as a space: between two Chinese characters (or after full-width punctuation) that is a
# stray space Chinese typography has none of. Such a break joins the lines; a break beside a
# Latin word, a number or a formula stays a space ("在 torch.no_grad() 下").
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _softbreak(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    before = tokens[idx - 1].content[-1:] if idx > 0 else ""
    after = tokens[idx + 1].content[:1] if idx + 1 < len(tokens) else ""
    return "" if _CJK.match(before) and _CJK.match(after) else "\n"


_markdown.add_render_rule("softbreak", _softbreak)


# Formulas in $...$ (inline) and $$...$$ (display): KaTeX renders them in the browser. Markdown
# would read their underscores, stars and backslashes as its own syntax, so each formula is set
# aside before rendering and put back, escaped and still delimited (readable TeX without
# script). Code (fenced blocks and backtick spans) is left alone: a dollar there is code.
_FENCE = re.compile(r"^\s*(```|~~~)")
_MATH_OR_CODE = re.compile(r"(`+)(?:.+?)\1|\$\$(?:.+?)\$\$|\$(?:[^$\n]+?)\$", re.S)
_HOLD = "\u2063MATH{}\u2063"  # an invisible separator markdown has no rule for


def _set_math_aside(source: str) -> tuple[str, list[str]]:
    held: list[str] = []
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        def keep(m: re.Match[str]) -> str:
            if m.group(1):  # a code span: as written
                return m.group(0)
            held.append(m.group(0))
            return _HOLD.format(len(held) - 1)

        out.append(_MATH_OR_CODE.sub(keep, "".join(prose)))
        prose.clear()

    fence: str | None = None
    for line in source.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened:
            flush()
            fence = opened.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if line.strip().startswith(fence):
                fence = None
        else:
            prose.append(line)
    flush()
    return "".join(out), held


def markdown(source: str) -> Markup:
    source, held = _set_math_aside(source)
    html = _markdown.render(source)  # markdown-it escapes text; raw HTML is off
    for n, formula in enumerate(held):
        html = html.replace(_HOLD.format(n), html_lib.escape(formula, quote=False))
    # Code blocks and tables scroll sideways on a phone: a scrolling region must be reachable
    # by keyboard (WCAG 2.1.1), so each is focusable.
    html = html.replace("<pre>", '<pre tabindex="0">')
    html = html.replace("<table>", '<div class="scroll" tabindex="0"><table>')
    html = html.replace("</table>", "</table></div>")
    return Markup(html)


def _number(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    return f"{value:.3g}"


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = markdown
    env.filters["number"] = _number
    env.filters["error_figure"] = error_figure
    env.filters["tolerance_figure"] = tolerance_figure
    env.filters["value_figure"] = value_figure
    env.globals["asset"] = asset_url
    return env


def render(
    request: Request, web: WebSession, template: str, *, status: int = 200, **context: Any
) -> HTMLResponse:
    lang = web.lang
    style_nonce = new_nonce(16)
    html = (
        environment()
        .get_template(template)
        .render(
            request=request,
            web=web,
            lang=lang,
            t=lambda key: text(key, lang),
            topic=lambda name: topic_name(name, lang),
            style_nonce=style_nonce,
            **context,
        )
    )
    response = HTMLResponse(html, status_code=status)
    # This page's own policy (its style nonce); SecurityHeaders leaves an existing one alone.
    response.headers["content-security-policy"] = content_security_policy(style_nonce)
    # Pages show one learner's code and progress: never cache them in a shared cache.
    response.headers["cache-control"] = "no-store"
    if web.new_visitor:
        set_cookie(request, response, VISITOR_COOKIE, web.visitor, max_age=LONG_LIVED)
    return response


def set_cookie(
    request: Request, response: Response, name: str, value: str, *, max_age: int | None
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="lax",
        # Plain http on a cohort's own machine is the common case; over https, say so.
        secure=request.url.scheme == "https",
        path="/",
    )
