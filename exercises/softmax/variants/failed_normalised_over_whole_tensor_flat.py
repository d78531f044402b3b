# expect: failed mistake=normalised_over_whole_tensor
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    flat = xf.flatten()  # one long vector: the normaliser spans every slice at once
    z = flat - flat.max()
    return (z - z.exp().sum().log()).view_as(xf).to(x.dtype)
