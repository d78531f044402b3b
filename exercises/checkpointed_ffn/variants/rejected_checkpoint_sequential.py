# expect: rejected
import torch
from torch import nn


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        seq = nn.Sequential(self.linear1, nn.GELU(), self.linear2)
        return torch.utils.checkpoint.checkpoint_sequential(seq, 1, x, use_reentrant=False)
