"""What a value check found, in both languages as written here: 'differs from the reference by
up to 0.0828 (relative 0.0318) at index (0, 12); allowed 0.000574 there' and '与参考结果最多相差
0.0828（相对误差 0.0318），位于索引 (0, 12)；该处允许的误差为 0.000574'. Numbers and indices
are the same in both."""

from __future__ import annotations

from collections.abc import Sequence

from api.grading.phrase import Phrase

# ``Comparison.nonfinite``'s English, as the comparison names it, and its Chinese.
NONFINITE_ZH = {
    "NaN where the reference is finite": "在参考结果为有限值的位置出现了 NaN",
    "inf where the reference is finite": "在参考结果为有限值的位置出现了 inf",
    "a different value where the reference is infinite": "在参考结果为无穷的位置给出了不同的值",
}


def figure(v: float) -> str:
    return f"{v:.3g}"


def matches(max_abs: float, allowed: float) -> Phrase:
    e, a = figure(max_abs), figure(allowed)
    return Phrase(f"matches (max error {e}, allowed {a})", f"一致（最大误差 {e}，允许 {a}）")


def nonfinite(what: str, index: Sequence[int]) -> Phrase:
    at = str(tuple(index))
    zh = NONFINITE_ZH.get(what, what)
    return Phrase(f"{what} (first at index {at})", f"{zh}（首次出现在索引 {at}）")


def differs(max_abs: float, max_rel: float, index: Sequence[int], allowed: float) -> Phrase:
    e, r, a, at = figure(max_abs), figure(max_rel), figure(allowed), str(tuple(index))
    return Phrase(
        f"differs from the reference by up to {e} (relative {r}) at index {at}; allowed {a} there",
        f"与参考结果最多相差 {e}（相对误差 {r}），位于索引 {at}；该处允许的误差为 {a}",
    )
