"""Interviewer follow-ups: the questions asked once an exercise's code runs.

Each exercise folder may hold ``followups.yaml``: a list of follow-up questions in both
languages, each linked by id to an item of the question bank, where the full question, its
answer and its explanation live. The file sits beside the exercise's other content and is read
here rather than by the catalog, so the two can change apart. Every link is checked against the
bank at start-up (:func:`check_follow_ups`): a dangling id stops the service with the file and
the id named, rather than sending a learner to a question that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from api.content.catalog import ContentError

FILENAME = "followups.yaml"


class FollowUp(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, description="id of the question-bank item it links to")
    ask: str = Field(min_length=1, description="the interviewer's question, in English")
    ask_zh: str = Field(min_length=1, description="the same question, in Chinese")

    def text(self, lang: Literal["en", "zh"]) -> str:
        return self.ask_zh if lang == "zh" else self.ask


class _FollowUpsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    follow_ups: list[FollowUp]


def load_follow_ups(folder: Path) -> tuple[FollowUp, ...]:
    """The follow-ups in ``folder/followups.yaml``, in file order; none if there is no file."""
    path = folder / FILENAME
    if not path.is_file():
        return ()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        parsed = _FollowUpsFile.model_validate(raw)
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: not valid YAML: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ContentError(f"{path}: field '{field}': {first['msg']}") from None
    return tuple(parsed.follow_ups)


@cache
def follow_ups_for(content_dir: Path, slug: str) -> tuple[FollowUp, ...]:
    """Read once per process: the content does not change under a running service."""
    return load_follow_ups(content_dir / slug)


def check_follow_ups(content_dir: Path, slugs: Iterable[str], question_ids: Iterable[str]) -> None:
    """Raise :class:`ContentError` for a follow-up whose question id is not in the bank."""
    known = set(question_ids)
    for slug in slugs:
        for follow_up in follow_ups_for(content_dir, slug):
            if follow_up.question not in known:
                raise ContentError(
                    f"{content_dir / slug / FILENAME}: question {follow_up.question!r} "
                    "is not in the question bank"
                )
