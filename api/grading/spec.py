"""The contract between an exercise's content (``exercises/<slug>/spec.py``) and the grader.

Everything here runs in the trusted parent: specs build the reference module, draw the cases
and describe the known mistakes. The untrusted child only ever sees a ``Case`` as plain data
(see ``wire.py``), never a spec object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import torch
from torch import nn

InitValue = int | float | bool
SublayerKind = Literal["linear", "mlp", "zero"]


@dataclass(frozen=True)
class Sublayer:
    """The sublayer handed to ``residual_block``; parent and child both build it from this."""

    kind: SublayerKind
    dim: int
    hidden: int = 0


@dataclass(frozen=True)
class Case:
    """One input on which the submission is run and compared with the reference.

    ``state`` is loaded with a strict ``load_state_dict``; ``None`` keeps the module's own
    initialisation (which must then match the reference's). ``grad_output`` drives the backward
    pass; ``None`` runs the forward alone under ``torch.no_grad`` (the in-place mutation check).
    """

    name: str
    description: str
    x: torch.Tensor
    init_kwargs: Mapping[str, InitValue] = field(default_factory=dict)
    state: Mapping[str, torch.Tensor] | None = None
    grad_output: torch.Tensor | None = None
    train: bool = False
    seed: int = 0
    sublayer: Sublayer | None = None


ModuleFactory = Callable[..., nn.Module]  # called as factory(**init_kwargs[, sublayer=...])


@dataclass(frozen=True)
class KnownMistake:
    """A wrong implementation learners often write, run on the same inputs to name their error.

    ``build`` has the exercise's constructor contract (init kwargs, optional sublayer). A mistake
    whose parameters differ from the contract (an extra bias, say) is matched on the names and
    shapes of its parameters; all others are matched on outputs and gradients.
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: ModuleFactory


@dataclass(frozen=True)
class ExerciseSpec:
    slug: str
    class_name: str
    reference: ModuleFactory
    make_cases: Callable[[torch.Generator], list[Case]]
    mistakes: Sequence[KnownMistake] = ()
    # Qualified names of callables the submission may not reach, by any name: the grader trips
    # on them at run time in the child and looks for them in the source in the parent.
    banned: Sequence[str] = ()
    # Extra slack on top of the dtype's tolerance, for exercises whose outputs pass through more
    # rounding steps (a FFN's three matmuls) than a norm's.
    tolerance_scale: float = 1.0
