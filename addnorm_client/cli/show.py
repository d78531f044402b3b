"""How the learner CLI draws things in a terminal (rich): verdicts, local checks, bars.

Everything the server sends is shown as text, never as rich markup, so a message that happens to
contain ``[red]`` prints as written.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from addnorm_client.cli.local_check import LocalReport
from addnorm_client.cli.words import say

BAR_WIDTH = 24

VERDICT_STYLES = {
    "passed": "bold green",
    "failed": "bold red",
    "error": "bold dark_orange",
    "timeout": "bold magenta",
    "crashed": "bold magenta",
    "rejected": "bold yellow",
}


def print_json(console: Console, data: Any) -> None:
    # Plain print, not rich: --json output is for scripts and must not be re-wrapped.
    console.file.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def bar(done: float, total: float, width: int = BAR_WIDTH) -> str:
    """A text progress bar, e.g. ``█████░░░░░``; exact at 0 and at ``total``."""
    share = 0.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
    filled = round(share * width)
    if 0 < share < 1:
        filled = min(max(filled, 1), width - 1)
    return "█" * filled + "░" * (width - filled)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2e}"
    if isinstance(value, list | tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


# The card's own words, in the verdict's language (``lang`` in the verdict JSON).
_WORDS = {
    "en": {
        "diagnosis": "Diagnosis: ",
        "failed": "{n} of {total} checks failed; --table lists them",
        "passed": "all {total} checks passed",
        "exception": "exception",
        "line": " (line {line})",
        "head": "{slug}: {name}",
        "table": "failing checks ({n} of {total})",
        "columns": "case|shape|dtype|max abs err|max rel err|message",
    },
    "zh": {
        "diagnosis": "诊断：",
        "failed": "{total} 项检查中有 {n} 项失败；加 --table 列出全部",
        "passed": "{total} 项检查全部通过",
        "exception": "异常",
        "line": "（第 {line} 行）",
        "head": "{slug}：{name}",
        "table": "未通过的检查（{total} 项中 {n} 项）",
        "columns": "用例|形状|数据类型|最大绝对误差|最大相对误差|说明",
    },
}
# The verdict's name in Chinese, as the pages say it (api/web/i18n.py: verdict_*); in English
# its upper case (PASSED, FAILED, ...).
_VERDICT_ZH = {
    "passed": "通过",
    "failed": "未通过",
    "error": "出错",
    "timeout": "超时",
    "crashed": "崩溃",
    "rejected": "被拒绝",
}


def verdict(console: Console, v: Mapping[str, Any], slug: str, *, table: bool = False) -> None:
    """The verdict as a learner reads it in any terminal width: the status and message, the
    named mistake, then the first failing check as a card; the table of every failing check
    only with ``table`` (``--table``), since at 80 columns its columns fold into slivers."""
    name = str(v.get("verdict") or v.get("status") or v.get("state") or "unknown")
    lang = str(v.get("lang") or "en")
    words = _WORDS.get(lang, _WORDS["en"])
    shown = _VERDICT_ZH.get(name, name.upper()) if lang == "zh" else name.upper()
    line = Text()
    line.append(words["head"].format(slug=slug, name=shown), style=VERDICT_STYLES.get(name, "bold"))
    line.append(f"  {v.get('message') or ''}")
    console.print(line)
    diagnosis = v.get("diagnosis")
    if isinstance(diagnosis, Mapping):
        console.print(
            Text.assemble(
                (words["diagnosis"], "bold yellow"),
                (str(diagnosis.get("title") or diagnosis.get("name") or ""), "bold"),
                (f" ({diagnosis.get('name')})" if diagnosis.get("name") else "", "dim"),
            )
        )
        if diagnosis.get("explanation"):
            console.print(Text(f"  {diagnosis['explanation']}"))
    checks: Sequence[Mapping[str, Any]] = v.get("checks") or []
    failing = [c for c in checks if not c.get("passed")]
    if failing:
        first_failure(console, _first(failing, str(v.get("message") or "")), lang)
        if table:
            failing_table(console, failing, len(checks), lang)
        else:
            said = words["failed"].format(n=len(failing), total=len(checks))
            console.print(Text(said, "dim"))
    elif checks:
        console.print(Text(words["passed"].format(total=len(checks)), style="green"))
    error = v.get("error")
    if isinstance(error, Mapping) and error.get("type"):
        where = words["line"].format(line=error["line"]) if error.get("line") else ""
        console.print(
            Text(f"{words['exception']}: {error['type']}: {error.get('message', '')}{where}")
        )
    for key in ("stdout", "stderr"):
        if v.get(key):
            console.print(Text(f"{key}:", style="dim"))
            console.print(Text(str(v[key]).rstrip()))


_FIRST_CASE = re.compile(r"First: '([^']+)'")


def _first(failing: Sequence[Mapping[str, Any]], message: str) -> Mapping[str, Any]:
    """The failing check of the case the message calls the first one, else the first row."""
    named = _FIRST_CASE.search(message)
    if named:
        for c in failing:
            if c.get("case") == named.group(1):
                return c
    return failing[0]


def _number(value: Any) -> str:
    """NaN and inf as such; an unbounded tolerance as "any"."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value) or value > 1e300:
            return "any" if value > 0 else "-inf"
        return f"{value:.3g}"
    return _fmt(value)


# The first-failure card's labels, in the verdict's language (its ``lang``).
_CARD: dict[str, dict[str, str]] = {
    "en": {
        "head": "First failure: case {case}{target}",
        "sep": ", ",
        "input": "input",
        "step": "step",
        "shape": "shape",
        "error": "error",
        "at": " at index {index}",
        "allowed": "; allowed {allowed}",
        "what": "what",
        "index": "index",
        "yours": "yours",
        "expected": "expected",
    },
    "zh": {
        "head": "第一个未通过的检查：用例 {case}{target}",
        "sep": "，",
        "input": "输入",
        "step": "步骤",
        "shape": "形状",
        "error": "误差",
        "at": "，位置 {index}",
        "allowed": "；允许 {allowed}",
        "what": "说明",
        "index": "下标",
        "yours": "你的值",
        "expected": "期望值",
    },
}


def value_figure(value: Any) -> str:
    """One of ``Check.values``: four significant digits, NaN and inf as such (the verdict's
    JSON carries them as the strings "nan", "inf", "-inf")."""
    if isinstance(value, str):
        return {"nan": "NaN", "inf": "inf", "-inf": "-inf"}.get(value, "?")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return _number(float(value)) if not math.isfinite(value) else f"{value:.4g}"


def _values_rows(values: Any, words: Mapping[str, str]) -> list[tuple[str, str]]:
    """The learner's and the expected values around the worst element, one column each, the
    worst one in brackets; None-safe against an old or odd verdict."""
    if not isinstance(values, Mapping):
        return []
    yours, expected = values.get("yours"), values.get("expected")
    start, at = values.get("start"), values.get("at")
    if not (isinstance(yours, list) and isinstance(expected, list) and yours):
        return []
    if not (isinstance(start, int) and isinstance(at, int)):
        return []
    n = min(len(yours), len(expected))

    def row(cells: Sequence[str]) -> str:
        return " ".join((f"[{v}]" if i == at else f" {v} ").rjust(12) for i, v in enumerate(cells))

    return [
        (words["index"], row([str(start + i) for i in range(n)])),
        (words["yours"], row([value_figure(v) for v in yours[:n]])),
        (words["expected"], row([value_figure(v) for v in expected[:n]])),
    ]


def first_failure(console: Console, c: Mapping[str, Any], lang: str = "en") -> None:
    """One failing check as short labelled lines, each readable at 80 columns."""
    words = _CARD.get(lang, _CARD["en"])
    subject = c.get("target_text") or c.get("target")  # target_text: in the verdict's language
    target = f"{words['sep']}{subject}" if subject else ""
    console.print(Text(words["head"].format(case=c.get("case", ""), target=target), "bold red"))
    rows: list[tuple[str, str]] = []
    if c.get("description"):
        rows.append((words["input"], str(c["description"])))
    if c.get("step_description"):
        rows.append((words["step"], str(c["step_description"])))
    if c.get("shape") is not None or c.get("dtype"):
        rows.append((words["shape"], f"{_fmt(c.get('shape'))} {c.get('dtype') or ''}".strip()))
    if c.get("max_abs_error") is not None:
        at = words["at"].format(index=_fmt(c.get("worst_index"))) if c.get("worst_index") else ""
        allowed = (
            words["allowed"].format(allowed=_number(c["allowed_abs_error"]))
            if c.get("allowed_abs_error") is not None
            else ""
        )
        rows.append((words["error"], f"{_number(c['max_abs_error'])}{at}{allowed}"))
    rows.extend(_values_rows(c.get("values"), words))
    if c.get("message"):
        rows.append((words["what"], str(c["message"])))
    width = max((cell_len(label) for label, _ in rows), default=0)
    for label, value in rows:
        pad = " " * (width - cell_len(label))  # a CJK character is two columns wide
        console.print(Text.assemble((f"  {label}{pad} ", "dim"), value))


def failing_table(
    console: Console, failing: Sequence[Mapping[str, Any]], total: int, lang: str = "en"
) -> None:
    """Every failing check, one row each (``--table``: the card shows only the first)."""
    words = _WORDS.get(lang, _WORDS["en"])
    columns = words["columns"].split("|")
    rows = []
    for c in failing:
        target = f" [{c['target']}]" if c.get("target") else ""
        rows.append(
            (
                f"{c.get('case', '')}{target}",
                _fmt(c.get("shape")),
                str(c.get("dtype") or ""),
                _fmt(c.get("max_abs_error")),
                _fmt(c.get("max_rel_error")),
                str(c.get("message") or ""),
            )
        )
    # A check that never ran has no shape or error: drop the columns no row fills.
    keep = [i for i in range(len(columns)) if i == 0 or any(row[i] for row in rows)]
    title = words["table"].format(n=len(failing), total=total)
    table = Table(title=title, title_justify="left")
    for i in keep:
        table.add_column(columns[i], overflow="fold")
    for row in rows:
        table.add_row(*(Text(row[i]) for i in keep))
    console.print(table)


def local_report(console: Console, report: LocalReport, *, table: bool = False) -> None:
    if report.problem is not None:
        head = "rejected by the server's checks" if report.status == "rejected" else "not run"
        console.print(Text(f"{report.slug}: {head}: {report.problem}", "red"))
        return
    failing = [c for c in report.cases if not c.ok]
    if table or not failing:
        grid = Table(title=f"{report.slug}: local cases", title_justify="left")
        for column in ("", "case", "shape", "max abs err", "result"):
            grid.add_column(column, overflow="fold")
        for c in report.cases:
            grid.add_row(
                Text("✓", "green") if c.ok else Text("✗", "red"),
                escape(c.name),
                _fmt(c.shape),
                _fmt(c.max_abs_error),
                escape(c.note),
            )
        console.print(grid)
    if failing:
        first = failing[0]
        console.print(Text(f"First failure: {first.name}", "bold red"))
        console.print(Text.assemble(("  shape  ", "dim"), _fmt(first.shape)))
        if first.max_abs_error is not None:
            console.print(Text.assemble(("  error  ", "dim"), _number(first.max_abs_error)))
        console.print(Text.assemble(("  what   ", "dim"), first.note))
    ok = sum(c.ok for c in report.cases)
    style = "green" if report.passed else "red"
    console.print(
        Text(f"{ok} of {len(report.cases)} local cases match", style),
        Text("(forward and backward; `addnorm submit` gets the verdict that counts)", "dim"),
    )


def catalogue_progress(exercises: Sequence[Mapping[str, Any]], lang: str = "en") -> Text:
    """The progress line across the catalogue, as watch mode prints it after every verdict."""
    solved = sum(1 for e in exercises if e.get("status") == "solved")
    total = len(exercises)
    return Text.assemble(
        (say(lang, "progress "), "bold"),
        (bar(solved, total), "green"),
        say(lang, " {solved}/{total} exercises solved", solved=solved, total=total),
    )
