"""A timed mock interview: which items it asks, how its time runs out, how time was spent.

Pure, like api.learning.review: the caller passes the catalogue, the learner's mastery and
outcomes, the current time and a random generator, so tests drive it with a fixed clock and a
seeded ``Random``.
``api.learning.interview_records`` keeps interviews in the tables and builds the report.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Literal

from api.content.questions import TOPICS, Topic
from api.learning.review import ItemKind, ItemRef

__all__ = [
    "MAX_MINUTES",
    "MINUTES_PER_EXERCISE",
    "MINUTES_PER_QUESTION",
    "PRESETS",
    "InterviewState",
    "ItemResult",
    "Plan",
    "PlannedItem",
    "Preset",
    "compose_interview",
    "compose_round",
    "plan_size",
    "state_at",
    "time_per_item",
    "time_spent",
    "weaker_topics",
]

MAX_MINUTES = 180.0
# What an interviewer budgets: a from-scratch block with its edge cases takes a quarter of an
# hour; a conceptual question, a few minutes of explaining.
MINUTES_PER_EXERCISE = 12.0
MINUTES_PER_QUESTION = 3.0
MIN_QUESTIONS, MAX_QUESTIONS = 3, 12


class InterviewState(StrEnum):
    running = "running"
    finished = "finished"  # the learner ended it
    expired = "expired"  # its time ran out


class ItemResult(StrEnum):
    correct = "correct"
    wrong = "wrong"
    passed = "passed"
    not_passed = "not_passed"
    # Submitted, but the verdict is not in yet (queue mode) or grading itself broke.
    pending = "pending"
    # An explanation given (it is not right or wrong by itself: the learner rates it after).
    answered = "answered"
    not_answered = "not_answered"


def plan_size(minutes: float) -> tuple[int, int]:
    """(coding exercises, questions) for an interview of ``minutes``.

    One exercise below 45 minutes, two from 45; the rest of the time in questions, between 3 and
    12 of them. 30 minutes: 1 exercise and 6 questions; 60: 2 and 12.
    """
    exercises = 2 if minutes >= 45 else 1
    questions = round((minutes - exercises * MINUTES_PER_EXERCISE) / MINUTES_PER_QUESTION)
    return exercises, min(MAX_QUESTIONS, max(MIN_QUESTIONS, questions))


def weaker_topics(
    mastery: Mapping[Topic, float], allowed: Sequence[Topic], rng: random.Random
) -> list[Topic]:
    """The weaker half of ``allowed`` (at least one, all of them when two or fewer), weakest
    first. Ties are broken at random, so a new learner (every topic at 0) does not always meet
    the same topics."""
    ranked = sorted(allowed, key=lambda t: (mastery.get(t, 0.0), rng.random()))
    keep = len(ranked) if len(ranked) <= 2 else math.ceil(len(ranked) / 2)
    return ranked[:keep]


@dataclass(frozen=True)
class Plan:
    items: list[ItemRef]  # questions first (the warm-up), then the coding exercises
    focus_topics: list[Topic]


def compose_interview(
    *,
    catalogue: Sequence[ItemRef],
    mastery: Mapping[Topic, float],
    known_right: Iterable[tuple[ItemKind, str]],
    minutes: float,
    rng: random.Random,
    topics: Sequence[Topic] | None = None,
    sizes: tuple[int, int] | None = None,
) -> Plan:
    """Pick an interview's items from the learner's weaker topics.

    ``known_right`` holds the items whose latest answer was right or latest verdict passed:
    they come last, so an interview asks what the learner has not shown yet. Exercises are
    ranked by the weakest of their topics; questions are dealt round-robin over the weaker
    topics, weakest first, then from the other allowed topics if those run out. When no allowed
    topic has a coding exercise, the interview is questions only.
    """
    allowed = list(dict.fromkeys(topics)) if topics else list(TOPICS)
    focus = weaker_topics(mastery, allowed, rng)
    rank = {t: i for i, t in enumerate(focus)}
    right = set(known_right)
    n_exercises, n_questions = sizes if sizes is not None else plan_size(minutes)

    def order(item: ItemRef) -> tuple[bool, int, float]:
        weakest = min((rank.get(t, len(rank)) for t in item.topics), default=len(rank))
        return ((item.kind, item.item_id) in right, weakest, rng.random())

    usable = [i for i in catalogue if any(t in allowed for t in i.topics)]
    exercises = sorted((i for i in usable if i.kind == "exercise"), key=order)[:n_exercises]

    pools: dict[Topic, list[ItemRef]] = {t: [] for t in allowed}
    for item in sorted((i for i in usable if i.kind == "question"), key=order):
        pools[next(t for t in item.topics if t in allowed)].append(item)
    questions: list[ItemRef] = []
    for group in (focus, [t for t in allowed if t not in rank]):
        while len(questions) < n_questions and any(pools[t] for t in group):
            for topic in group:
                if pools[topic] and len(questions) < n_questions:
                    questions.append(pools[topic].pop(0))
    return Plan(items=questions + exercises, focus_topics=focus)


def state_at(
    now: datetime, *, deadline: datetime, ended_at: datetime | None, state: InterviewState
) -> InterviewState:
    """The state at ``now``: a running interview past its deadline has expired, whether or not
    anyone has written that down yet."""
    if state is InterviewState.running and ended_at is None and now >= deadline:
        return InterviewState.expired
    return state


def time_spent(
    started_at: datetime, attempts: Iterable[tuple[int, datetime]], ended_at: datetime
) -> dict[int, timedelta]:
    """Time per item position, from the (position, time) of every answer and submission.

    Working is taken to be sequential: the time between one recorded attempt (or the start) and
    the next is charged to the item of the next one. Attempts after ``ended_at`` do not count;
    time after the last attempt is nobody's (the report shows it as unused).
    """
    spent: dict[int, timedelta] = {}
    previous = started_at
    for position, at in sorted(attempts, key=lambda a: a[1]):
        if at > ended_at:
            break
        spent[position] = spent.get(position, timedelta()) + max(timedelta(), at - previous)
        previous = max(previous, at)
    return spent


# --------------------------------------------------------------------------- presets and plans

ItemKindInPlan = Literal["question", "exercise", "follow_up", "explain"]


@dataclass(frozen=True)
class Preset:
    """The shape of a real interview loop: how many items of each kind, in what order."""

    name: str
    minutes: float
    warm_up: int  # conceptual questions before the code
    exercises: int
    follow_ups: int  # per exercise, asked right after it
    explain: bool  # "walk me through why it is right and what it costs", after the last one


PRESETS: dict[str, Preset] = {
    "phone_screen": Preset(
        "phone_screen", 20.0, warm_up=0, exercises=1, follow_ups=2, explain=False
    ),
    "onsite": Preset("onsite", 45.0, warm_up=2, exercises=2, follow_ups=2, explain=True),
    "concepts": Preset("concepts", 20.0, warm_up=8, exercises=0, follow_ups=0, explain=False),
}
DEFAULT_PRESET = "onsite"

# Minutes an interviewer allows per item before the whole is scaled to the interview's length:
# a harder block gets longer; a follow-up or a warm-up question is a short spoken answer.
BUDGET_MINUTES: dict[str, float] = {"question": 2.5, "follow_up": 2.5, "explain": 4.0}
EXERCISE_BUDGET_MINUTES: dict[int, float] = {1: 10.0, 2: 13.0, 3: 16.0}


@dataclass(frozen=True)
class PlannedItem:
    kind: ItemKindInPlan
    item_id: str  # question id, or exercise slug (exercise and explain)
    topics: tuple[Topic, ...]
    difficulty: int
    budget_seconds: float
    # follow_up: the exercise it follows (slug), and the interviewer's words for it.
    of: str | None = None
    ask: tuple[str, str] | None = None


def compose_round(
    *,
    preset: Preset,
    catalogue: Sequence[ItemRef],
    mastery: Mapping[Topic, float],
    known_right: Iterable[tuple[ItemKind, str]],
    minutes: float,
    rng: random.Random,
    follow_ups: Mapping[str, Sequence[tuple[str, str, str]]],
    topics: Sequence[Topic] | None = None,
) -> tuple[list[PlannedItem], list[Topic]]:
    """The items of one interview, easy to hard, each with its time budget.

    Warm-up questions come first, easiest first; then each exercise, easier before harder,
    followed at once by up to ``preset.follow_ups`` of its own follow-ups (``follow_ups`` maps a
    slug to (question id, ask, ask_zh), in the file's order, which is the order asked); then the
    explain item on the last (hardest) exercise. Budgets are scaled so they add up to
    ``minutes``. With no exercise in the allowed topics, follow-ups and explain fall away.
    """
    warm_up = preset.warm_up
    if preset.exercises == 0:
        # A concept screen fills its time with questions.
        warm_up = min(
            MAX_QUESTIONS, max(MIN_QUESTIONS, round(minutes / BUDGET_MINUTES["question"]))
        )
    chosen = compose_interview(
        catalogue=catalogue,
        mastery=mastery,
        known_right=known_right,
        minutes=minutes,
        rng=rng,
        topics=topics,
        sizes=(preset.exercises, warm_up),
    )
    questions = sorted(
        (i for i in chosen.items if i.kind == "question"), key=lambda i: i.difficulty
    )
    exercises = sorted(
        (i for i in chosen.items if i.kind == "exercise"), key=lambda i: i.difficulty
    )
    by_id = {i.item_id: i for i in catalogue if i.kind == "question"}
    taken = {q.item_id for q in questions}
    raw: list[tuple[PlannedItem, float]] = [
        (
            PlannedItem("question", q.item_id, q.topics, q.difficulty, 0.0),
            BUDGET_MINUTES["question"],
        )
        for q in questions
    ]
    for ex in exercises:
        budget = EXERCISE_BUDGET_MINUTES.get(ex.difficulty, 13.0)
        raw.append((PlannedItem("exercise", ex.item_id, ex.topics, ex.difficulty, 0.0), budget))
        offered = [f for f in follow_ups.get(ex.item_id, ()) if f[0] in by_id and f[0] not in taken]
        if len(offered) > preset.follow_ups:
            keep = sorted(rng.sample(range(len(offered)), preset.follow_ups))
            offered = [offered[k] for k in keep]
        for qid, ask, ask_zh in offered:
            taken.add(qid)
            ref = by_id[qid]
            item = PlannedItem(
                "follow_up", qid, ref.topics, ref.difficulty, 0.0, of=ex.item_id, ask=(ask, ask_zh)
            )
            raw.append((item, BUDGET_MINUTES["follow_up"]))
    if preset.explain and exercises:
        last = exercises[-1]
        raw.append(
            (
                PlannedItem("explain", last.item_id, last.topics, last.difficulty, 0.0),
                BUDGET_MINUTES["explain"],
            )
        )
    total = sum(b for _, b in raw) or 1.0
    scale = minutes * 60.0 / total
    planned = [
        PlannedItem(p.kind, p.item_id, p.topics, p.difficulty, round(b * scale, 1), p.of, p.ask)
        for p, b in raw
    ]
    return planned, chosen.focus_topics


# What happened on an item at a moment: opened, left, or acted on (an answer or a submission).
Event = tuple[datetime, int, Literal["open", "leave", "act"]]


def time_per_item(
    started_at: datetime, events: Iterable[Event], ended_at: datetime
) -> dict[int, timedelta]:
    """Time per item position, measured from the moments items were opened and left.

    The clock runs for the item that is open: opening another item moves it there, leaving
    stops it. An answer or a submission with no item open charges the time since the previous
    event to its own item (a question answered from the list, without opening it); an action on
    an item other than the open one means the learner moved, and stops the clock. Nothing after
    ``ended_at`` counts, and time while nothing is open is nobody's (the report's unaccounted).
    """
    spent: dict[int, timedelta] = {}
    current: int | None = None
    previous = started_at

    def charge(position: int | None, until: datetime) -> None:
        if position is not None and until > previous:
            spent[position] = spent.get(position, timedelta()) + (until - previous)

    for at, position, what in sorted(events, key=lambda e: e[0]):
        at = min(max(at, previous), ended_at)
        if what == "act":
            charge(current if current is not None else position, at)
            if current is not None and current != position:
                current = None
        else:
            charge(current, at)
            current = position if what == "open" else None
        previous = at
        if at >= ended_at:
            break
    charge(current, ended_at)
    return spent


def open_item(events: Iterable[Event]) -> int | None:
    """The item whose clock runs after these events (``time_per_item``'s rules), if any."""
    current: int | None = None
    for _, position, what in sorted(events, key=lambda e: e[0]):
        if what == "act":
            if current is not None and current != position:
                current = None
        else:
            current = position if what == "open" else None
    return current
