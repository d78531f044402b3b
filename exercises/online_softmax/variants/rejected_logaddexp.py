# expect: rejected
import torch


def online_softmax_update(x, m, s):
    # The state as one log-sum-exp, merged with logaddexp.
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    c = x.amax(-1, keepdim=True)
    chunk = c + torch.log(torch.exp(x - c.nan_to_num(neginf=0.0)).sum(-1, keepdim=True))
    total = torch.logaddexp(m + torch.log(s), chunk)
    return m_new, torch.exp(total - m_new.nan_to_num(neginf=0.0))


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
