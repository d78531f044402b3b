"""Platform-independent shapes for the activation drafts (issue 11, items 1-3).

The scenario platform of issue 9 is not on main yet, so the drafts describe their cases and
known mistakes with these small dataclasses; wiring an exercise into ``exercises/<slug>/``
translates them into the platform's own spec format. Nothing in ``api/`` imports this file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

# Per-dtype elementwise tolerance for "matches the reference": |a - b| <= atol + rtol * |b|.
# These are torch.testing.assert_close's defaults, the bar the platform is expected to keep;
# float16/bfloat16 get one rounding of the output plus a little (the reference computes in
# float32 internally and rounds once).
TOLERANCE: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-5, 1.3e-6),
    torch.float16: (1e-5, 1e-3),
    torch.bfloat16: (1e-5, 1.6e-2),
}


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

    ``function`` says which callable of a function exercise it replaces ("" for a module or
    autograd.Function exercise); ``build`` has the contract's signature.
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: Callable[..., object]
    function: str = ""
