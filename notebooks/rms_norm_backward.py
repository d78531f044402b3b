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
# # RMSNorm backward by hand
#
# **topic:** rms_norm · **difficulty:** hard
#
# RMSNorm is LayerNorm without the centring, and its backward is LayerNorm's without one of its
# two terms. Which one, and why, is the interview question; writing it as a
# `torch.autograd.Function` with your own `backward` is how you make sure you know. Llama-style
# models run this backward once per norm per layer per step, so fused kernels write it by hand.
#
# ## What to write
#
# ```python
# class RMSNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x, weight, eps): ...  # returns y
#     @staticmethod
#     def backward(ctx, dy): ...  # returns (dx, dweight, None)
# ```
#
# Called as `y = RMSNormFunction.apply(x, weight, eps)`.
#
# - `x`: shape `(..., D)`, one or more leading dimensions (2-D to 4-D in the tests, and
#   non-contiguous views), dtype float32 or float64. `weight`: shape `(D,)`, same dtype. `eps`:
#   a Python float.
# - Forward, per vector along the last dim, with n = D:
#
#   $$\begin{aligned}
#   \mathrm{ms} &= \frac{1}{n}\sum_i x_i^2\\
#   \mathrm{rstd} &= \frac{1}{\sqrt{\mathrm{ms} + \varepsilon}}\\
#   \hat{x} &= x \cdot \mathrm{rstd}\\
#   y &= \hat{x} \cdot \mathrm{weight} \qquad \text{same shape and dtype as } x
#   \end{aligned}$$
#
# - Backward receives `dy` and returns **three** values: `dx` shaped like `x`, `dweight`
#   **shaped `(D,)`** (summed over every leading dim), and `None` for `eps`. With
#   `g = dy * weight`:
#
#   $$\begin{aligned}
#   dx &= \mathrm{rstd} \cdot \big(g - \hat{x} \cdot \mathrm{mean}(g \cdot \hat{x})\big) \qquad \text{mean over the last dim}\\
#   d\,\mathrm{weight} &= \sum_{\text{rows}} dy \cdot \hat{x}
#   \end{aligned}$$
#
# - Keep the tensors backward needs with **`ctx.save_for_backward(...)`** and read them back
#   from `ctx.saved_tensors`. Plain numbers may stay on `ctx` (`ctx.eps = eps`); a tensor kept as
#   an attribute (`ctx.x_hat = x_hat`) fails, though its values are right.
# - Your `backward` must be the one autograd runs (the grader checks `y.grad_fn`) and compute
#   the gradients itself, without autograd.
#
# It must behave like `F.rms_norm(x, (D,), weight, eps)`: same output, same gradients with
# respect to `x` and `weight`.
#
# ## Not allowed
#
# `F.rms_norm`, `torch.rms_norm`, `nn.RMSNorm`, the LayerNorm built-ins, and anything that makes
# autograd do the backward's work: `torch.autograd.grad`, `torch.autograd.backward`,
# `Tensor.backward` inside `backward`, `torch.func.vjp` / `torch.func.grad`,
# `torch.enable_grad`. A submission that calls one is *rejected*.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# Inside your Function's forward and backward, grad mode stays off and the autograd engine is not entered (no `torch.autograd.grad`, `.backward()`, `torch.func`, forward-mode AD): a Function that has autograd do the work is *rejected*.
#
# ## How it is graded
#
# Thirteen freshly drawn cases, each one call with a random upstream gradient (one forward only,
# under `torch.no_grad()`, where an in-place change of `x` is looked for): `(N, D)`; a few
# features (`D` from 2 to 6); `(B, T, D)`, and `(B, H, T, D)` as a non-contiguous (strided)
# view; a 1-D vector; a `(1, 1, D)` input; tiny inputs (`x * 1e-3`, mean square 1e-6, with `eps = 1e-5`); `eps = 0.1`; float32 around 1e3; float64
# around 1e4 with `D` of 200 or 300; default weight (ones) on a transposed view; constant rows and an all-zero row. Random
# `weight` otherwise. The grader calls your backward node itself (`y.grad_fn.apply(dy)`) and
# compares what it returns **exactly as returned**: autograd would quietly sum a `(T, D)`
# `dweight` down to `(D,)`; here it fails. On every backward call it also checks that:
#
# - the output's `grad_fn` is your Function's node, so the gradients graded are the ones you
#   wrote (`backward_not_used` otherwise);
# - your forward kept its tensors with `ctx.save_for_backward` (the grader counts them with
#   saved-tensor hooks) and none as an attribute of `ctx` (`saved_on_ctx_attribute` otherwise);
# - your `backward` called nothing banned: the run-time check watches inside it too, however the
#   call is reached.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **One correction term, not two.** `- mean(g)` in LayerNorm's dx comes from the subtracted
#   mean; RMSNorm subtracts none. Pasting LayerNorm's backward gives a plausible, wrong dx.
# - **The term through the RMS.** Holding `rstd` constant gives `rstd * g`: wrong unless `g` is
#   orthogonal to `x`.
# - **`g`, not `dy`**, and **`dweight` summed over every leading dim** (autograd would quietly sum
#   a `(T, D)` gradient for you; the contract asks for `(D,)`).
# - **eps in backward too.** If backward recomputes the statistic, it must be the forward's:
#   `sqrt(ms + eps)`. Without eps an all-zero row divides by zero.
#
# ## Why it works
#
# Scaling a row by a positive factor leaves `x_hat` unchanged (up to eps), so the gradient has no
# component along `x`: `dx` is `rstd * g` with its component along `x_hat` removed,
# `x_hat * mean(g * x_hat)` (since `mean(x_hat^2) = ms / (ms + eps)`, which is 1 up to eps, that
# is the projection onto `x_hat`). Shifting a row does change RMSNorm's output, unlike
# LayerNorm's, so there is no reason for `dx` to sum to zero, and no `- mean(g)` term.
#
# ## Interviewer follow-ups
#
# Served with the exercise (the `follow_ups` field of `GET /exercises/rms_norm_backward`) and
# listed at the end of its notebook, each linked to the question bank: the direction dx is orthogonal to
# (`rms-backward-direction`), which term is gone compared with LayerNorm (`rms-what-is-dropped`),
# the invariances (`rms-invariance`), what `nn.RMSNorm` adds when no eps is given
# (`rms-eps-none`), and how much dropping the mean saves (`rms-speedup-claim`).
#
# ## Cost and memory
#
# - **Saved for backward:** `x_hat` and `rstd` (one number per row), plus `weight`; or `x` and
#   `rstd`, recomputing `x_hat` (what fused kernels do).
# - **Backward FLOPs:** about seven per element, one row reduction for dx (LayerNorm needs two)
#   and one column reduction for `dweight` (LayerNorm needs two, for weight and bias). Still
#   memory-bound: the saving in time is smaller than the saving in arithmetic.
#
# ## Test yourself
#
# - `torch.autograd.gradcheck` in float64 on random inputs, including an all-zero row.
# - Check numerically that `(dx * x).sum(-1)` is about 0 when `eps` is tiny, and that
#   `dx.sum(-1)` is not.
# - Write the Gemma variant, `y = x_hat * (1 + weight)`, and its backward.
# - Fuse the residual add: `fused_add_rms_norm(x, residual, weight, eps)` returns the normalised
#   sum and the new residual; what is its backward with respect to both inputs?
#
# ## Background
#
# The article "FFN, Residual Addition, LN", section "2.2 RMSNorm", derives the forward step by
# step (mean square, divide by its root, scale, no bias) and attributes RMSNorm's speed to the
# dropped centring; here you see the same saving in the backward, one reduction fewer per row.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 手写 RMSNorm 的反向传播
#
# RMSNorm 是去掉了中心化的 LayerNorm，它的反向也比 LayerNorm 的反向少了两项中的一项。少的是哪一项、
# 为什么少，正是面试要问的；用 `torch.autograd.Function` 自己写出 `backward`，是确认自己真懂的办法。
# Llama 一类模型每一步训练都要为每层的每个 norm 跑一遍这个反向，所以融合算子都是手写的。
#
# ## 要写什么
#
# ```python
# class RMSNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x, weight, eps): ...  # 返回 y
#     @staticmethod
#     def backward(ctx, dy): ...  # 返回 (dx, dweight, None)
# ```
#
# 调用方式：`y = RMSNormFunction.apply(x, weight, eps)`。
#
# - `x`：形状 `(..., D)`，前面有一个或多个维度（测试覆盖 2 维到 4 维，以及不连续的视图），dtype
#   为 float32 或 float64。`weight`：形状 `(D,)`，dtype 相同。`eps`：Python 浮点数。
# - 前向，对最后一维上的每个向量（n = D）：
#
#   $$\begin{aligned}
#   \mathrm{ms} &= \frac{1}{n}\sum_i x_i^2\\
#   \mathrm{rstd} &= \frac{1}{\sqrt{\mathrm{ms} + \varepsilon}}\\
#   \hat{x} &= x \cdot \mathrm{rstd}\\
#   y &= \hat{x} \cdot \mathrm{weight} \qquad \text{形状和 dtype 与 } x \text{ 相同}
#   \end{aligned}$$
#
# - 反向接收 `dy`，返回**三个**值：形状同 `x` 的 `dx`；**形状为 `(D,)`** 的 `dweight`（在所有
#   前置维度上求和）；`eps` 对应 `None`。记 `g = dy * weight`：
#
#   $$\begin{aligned}
#   dx &= \mathrm{rstd} \cdot \big(g - \hat{x} \cdot \mathrm{mean}(g \cdot \hat{x})\big) \qquad \text{均值在最后一维上求}\\
#   d\,\mathrm{weight} &= \sum_{\text{行}} dy \cdot \hat{x}
#   \end{aligned}$$
#
# - 反向需要的张量用 **`ctx.save_for_backward(...)`** 保存，再从 `ctx.saved_tensors` 取回。普通
#   数字可以留在 `ctx` 上（`ctx.eps = eps`）；把张量存成属性（`ctx.x_hat = x_hat`）即使数值正确也
#   判为错误。
# - autograd 实际运行的必须是你的 `backward`（评测会检查 `y.grad_fn`），梯度由它自己算，不能借助
#   autograd。
#
# 行为要与 `F.rms_norm(x, (D,), weight, eps)` 一致：输出相同，对 `x` 和 `weight` 的梯度也相同。
#
# ## 不允许使用
#
# `F.rms_norm`、`torch.rms_norm`、`nn.RMSNorm`、LayerNorm 的内置实现，以及一切让 autograd 替你做
# 反向的手段：`torch.autograd.grad`、`torch.autograd.backward`、在 `backward` 里调用
# `Tensor.backward`、`torch.func.vjp` / `torch.func.grad`、`torch.enable_grad`。调用了它们的提交
# 会被判为 *rejected*。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# 在你的 Function 的 forward 和 backward 里，grad mode 保持关闭，也不能进入 autograd 引擎（不能用 `torch.autograd.grad`、`.backward()`、`torch.func`、前向模式自动微分）：让 autograd 代劳的 Function 会被判为 *rejected*。
#
# ## 如何评测
#
# 每次提交有十三个新随机生成的用例，每个做一次调用并带随机上游梯度做反向（其中一个只做前向，在
# `torch.no_grad()` 下运行，检查 `x` 是否被原地修改）：`(N, D)`；很少的特征（`D` 为 2 到 6）；
# `(B, T, D)`，以及不连续（隔列取）视图形式的 `(B, H, T, D)`；一维向量；`(1, 1, D)` 输入；极小输入（`x * 1e-3`，均方值 1e-6，`eps = 1e-5`）；
# `eps = 0.1`；数值在 1e3 附近的 float32；数值在 1e4 附近、`D` 为 200 或 300 的 float64；转置视图
# 上的默认 weight（全 1）；常数行和一行全零。其余用例的 `weight` 都是随机的。评测程序直接调用你的反向节点
# （`y.grad_fn.apply(dy)`），把它返回的梯度**原样**比较：形状为 `(T, D)` 的 `dweight`，autograd 会悄悄
# 加总成 `(D,)`，这里则判为错误。每次反向还会检查：
#
# - 输出的 `grad_fn` 是你的 Function 的节点，这样被评测的才是你写的梯度（否则判为
#   `backward_not_used`）；
# - 你的 forward 用 `ctx.save_for_backward` 保存张量（评测程序用 saved-tensor hooks 计数），并且
#   没有把张量存成 `ctx` 的属性（否则判为 `saved_on_ctx_attribute`）；
# - 你的 `backward` 没有调用任何被禁止的函数：运行时检查同样覆盖 backward 内部，无论通过什么方式
#   调到。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **只有一个修正项。** LayerNorm 的 dx 里的 `- mean(g)` 来自被减去的均值，RMSNorm 不减均值。
#   照搬 LayerNorm 的反向，得到的 dx 看着像样，其实是错的。
# - **经过 RMS 的那一项。** 把 `rstd` 当成常数，得到的是 `rstd * g`：除非 `g` 恰好与 `x` 正交，
#   否则就是错的。
# - **用 `g` 而不是 `dy`**；**`dweight` 要在所有前置维度上求和**（autograd 会悄悄替你把 `(T, D)`
#   的梯度加总，但约定要求返回 `(D,)`）。
# - **反向里也要有 eps。** 如果在反向里重新计算统计量，必须和前向一样是 `sqrt(ms + eps)`；没有 eps，
#   遇到全零的行就会除以零。
#
# ## 为什么有效
#
# 把一行乘以一个正数，`x_hat` 不变（忽略 eps），所以梯度在 `x` 方向上没有分量：`dx` 就是从
# `rstd * g` 中去掉它沿 `x_hat` 的分量 `x_hat * mean(g * x_hat)`（`mean(x_hat^2) = ms / (ms +
# eps)`，忽略 eps 时为 1，所以这正是向 `x_hat` 的投影）。与 LayerNorm 不同，整行平移会改变
# RMSNorm 的输出，`dx` 没有理由在一行上求和为零，也就没有 `- mean(g)` 这一项。
#
# ## 面试官的追问
#
# 随题目一起提供（`GET /exercises/rms_norm_backward` 返回的 `follow_ups` 字段），也列在 notebook 末尾，
# 每条都链接到题库：dx 与哪个方向正交（`rms-backward-direction`）、与 LayerNorm 相比
# 少了哪一项（`rms-what-is-dropped`）、不变性（`rms-invariance`）、不传 eps 时 `nn.RMSNorm` 加的
# 是什么（`rms-eps-none`），以及去掉均值省下多少（`rms-speedup-claim`）。
#
# ## 计算量与显存
#
# - **为反向保存的内容：** `x_hat` 和 `rstd`（每行一个数），外加 `weight`；或者保存 `x` 和
#   `rstd`，在反向里重新算 `x_hat`（融合算子的做法）。
# - **反向的 FLOPs：** 每个元素约七次运算，dx 只需一次按行归约（LayerNorm 要两次），`dweight`
#   只需一次按列归约（LayerNorm 的 weight 和 bias 要两次）。它依然受内存带宽限制：时间上的节省
#   比运算量上的节省小。
#
# ## 自我检验
#
# - 在 float64 下对随机输入（包括一行全零）运行 `torch.autograd.gradcheck`。
# - 数值验证：`eps` 很小时 `(dx * x).sum(-1)` 约为 0，而 `dx.sum(-1)` 不是。
# - 写出 Gemma 的变体 `y = x_hat * (1 + weight)` 及其反向。
# - 把残差加法融合进来：`fused_add_rms_norm(x, residual, weight, eps)` 返回归一化后的和以及新的
#   残差，它对两个输入的反向分别是什么？
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》的“2.2 RMSNorm”一节逐步推导了前向（均方值、除以其平方根、缩放、
# 没有偏置），并把 RMSNorm 的速度优势归功于省掉了中心化；在本题里，你会在反向中看到同样的节省：
# 每行少一次归约。
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`). This kernel finds it
#    through `ADDNORM_URL` (default `http://127.0.0.1:8000`) and needs your learner token in
#    `ADDNORM_TOKEN`. No token yet? Run this once in a cell: it creates a learner and sets the
#    token in this kernel (keep the token if you want to come back to your progress):
#
#    ```python
#    import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = Client().create_user("me")["token"]
#    ```
#
#    With a token already, `%env ADDNORM_TOKEN=...` sets it.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise rms_norm_backward`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: it runs your exercise cell again **on its own**, in a fresh
#    namespace, exactly as the server will (so a missing import fails here too), and compares a
#    few public cases with PyTorch.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.
# 5. Then the interviewer's follow-ups: the questions asked once the code runs.
#
# <details><summary>中文</summary>
#
# ## 这个 notebook 怎么用
#
# 1. 先把服务跑起来（`addnorm serve` 或 `docker compose up`）。kernel 通过 `ADDNORM_URL`
#    找到服务（默认 `http://127.0.0.1:8000`），并从 `ADDNORM_TOKEN` 读取你的学习者 token。
#    还没有 token？在任意单元格里运行一次下面这行：它会新建一个学习者，并把 token 设置到当前
#    kernel 中（想以后接着看自己的进度，就把 token 记下来）：
#
#    ```python
#    import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = Client().create_user("me")["token"]
#    ```
#
#    已经有 token 的话，用 `%env ADDNORM_TOKEN=...` 设置即可。
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise rms_norm_backward` 不要删：提交单元格发送的是
#    最近一次*运行过*、以这一行开头的单元格。
# 3. 运行本地快速检查：它会把练习单元格的代码**单独**放进一个全新的命名空间再执行一遍，
#    和服务器的做法完全一样（漏写的 import 在这里就会暴露），然后在几个公开用例上与 PyTorch
#    对比。
# 4. 运行提交单元格：服务器在沙箱中评测你的代码并给出结论；如果你的输出与某个已知错误吻合，
#    还会指出是哪一个。
# 5. 最后是面试官的追问：代码跑通之后面试官通常会接着问的问题。
#
# </details>

# %% [markdown]
# ## Your implementation · 你的实现

# %%
# addnorm: exercise rms_norm_backward
from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        # x: (..., D). Divide by sqrt(mean(x^2) + eps) over the last dim, then scale by weight.
        # Save what backward needs with ctx.save_for_backward(...).
        raise NotImplementedError("implement RMSNormFunction.forward")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        # Return (dx, dweight, None): dx like x, dweight shaped (D,), None for eps. By hand.
        raise NotImplementedError("implement RMSNormFunction.backward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.rms_norm` with a random weight: the output, and your backward's gradients
# for x and weight.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.rms_norm`，weight 随机：比较输出，以及你的 backward 对 x、weight 的梯度。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        d = shape[-1]
        w = 1 + 0.5 * torch.randn(d, generator=g)

        def build(fn: Any) -> Callable[..., Any]:
            return lambda t, weight=w: fn.apply(t, weight, 1e-6)

        return LocalCase(name, x, build, F.rms_norm(x, (d,), w, 1e-6), leaves={"weight": w})

    return [
        case("2-D", (4, 16), 1.0),
        case("3-D", (2, 3, 24), 1.0),
        case("offset rows", (3, 40), 5.0),
    ]


from addnorm_client.local import check

check("rms_norm_backward", "RMSNormFunction", local_cases())

# %% [markdown]
# ## Submit to the grader
#
# Sends the exercise cell to the server and shows the verdict: a table of checks with their
# errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
# notebook carries on.
#
# <details><summary>中文</summary>
#
# 把练习单元格发给服务器并显示评测结论：逐项检查及其误差；如果与某个已知错误吻合，还会给出
# 诊断。连不上服务器时会提示原因，notebook 照常往下运行。
#
# </details>

# %%
from addnorm_client.render import submit_cell

submit_cell("rms_norm_backward")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Which direction is dx always orthogonal to, and why? (`rms-backward-direction`, `questions_rms_norm`)
# 2. Compared with LayerNorm's backward, which term is gone, and why? (`rms-what-is-dropped`, `questions_rms_norm`)
# 3. Which changes to the input leave the output unchanged, and what does that force on dx? (`rms-invariance`, `questions_rms_norm`)
# 4. What does nn.RMSNorm add under the root when you pass no eps? (`rms-eps-none`, `questions_rms_norm`)
# 5. How much does dropping the mean save in the backward pass? (`rms-speedup-claim`, `questions_rms_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. dx 总是与哪个方向正交？为什么？ (`rms-backward-direction`, `questions_rms_norm`)
# 2. 和 LayerNorm 的反向相比，少了哪一项？为什么？ (`rms-what-is-dropped`, `questions_rms_norm`)
# 3. 输入做哪些改动输出不变？这对 dx 有什么约束？ (`rms-invariance`, `questions_rms_norm`)
# 4. 创建 nn.RMSNorm 时不传 eps，根号里加的是什么？ (`rms-eps-none`, `questions_rms_norm`)
# 5. 去掉均值在反向传播里能省多少？ (`rms-speedup-claim`, `questions_rms_norm`)
#
# </details>
