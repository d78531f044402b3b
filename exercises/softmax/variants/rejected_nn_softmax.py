# expect: rejected
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.nn.Softmax(dim=dim)(x)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - xf.amax(dim, keepdim=True)
    return (z - z.exp().sum(dim, keepdim=True).log()).to(x.dtype)
