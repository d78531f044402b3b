# expect: failed mistake=uniform_not_normal
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj") else std
            a = math.sqrt(3.0) * s  # a uniform of standard deviation s
            nn.init.uniform_(module.weight, -a, a)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
