"""`torch.nn.Dropout(p)` in eval mode, the identity for every p (training-mode masks are graded
on the server, by dropout's law: any correct draw passes)

`torch.nn.Dropout(p)` 的 eval 模式：对任何 p 都是恒等映射（训练模式的掩码由服务器按 dropout
的分布规律评测，任何正确的抽取方式都能通过）
"""

from __future__ import annotations

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], p: float) -> LocalCase:
        x = torch.randn(shape, generator=g)
        return LocalCase(name=name, x=x, build=lambda cls: cls(p), expected=x.clone())

    return [
        case("eval mode, p = 0.5", (4, 16), 0.5),
        case("eval mode, p = 0.9, 3-D", (2, 3, 8), 0.9),
        case("eval mode, p = 1", (3, 5), 1.0),
    ]
