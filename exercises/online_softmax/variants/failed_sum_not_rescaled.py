# expect: failed mistake=sum_not_rescaled
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
