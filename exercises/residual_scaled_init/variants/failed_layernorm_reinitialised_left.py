# expect: failed mistake=layernorm_reinitialised
import math

from torch import nn


def residual_scaled_init(model, n_layers, std=0.02):
    # Linear and Embedding only: the LayerNorms keep whatever they held (a trained model's).
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            s = std / math.sqrt(2 * n_layers) if name.endswith("c_proj") else std
            nn.init.normal_(module.weight, 0.0, s)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
