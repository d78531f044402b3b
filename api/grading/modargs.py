"""Modules handed to a learner's constructor (a residual block's ``sublayer``), by name.

Parent and child both build a module argument from its ``ModuleArg`` description: the same
registry entry, under the same seed, so the default parameters agree without being sent. The
harness counts the calls each one receives (the contract says how many), which is why the
registry hands out plain modules and the counting lives in the harness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from api.grading.phrase import Phrase
from api.grading.spec import ModuleArg


@dataclass(frozen=True)
class ArgKind:
    build: Callable[..., nn.Module]
    arity: int  # how many dims the description carries
    describe: Callable[..., str]


def _linear(dim: int) -> nn.Module:
    return nn.Linear(dim, dim)


def _mlp(dim: int, hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))


def _zero(dim: int) -> nn.Module:
    # F(x) = 0: a residual block must then reduce to the identity (pre-norm) or norm(x).
    lin = nn.Linear(dim, dim)
    nn.init.zeros_(lin.weight)
    nn.init.zeros_(lin.bias)
    return lin


def _noisy_mlp(dim: int, hidden: int) -> nn.Module:
    # A sublayer with its own randomness in train mode: calling it twice draws twice, so a
    # block that evaluates its sublayer more than once cannot hide behind determinism.
    return nn.Sequential(
        nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(0.25), nn.Linear(hidden, dim)
    )


REGISTRY: dict[str, ArgKind] = {
    "linear": ArgKind(_linear, 1, lambda d: f"Linear({d}, {d})"),
    "mlp": ArgKind(_mlp, 2, lambda d, h: f"Linear({d}, {h}) -> GELU -> Linear({h}, {d})"),
    "zero": ArgKind(_zero, 1, lambda d: "Linear fixed at zero (F(x) = 0)"),
    "noisy_mlp": ArgKind(
        _noisy_mlp,
        2,
        lambda d, h: f"Linear({d}, {h}) -> GELU -> Dropout(0.25) -> Linear({h}, {d})",
    ),
}
MAX_DIM = 4096


def check(desc: ModuleArg) -> ArgKind:
    kind = REGISTRY.get(desc.kind)
    if kind is None:
        raise ValueError(f"unknown module argument kind {desc.kind!r}")
    if len(desc.dims) != kind.arity or not all(0 < d <= MAX_DIM for d in desc.dims):
        raise ValueError(f"module argument {desc.kind!r}: bad dims {desc.dims}")
    return kind


def build(desc: ModuleArg) -> nn.Module:
    """The module, with the default parameters its seed gives (the same in both processes)."""
    kind = check(desc)
    state = torch.default_generator.get_state()
    torch.default_generator.manual_seed(desc.init_seed)
    try:
        return kind.build(*desc.dims)
    finally:
        # The learner's constructor draws from the generator as it would have without us.
        torch.default_generator.set_state(state)


def describe(name: str, desc: ModuleArg) -> str:
    return f"{name} = {check(desc).describe(*desc.dims)}"


# A sublayer said in Chinese where its English is words, not code ("Linear(64, 64)" and
# "Linear(32, 64) -> GELU -> Linear(64, 32)" read the same in both languages).
_WORDS_ZH = {"zero": "固定为零的 Linear（F(x) = 0）"}


def described(name: str, desc: ModuleArg) -> Phrase:
    """``describe`` in both languages."""
    en = check(desc).describe(*desc.dims)
    return Phrase(f"{name} = {en}", f"{name} = {_WORDS_ZH.get(desc.kind, en)}")
