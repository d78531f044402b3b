# expect: failed mistake=nan_from_empty_state
import torch


def online_softmax_update(x, m, s):
    m_new = torch.cat([m, x], dim=-1).max(dim=-1, keepdim=True).values
    scale = (m - m_new).exp()  # exp(-inf + inf) on a row that has seen nothing finite
    return m_new, scale * s + (x - m_new).exp().sum(dim=-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
