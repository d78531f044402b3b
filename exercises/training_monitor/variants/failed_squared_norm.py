# expect: failed mistake=squared_norm
from __future__ import annotations

import math

import torch
from torch import nn

RATIO_ALARM = 1e-2
STD_LOW, STD_HIGH = 0.5, 2.0


def training_monitor(
    x: torch.Tensor,
    target: torch.Tensor,
    depth: int,
    steps: int,
    lr: float,
    gain: float,
    seed: int,
) -> torch.Tensor:
    dim = x.shape[-1]
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        # He's scale for a ReLU's input; the first layer's input is x itself.
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    layers = [layer.to(x.dtype) for layer in layers]
    optimiser = torch.optim.SGD([p for layer in layers for p in layer.parameters()], lr=lr)

    stds: list[torch.Tensor] = []  # this step's, one per layer in forward order
    handles = [
        layer.register_forward_hook(lambda _m, _i, z: stds.append(z.detach().std()))
        for layer in layers
    ]
    columns = []
    try:
        for _ in range(steps):
            stds.clear()
            h = x
            for i, layer in enumerate(layers):
                h = layer(h if i == 0 else torch.relu(h))
            loss = ((h - target) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            ratios = []
            for layer in layers:  # before the update: the step's size against its start
                grad = layer.weight.grad
                assert grad is not None
                ratios.append(lr * (grad * grad).sum() / (layer.weight * layer.weight).sum())
            optimiser.step()
            ratio, std = torch.stack(ratios).detach(), torch.stack(stds)
            alarm = (ratio > RATIO_ALARM) | (std < STD_LOW) | (std > STD_HIGH)
            columns.append(torch.stack([ratio, std, alarm.to(x.dtype)]))
    finally:
        for handle in handles:
            handle.remove()
    return torch.stack(columns, dim=-1)
