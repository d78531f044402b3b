# expect: passed
# .data assigned from randn_like (the parameter's dtype and layout), the depth factor applied
# after the draw.
import math

import torch


def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.data = torch.ones_like(p) if name.endswith("weight") else torch.zeros_like(p)
        elif name.endswith("bias"):
            p.data = torch.zeros_like(p)
        else:
            p.data = torch.randn_like(p) * std
            if name.endswith("c_proj.weight"):
                p.data /= math.sqrt(2.0 * n_layers)
