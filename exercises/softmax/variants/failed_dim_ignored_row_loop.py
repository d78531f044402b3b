# expect: failed mistake=dim_ignored
import torch


def _rows(x: torch.Tensor) -> torch.Tensor:
    # Thinks of x as a batch of rows: every leading axis folded together, the last one kept.
    return x.reshape(-1, x.shape[-1])


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    out = []
    for row in _rows(x):
        e = torch.exp(row - row.max())
        out.append(e / e.sum())
    return torch.stack(out).reshape(x.shape)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    out = []
    for row in _rows(x):
        z = row - row.max()
        out.append(z - torch.log(torch.sum(torch.exp(z))))
    return torch.stack(out).reshape(x.shape)
