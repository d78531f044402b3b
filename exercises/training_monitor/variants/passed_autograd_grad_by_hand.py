# expect: passed
# Another correct spelling: no optimiser and no hooks. The gradients come from
# torch.autograd.grad, the update is written out under no_grad, each std is taken as the square
# root of the unbiased variance, and every layer's numbers go straight into a preallocated answer.
from __future__ import annotations

import math

import torch
from torch import nn


def training_monitor(x, target, depth, steps, lr, gain, seed):
    dim = x.shape[-1]
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    layers = [layer.to(x.dtype) for layer in layers]
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    out = torch.zeros(3, depth, steps, dtype=x.dtype)
    for step in range(steps):
        h = x
        for i, layer in enumerate(layers):
            h = layer(torch.relu(h) if i > 0 else h)
            out[1, i, step] = h.detach().var().sqrt()
        loss = ((h - target) ** 2).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for i, layer in enumerate(layers):
                g = grads[2 * i]
                out[0, i, step] = lr * g.norm() / layer.weight.norm()
            for p, g in zip(params, grads, strict=True):
                p -= lr * g
    ratio, std = out[0], out[1]
    out[2] = ((ratio > 1e-2) | (std < 0.5) | (std > 2.0)).to(x.dtype)
    return out
