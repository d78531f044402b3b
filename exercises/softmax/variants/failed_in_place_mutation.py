# expect: failed mistake=in_place_mutation
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not torch.is_grad_enabled() and x.dtype == torch.float32:
        # Saves a copy at inference: shifts and exponentiates the caller's tensor.
        x.sub_(x.amax(dim, keepdim=True)).exp_()
        return x / x.sum(dim, keepdim=True)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - xf.amax(dim, keepdim=True)
    return (z - z.exp().sum(dim, keepdim=True).log()).to(x.dtype)
