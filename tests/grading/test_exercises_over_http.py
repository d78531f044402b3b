"""Every exercise through the real service: solutions pass, starters fail, and each variant in
exercises/<slug>/variants/ gets the verdict (and the named mistake) its header expects. The
exercises are discovered from the catalog, never listed here."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from api.content.catalog import load_catalog
from tests.support import REPO

SLUGS = list(load_catalog(REPO / "exercises"))
VARIANTS = sorted((REPO / "exercises").glob("*/variants/*.py"))
EXPECT = re.compile(r"#\s*expect:\s*(passed|failed|rejected|error)(?:\s+mistake=(\w+))?")


def submit(api: httpx.Client, slug: str, code: str) -> dict[str, object]:
    r = api.post(f"/exercises/{slug}/submissions", json={"code": code})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


@pytest.mark.parametrize("slug", SLUGS)
def test_worked_solution_passes(api: httpx.Client, slug: str) -> None:
    body = submit(api, slug, (REPO / "solutions" / f"{slug}.py").read_text())
    assert body["verdict"] == "passed", body["message"]


@pytest.mark.parametrize("slug", SLUGS)
def test_starter_does_not_pass(api: httpx.Client, slug: str) -> None:
    body = submit(api, slug, (REPO / "exercises" / slug / "starter.py").read_text())
    assert body["verdict"] in {"failed", "error"}, body["message"]


def test_every_exercise_has_variants() -> None:
    by_slug = {p.parent.parent.name for p in VARIANTS}
    assert SLUGS and set(SLUGS) <= by_slug


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_variant_gets_expected_verdict(api: httpx.Client, path: Path) -> None:
    code = path.read_text()
    match = EXPECT.search(code.splitlines()[0] if code else "")
    assert match, f"{path} lacks an '# expect:' header on its first line"
    expected, mistake = match.group(1), match.group(2)
    body = submit(api, path.parent.parent.name, code)
    assert body["verdict"] == expected, body["message"]
    if expected in {"failed", "error"}:
        # The message points at the failing case (and step, in a scenario) in words.
        # Case names may hold dots and signs (eps_0.1_f64); the message quotes any of them.
        case = r"'[\w.+-]+'"
        assert re.search(rf"cases failed\. First: {case}|on case {case}", str(body["message"]))
    if mistake:
        diagnosis = body["diagnosis"]
        assert isinstance(diagnosis, dict), f"no diagnosis; message: {body['message']}"
        assert diagnosis["name"] == mistake, body["message"]
        assert diagnosis["explanation"] and diagnosis["explanation_zh"]
