"""``verdict.values_around``: the values a failing check shows around its worst element, at most
``VALUES_AROUND`` along the last dim, NaN and infinities as strings so the JSON stays valid."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from api.grading.verdict import VALUES_AROUND, values_around


@pytest.mark.parametrize(
    ("size", "worst", "start", "at"),
    [(3, 2, 0, 2), (10, 9, 5, 4), (10, 0, 0, 0), (10, 5, 3, 2), (1, 0, 0, 0)],
)
def test_the_window_holds_the_worst_element(size: int, worst: int, start: int, at: int) -> None:
    actual = torch.arange(2 * size, dtype=torch.float32).reshape(2, size)
    truth = actual.double().numpy() / 2
    values = values_around(actual, truth, [1, worst])
    assert values is not None
    assert (values.start, values.at) == (start, at)
    assert len(values.yours) == min(size, VALUES_AROUND)
    assert values.yours[at] == float(actual[1, worst]) and values.expected[at] == truth[1, worst]
    assert values.yours == [float(v) for v in actual[1, start : start + len(values.yours)]]


def test_nan_and_infinities_are_strings_and_the_json_is_strict() -> None:
    actual = torch.tensor([[1.0, math.nan, math.inf, -math.inf, 0.5]])
    truth = np.array([[1.0, 2.0, 3.0, -math.inf, 0.25]])
    values = values_around(actual, truth, [0, 1])
    assert values is not None
    assert values.yours == [1.0, "nan", "inf", "-inf", 0.5]
    assert values.expected == [1.0, 2.0, 3.0, "-inf", 0.25]
    json.dumps(values.model_dump(mode="json"), allow_nan=False)


def test_a_0d_value_and_what_has_no_window() -> None:
    one = values_around(torch.tensor(2.0), np.array(1.0), [])
    assert one is not None and (one.yours, one.expected, one.at) == ([2.0], [1.0], 0)
    assert values_around(torch.ones(2, 3), np.ones((3, 2)), [0, 1]) is None  # shapes differ
    assert values_around(torch.ones(0, 3), np.ones((0, 3)), []) is None
    assert values_around(torch.ones(2, 3, dtype=torch.bfloat16), np.ones((2, 3)), [1, 2]) == (
        values_around(torch.ones(2, 3), np.ones((2, 3)), [1, 2])
    )
