# expect: failed mistake=logsumexp_missing_max diagnosis=robust
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def _log_sum_exp(x: torch.Tensor, dim: int) -> torch.Tensor:
    m = x.max(dim, keepdim=True).values
    return (x - m).exp().sum(dim, keepdim=True).log()  # the "+ m" never comes back


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return (xf - _log_sum_exp(xf, dim)).to(x.dtype)
