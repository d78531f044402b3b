# expect: failed mistake=logsumexp_missing_max
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim, keepdim=True)
    return x - torch.log(torch.exp(x - m).sum(dim, keepdim=True))
