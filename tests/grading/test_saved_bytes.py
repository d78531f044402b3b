"""The saved-bytes measurement behind ``ExerciseSpec.saved_bytes_budget`` (``harness``): what
an autograd graph keeps for backward, read from the graph itself, in-process.

It counts the activations a plain FFN keeps and not those a recomputing Function frees; the
module's parameters are left out; tensors left on a Function's ctx count; and saved-tensor
hooks the submission pushes cannot hide anything, since reading a saved field unpacks it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading import harness

N, DIM, HIDDEN = 6, 16, 64
FLOAT = 4  # bytes per float32 element


def _ffn(x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
    w1, b1, w2, b2 = params
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, *params)
        return _ffn(x, *params)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:
        raise AssertionError("not called here")


class _OnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
        w1, b1, w2, b2 = params
        ctx.hidden = F.gelu(F.linear(x, w1, b1))  # kept where hooks never look
        return F.linear(ctx.hidden, w2, b2)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:
        raise AssertionError("not called here")


def _setup() -> tuple[torch.Tensor, list[nn.Parameter], set[int]]:
    torch.manual_seed(0)
    x = torch.randn(N, DIM, requires_grad=True)
    params = [
        nn.Parameter(torch.randn(HIDDEN, DIM)),
        nn.Parameter(torch.randn(HIDDEN)),
        nn.Parameter(torch.randn(DIM, HIDDEN)),
        nn.Parameter(torch.randn(DIM)),
    ]
    return x, params, {harness._storage(p) for p in params}


def test_a_plain_ffn_keeps_its_two_activations_and_its_input() -> None:
    x, params, excluded = _setup()
    out = _ffn(x, *params)
    kept = harness._graph_saved_bytes([out.grad_fn], excluded)
    assert kept == (N * DIM + 2 * N * HIDDEN) * FLOAT


def test_parameters_are_left_out_and_counted_when_not_excluded() -> None:
    x, params, excluded = _setup()
    out = _ffn(x, *params)
    everything = harness._graph_saved_bytes([out.grad_fn], set())
    assert everything == harness._graph_saved_bytes([out.grad_fn], excluded) + 2 * (
        HIDDEN * DIM * FLOAT
    )


def test_a_recomputing_function_keeps_only_its_input() -> None:
    x, params, excluded = _setup()
    out = _Recompute.apply(x, *params)  # type: ignore[no-untyped-call]
    assert harness._graph_saved_bytes([out.grad_fn], excluded) == N * DIM * FLOAT


def test_tensors_on_a_functions_ctx_count() -> None:
    x, params, excluded = _setup()
    out = _OnCtx.apply(x, *params)  # type: ignore[no-untyped-call]
    assert harness._graph_saved_bytes([out.grad_fn], excluded) == N * HIDDEN * FLOAT


def test_saved_tensor_hooks_of_the_submission_hide_nothing() -> None:
    x, params, excluded = _setup()
    stash: dict[int, torch.Tensor] = {}

    def pack(t: torch.Tensor) -> int:  # the tensor leaves autograd's sight, a key comes back
        stash[len(stash)] = t
        return len(stash) - 1

    with torch.autograd.graph.saved_tensors_hooks(pack, stash.__getitem__):
        out = _ffn(x, *params)
    kept = harness._graph_saved_bytes([out.grad_fn], excluded)
    assert stash and kept == (N * DIM + 2 * N * HIDDEN) * FLOAT


def test_a_saved_tensor_made_anew_on_every_read_counts_once_each() -> None:
    """An unpack hook that makes a new tensor on every read (as a checkpoint's recomputation
    does): each one must be counted, though it is freed as soon as nothing holds it and the
    next one may be given its address."""
    x, params, excluded = _setup()
    stash: list[torch.Tensor] = []

    def pack(t: torch.Tensor) -> int:
        stash.append(t)
        return len(stash) - 1

    def unpack(key: int) -> torch.Tensor:
        return stash[key].clone()

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = _ffn(x, *params)
    counts = {harness._graph_saved_bytes([out.grad_fn], excluded) for _ in range(5)}
    # Parameters come back as clones too (new storages, not excluded): they count here.
    assert counts == {(N * DIM + 2 * N * HIDDEN + 2 * HIDDEN * DIM) * FLOAT}
