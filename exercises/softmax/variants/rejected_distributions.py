# expect: rejected
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    e = (xf - xf.amax(dim, keepdim=True)).exp()
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # Categorical normalises its logits with logsumexp.
    probs = torch.distributions.Categorical(logits=x.movedim(dim, -1))
    return probs.logits.movedim(-1, dim)
