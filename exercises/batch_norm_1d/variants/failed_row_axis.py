# expect: failed finding=axis
import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        if self.training:
            # Statistics of each sample, over its channels (and positions).
            dims = (1,) if x.dim() == 2 else (1, 2)
            mean = x.mean(dims, keepdim=True)
            var = x.var(dims, unbiased=False, keepdim=True)
            with torch.no_grad():
                n = x.numel() // x.shape[1]
                chan = (0,) if x.dim() == 2 else (0, 2)
                m, v = x.mean(chan), x.var(chan, unbiased=False) * n / max(n - 1, 1)
                self.running_mean.lerp_(m, self.momentum)
                self.running_var.lerp_(v, self.momentum)
                self.num_batches_tracked += 1
            x_hat = (x - mean) / torch.sqrt(var + self.eps)
        else:
            x_hat = (x - self.running_mean.reshape(shape)) / torch.sqrt(
                self.running_var.reshape(shape) + self.eps
            )
        return x_hat * self.weight.reshape(shape) + self.bias.reshape(shape)
