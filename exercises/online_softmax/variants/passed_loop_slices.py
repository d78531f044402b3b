# expect: passed
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    # Index arithmetic instead of split; float64 statistics, cast back once.
    xd = x.double()
    m = xd.new_full((*x.shape[:-1], 1), float("-inf"))
    s = xd.new_zeros((*x.shape[:-1], 1))
    n = x.shape[-1]
    for start in range(0, n, chunk_size):
        m, s = online_softmax_update(xd[..., start : min(start + chunk_size, n)], m, s)
    return (torch.exp(xd - m) / s).to(x.dtype)
