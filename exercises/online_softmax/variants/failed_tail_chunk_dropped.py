# expect: failed mistake=tail_chunk_dropped
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    n = x.shape[-1]
    for k in range(max(n // chunk_size, 1)):
        m, s = online_softmax_update(x[..., k * chunk_size : (k + 1) * chunk_size], m, s)
    return torch.exp(x - m) / s
