# expect: failed mistake=empty_chunk_counted
import torch


def _safe_exp(d):
    # NaN from (-inf) - (-inf) becomes exp(0): one per masked element.
    return torch.exp(d.masked_fill(torch.isnan(d), 0.0))


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, torch.max(x, dim=-1, keepdim=True).values)
    return m_new, s * _safe_exp(m - m_new) + _safe_exp(x - m_new).sum(dim=-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = x.new_full((*x.shape[:-1], 1), float("-inf"))
    s = x.new_zeros((*x.shape[:-1], 1))
    start = 0
    while start < x.shape[-1]:
        m, s = online_softmax_update(x[..., start : start + chunk_size], m, s)
        start += chunk_size
    m_safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return torch.exp(x - m_safe) / s
