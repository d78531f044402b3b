# expect: failed mistake=no_max_subtraction
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - xf.amax(dim, keepdim=True)
    return (z - z.exp().sum(dim, keepdim=True).log()).to(x.dtype)
