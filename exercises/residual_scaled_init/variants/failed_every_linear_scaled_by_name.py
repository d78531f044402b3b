# expect: failed mistake=every_linear_scaled
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        elif name.startswith(("wte", "wpe")):
            p.normal_(0.0, std)
        else:
            p.normal_(0.0, std / math.sqrt(2 * n_layers))
