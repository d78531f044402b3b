# expect: failed mistake=uniform_not_normal
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        else:
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj.weight") else std
            p.copy_((torch.rand(p.shape) * 2 - 1) * math.sqrt(3.0) * s)
