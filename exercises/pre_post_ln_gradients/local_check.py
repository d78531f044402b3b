"""The lab at depths 2, 6 and 24 on seed 1234, against the reference experiment's numbers
(computed once and written here, so the check does not give the experiment away)

本实验在种子 1234、深度 2、6 和 24 时的测量结果，与参考实验的数值对比（数值预先算好写在这里，
以免泄露实验代码）
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SEED = 1234
# pre_post_ln_gradients(x, target, depth, SEED) of the reference, to 6 significant digits.
EXPECTED = {
    2: [[0.295486, 0.251752], [0.287293, 0.247032]],
    6: [
        [0.326574, 0.263732, 0.313575, 0.291341, 0.300067, 0.245334],
        [0.303111, 0.256669, 0.322503, 0.309296, 0.344208, 0.291943],
    ],
    24: [
        [
            0.269995,
            0.236333,
            0.263068,
            0.238366,
            0.272707,
            0.24995,
            0.270002,
            0.273794,
            0.289088,
            0.273838,
            0.283005,
            0.278012,
            0.232176,
            0.266229,
            0.257977,
            0.243927,
            0.241487,
            0.194243,
            0.213823,
            0.20527,
            0.22392,
            0.179924,
            0.204665,
            0.176865,
        ],
        [
            0.233408,
            0.214549,
            0.275884,
            0.292238,
            0.371026,
            0.327831,
            0.365645,
            0.384884,
            0.373259,
            0.419437,
            0.364317,
            0.474003,
            0.45206,
            0.517595,
            0.485615,
            0.486509,
            0.350473,
            0.261639,
            0.397481,
            0.345766,
            0.343676,
            0.32068,
            0.326485,
            0.401113,
        ],
    ],
}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    x, target = torch.randn(16, 32, generator=g), torch.randn(16, 32, generator=g)

    def case(depth: int) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, target, depth, SEED)

        return LocalCase(
            name=f"depth {depth}, seed {SEED}: (2, {depth}) gradient norms",
            x=x,
            build=build,
            expected=torch.tensor(EXPECTED[depth]),
            measurement=True,
            # The deepest case is the figure the notebook draws (plot_lab).
            series=("Pre-LN", "Post-LN") if depth == 24 else (),
        )

    return [case(2), case(6), case(24)]
