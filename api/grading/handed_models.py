"""Whole models handed to a function whose contract sets their parameters in place
(``spec.Parameters`` with ``form="model"``): an initialiser such as ``residual_scaled_init``
receives a model, walks its modules (``model.apply``, ``named_parameters``) and rewrites every
parameter; what it leaves behind is what is graded.

Why a module of its own: ``Parameters`` hands bare tensors (a list, a generator, groups), and
an initialiser needs module types and names to tell a LayerNorm from a Linear and a residual
output projection from the rest. ``modargs`` builds modules for a constructor and counts their
calls; here parent and child build the same model from its ``ModuleArg`` description (registry
entry and dims), load the case's tensors into it as its parameters, and read it back by name
after the call: a learner may replace a parameter (``m.weight = nn.Parameter(...)``) rather
than fill it, and the model's own names are what the contract talks about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from api.grading.spec import ModuleArg

MAX_DIM = 4096


class CausalSelfAttention(nn.Module):
    """GPT-2's attention, its parameters only (nanoGPT's names): ``c_attn`` the fused q/k/v
    projection (dim -> 3 dim), ``c_proj`` the output projection back onto the residual stream."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)


class MLP(nn.Module):
    """GPT-2's MLP: ``c_fc`` up (dim -> hidden, 4 dim in GPT-2), ``c_proj`` down onto the
    residual stream."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.c_fc = nn.Linear(dim, hidden)
        self.c_proj = nn.Linear(hidden, dim)


class Block(nn.Module):
    """A pre-norm block: ``x + attn(ln_1(x))``, then ``x + mlp(ln_2(x))``."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim, hidden)


class TinyGPT(nn.Module):
    """A small GPT-2-style stack (parameters only; the grader never runs it forward):
    token and position embeddings, ``n_layers`` blocks, a final LayerNorm and an untied head."""

    def __init__(self, vocab: int, n_ctx: int, dim: int, n_layers: int, hidden: int) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(n_ctx, dim)
        self.h = nn.ModuleList(Block(dim, hidden) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)


REGISTRY: dict[str, tuple[int, Callable[..., nn.Module]]] = {
    # dims: vocab, n_ctx, dim, n_layers, hidden
    "tiny_gpt": (5, TinyGPT),
}


def _check(desc: ModuleArg) -> Callable[..., nn.Module]:
    entry = REGISTRY.get(desc.kind)
    if entry is None:
        raise ValueError(f"unknown model {desc.kind!r}")
    arity, build = entry
    if len(desc.dims) != arity or not all(0 < d <= MAX_DIM for d in desc.dims):
        raise ValueError(f"model {desc.kind!r}: bad dims {desc.dims}")
    return build


def blank(desc: ModuleArg) -> nn.Module:
    """The model as its constructor builds it, under ``desc.init_seed`` (the generator's state
    is restored afterwards: the learner's draws are not shifted by ours)."""
    build = _check(desc)
    state = torch.default_generator.get_state()
    torch.default_generator.manual_seed(desc.init_seed)
    try:
        return build(*desc.dims)
    finally:
        torch.default_generator.set_state(state)


def names(desc: ModuleArg) -> tuple[str, ...]:
    """The model's parameter names, in ``named_parameters`` order."""
    return tuple(n for n, _ in blank(desc).named_parameters())


def hand(desc: ModuleArg, given: Sequence[str], params: Sequence[nn.Parameter]) -> nn.Module:
    """The model with ``params`` as its parameters (the very objects, so that a fill in place
    shows on them), ``given`` their names; every name of the model must be given."""
    # Built as its constructor builds it (on the meta device instead, Embedding's normal_
    # went through torch's Python references and imported torch._dynamo: 4 s in a fresh
    # child), then every parameter replaced.
    model = blank(desc)
    own = tuple(n for n, _ in model.named_parameters())
    if tuple(given) != own:
        raise ValueError(
            f"model {desc.kind!r}: the case names {len(given)} parameters, not its own"
        )
    for name, p in zip(given, params, strict=True):
        owner_path, _, leaf = name.rpartition(".")
        owner = model.get_submodule(owner_path)
        if tuple(getattr(owner, leaf).shape) != tuple(p.shape):
            raise ValueError(f"model {desc.kind!r}: {name} has shape {tuple(p.shape)}")
        setattr(owner, leaf, p)
    return model


def read(model: nn.Module, given: Sequence[str]) -> dict[str, torch.Tensor | None]:
    """Every named parameter as the model holds it now (None where the name is gone or no
    longer a tensor): a parameter replaced by the learner is read, not the one handed in."""
    found: dict[str, torch.Tensor | None] = {}
    for name in given:
        owner_path, _, leaf = name.rpartition(".")
        try:
            value = getattr(model.get_submodule(owner_path), leaf)
        except AttributeError:
            value = None
        found[name] = value if isinstance(value, torch.Tensor) else None
    return found
