"""The notebooks' quick local check: a few public cases run in the learner's own kernel.

This is a sanity check for the learner, not the grader: it runs the forward pass only, on a
handful of float32 inputs, against torch's built-in or the contract's formula. The server's
verdict (many more shapes and dtypes, the backward pass, known-mistake diagnosis) is the one
that counts. It needs torch, which any kernel doing these exercises has; ``addnorm_client``
itself imports it only here.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

# float32 forward passes of a correct implementation differ from torch's fused kernels by a few
# ulps per reduction; these bounds sit well above that and well below any real mistake.
RTOL = 1e-4
ATOL = 1e-5


@dataclass(frozen=True)
class LocalCase:
    """One input: how to build the learner's module, the parameters to load, the answer."""

    name: str
    x: torch.Tensor
    build: Callable[[], nn.Module]
    expected: torch.Tensor
    state: Mapping[str, torch.Tensor] = field(default_factory=dict)


@dataclass(frozen=True)
class LocalResult:
    name: str
    shape: tuple[int, ...]
    ok: bool
    max_abs_error: float | None
    note: str


def _where(exc: BaseException) -> str:
    # The learner's own frame is the interesting one; torch's frames below it are noise.
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if "site-packages" not in frame.filename and frame.filename != __file__
    ]
    return f" (line {frames[-1].lineno})" if frames else ""


def run_case(case: LocalCase) -> LocalResult:
    shape = tuple(case.x.shape)
    try:
        module = case.build()
        if case.state:
            module.load_state_dict(dict(case.state), strict=True)
        module.eval()
        x = case.x.clone()
        with torch.no_grad():
            out = module(x)
    except Exception as exc:
        return LocalResult(
            case.name, shape, False, None, f"{type(exc).__name__}: {exc}{_where(exc)}"
        )
    if not isinstance(out, torch.Tensor):
        return LocalResult(case.name, shape, False, None, f"returned {type(out).__name__}")
    if not torch.equal(x, case.x):
        return LocalResult(case.name, shape, False, None, "modified its input in place")
    if out.shape != case.expected.shape:
        note = f"output shape {tuple(out.shape)}, expected {tuple(case.expected.shape)}"
        return LocalResult(case.name, shape, False, None, note)
    if out.dtype != case.expected.dtype:
        note = f"output dtype {out.dtype}, expected {case.expected.dtype}"
        return LocalResult(case.name, shape, False, None, note)
    error = (out.double() - case.expected.double()).abs()
    worst = float(error.max()) if error.numel() else 0.0
    ok = bool(torch.allclose(out, case.expected, rtol=RTOL, atol=ATOL))
    return LocalResult(case.name, shape, ok, worst, "matches" if ok else "differs")


def format_table(results: Sequence[LocalResult]) -> str:
    rows = [("", "case", "shape", "max abs err", "result")]
    for r in results:
        err = "" if r.max_abs_error is None else f"{r.max_abs_error:.2e}"
        rows.append(("✓" if r.ok else "✗", r.name, str(r.shape), err, r.note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[4]]).rstrip()
        for row in rows
    ]
    passed = sum(r.ok for r in results)
    lines.append(
        f"{passed} of {len(results)} local cases match. Local check only (forward pass, float32, "
        "a few inputs): it does not replace the server's verdict; submit below for that."
    )
    return "\n".join(lines)


def check(cases: Sequence[LocalCase]) -> None:
    """Run ``cases`` and print a table; never raises, so the notebook goes on to the submit cell."""
    print(format_table([run_case(case) for case in cases]))
