# expect: failed mistake=hooks_accumulate
from __future__ import annotations

import math

import torch
from torch import nn

RATIO_ALARM = 1e-2
STD_LOW, STD_HIGH = 0.5, 2.0


class _Recorder:
    def __init__(self) -> None:
        self.values: list[torch.Tensor] = []

    def __call__(self, module: nn.Module, inputs: object, z: torch.Tensor) -> None:
        self.values.append(z.detach().std())


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

    recorder = _Recorder()
    columns = []
    handles: list[torch.utils.hooks.RemovableHandle] = []
    try:
        for t in range(steps):
            for layer in layers:
                layer.register_forward_hook(recorder)  # the handle is dropped: never removed
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
                ratios.append(
                    lr * torch.linalg.vector_norm(grad) / torch.linalg.vector_norm(layer.weight)
                )
            optimiser.step()
            ratio, std = (
                torch.stack(ratios).detach(),
                torch.stack(recorder.values[t * depth : (t + 1) * depth]),
            )
            alarm = (ratio > RATIO_ALARM) | (std < STD_LOW) | (std > STD_HIGH)
            columns.append(torch.stack([ratio, std, alarm.to(x.dtype)]))
    finally:
        for handle in handles:
            handle.remove()
    return torch.stack(columns, dim=-1)
