"""Refresh the paragraph of every prompt that states the platform's cases
(``api.grading.coverage``).

``python -m api.content.statements`` lists the prompts whose statement is stale; ``--write``
rewrites them. It lives with the content because it reads the catalogue; the grader only words
the statement.
"""

from __future__ import annotations

import sys
from pathlib import Path

from api.content.catalog import load_catalog
from api.grading.coverage import with_statement


def main() -> None:
    """``python -m api.content.statements --write``: refresh every prompt's statement."""
    root = Path(__file__).resolve().parents[2] / "exercises"
    write = "--write" in sys.argv[1:]
    stale = []
    for slug, exercise in load_catalog(root).items():
        for lang, name in (("en", "prompt.md"), ("zh", "prompt.zh.md")):
            path = root / slug / name
            text = path.read_text(encoding="utf-8")
            new = with_statement(text, exercise.spec, lang)
            if new != text:
                stale.append(str(path))
                if write:
                    path.write_text(new, encoding="utf-8")
    print(("rewrote " if write else "stale: ") + (", ".join(stale) or "none"))


if __name__ == "__main__":
    main()
