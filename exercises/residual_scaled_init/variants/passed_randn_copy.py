# expect: passed
# named_parameters and torch.randn * std copied in (float32 draws, cast to the parameter's
# dtype by copy_), biases and norms told apart by name.
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in reversed(list(model.named_parameters())):
        if name.endswith("c_proj.weight"):
            p.copy_(torch.randn(p.shape) * (std / math.sqrt(2 * n_layers)))
        elif ".ln_" in name or name.startswith("ln_f"):
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        else:
            p.copy_(torch.randn(p.shape) * std)
