# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # RMSNorm from scratch
#
# **topic:** rms_norm · **difficulty:** easy
#
# RMSNorm is LayerNorm with the centring taken out: it rescales each feature vector by its root
# mean square and a learned per-feature weight, and leaves the mean where it is. There is no
# bias. It saves a reduction and a subtraction per vector and works as well in practice, which
# is why Llama, Mistral and most recent LLMs use it.
#
# ## What to write
#
# ```python
# class RMSNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)` (1-D to 4-D in the tests), dtype float32, float64 or bfloat16.
#   Return a tensor of the **same shape and dtype**.
# - One parameter, with exactly this name:
#
#   | name | shape | initial value |
#   | --- | --- | --- |
#   | `weight` (γ) | `(dim,)` | ones |
#
# - For every vector along the **last** dimension, with n = `dim`:
#
#   ```
#   ms = (1/n) Σ x_i^2
#   y  = x / sqrt(ms + eps) * weight
#   ```
#
# Your module must behave like `torch.nn.RMSNorm(dim, eps=eps)`: same outputs and same gradients
# with respect to `x` and `weight`.
#
# ## Not allowed
#
# `F.rms_norm`, `torch.rms_norm`, `nn.RMSNorm`, and the LayerNorm built-ins (`F.layer_norm`,
# `torch.layer_norm`, `nn.LayerNorm`), however you reach them (an alias, `getattr`,
# `torch.ops.aten`). A submission that calls one is *rejected*. Everything else is fine: `pow`,
# `mean`, `rsqrt`, `torch.linalg.vector_norm`, computing in float32 and casting back.
#
# ## How it is graded
#
# About fifteen freshly drawn cases: standard normal inputs, a large offset (`x + 1e3` in float32,
# `x + 1e4` in float64), tiny inputs (`x * 1e-3`), constant rows including an all-zero row, `dim`
# from 1 to 1024, non-default `eps` (0.1, 0.01), random `weight` values and the default
# initialisation, float64 and one bfloat16 case. Most cases compare gradients after a backward
# pass with a random upstream gradient; one runs under `torch.no_grad()` and checks that `x` was
# not modified in place.
#
# ## Pitfalls interviewers look for
#
# - **No mean-centring.** Subtracting the mean turns it back into LayerNorm.
# - **Mean, not sum.** `sum(x^2)` gives an L2 norm, off by a factor `sqrt(dim)`.
# - **eps inside the square root**, added to the mean square. An all-zero row must give 0, not NaN.
# - **Keep the statistic in the graph**: the gradient flows through the RMS too.
# - **Mixed precision.** Llama's reference code normalises in float32 (`x.float()`) and casts back
#   with `.type_as(x)`: that is fine here. Forgetting the cast back is not: the output must have
#   `x`'s dtype.
# - Do not modify `x` in place.
#
# ## Background
#
# The course material (`000_*`) walks through the three steps, mean square, divide by the root,
# scale, and notes that RMSNorm drops LayerNorm's mean subtraction (and its bias) to save
# computation while keeping comparable quality.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 RMSNorm
#
# RMSNorm 就是去掉了中心化的 LayerNorm：它用每个特征向量的均方根（root mean square）以及可学习的
# 逐特征权重对向量做缩放，而不改变均值，也没有 bias。每个向量少做一次归约和一次减法，实际效果却
# 相当，所以 Llama、Mistral 以及大多数新近的大模型都在用它。
#
# ## 要写什么
#
# ```python
# class RMSNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`（测试中为 1 维到 4 维），dtype 为 float32、float64 或 bfloat16。
#   返回**形状和 dtype 都与 `x` 相同**的张量。
# - 只有一个参数，名称必须如下：
#
#   | 名称 | 形状 | 初始值 |
#   | --- | --- | --- |
#   | `weight`（γ） | `(dim,)` | 全 1 |
#
# - 对**最后一个**维度上的每个向量（n = `dim`）：
#
#   ```
#   ms = (1/n) Σ x_i^2
#   y  = x / sqrt(ms + eps) * weight
#   ```
#
# 你的模块要与 `torch.nn.RMSNorm(dim, eps=eps)` 行为一致：输出相同，对 `x` 和 `weight` 的梯度也相同。
#
# ## 不允许使用
#
# `F.rms_norm`、`torch.rms_norm`、`nn.RMSNorm`，以及 LayerNorm 的内置实现（`F.layer_norm`、
# `torch.layer_norm`、`nn.LayerNorm`），无论通过什么方式调用（别名、`getattr`、`torch.ops.aten`）。
# 调用了它们的提交会被判为 *rejected*。其余都可以用：`pow`、`mean`、`rsqrt`、
# `torch.linalg.vector_norm`，以及在 float32 中计算再转回原 dtype。
#
# ## 如何评测
#
# 约十五个新随机生成的用例：标准正态输入、大偏移（float32 下 `x + 1e3`，float64 下 `x + 1e4`）、
# 极小输入（`x * 1e-3`）、整行相同（包括全零的一行）、`dim` 从 1 到 1024、非默认的 `eps`（0.1、
# 0.01）、随机的 `weight` 以及默认初始化、float64 和一个 bfloat16 用例。大多数用例会用随机的上游
# 梯度做反向传播并比较梯度；有一个用例在 `torch.no_grad()` 下运行，检查 `x` 没有被原地修改。
#
# ## 面试官关注的陷阱
#
# - **不做中心化。** 一旦减去均值，它就又变回了 LayerNorm。
# - **是均值，不是求和。** 用 `sum(x^2)` 得到的是 L2 范数，会差 `sqrt(dim)` 倍。
# - **eps 加在根号里面**，加在均方值上。全零的一行应当输出 0，而不是 NaN。
# - **让统计量留在计算图里**：梯度也会流经均方根。
# - **混合精度。** Llama 的参考代码先在 float32 中归一化（`x.float()`），再用 `.type_as(x)` 转回：
#   这样做没问题。忘了转回去就不行：输出必须与 `x` 的 dtype 相同。
# - 不要原地修改 `x`。
#
# ## 背景
#
# 课程资料（`000_*`）讲解了这三步：求均方值、除以均方根、缩放，并指出 RMSNorm 去掉了 LayerNorm
# 的减均值步骤（以及 bias），在保持相当效果的同时节省了计算。
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`) and this kernel needs
#    `ADDNORM_URL` (default `http://127.0.0.1:8000`) and `ADDNORM_TOKEN` (the token `POST /users`
#    gave you). In a running kernel you can set them with `%env ADDNORM_TOKEN=...`.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise rms_norm`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: a few public cases compared with PyTorch, in this kernel.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.

# %% [markdown]
# ## Your implementation

# %%
# addnorm: exercise rms_norm
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameter by this name: keep it.
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Rescale each vector by its root mean square over the last dimension, then by weight.
        raise NotImplementedError("implement RMSNorm.forward")


# %% [markdown]
# ## Quick local check
#
# A few public cases, forward pass only, compared with `torch.nn.functional.rms_norm` (what `nn.RMSNorm` calls) in this kernel (the reference
# may use PyTorch's built-ins; your class may not). It is a sanity check and **does not replace
# the server's verdict**, which runs many more shapes and dtypes, the backward pass and the
# known-mistake diagnosis.

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase, check

g = torch.Generator().manual_seed(0)


def case(name, shape, eps=1e-6, scale=1.0):
    dim = shape[-1]
    x = torch.randn(shape, generator=g) * scale
    weight = torch.randn(dim, generator=g)
    return LocalCase(
        name=name,
        x=x,
        build=lambda: RMSNorm(dim, eps=eps),
        state={"weight": weight},
        expected=F.rms_norm(x, (dim,), weight, eps),
    )


check([
    case("2-D, standard normal", (4, 8)),
    case("3-D, non-zero mean stays", (2, 3, 16), scale=3.0),
    case("eps=1e-2, tiny inputs", (5, 4), eps=1e-2, scale=1e-2),
    case("4-D, dim 64", (2, 2, 3, 64)),
])

# %% [markdown]
# ## Submit to the grader
#
# Sends the exercise cell to the server and shows the verdict: a table of checks with their
# errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
# notebook carries on.

# %%
from addnorm_client.render import submit_cell

submit_cell("rms_norm")
