"""`torch.nn.functional.batch_norm` in eval mode, with loaded running statistics and random
`weight` and `bias` (training mode and the buffer updates are graded by the server)

`torch.nn.functional.batch_norm` 的 eval 模式，载入滑动统计量，`weight`、`bias` 取随机值
（训练模式和 buffer 的更新由服务器评测）
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...]) -> LocalCase:
        c = shape[1]
        x = torch.randn(shape, generator=g)
        state = {
            "weight": torch.randn(c, generator=g),
            "bias": torch.randn(c, generator=g),
            "running_mean": torch.randn(c, generator=g),
            "running_var": torch.rand(c, generator=g) + 0.5,
            "num_batches_tracked": torch.tensor(7),
        }
        expected = F.batch_norm(
            x,
            state["running_mean"].clone(),
            state["running_var"].clone(),
            state["weight"],
            state["bias"],
            training=False,
        )
        return LocalCase(name=name, x=x, build=lambda cls: cls(c), state=state, expected=expected)

    return [
        case("eval, (N, C)", (4, 6)),
        case("eval, (N, C, L)", (2, 5, 7)),
        case("eval, one sample", (1, 3, 4)),
    ]
