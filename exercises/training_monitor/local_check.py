"""The monitor at learning rates 0.01 and 0.5 and at an initialisation gain of 1.6, on seed
1234, against the reference experiment's numbers (computed once and written here, so the check
does not give the experiment away)

训练监控在种子 1234、学习率 0.01 和 0.5 以及初始化增益 1.6 时的测量结果，与参考实验的数值对比
（数值预先算好写在这里，以免泄露实验代码）
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SEED = 1234
DEPTH, STEPS = 4, 6
# training_monitor(x, target, DEPTH, STEPS, lr, gain, SEED) of the reference by (lr, gain),
# to 6 significant digits: (3, DEPTH, STEPS), the ratios, the stds and the alarms.
EXPECTED = {
    (0.01, 1.0): [
        [
            [0.00130672, 0.00124987, 0.00121088, 0.00116645, 0.00112511, 0.00108744],
            [0.00132948, 0.00126099, 0.0011992, 0.00115634, 0.00111101, 0.00106193],
            [0.00129434, 0.00123524, 0.00118098, 0.00113661, 0.00109275, 0.00105214],
            [0.00103521, 0.000988167, 0.000945447, 0.000906178, 0.000869884, 0.000836414],
        ],
        [
            [0.991051, 0.990334, 0.989652, 0.989001, 0.988375, 0.987777],
            [0.997687, 0.994402, 0.991305, 0.988359, 0.98555, 0.982875],
            [0.867847, 0.858027, 0.848853, 0.84019, 0.83195, 0.824164],
            [0.844117, 0.823879, 0.805059, 0.787457, 0.770874, 0.755286],
        ],
        [
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ],
    ],
    (0.01, 1.6): [
        [
            [0.0199204, 0.0108964, 0.00820816, 0.00668223, 0.00572334, 0.00498527],
            [0.0208352, 0.0100653, 0.00709955, 0.00551404, 0.00456677, 0.00392972],
            [0.0201146, 0.00998, 0.00705079, 0.0054985, 0.00456434, 0.00391118],
            [0.0157474, 0.00750982, 0.00521159, 0.00401556, 0.00327993, 0.00277486],
        ],
        [
            [1.58568, 1.56758, 1.55843, 1.55191, 1.54674, 1.54252],
            [2.55408, 2.43366, 2.38055, 2.34513, 2.3188, 2.29784],
            [3.5547, 3.01601, 2.79327, 2.64936, 2.54407, 2.4616],
            [5.53201, 3.89957, 3.28453, 2.90875, 2.64565, 2.44574],
        ],
        [
            [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ],
    ],
    (0.5, 1.0): [
        [
            [0.0653359, 0.0191108, 0.0137319, 0.0118789, 0.0109895, 0.00976911],
            [0.066474, 0.0129791, 0.00794456, 0.00646299, 0.00577501, 0.00505924],
            [0.0647172, 0.0103818, 0.006365, 0.00524042, 0.00454087, 0.0040882],
            [0.0517604, 0.00769124, 0.00567413, 0.00485954, 0.00436266, 0.00400788],
        ],
        [
            [0.991051, 0.958625, 0.953815, 0.95084, 0.948844, 0.947578],
            [0.997687, 0.866317, 0.849322, 0.839025, 0.83177, 0.826759],
            [0.867847, 0.544192, 0.50972, 0.489586, 0.477062, 0.468268],
            [0.844117, 0.339047, 0.28076, 0.255388, 0.241735, 0.233336],
        ],
        [
            [1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ],
    ],
}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    x, target = torch.randn(64, 32, generator=g), torch.randn(64, 32, generator=g)

    def case(lr: float, gain: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, target, DEPTH, STEPS, lr, gain, SEED)

        return LocalCase(
            name=f"learning rate {lr}, gain {gain}, seed {SEED}: (3, {DEPTH}, {STEPS}) "
            "ratios, stds, alarms",
            x=x,
            build=build,
            expected=torch.tensor(EXPECTED[(lr, gain)]),
            measurement=True,
            # The too-high learning rate is the figure the notebook draws (plot_lab): plane 0,
            # one curve per layer over the steps.
            series=tuple(f"layer {i + 1}" for i in range(DEPTH)) if lr == 0.5 else (),
            plane=0,
            x_label="SGD step (1 = the first)",
            y_label="update-to-weight ratio",
        )

    return [case(0.01, 1.0), case(0.01, 1.6), case(0.5, 1.0)]
