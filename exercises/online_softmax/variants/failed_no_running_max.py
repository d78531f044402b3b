# expect: failed mistake=no_running_max
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    s = torch.zeros_like(x[..., :1])
    for chunk in torch.split(x, chunk_size, dim=-1):
        s = s + torch.exp(chunk).sum(-1, keepdim=True)
    return torch.exp(x) / s
