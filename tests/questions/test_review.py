"""Spaced review with a controlled clock: ratings, scheduling, sessions and mastery."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from api.content.questions import TOPICS, QuestionBank
from api.learning.review import (
    AnswerRecord,
    CardStateError,
    ItemRef,
    Rating,
    ScheduledItem,
    VerdictRecord,
    card_due,
    catalogue_items,
    compose_session,
    describe_due,
    due_items,
    new_card,
    rate_exercise,
    rate_question,
    review,
    topic_mastery,
)
from tests.catalog_topics import exercise_topics

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


# --------------------------------------------------------------------------- ratings


def test_rate_question() -> None:
    assert rate_question(False) is Rating.Again
    assert rate_question(True) is Rating.Good


@pytest.mark.parametrize(
    ("verdict", "failures", "rating"),
    [
        ("passed", 0, Rating.Good),
        ("passed", 1, Rating.Hard),
        ("passed", 5, Rating.Hard),
        ("failed", 0, Rating.Again),
        ("error", 2, Rating.Again),
        ("timeout", 0, Rating.Again),
        ("crashed", 0, Rating.Again),
        ("rejected", 0, Rating.Again),
    ],
)
def test_rate_exercise(verdict: str, failures: int, rating: Rating) -> None:
    assert rate_exercise(verdict, failures) is rating


def test_rate_exercise_rejects_negative_failures() -> None:
    with pytest.raises(ValueError, match="previous_failures"):
        rate_exercise("passed", -1)


# --------------------------------------------------------------------------- scheduling


def test_wrong_answer_is_due_again_soon() -> None:
    wrong = review(None, rate_question(False), T0)
    assert T0 < wrong.due <= T0 + timedelta(hours=1)
    # Still inside today's sitting, and certainly in tomorrow's review.
    assert due_items([ScheduledItem("question", "q", wrong.due)], T0 + timedelta(minutes=30))


def test_right_answer_is_due_later_than_a_wrong_one() -> None:
    wrong = review(None, Rating.Again, T0)
    right = review(None, Rating.Good, T0)
    assert right.due > wrong.due
    assert right.due >= T0 + DAY


def test_good_answers_push_the_due_date_further() -> None:
    card, now = None, T0
    intervals = []
    for _ in range(4):
        reviewed = review(card, Rating.Good, now)
        intervals.append(reviewed.due - now)
        card, now = reviewed.card_json, reviewed.due
    assert intervals == sorted(intervals) and intervals[-1] > intervals[0]
    assert intervals[-1] >= 7 * DAY


def test_lapse_brings_a_learned_card_back() -> None:
    learned = review(None, Rating.Good, T0)
    later = review(learned.card_json, Rating.Good, learned.due)
    lapse = review(later.card_json, Rating.Again, later.due)
    assert lapse.due - later.due <= timedelta(hours=1)
    relearned = review(lapse.card_json, Rating.Good, lapse.due)
    # After relearning, the next interval is shorter than it would have been without the lapse.
    unbroken = review(later.card_json, Rating.Good, later.due)
    assert relearned.due - lapse.due < unbroken.due - later.due


def test_hard_is_between_again_and_good() -> None:
    failed = review(None, Rating.Again, T0)
    hard = review(failed.card_json, Rating.Hard, T0 + timedelta(minutes=5))
    good = review(failed.card_json, Rating.Good, T0 + timedelta(minutes=5))
    assert failed.due - T0 <= hard.due - T0 <= good.due - T0


def test_review_is_deterministic() -> None:
    # No fuzz, no hidden clock: same inputs, same outputs.
    first = review(new_card(T0), Rating.Good, T0)
    again = review(new_card(T0), Rating.Good, T0)
    assert first == again
    far = review(first.card_json, Rating.Good, first.due + 3 * DAY)
    assert far == review(first.card_json, Rating.Good, first.due + 3 * DAY)


def test_state_round_trips_through_json() -> None:
    state = review(None, Rating.Good, T0)
    # What the API does: store the text in SQLite, read it back.
    stored = json.dumps(json.loads(state.card_json))
    assert card_due(stored) == state.due
    assert review(stored, Rating.Good, state.due) == review(state.card_json, Rating.Good, state.due)
    assert json.loads(new_card(T0))["due"] == T0.isoformat()


def test_new_card_equals_none() -> None:
    assert review(new_card(T0), Rating.Again, T0) == review(None, Rating.Again, T0)


def test_non_utc_zone_is_converted() -> None:
    tokyo = timezone(timedelta(hours=9))
    local = review(None, Rating.Good, T0.astimezone(tokyo))
    assert local == review(None, Rating.Good, T0)


def test_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        review(None, Rating.Good, datetime(2026, 11, 2, 9, 0))


def test_out_of_order_review_is_refused() -> None:
    state = review(None, Rating.Good, T0)
    with pytest.raises(ValueError, match="predates"):
        review(state.card_json, Rating.Good, T0 - DAY)


@pytest.mark.parametrize("bad", ["", "{}", "not json", '{"card_id": 0}', "[]"])
def test_corrupt_state_is_a_clear_error(bad: str) -> None:
    with pytest.raises(CardStateError):
        review(bad, Rating.Good, T0)


# --------------------------------------------------------------------------- due items, sessions


def test_yesterdays_mistakes_are_in_todays_review() -> None:
    cards = []
    for item, correct in (("q-wrong", False), ("q-right", True), ("q-wrong-2", False)):
        r = review(None, rate_question(correct), T0)
        cards.append(ScheduledItem("question", item, r.due))
    today = T0 + DAY
    due = due_items(cards, today)
    assert {c.item_id for c in due} == {"q-wrong", "q-wrong-2"}


def test_due_items_most_overdue_first() -> None:
    cards = [
        ScheduledItem("question", "b", T0 - timedelta(hours=1)),
        ScheduledItem("exercise", "layer_norm", T0 - 3 * DAY),
        ScheduledItem("question", "a", T0 - timedelta(hours=1)),
        ScheduledItem("question", "future", T0 + timedelta(minutes=1)),
        ScheduledItem("question", "now", T0),
    ]
    assert [c.item_id for c in due_items(cards, T0)] == ["layer_norm", "a", "b", "now"]


def _catalogue() -> list[ItemRef]:
    return [
        ItemRef("question", "ln-1", ("layer_norm",), 1),
        ItemRef("question", "ln-2", ("layer_norm",), 3),
        ItemRef("question", "ln-3", ("layer_norm",), 2),
        ItemRef("exercise", "layer_norm", ("layer_norm",), 2),
        ItemRef("question", "rms-1", ("rms_norm",), 1),
        ItemRef("question", "rms-2", ("rms_norm",), 2),
        ItemRef("question", "ffn-1", ("ffn",), 1),
    ]


def test_session_reviews_then_new_items_from_weakest_topic() -> None:
    cards = [
        ScheduledItem("question", "ffn-1", T0 - 2 * DAY),
        ScheduledItem("question", "rms-1", T0 - DAY),
        ScheduledItem("question", "ln-1", T0 + DAY),  # known but not due
    ]
    mastery = dict.fromkeys(TOPICS, 1.0) | {"layer_norm": 0.1, "rms_norm": 0.5, "ffn": 0.9}
    session = compose_session(
        cards=cards, catalogue=_catalogue(), mastery=mastery, now=T0, max_new=3
    )
    assert [r.item_id for r in session.reviews] == ["ffn-1", "rms-1"]
    # Weakest topic first, easiest first, questions before the exercise of equal difficulty,
    # and never an item the learner already has a card for.
    assert [i.item_id for i in session.new] == ["ln-3", "layer_norm", "ln-2"]
    assert session.focus_topics == ["layer_norm"]


def test_session_fills_from_the_next_weakest_topic() -> None:
    mastery = dict.fromkeys(TOPICS, 1.0) | {"layer_norm": 0.2, "rms_norm": 0.4}
    session = compose_session(cards=[], catalogue=_catalogue(), mastery=mastery, now=T0, max_new=6)
    assert [i.item_id for i in session.new] == [
        "ln-1",
        "ln-3",
        "layer_norm",
        "ln-2",
        "rms-1",
        "rms-2",
    ]
    assert session.focus_topics == ["layer_norm", "rms_norm"]


def test_session_mixes_an_exercise_into_a_topic_full_of_easy_questions() -> None:
    catalogue = [ItemRef("question", f"ln-{i}", ("layer_norm",), 1) for i in range(8)]
    catalogue.append(ItemRef("exercise", "layer_norm", ("layer_norm",), 2))
    mastery = dict.fromkeys(TOPICS, 1.0) | {"layer_norm": 0.0}
    session = compose_session(cards=[], catalogue=catalogue, mastery=mastery, now=T0, max_new=5)
    # Easiest-first alone would give five questions; the fifth place goes to the exercise.
    assert [i.item_id for i in session.new] == ["ln-0", "ln-1", "ln-2", "ln-3", "layer_norm"]
    # Once the exercise has a card, the topic's questions fill the session.
    known = [ScheduledItem("exercise", "layer_norm", T0 + DAY)]
    again = compose_session(cards=known, catalogue=catalogue, mastery=mastery, now=T0, max_new=5)
    assert [i.kind for i in again.new] == ["question"] * 5
    # A single place is not split.
    one = compose_session(cards=[], catalogue=catalogue, mastery=mastery, now=T0, max_new=1)
    assert [i.item_id for i in one.new] == ["ln-0"]


def test_session_mixes_a_question_into_a_topic_of_exercises() -> None:
    catalogue = [ItemRef("exercise", f"ex-{i}", ("ffn",), 1) for i in range(3)]
    catalogue.append(ItemRef("question", "ffn-q", ("ffn",), 3))
    mastery = dict.fromkeys(TOPICS, 1.0) | {"ffn": 0.0}
    session = compose_session(cards=[], catalogue=catalogue, mastery=mastery, now=T0, max_new=2)
    assert [i.item_id for i in session.new] == ["ex-0", "ffn-q"]


def test_session_takes_a_topics_own_exercise_before_one_that_only_touches_it() -> None:
    # "a-block" sorts first by id but counts towards placement only as its second topic.
    catalogue = [
        ItemRef("exercise", "a-block", ("residual", "norm_placement"), 2),
        ItemRef("exercise", "b-block", ("norm_placement",), 2),
        ItemRef("question", "np-1", ("norm_placement",), 1),
    ]
    mastery = dict.fromkeys(TOPICS, 1.0) | {"norm_placement": 0.0}
    session = compose_session(cards=[], catalogue=catalogue, mastery=mastery, now=T0, max_new=2)
    assert [i.item_id for i in session.new] == ["np-1", "b-block"]
    # With room for both, the topic's own exercise still comes first.
    wider = compose_session(cards=[], catalogue=catalogue, mastery=mastery, now=T0, max_new=3)
    assert [i.item_id for i in wider.new] == ["np-1", "b-block", "a-block"]


def test_session_limits() -> None:
    cards = [ScheduledItem("question", f"q{i}", T0 - i * DAY) for i in range(30)]
    session = compose_session(
        cards=cards, catalogue=_catalogue(), mastery={}, now=T0, max_reviews=5, max_new=0
    )
    assert [r.item_id for r in session.reviews] == ["q29", "q28", "q27", "q26", "q25"]
    assert session.new == []
    with pytest.raises(ValueError):
        compose_session(cards=[], catalogue=[], mastery={}, now=T0, max_new=-1)


def test_session_missing_mastery_counts_as_zero() -> None:
    # ffn has no mastery entry, so it is the weakest (ties broken in TOPICS order).
    mastery = dict.fromkeys(TOPICS, 0.5)
    del mastery["ffn"]
    session = compose_session(cards=[], catalogue=_catalogue(), mastery=mastery, now=T0, max_new=1)
    assert [i.item_id for i in session.new] == ["ffn-1"]


def test_catalogue_from_the_bank_and_the_exercise_folders(bank: QuestionBank) -> None:
    topics = exercise_topics()
    items = catalogue_items(bank, topics)
    assert len(items) == len(bank) + len(topics)
    exercises = {i.item_id: i.topics for i in items if i.kind == "exercise"}
    assert exercises == topics
    # An exercise may count towards several topics, its main topic first.
    assert exercises["residual_block"] == ("residual", "norm_placement")


# --------------------------------------------------------------------------- mastery


def test_mastery_formula() -> None:
    catalogue = [
        ItemRef("question", "ln-1", ("layer_norm",)),
        ItemRef("question", "ln-2", ("layer_norm",)),
        ItemRef("exercise", "layer_norm", ("layer_norm",)),
        ItemRef("question", "rms-1", ("rms_norm",)),
    ]
    answers = [
        AnswerRecord("ln-1", False, T0),
        AnswerRecord("ln-1", True, T0 + DAY),  # the latest answer counts
        AnswerRecord("ln-2", True, T0),
        AnswerRecord("ln-2", False, T0 + DAY),
        AnswerRecord("retired-question", True, T0),  # not in the catalogue: ignored
    ]
    verdicts = [
        VerdictRecord("layer_norm", "failed", T0),
        VerdictRecord("layer_norm", "passed", T0 + timedelta(hours=1)),
    ]
    m = topic_mastery(catalogue=catalogue, answers=answers, verdicts=verdicts)
    # (1 [ln-1] + 0 [ln-2] + 3 [exercise]) / (1 + 1 + 3)
    assert m["layer_norm"].mastery == pytest.approx(4 / 5)
    assert (m["layer_norm"].attempted, m["layer_norm"].total) == (3, 3)
    assert m["layer_norm"].latest_correct == 2
    # Never attempted: 0, but the total is known.
    assert m["rms_norm"].mastery == 0.0 and m["rms_norm"].total == 1
    # A topic with no items at all.
    assert m["training"].mastery == 0.0 and m["training"].total == 0
    assert set(m) == set(TOPICS)


def test_mastery_is_coverage_times_accuracy() -> None:
    catalogue = [ItemRef("question", f"q{i}", ("ffn",)) for i in range(4)]
    one_right = topic_mastery(catalogue=catalogue, answers=[AnswerRecord("q0", True, T0)])
    assert one_right["ffn"].mastery == pytest.approx(0.25)


def test_mastery_exercise_counts_in_each_of_its_topics() -> None:
    catalogue = [ItemRef("exercise", "residual_block", ("residual", "norm_placement"))]
    m = topic_mastery(catalogue=catalogue, verdicts=[VerdictRecord("residual_block", "passed", T0)])
    assert m["residual"].mastery == 1.0 and m["norm_placement"].mastery == 1.0


def test_mastery_tie_in_time_counts_as_failure() -> None:
    catalogue = [ItemRef("question", "q", ("ffn",))]
    answers = [AnswerRecord("q", True, T0), AnswerRecord("q", False, T0)]
    assert topic_mastery(catalogue=catalogue, answers=answers)["ffn"].mastery == 0.0
    assert topic_mastery(catalogue=catalogue, answers=answers[::-1])["ffn"].mastery == 0.0


def test_mastery_points_and_per_kind_counts() -> None:
    # The documented example: 13 questions and one exercise, two questions right.
    catalogue = [ItemRef("question", f"q{i}", ("layer_norm",)) for i in range(13)]
    catalogue.append(ItemRef("exercise", "layer_norm", ("layer_norm",)))
    answers = [
        AnswerRecord("q0", True, T0),
        AnswerRecord("q1", True, T0),
        AnswerRecord("q2", False, T0),
    ]
    verdicts = [VerdictRecord("layer_norm", "failed", T0)]
    m = topic_mastery(catalogue=catalogue, answers=answers, verdicts=verdicts)["layer_norm"]
    assert m.mastery == 0.125
    assert (m.points, m.points_possible) == (2.0, 16.0)
    assert (m.questions.total, m.questions.attempted, m.questions.right) == (13, 3, 2)
    assert (m.exercises.total, m.exercises.attempted, m.exercises.right) == (1, 1, 0)
    assert (m.total, m.attempted, m.latest_correct) == (14, 4, 2)
    passed = topic_mastery(
        catalogue=catalogue,
        answers=answers,
        verdicts=[*verdicts, VerdictRecord("layer_norm", "passed", T0 + DAY)],
    )["layer_norm"]
    assert passed.mastery == 5 / 16


def test_mastery_question_totals_match_the_bank(bank: QuestionBank) -> None:
    topics = exercise_topics()
    m = topic_mastery(catalogue=catalogue_items(bank, topics))
    for topic in TOPICS:
        assert m[topic].questions.total == bank.count_by_topic().get(topic, 0)
        assert m[topic].exercises.total == sum(topic in ts for ts in topics.values())


# --------------------------------------------------------------------------- telling when


@pytest.mark.parametrize(
    ("after", "en", "zh"),
    [
        (timedelta(0), "now", "现在"),
        (-timedelta(hours=3), "now", "现在"),
        (timedelta(seconds=1), "in 1 minute", "1 分钟后"),
        (timedelta(minutes=9, seconds=1), "in 10 minutes", "10 分钟后"),
        (timedelta(minutes=10), "in 10 minutes", "10 分钟后"),
        (timedelta(minutes=59), "in 59 minutes", "59 分钟后"),
        (timedelta(minutes=59, seconds=30), "in 1 hour", "1 小时后"),
        (timedelta(hours=1), "in 1 hour", "1 小时后"),
        (timedelta(hours=5, minutes=40), "in 6 hours", "6 小时后"),
        (timedelta(hours=20), "tomorrow", "明天"),
        (timedelta(hours=35), "tomorrow", "明天"),
        (timedelta(hours=36), "in 2 days", "2 天后"),
        (timedelta(days=2), "in 2 days", "2 天后"),
        (timedelta(days=40, hours=13), "in 41 days", "41 天后"),
    ],
)
def test_describe_due(after: timedelta, en: str, zh: str) -> None:
    told = describe_due(T0 + after, T0)
    assert told.text == en
    assert describe_due(T0 + after, T0, "zh").text == zh
    assert told.in_seconds == max(0, round(after.total_seconds()))
    assert told.due == T0 + after


def test_describe_due_after_a_real_review() -> None:
    wrong = review(None, rate_question(False), T0)
    assert describe_due(wrong.due, T0).text == "in 10 minutes"
    right = review(None, rate_question(True), T0)
    assert describe_due(right.due, T0).text == "in 2 days"
    with pytest.raises(ValueError, match="timezone-aware"):
        describe_due(T0.replace(tzinfo=None), T0)
