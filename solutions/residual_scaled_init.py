"""GPT-2's depth-scaled initialisation, written from scratch: one pass over the modules."""

from __future__ import annotations

import math

import torch
from torch import nn


def residual_scaled_init(model: nn.Module, n_layers: int, std: float = 0.02) -> None:
    # The 2 * n_layers residual branches each add their output to the stream: their variances
    # add, so each output projection's variance is divided by 2 * n_layers (its std by the
    # square root). Every other weight keeps N(0, std); biases 0; LayerNorm the identity.
    scaled = std / math.sqrt(2 * n_layers)
    with torch.no_grad():
        for name, module in model.named_modules():
            if isinstance(module, nn.Linear):
                module.weight.normal_(0.0, scaled if name.endswith("c_proj") else std)
                if module.bias is not None:
                    module.bias.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.normal_(0.0, std)
            elif isinstance(module, nn.LayerNorm):
                module.weight.fill_(1.0)
                module.bias.zero_()
