"""``compare`` runs in numpy with a shortcut for all-finite values; it must give exactly what the
straightforward torch formulation below gives (the one it replaced), special values included:
the figures end up in verdict messages and golden files."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from api.grading.comparison import (
    REFERENCE_ERROR_FACTOR,
    TOLERANCES,
    Comparison,
    compare,
    learner_array,
    nearness,
    summarise,
)


def _unravel(flat: int, shape: list[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        flat, i = divmod(flat, size)
        index.append(i)
    return index[::-1]


def torch_compare(
    actual: torch.Tensor,
    truth: torch.Tensor,
    native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float = 1.0,
    floor: float = 0.0,
) -> Comparison:
    a, t = actual.detach().double(), truth.detach().double()
    if a.numel() == 0:
        return Comparison(True, 0.0, 0.0, [], 0.0)
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    t_abs = t.abs()
    magnitude = max(float(t_abs.nan_to_num(nan=0.0, posinf=0.0).max()), floor, 1e-12)
    ref_err = 0.0
    if native is not None and native is not truth:
        d = (native.detach().double() - t).abs_().nan_to_num_(nan=0.0, posinf=0.0)
        ref_err = float(d.max())
    allowed = t_abs * (rtol * scale) + (atol * magnitude * scale + REFERENCE_ERROR_FACTOR * ref_err)
    allowed.nan_to_num_(nan=math.inf)
    t_inf = t.isinf()
    allowed.masked_fill_(t_inf, 0.0)
    same = (a == t) | (a.isnan() & t.isnan())
    diff = (a - t).abs_().masked_fill_(same, 0.0).nan_to_num_(nan=math.inf)
    excess = diff - allowed
    flat = int(excess.argmax())
    passed = float(excess.reshape(-1)[flat]) <= 0
    nonfinite = None
    if not bool(a.isfinite().all()):
        if bool((a.isnan() & ~t.isnan()).any()):
            nonfinite = "NaN where the reference is finite"
        elif bool((a.isinf() & ~t_inf).any()):
            nonfinite = "inf where the reference is finite"
    if nonfinite is None and bool((t_inf & (a != t)).any()):
        nonfinite = "a different value where the reference is infinite"
    rel = diff / t_abs.clamp_min(atol * magnitude)
    return Comparison(
        passed=passed and nonfinite is None,
        max_abs=float(diff.max()),
        max_rel=float(rel.max()),
        worst_index=_unravel(flat, list(a.shape)),
        allowed=float(allowed.reshape(-1)[flat]),
        nonfinite=nonfinite,
    )


def _same(x: Comparison, y: Comparison) -> bool:
    def eq(u: float, v: float) -> bool:
        return (math.isnan(u) and math.isnan(v)) or u == v

    return (
        x.passed == y.passed
        and eq(x.max_abs, y.max_abs)
        and eq(x.max_rel, y.max_rel)
        and x.worst_index == y.worst_index
        and eq(x.allowed, y.allowed)
        and x.nonfinite == y.nonfinite
    )


SPECIALS = [math.nan, math.inf, -math.inf, 1e300, -1e300, 0.0, -0.0]


def _draw(
    gen: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, dict[str, Any]]:
    ndim = int(torch.randint(1, 4, (1,), generator=gen))
    shape = [int(s) for s in torch.randint(1, 6, (ndim,), generator=gen)]
    dtype = [torch.float32, torch.bfloat16, torch.float64][
        int(torch.randint(3, (1,), generator=gen))
    ]
    magnitude = 10.0 ** float(torch.randint(-8, 6, (1,), generator=gen))
    truth = torch.randn(shape, generator=gen, dtype=torch.float64) * magnitude
    # Close, far, or exactly equal answers; a reference at the dtype with its own rounding.
    kind = int(torch.randint(3, (1,), generator=gen))
    noise = torch.randn(shape, generator=gen, dtype=torch.float64) * magnitude
    actual = (truth + noise * [1e-9, 1e-3, 0.0][kind]).to(dtype)
    native = None if kind == 2 else truth.to(dtype)
    for target in (truth, actual) + (() if native is None else (native,)):
        flat = target.view(-1)
        if float(torch.rand(1, generator=gen)) < 0.3:
            i = int(torch.randint(flat.numel(), (1,), generator=gen))
            v = SPECIALS[int(torch.randint(len(SPECIALS), (1,), generator=gen))]
            flat[i] = torch.tensor(v, dtype=torch.float64).to(flat.dtype)  # 1e300: inf in float32
    if float(torch.rand(1, generator=gen)) < 0.2:  # the same special in both
        i = int(torch.randint(truth.numel(), (1,), generator=gen))
        v = SPECIALS[int(torch.randint(3, (1,), generator=gen))]
        truth.view(-1)[i] = v
        actual.view(-1)[i] = v
    kw = {
        "scale": [1.0, 3.0, 0.5][int(torch.randint(3, (1,), generator=gen))],
        "floor": [0.0, 1e-3, 7.0][int(torch.randint(3, (1,), generator=gen))],
    }
    return actual, truth, native, {"dtype": dtype, **kw}


@pytest.mark.parametrize("seed", range(8))
def test_compare_gives_what_the_torch_formulation_gives(seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    finite = special = 0
    for _ in range(400):
        actual, truth, native, kw = _draw(gen)
        want = torch_compare(actual, truth, native, kw["dtype"], kw["scale"], kw["floor"])
        got = compare(actual, truth, native, kw["dtype"], kw["scale"], kw["floor"])
        assert _same(got, want), (actual, truth, native, kw, got, want)
        if bool(actual.isfinite().all() and truth.isfinite().all()):
            finite += 1
        else:
            special += 1
    assert finite > 100 and special > 50, (finite, special)  # both paths were exercised


@pytest.mark.parametrize("seed", range(4))
def test_compare_reads_strided_views_in_index_order(seed: int) -> None:
    """A learner's output may be a transposed or sliced view: the worst element is named by
    its index in the tensor, whatever the memory layout of either side."""
    gen = torch.Generator().manual_seed(seed)
    for _ in range(100):
        actual, truth, native, kw = _draw(gen)
        if actual.dim() < 2:
            continue
        views = [
            (actual.transpose(0, -1).contiguous().transpose(0, -1), truth, native),
            (actual, truth.transpose(0, -1).contiguous().transpose(0, -1), native),
            (actual.flip(0), truth.flip(0), None if native is None else native.flip(0)),
            (actual[..., ::2], truth[..., ::2], None if native is None else native[..., ::2]),
        ]
        for a, t, n in views:
            want = torch_compare(a, t, n, kw["dtype"], kw["scale"], kw["floor"])
            got = compare(a, t, n, kw["dtype"], kw["scale"], kw["floor"])
            assert _same(got, want), (a, t, n, kw, got, want)


def test_native_that_is_the_truth_adds_no_reference_error() -> None:
    truth = torch.tensor([1.0, 2.0], dtype=torch.float64)
    got = compare(truth.float(), truth, truth, torch.float32)
    assert _same(got, torch_compare(truth.float(), truth, truth, torch.float32))
    assert got.passed and got.max_abs == 0.0


def test_an_overflowing_error_takes_the_general_path() -> None:
    truth = torch.tensor([1e308, 1.0], dtype=torch.float64)
    actual = torch.tensor([-1e308, 1.0], dtype=torch.float64)
    got = compare(actual, truth, None, torch.float64)
    assert _same(got, torch_compare(actual, truth, None, torch.float64))
    assert not got.passed and math.isfinite(got.max_abs)  # inf became the largest finite value


@pytest.mark.parametrize("seed", range(8))
def test_diagnosis_nearness_gives_the_figures_compare_gives(seed: int) -> None:
    """Diagnosis reads ``passed``, ``max_abs`` and ``allowed`` through ``nearness``, which skips
    what it does not need on all-finite values: the same three figures as ``compare``, special
    values and strided views included (a mistake's side is finite or not, the learner's too)."""
    gen = torch.Generator().manual_seed(seed)
    shortcut = general = 0
    for _ in range(400):
        actual, truth, native, kw = _draw(gen)
        pairs = [(actual, truth, native)]
        if actual.dim() >= 2:
            pairs.append((actual.transpose(0, -1), truth.transpose(0, -1), None))
        for a, t, n in pairs:
            args = (kw["dtype"], kw["scale"], kw["floor"])
            want = compare(a, t, n, *args)
            summary = summarise(t, n, *args)
            got = nearness(learner_array(a), t, n, *args, summary)
            assert got.passed == want.passed, (a, t, n, kw, got, want)
            assert _same(
                Comparison(got.passed, got.max_abs, want.max_rel, want.worst_index, got.allowed),
                Comparison(want.passed, want.max_abs, want.max_rel, want.worst_index, want.allowed),
            ), (a, t, n, kw, got, want)
            if summary.finite and bool(a.isfinite().all()):
                shortcut += 1
            else:
                general += 1
    assert shortcut > 100 and general > 50, (shortcut, general)  # both paths were exercised
