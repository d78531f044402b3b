"""Progress as data for a server-rendered SVG chart (no chart library, no script) and the
learner's streak and recent activity. Pure functions: the page route reads the database."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# Geometry of the mastery chart, in SVG user units (it scales with the page width).
LABEL_WIDTH = 150
BAR_WIDTH = 300
ROW_HEIGHT = 28
BAR_HEIGHT = 18
EXERCISE_ROW = 46  # two lines per exercise: its full title, then status and attempts


@dataclass(frozen=True)
class ExerciseRow:
    slug: str
    title: str
    status: str  # not_started | attempted | solved
    status_label: str
    attempts: int
    y: int


def exercise_rows(rows: list[tuple[str, str, str, str, int]]) -> tuple[list[ExerciseRow], int]:
    """One row per exercise (slug, title, status, its label, attempts): the title in full on
    its own line (never clipped by the cell beside it, even on a phone), under it the status as
    a coloured cell and the attempts counted; and the chart's height."""
    placed = [
        ExerciseRow(slug, title, status, label, attempts, n * EXERCISE_ROW)
        for n, (slug, title, status, label, attempts) in enumerate(rows)
    ]
    return placed, max(len(placed), 1) * EXERCISE_ROW


@dataclass(frozen=True)
class Bar:
    topic: str
    label: str
    mastery: float  # 0..1
    y: int
    width: float
    percent: int
    counts: str = ""  # "3 / 12 items tried", in the page's language


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    width: int
    height: int
    label_width: int
    bar_width: int
    bar_height: int


def mastery_chart(
    mastery: dict[str, float], labels: dict[str, str], counts: dict[str, str] | None = None
) -> Chart:
    counts = counts or {}
    bars = []
    for row, (topic, level) in enumerate(mastery.items()):
        level = min(max(level, 0.0), 1.0)
        bars.append(
            Bar(
                topic=topic,
                label=labels.get(topic, topic),
                mastery=level,
                y=row * ROW_HEIGHT,
                width=round(level * BAR_WIDTH, 1),
                percent=round(level * 100),
                counts=counts.get(topic, ""),
            )
        )
    return Chart(
        bars=bars,
        width=LABEL_WIDTH + BAR_WIDTH + 50,
        height=max(len(bars), 1) * ROW_HEIGHT,
        label_width=LABEL_WIDTH,
        bar_width=BAR_WIDTH,
        bar_height=BAR_HEIGHT,
    )


@dataclass(frozen=True)
class TrendDot:
    interview_id: int
    score: float
    x: float
    y: float


@dataclass(frozen=True)
class Trend:
    dots: list[TrendDot]
    path: str  # the polyline through the dots, as SVG points
    width: int
    height: int
    top: int
    bottom: int
    left: int
    max_score: int
    gridlines: list[tuple[int, float]]  # (score, y)


TREND_STEP = 48
TREND_HEIGHT = 160
TREND_PAD = 24


def trend_chart(points: list[tuple[int, float]], max_score: int) -> Trend:
    """Interviews (id, mean rubric score 0..max_score), oldest first, as dots on a line: a
    server-rendered SVG like the mastery bars, readable without script."""
    top, bottom, left = TREND_PAD, TREND_HEIGHT - TREND_PAD, 40
    span = bottom - top

    def y_of(score: float) -> float:
        score = min(max(score, 0.0), float(max_score))
        return round(bottom - span * score / max_score, 1)

    dots = [
        TrendDot(iid, score, float(left + TREND_STEP * n), y_of(score))
        for n, (iid, score) in enumerate(points)
    ]
    return Trend(
        dots=dots,
        path=" ".join(f"{d.x},{d.y}" for d in dots),
        width=left + TREND_STEP * max(len(dots), 1) + TREND_PAD,
        height=TREND_HEIGHT,
        top=top,
        bottom=bottom,
        left=left,
        max_score=max_score,
        gridlines=[(s, y_of(s)) for s in range(max_score + 1)],
    )


def streak(active_days: set[date], today: date) -> int:
    """Consecutive days with activity ending today, or yesterday when today has none yet (the
    streak is not broken before the day is over)."""
    day = today if today in active_days else today - timedelta(days=1)
    count = 0
    while day in active_days:
        count += 1
        day -= timedelta(days=1)
    return count


@dataclass(frozen=True)
class Activity:
    at: datetime
    kind: str  # submission | answer
    item: str  # exercise slug or question id
    outcome: str  # a verdict status, or correct / incorrect
    link: str


@dataclass(frozen=True)
class CohortBar:
    """One exercise in the cohort chart: a track for every learner, learners who attempted it,
    and over that, those who solved it."""

    key: str
    label: str
    attempted: int
    solved: int
    y: int
    attempted_width: float
    solved_width: float


@dataclass(frozen=True)
class CohortChart:
    bars: list[CohortBar]
    learners: int
    width: int
    height: int
    label_width: int
    bar_width: int
    bar_height: int


def cohort_chart(rows: list[tuple[str, str, int, int]], learners: int) -> CohortChart:
    """``rows``: (key, label, learners attempted, learners solved), against ``learners``."""
    scale = BAR_WIDTH / learners if learners else 0.0
    bars = [
        CohortBar(
            key=key,
            label=label,
            attempted=attempted,
            solved=solved,
            y=row * ROW_HEIGHT,
            attempted_width=round(min(attempted, learners) * scale, 1),
            solved_width=round(min(solved, learners) * scale, 1),
        )
        for row, (key, label, attempted, solved) in enumerate(rows)
    ]
    return CohortChart(
        bars=bars,
        learners=learners,
        width=LABEL_WIDTH + BAR_WIDTH + 70,
        height=max(len(bars), 1) * ROW_HEIGHT,
        label_width=LABEL_WIDTH,
        bar_width=BAR_WIDTH,
        bar_height=BAR_HEIGHT,
    )


@dataclass(frozen=True)
class CountBar:
    key: str
    label: str
    count: int
    y: int
    width: float


@dataclass(frozen=True)
class CountChart:
    bars: list[CountBar]
    width: int
    height: int
    label_width: int
    bar_width: int
    bar_height: int


# The mistakes chart's labels are whole titles ("eps outside the sqrt"): wider than topics.
MISTAKE_LABEL_WIDTH = 260


def count_chart(rows: list[tuple[str, str, int]]) -> CountChart:
    """``rows``: (key, label, count); the longest bar is the largest count."""
    largest = max((count for _, _, count in rows), default=0)
    bars = [
        CountBar(
            key=key,
            label=label,
            count=count,
            y=row * ROW_HEIGHT,
            width=round(count / largest * BAR_WIDTH, 1) if largest else 0.0,
        )
        for row, (key, label, count) in enumerate(rows)
    ]
    return CountChart(
        bars=bars,
        width=MISTAKE_LABEL_WIDTH + BAR_WIDTH + 50,
        height=max(len(bars), 1) * ROW_HEIGHT,
        label_width=MISTAKE_LABEL_WIDTH,
        bar_width=BAR_WIDTH,
        bar_height=BAR_HEIGHT,
    )


# A lab's figure (``api/grading/labs.py``): per row of the answer, the learner's curve (solid,
# with dots) beside the reference's (dashed), over layers 1..n. The viewBox is narrow enough
# that its 12-unit text stays readable on a 390 px phone, where it is drawn at about 1:1.
LAB_WIDTH = 360
LAB_PLOT_HEIGHT = 190
LAB_LEFT, LAB_RIGHT, LAB_TOP = 52, 12, 12
LAB_AXIS = 40  # below the plot: the x ticks and the x label
LAB_LEGEND_ROW = 18
LAB_MAX_SERIES = 4
LAB_MAX_POINTS = 64


@dataclass(frozen=True)
class LabLine:
    row: int  # which series (its colour)
    label: str  # "Post-LN, yours"
    learner: bool
    points: str  # SVG polyline points
    dots: list[tuple[float, float]]
    legend_y: float
    legend_x: float


@dataclass(frozen=True)
class LabChartView:
    title: str
    description: str  # every number, for a screen reader
    x_label: str
    y_label: str
    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    lines: list[LabLine]
    learner_missing: bool


def _numbers(value: object, n: int | None) -> list[float] | None:
    """``value`` as a list of finite floats (of length ``n`` when given), or None."""
    if not isinstance(value, list) or not 0 < len(value) <= LAB_MAX_POINTS:
        return None
    if n is not None and len(value) != n:
        return None
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return None
        out.append(float(v))
    return out


def _tick(v: float) -> str:
    return f"{v:.3g}"


def lab_chart(figure: object, zh: bool, yours: str, reference: str) -> LabChartView | None:
    """The lab chart's geometry from a verdict's ``chart`` (as stored: plain JSON, checked
    again here: numbers only, bounded). None when there is nothing valid to draw."""
    if not isinstance(figure, dict):
        return None
    raw = figure.get("series")
    if not isinstance(raw, list) or not 0 < len(raw) <= LAB_MAX_SERIES:
        return None

    def words(key: str) -> str:
        value = figure.get(f"{key}_zh" if zh else key)
        return value[:120] if isinstance(value, str) else ""

    series: list[tuple[str, list[float], list[float] | None]] = []
    for s in raw:
        if not isinstance(s, dict):
            return None
        ref = _numbers(s.get("reference"), None)
        if ref is None or (series and len(ref) != len(series[0][1])):
            return None
        mine = _numbers(s.get("learner"), len(ref)) if s.get("learner") is not None else None
        label = s.get("label_zh" if zh else "label")
        series.append((label[:40] if isinstance(label, str) else "", ref, mine))
    n = len(series[0][1])
    values = [v for _, ref, mine in series for v in ref + (mine or [])]
    low, high = min(0.0, min(values)), max(values)
    high = high if high > low else low + 1.0
    right, bottom = LAB_WIDTH - LAB_RIGHT, LAB_TOP + LAB_PLOT_HEIGHT

    def x_of(i: int) -> float:
        return round(LAB_LEFT + (right - LAB_LEFT) * (i / (n - 1) if n > 1 else 0.5), 1)

    def y_of(v: float) -> float:
        return round(bottom - LAB_PLOT_HEIGHT * (v - low) / (high - low), 1)

    lines: list[LabLine] = []
    for row, (label, ref, mine) in enumerate(series):
        for learner, ys in ((False, ref), (True, mine)):
            if ys is None:
                continue
            dots = [(x_of(i), y_of(v)) for i, v in enumerate(ys)]
            k = len(lines)
            lines.append(
                LabLine(
                    row=row,
                    label=f"{label}, {yours if learner else reference}",
                    learner=learner,
                    points=" ".join(f"{x},{y}" for x, y in dots),
                    dots=dots if learner else [],
                    legend_x=LAB_LEFT + (k % 2) * 150,
                    legend_y=bottom + LAB_AXIS + 12 + (k // 2) * LAB_LEGEND_ROW,
                )
            )
    middle = (n + 1) // 2
    x_ticks = [(x_of(i - 1), str(i)) for i in sorted({1, middle, n})]
    y_ticks = [(y_of(low + (high - low) * f), _tick(low + (high - low) * f)) for f in (0, 0.5, 1)]
    legend_rows = (len(lines) + 1) // 2
    described = "; ".join(
        f"{label}: {reference} "
        + ", ".join(_tick(v) for v in ref)
        + (f"; {yours} " + ", ".join(_tick(v) for v in mine) if mine is not None else "")
        for label, ref, mine in series
    )
    return LabChartView(
        title=words("title"),
        description=described,
        x_label=words("x_label"),
        y_label=words("y_label"),
        width=LAB_WIDTH,
        height=bottom + LAB_AXIS + legend_rows * LAB_LEGEND_ROW + 6,
        left=LAB_LEFT,
        top=LAB_TOP,
        right=right,
        bottom=bottom,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        lines=lines,
        learner_missing=all(mine is None for _, _, mine in series),
    )
