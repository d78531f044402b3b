# expect: failed finding=axis
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # Probabilities down each column: the batch axis comes first.
    axis = 0 if x.dim() > 1 else dim
    e = torch.exp(x - x.amax(axis, keepdim=True))
    return e / e.sum(axis, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    axis = 0 if x.dim() > 1 else dim
    z = x - x.amax(axis, keepdim=True)
    return z - z.exp().sum(axis, keepdim=True).log()
