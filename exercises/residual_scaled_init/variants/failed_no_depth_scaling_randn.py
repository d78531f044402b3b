# expect: failed mistake=no_depth_scaling
import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif p.dim() == 2:
            p.copy_(torch.randn(p.shape) * std)
        else:
            p.zero_()
