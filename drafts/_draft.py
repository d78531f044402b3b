"""What every draft exercise declares, independent of the grading platform it will move to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DraftMistake:
    """A wrong implementation learners write, with the text that names it in both languages.

    ``build`` follows the exercise's contract (same constructor, same parameters and buffers, or
    for a custom autograd Function the same ``apply`` signature), so it runs where the solution
    runs. ``fails_on`` names the edge-case families on which it must differ from the reference.
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: Callable[..., Any]
    fails_on: tuple[str, ...] = ()
