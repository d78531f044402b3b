"""The pure core of an interview round: presets ramp easy to hard with budgets that add up, and
the clock per item follows the items opened and left, whatever the order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from api.learning.interviews import PRESETS, compose_round, time_per_item
from api.learning.review import ItemRef

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


CATALOGUE = [
    ItemRef("exercise", "hard_one", ("layer_norm",), 3),
    ItemRef("exercise", "easy_one", ("layer_norm",), 1),
    ItemRef("exercise", "medium_one", ("layer_norm",), 2),
    *(ItemRef("question", f"q{n}", ("layer_norm",), 1 + n % 3) for n in range(12)),
]
FOLLOW_UPS = {
    slug: [(f"q{n}", f"ask {n}", f"追问 {n}") for n in range(k, k + 4)]
    for slug, k in (("hard_one", 0), ("easy_one", 4), ("medium_one", 8))
}


@pytest.mark.parametrize("seed", range(20))
def test_the_onsite_round_ramps_and_its_budgets_fill_the_time(seed: int) -> None:
    items, _ = compose_round(
        preset=PRESETS["onsite"],
        catalogue=CATALOGUE,
        mastery={},
        known_right=set(),
        minutes=45,
        rng=random.Random(seed),
        follow_ups=FOLLOW_UPS,
    )
    kinds = [i.kind for i in items]
    assert kinds[:2] == ["question", "question"] and kinds[-1] == "explain"
    exercises = [i for i in items if i.kind == "exercise"]
    assert len(exercises) == 2
    assert exercises[0].difficulty <= exercises[1].difficulty
    warm = [i for i in items if i.kind == "question"]
    assert warm[0].difficulty <= warm[1].difficulty
    # Each exercise is followed at once by two of its own follow-ups, with the words to ask.
    for ex in exercises:
        n = items.index(ex)
        after = items[n + 1 : n + 3]
        assert [f.kind for f in after] == ["follow_up", "follow_up"]
        own = {q for q, _, _ in FOLLOW_UPS[ex.item_id]}
        assert all(f.of == ex.item_id and f.item_id in own and f.ask for f in after)
    # The explanation is of the harder exercise; nothing is asked twice.
    assert items[-1].item_id == exercises[-1].item_id
    asked = [i.item_id for i in items if i.kind in ("question", "follow_up")]
    assert len(asked) == len(set(asked))
    assert sum(i.budget_seconds for i in items) == pytest.approx(45 * 60, abs=1)
    assert exercises[-1].budget_seconds >= exercises[0].budget_seconds > items[0].budget_seconds


def test_the_phone_screen_and_the_concept_screen() -> None:
    phone, _ = compose_round(
        preset=PRESETS["phone_screen"],
        catalogue=CATALOGUE,
        mastery={},
        known_right=set(),
        minutes=20,
        rng=random.Random(1),
        follow_ups=FOLLOW_UPS,
    )
    assert [i.kind for i in phone] == ["exercise", "follow_up", "follow_up"]
    assert sum(i.budget_seconds for i in phone) == pytest.approx(1200, abs=1)
    concepts, _ = compose_round(
        preset=PRESETS["concepts"],
        catalogue=CATALOGUE,
        mastery={},
        known_right=set(),
        minutes=20,
        rng=random.Random(1),
        follow_ups=FOLLOW_UPS,
    )
    assert {i.kind for i in concepts} == {"question"} and len(concepts) == 8
    assert [i.difficulty for i in concepts] == sorted(i.difficulty for i in concepts)


def test_time_follows_the_open_item_through_jumps() -> None:
    # Open 1 for 60 s, jump to 3 for 30 s, back to 1 for 20 s, submit on 1, leave; 40 s idle;
    # answer 2 from the list (no item open: the 40 s are its own).
    events = [
        (at(0), 1, "open"),
        (at(60), 3, "open"),
        (at(90), 1, "open"),
        (at(110), 1, "act"),
        (at(115), 1, "leave"),
        (at(155), 2, "act"),
    ]
    spent = time_per_item(T0, events, at(300))
    assert spent == {
        1: timedelta(seconds=85),
        3: timedelta(seconds=30),
        2: timedelta(seconds=40),
    }


def test_an_item_left_open_runs_to_the_end_and_nothing_after_it_counts() -> None:
    spent = time_per_item(T0, [(at(10), 2, "open"), (at(500), 1, "open")], at(100))
    assert spent == {2: timedelta(seconds=90)}
