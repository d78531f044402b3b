"""Each exercise's variants regraded in-process with the golden seed: the whole verdict summary
(status, message, failing case/step/target, diagnosis) must equal the committed golden file.
Regenerate with ``.venv/bin/python -m tests.exercises.golden --write``."""

from __future__ import annotations

import json

import pytest

from api.content.catalog import load_catalog
from tests.exercises import golden

CATALOG = load_catalog(golden.ROOT / "exercises")


@pytest.mark.parametrize("slug", list(CATALOG))
def test_verdicts_match_the_golden_file(slug: str) -> None:
    path = golden.path_for(slug)
    assert path.is_file(), "no golden file: run python -m tests.exercises.golden --write"
    want = json.loads(path.read_text())
    got = golden.goldens(slug, CATALOG[slug].spec)
    assert set(got["variants"]) == set(want["variants"]), "variants added or removed"
    for name, summary in want["variants"].items():
        assert got["variants"][name] == summary, name


def test_masking_keeps_words_and_hides_numbers() -> None:
    text = "2 of 15 cases failed: differs by up to 1.16e-03 (relative 389) at index (0, 9)"
    assert (
        golden._mask(text) == "# of # cases failed: differs by up to # (relative #) at index (#, #)"
    )
