from __future__ import annotations

import math

import torch
from torch import nn

RATIO_ALARM = 1e-2  # an alarm when lr * ||grad W|| / ||W|| is above this
STD_LOW, STD_HIGH = 0.5, 2.0  # an alarm when a layer's output std is outside this band


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
    # The contract's model: keep this as it is (the same seed must give the same weights).
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    layers = [layer.to(x.dtype) for layer in layers]
    optimiser = torch.optim.SGD([p for layer in layers for p in layer.parameters()], lr=lr)
    for _ in range(steps):
        # Forward (z_1 = layers[0](x), z_l = layers[l](relu(z_{l-1}))), record each z_l's std;
        # loss = ((z_depth - target) ** 2).mean(), backward, each layer's ratio, then:
        optimiser.step()
    # Return (3, depth, steps): the update-to-weight ratios, the stds of each z_l, the alarms.
    raise NotImplementedError("implement training_monitor")
