# expect: failed mistake=sqrt_n_layers
import torch


@torch.no_grad()
def residual_scaled_init(model, n_layers, std=0.02):
    for name, p in model.named_parameters():
        if "ln_" in name:
            p.fill_(1.0 if name.endswith("weight") else 0.0)
        elif name.endswith("bias"):
            p.zero_()
        elif name.endswith("c_proj.weight"):
            p.copy_(torch.randn(p.shape) * std * n_layers**-0.5)
        else:
            p.copy_(torch.randn(p.shape) * std)
