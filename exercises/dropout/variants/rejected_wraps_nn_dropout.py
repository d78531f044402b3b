# expect: rejected
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p
        self.inner = nn.Dropout(p)

    def forward(self, x):
        return self.inner(x) if self.training else x
