# expect: passed
# trunc_normal_ with its default bounds a = -2, b = 2: at std 0.02 they sit 100 standard
# deviations out and cut nothing, so the draw is N(0, std) in law.
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj") else std
            nn.init.trunc_normal_(module.weight, std=s)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
