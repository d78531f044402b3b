# expect: failed mistake=rescale_inverted
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    safe_new = torch.nan_to_num(m_new, neginf=0.0)
    safe_old = torch.nan_to_num(m, neginf=0.0)
    factor = torch.exp(safe_new - safe_old)  # new over old
    return m_new, s * factor + torch.exp(x - safe_new).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    m = torch.full_like(x[..., :1], float("-inf"))
    s = torch.zeros_like(m)
    for chunk in torch.split(x, chunk_size, dim=-1):
        m, s = online_softmax_update(chunk, m, s)
    return torch.exp(x - m) / s
