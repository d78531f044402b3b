# expect: failed mistake=every_linear_scaled
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    scaled = std / math.sqrt(2 * n_layers)
    for module in model.modules():
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, 0.0, scaled)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, 0.0, std)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
