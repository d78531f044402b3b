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
# # BatchNorm backward by hand, in training mode
#
# **topic:** batch_norm · **difficulty:** hard
#
# In training, BatchNorm normalises each channel with the mean and variance of the batch it is
# given. That makes the backward pass the classic interview derivation: the statistics depend on
# every sample, so every input reaches every output of its channel, and the gradient has three
# terms, not one. Here you write that backward yourself, as a `torch.autograd.Function`, for
# `(N, C)` and `(N, C, L)` inputs.
#
# ## What to write
#
# ```python
# class BatchNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x: Tensor, weight: Tensor, bias: Tensor, eps: float) -> Tensor: ...
#     @staticmethod
#     def backward(ctx, dy: Tensor) -> tuple[Tensor, Tensor, Tensor, None]: ...
# ```
#
# - `x` has shape `(N, C)` or `(N, C, L)`: **channels at dim 1**. `weight` and `bias` have shape
#   `(C,)`. Dtype float32 or float64; `x` may be a non-contiguous view.
# - **forward**, training mode: for each channel, the mean and the **biased** variance over
#   every other axis (the `m = N` values of `(N, C)`, the `m = N * L` values of `(N, C, L)`),
#   `x_hat = (x - mean) / sqrt(var + eps)`, `y = x_hat * weight + bias` (broadcast per channel).
#   No running statistics: a Function has no state (the module keeps them; exercise
#   `batch_norm_1d`).
# - Keep what backward needs with **`ctx.save_for_backward(...)`**, not as attributes of `ctx`
#   (a plain number such as `eps` may be an attribute).
# - **backward** returns `(dx, dweight, dbias, None)`: `dx` shaped like `x`, `dweight` and `dbias`
#   shaped `(C,)` exactly as returned (autograd would sum a `(C, L)` gradient down for you; the
#   grader reads what your backward returns), `None` for `eps`.
# - Compute the gradients yourself: backward runs with autograd off, and switching it back on
#   (or calling `torch.autograd.grad`) is not allowed.
#
# Your Function must behave like `F.batch_norm(x, None, None, weight, bias, training=True,
# eps=eps)`: same output and the same gradients of `x`, `weight` and `bias`.
#
# In formulas, with $g = dy \cdot \mathrm{weight}$ and every mean taken per channel over its $m$ values:
#
# $$dx = \mathrm{rstd}\left(g - \overline{g} - \hat{x}\,\overline{g\,\hat{x}}\right),\qquad d\mathrm{weight} = \sum dy\,\hat{x},\qquad d\mathrm{bias} = \sum dy$$
#
# ## Not allowed
#
# `F.batch_norm`, `torch.batch_norm`, `torch.native_batch_norm` and its private aten entry points
# (`_native_batch_norm_legit`, `_batch_norm_impl_index`), the backward kernels
# (`native_batch_norm_backward`, `batch_norm_backward`, `batch_norm_backward_reduce` /
# `_elemt`), `nn.BatchNorm1d/2d/3d`, `nn.SyncBatchNorm`, and instance, group or layer norm bent to
# the same purpose; inside backward, anything that makes autograd do the work
# (`torch.autograd.grad`, `torch.autograd.backward`, `Tensor.backward`, `torch.func.vjp` / `grad`,
# `torch.enable_grad`, `torch.set_grad_enabled`). A submission that reaches one is *rejected*.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# Inside your Function's forward and backward, grad mode stays off and the autograd engine is not entered (no `torch.autograd.grad`, `.backward()`, `torch.func`, forward-mode AD): a Function that has autograd do the work is *rejected*.
#
# ## How it is graded
#
# Fourteen freshly drawn cases per submission, one call each with random weight and bias (one
# with weight 1 and bias 0), most with a random upstream gradient: a few rows (3 to 5) in float64;
# `(N, C, L)` sequences in float32 and float64; `(N, C)` rows; eps 0.1; one sequence `(1, C, L)`
# (statistics over L alone); a batch of two; channels offset by about 100; a transposed
# `(N, C, L)` view; a strided `(N, C)` view; 150 to 300 channels; inputs of 1e-3 (eps matters);
# two forwards under `torch.no_grad()` (where an in-place change of an input is looked for). The
# grader checks that the output's `grad_fn` is your Function's (otherwise `backward_not_used`),
# runs your backward itself, compares `dx`, `dweight` and `dbias` exactly as returned, and checks
# that forward used `ctx.save_for_backward` (otherwise `saved_on_ctx_attribute`).
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **The statistics treated as constants**: `dx = dy * weight * rstd` is eval mode's derivative.
# - **The variance term forgotten**: only `mean(g)` subtracted.
# - **`dy` instead of `dy * weight`** in dx (weights of one hide it).
# - **Reductions over dim 0 only** on `(N, C, L)`: the means in dx, and `dweight`/`dbias` shaped
#   `(C, L)`.
# - **`m = x.shape[0]`** where each channel saw `N * L` values.
# - **`dweight` from `x`** instead of `x_hat`.
# - **The variance recomputed with `x.var()`** (n - 1) in backward.
#
# ## Why it works
#
# - **Three paths.** With `g = dy * weight` the gradient reaching `x_hat`, and `x_hat = (x - mu)
#   * rstd`: the direct path gives `rstd * g`; the mean path, since `d mu / d x_i = 1/m`, gives
#   `-rstd * mean(g)`; the variance path, since `d var / d x_i = 2 (x_i - mu) / m`, gives
#   `-rstd * x_hat * mean(g * x_hat)`. Together:
#   `dx = rstd / m * (m * g - sum(g) - x_hat * sum(g * x_hat))`, every sum over the channel's
#   `m` values (question `ln-backward-dx-formula` derives the same for LayerNorm, over the other
#   axis).
# - **Checks you can run.** Per channel, `dx` sums to zero (shifting a channel does not change
#   `y`) and is orthogonal to `x_hat` (scaling it does not either) (`ln-backward-properties`).
# - **Parameters.** `dweight = sum(dy * x_hat)` and `dbias = sum(dy)`, over every axis but dim 1:
#   every value of a channel shares its weight and bias.
# - **Eval is different.** With running statistics the mean and variance are constants, and
#   `dx = dy * weight * rstd` *is* right there (`bn-eval-uses-running-stats`); that is also why a
#   BatchNorm can be folded into the layer before it at inference but not in training
#   (`bn-fold-train-mode`).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/batch_norm_backward`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - Derive dx (`ln-backward-dx-formula`), and the properties it has (`ln-backward-properties`).
# - Over which positions, and how many values, are one channel's statistics taken?
#   (`bn-axes`, `bn-count-statistics`)
# - Can one sample's output change when another joins its batch? (`bn-batch-dependence`)
# - What are the statistics, and the backward, in eval mode? (`bn-eval-uses-running-stats`)
#
# ## Cost and memory
#
# Forward: two reductions per channel and one elementwise pass. Backward: two more reductions
# (`sum(g)`, `sum(g * x_hat)`) and an elementwise pass, so about as much as forward. Saving
# `x_hat` and `rstd` costs one tensor the size of `x` plus `C` numbers; saving `x` instead and
# recomputing `x_hat` in backward trades that memory for a second pass (and a second chance to
# get the statistics wrong).
#
# ## Test yourself
#
# Check your backward with `torch.autograd.gradcheck` in float64, then verify the two properties
# above numerically on a random `(8, 4, 16)` input. Extend the Function to `(N, C, H, W)`, and
# derive what changes in `dx` when the batch has one sample and `L = 1` (why does PyTorch refuse
# that input in training?).
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "LayerNorm 为什么不用 BatchNorm",
# explains that BatchNorm's statistics depend on the batch, which is what makes it awkward for
# variable-length sequences and small batches. This backward is where that dependence shows in
# the mathematics: every sample's gradient depends on every other sample of the batch, through
# the two mean terms.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 手写 BatchNorm 的反向传播（训练模式）
#
# 训练时，BatchNorm 用传入 batch 的均值和方差对每个通道做归一化。这让它的反向传播成了面试里的
# 经典推导：统计量依赖每个样本，所以每个输入都会影响同一通道的每个输出，梯度有三项而不是一项。
# 本题要你把这个 backward 亲手写成 `torch.autograd.Function`，输入为 `(N, C)` 和 `(N, C, L)`。
#
# ## 要写什么
#
# ```python
# class BatchNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x: Tensor, weight: Tensor, bias: Tensor, eps: float) -> Tensor: ...
#     @staticmethod
#     def backward(ctx, dy: Tensor) -> tuple[Tensor, Tensor, Tensor, None]: ...
# ```
#
# - `x` 的形状为 `(N, C)` 或 `(N, C, L)`：**通道在第 1 维**。`weight` 和 `bias` 的形状为 `(C,)`。
#   dtype 为 float32 或 float64；`x` 可能是不连续的视图。
# - **forward**，训练模式：每个通道在其余所有维度上求均值和**有偏**方差（`(N, C)` 时是 `m = N`
#   个值，`(N, C, L)` 时是 `m = N * L` 个值），`x_hat = (x - mean) / sqrt(var + eps)`，
#   `y = x_hat * weight + bias`（按通道广播）。没有滑动统计量：Function 没有状态（那是模块的事，
#   见练习 `batch_norm_1d`）。
# - 用 **`ctx.save_for_backward(...)`** 保存 backward 需要的张量，不要存成 `ctx` 的属性（`eps`
#   这样的普通数字可以作为属性）。
# - **backward** 返回 `(dx, dweight, dbias, None)`：`dx` 与 `x` 同形状，`dweight` 和 `dbias` 按
#   返回值原样检查，形状必须是 `(C,)`（autograd 会替你把 `(C, L)` 的梯度求和下去；评测读取的是
#   你的 backward 返回的值），`eps` 对应 `None`。
# - 梯度要自己算：backward 运行时 autograd 是关闭的，不允许重新打开它（也不允许调用
#   `torch.autograd.grad`）。
#
# 你的 Function 要与 `F.batch_norm(x, None, None, weight, bias, training=True, eps=eps)` 行为
# 一致：输出相同，`x`、`weight`、`bias` 的梯度也相同。
#
# 用公式写，$g = dy \cdot \mathrm{weight}$，所有均值都按通道在它的 $m$ 个值上取：
#
# $$dx = \mathrm{rstd}\left(g - \overline{g} - \hat{x}\,\overline{g\,\hat{x}}\right),\qquad d\mathrm{weight} = \sum dy\,\hat{x},\qquad d\mathrm{bias} = \sum dy$$
#
# ## 不允许使用
#
# `F.batch_norm`、`torch.batch_norm`、`torch.native_batch_norm` 及其私有 aten 入口
# （`_native_batch_norm_legit`、`_batch_norm_impl_index`），反向 kernel
# （`native_batch_norm_backward`、`batch_norm_backward`、`batch_norm_backward_reduce` /
# `_elemt`），`nn.BatchNorm1d/2d/3d`、`nn.SyncBatchNorm`，以及挪作同样用途的 instance、group 或
# layer norm；在 backward 里，任何让 autograd 代劳的东西（`torch.autograd.grad`、
# `torch.autograd.backward`、`Tensor.backward`、`torch.func.vjp` / `grad`、`torch.enable_grad`、
# `torch.set_grad_enabled`）。用到其中任何一个的提交会被判为 *rejected*。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# 在你的 Function 的 forward 和 backward 里，grad mode 保持关闭，也不能进入 autograd 引擎（不能用 `torch.autograd.grad`、`.backward()`、`torch.func`、前向模式自动微分）：让 autograd 代劳的 Function 会被判为 *rejected*。
#
# ## 如何评测
#
# 每次提交有十四个新随机生成的用例，每个用例调用一次，weight 和 bias 取随机值（有一个用例取
# weight 为 1、bias 为 0），大多数带随机的上游梯度：float64 下的少量行（3 到 5 行）；float32 和
# float64 下的 `(N, C, L)` 序列；`(N, C)` 的行；eps 为 0.1；只有一条序列 `(1, C, L)`（统计量只沿
# L 计算）；batch 为 2；各通道偏移约 100；转置得到的 `(N, C, L)` 视图；跨步切片得到的 `(N, C)`
# 视图；150 到 300 个通道；1e-3 量级的输入（eps 起作用）；两个在 `torch.no_grad()` 下的前向（检查
# 有没有原地修改输入）。评测会检查输出的 `grad_fn` 是不是你的 Function（否则为
# `backward_not_used`），亲自运行你的 backward，按返回值原样比较 `dx`、`dweight`、`dbias`，并检查
# forward 有没有用 `ctx.save_for_backward`（否则为 `saved_on_ctx_attribute`）。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **把统计量当常数**：`dx = dy * weight * rstd` 是 eval 模式的导数。
# - **忘了方差那一项**：只减去了 `mean(g)`。
# - **dx 里用 `dy` 而不是 `dy * weight`**（weight 全为 1 时看不出来）。
# - **在 `(N, C, L)` 上只沿第 0 维归约**：dx 里的均值，以及形状为 `(C, L)` 的 `dweight`/`dbias`。
# - **`m = x.shape[0]`**，而每个通道实际有 `N * L` 个值。
# - **`dweight` 用了 `x`** 而不是 `x_hat`。
# - **backward 里用 `x.var()`（n - 1）重新计算方差**。
#
# ## 为什么有效
#
# - **三条路径。** 设 `g = dy * weight` 是到达 `x_hat` 的梯度，`x_hat = (x - mu) * rstd`：直接
#   路径贡献 `rstd * g`；均值路径，由于 `d mu / d x_i = 1/m`，贡献 `-rstd * mean(g)`；方差路径，
#   由于 `d var / d x_i = 2 (x_i - mu) / m`，贡献 `-rstd * x_hat * mean(g * x_hat)`。合起来：
#   `dx = rstd / m * (m * g - sum(g) - x_hat * sum(g * x_hat))`，所有求和都在该通道的 `m` 个值上
#   （题目 `ln-backward-dx-formula` 对 LayerNorm 在另一个维度上做了同样的推导）。
# - **可以验证的性质。** 每个通道上，`dx` 之和为零（整个通道平移不改变 `y`），且与 `x_hat`
#   正交（整个通道缩放也不改变 `y`）（`ln-backward-properties`）。
# - **参数。** `dweight = sum(dy * x_hat)`，`dbias = sum(dy)`，在除第 1 维外的所有维度上求和：
#   一个通道的所有值共享它的 weight 和 bias。
# - **eval 模式不同。** 用滑动统计量时均值和方差是常数，这时 `dx = dy * weight * rstd` *就是*
#   对的（`bn-eval-uses-running-stats`）；这也是推理时 BatchNorm 可以折叠进前一层、训练时却不能
#   的原因（`bn-fold-train-mode`）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/batch_norm_backward` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
# 可以先准备这几个：
#
# - 推导 dx（`ln-backward-dx-formula`），以及它具有的性质（`ln-backward-properties`）。
# - 一个通道的统计量在哪些位置、由多少个值算出？（`bn-axes`、`bn-count-statistics`）
# - 同一 batch 里加入别的样本，一个样本的输出会变吗？（`bn-batch-dependence`）
# - eval 模式下统计量和反向传播是什么？（`bn-eval-uses-running-stats`）
#
# ## 计算量与显存
#
# 前向：每个通道两次归约，加一次逐元素计算。反向：再两次归约（`sum(g)`、`sum(g * x_hat)`）加
# 一次逐元素计算，与前向相当。保存 `x_hat` 和 `rstd` 需要一个与 `x` 同样大的张量加 `C` 个数；
# 改为保存 `x`、在 backward 里重新计算 `x_hat`，是用第二遍计算换显存（也多了一次算错统计量的
# 机会）。
#
# ## 自我检验
#
# 在 float64 下用 `torch.autograd.gradcheck` 检查你的 backward，再在随机的 `(8, 4, 16)` 输入上
# 数值验证上面两条性质。把 Function 扩展到 `(N, C, H, W)`，并推导当 batch 只有一个样本且
# `L = 1` 时 `dx` 会怎样（为什么 PyTorch 在训练模式下拒绝这样的输入？）。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“LayerNorm 为什么不用 BatchNorm”一节解释说，BatchNorm
# 的统计量依赖 batch，这让它难以处理变长序列和小 batch。这个 backward 正是这种依赖在数学上的
# 体现：通过两个均值项，每个样本的梯度都依赖 batch 里的其他所有样本。
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
#    `# addnorm: exercise batch_norm_backward`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise batch_norm_backward` 不要删：提交单元格发送的是
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
# addnorm: exercise batch_norm_backward
from typing import Any

import torch


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        # x: (N, C) or (N, C, L). Training mode: per-channel statistics over every other axis
        # (biased variance, eps inside the sqrt), then scale and shift by weight and bias (C,).
        # Save what backward needs with ctx.save_for_backward(...).
        raise NotImplementedError("implement BatchNormFunction.forward")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        # Return (dx, dweight, dbias, None): dx like x, dweight and dbias shaped (C,), None for
        # eps. Compute them by hand: no autograd here.
        raise NotImplementedError("implement BatchNormFunction.backward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.batch_norm` in training mode with random weight and bias, on (N, C) and
# (N, C, L): the output, and your backward's gradients for x, weight and bias.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：训练模式下的 `torch.nn.functional.batch_norm`，weight 和 bias 随机，输入为 (N, C) 和
# (N, C, L)：比较输出，以及你的 backward 对 x、weight、bias 的梯度。
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
        x = torch.randn(shape, generator=g) * scale + 1.0
        c = shape[1]
        w = 1 + 0.5 * torch.randn(c, generator=g)
        b = torch.randn(c, generator=g)

        def build(fn: Any) -> Callable[..., Any]:
            return lambda t, weight=w, bias=b: fn.apply(t, weight, bias, 1e-5)

        expected = F.batch_norm(x, None, None, w, b, training=True, eps=1e-5)
        return LocalCase(name, x, build, expected, leaves={"weight": w, "bias": b})

    return [
        case("(N, C)", (8, 6), 1.0),
        case("(N, C, L)", (4, 5, 7), 2.0),
        case("few rows", (3, 4), 1.0),
    ]


from addnorm_client.local import check

check("batch_norm_backward", "BatchNormFunction", local_cases())

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

submit_cell("batch_norm_backward")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Derive dx for LayerNorm. What changes for BatchNorm? (`ln-backward-dx-formula`, `questions_layer_norm`)
# 2. Which properties does dx have over the values a statistic is taken on? (`ln-backward-properties`, `questions_layer_norm`)
# 3. Over which positions are one channel's statistics computed? (`bn-axes`, `questions_batch_norm`)
# 4. How many values enter each channel's mean on a (B, L, D) input? (`bn-count-statistics`, `questions_batch_norm`)
# 5. Can one sample's output change when another sample joins the batch? (`bn-batch-dependence`, `questions_batch_norm`)
# 6. In eval mode, which statistics does BatchNorm use, and what is its backward then? (`bn-eval-uses-running-stats`, `questions_batch_norm`)
# 7. Does a BatchNorm folded into the previous layer behave the same in training? (`bn-fold-train-mode`, `questions_batch_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 推导 LayerNorm 的 dx。换成 BatchNorm 时哪里不同？ (`ln-backward-dx-formula`, `questions_layer_norm`)
# 2. 在统计量所覆盖的那些值上，dx 有哪些性质？ (`ln-backward-properties`, `questions_layer_norm`)
# 3. 一个通道的统计量是在哪些位置上计算的？ (`bn-axes`, `questions_batch_norm`)
# 4. 输入为 (B, L, D) 时，每个通道的均值由多少个值算出？ (`bn-count-statistics`, `questions_batch_norm`)
# 5. 换一个同 batch 的样本，一个样本的输出会变吗？ (`bn-batch-dependence`, `questions_batch_norm`)
# 6. eval 模式下 BatchNorm 用哪个统计量？这时它的反向传播是什么？ (`bn-eval-uses-running-stats`, `questions_batch_norm`)
# 7. 折叠进前一层的 BatchNorm 在训练模式下行为一样吗？ (`bn-fold-train-mode`, `questions_batch_norm`)
#
# </details>
