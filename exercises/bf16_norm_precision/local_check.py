"""The lab on three sweeps drawn from seed 0, against the reference experiment's numbers (computed
once and written here, so the check does not give the experiment away)

本实验在种子 0 抽取的三组扫描上的测量结果，与参考实验的数值对比（数值预先算好写在这里，以免泄露
实验代码）
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SERIES = ("bf16 two-pass", "bf16 one-pass", "float32 statistics", "bf16 RMSNorm")
# bf16_norm_precision(x, offsets) of the reference, to 6 decimals (log10 of the median
# relative error; rows: two-pass, one-pass, float32 statistics, RMSNorm).
SWEEP = [2.0**k for k in range(8)]
EXPECTED_SWEEP = [
    [-2.499007, -2.400016, -2.22144, -1.886647, -1.68823, -1.360993, -1.080168, -1.002664],
    [-2.45495, -2.16853, -1.707687, -1.001609, -0.411969, 2.433461, 2.473789, 2.490516],
    [-2.785114, -2.789188, -2.780244, -2.781795, -2.792861, -2.777671, -2.76348, -2.775318],
    [-2.696648, -2.614483, -2.614993, -2.604454, -2.575595, -2.552233, -2.56384, -3.083782],
]
WIDE = [0.0, 1.0, 4.0, 16.0, 64.0]
EXPECTED_WIDE = [
    [-2.517063, -2.464978, -2.272965, -1.649817, -1.342191],
    [-2.499896, -2.382654, -1.694893, -0.476151, 2.497324],
    [-2.78248, -2.786336, -2.785237, -2.785446, -2.78117],
    [-2.624451, -2.680757, -2.658122, -2.545707, -3.131213],
]

# float32 rows: the answer comes back in float32.
FLOAT32 = [2.0, 8.0, 32.0]
EXPECTED_FLOAT32 = [
    [-2.428298, -1.865844, -1.657602],
    [-2.113722, -0.922412, 2.502676],
    [-2.773822, -2.770539, -2.773914],
    [-2.610708, -2.437659, -2.622402],
]


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    sweep_x = torch.randn(65, 64, generator=g).double()
    wide_x = torch.randn(33, 128, generator=g).double()
    float32_x = torch.randn(17, 200, generator=g)

    def case(
        name: str, x: torch.Tensor, offsets: list[float], expected: list[list[float]], drawn: bool
    ) -> LocalCase:
        o = torch.tensor(offsets, dtype=torch.float64)

        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, o)

        return LocalCase(
            name=name,
            x=x,
            build=build,
            expected=torch.tensor(expected, dtype=x.dtype),
            measurement=True,
            # The sweep is the figure the notebook draws (plot_lab).
            series=SERIES if drawn else (),
        )

    return [
        case(
            "(65, 64) rows, mean/std 1 to 128: (4, 8) log10 errors",
            sweep_x,
            SWEEP,
            EXPECTED_SWEEP,
            True,
        ),
        case(
            "(33, 128) rows, mean/std 0 to 64: (4, 5) log10 errors",
            wide_x,
            WIDE,
            EXPECTED_WIDE,
            False,
        ),
        case(
            "(17, 200) float32 rows, mean/std 2 to 32: (4, 3) log10 errors",
            float32_x,
            FLOAT32,
            EXPECTED_FLOAT32,
            False,
        ),
    ]
