# expect: failed mistake=no_max_subtraction
import torch


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return x - torch.log(torch.exp(x).sum(dim=dim, keepdim=True))


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)
