"""The exercise's functions written with torch's own ops, independently of ``spec.py``'s
reference: log-sum-exp in float64. ``online_softmax`` is ``exp(x - logsumexp(x))``; the update's
new sum is ``exp(logsumexp([m + log s, x]) - m_new)``, the row's total against its new max
(0 for a row that has seen nothing finite yet)."""

from __future__ import annotations

from typing import Any

import torch

from api.grading.spec import Call, Case


def expected_output(case: Case, functions: Any, step: Call) -> Any:
    del case, functions  # the contract is the formula, not the learner's functions
    x = step.inputs[0]
    wide = x.double()
    if step.function == "online_softmax":
        return (wide - torch.logsumexp(wide, dim=-1, keepdim=True)).exp().to(x.dtype)
    _, m, s = step.inputs
    md, sd = m.double(), s.double()
    m_new = torch.maximum(md, wide.amax(-1, keepdim=True))
    total = torch.logsumexp(torch.cat([md + sd.log(), wide], dim=-1), dim=-1, keepdim=True)
    s_new = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), (total - m_new).exp())
    return m_new.to(x.dtype), s_new.to(x.dtype)
