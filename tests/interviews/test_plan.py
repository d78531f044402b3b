"""The pure core of a mock interview with a fixed clock and a seeded random generator."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from api.content.questions import TOPICS, QuestionBank, Topic
from api.learning.interviews import (
    InterviewState,
    compose_interview,
    plan_size,
    state_at,
    time_spent,
    weaker_topics,
)
from api.learning.review import ItemRef, catalogue_items

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


@pytest.mark.parametrize(
    ("minutes", "size"),
    [(0.05, (1, 3)), (10, (1, 3)), (30, (1, 6)), (44, (1, 11)), (45, (2, 7)), (60, (2, 12))],
)
def test_plan_size(minutes: float, size: tuple[int, int]) -> None:
    assert plan_size(minutes) == size
    assert plan_size(180) == (2, 12)


def test_weaker_topics_keep_the_weaker_half_weakest_first() -> None:
    mastery = dict.fromkeys(TOPICS, 0.9) | {"ffn": 0.1, "rms_norm": 0.0, "residual": 0.5}
    focus = weaker_topics(mastery, TOPICS, random.Random(1))
    # The weaker half of the topics: the three weak ones first, then ties drawn at random.
    assert len(focus) == len(TOPICS) // 2
    assert focus[:3] == ["rms_norm", "ffn", "residual"]
    assert not set(focus[3:]) & {"rms_norm", "ffn", "residual"}
    # Two topics or fewer: both, weakest first.
    assert weaker_topics(mastery, ["layer_norm", "ffn"], random.Random(1)) == ["ffn", "layer_norm"]


def test_ties_between_new_topics_vary_with_the_seed() -> None:
    firsts = {weaker_topics({}, TOPICS, random.Random(seed))[0] for seed in range(40)}
    assert len(firsts) > 3


# A fixed catalogue of four exercises, so the composition below is exact: the plan's logic is
# under test here, not the current catalogue (which grows).
PLAN_EXERCISES: dict[str, tuple[Topic, ...]] = {
    "layer_norm": ("layer_norm",),
    "rms_norm": ("rms_norm",),
    "swiglu_ffn": ("ffn", "activations"),
    "residual_block": ("residual", "norm_placement"),
}


def _bank_catalogue(bank: QuestionBank) -> list[ItemRef]:
    return catalogue_items(bank, PLAN_EXERCISES)


def test_a_thirty_minute_interview_from_the_weaker_topics(bank: QuestionBank) -> None:
    mastery = dict.fromkeys(TOPICS, 0.8) | {"rms_norm": 0.0, "layer_norm": 0.1}
    for seed in range(20):
        plan = compose_interview(
            catalogue=_bank_catalogue(bank),
            mastery=mastery,
            known_right=[],
            minutes=30,
            rng=random.Random(seed),
        )
        kinds = [i.kind for i in plan.items]
        assert kinds == ["question"] * 6 + ["exercise"]
        assert plan.focus_topics[:2] == ["rms_norm", "layer_norm"]
        # The coding exercise is the weakest topic's; questions alternate over the weaker half.
        assert plan.items[-1].item_id == "rms_norm"
        topics = [i.topics[0] for i in plan.items[:6]]
        assert topics[:2] == ["rms_norm", "layer_norm"]
        assert set(topics) <= set(plan.focus_topics)
        assert len({i.item_id for i in plan.items}) == 7


def test_items_already_shown_come_last(bank: QuestionBank) -> None:
    rms_questions = [q.id for q in bank.select(topic="rms_norm")]
    known = [("question", q) for q in rms_questions[:-3]] + [("exercise", "rms_norm")]
    plan = compose_interview(
        catalogue=_bank_catalogue(bank),
        mastery={},
        known_right=known,  # type: ignore[arg-type]
        minutes=45,
        rng=random.Random(0),
        topics=["rms_norm"],
    )
    questions = [i.item_id for i in plan.items if i.kind == "question"]
    # The three not yet answered right come first.
    assert set(questions[:3]) == set(rms_questions[-3:])
    assert len(questions) == 7
    # Only one exercise covers rms_norm, even in a 45-minute interview.
    assert [i.item_id for i in plan.items if i.kind == "exercise"] == ["rms_norm"]


def test_topics_without_an_exercise_give_a_questions_only_interview(bank: QuestionBank) -> None:
    plan = compose_interview(
        catalogue=_bank_catalogue(bank),
        mastery={},
        known_right=[],
        minutes=60,
        rng=random.Random(3),
        topics=["batch_norm", "training", "batch_norm"],
    )
    assert {i.kind for i in plan.items} == {"question"}
    assert len(plan.items) == 12
    assert {i.topics[0] for i in plan.items} == {"batch_norm", "training"}


def test_a_topic_running_out_is_filled_from_the_others() -> None:
    catalogue = [ItemRef("question", "a1", ("ffn",)), ItemRef("question", "b1", ("training",))]
    catalogue += [ItemRef("question", f"c{i}", ("residual",)) for i in range(5)]
    mastery = dict.fromkeys(TOPICS, 1.0) | {"ffn": 0.0, "training": 0.1}
    plan = compose_interview(
        catalogue=catalogue,
        mastery=mastery,
        known_right=[],
        minutes=30,
        rng=random.Random(0),
        topics=["ffn", "training", "residual", "layer_norm"],
    )
    ids = [i.item_id for i in plan.items]
    assert ids[:2] == ["a1", "b1"] and len(ids) == 6
    assert all(i.startswith("c") for i in ids[2:])


def test_state_at() -> None:
    deadline = T0 + 30 * MIN
    running = InterviewState.running
    assert state_at(T0, deadline=deadline, ended_at=None, state=running) is running
    assert state_at(deadline, deadline=deadline, ended_at=None, state=running) is (
        InterviewState.expired
    )
    finished = InterviewState.finished
    assert state_at(deadline, deadline=deadline, ended_at=T0, state=finished) is finished


def test_time_spent_charges_each_gap_to_the_next_attempt() -> None:
    attempts = [(2, T0 + 3 * MIN), (1, T0 + 5 * MIN), (3, T0 + 20 * MIN), (3, T0 + 22 * MIN)]
    spent = time_spent(T0, reversed(attempts), T0 + 30 * MIN)
    assert spent == {2: 3 * MIN, 1: 2 * MIN, 3: 17 * MIN}
    # Attempts after the end do not count.
    assert time_spent(T0, attempts, T0 + 4 * MIN) == {2: 3 * MIN}
    assert time_spent(T0, [], T0 + MIN) == {}
