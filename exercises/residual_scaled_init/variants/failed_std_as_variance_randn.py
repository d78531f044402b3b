# expect: failed mistake=std_as_variance
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    var = std**2
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        elif name.endswith("c_proj.weight"):
            p.copy_(torch.randn(p.shape) * var / math.sqrt(2 * n_layers))
        else:
            p.copy_(torch.randn(p.shape) * var)
