# expect: failed mistake=biases_not_zeroed
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj") else std
            nn.init.normal_(module.weight, 0.0, s)  # the biases left as PyTorch made them
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
