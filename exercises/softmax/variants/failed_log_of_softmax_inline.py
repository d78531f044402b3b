# expect: failed mistake=log_of_softmax
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    m, _ = torch.max(xf, dim=dim, keepdim=True)
    e = torch.exp(xf - m)
    probs = e / torch.sum(e, dim=dim, keepdim=True)
    return probs.log().to(x.dtype)
