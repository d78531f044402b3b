"""The conceptual question bank: content models, the start-up loader, the public view and grading.

Questions live in ``exercises/questions/<topic>.yaml``, one file per topic, and cite the article
they are drawn from by its title and a section heading: that is what a learner reads in an answer,
and what they can look up (the material's file names mean nothing to them). The article files
themselves are not needed at run time: ``exercises/questions/_sources.yaml`` lists the known
articles, their titles and headings, so a typo in a citation stops the service at start-up
instead of reaching a learner.

Nothing here knows about HTTP or the database. The API turns :class:`QuestionBankError` into a
refusal to start, :class:`AnswerShapeError` into a 422 and :class:`QuestionNotFound` into a 404.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeAlias, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

Topic: TypeAlias = Literal[
    "ffn",
    "residual",
    "layer_norm",
    "batch_norm",
    "rms_norm",
    "norm_placement",
    "activations",
    "attention",
    "moe",
    "training",
]
TOPICS: tuple[Topic, ...] = get_args(Topic)

QuestionType: TypeAlias = Literal[
    "single_choice", "multiple_select", "true_false", "numeric", "code_reading"
]
QUESTION_TYPES: tuple[QuestionType, ...] = get_args(QuestionType)

Lang: TypeAlias = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = get_args(Lang)

Difficulty: TypeAlias = Literal[1, 2, 3]
_DIFFICULTY_NAMES: dict[str, int] = {"easy": 1, "medium": 2, "hard": 3}

SOURCES_FILE = "_sources.yaml"

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# Ids end up in URLs and in the review tables, so they must never change once published.
QuestionId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]

_CJK = re.compile(r"[\u3400-\u9fff]")


def _require_chinese(value: str) -> str:
    # An English sentence pasted into a *_zh field passes "non-empty"; this catches it.
    if not _CJK.search(value):
        raise ValueError("Chinese text expected (no CJK characters found)")
    return value


# --------------------------------------------------------------------------- content models


class _Content(BaseModel):
    # Strict: YAML turns `yes` into True and `1.0` into a float; a content typo must fail loudly
    # rather than be coerced into a plausible-looking answer key.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Source(_Content):
    """Where a question comes from: an article of the material, by title, and a section heading."""

    article: Text
    section: Text


class Choice(_Content):
    text: Text
    text_zh: Text


class Tolerance(_Content):
    """A numeric answer is right when it is within ``absolute`` or within ``relative`` * |key|."""

    absolute: float | None = Field(default=None, ge=0)
    relative: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_bound(self) -> Self:
        if self.absolute is None and self.relative is None:
            raise ValueError("tolerance needs `absolute` or `relative` (use absolute: 0 for exact)")
        return self

    def accepts(self, given: float, expected: float) -> bool:
        diff = abs(given - expected)
        if self.absolute is not None and diff <= self.absolute:
            return True
        return self.relative is not None and diff <= self.relative * abs(expected)


class _QuestionBase(_Content):
    id: QuestionId
    topic: Topic
    difficulty: Difficulty
    prompt: Text
    prompt_zh: Text
    explanation: Text
    explanation_zh: Text
    # None: the question goes beyond the course articles (attention, optimisers, MoE...); it
    # then says so, and its `references` name where the claim does come from.
    source: Source | None
    references: list[Text] = []

    @model_validator(mode="after")
    def _beyond_the_material_has_references(self) -> Self:
        if self.source is None and not self.references:
            raise ValueError(
                "a question with `source: null` (not in the course articles) needs `references`"
            )
        return self

    @field_validator("difficulty", mode="before")
    @classmethod
    def _difficulty_by_name(cls, value: object) -> object:
        if isinstance(value, str) and value in _DIFFICULTY_NAMES:
            return _DIFFICULTY_NAMES[value]
        return value

    @field_validator("prompt_zh", "explanation_zh")
    @classmethod
    def _zh_is_chinese(cls, value: str) -> str:
        return _require_chinese(value)


class _ChoiceQuestion(_QuestionBase):
    choices: Annotated[list[Choice], Field(min_length=2, max_length=8)]

    @field_validator("choices")
    @classmethod
    def _distinct_choices(cls, choices: list[Choice]) -> list[Choice]:
        for attr in ("text", "text_zh"):
            texts = [getattr(c, attr) for c in choices]
            if len(set(texts)) != len(texts):
                raise ValueError(f"two choices have the same `{attr}`")
        return choices


def _check_indices(indices: Sequence[int], info: ValidationInfo) -> None:
    # Field validators run in declaration order, so `choices` is already validated here (and
    # absent when it failed, in which case that error is the one to report).
    choices = info.data.get("choices")
    if choices is None:
        return
    for index in indices:
        if not 0 <= index < len(choices):
            raise ValueError(
                f"answer index {index} is out of range for {len(choices)} choices "
                f"(valid: 0..{len(choices) - 1})"
            )


class SingleChoiceQuestion(_ChoiceQuestion):
    type: Literal["single_choice"]
    answer: int

    @field_validator("answer")
    @classmethod
    def _answer_in_range(cls, answer: int, info: ValidationInfo) -> int:
        _check_indices([answer], info)
        return answer


class CodeReadingQuestion(_ChoiceQuestion):
    """Spot the bug: a code snippet shown verbatim in both languages, and one right choice."""

    type: Literal["code_reading"]
    # Not stripped: leading indentation and the final newline are part of the snippet.
    code: Annotated[str, StringConstraints(pattern=r"\S")]
    answer: int

    @field_validator("answer")
    @classmethod
    def _answer_in_range(cls, answer: int, info: ValidationInfo) -> int:
        _check_indices([answer], info)
        return answer


class MultipleSelectQuestion(_ChoiceQuestion):
    type: Literal["multiple_select"]
    answer: Annotated[list[int], Field(min_length=1)]

    @field_validator("answer")
    @classmethod
    def _answers_valid(cls, answer: list[int], info: ValidationInfo) -> list[int]:
        if len(set(answer)) != len(answer):
            raise ValueError("answer lists the same choice twice")
        _check_indices(answer, info)
        return answer


class TrueFalseQuestion(_QuestionBase):
    type: Literal["true_false"]
    answer: bool


class NumericQuestion(_QuestionBase):
    type: Literal["numeric"]
    answer: float
    tolerance: Tolerance
    unit: Text | None = None
    unit_zh: Text | None = None

    @field_validator("answer")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("answer must be a finite number")
        return value

    @model_validator(mode="after")
    def _unit_bilingual(self) -> Self:
        if (self.unit is None) != (self.unit_zh is None):
            raise ValueError("give both `unit` and `unit_zh`, or neither")
        return self


Question: TypeAlias = Annotated[
    SingleChoiceQuestion
    | MultipleSelectQuestion
    | TrueFalseQuestion
    | NumericQuestion
    | CodeReadingQuestion,
    Field(discriminator="type"),
]
ChoiceQuestion: TypeAlias = SingleChoiceQuestion | MultipleSelectQuestion | CodeReadingQuestion
_QUESTION_ADAPTER: TypeAdapter[Question] = TypeAdapter(Question)


class SourceArticle(_Content):
    """An entry of ``_sources.yaml``: an article of the material and its section headings."""

    file: Annotated[str, StringConstraints(pattern=r"^[^/\\]+$", min_length=1)]
    title: Text
    sections: Annotated[list[Text], Field(min_length=1)]


class _SourcesFile(_Content):
    articles: Annotated[list[SourceArticle], Field(min_length=1)]


# --------------------------------------------------------------------------- the bank


class QuestionBankError(Exception):
    """Malformed content: the message names the file and the field, for whoever edits the YAML."""


class QuestionNotFound(LookupError):
    def __init__(self, question_id: str) -> None:
        super().__init__(f"Question not found: {question_id!r}")
        self.question_id = question_id


class QuestionBank:
    """The validated questions in file order (topics in ``TOPICS`` order) and the known sources."""

    def __init__(self, questions: Sequence[Question], sources: Sequence[SourceArticle]) -> None:
        self.questions: tuple[Question, ...] = tuple(questions)
        self.sources: tuple[SourceArticle, ...] = tuple(sources)
        self._by_id: dict[str, Question] = {q.id: q for q in self.questions}

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def __contains__(self, question_id: object) -> bool:
        return question_id in self._by_id

    def get(self, question_id: str) -> Question:
        try:
            return self._by_id[question_id]
        except KeyError:
            raise QuestionNotFound(question_id) from None

    def select(
        self,
        *,
        topic: Topic | None = None,
        type: QuestionType | None = None,
        difficulty: int | None = None,
    ) -> list[Question]:
        return [
            q
            for q in self.questions
            if (topic is None or q.topic == topic)
            and (type is None or q.type == type)
            and (difficulty is None or q.difficulty == difficulty)
        ]

    def count_by_topic(self) -> dict[Topic, int]:
        counts: dict[Topic, int] = dict.fromkeys(TOPICS, 0)
        for q in self.questions:
            counts[q.topic] += 1
        return counts

    def count_by_type(self) -> dict[QuestionType, int]:
        counts: dict[QuestionType, int] = dict.fromkeys(QUESTION_TYPES, 0)
        for q in self.questions:
            counts[q.type] += 1
        return counts


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys: PyYAML would silently keep the last `answer:`."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionBankError(f"{path}: cannot read: {exc}") from exc
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise QuestionBankError(f"{path}: invalid YAML: {exc}") from exc


def _format_validation_error(prefix: str, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors(include_url=False):
        # The discriminated union puts the type tag in the path (questions.3.numeric.answer);
        # drop it so the path reads like the YAML a contributor is looking at.
        loc = [str(p) for p in err["loc"] if p not in QUESTION_TYPES]
        field = ".".join(loc) or "(question)"
        lines.append(f"{prefix}.{field}: {err['msg']}" if loc else f"{prefix}: {err['msg']}")
    return "\n".join(lines)


def _load_sources(directory: Path) -> list[SourceArticle]:
    path = directory / SOURCES_FILE
    if not path.is_file():
        raise QuestionBankError(f"{path}: missing (it lists the articles questions may cite)")
    try:
        return _SourcesFile.model_validate(_read_yaml(path)).articles
    except ValidationError as exc:
        raise QuestionBankError(_format_validation_error(str(path), exc)) from exc


def _load_topic_file(
    path: Path, sections: Mapping[str, frozenset[str]]
) -> list[tuple[Question, str]]:
    # `<topic>.yaml`, or `<topic>.<part>.yaml` when one topic's questions are kept in several
    # files (the attention exercises' questions beside the attention basics).
    topic = path.stem.split(".", 1)[0]
    if topic not in TOPICS:
        raise QuestionBankError(
            f"{path}: unknown topic file {path.name!r}; expected one of "
            + ", ".join(f"{t}.yaml" for t in TOPICS)
        )
    data = _read_yaml(path)
    if (
        not isinstance(data, dict)
        or set(data) != {"questions"}
        or not isinstance(data["questions"], list)
    ):
        raise QuestionBankError(f"{path}: expected a mapping with one key `questions: [...]`")
    loaded: list[tuple[Question, str]] = []
    for i, raw in enumerate(data["questions"]):
        ident = raw.get("id") if isinstance(raw, dict) else None
        where = f"{path}: questions[{i}]" + (f" (id {ident!r})" if ident else "")
        try:
            question = _QUESTION_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            raise QuestionBankError(_format_validation_error(where, exc)) from exc
        if question.topic != topic:
            raise QuestionBankError(
                f"{where}.topic: {question.topic!r} does not match the file {path.name!r}"
            )
        if question.source is None:
            loaded.append((question, where))
            continue
        known = sections.get(question.source.article)
        if known is None:
            raise QuestionBankError(
                f"{where}.source.article: {question.source.article!r} is not the title of an "
                f"article listed in {SOURCES_FILE}"
            )
        if question.source.section not in known:
            raise QuestionBankError(
                f"{where}.source.section: {question.source.section!r} is not a section of "
                f"{question.source.article!r} listed in {SOURCES_FILE}"
            )
        loaded.append((question, where))
    return loaded


def load_question_bank(directory: Path) -> QuestionBank:
    """Load and validate every ``<topic>.yaml`` in ``directory``; raise on the first bad file.

    Raises :class:`QuestionBankError` naming the file, the question and the field.
    """
    if not directory.is_dir():
        raise QuestionBankError(f"{directory}: question directory not found")
    sources = _load_sources(directory)
    sections = {a.title: frozenset(a.sections) for a in sources}
    if len(sections) != len(sources) or len({a.file for a in sources}) != len(sources):
        raise QuestionBankError(f"{directory / SOURCES_FILE}: an article is listed twice")

    stray = sorted(
        p.name
        for p in directory.iterdir()
        if p.is_file() and p.suffix in {".yml", ".json"} and not p.name.startswith(".")
    )
    if stray:
        raise QuestionBankError(f"{directory}: use `<topic>.yaml` for question files, got {stray}")
    files = [p for p in directory.glob("*.yaml") if p.name != SOURCES_FILE]
    order: dict[str, int] = {t: i for i, t in enumerate(TOPICS)}

    def _topic_rank(p: Path) -> tuple[int, str]:
        return order.get(p.stem.split(".", 1)[0], len(order)), p.name

    paths = sorted(files, key=_topic_rank)

    questions: list[Question] = []
    seen: dict[str, str] = {}
    for path in paths:
        for question, where in _load_topic_file(path, sections):
            if question.id in seen:
                raise QuestionBankError(
                    f"{where}.id: duplicate id {question.id!r}, "
                    f"first defined at {seen[question.id]}"
                )
            seen[question.id] = where
            questions.append(question)
    return QuestionBank(questions=tuple(questions), sources=sources)


# --------------------------------------------------------------------------- public view


class PublicChoice(BaseModel):
    index: int
    text: str


class PublicQuestion(BaseModel):
    """What a learner sees before answering: never the answer key, the explanation or the source."""

    id: str
    topic: Topic
    type: QuestionType
    difficulty: int
    prompt: str
    choices: list[PublicChoice] | None = None
    code: str | None = None
    unit: str | None = None
    # Tells a client what to POST, in the same words a 422 would use.
    answer_format: str


def _pick(lang: Lang, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def expected_shape(question: Question, lang: Lang = "en") -> str:
    """Describe the answer a question accepts, e.g. "an integer choice index 0..3"."""
    match question:
        case SingleChoiceQuestion() | CodeReadingQuestion():
            last = len(question.choices) - 1
            return _pick(lang, f"an integer choice index 0..{last}", f"一个选项下标整数 0..{last}")
        case MultipleSelectQuestion():
            last = len(question.choices) - 1
            return _pick(
                lang,
                f"a list of distinct choice indices, each 0..{last}",
                f"由互不相同的选项下标组成的列表，每个下标在 0..{last} 之间",
            )
        case TrueFalseQuestion():
            return _pick(lang, "true or false", "true 或 false")
        case NumericQuestion():
            return _pick(lang, "a number", "一个数")


def public_view(question: Question, lang: Lang = "en") -> PublicQuestion:
    choices = None
    if isinstance(question, SingleChoiceQuestion | MultipleSelectQuestion | CodeReadingQuestion):
        choices = [
            PublicChoice(index=i, text=_pick(lang, c.text, c.text_zh))
            for i, c in enumerate(question.choices)
        ]
    unit = None
    if isinstance(question, NumericQuestion) and question.unit and question.unit_zh:
        unit = _pick(lang, question.unit, question.unit_zh)
    return PublicQuestion(
        id=question.id,
        topic=question.topic,
        type=question.type,
        difficulty=question.difficulty,
        prompt=_pick(lang, question.prompt, question.prompt_zh),
        choices=choices,
        code=question.code if isinstance(question, CodeReadingQuestion) else None,
        unit=unit,
        answer_format=expected_shape(question, lang),
    )


# --------------------------------------------------------------------------- answer checking

AnswerValue: TypeAlias = int | list[int] | bool | float


class AnswerShapeError(ValueError):
    """The answer does not have the shape the question type takes (the API's 422)."""

    def __init__(self, question: Question, problem: str, problem_zh: str) -> None:
        self.question_id = question.id
        self.expected = expected_shape(question, "en")
        self.expected_zh = expected_shape(question, "zh")
        self.problem = problem
        self.problem_zh = problem_zh
        super().__init__(f"Expected {self.expected}; {problem}")

    def detail(self, lang: Lang) -> str:
        """The refusal in the learner's language (the API's 422)."""
        if lang == "zh":
            return f"应为{self.expected_zh}；{self.problem_zh}"
        return f"Expected {self.expected}; {self.problem}"


def _got(raw: object) -> tuple[str, str]:
    """What ``raw`` was, as a problem: ``("got a boolean", "收到的是布尔值")``."""
    en, zh = _describe(raw)
    return f"got {en}", f"收到的是{zh}"


class AnswerResult(BaseModel):
    correct: bool
    # The learner's answer after validation, in the stored form (e.g. a sorted index list).
    answer: AnswerValue
    correct_answer: AnswerValue
    # The key as a learner reads it: the choice texts, "true"/"正确", or the number with its unit.
    correct_answer_text: str
    explanation: str
    source: Source | None
    references: list[str]


def _is_int(value: object) -> bool:
    # bool is a subclass of int; `true` is not a choice index.
    return isinstance(value, int) and not isinstance(value, bool)


def _choice_index(question: ChoiceQuestion, raw: object) -> int:
    if not _is_int(raw):
        raise AnswerShapeError(question, *_got(raw))
    assert isinstance(raw, int)
    if not 0 <= raw < len(question.choices):
        raise AnswerShapeError(question, f"index {raw} is out of range", f"下标 {raw} 超出范围")
    return raw


def _describe(raw: object) -> tuple[str, str]:
    """What kind of JSON value ``raw`` is, in English and in Chinese."""
    if raw is None:
        return "null", "null"
    if isinstance(raw, bool):
        return "a boolean", "布尔值"
    if isinstance(raw, str):
        return "a string", "字符串"
    if isinstance(raw, list | tuple):
        return "a list", "列表"
    if isinstance(raw, dict):
        return "an object", "对象"
    if isinstance(raw, float):
        return ("a non-integer number", "非整数") if not raw.is_integer() else ("a float", "浮点数")
    if isinstance(raw, int):
        return "int", "整数"
    return type(raw).__name__, type(raw).__name__


def normalise_answer(question: Question, raw_answer: object) -> AnswerValue:
    """Validate ``raw_answer`` (parsed JSON) against the question type; raise AnswerShapeError."""
    match question:
        case SingleChoiceQuestion() | CodeReadingQuestion():
            return _choice_index(question, raw_answer)
        case MultipleSelectQuestion():
            if not isinstance(raw_answer, list | tuple):
                raise AnswerShapeError(question, *_got(raw_answer))
            indices = [_choice_index(question, item) for item in raw_answer]
            if len(set(indices)) != len(indices):
                raise AnswerShapeError(question, "an index is repeated", "有重复的下标")
            # An empty selection is a legitimate (wrong) answer: "none of these apply".
            return sorted(indices)
        case TrueFalseQuestion():
            if not isinstance(raw_answer, bool):
                raise AnswerShapeError(question, *_got(raw_answer))
            return raw_answer
        case NumericQuestion():
            if not (_is_int(raw_answer) or isinstance(raw_answer, float)):
                raise AnswerShapeError(question, *_got(raw_answer))
            assert isinstance(raw_answer, int | float)
            value = float(raw_answer)
            if not math.isfinite(value):
                raise AnswerShapeError(question, "got a non-finite number", "收到的不是有限数")
            return value


def _format_number(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _answer_text(question: Question, lang: Lang) -> str:
    match question:
        case SingleChoiceQuestion() | CodeReadingQuestion():
            c = question.choices[question.answer]
            return _pick(lang, c.text, c.text_zh)
        case MultipleSelectQuestion():
            sep = _pick(lang, "; ", "；")
            return sep.join(
                _pick(lang, question.choices[i].text, question.choices[i].text_zh)
                for i in sorted(question.answer)
            )
        case TrueFalseQuestion():
            if question.answer:
                return _pick(lang, "true", "正确")
            return _pick(lang, "false", "错误")
        case NumericQuestion():
            text = _format_number(question.answer)
            if question.unit and question.unit_zh:
                text += " " + _pick(lang, question.unit, question.unit_zh)
            return text


def _key(question: Question) -> AnswerValue:
    if isinstance(question, MultipleSelectQuestion):
        return sorted(question.answer)
    return question.answer


def check_answer(question: Question, raw_answer: object, lang: Lang = "en") -> AnswerResult:
    """Grade ``raw_answer`` (parsed JSON) and explain the key in ``lang``.

    Raises :class:`AnswerShapeError` when the answer does not fit the question type.
    """
    given = normalise_answer(question, raw_answer)
    correct: bool
    match question:
        case NumericQuestion():
            assert isinstance(given, float)
            correct = question.tolerance.accepts(given, question.answer)
        case _:
            correct = given == _key(question)
    return AnswerResult(
        correct=correct,
        answer=given,
        correct_answer=_key(question),
        correct_answer_text=_answer_text(question, lang),
        explanation=_pick(lang, question.explanation, question.explanation_zh),
        source=question.source,
        references=list(question.references),
    )
