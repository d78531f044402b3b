# expect: passed
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    # Chunks written as they come, then corrected once the final statistics are known.
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    parts, stats = [], []
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
        safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)  # a chunk of -inf so far
        parts.append(torch.exp(chunk - safe))
        stats.append(safe)
    fixed = [p * torch.exp(mk - m) for p, mk in zip(parts, stats, strict=True)]
    return torch.cat(fixed, dim=-1) / s
