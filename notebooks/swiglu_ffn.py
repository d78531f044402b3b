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
# # SwiGLU feed-forward block
#
# **topic:** ffn · **difficulty:** medium
#
# After attention has let tokens exchange information, the feed-forward network (FFN) lets each
# token process what it gathered, on its own. The classic FFN is up-projection, ReLU (or GELU),
# down-projection. SwiGLU, used by Llama, Mistral and PaLM, replaces the single up-projection
# with two: one branch goes through SiLU (Swish) and *gates* the other, linear branch
# element-wise, before the down-projection.
#
# ## What to write
#
# ```python
# class SwiGLUFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)` (1-D to 4-D in the tests), float32 or float64. Return a tensor of
#   shape `(..., dim)` and the same dtype.
# - Three bias-free linear layers, with exactly these names:
#
#   | name | module | role |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | gate projection |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | up projection |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | down projection |
#
#   so the state dict holds `w1.weight` `(hidden_dim, dim)`, `w2.weight` `(dim, hidden_dim)` and
#   `w3.weight` `(hidden_dim, dim)`. Their initial values do not matter: every case loads them.
#
# - The function:
#
#   ```
#   y = w2( silu(w1(x)) * w3(x) )        silu(z) = z * sigmoid(z)
#   ```
#
# Outputs and the gradients with respect to `x` and all three weights are compared with this
# formula.
#
# ## Not allowed
#
# Nothing is banned: `nn.Linear`, `F.linear`, `F.silu`, matmuls and `einsum` are all fine.
#
# ## How it is graded
#
# About a dozen freshly drawn cases: `dim` from 1 to 1024, `hidden_dim` from 4 to 1024 (also
# smaller than `dim`), 1-D to 4-D inputs, standard normal, large (`8 * N(0,1)`) and tiny
# (`N(0,1) * 1e-3`) inputs, float32 and float64, random weights. Most cases compare gradients; one
# runs under `torch.no_grad()` and checks that `x` was not modified.
#
# ## Pitfalls interviewers look for
#
# - **Which branch is gated?** SiLU goes on `w1` (the gate), not on `w3`, and not on the product.
# - **Which activation?** SiLU/Swish. Sigmoid makes it GLU, GELU makes it GeGLU, ReLU makes it
#   ReGLU: same family, different functions.
# - **No biases.** `nn.Linear` has `bias=True` by default.
# - **Three matrices.** Without `w3` it is an ordinary FFN. (That third matrix is also why SwiGLU
#   models pick `hidden_dim` around `8/3 * dim` instead of `4 * dim`: same parameter count.)
#
# ## Background
#
# The course material explains why attention alone is not enough (it is a weighted average of
# values; the FFN supplies the non-linearity), why the FFN widens then narrows, and lists the
# benefits of SwiGLU's gating (`000_*`); `002_*` shows the classic two-layer ReLU FFN that SwiGLU
# replaces.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # SwiGLU 前馈网络
#
# 注意力层让 token 之间交换了信息之后，前馈网络（FFN）让每个 token 独立地“消化”它收集到的信息。
# 经典的 FFN 是“升维、ReLU（或 GELU）、降维”。Llama、Mistral、PaLM 使用的 SwiGLU 把一次升维换成
# 两次：其中一个分支经过 SiLU（Swish）后，逐元素地对另一个线性分支做*门控*，再进行降维。
#
# ## 要写什么
#
# ```python
# class SwiGLUFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`（测试中为 1 维到 4 维），dtype 为 float32 或 float64。返回形状为
#   `(..., dim)`、dtype 相同的张量。
# - 三个不带 bias 的线性层，名称必须如下：
#
#   | 名称 | 模块 | 作用 |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | 门控投影（gate） |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | 升维投影（up） |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | 降维投影（down） |
#
#   因此 state dict 中是 `w1.weight` `(hidden_dim, dim)`、`w2.weight` `(dim, hidden_dim)`、
#   `w3.weight` `(hidden_dim, dim)`。它们的初始值无关紧要：每个用例都会加载权重。
#
# - 计算公式：
#
#   ```
#   y = w2( silu(w1(x)) * w3(x) )        silu(z) = z * sigmoid(z)
#   ```
#
# 评测会按这个公式比较输出，以及对 `x` 和三个权重的梯度。
#
# ## 不允许使用
#
# 没有禁用项：`nn.Linear`、`F.linear`、`F.silu`、矩阵乘法和 `einsum` 都可以用。
#
# ## 如何评测
#
# 约十几个新随机生成的用例：`dim` 从 1 到 1024，`hidden_dim` 从 4 到 1024（也有比 `dim` 小的
# 情况），1 维到 4 维输入，标准正态、较大（`8 * N(0,1)`）和极小（`N(0,1) * 1e-3`）的输入，float32
# 和 float64，随机权重。大多数用例会比较梯度；有一个用例在 `torch.no_grad()` 下运行，检查 `x`
# 没有被修改。
#
# ## 面试官关注的陷阱
#
# - **门控加在哪个分支？** SiLU 作用在 `w1`（门控）上，不是 `w3`，也不是两者的乘积。
# - **用哪个激活函数？** SiLU/Swish。换成 sigmoid 就是 GLU，GELU 是 GeGLU，ReLU 是 ReGLU：同一个
#   家族，但不是同一个函数。
# - **没有 bias。** `nn.Linear` 默认 `bias=True`。
# - **三个矩阵。** 少了 `w3` 就只是普通的 FFN。（也正因为多了这第三个矩阵，SwiGLU 模型通常把
#   `hidden_dim` 取为约 `8/3 * dim` 而不是 `4 * dim`，以保持参数量不变。）
#
# ## 背景
#
# 课程资料（`000_*`）解释了为什么只有注意力还不够（它本质上是对 value 的加权平均，真正的非线性
# 来自 FFN）、FFN 为什么先升维再降维，并列举了 SwiGLU 门控机制的好处；`002_*` 展示了被 SwiGLU
# 取代的经典两层 ReLU FFN。
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`) and this kernel needs
#    `ADDNORM_URL` (default `http://127.0.0.1:8000`) and `ADDNORM_TOKEN` (the token `POST /users`
#    gave you). In a running kernel you can set them with `%env ADDNORM_TOKEN=...`.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise swiglu_ffn`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: a few public cases compared with PyTorch, in this kernel.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.

# %% [markdown]
# ## Your implementation

# %%
# addnorm: exercise swiglu_ffn
import torch
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        # The grader loads w1.weight, w2.weight and w3.weight: keep these names and shapes.
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Gate one up-projection with SiLU, multiply it with the other, project back down.
        raise NotImplementedError("implement SwiGLUFFN.forward")


# %% [markdown]
# ## Quick local check
#
# A few public cases, forward pass only, compared with the formula `w2(silu(w1(x)) * w3(x))` in this kernel (the reference
# may use PyTorch's built-ins; your class may not). It is a sanity check and **does not replace
# the server's verdict**, which runs many more shapes and dtypes, the backward pass and the
# known-mistake diagnosis.

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase, check

g = torch.Generator().manual_seed(0)


def case(name, shape, hidden):
    dim = shape[-1]
    x = torch.randn(shape, generator=g)
    w1 = torch.randn(hidden, dim, generator=g) / dim**0.5
    w3 = torch.randn(hidden, dim, generator=g) / dim**0.5
    w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5
    return LocalCase(
        name=name,
        x=x,
        build=lambda: SwiGLUFFN(dim, hidden),
        state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
        expected=F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), w2),
    )


check([
    case("2-D, dim 8, hidden 16", (4, 8), 16),
    case("3-D, dim 16, hidden 40", (2, 3, 16), 40),
    case("hidden smaller than dim", (3, 12), 5),
])

# %% [markdown]
# ## Submit to the grader
#
# Sends the exercise cell to the server and shows the verdict: a table of checks with their
# errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
# notebook carries on.

# %%
from addnorm_client.render import submit_cell

submit_cell("swiglu_ffn")
