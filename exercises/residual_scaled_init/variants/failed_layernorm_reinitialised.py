# expect: failed mistake=layernorm_reinitialised
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    # Every parameter drawn, the norms' included.
    for name, p in model.named_parameters():
        if name.endswith("c_proj.weight"):
            p.normal_(0.0, std / math.sqrt(2 * n_layers))
        elif name.endswith("bias") and "ln_" not in name:
            p.zero_()
        else:
            p.normal_(0.0, std)
