"""The saved-bytes meter (``harness._graph_saved_bytes``) counts every tensor reachable from
what backward keeps, however deeply a Function's ctx nests it (issue 47): a list in a list, a
dict, a tuple in a dict, a set, a container that holds itself. And the checkpointed FFN that
hides its activations there is over its budget, as the one that keeps them on ``ctx.h`` is."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F

from api.grading import harness
from tests.exercises import golden

N, DIM, HIDDEN = 6, 16, 64
FLOAT = 4
REPO = Path(__file__).resolve().parents[2]


def _keeps(hide: str) -> type[torch.autograd.Function]:
    class _Hidden(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor, w1: torch.Tensor) -> torch.Tensor:
            h = F.gelu(F.linear(x, w1))
            if hide == "list_in_list":
                ctx.kept = [[h]]
            elif hide == "dict":
                ctx.kept = {"h": h}
            elif hide == "tuple_in_dict":
                ctx.kept = {"deep": (None, [h])}
            elif hide == "set_in_list":
                ctx.kept = [{h}]
            elif hide == "cycle":
                box: list[Any] = [h]
                box.append(box)
                ctx.kept = box
            return h.sum(-1)

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> Any:
            raise AssertionError("not called here")

    return _Hidden


@pytest.mark.parametrize("hide", ["list_in_list", "dict", "tuple_in_dict", "set_in_list", "cycle"])
def test_a_tensor_nested_on_ctx_counts(hide: str) -> None:
    torch.manual_seed(0)
    x = torch.randn(N, DIM, requires_grad=True)
    w1 = torch.nn.Parameter(torch.randn(HIDDEN, DIM))
    out = _keeps(hide).apply(x, w1)
    kept = harness._graph_saved_bytes([out.grad_fn], {harness._storage(w1)})
    assert kept == N * HIDDEN * FLOAT


def test_the_walk_is_bounded() -> None:
    torch.manual_seed(0)
    x = torch.randn(N, DIM, requires_grad=True)
    w1 = torch.nn.Parameter(torch.randn(HIDDEN, DIM))

    class _Deep(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor, w1: torch.Tensor) -> torch.Tensor:
            deep: list[Any] = []
            for _ in range(100_000):
                deep = [deep]
            ctx.kept = deep
            return F.linear(x, w1).sum(-1)

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> Any:
            raise AssertionError("not called here")

    out = _Deep.apply(x, w1)
    assert harness._graph_saved_bytes([out.grad_fn], set()) == 0  # and it returns


_ON_CTX = (
    REPO / "exercises/checkpointed_ffn/variants/failed_activations_kept_on_ctx.py"
).read_text()
_HIDDEN = {
    "list_in_list": (
        "ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2 = x, h, a, w1, w2",
        "ctx.box = [[x, h, a], [w1, w2]]",
        "x, h, a, w1, w2 = ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2",
        "(x, h, a), (w1, w2) = ctx.box",
    ),
    "dict": (
        "ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2 = x, h, a, w1, w2",
        "ctx.box = {'x': x, 'h': h, 'a': a, 'w': (w1, w2)}",
        "x, h, a, w1, w2 = ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2",
        "b = ctx.box; x, h, a, (w1, w2) = b['x'], b['h'], b['a'], b['w']",
    ),
    "tuple_in_dict": (
        "ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2 = x, h, a, w1, w2",
        "ctx.box = {'all': (x, (h, a), [w1, w2])}",
        "x, h, a, w1, w2 = ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2",
        "x, (h, a), (w1, w2) = ctx.box['all']",
    ),
}


@pytest.mark.parametrize("hide", sorted(_HIDDEN))
def test_a_checkpoint_hiding_activations_in_containers_is_over_budget(hide: str) -> None:
    from exercises.checkpointed_ffn.spec import SPEC

    keep, nested, read, unpacked = _HIDDEN[hide]
    assert keep in _ON_CTX and read in _ON_CTX
    code = _ON_CTX.replace(keep, nested).replace(read, unpacked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdict = golden.grade(code, SPEC)
    assert verdict.status == "failed", verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "saved_bytes_over_budget"
