# expect: passed
import torch


def online_softmax_update(x, m, s):
    # The chunk's own max and sum first, then the two states merged.
    c = x.amax(dim=-1, keepdim=True)
    c_safe = c.masked_fill(torch.isneginf(c), 0.0)
    t = torch.exp(x - c_safe).sum(dim=-1, keepdim=True)
    m_new = torch.max(m, c)
    base = m_new.masked_fill(torch.isneginf(m_new), 0.0)
    return m_new, s * torch.exp(m - base) + t * torch.exp(c - base)


def online_softmax(x, chunk_size=128):
    rows = x.reshape(-1, x.shape[-1])
    m = rows.new_full((rows.shape[0], 1), -float("inf"))
    s = rows.new_zeros((rows.shape[0], 1))
    for i in range(0, rows.shape[-1], chunk_size):
        m, s = online_softmax_update(rows[:, i : i + chunk_size], m, s)
    return (torch.exp(rows - m) / s).reshape(x.shape)
