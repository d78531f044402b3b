# expect: failed mistake=max_without_keepdim
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - torch.max(xf, dim)[0]
    return (z - torch.log(torch.exp(z).sum(dim, keepdim=True))).to(x.dtype)
