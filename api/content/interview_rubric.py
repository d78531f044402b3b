"""How an interviewer scores a mock interview: the explain item's rubric, the four scores with
the evidence behind each, and the overall recommendation (the model answers are content, in
exercises/<slug>/model_answer.yaml).

Pure: the caller (api.learning.interview_records) gathers the facts of one interview into ``Facts``;
everything here is arithmetic and words, in English and Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from api.content.catalog import EXPLAIN_POINTS as CATALOG_POINTS

Lang = Literal["en", "zh"]

# The points an explanation of a Transformer block should cover, asked of every explain item;
# each exercise's model answer covers them in its own terms (exercises/<slug>/model_answer.yaml).
EXPLAIN_POINTS: tuple[str, ...] = CATALOG_POINTS
POINT_NAMES: dict[str, tuple[str, str]] = {
    "shapes": ("Shapes", "张量形状"),
    "numerical_stability": ("Numerical stability", "数值稳定性"),
    "cost": ("Cost", "计算与内存开销"),
    "training_vs_inference": ("Training vs inference", "训练与推理的区别"),
}
# A self-rating per point: 0 missed it, 1 touched on it, 2 covered it as the model answer does.
SELF_MAX = 2


def point_name(point: str, lang: Lang) -> str:
    names = POINT_NAMES.get(point, (point, point))
    return names[1 if lang == "zh" else 0]


# --------------------------------------------------------------------------- scoring

Dimension = Literal["correctness", "edge_cases_numerics", "cost", "communication"]
DIMENSIONS: tuple[Dimension, ...] = ("correctness", "edge_cases_numerics", "cost", "communication")
DIMENSION_NAMES: dict[str, tuple[str, str]] = {
    "correctness": ("Correctness", "正确性"),
    "edge_cases_numerics": ("Edge cases and numerics", "边界情况与数值"),
    "cost": ("Cost", "开销"),
    "communication": ("Communication", "表达沟通"),
}
MAX_SCORE = 4
Recommendation = Literal["hire", "lean_hire", "lean_no", "no"]
RECOMMENDATION_NAMES: dict[str, tuple[str, str]] = {
    "hire": ("Hire", "录用"),
    "lean_hire": ("Lean hire", "倾向录用"),
    "lean_no": ("Lean no", "倾向不录用"),
    "no": ("No", "不录用"),
}


@dataclass(frozen=True)
class ExerciseFact:
    slug: str
    result: str  # passed | not_passed | pending | not_answered
    attempts: int
    max_attempts: int
    cases_passed: int
    cases_total: int
    mistake: str | None  # the diagnosis' name, when the grader named one
    seconds: float
    budget_seconds: float


@dataclass(frozen=True)
class AnswerFact:
    kind: str  # question | follow_up
    item_id: str
    result: str  # correct | wrong | not_answered


@dataclass(frozen=True)
class Facts:
    exercises: list[ExerciseFact]
    answers: list[AnswerFact]
    explained: bool  # the explain item was answered
    explain_words: int
    self_rating: dict[str, int] | None  # point -> 0..SELF_MAX, once the learner rated
    has_explain: bool = False
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Scored:
    dimension: Dimension
    score: int | None  # None: nothing in this interview to judge it by
    evidence: list[str]


# Scripts written without spaces between words: each character is counted as one word (a
# Chinese word is one to three characters; a character is what a Chinese reader counts, 字数).
_UNSPACED = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f]"
)
# Punctuation (CJK and ASCII) is no word, standing alone or not.
_PUNCTUATION = re.compile(
    r"[\s\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
    r"!-/:-@\[-`{-~]+"
)


def explanation_words(text: str) -> int:
    """How long an explanation is, in words: runs of letters and digits between spaces and
    punctuation, and every Chinese (Japanese, Korean) character on its own, so "LayerNorm 的
    方差用有偏估计" is 1 + 8 and a Chinese answer is not one "word" for want of spaces."""
    count = len(_UNSPACED.findall(text))
    rest = _UNSPACED.sub(" ", text)
    return count + sum(1 for run in _PUNCTUATION.split(rest) if run)


def _t(en: str, zh: str, lang: Lang) -> str:
    return zh if lang == "zh" else en


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f}"


def _correctness(f: Facts, lang: Lang) -> Scored:
    ev: list[str] = []
    points: list[float] = []
    for e in f.exercises:
        if e.result == "passed":
            # A pass on the first try is full marks; each resubmission costs a little.
            points.append(max(0.5, 1.0 - 0.25 * (e.attempts - 1)))
            ev.append(
                _t(
                    f"{e.slug}: passed on attempt {e.attempts} of {e.max_attempts}",
                    f"{e.slug}：第 {e.attempts} 次提交（共 {e.max_attempts} 次机会）通过",
                    lang,
                )
            )
        elif e.result == "not_answered":
            points.append(0.0)
            ev.append(_t(f"{e.slug}: no submission", f"{e.slug}：没有提交", lang))
        else:
            points.append(0.0)
            ev.append(
                _t(
                    f"{e.slug}: not passed after {e.attempts} of {e.max_attempts} attempts",
                    f"{e.slug}：提交 {e.attempts} 次（共 {e.max_attempts} 次机会）仍未通过",
                    lang,
                )
            )
    questions = [a for a in f.answers if a.kind == "question"]
    if questions:
        right = sum(a.result == "correct" for a in questions)
        # Beside code, the warm-up questions weigh half an exercise together; alone, in full.
        points.append(right / len(questions) * (0.5 if f.exercises else 1.0))
        ev.append(
            _t(
                f"warm-up questions: {right} of {len(questions)} right",
                f"热身题：{len(questions)} 道答对 {right} 道",
                lang,
            )
        )
    if not points:
        return Scored("correctness", None, ev)
    weight = len(f.exercises) + (0.5 if f.exercises and questions else 0.0) or 1.0
    return Scored("correctness", round(MAX_SCORE * min(1.0, sum(points) / weight)), ev)


def _edge_cases(f: Facts, lang: Lang) -> Scored:
    ev: list[str] = []
    graded = [e for e in f.exercises if e.cases_total > 0]
    for e in graded:
        ev.append(
            _t(
                f"{e.slug}: {e.cases_passed} of {e.cases_total} drawn cases passed "
                "(shapes, dtypes, large offsets, tiny scales, gradients)",
                f"{e.slug}：随机抽取的 {e.cases_total} 个用例通过 {e.cases_passed} 个"
                "（形状、dtype、大偏移、小尺度、梯度）",
                lang,
            )
        )
        if e.mistake:
            ev.append(
                _t(
                    f"{e.slug}: the grader named the mistake {e.mistake}",
                    f"{e.slug}：评测指出的错误是 {e.mistake}",
                    lang,
                )
            )
    rated = f.self_rating.get("numerical_stability") if f.self_rating else None
    if rated is not None:
        ev.append(
            _t(
                f"self-rating on numerical stability: {rated} of {SELF_MAX}",
                f"数值稳定性自评：{rated} / {SELF_MAX}",
                lang,
            )
        )
    if not graded:
        return Scored("edge_cases_numerics", None, ev)
    share = sum(e.cases_passed / e.cases_total for e in graded) / len(graded)
    score = MAX_SCORE * share
    if rated is not None:
        score = 0.75 * score + 0.25 * MAX_SCORE * rated / SELF_MAX
    return Scored("edge_cases_numerics", round(score), ev)


def _cost(f: Facts, lang: Lang) -> Scored:
    ev: list[str] = []
    parts: list[float] = []
    for e in f.exercises:
        if e.result == "not_answered" or e.budget_seconds <= 0:
            continue
        ratio = e.seconds / e.budget_seconds
        ev.append(
            _t(
                f"{e.slug}: {_minutes(e.seconds)} min against a budget of "
                f"{_minutes(e.budget_seconds)} min",
                f"{e.slug}：用时 {_minutes(e.seconds)} 分钟，"
                f"预算 {_minutes(e.budget_seconds)} 分钟",
                lang,
            )
        )
        parts.append(1.0 if ratio <= 1.0 else max(0.0, 1.0 - (ratio - 1.0)))
    rated = f.self_rating.get("cost") if f.self_rating else None
    if rated is not None:
        ev.append(
            _t(
                f"self-rating on cost: {rated} of {SELF_MAX}",
                f"开销自评：{rated} / {SELF_MAX}",
                lang,
            )
        )
        parts.append(rated / SELF_MAX)
    elif f.has_explain:
        ev.append(_t("the explanation's cost was not rated", "尚未对讲解中的开销部分自评", lang))
    if not parts:
        return Scored("cost", None, ev)
    return Scored("cost", round(MAX_SCORE * sum(parts) / len(parts)), ev)


def _communication(f: Facts, lang: Lang) -> Scored:
    ev: list[str] = []
    parts: list[float] = []
    follow = [a for a in f.answers if a.kind == "follow_up"]
    if follow:
        right = sum(a.result == "correct" for a in follow)
        ev.append(
            _t(
                f"follow-up questions: {right} of {len(follow)} right",
                f"追问：{len(follow)} 道答对 {right} 道",
                lang,
            )
        )
        parts.append(right / len(follow))
    if f.has_explain:
        if f.explained:
            ev.append(
                _t(
                    f"explained the code in {f.explain_words} words",
                    f"讲解代码用了 {f.explain_words} 个字词",
                    lang,
                )
            )
        else:
            ev.append(_t("did not explain the code", "没有讲解代码", lang))
            parts.append(0.0)
        if f.self_rating:
            total = sum(f.self_rating.get(p, 0) for p in EXPLAIN_POINTS)
            ev.append(
                _t(
                    f"self-rating against the model answer: {total} of "
                    f"{SELF_MAX * len(EXPLAIN_POINTS)}",
                    f"对照参考答案自评：{total} / {SELF_MAX * len(EXPLAIN_POINTS)}",
                    lang,
                )
            )
            if f.explained:
                parts.append(total / (SELF_MAX * len(EXPLAIN_POINTS)))
    if not parts:
        return Scored("communication", None, ev)
    return Scored("communication", round(MAX_SCORE * sum(parts) / len(parts)), ev)


def score(f: Facts, lang: Lang) -> list[Scored]:
    return [_correctness(f, lang), _edge_cases(f, lang), _cost(f, lang), _communication(f, lang)]


# The recommendation follows a stated rule, checked from the top; the first band whose every
# condition holds is the verdict (docs/interviews.md, "The recommendation"). A "miss" is a
# warm-up or follow-up question answered wrong or left unanswered.
#
#   hire       every exercise passed, none after more than HIRE_MAX_ATTEMPTS submissions; at most
#              HIRE_MAX_MISSES miss; the explain item written (when there is one); no scored
#              dimension below HIRE_FLOOR.
#   lean hire  every exercise passed; at least LEAN_HIRE_RIGHT of the questions right; no scored
#              dimension below LEAN_HIRE_FLOOR.
#   lean no    at least one exercise passed (a concept-only screen: at least LEAN_NO_RIGHT of
#              the questions right).
#   no         anything less.
HIRE_MAX_ATTEMPTS = 2
HIRE_MAX_MISSES = 1
HIRE_FLOOR = 3
LEAN_HIRE_RIGHT = 2 / 3
LEAN_HIRE_FLOOR = 2
LEAN_NO_RIGHT = 1 / 2
BANDS: tuple[Recommendation, ...] = ("hire", "lean_hire", "lean_no", "no")


@dataclass(frozen=True)
class _Check:
    met: bool
    en: str
    zh: str


def _band_checks(f: Facts, scored: list[Scored], lang: Lang) -> dict[str, list[_Check]]:
    names = {d: DIMENSION_NAMES[d][1 if lang == "zh" else 0] for d in DIMENSIONS}
    passed = [e for e in f.exercises if e.result == "passed"]
    failed = [e.slug for e in f.exercises if e.result != "passed"]
    all_passed = _Check(
        not failed,
        f"every exercise passed ({len(passed)} of {len(f.exercises)})"
        if not failed
        else f"not passed: {', '.join(failed)}",
        f"每道编程题都通过了（{len(passed)} / {len(f.exercises)}）"
        if not failed
        else f"未通过：{'、'.join(failed)}",
    )
    retried = [f"{e.slug} ({e.attempts})" for e in passed if e.attempts > HIRE_MAX_ATTEMPTS]
    few_attempts = _Check(
        not retried,
        f"every pass within {HIRE_MAX_ATTEMPTS} submissions"
        if not retried
        else f"passed only after more than {HIRE_MAX_ATTEMPTS} submissions: {', '.join(retried)}",
        f"每道题都在 {HIRE_MAX_ATTEMPTS} 次提交内通过"
        if not retried
        else f"超过 {HIRE_MAX_ATTEMPTS} 次提交才通过：{'、'.join(retried)}",
    )
    total = len(f.answers)
    right = sum(a.result == "correct" for a in f.answers)
    misses = total - right
    share = right / total if total else 1.0
    if not total:
        none = ("no questions in this interview", "本场面试没有问答题")
        few_misses = mostly_right = _Check(True, *none)
    else:
        few_misses = _Check(
            misses <= HIRE_MAX_MISSES,
            f"{misses} of {total} questions missed (at most {HIRE_MAX_MISSES} for hire)",
            f"{total} 道问答题错或未答 {misses} 道（录用最多允许 {HIRE_MAX_MISSES} 道）",
        )
        mostly_right = _Check(
            share >= LEAN_HIRE_RIGHT - 1e-9,
            f"{right} of {total} questions right (lean hire needs two thirds)",
            f"{total} 道问答题答对 {right} 道（倾向录用要求至少三分之二）",
        )
    half_right = _Check(
        total > 0 and share >= LEAN_NO_RIGHT,
        f"{right} of {total} questions right (lean no needs half)",
        f"{total} 道问答题答对 {right} 道（倾向不录用要求至少一半）",
    )
    explained = _Check(
        f.explained or not f.has_explain,
        "the code was explained" if f.explained else "the explain item was not written",
        "讲解了代码" if f.explained else "没有完成讲解题",
    )
    judged = [s for s in scored if s.score is not None]
    low = min(judged, key=lambda s: s.score or 0) if judged else None
    low_text = (
        (
            f"lowest dimension: {names[low.dimension]} {low.score} of {MAX_SCORE}",
            f"最低维度：{names[low.dimension]} {low.score} / {MAX_SCORE}",
        )
        if low
        else ("no dimension scored", "没有可评分的维度")
    )

    def floor(n: int) -> _Check:
        ok = low is None or (low.score or 0) >= n
        return _Check(ok, f"{low_text[0]} (needs {n})", f"{low_text[1]}（要求至少 {n}）")

    some_pass = _Check(
        bool(passed),
        f"{len(passed)} of {len(f.exercises)} exercises passed",
        f"{len(f.exercises)} 道编程题通过 {len(passed)} 道",
    )
    with_code = bool(f.exercises)
    hire = [all_passed, few_attempts] if with_code else []
    hire += [few_misses] + ([explained] if f.has_explain else []) + [floor(HIRE_FLOOR)]
    lean_hire = ([all_passed] if with_code else []) + [mostly_right, floor(LEAN_HIRE_FLOOR)]
    return {
        "hire": hire,
        "lean_hire": lean_hire,
        "lean_no": [some_pass if with_code else half_right],
    }


def recommend(f: Facts, scored: list[Scored], lang: Lang) -> tuple[Recommendation, list[str]]:
    """Hire / lean hire / lean no / no by the rule above, with the reasons a panel would write
    down: what the verdict's band asked for and was met, then what kept the band above it."""
    answered = (
        f.explained
        or any(e.result != "not_answered" for e in f.exercises)
        or any(a.result != "not_answered" for a in f.answers)
    )
    if not answered:
        return "no", [_t("nothing was answered", "没有任何作答", lang)]
    checks = _band_checks(f, scored, lang)
    verdict: Recommendation = next((b for b in BANDS[:-1] if all(c.met for c in checks[b])), "no")

    def say(c: _Check) -> str:
        return c.zh if lang == "zh" else c.en

    reasons: list[str] = []
    if verdict != "no":
        reasons += [say(c) for c in checks[verdict]]
    above = BANDS.index(verdict) - 1
    if above >= 0:
        name = RECOMMENDATION_NAMES[BANDS[above]][1 if lang == "zh" else 0]
        short = [say(c) for c in checks[BANDS[above]] if not c.met]
        reasons += [_t(f"short of {name}: {r}", f"未达到“{name}”：{r}", lang) for r in short]
    return verdict, reasons


def self_rating_grade(rating: dict[str, int]) -> int:
    """The self-rating as an FSRS grade for the explained exercise: 1 Again .. 4 Easy."""
    total = sum(rating.get(p, 0) for p in EXPLAIN_POINTS)
    share = total / (SELF_MAX * len(EXPLAIN_POINTS))
    if share < 0.25:
        return 1
    if share < 0.6:
        return 2
    if share < 0.9:
        return 3
    return 4
