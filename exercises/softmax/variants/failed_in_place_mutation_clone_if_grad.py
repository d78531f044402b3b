# expect: failed mistake=in_place_mutation
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # Copies only when autograd needs the original; otherwise shifts the caller's tensor.
    z = x.clone() if x.requires_grad else x
    # The shift carries no gradient (softmax is shift-invariant), so a detached max.
    z -= z.detach().amax(dim, keepdim=True)
    e = z.exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - xf.amax(dim, keepdim=True)
    return (z - z.exp().sum(dim, keepdim=True).log()).to(x.dtype)
