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
# # Residual block: pre-norm and post-norm
#
# **topic:** residual · **difficulty:** medium
#
# Every Transformer sublayer (attention, FFN) sits inside an "Add & Norm" wrapper: a skip
# connection that adds the sublayer's input back to its output, and a LayerNorm. Where the norm
# goes is a real design choice:
#
# - **post-norm** (the 2017 paper): `y = norm(x + dropout(sublayer(x)))`
# - **pre-norm** (GPT-2, Llama and most models since): `y = x + dropout(sublayer(norm(x)))`
#
# ## What to write
#
# ```python
# class ResidualBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `sublayer` is given to you (the grader passes a `Linear(dim, dim)`, a small
#   `Linear -> GELU -> Linear` MLP, or a Linear fixed at zero). Store it as `self.sublayer`; its
#   parameters appear in the state dict as `sublayer.*`.
# - Create the norm as `self.norm = nn.LayerNorm(dim)` (here `nn.LayerNorm` is allowed, and
#   required under this name): parameters `norm.weight` `(dim,)` ones and `norm.bias` `(dim,)`
#   zeros.
# - `norm_first=True` selects pre-norm, `False` post-norm, as above.
# - `dropout` is the probability of dropping an element of the **sublayer's output** in training
#   mode; in eval mode (`module.eval()`) there is no dropout at all.
# - `x` has shape `(..., dim)`, float32 or float64; return the same shape and dtype.
#
# Outputs and the gradients with respect to `x`, `norm.*` and `sublayer.*` are compared with the
# formulas above.
#
# ## Dropout and the random seed
#
# Train-mode cases call `torch.manual_seed(seed)` right before your forward and compare with the
# reference under the same seed. Draw dropout exactly once, on the sublayer's output, with
# `nn.Dropout` or `F.dropout(..., training=self.training)`: then your mask is the reference's
# mask. A hand-made mask (`torch.rand_like(h) > p`) is correct in spirit but draws different
# random numbers and will not match.
#
# ## How it is graded
#
# About a dozen freshly drawn cases covering both values of `norm_first` with each kind of
# sublayer, the constructor's defaults, train-mode dropout (`p = 0.3`, seeded), dropout
# configured but the module in eval mode, float32 and float64, 1-D to 4-D inputs. The zero
# sublayer pins the skip path down: pre-norm must then return `x` exactly, post-norm `norm(x)`.
# One case runs under `torch.no_grad()` and checks that `x` was not modified in place.
#
# ## Pitfalls interviewers look for
#
# - **Honour `norm_first`.** Both placements are graded.
# - **Keep the skip path clean.** In pre-norm, `x = self.norm(x)` followed by
#   `x + sublayer(x)` adds `norm(x)`, not `x`.
# - **Normalise the input of the sublayer (pre-norm), not its output.**
# - **Dropout on the branch, before the add**, never on the sum: dropping the sum cuts the residual
#   stream itself.
# - **Dropout must respect train/eval.** `F.dropout(h, p)` alone keeps dropping in eval mode.
# - **No `x += ...`**: it modifies the caller's tensor.
#
# ## Background
#
# The course material derives why the skip connection helps: with `y = x + F(x)`, the gradient
# is `1 + dF/dx`, so it always has a direct path back (`000_*`, `002_*`). It also compares the two
# placements: post-norm regularises more and may reach a higher ceiling but is sensitive to
# initialisation and learning rate (it needs warm-up); pre-norm keeps an un-normalised residual
# "highway" and trains stably at depth (`000_*`). `003_*` recommends dropout after the sublayer
# and before the addition.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 残差块：Pre-Norm 与 Post-Norm
#
# Transformer 中的每个子层（注意力、FFN）都包在一个 “Add & Norm” 结构里：一条把子层输入加回到
# 输出上的跳连（残差连接），以及一个 LayerNorm。归一化放在哪里，是一个实实在在的设计选择：
#
# - **Post-Norm**（2017 年原论文）：`y = norm(x + dropout(sublayer(x)))`
# - **Pre-Norm**（GPT-2、Llama 以及此后的大多数模型）：`y = x + dropout(sublayer(norm(x)))`
#
# ## 要写什么
#
# ```python
# class ResidualBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `sublayer` 由调用方传入（评测会传入 `Linear(dim, dim)`、一个小的 `Linear -> GELU -> Linear`
#   MLP，或者一个权重固定为 0 的 Linear）。把它保存为 `self.sublayer`；它的参数在 state dict 中
#   以 `sublayer.*` 出现。
# - 归一化层写成 `self.norm = nn.LayerNorm(dim)`（本题允许、并且要求以这个名字使用
#   `nn.LayerNorm`）：参数为 `norm.weight` `(dim,)` 全 1、`norm.bias` `(dim,)` 全 0。
# - `norm_first=True` 表示 Pre-Norm，`False` 表示 Post-Norm，公式如上。
# - `dropout` 是训练模式下丢弃**子层输出**中每个元素的概率；在评估模式（`module.eval()`）下完全
#   不做 dropout。
# - `x` 的形状为 `(..., dim)`，dtype 为 float32 或 float64；返回形状和 dtype 都相同的张量。
#
# 评测会按上面的公式比较输出，以及对 `x`、`norm.*` 和 `sublayer.*` 的梯度。
#
# ## Dropout 与随机种子
#
# 训练模式的用例会在调用你的 forward 之前执行 `torch.manual_seed(seed)`，并与同一种子下的参考
# 实现比较。请只在子层输出上做一次 dropout，用 `nn.Dropout` 或
# `F.dropout(..., training=self.training)`：这样你的掩码就和参考实现的掩码相同。自己手写的掩码
# （`torch.rand_like(h) > p`）思路没错，但抽取的随机数不同，因而无法对上。
#
# ## 如何评测
#
# 约十几个新随机生成的用例：`norm_first` 的两种取值搭配每一种子层、构造函数的默认参数、训练模式下
# 的 dropout（`p = 0.3`，固定种子）、设置了 dropout 但模块处于评估模式、float32 和 float64、1 维到
# 4 维输入。恒为 0 的子层用来锁定残差通路：此时 Pre-Norm 必须原样返回 `x`，Post-Norm 必须返回
# `norm(x)`。有一个用例在 `torch.no_grad()` 下运行，检查 `x` 没有被原地修改。
#
# ## 面试官关注的陷阱
#
# - **尊重 `norm_first`。** 两种放置方式都会被评测。
# - **保持残差通路干净。** 在 Pre-Norm 中先写 `x = self.norm(x)` 再写 `x + sublayer(x)`，加回去的
#   就是 `norm(x)` 而不是 `x`。
# - **Pre-Norm 归一化的是子层的输入，而不是输出。**
# - **Dropout 放在分支上、相加之前**，绝不能放在和上：对和做 dropout 会切断残差流本身。
# - **Dropout 要区分训练与评估。** 单独写 `F.dropout(h, p)` 在评估模式下仍会丢弃。
# - **不要写 `x += ...`**：它会修改调用方的张量。
#
# ## 背景
#
# 课程资料推导了残差连接为什么有效：对 `y = x + F(x)`，梯度为 `1 + dF/dx`，所以梯度始终有一条
# 直通的回传路径（`000_*`、`002_*`）。资料还比较了两种放置方式：Post-Norm 正则化更强、上限可能
# 更高，但对初始化和学习率敏感（需要 warm-up）；Pre-Norm 保留了一条未经归一化的残差“高速公路”，
# 在很深的网络中也能稳定训练（`000_*`）。`003_*` 建议把 dropout 放在子层之后、相加之前。
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`) and this kernel needs
#    `ADDNORM_URL` (default `http://127.0.0.1:8000`) and `ADDNORM_TOKEN` (the token `POST /users`
#    gave you). In a running kernel you can set them with `%env ADDNORM_TOKEN=...`.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise residual_block`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: a few public cases compared with PyTorch, in this kernel.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.

# %% [markdown]
# ## Your implementation

# %%
# addnorm: exercise residual_block
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        # The grader loads norm.weight, norm.bias and sublayer.*: keep these names.
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Pre-norm or post-norm depending on norm_first, with dropout on the sublayer's branch.
        raise NotImplementedError("implement ResidualBlock.forward")


# %% [markdown]
# ## Quick local check
#
# A few public cases, forward pass only, compared with the formulas `x + sublayer(norm(x))` (pre-norm) and `norm(x + sublayer(x))` (post-norm) in this kernel (the reference
# may use PyTorch's built-ins; your class may not). It is a sanity check and **does not replace
# the server's verdict**, which runs many more shapes and dtypes, the backward pass and the
# known-mistake diagnosis.

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase, check

g = torch.Generator().manual_seed(0)


def case(name, shape, norm_first):
    dim = shape[-1]
    x = torch.randn(shape, generator=g)
    state = {
        "norm.weight": torch.randn(dim, generator=g),
        "norm.bias": torch.randn(dim, generator=g),
        "sublayer.weight": torch.randn(dim, dim, generator=g) / dim**0.5,
        "sublayer.bias": torch.randn(dim, generator=g),
    }

    def norm(t):
        return F.layer_norm(t, (dim,), state["norm.weight"], state["norm.bias"])

    def sublayer(t):
        return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

    expected = x + sublayer(norm(x)) if norm_first else norm(x + sublayer(x))
    return LocalCase(
        name=name,
        x=x,
        build=lambda: ResidualBlock(dim, nn.Linear(dim, dim), norm_first=norm_first),
        state=state,
        expected=expected,
    )


check([
    case("pre-norm, 2-D", (4, 8), norm_first=True),
    case("pre-norm, 3-D", (2, 3, 16), norm_first=True),
    case("post-norm, 2-D", (4, 8), norm_first=False),
    case("post-norm, 3-D", (2, 3, 16), norm_first=False),
])

# %% [markdown]
# ## Submit to the grader
#
# Sends the exercise cell to the server and shows the verdict: a table of checks with their
# errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
# notebook carries on.

# %%
from addnorm_client.render import submit_cell

submit_cell("residual_block")
