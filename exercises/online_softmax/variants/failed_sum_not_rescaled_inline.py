# expect: failed mistake=sum_not_rescaled
import torch


def online_softmax_update(x, m, s):
    c = x.max(dim=-1, keepdim=True).values
    m_new = torch.where(c > m, c, m)
    base = torch.where(m_new == float("-inf"), 0.0, m_new)
    s_new = s.clone()
    s_new += (x - base).exp().sum(dim=-1, keepdim=True)  # the old terms kept as they were
    return m_new, s_new


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
