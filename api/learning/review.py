"""Spaced review across questions and coding exercises, on top of FSRS (the ``fsrs`` package).

Every question and every exercise a learner has met is a card. The functions here are pure: the
caller passes the card state (a JSON string it keeps in SQLite), the rating and the current time,
and stores what comes back. Nothing reads the clock or the database, so tests drive it with a
fixed clock and the API layer stays a thin adapter.

Time values must be timezone-aware. SQLite drops the zone, so re-attach UTC
(``dt.replace(tzinfo=UTC)``) when reading a stored datetime back.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal, NamedTuple, TypeAlias

from fsrs import Card, Rating, Scheduler

from api.content.questions import TOPICS, QuestionBank, Topic

__all__ = [
    "EXERCISE_WEIGHT",
    "QUESTION_WEIGHT",
    "AnswerRecord",
    "CardStateError",
    "HelpTaken",
    "ItemKind",
    "ItemRef",
    "KindCounts",
    "NextReview",
    "Rating",
    "Reviewed",
    "ScheduledItem",
    "Session",
    "TopicMastery",
    "VerdictRecord",
    "card_due",
    "catalogue_items",
    "compose_session",
    "describe_due",
    "due_items",
    "new_card",
    "rate_exercise",
    "rate_question",
    "review",
    "topic_mastery",
]

ItemKind: TypeAlias = Literal["question", "exercise"]

# One learning step and one relearning step of ten minutes: a wrong answer comes back within the
# same sitting, a first-try right answer leaves the learning phase at once (about two days out).
# Fuzzing is off because it draws from the global `random` and would make `review` impure; it
# only matters for spreading large decks, and ours holds about a hundred cards.
_SCHEDULER = Scheduler(
    desired_retention=0.9,
    learning_steps=(timedelta(minutes=10),),
    relearning_steps=(timedelta(minutes=10),),
    maximum_interval=365,
    enable_fuzzing=False,
)

# Implementing a block from scratch against a reference shows more than picking an option.
EXERCISE_WEIGHT = 3.0
QUESTION_WEIGHT = 1.0


class CardStateError(ValueError):
    """A stored card state that cannot be read back (corrupt row, foreign format)."""


def _utc(moment: datetime, name: str = "now") -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (got a naive datetime: {moment!r})")
    # fsrs insists on tzinfo being exactly UTC, not merely a zero offset.
    return moment.astimezone(UTC)


# --------------------------------------------------------------------------- ratings


def rate_question(correct: bool) -> Rating:
    """A wrong answer is Again; a right one is Good (a quiz cannot tell Hard from Easy)."""
    return Rating.Good if correct else Rating.Again


HelpTaken: TypeAlias = Literal["none", "hints", "solution"]


def rate_exercise(verdict: str, previous_failures: int, help_taken: HelpTaken = "none") -> Rating:
    """Rate a coding exercise from its verdict.

    ``previous_failures`` counts the learner's non-passing submissions of this exercise since its
    card was last rated Good or Hard. A pass at the first try is Good, a pass after failures is
    Hard, and every other verdict (failed, error, timeout, crashed, rejected) is Again: each of
    them means the learner could not yet produce a correct block.

    ``help_taken`` is the most the learner was shown since that last pass: a pass after hints is
    at best Hard (they needed a nudge), a pass after reading the worked solution is Again (it
    shows the learner can copy the block, not yet write it, so it comes back within the sitting).
    """
    if previous_failures < 0:
        raise ValueError("previous_failures must be >= 0")
    if verdict != "passed" or help_taken == "solution":
        return Rating.Again
    if help_taken == "hints":
        return Rating.Hard
    return Rating.Good if previous_failures == 0 else Rating.Hard


# --------------------------------------------------------------------------- cards


class Reviewed(NamedTuple):
    card_json: str
    due: datetime


def new_card(now: datetime) -> str:
    """The state of a card never reviewed: due at ``now``."""
    # card_id is fixed because fsrs would otherwise read the clock (and sleep 1 ms) to make one;
    # the caller identifies cards by (learner, kind, item id), not by this number.
    return Card(card_id=0, due=_utc(now)).to_json()


def _parse(card_json: str) -> Card:
    try:
        card = Card.from_json(card_json)
    except (ValueError, KeyError, TypeError) as exc:
        raise CardStateError(f"unreadable card state: {exc}") from exc
    if card.due.tzinfo is None:
        raise CardStateError("card state has a naive `due`")
    return card


def card_due(card_json: str) -> datetime:
    """The due time stored in a card state (for a table column the API can index and sort)."""
    return _parse(card_json).due


def last_review(card_json: str) -> datetime | None:
    """When the card was last reviewed (aware UTC), or None for a card never reviewed."""
    return _parse(card_json).last_review


def review(card_json: str | None, rating: Rating, now: datetime) -> Reviewed:
    """Apply one review at ``now``; ``card_json=None`` means the item was never reviewed."""
    now = _utc(now)
    card = _parse(card_json) if card_json is not None else Card(card_id=0, due=now)
    if card.last_review is not None and now < card.last_review:
        # Out-of-order writes would make fsrs compute a negative elapsed time.
        raise ValueError(f"review at {now.isoformat()} predates the last review")
    updated, _log = _SCHEDULER.review_card(card, rating, review_datetime=now)
    return Reviewed(card_json=updated.to_json(), due=updated.due)


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class ItemRef:
    """Something a learner can practise: a question (by id) or a coding exercise (by slug)."""

    kind: ItemKind
    item_id: str
    topics: tuple[Topic, ...]
    difficulty: int = 2


@dataclass(frozen=True)
class ScheduledItem:
    """A card the learner already has, as the API reads it from its table."""

    kind: ItemKind
    item_id: str
    due: datetime


def catalogue_items(
    bank: QuestionBank, exercise_topics: Mapping[str, Sequence[Topic]] | None = None
) -> list[ItemRef]:
    """Every practisable item: the questions of ``bank`` and the coding exercises, each with the
    topics its ``meta.yaml`` declares (main topic first: an exercise may count towards several,
    as residual_block does for the residual and norm placement)."""
    items = [ItemRef("question", q.id, (q.topic,), q.difficulty) for q in bank]
    for slug, topics in (exercise_topics or {}).items():
        items.append(ItemRef("exercise", slug, tuple(topics)))
    return items


def due_items(cards: Iterable[ScheduledItem], now: datetime) -> list[ScheduledItem]:
    """Cards due at ``now``, most overdue first (ties by kind and id, so the order is stable)."""
    now = _utc(now)
    due = [c for c in cards if _utc(c.due, "due") <= now]
    return sorted(due, key=lambda c: (_utc(c.due, "due"), c.kind, c.item_id))


@dataclass(frozen=True)
class Session:
    reviews: list[ScheduledItem]
    new: list[ItemRef]
    # The topics new items were drawn from, weakest first.
    focus_topics: list[Topic] = field(default_factory=list)


def compose_session(
    *,
    cards: Sequence[ScheduledItem],
    catalogue: Sequence[ItemRef],
    mastery: Mapping[Topic, float],
    now: datetime,
    max_reviews: int = 20,
    max_new: int = 5,
) -> Session:
    """A daily practice set: due reviews (most overdue first), then new items.

    New items are items of ``catalogue`` the learner has no card for, taken from the weakest
    topic (lowest ``mastery``; a topic missing from ``mastery`` counts as 0; ties in ``TOPICS``
    order). When that topic runs out, the next weakest topic fills the remaining places. Within a
    topic, easier items come first, exercises after questions of the same difficulty, and an
    item whose main topic this is before one that only touches it (residual_block counts towards
    norm placement too, but the norm-placement session starts with norm_block).
    """
    if max_reviews < 0 or max_new < 0:
        raise ValueError("max_reviews and max_new must be >= 0")
    reviews = due_items(cards, now)[:max_reviews]

    known = {(c.kind, c.item_id) for c in cards}
    fresh = [item for item in catalogue if (item.kind, item.item_id) not in known]
    order = {t: i for i, t in enumerate(TOPICS)}
    weakest = sorted(TOPICS, key=lambda t: (mastery.get(t, 0.0), order[t]))

    picked: list[ItemRef] = []
    focus: list[Topic] = []
    taken: set[tuple[ItemKind, str]] = set()
    for topic in weakest:
        if len(picked) >= max_new:
            break
        candidates = sorted(
            (i for i in fresh if topic in i.topics and (i.kind, i.item_id) not in taken),
            key=lambda i: (i.difficulty, i.kind == "exercise", i.topics[0] != topic, i.item_id),
        )
        for item in _mixed(candidates, max_new - len(picked)):
            picked.append(item)
            taken.add((item.kind, item.item_id))
        if candidates:
            focus.append(topic)
    return Session(reviews=reviews, new=picked, focus_topics=focus)


def _mixed(candidates: Sequence[ItemRef], places: int) -> list[ItemRef]:
    """The first ``places`` candidates, but with both kinds when the topic offers both.

    A topic holds a dozen easy questions and one exercise, so easiest-first alone would never
    reach the exercise in a five-item session: the last question place goes to the exercise
    instead (and to a question, in the rare topic with more exercises than places).
    """
    chosen = list(candidates[:places])
    if places < 2:
        return chosen
    for kind in ("exercise", "question"):
        if any(i.kind == kind for i in chosen):
            continue
        first = next((i for i in candidates if i.kind == kind), None)
        if first is None:
            continue
        # Replace the last item of the over-represented kind; keep the easiest-first order.
        last = max(j for j, i in enumerate(chosen) if i.kind != kind)
        chosen[last] = first
        chosen.sort(key=candidates.index)
    return chosen


# --------------------------------------------------------------------------- mastery


@dataclass(frozen=True)
class AnswerRecord:
    question_id: str
    correct: bool
    at: datetime


@dataclass(frozen=True)
class VerdictRecord:
    exercise_slug: str
    verdict: str
    at: datetime


@dataclass(frozen=True)
class KindCounts:
    """One kind of item (questions, or exercises) within a topic."""

    total: int = 0  # items of this kind in the catalogue for the topic
    attempted: int = 0  # with at least one answer / verdict
    right: int = 0  # attempted, and the latest answer right / latest verdict passed


@dataclass(frozen=True)
class TopicMastery:
    mastery: float  # 0..1, see topic_mastery
    attempted: int  # items of the topic with at least one answer or verdict
    total: int  # items of the topic in the catalogue (questions and exercises)
    latest_correct: int  # attempted items whose latest outcome is right / passed
    # The same counts per kind: `questions.total` is what GET /questions?topic= lists.
    questions: KindCounts = field(default_factory=KindCounts)
    exercises: KindCounts = field(default_factory=KindCounts)
    # mastery = points / points_possible (weights: question 1, exercise 3).
    points: float = 0.0
    points_possible: float = 0.0


def topic_mastery(
    *,
    catalogue: Sequence[ItemRef],
    answers: Iterable[AnswerRecord] = (),
    verdicts: Iterable[VerdictRecord] = (),
) -> dict[Topic, TopicMastery]:
    """Mastery per topic, combining question answers and exercise verdicts.

    For each item only the latest outcome counts (1 if the latest answer was right or the latest
    verdict ``passed``, else 0): what a learner knows now, not what they got wrong last month.
    Then, for a topic T with catalogue items I(T) and weights w (exercise 3, question 1):

        mastery(T) = sum_{i in I(T), attempted} w_i * latest_i  /  sum_{i in I(T)} w_i

    Items never attempted count as 0, so mastery measures coverage as well as accuracy: a topic is
    mastered when every question in it is answered right and every exercise in it passes. An
    exercise that covers two topics counts fully in both. Records for items not in ``catalogue``
    (a retired question, say) are ignored. A topic with no items has mastery 0.

    Example: a topic of 13 questions and 1 exercise is worth 13 + 3 = 16 points; two questions
    whose latest answer is right and nothing else give 2 / 16 = 0.125. Passing the exercise as
    well gives 5 / 16 = 0.3125.
    """
    latest: dict[tuple[ItemKind, str], tuple[datetime, bool]] = {}

    def note(key: tuple[ItemKind, str], at: datetime, ok: bool) -> None:
        at = _utc(at, "at")
        previous = latest.get(key)
        # On a tie in time, a failure wins: it is the cautious reading of an ambiguous history.
        if previous is None or at > previous[0] or (at == previous[0] and not ok):
            latest[key] = (at, ok)

    for a in answers:
        note(("question", a.question_id), a.at, a.correct)
    for v in verdicts:
        note(("exercise", v.exercise_slug), v.at, v.verdict == "passed")

    weight_total: dict[Topic, float] = dict.fromkeys(TOPICS, 0.0)
    weight_right: dict[Topic, float] = dict.fromkeys(TOPICS, 0.0)
    # counts[topic][kind] = [total, attempted, right]
    counts: dict[Topic, dict[ItemKind, list[int]]] = {
        t: {"question": [0, 0, 0], "exercise": [0, 0, 0]} for t in TOPICS
    }
    for item in catalogue:
        weight = EXERCISE_WEIGHT if item.kind == "exercise" else QUESTION_WEIGHT
        outcome = latest.get((item.kind, item.item_id))
        for topic in item.topics:
            tally = counts[topic][item.kind]
            tally[0] += 1
            weight_total[topic] += weight
            if outcome is not None:
                tally[1] += 1
                if outcome[1]:
                    tally[2] += 1
                    weight_right[topic] += weight
    result: dict[Topic, TopicMastery] = {}
    for t in TOPICS:
        q = KindCounts(*counts[t]["question"])
        e = KindCounts(*counts[t]["exercise"])
        result[t] = TopicMastery(
            mastery=weight_right[t] / weight_total[t] if weight_total[t] else 0.0,
            attempted=q.attempted + e.attempted,
            total=q.total + e.total,
            latest_correct=q.right + e.right,
            questions=q,
            exercises=e,
            points=weight_right[t],
            points_possible=weight_total[t],
        )
    return result


# --------------------------------------------------------------------------- telling when


class NextReview(NamedTuple):
    due: datetime
    in_seconds: int
    text: str  # "in 10 minutes", "tomorrow", "in 3 days" (or the Chinese)


def describe_due(due: datetime, now: datetime, lang: Literal["en", "zh"] = "en") -> NextReview:
    """When an item comes back, in words a learner reads at a glance.

    Under an hour: minutes (rounded up, so a ten-minute step never reads "in 9 minutes"); under
    20 hours: hours; 20 to 36 hours: "tomorrow"; beyond: days, rounded. The service runs in UTC
    and does not know the learner's calendar, so "tomorrow" means "about a day from now".
    """
    seconds = (_utc(due, "due") - _utc(now)).total_seconds()
    zh = lang == "zh"
    if seconds <= 0:
        text = "现在" if zh else "now"
    elif (minutes := math.ceil(seconds / 60)) < 60:
        text = f"{minutes} 分钟后" if zh else _plural(minutes, "minute")
    elif seconds < 20 * 3600:
        hours = round(seconds / 3600)
        text = f"{hours} 小时后" if zh else _plural(hours, "hour")
    elif seconds < 36 * 3600:
        text = "明天" if zh else "tomorrow"
    else:
        days = round(seconds / 86400)
        text = f"{days} 天后" if zh else _plural(days, "day")
    return NextReview(due=_utc(due, "due"), in_seconds=max(0, round(seconds)), text=text)


def _plural(n: int, unit: str) -> str:
    return f"in {n} {unit}" + ("" if n == 1 else "s")
