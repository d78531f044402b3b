# expect: rejected
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        return checkpoint(lambda t: self.linear2(F.gelu(self.linear1(t))), x, use_reentrant=False)
