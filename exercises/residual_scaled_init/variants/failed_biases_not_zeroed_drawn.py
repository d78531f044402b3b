# expect: failed mistake=biases_not_zeroed
import math

import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("c_proj.weight"):
            p.normal_(0.0, std / math.sqrt(2 * n_layers))
        else:
            p.normal_(0.0, std)  # biases drawn like the weights
