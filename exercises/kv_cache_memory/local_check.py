"""The cache of Llama-2-7B's shapes in float16 at 512 to 32768 tokens, and what fits 16 GiB

Llama-2-7B 形状在 float16 下 512 到 32768 个 token 的缓存，以及 16 GiB 内放得下多少
"""

from __future__ import annotations

import torch

from addnorm_client.local import LocalCase

# The reference's numbers, as constants: MiB per sequence (0.5, 0.125 and 1/64 MiB per token)
# and the longest context in 16 GiB.
LENGTHS = [512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0, 32768.0]
PER_TOKEN_MIB = (0.5, 0.125, 0.015625)
FITS = (32768.0, 131072.0, 1048576.0)


def local_cases() -> list[LocalCase]:
    x = torch.tensor(LENGTHS, dtype=torch.float64)
    expected = torch.stack(
        [
            torch.stack([x * m for m in PER_TOKEN_MIB]),
            torch.stack([torch.full_like(x, f) for f in FITS]),
        ]
    )
    small = torch.tensor([1.0, 7.0, 100.0], dtype=torch.float64)
    one = torch.tensor([[10.0, 1000.0]], dtype=torch.float32)
    return [
        LocalCase(
            name="2 layers, 4 heads, 2 KV heads, head_dim 16, float32, 1 MiB",
            x=small,
            build=lambda f: lambda x: f(x, 2, 4, 2, 16, "float32", 2**20),
            expected=torch.stack(
                [
                    torch.stack([small * b / 2**20 for b in (1024, 512, 256)]),
                    torch.stack(
                        [torch.full_like(small, float(2**20 // b)) for b in (1024, 512, 256)]
                    ),
                ]
            ),
            measurement=True,
        ),
        LocalCase(
            name="1 layer, 8 heads, 1 KV head, head_dim 64, bfloat16, 1 MiB",
            x=one,
            build=lambda f: lambda x: f(x, 1, 8, 1, 64, "bfloat16", 2**20),
            expected=torch.stack(
                [
                    torch.stack([one * b / 2**20 for b in (2048, 256, 256)]),
                    torch.stack(
                        [torch.full_like(one, float(2**20 // b)) for b in (2048, 256, 256)]
                    ),
                ]
            ),
            measurement=True,
        ),
        LocalCase(
            name="Llama-2-7B shapes, GQA 8, float16, 16 GiB",
            x=x,
            build=lambda f: lambda x: f(x, 32, 32, 8, 128, "float16", 16 * 2**30),
            expected=expected,
            measurement=True,
            series=("MHA", "GQA", "MQA"),
            plane=0,
            x_label="i: sequence length = 2^(i+8) tokens",
            y_label="KV cache, MiB",
        ),
    ]
