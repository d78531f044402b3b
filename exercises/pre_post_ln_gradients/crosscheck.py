"""The lab's measurement written independently of ``spec.py``'s reference: the two stacks as
plain tensor code over the weights ``nn`` draws (same seed, same order), the gradients from
``torch.autograd.grad`` of the loss with respect to each block's ff2.weight."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def _weights(dim: int, depth: int, dtype: torch.dtype, seed: int) -> list[dict[str, Any]]:
    torch.manual_seed(seed)
    blocks = []
    for _ in range(depth):
        norm, ff1, ff2 = nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        nn.init.xavier_uniform_(ff1.weight)
        nn.init.xavier_uniform_(ff2.weight)
        blocks.append(
            {
                k: v.detach().to(dtype).requires_grad_(True)
                for k, v in {
                    "g": norm.weight,
                    "b": norm.bias,
                    "w1": ff1.weight,
                    "b1": ff1.bias,
                    "w2": ff2.weight,
                    "b2": ff2.bias,
                }.items()
            }
        )
    return blocks


def _norm(h: torch.Tensor, g: torch.Tensor | None = None, b: torch.Tensor | None = None) -> Any:
    mu = h.mean(-1, keepdim=True)
    var = ((h - mu) ** 2).mean(-1, keepdim=True)
    out = (h - mu) / torch.sqrt(var + 1e-5)
    if g is None or b is None:
        return out
    return out * g + b


def expected_output(case: Case, functions: Any, step: Call) -> Any:
    del case, functions
    x, target = step.inputs
    depth, seed = int(step.args[0]), int(step.args[1])
    rows = []
    with torch.enable_grad():
        for pre_ln in (True, False):
            ws = _weights(x.shape[-1], depth, x.dtype, seed)
            h = x
            for w in ws:

                def f(u: torch.Tensor, w: dict[str, Any] = w) -> torch.Tensor:
                    mixed = (u + u.mean(-2, keepdim=True)) / 2
                    return F.linear(F.relu(F.linear(mixed, w["w1"], w["b1"])), w["w2"], w["b2"])

                h = h + f(_norm(h, w["g"], w["b"])) if pre_ln else _norm(h + f(h), w["g"], w["b"])
            if pre_ln:
                h = _norm(h)
            loss = ((h - target) ** 2).mean()
            grads = torch.autograd.grad(loss, [w["w2"] for w in ws])
            rows.append(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    return torch.stack(rows).detach()
