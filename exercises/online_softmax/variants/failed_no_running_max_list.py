# expect: failed mistake=no_running_max
import torch


def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def online_softmax(x, chunk_size=128):
    sums = [
        x[..., i : i + chunk_size].exp().sum(dim=-1, keepdim=True)
        for i in range(0, x.shape[-1], chunk_size)
    ]
    return x.exp() / torch.stack(sums, dim=0).sum(dim=0)
