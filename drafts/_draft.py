"""Platform-independent shapes for the activation drafts (issue 11, items 1-3).

The scenario platform of issue 9 is not on main yet, so the drafts describe their cases and
known mistakes with these small dataclasses; wiring an exercise into ``exercises/<slug>/``
translates them into the platform's own spec format. Nothing in ``api/`` imports this file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

# The current grader's rule (api/grading/verdict.py), which the check mirrors: an answer is
# compared with the truth (the reference in float64) and may be off by
# rtol * |truth| + atol * max|truth| + 8 * (how far torch itself, at the input's dtype, is off).
# dtype -> (rtol, atol as a fraction of the truth's largest finite magnitude).
TOLERANCE: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (2e-4, 2e-5),
    torch.float64: (1e-5, 2e-6),  # admits float32 internals
    torch.bfloat16: (3e-2, 2e-2),
    torch.float16: (5e-3, 2e-3),
}
REFERENCE_ERROR_FACTOR = 8.0


@dataclass(frozen=True)
class Case:
    """One input: ``x`` with its call or constructor arguments and an upstream gradient.

    ``kwargs`` are constructor arguments for module exercises (``approximate``) and call
    arguments for function exercises (``dim``). ``grad_output`` of ``None`` runs the forward
    alone under ``torch.no_grad`` (where an in-place change of ``x`` is looked for).
    """

    name: str
    description: str
    x: torch.Tensor
    kwargs: Mapping[str, object] = field(default_factory=dict)
    grad_output: torch.Tensor | None = None
    # Function exercises: which of the exercise's functions this case calls ("" otherwise).
    function: str = ""


@dataclass(frozen=True)
class Mistake:
    """A wrong implementation learners write, named in both languages.

    ``build`` has the contract's signature: a module class, an ``autograd.Function`` class, or
    for a function exercise a mapping from function name to the wrong function (the functions it
    does not name stay the reference's, so a mistake made in ``log_softmax`` alone is one entry).
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: Callable[..., object] | Mapping[str, Callable[..., torch.Tensor]]


@dataclass(frozen=True)
class DraftMistake:
    """A wrong implementation learners write, with the text that names it in both languages (the
    norm drafts' shape).

    ``build`` follows the exercise's contract (same constructor, same parameters and buffers, or
    for a custom autograd Function the same ``apply`` signature), so it runs where the solution
    runs. ``fails_on`` names the edge-case families on which it must differ from the reference.
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: Callable[..., object]
    fails_on: tuple[str, ...] = ()
