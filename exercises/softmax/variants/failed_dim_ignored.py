# expect: failed mistake=dim_ignored
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    z = x - x.amax(-1, keepdim=True)
    return z - z.exp().sum(-1, keepdim=True).log()
