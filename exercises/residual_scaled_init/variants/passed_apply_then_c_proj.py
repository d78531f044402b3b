# expect: passed
# nanoGPT's way: model.apply with torch.nn.init, then a second pass that redraws every
# c_proj.weight at the depth-scaled std (its draws differ from the reference's stream).
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    def init(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    model.apply(init)
    for name, p in model.named_parameters():
        if name.endswith("c_proj.weight"):
            nn.init.normal_(p, mean=0.0, std=std / math.sqrt(2 * n_layers))
