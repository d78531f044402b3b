# expect: passed
# Fresh nn.Parameter objects put in place of the old ones (drawn in float64, cast to the
# module's dtype): the model holds the new tensors, which is what counts.
import math

import torch
from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    scaled = std / math.sqrt(2 * n_layers)
    for name, module in model.named_modules():
        if isinstance(module, nn.LayerNorm):
            module.weight = nn.Parameter(torch.ones_like(module.weight))
            module.bias = nn.Parameter(torch.zeros_like(module.bias))
        elif isinstance(module, (nn.Linear, nn.Embedding)):
            w = module.weight
            s = scaled if name.endswith("c_proj") else std
            drawn = torch.randn(w.shape, dtype=torch.float64) * s
            module.weight = nn.Parameter(drawn.to(w.dtype))
            if getattr(module, "bias", None) is not None:
                module.bias = nn.Parameter(torch.zeros_like(module.bias))
