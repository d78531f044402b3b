# expect: failed mistake=wrong_output_dtype
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.amax(dim, keepdim=True))
    # The sum is accumulated in float32 for precision; dividing a half tensor by it promotes
    # the result to float32, and nothing casts it back.
    return e / torch.sum(e, dim=dim, keepdim=True, dtype=torch.float32)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    z = xf - xf.amax(dim, keepdim=True)
    return (z - z.exp().sum(dim, keepdim=True).log()).to(x.dtype)
