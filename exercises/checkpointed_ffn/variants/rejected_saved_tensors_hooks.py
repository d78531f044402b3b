# expect: rejected
import torch
import torch.nn.functional as F
from torch import nn


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        # Hooks that hide what is saved (and the measurement with it).
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            return self.linear2(F.gelu(self.linear1(x)))
