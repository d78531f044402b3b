"""A lab's figure as plain numbers: the learner's curve beside the reference's.

A lab (``ExerciseSpec.chart``) answers with a measurement, a ``(series, points)`` tensor (or
one plane of a ``(planes, series, points)`` tensor, ``LabChart.plane``). Its
page draws what the learner's code measured next to what the reference experiment measured on
the same seed. The learner's numbers come from the untrusted child: only a tensor of exactly
the reference's shape, every value finite, within ``MAX_POINTS``, is read, as floats; anything
else is drawn as the reference alone. Nothing the child sent ever reaches a page as text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch
from pydantic import BaseModel

from api.grading.spec import Case, ExerciseSpec

MAX_SERIES = 4
MAX_POINTS = 64
# Drawn values are clamped to this magnitude: a finite 1e300 must not break the page's scale.
MAX_VALUE = 1e12


class LabSeries(BaseModel):
    label: str
    label_zh: str
    reference: list[float]
    learner: list[float] | None = None


class LabFigure(BaseModel):
    case: str
    title: str
    title_zh: str
    x_label: str
    x_label_zh: str
    y_label: str
    y_label_zh: str
    series: list[LabSeries]


def _rows(t: torch.Tensor | None, shape: tuple[int, ...] | None) -> list[list[float]] | None:
    """``t`` as rows of floats if it is a finite 2-D float tensor (of ``shape`` when given)
    within the bounds; None otherwise."""
    if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.dim() != 2:
        return None
    if shape is not None and tuple(t.shape) != shape:
        return None
    rows, points = t.shape
    if not (0 < rows <= MAX_SERIES and 0 < points <= MAX_POINTS):
        return None
    values = t.detach().double().tolist()
    if not all(math.isfinite(v) for row in values for v in row):
        return None
    return [[max(-MAX_VALUE, min(MAX_VALUE, float(v))) for v in row] for row in values]


def figure(
    spec: ExerciseSpec,
    cases: list[Case] | tuple[Case, ...],
    learner: Mapping[str, torch.Tensor],
    reference: Mapping[int, Mapping[str, torch.Tensor]],
) -> LabFigure | None:
    """The figure of ``spec.chart``'s case: ``learner`` holds the child's tensors by
    ``"<case index>.<step>.output"``; ``reference`` the reference's outcome tensors by case
    index (``"<step>.output"``). None for an exercise that is not a lab."""
    chart = spec.chart
    if chart is None:
        return None
    index = next((i for i, c in enumerate(cases) if c.name == chart.case), None)
    if index is None or index not in reference:
        return None
    want = reference[index].get("0.output")
    got = learner.get(f"{index}.0.output")
    if chart.plane is not None:
        # The learner's answer must have the reference's whole shape before a plane is read.
        if not isinstance(want, torch.Tensor) or want.dim() != 3:
            return None
        ok = isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(want.shape)
        got = got[chart.plane] if ok and got is not None else None
        want = want[chart.plane]
    ref = _rows(want, None)
    if ref is None or want is None or len(ref) != len(chart.series):
        return None
    mine = _rows(got, tuple(want.shape))
    return LabFigure(
        case=chart.case,
        title=chart.title,
        title_zh=chart.title_zh,
        x_label=chart.x_label,
        x_label_zh=chart.x_label_zh,
        y_label=chart.y_label,
        y_label_zh=chart.y_label_zh,
        series=[
            LabSeries(
                label=label,
                label_zh=label_zh,
                reference=ref[r],
                learner=None if mine is None else mine[r],
            )
            for r, (label, label_zh) in enumerate(zip(chart.series, chart.series_zh, strict=True))
        ],
    )
