"""A timed mock interview: which items it asks, how its time runs out, how time was spent.

Pure, like api.review: the caller passes the catalogue, the learner's mastery and outcomes, the
current time and a random generator, so tests drive it with a fixed clock and a seeded ``Random``.
``api.interview_records`` keeps interviews in the tables and builds the report.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from api.questions import TOPICS, Topic
from api.review import ItemKind, ItemRef

__all__ = [
    "MAX_MINUTES",
    "MINUTES_PER_EXERCISE",
    "MINUTES_PER_QUESTION",
    "InterviewState",
    "ItemResult",
    "Plan",
    "compose_interview",
    "plan_size",
    "state_at",
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
    n_exercises, n_questions = plan_size(minutes)

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
