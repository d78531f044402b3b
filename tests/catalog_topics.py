"""The exercises' topics as their folders declare them (``exercises/<slug>/meta.yaml``): tests
take them from the catalog, so none of them lists the exercises."""

from __future__ import annotations

import functools

from api.content.catalog import load_catalog
from api.content.questions import Topic
from tests.support import REPO


@functools.cache
def exercise_topics() -> dict[str, tuple[Topic, ...]]:
    catalog = load_catalog(REPO / "exercises")
    return {slug: tuple(e.meta.topics) for slug, e in catalog.items()}
