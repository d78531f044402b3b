# expect: failed mistake=in_place_mutation
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        drop = ~torch.empty_like(x).bernoulli_(1 - self.p).bool()
        if x.requires_grad:
            return x.masked_fill(drop, 0.0) / (1 - self.p)
        return x.masked_fill_(drop, 0.0).div_(1 - self.p)  # saves a copy at inference
