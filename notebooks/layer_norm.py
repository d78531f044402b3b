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
# # LayerNorm from scratch
#
# **topic:** layer_norm · **difficulty:** easy
#
# Layer normalisation rescales each token's feature vector on its own: subtract the vector's
# mean, divide by its standard deviation, then apply a learned per-feature scale and shift.
# Unlike BatchNorm it never looks at the other samples in the batch, which is why it suits
# Transformers: variable sequence lengths, small batches and token-by-token generation all
# behave the same.
#
# ## What to write
#
# ```python
# class LayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)`: any number of leading dimensions (the tests use 1-D to 4-D
#   inputs), dtype float32, float64 or bfloat16. Return a tensor of the **same shape and dtype**.
# - Parameters, with exactly these names (the grader loads them with `load_state_dict`):
#
#   | name | shape | initial value |
#   | --- | --- | --- |
#   | `weight` (γ) | `(dim,)` | ones |
#   | `bias` (β) | `(dim,)` | zeros |
#
# - For every vector along the **last** dimension, with n = `dim`:
#
#   ```
#   mean = (1/n) Σ x_i
#   var  = (1/n) Σ (x_i - mean)^2          # biased: divide by n
#   y    = (x - mean) / sqrt(var + eps) * weight + bias
#   ```
#
# Your module must behave like `torch.nn.LayerNorm(dim, eps=eps)`: same outputs and same
# gradients with respect to `x`, `weight` and `bias`.
#
# ## Not allowed
#
# The built-ins that do the whole job: `F.layer_norm`, `torch.layer_norm`,
# `torch.native_layer_norm`, `nn.LayerNorm`, the RMSNorm built-ins, and other norms bent to the
# same purpose (`F.group_norm`, `F.instance_norm`, `F.batch_norm`, `nn.GroupNorm`), however you
# reach them (an alias, `getattr`, `torch.ops.aten`). A submission that calls one is *rejected*.
# Everything else is fine: `mean`, `var`, `var_mean`, `rsqrt`, `sqrt`, broadcasting.
#
# ## How it is graded
#
# Each submission runs on about fifteen freshly drawn cases: standard normal inputs, a large
# offset (`x + 1e3` in float32, `x + 1e4` in float64), tiny inputs (`x * 1e-3`), rows whose
# entries are all equal, a single feature (`dim = 1`) and a wide one (`dim = 1024`), a few
# features (`dim` 3 to 8), non-default `eps` (0.1, 0.01), random `weight`/`bias` values as well as
# the default initialisation, float64 and one bfloat16 case. Most cases also run a backward pass
# with a random upstream gradient and compare the gradients. One case runs under
# `torch.no_grad()` and checks that your forward did not modify `x` in place.
#
# ## Pitfalls interviewers look for
#
# - **Which variance?** `x.var()` and `x.std()` divide by n - 1 by default. LayerNorm divides by n.
# - **Where does eps go?** Inside the square root, added to the variance. It is what keeps a
#   constant row (variance exactly 0) finite.
# - **Numerics.** `mean(x^2) - mean(x)^2` is algebraically right and numerically fragile: try it
#   in float32 on inputs around 1e3.
# - **Axis and broadcasting.** Statistics are per vector over the last dim; `keepdim=True` lets
#   them broadcast back.
# - **Gradients.** Do not detach the mean or the variance: the true gradient flows through them.
# - **Side effects and dtype.** Do not modify `x` in place. If you compute in a wider dtype,
#   cast the result back to `x.dtype`.
#
# ## Background
#
# The course material describes the same four steps (mean, variance, normalise, scale and shift)
# and why Transformers use LayerNorm rather than BatchNorm (`000_*`, `002_*`). One of the source
# articles (`003_*`) shows a widely copied implementation, `gamma * (x - mean) / (x.std(-1) + eps)
# + beta`, which differs from `nn.LayerNorm` in two places. Can you spot both before you start?

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 LayerNorm
#
# 层归一化（LayerNorm）对每个 token 的特征向量单独做缩放：减去这个向量的均值，除以它的标准差，
# 再逐特征乘上可学习的缩放参数、加上平移参数。与 BatchNorm 不同，它从不查看 batch 中的其他样本，
# 所以非常适合 Transformer：序列长度不同、batch 很小、逐 token 自回归生成，结果都不受影响。
#
# ## 要写什么
#
# ```python
# class LayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`：前面可以有任意多个维度（测试中为 1 维到 4 维），dtype 为
#   float32、float64 或 bfloat16。返回**形状和 dtype 都与 `x` 相同**的张量。
# - 参数名必须如下（评测会用 `load_state_dict` 加载它们）：
#
#   | 名称 | 形状 | 初始值 |
#   | --- | --- | --- |
#   | `weight`（γ） | `(dim,)` | 全 1 |
#   | `bias`（β） | `(dim,)` | 全 0 |
#
# - 对**最后一个**维度上的每个向量（n = `dim`）：
#
#   ```
#   mean = (1/n) Σ x_i
#   var  = (1/n) Σ (x_i - mean)^2          # 有偏方差：除以 n
#   y    = (x - mean) / sqrt(var + eps) * weight + bias
#   ```
#
# 你的模块要与 `torch.nn.LayerNorm(dim, eps=eps)` 行为一致：输出相同，对 `x`、`weight`、`bias`
# 的梯度也相同。
#
# ## 不允许使用
#
# 直接完成整个计算的内置函数：`F.layer_norm`、`torch.layer_norm`、`torch.native_layer_norm`、
# `nn.LayerNorm`、RMSNorm 的内置实现，以及被挪用来达到同样效果的其他归一化（`F.group_norm`、
# `F.instance_norm`、`F.batch_norm`、`nn.GroupNorm`），无论通过什么方式调用（别名、`getattr`、
# `torch.ops.aten`）。调用了它们的提交会被判为 *rejected*。其余都可以用：`mean`、`var`、
# `var_mean`、`rsqrt`、`sqrt`、广播。
#
# ## 如何评测
#
# 每次提交都会在约十五个新随机生成的用例上运行：标准正态输入、大偏移（float32 下 `x + 1e3`，
# float64 下 `x + 1e4`）、极小输入（`x * 1e-3`）、整行元素全部相等、只有一个特征（`dim = 1`）和
# 很宽的特征（`dim = 1024`）、很少的特征（`dim` 为 3 到 8）、非默认的 `eps`（0.1、0.01）、随机的
# `weight`/`bias` 以及默认初始化、float64 和一个 bfloat16 用例。大多数用例还会用随机的上游梯度
# 做一次反向传播并比较梯度。有一个用例在 `torch.no_grad()` 下运行，检查你的前向计算没有原地修改 `x`。
#
# ## 面试官关注的陷阱
#
# - **用哪种方差？** `x.var()` 和 `x.std()` 默认除以 n - 1，而 LayerNorm 除以 n。
# - **eps 加在哪里？** 加在根号里面的方差上。正是它让整行相同（方差恰好为 0）时结果仍然有限。
# - **数值稳定性。** `mean(x^2) - mean(x)^2` 代数上正确，数值上却很脆弱：用 float32、在 1e3
#   附近的输入上试试看。
# - **维度与广播。** 统计量是对每个向量沿最后一维计算的；`keepdim=True` 让它们能广播回去。
# - **梯度。** 不要 detach 均值或方差：真实的梯度会流经它们。
# - **副作用与 dtype。** 不要原地修改 `x`。如果在更宽的 dtype 中计算，记得把结果转回 `x.dtype`。
#
# ## 背景
#
# 课程资料讲了同样的四步（求均值、求方差、归一化、缩放与平移），也解释了 Transformer 为什么用
# LayerNorm 而不是 BatchNorm（`000_*`、`002_*`）。其中一篇文章（`003_*`）给出了一个流传很广的
# 实现：`gamma * (x - mean) / (x.std(-1) + eps) + beta`，它和 `nn.LayerNorm` 有两处不同。
# 动手之前，你能把两处都找出来吗？
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`) and this kernel needs
#    `ADDNORM_URL` (default `http://127.0.0.1:8000`) and `ADDNORM_TOKEN` (the token `POST /users`
#    gave you). In a running kernel you can set them with `%env ADDNORM_TOKEN=...`.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise layer_norm`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: a few public cases compared with PyTorch, in this kernel.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.

# %% [markdown]
# ## Your implementation

# %%
# addnorm: exercise layer_norm
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameters by these names: keep them.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise each vector over the last dimension, then scale by weight and shift by bias.
        raise NotImplementedError("implement LayerNorm.forward")


# %% [markdown]
# ## Quick local check
#
# A few public cases, forward pass only, compared with `torch.nn.functional.layer_norm` (what `nn.LayerNorm` calls) in this kernel (the reference
# may use PyTorch's built-ins; your class may not). It is a sanity check and **does not replace
# the server's verdict**, which runs many more shapes and dtypes, the backward pass and the
# known-mistake diagnosis.

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase, check

g = torch.Generator().manual_seed(0)


def case(name, shape, eps=1e-5, offset=0.0):
    dim = shape[-1]
    x = torch.randn(shape, generator=g) + offset
    weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
    return LocalCase(
        name=name,
        x=x,
        build=lambda: LayerNorm(dim, eps=eps),
        state={"weight": weight, "bias": bias},
        expected=F.layer_norm(x, (dim,), weight, bias, eps),
    )


check([
    case("2-D, standard normal", (4, 8)),
    case("3-D, offset x + 10", (2, 3, 16), offset=10.0),
    case("eps=1e-3, small dim", (5, 3), eps=1e-3),
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

submit_cell("layer_norm")
