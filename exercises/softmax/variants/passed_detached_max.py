# expect: passed
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # The max detached: the shift is a constant, its gradient is zero in exact arithmetic.
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    m = xf.max(dim=dim, keepdim=True).values.detach()
    e = (xf - m).exp()
    return (e / e.sum(dim=dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    m = xf.max(dim=dim, keepdim=True).values.detach()
    lse = m + (xf - m).exp().sum(dim=dim, keepdim=True).log()
    return (xf - lse).to(x.dtype)
