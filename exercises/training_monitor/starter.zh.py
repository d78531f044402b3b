from __future__ import annotations

import math

import torch
from torch import nn

RATIO_ALARM = 1e-2  # lr * ||grad W|| / ||W|| 超过它就报警
STD_LOW, STD_HIGH = 0.5, 2.0  # 某层输出的标准差超出这个区间就报警


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
    # 约定的模型：保持原样（同一个种子必须得到同样的权重）。
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    layers = [layer.to(x.dtype) for layer in layers]
    optimiser = torch.optim.SGD([p for layer in layers for p in layer.parameters()], lr=lr)
    for _ in range(steps):
        # 前向（z_1 = layers[0](x)，z_l = layers[l](relu(z_{l-1}))），记录每个 z_l 的标准差；
        # loss = ((z_depth - target) ** 2).mean()，反向传播，求各层的比值，然后：
        optimiser.step()
    # 返回 (3, depth, steps)：更新量与权重之比、各 z_l 的标准差、报警。
    raise NotImplementedError("implement training_monitor")
