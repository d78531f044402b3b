"""The lab's measurement written independently of ``spec.py``'s reference: the network as plain
tensor code over the weights ``nn`` draws (same seed, same order), each gradient from
``torch.autograd.grad``, the SGD update written out by hand, the norms as square roots of sums of
squares and each layer's output kept in the loop rather than hooked."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def _weights(
    dim: int, depth: int, gain: float, dtype: torch.dtype, seed: int
) -> list[list[torch.Tensor]]:
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    params = []
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        params.append([layer.weight.detach().to(dtype), torch.zeros(dim, dtype=dtype)])
    return params


def expected_output(case: Case, functions: Any, step: Call) -> Any:
    del case, functions
    x, target = step.inputs
    depth, steps, lr, gain, seed = step.args
    assert isinstance(lr, float) and isinstance(gain, float)
    params = _weights(x.shape[-1], int(depth), gain, x.dtype, int(seed))
    columns = []
    with torch.enable_grad():
        for _ in range(int(steps)):
            leaves = [[p.clone().requires_grad_(True) for p in pair] for pair in params]
            h, stds = x, []
            for i, (w, b) in enumerate(leaves):
                h = F.linear(h if i == 0 else F.relu(h), w, b)
                d = h.detach()
                stds.append(torch.sqrt(((d - d.mean()) ** 2).sum() / (d.numel() - 1)))
            loss = ((h - target) ** 2).mean()
            grads = torch.autograd.grad(loss, [p for pair in leaves for p in pair])
            ratios = []
            for i, (w, _b) in enumerate(params):
                gw = grads[2 * i]
                ratios.append(lr * torch.sqrt((gw * gw).sum()) / torch.sqrt((w * w).sum()))
            params = [
                [w - lr * grads[2 * i], b - lr * grads[2 * i + 1]]
                for i, (w, b) in enumerate(params)
            ]
            r, s = torch.stack(ratios), torch.stack(stds)
            alarm = ((r > 1e-2) | (s < 0.5) | (s > 2.0)).to(x.dtype)
            columns.append(torch.stack([r, s, alarm]))
    return torch.stack(columns, dim=-1).detach()
