# expect: failed mistake=empty_chunk_counted
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    # -inf - (-inf) is NaN for a masked chunk from the empty state: "fixed" to 0.
    shift_old = torch.nan_to_num(m - m_new, nan=0.0)
    shifted = torch.nan_to_num(x - m_new, nan=0.0)
    return m_new, s * torch.exp(shift_old) + torch.exp(shifted).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
