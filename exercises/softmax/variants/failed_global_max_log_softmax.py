# expect: failed mistake=global_max
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    shifted = xf - torch.max(xf)  # the largest logit anywhere
    lse = torch.log(torch.sum(torch.exp(shifted), dim=dim, keepdim=True))
    return (shifted - lse).to(x.dtype)
