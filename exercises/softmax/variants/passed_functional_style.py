# expect: passed
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    shifted = xf - torch.max(xf, dim, keepdim=True)[0]
    num = torch.exp(shifted)
    den = torch.sum(num, dim, keepdim=True)
    return torch.div(num, den).type(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    shifted = xf - torch.max(xf, dim, keepdim=True)[0]
    return (shifted - torch.log(torch.sum(torch.exp(shifted), dim, keepdim=True))).type(x.dtype)
