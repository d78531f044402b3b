"""The comparison in the parent where the reference is infinite (a -inf mask's log-probability,
an overflowing activation): only that same infinity is right."""

from __future__ import annotations

import math

import torch

from api.grading.comparison import compare


def test_a_finite_value_where_the_reference_is_minus_inf_fails() -> None:
    truth = torch.tensor([-math.inf, -1.0], dtype=torch.float64)
    got = compare(torch.tensor([-50.0, -1.0]), truth, None, torch.float32)
    assert not got.passed
    assert got.nonfinite == "a different value where the reference is infinite"
    assert got.worst_index == [0]


def test_the_opposite_infinity_fails_and_the_same_one_passes() -> None:
    truth = torch.tensor([math.inf, 2.0], dtype=torch.float64)
    assert not compare(torch.tensor([-math.inf, 2.0]), truth, None, torch.float32).passed
    same = compare(torch.tensor([math.inf, 2.0]), truth, None, torch.float32)
    assert same.passed and same.nonfinite is None


def test_finite_values_keep_their_tolerance() -> None:
    truth = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    close = truth.float() * (1 + 1e-7)
    assert compare(close, truth, None, torch.float32).passed
    assert not compare(truth.float() * 1.01, truth, None, torch.float32).passed
