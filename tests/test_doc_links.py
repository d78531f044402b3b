"""Every relative link in the README, the top-level guides and docs/ leads to a file that exists,
and every `docs/<page>.md` that code, compose files or the Dockerfile point a reader to exists:
a link that leads nowhere is the first thing a newcomer meets (two pages linked SECURITY.md
beside themselves, and the compose file sent its reader to a docs/self-hosting.md never written)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import REPO

# [text](target) and ![alt](target); the target ends at whitespace or the closing parenthesis.
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:...
_DOCS_MENTION = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md\b")


def _pages() -> list[Path]:
    top = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "SECURITY.md")]
    return top + sorted((REPO / "docs").rglob("*.md"))


def _code_and_config() -> list[Path]:
    found: list[Path] = []
    for folder in ("api", "addnorm_client", "scripts", "tests", "exercises"):
        found += [p for p in (REPO / folder).rglob("*") if p.suffix in {".py", ".html", ".yaml"}]
    found += [p for p in REPO.glob("docker-compose*.yml")] + [REPO / "Dockerfile"]
    return [p for p in found if p.is_file()]


def broken_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    # Code blocks show commands and examples, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    broken = []
    for match in _LINK.finditer(text):
        target = match.group(1)
        if _EXTERNAL.match(target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_to_files(page: Path) -> None:
    assert broken_links(page) == []


def test_the_check_sees_a_missing_file(tmp_path: Path) -> None:
    page = tmp_path / "guide.md"
    (tmp_path / "there.md").write_text("x")
    page.write_text(
        "[ok](there.md) [gone](missing.md#part) ![img](shots/none.png) [web](https://x.org)"
        "\n```\n[not a link](in-a-code-block.md)\n```\n[anchor](#here)\n"
    )
    assert broken_links(page) == ["missing.md#part", "shots/none.png"]


def test_docs_pages_named_in_code_exist() -> None:
    missing = []
    for path in _code_and_config():
        if path == Path(__file__):
            continue
        for mention in _DOCS_MENTION.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not (REPO / mention).is_file():
                missing.append(f"{path.relative_to(REPO)}: {mention}")
    assert missing == []
