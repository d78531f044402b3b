"""Random blocks graded by their law (``spec.Law``): what any correct draw satisfies, checked in
the parent on the learner's tensors, with bounds stated for the number of elements.

A stochastic case is first compared as drawn (the reference's random stream replayed: right,
and cheap, for code that draws as the reference does). Where that fails, the law decides: a
correct solution that draws its mask another way (``torch.rand_like(x) > p``, PyTorch's own
decomposition, a kernel that draws contiguous on a transposed input) passes, and a wrong one
fails with what broke the law.

Bounds: a count of ``n`` Bernoulli(``q``) draws is accepted within ``SIGMAS`` standard
deviations of ``n q`` (plus one, for the rounding of a count): at 6 sigma a correct solution
fails one case in about 500 million.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from api.grading.comparison import TOLERANCES
from api.grading.spec import Call, Case, Law, LawCheck

SIGMAS = 6.0
# Two masks of one shape are "the same mask" only where that is this unlikely for two fresh
# draws (``(p^2 + (1 - p)^2) ** n``, the chance two independent masks agree everywhere).
SAME_MASK_CHANCE = 1e-9


def binomial_bounds(n: int, q: float, sigmas: float = SIGMAS) -> tuple[float, float]:
    """The counts of ``n`` Bernoulli(``q``) draws accepted: ``n q`` within ``sigmas`` standard
    deviations, plus one."""
    spread = sigmas * math.sqrt(n * q * (1.0 - q)) + 1.0
    return max(0.0, n * q - spread), min(float(n), n * q + spread)


def normal_std_bounds(n: int, std: float, sigmas: float = SIGMAS) -> tuple[float, float]:
    """The sample standard deviations of ``n`` draws of N(0, ``std``) accepted: the sample
    variance has relative spread sqrt(2 / n), so ``std * sqrt(1 +- sigmas * sqrt(2 / n))``."""
    rel = sigmas * math.sqrt(2.0 / max(n, 1))
    return std * math.sqrt(max(0.0, 1.0 - rel)), std * math.sqrt(1.0 + rel)


def normal_mean_bound(n: int, std: float, sigmas: float = SIGMAS) -> float:
    """The largest |sample mean| of ``n`` draws of N(0, ``std``) accepted."""
    return sigmas * std / math.sqrt(max(n, 1))


def _array(t: torch.Tensor) -> np.ndarray:
    return t.detach().double().numpy(force=True)


def _at(index: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(int(i)) for i in index) + ")"


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Elementwise: ``a`` is ``b`` within ``rtol`` of ``|b|`` plus ``atol`` (NaN never)."""
    with np.errstate(all="ignore"):
        near: np.ndarray = np.abs(a - b) <= rtol * np.abs(b) + atol
    return near


def _tolerance(case: Case, scale: float) -> tuple[float, float]:
    rtol, atol = TOLERANCES.get(case.dtype, TOLERANCES[torch.float32])
    # At least a few roundings of the case's dtype: x / (1 - p) and x * (1 / (1 - p)) differ
    # by one, and a float64 case's own tolerance is far below float32's.
    eps = torch.finfo(case.dtype).eps if case.dtype.is_floating_point else 0.0
    return max(rtol * scale, 4 * eps), max(atol * scale, 4 * eps)


def dropout_law(p_of: Callable[[Case], float]) -> Law:
    """Inverted dropout's law on a one-input module (``p_of(case)`` the drop probability):

    - train, 0 < p < 1: every output element is 0 or x / (1 - p); the dropped fraction within
      ``binomial_bounds`` of p over the elements where the two can be told apart (x not 0);
      the input's gradient is the upstream gradient times the forward's mask and 1 / (1 - p)
      (where x = 0 the mask is unseen: 0 or the scaled gradient); two training calls of one
      shape never drop the same units (``SAME_MASK_CHANCE``);
    - train, p = 1: zeros, and a zero gradient; p = 0, and eval for every p: the identity, and
      the upstream gradient as it came.

    Signs for ``name``: ``unscaled`` (kept units left as x), ``keep_scaled`` (kept units scaled
    by 1/p), ``keep_fraction`` (a fraction 1 - p dropped), ``nan`` (NaN or inf where the law has
    a number), ``grad_mask`` (the gradient does not follow the forward's mask),
    ``grad_mask_held`` (only where the backward waited for a second forward), ``same_mask``
    (a mask reused), ``eval_scaled`` (eval multiplies by 1 - p), ``eval_dropped`` (eval drops)."""

    def judge(case: Case, got: Mapping[str, torch.Tensor], scale: float) -> list[LawCheck]:
        p = p_of(case)
        rtol, atol = _tolerance(case, scale)
        checks: list[LawCheck] = []
        masks: list[tuple[int, tuple[int, ...], np.ndarray, np.ndarray]] = []
        for k, step in enumerate(case.scenario):
            if not isinstance(step, Call):
                continue
            checks += _step(k, step, got, p, rtol, atol, masks)
        checks += _fresh_masks(masks, p)
        return checks

    return Law(judge=judge, name=_dropout_name)


def _dropout_name(signs: Sequence[str]) -> str | None:
    said = set(signs)
    if "nan" in said:
        return "nan_at_p_one"
    if "same_mask" in said:
        return "mask_cached_across_calls"
    if "eval_scaled" in said:
        return "classic_dropout"
    if "eval_dropped" in said:
        return "dropout_in_eval"
    if "keep_scaled" in said or "keep_fraction" in said:
        return "keep_probability_swapped"
    if "unscaled" in said:
        return "not_rescaled"
    if "grad_mask" in said:
        return "mask_redrawn_in_backward"
    if "grad_mask_held" in said:
        return "mask_overwritten_before_backward"
    return None


def _law(
    k: int, target: tuple[str, str], ok: bool, said: tuple[str, str], sign: str = ""
) -> LawCheck:
    return LawCheck(k, target[0], target[1], ok, said[0], said[1], "" if ok else sign)


OUTPUT = ("output (by dropout's law)", "输出（按 dropout 的分布规律检查）")
DROPPED = ("fraction of units dropped", "被丢弃单元的比例")
GRAD = ("grad of input (by dropout's law)", "输入的梯度（按 dropout 的分布规律检查）")
FRESH = ("a new mask on every call", "每次调用都抽取新的掩码")


def _step(
    k: int,
    step: Call,
    got: Mapping[str, torch.Tensor],
    p: float,
    rtol: float,
    atol: float,
    masks: list[tuple[int, tuple[int, ...], np.ndarray, np.ndarray]],
) -> list[LawCheck]:
    x = _array(step.inputs[0])
    raw = got.get(f"{k}.output")
    if raw is None or tuple(raw.shape) != x.shape:
        return [
            _law(k, OUTPUT, False, ("no output of the input's shape", "没有与输入同形状的输出"))
        ]
    out = _array(raw)
    mag = float(np.abs(x).max()) if x.size else 0.0
    checks: list[LawCheck] = []
    drops = step.train and p > 0.0
    if not drops or p >= 1.0:
        want = np.zeros_like(x) if drops else x
        ok = _close(out, want, rtol, atol * max(mag, 1e-12))
        what = (
            ("zeros (p = 1)", "全零（p = 1）") if drops else ("the input unchanged", "原样的输入")
        )
        if bool(ok.all()):
            checks.append(_law(k, OUTPUT, True, (f"is {what[0]}", f"是{what[1]}")))
        else:
            i = _first(~ok)
            sign = ""
            if not bool(np.isfinite(out).all()):
                sign = "nan"
            elif not drops and 0.0 < p < 1.0:
                if bool(_close(out, x * (1 - p), rtol, atol * mag).all()):
                    sign = "eval_scaled"
                elif bool((_close(out, x / (1 - p), rtol, atol * mag) | (out == 0)).all()):
                    sign = "eval_dropped"
            checks.append(
                _law(
                    k,
                    OUTPUT,
                    False,
                    (
                        f"should be {what[0]}: {out[i]:.6g} at index {_at(i)} where "
                        f"{float(want[i]):.6g} is due",
                        f"应当是{what[1]}：索引 {_at(i)} 处是 {out[i]:.6g}，"
                        f"应为 {float(want[i]):.6g}",
                    ),
                    sign,
                )
            )
        checks += _grad(k, step, got, None if drops else 1.0, None, rtol, atol)
        return checks
    s = 1.0 / (1.0 - p)
    kept_value = x * s
    floor = atol * max(mag * s, 1e-12)
    kept = _close(out, kept_value, rtol, floor)
    dropped = np.abs(out) <= floor
    lawful = kept | dropped
    if not bool(lawful.all()):
        i = _first(~lawful)
        sign = ""
        if not bool(np.isfinite(out).all()):
            sign = "nan"
        elif bool((_close(out, x, rtol, floor) | dropped).all()):
            sign = "unscaled"
        elif p > 0 and bool((_close(out, x / p, rtol, floor) | dropped).all()):
            sign = "keep_scaled"
        checks.append(
            _law(
                k,
                OUTPUT,
                False,
                (
                    f"element {_at(i)} is {out[i]:.6g}: neither 0 nor x / (1 - p) = "
                    f"{kept_value[i]:.6g}",
                    f"索引 {_at(i)} 处的元素是 {out[i]:.6g}：既不是 0，也不是 x / (1 - p) = "
                    f"{kept_value[i]:.6g}",
                ),
                sign,
            )
        )
        return checks
    checks.append(
        _law(
            k, OUTPUT, True, ("every element is 0 or x / (1 - p)", "每个元素都是 0 或 x / (1 - p)")
        )
    )
    told = ~(kept & dropped)  # where x is 0 the two cannot be told apart
    n = int(told.sum())
    d = int((dropped & told).sum())
    lo, hi = binomial_bounds(n, p)
    fair = lo <= d <= hi
    checks.append(
        _law(
            k,
            DROPPED,
            fair,
            (
                f"{d} of {n} dropped; for p = {p:g} between {math.ceil(lo)} and {math.floor(hi)} "
                f"(binomial, {SIGMAS:g} sigma)",
                f"{n} 个中丢弃了 {d} 个；p = {p:g} 时应在 {math.ceil(lo)} 到 {math.floor(hi)} 之间"
                f"（二项分布，{SIGMAS:g} 个标准差）",
            ),
            "keep_fraction" if n and abs(d / n - (1 - p)) < abs(d / n - p) else "",
        )
    )
    masks.append((k, x.shape, dropped & told, told))
    checks += _grad(k, step, got, s, (kept & told, dropped & told), rtol, atol)
    return checks


def _grad(
    k: int,
    step: Call,
    got: Mapping[str, torch.Tensor],
    s: float | None,
    mask: tuple[np.ndarray, np.ndarray] | None,
    rtol: float,
    atol: float,
) -> list[LawCheck]:
    """The input's gradient: the upstream one times ``s`` where the forward kept (``mask``:
    kept, dropped; None with ``s`` for a call that drops nothing, and ``s`` None for one that
    drops everything)."""
    if step.grad_outputs is None:
        return []
    raw = got.get(f"{k}.grad.input")
    if raw is None:
        return []  # a missing gradient is its own check, made by the verdict
    g = _array(step.grad_outputs[0])
    gi = _array(raw)
    if gi.shape != g.shape:
        return []  # the verdict's shape check says it
    scaled = g * (s if s is not None else 0.0)
    floor = atol * max(float(np.abs(scaled).max()) if g.size else 0.0, 1e-12)
    as_scaled = _close(gi, scaled, rtol, floor)
    as_zero = np.abs(gi) <= floor
    if mask is None:
        ok = as_scaled if s is not None else as_zero
        due = "the upstream gradient" if s == 1.0 else "zeros"
        due_zh = "上游梯度本身" if s == 1.0 else "全零"
    else:
        kept, dropped = mask
        unseen = ~(kept | dropped)
        ok = (kept & as_scaled) | (dropped & as_zero) | (unseen & (as_scaled | as_zero))
        due, due_zh = (
            "the upstream gradient times the forward's mask / (1 - p)",
            "上游梯度乘以 forward 的掩码再除以 (1 - p)",
        )
    if bool(ok.all()):
        return [_law(k, GRAD, True, (f"is {due}", f"是{due_zh}"))]
    i = _first(~ok)
    sign = ""
    if not bool(np.isfinite(gi).all()):
        sign = "nan"
    elif mask is not None:
        # A call whose backward waited for the next call's: a mask kept on the module and
        # replaced by that call shows here only.
        sign = "grad_mask_held" if step.defer else "grad_mask"
    return [
        _law(
            k,
            GRAD,
            False,
            (
                f"should be {due}: {gi[i]:.6g} at index {_at(i)}",
                f"应当是{due_zh}：索引 {_at(i)} 处是 {gi[i]:.6g}",
            ),
            sign,
        )
    ]


def _fresh_masks(
    masks: list[tuple[int, tuple[int, ...], np.ndarray, np.ndarray]], p: float
) -> list[LawCheck]:
    """Every two training calls of one shape drop different units, where two fresh draws
    could agree everywhere only with a chance below ``SAME_MASK_CHANCE``."""
    agree = p * p + (1 - p) * (1 - p)
    checks: list[LawCheck] = []
    for a in range(len(masks)):
        for b in range(a):
            ka, shape_a, drop_a, told_a = masks[a]
            kb, shape_b, drop_b, told_b = masks[b]
            if shape_a != shape_b:
                continue
            both = told_a & told_b
            n = int(both.sum())
            if n == 0 or agree**n > SAME_MASK_CHANCE:
                continue
            same = bool((drop_a[both] == drop_b[both]).all())
            checks.append(
                _law(
                    ka,
                    FRESH,
                    not same,
                    (
                        f"the units dropped differ from step {kb + 1}'s"
                        if not same
                        else f"the same {n} units as step {kb + 1} dropped: the mask was reused",
                        f"丢弃的单元与第 {kb + 1} 步不同"
                        if not same
                        else f"与第 {kb + 1} 步丢弃了完全相同的单元（共 {n} 个）：掩码被复用了",
                    ),
                    "same_mask",
                )
            )
    return checks
