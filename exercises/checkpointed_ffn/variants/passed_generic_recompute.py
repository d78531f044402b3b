# expect: passed
import torch
import torch.nn.functional as F
from torch import nn


class _Recompute(torch.autograd.Function):
    # Any function of (x, *params), recomputed: the FFN passed in as a plain callable.
    @staticmethod
    def forward(ctx, run, x, *params):
        ctx.run = run
        ctx.save_for_backward(x, *params)
        return run(x, *params)

    @staticmethod
    def backward(ctx, grad):
        leaves = [t.detach().requires_grad_(True) for t in ctx.saved_tensors]
        with torch.enable_grad():
            grads = torch.autograd.grad(ctx.run(*leaves), leaves, grad)
        return (None, *grads)


def _ffn(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        params = [*self.linear1.parameters(), *self.linear2.parameters()]
        return _Recompute.apply(_ffn, x, *params)
