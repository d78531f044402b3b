# expect: failed mistake=chunks_not_renormalised
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    out = torch.empty_like(x)
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for i in range(0, x.shape[-1], chunk_size):
        m, s = online_softmax_update(x[..., i : i + chunk_size], m, s)
        out[..., i : i + chunk_size] = (x[..., i : i + chunk_size] - m).exp() / s
    return out
