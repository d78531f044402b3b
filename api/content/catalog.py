"""The exercises, loaded from ``exercises/`` once at start-up and validated.

A malformed exercise stops the service with the file and the field named, rather than
surfacing as a 500 in front of a learner.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from api.content.questions import Topic
from api.grading.spec import ExerciseSpec

Lang = Literal["en", "zh"]


class ContentError(RuntimeError):
    """Exercise or question content that cannot be served; the message names file and field."""


class ParameterInfo(BaseModel):
    name: str
    shape: str
    init: str


class ExerciseMeta(BaseModel):
    title: str
    title_zh: str
    # The main topic (also shown by the notebook generator) and every topic of the question
    # bank this exercise trains (mastery and review count it for each); topic comes first.
    topic: Topic
    topics: list[Topic] = []
    difficulty: Literal["easy", "medium", "hard"]
    order: int = 0
    signature: str
    parameters: list[ParameterInfo] = []
    forbidden: list[str] = []

    @model_validator(mode="after")
    def _main_topic_first(self) -> ExerciseMeta:
        if not self.topics:
            self.topics = [self.topic]
        if self.topics[0] != self.topic or len(set(self.topics)) != len(self.topics):
            raise ValueError("topics must start with the main topic and list each topic once")
        return self


# A hint ladder has exactly these rungs, in this order: what the block is for (no formula), the
# formula, then the line learners usually get wrong. Fewer gives the answer away too soon; more
# and the last rung would no longer be "the line".
HINT_RUNGS = ("concept", "formula", "usual_mistake")


class Hint(BaseModel):
    """One rung of the hint ladder in ``exercises/<slug>/hints.yaml``, in both languages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=20, max_length=600)
    zh: str = Field(min_length=8, max_length=600)

    @field_validator("zh")
    @classmethod
    def _zh_is_chinese(cls, value: str) -> str:
        if not _has_chinese(value):
            raise ValueError("must be written in Chinese")
        return value

    def text(self, lang: Lang) -> str:
        return self.zh if lang == "zh" else self.en


# The points of the interview's explain item (api.content.interview_rubric asks each of every
# exercise).
EXPLAIN_POINTS = ("shapes", "numerical_stability", "cost", "training_vs_inference")


class ModelAnswer(BaseModel):
    """The explain item's model answer for one exercise, ``exercises/<slug>/model_answer.yaml``:
    one text per point, in both languages, written for that exercise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shapes: Hint
    numerical_stability: Hint
    cost: Hint
    training_vs_inference: Hint

    def text(self, lang: Lang) -> dict[str, str]:
        return {p: getattr(self, p).text(lang) for p in EXPLAIN_POINTS}


def _load_model_answer(path: Path) -> ModelAnswer:
    try:
        raw = yaml.safe_load(_read(path))
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: not valid YAML: {exc}") from None
    try:
        return ModelAnswer.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(the answer itself)"
        raise ContentError(f"{path}: field '{field}': {first['msg']}") from None


@dataclass(frozen=True)
class Exercise:
    slug: str
    meta: ExerciseMeta
    prompt: dict[str, str]
    starter: str
    spec: ExerciseSpec
    hints: tuple[Hint, ...] = ()
    # starter.zh.py: the same code with its comments in Chinese (optional per exercise).
    starter_zh: str | None = None
    model_answer: ModelAnswer | None = None

    def title(self, lang: Lang) -> str:
        return self.meta.title_zh if lang == "zh" else self.meta.title

    def starter_for(self, lang: Lang) -> str:
        """The starter with comments in ``lang``, falling back to the English one."""
        return self.starter_zh if lang == "zh" and self.starter_zh is not None else self.starter


def _read(path: Path) -> str:
    if not path.is_file():
        raise ContentError(f"{path}: missing")
    return path.read_text(encoding="utf-8")


def _load_spec(path: Path, slug: str) -> ExerciseSpec:
    module_name = f"addnorm_exercise_{slug}_spec"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ContentError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        raise ContentError(f"{path}: {type(exc).__name__}: {exc}") from exc
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, ExerciseSpec):
        raise ContentError(f"{path}: SPEC must be an ExerciseSpec")
    if spec.slug != slug:
        raise ContentError(f"{path}: SPEC.slug is {spec.slug!r}, the folder is {slug!r}")
    _check_mistakes(path, spec)
    return spec


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _check_mistakes(path: Path, spec: ExerciseSpec) -> None:
    """Every known mistake is named once and explained in both languages, as a verdict shows it."""
    seen: set[str] = set()
    for m in spec.mistakes:
        where = f"{path}: mistake {m.name!r}"
        if not (m.name.isidentifier() and m.name.islower()) or m.name in seen:
            raise ContentError(f"{where}: the name must be a unique lower-case identifier")
        seen.add(m.name)
        if not m.title or len(m.explanation) < 80:
            raise ContentError(f"{where}: needs a title and an explanation of 80+ characters")
        if not _has_chinese(m.title_zh) or not _has_chinese(m.explanation_zh):
            raise ContentError(f"{where}: title_zh and explanation_zh must be written in Chinese")


def _load_hints(path: Path) -> tuple[Hint, ...]:
    """The hint ladder; a malformed one names the file, the rung and the field."""
    try:
        raw = yaml.safe_load(_read(path))
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, list) or len(raw) != len(HINT_RUNGS):
        raise ContentError(
            f"{path}: must be a list of exactly {len(HINT_RUNGS)} hints "
            f"({', then '.join(HINT_RUNGS)}), each with 'en' and 'zh'"
        )
    hints: list[Hint] = []
    for number, (item, rung) in enumerate(zip(raw, HINT_RUNGS, strict=True), start=1):
        try:
            hints.append(Hint.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "(the hint itself)"
            raise ContentError(
                f"{path}: hint {number} ({rung}), field '{field}': {first['msg']}"
            ) from None
    return tuple(hints)


def load_exercise(folder: Path) -> Exercise:
    slug = folder.name
    meta_path = folder / "meta.yaml"
    try:
        raw = yaml.safe_load(_read(meta_path))
        meta = ExerciseMeta.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ContentError(f"{meta_path}: field '{field}': {first['msg']}") from None
    except yaml.YAMLError as exc:
        raise ContentError(f"{meta_path}: not valid YAML: {exc}") from None
    return Exercise(
        slug=slug,
        meta=meta,
        prompt={"en": _read(folder / "prompt.md"), "zh": _read(folder / "prompt.zh.md")},
        starter=_read(folder / "starter.py"),
        spec=_load_spec(folder / "spec.py", slug),
        hints=_load_hints(folder / "hints.yaml"),
        starter_zh=_read(folder / "starter.zh.py")
        if (folder / "starter.zh.py").is_file()
        else None,
        model_answer=_load_model_answer(folder / "model_answer.yaml"),
    )


def load_catalog(content_dir: Path) -> dict[str, Exercise]:
    """Every exercise folder (one holding a spec.py) under ``content_dir``, in course order."""
    if not content_dir.is_dir():
        raise ContentError(f"{content_dir}: the exercise directory does not exist")
    found = [load_exercise(d) for d in sorted(content_dir.iterdir()) if (d / "spec.py").is_file()]
    found.sort(key=lambda e: (e.meta.order, e.slug))
    return {e.slug: e for e in found}
