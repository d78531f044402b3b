# expect: failed mistake=one_over_n_layers
import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        else:
            p.normal_(0.0, std)
            if name.endswith("c_proj.weight"):
                p.mul_(1.0 / n_layers)
