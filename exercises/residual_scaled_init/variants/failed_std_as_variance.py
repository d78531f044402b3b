# expect: failed mistake=std_as_variance
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj") else std
            nn.init.normal_(module.weight, 0.0, s**2)  # a variance where a std is due
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
