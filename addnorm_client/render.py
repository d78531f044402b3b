"""Verdicts as HTML for Jupyter and as plain text everywhere else, and the notebooks' submit cell.

A verdict is shown through IPython's display machinery when a kernel is running: the object
carries both ``_repr_html_`` and a plain-text ``repr``, so JupyterLab draws the table, a terminal
IPython prints the text, and nbclient stores both. Outside IPython the text is printed.

How the submit cell finds the learner's code: the exercise cell starts with a marker line,
``# addnorm: exercise <slug>``, and ``submit_cell`` takes the most recently *executed* cell that
carries it from IPython's input history. That is exactly the code whose class the kernel holds
(so the local check and the submission agree), it needs no cell magic (the cell stays plain
Python that pastes anywhere, and jupytext's percent format keeps it verbatim), no file written
next to the notebook, and it works the same in JupyterLab and under nbclient. When the notebook
runs as a plain script (``python notebooks/layer_norm.py``) there is no history, so the marked
cell is read from the script's own source instead.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from addnorm_client.client import AddnormError, Client

MARKER_PREFIX = "# addnorm: exercise"
# Enough failing checks to see the pattern without burying the diagnosis under a long table.
MAX_FAILING_SHOWN = 12

_COLOURS = {
    "passed": "#1a7f37",
    "failed": "#cf222e",
    "error": "#bc4c00",
    "timeout": "#8250df",
    "crashed": "#8250df",
    "rejected": "#9a6700",
}
_CHECK_COLUMNS = ("case", "shape", "dtype", "max abs err", "max rel err", "worst index", "message")


def exercise_marker(slug: str) -> str:
    """The first line of a notebook's exercise cell, by which ``submit_cell`` finds it."""
    return f"{MARKER_PREFIX} {slug}"


# -- finding the learner's code ---------------------------------------------------------------


def _has_marker(source: str, marker: str) -> bool:
    return any(line.strip() == marker for line in source.splitlines())


def _ipython() -> Any:
    # Only look for a shell if IPython is already imported: a plain script must not import it.
    module = sys.modules.get("IPython")
    return None if module is None else module.get_ipython()


def _cells_of_script(text: str) -> list[str]:
    cells: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("# %%"):
            cells.append([])
        else:
            cells[-1].append(line)
    return ["\n".join(lines) + "\n" for lines in cells]


def exercise_source(slug: str) -> str:
    """The code of the exercise cell for ``slug``, as last executed (see the module docstring)."""
    marker = exercise_marker(slug)
    shell = _ipython()
    if shell is not None:
        history = getattr(shell, "history_manager", None)
        executed: Sequence[str] = (
            history.input_hist_raw if history is not None else shell.user_ns.get("In", [])
        )
        for source in reversed(executed):
            if _has_marker(source, marker):
                return str(source)
        raise AddnormError(
            f"run the exercise cell first: no executed cell starts with `{marker}` "
            "(keep that line at the top of the cell with your class)"
        )
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    if script is not None:
        for cell in _cells_of_script(Path(script).read_text(encoding="utf-8")):
            if _has_marker(cell, marker):
                return cell
    raise AddnormError(
        f"cannot find the exercise code: no cell starts with `{marker}`; "
        "pass it explicitly with submit_cell(slug, code=...)"
    )


# -- rendering ---------------------------------------------------------------------------------


def _fmt_error(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, int | float):
        return f"{value:.2e}"
    return str(value)


def _fmt_shape(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return "" if value is None else str(value)


def _check_cells(check: Mapping[str, Any]) -> list[str]:
    # A case yields several checks: the output and each gradient ("target").
    target = f" [{check['target']}]" if check.get("target") else ""
    return [
        f"{check.get('case', '')}{target}",
        _fmt_shape(check.get("shape")),
        str(check.get("dtype") or ""),
        _fmt_error(check.get("max_abs_error")),
        _fmt_error(check.get("max_rel_error")),
        _fmt_shape(check.get("worst_index")),
        str(check.get("message") or ""),
    ]


def _split_checks(
    verdict: Mapping[str, Any],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    checks: Iterable[Mapping[str, Any]] = verdict.get("checks") or []
    failing = [c for c in checks if not c.get("passed")]
    passing = [c for c in checks if c.get("passed")]
    return failing, passing


def _extra_output(verdict: Mapping[str, Any]) -> list[tuple[str, str]]:
    # The exception the code raised and the learner's own prints help most with `error`.
    extra = []
    error = verdict.get("error")
    if isinstance(error, Mapping) and error.get("type"):
        line = f" (line {error['line']})" if error.get("line") else ""
        extra.append(("exception", f"{error['type']}: {error.get('message', '')}{line}"))
    extra += [(k, str(verdict[k])) for k in ("traceback", "stdout", "stderr") if verdict.get(k)]
    return extra


def _timings(verdict: Mapping[str, Any]) -> str:
    timings = verdict.get("timings_ms") or {}
    if not isinstance(timings, Mapping) or not timings:
        return ""
    parts = []
    for key, value in timings.items():
        text = f"{value:.0f}" if isinstance(value, int | float) else str(value)
        parts.append(f"{key} {text} ms")
    return ", ".join(parts)


def render_text(verdict: Mapping[str, Any], slug: str | None = None) -> str:
    """The verdict as plain text: outcome, diagnosis, failing checks, a count of the rest."""
    name = str(verdict.get("verdict", "unknown"))
    head = f"{slug}: " if slug else ""
    lines = [f"{head}{name.upper()}: {verdict.get('message', '')}".rstrip()]
    diagnosis = verdict.get("diagnosis")
    if isinstance(diagnosis, Mapping):
        lines.append(f"Diagnosis: {diagnosis.get('title', diagnosis.get('name', ''))}")
        if diagnosis.get("explanation"):
            lines.append(f"  {diagnosis['explanation']}")
    failing, passing = _split_checks(verdict)
    if failing:
        rows = [list(_CHECK_COLUMNS)] + [_check_cells(c) for c in failing[:MAX_FAILING_SHOWN]]
        widths = [max(len(r[i]) for r in rows) for i in range(len(_CHECK_COLUMNS) - 1)]
        lines.append("Failing checks:")
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            lines.append("  " + "  ".join([*cells, row[-1]]).rstrip())
        if len(failing) > MAX_FAILING_SHOWN:
            lines.append(f"  ... and {len(failing) - MAX_FAILING_SHOWN} more failing")
    if passing:
        total = len(failing) + len(passing)
        lines.append(f"{len(passing)} of {total} checks passed.")
    for key, text in _extra_output(verdict):
        lines.append(f"{key}:")
        lines.extend("  " + line for line in text.splitlines())
    timings = _timings(verdict)
    if timings:
        lines.append(f"Timings: {timings}")
    return "\n".join(lines)


def _html_table(checks: Sequence[Mapping[str, Any]]) -> str:
    head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in _CHECK_COLUMNS)
    body = []
    for check in checks:
        mark = "&#10003;" if check.get("passed") else "&#10007;"
        colour = _COLOURS["passed"] if check.get("passed") else _COLOURS["failed"]
        cells = _check_cells(check)
        cells_html = "".join(
            f"<td style='text-align:left;white-space:pre-wrap'>{html.escape(cell)}</td>"
            for cell in cells
        )
        body.append(f"<tr><td style='color:{colour}'>{mark}</td>{cells_html}</tr>")
    return f"<table><thead><tr><th></th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_html(verdict: Mapping[str, Any], slug: str | None = None) -> str:
    """The verdict as an HTML fragment; every server-provided string is escaped."""
    name = str(verdict.get("verdict", "unknown"))
    colour = _COLOURS.get(name, "#57606a")
    title = f"{html.escape(slug)}: " if slug else ""
    parts = [
        f"<div class='addnorm-verdict' data-verdict='{html.escape(name)}' "
        f"style='border-left:6px solid {colour};padding:6px 12px'>",
        f"<p><strong style='color:{colour}'>{title}{html.escape(name.upper())}</strong> "
        f"{html.escape(str(verdict.get('message', '')))}</p>",
    ]
    diagnosis = verdict.get("diagnosis")
    if isinstance(diagnosis, Mapping):
        parts.append(
            "<div style='background:#fff8c5;border:1px solid #d4a72c;padding:6px 10px;"
            "margin:6px 0'>"
            f"<strong>Diagnosis: {html.escape(str(diagnosis.get('title', '')))}</strong> "
            f"<code>{html.escape(str(diagnosis.get('name', '')))}</code>"
            f"<p>{html.escape(str(diagnosis.get('explanation', '')))}</p></div>"
        )
    failing, passing = _split_checks(verdict)
    if failing:
        parts.append(f"<p>Failing checks ({len(failing)}):</p>")
        parts.append(_html_table(failing[:MAX_FAILING_SHOWN]))
        if len(failing) > MAX_FAILING_SHOWN:
            parts.append(f"<p>... and {len(failing) - MAX_FAILING_SHOWN} more failing</p>")
    if passing:
        total = len(failing) + len(passing)
        parts.append(
            f"<details><summary>{len(passing)} of {total} checks passed</summary>"
            f"{_html_table(passing)}</details>"
        )
    for key, text in _extra_output(verdict):
        parts.append(f"<p>{html.escape(key)}:</p><pre>{html.escape(text)}</pre>")
    timings = _timings(verdict)
    if timings:
        parts.append(f"<p style='color:#57606a'>Timings: {html.escape(timings)}</p>")
    parts.append("</div>")
    return "".join(parts)


class VerdictView:
    """A verdict that displays as HTML in Jupyter and as text in a terminal."""

    def __init__(self, verdict: Mapping[str, Any], slug: str | None = None) -> None:
        self.verdict = verdict
        self.slug = slug

    def _repr_html_(self) -> str:
        return render_html(self.verdict, self.slug)

    def __repr__(self) -> str:
        return render_text(self.verdict, self.slug)


class Notice:
    """A message for the learner (the server is down, the token is wrong): shown, not raised."""

    def __init__(self, message: str) -> None:
        self.message = message

    def _repr_html_(self) -> str:
        return (
            "<div class='addnorm-notice' style='border-left:6px solid #9a6700;padding:6px 12px'>"
            f"<strong>addnorm:</strong> {html.escape(self.message)}</div>"
        )

    def __repr__(self) -> str:
        return f"addnorm: {self.message}"


def show(obj: object) -> None:
    """Display through IPython when a shell is running, else print the text form."""
    if _ipython() is not None:
        from IPython.display import display

        display(obj)
    else:
        print(repr(obj))


def submit_cell(slug: str, *, code: str | None = None, client: Client | None = None) -> None:
    """Submit the notebook's exercise cell for ``slug`` and show the verdict.

    Problems reaching the server are shown as a notice, never raised, so that a notebook run
    top to bottom (by a learner or by nbclient) always reaches its last cell.
    """
    try:
        source = code if code is not None else exercise_source(slug)
        if client is not None:
            verdict = client.submit(slug, source)
        else:
            with Client() as own:
                verdict = own.submit(slug, source)
    except AddnormError as exc:
        show(Notice(str(exc)))
        return
    show(VerdictView(verdict, slug))
