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
# # LayerNorm backward by hand
#
# **topic:** layer_norm · **difficulty:** hard
#
# Autograd will differentiate any LayerNorm you write, so why do it by hand? Because fused
# kernels do (the backward of `nn.LayerNorm` is one hand-written kernel, not a chain of autograd
# nodes), because memory depends on what you choose to save, and because "derive the LayerNorm
# gradient" is a classic whiteboard question whose answer has two terms people forget. Here you
# write LayerNorm as a `torch.autograd.Function` whose `backward` you write yourself.
#
# ## What to write
#
# ```python
# class LayerNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x, weight, bias, eps): ...  # returns y
#     @staticmethod
#     def backward(ctx, dy): ...  # returns (dx, dweight, dbias, None)
# ```
#
# Called as `y = LayerNormFunction.apply(x, weight, bias, eps)`.
#
# - `x`: shape `(..., D)`, one or more leading dimensions (the tests use 2-D to 4-D and
#   non-contiguous views), dtype float32 or float64. `weight`, `bias`: shape `(D,)`, same dtype.
#   `eps`: a Python float.
# - Forward, per vector along the last dim, with n = D:
#
#   $$\begin{aligned}
#   \mathrm{mean} &= \frac{1}{n}\sum_i x_i\\
#   \mathrm{var} &= \frac{1}{n}\sum_i (x_i - \mathrm{mean})^2 \qquad \text{biased}\\
#   \mathrm{rstd} &= \frac{1}{\sqrt{\mathrm{var} + \varepsilon}}\\
#   \hat{x} &= (x - \mathrm{mean}) \cdot \mathrm{rstd}\\
#   y &= \hat{x} \cdot \mathrm{weight} + \mathrm{bias} \qquad \text{same shape and dtype as } x
#   \end{aligned}$$
#
# - Backward receives `dy` (shape of `y`) and returns **four** values, one per forward input:
#   `dx` shaped like `x`, `dweight` and `dbias` **shaped `(D,)`** (summed over every leading
#   dim), and `None` for `eps`. With `g = dy * weight`:
#
#   $$\begin{aligned}
#   dx &= \mathrm{rstd} \cdot \big(g - \mathrm{mean}(g) - \hat{x} \cdot \mathrm{mean}(g \cdot \hat{x})\big) \qquad \text{means over the last dim}\\
#   d\,\mathrm{weight} &= \sum_{\text{rows}} dy \cdot \hat{x}\\
#   d\,\mathrm{bias} &= \sum_{\text{rows}} dy
#   \end{aligned}$$
#
# - Keep the tensors backward needs with **`ctx.save_for_backward(...)`** and read them back
#   from `ctx.saved_tensors`. Plain numbers may stay on `ctx` (`ctx.eps = eps`); a tensor kept as
#   an attribute (`ctx.x_hat = x_hat`) fails, though its values are right.
# - Your `backward` must be the one autograd runs (the grader checks the node `y.grad_fn`), and
#   it must compute the gradients itself, without autograd.
#
# It must behave like `F.layer_norm(x, (D,), weight, bias, eps)`: same output, same gradients
# with respect to `x`, `weight` and `bias`.
#
# ## Not allowed
#
# `F.layer_norm`, `torch.layer_norm`, `torch.native_layer_norm` and its backward, `nn.LayerNorm`,
# other norms bent to the same purpose; and anything that makes autograd do the backward's work:
# `torch.autograd.grad`, `torch.autograd.backward`, `Tensor.backward` inside `backward`,
# `torch.func.vjp` / `torch.func.grad`, `torch.enable_grad`. A submission that calls one is
# *rejected*.
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
# features (`D` from 2 to 6, where the mean terms dominate and `n / (n - 1)` is far from 1); `(B, T, D)`, and `(B, H, T, D)` as a non-contiguous (strided)
# view; a 1-D vector; a `(1, 1, D)` input; tiny inputs (`x * 1e-3`); `eps = 0.1`; float32 around 1e3; float64
# around 1e4 with `D` of 200 or 300; default parameters (ones and zeros) on a transposed view; rows constant along the last dim. Random
# `weight` and `bias` otherwise. The grader calls your backward node itself (`y.grad_fn.apply(dy)`) and
# compares what it returns **exactly as returned**: autograd would quietly sum a `(T, D)`
# `dweight` or `dbias` down to `(D,)`; here it fails. On every backward call it also checks that:
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
# - **Three paths.** Each `x_i` reaches `x_hat` directly, through the mean and through the
#   variance. Dropping the two mean terms is differentiating as if the statistics were constants.
# - **`g`, not `dy`.** The gradient reaching `x_hat` has passed through `weight`.
# - **Shapes of the parameter gradients.** `weight` is shared by every row of every leading dim:
#   sum over all of them. Autograd quietly sums a broadcastable gradient down to the parameter's
#   shape, which hides a `.sum(0)` on 3-D input; the contract does not rely on that.
# - **Same statistics as forward.** If backward recomputes them, it must use the biased variance
#   and the same eps; saving `x_hat` and `rstd` avoids the question.
# - **`None` for `eps`.** One return value per forward input.
#
# ## Why it works
#
# Write `x_hat = (x - mean) * rstd`. Shifting the whole row by a constant does not change `x_hat`,
# so `dx` must be orthogonal to the all-ones vector: that is the `- mean(g)` term. Scaling the row
# by a positive factor does not change `x_hat` either (up to eps), so `dx` must be orthogonal to
# `x` - mean, i.e. to `x_hat`: that is the `- x_hat * mean(g * x_hat)` term. Together: `dx` is
# `rstd * g` projected onto the subspace orthogonal to `1` and `x_hat`, which is what the formula
# computes (the two vectors are orthogonal to each other since `x_hat` has zero mean, so the two
# projections subtract independently).
#
# ## Interviewer follow-ups
#
# Served with the exercise (the `follow_ups` field of `GET /exercises/layer_norm_backward`) and
# listed at the end of its notebook, each linked to the question bank: the dx formula
# (`ln-backward-dx-formula`), what dx sums to (`ln-backward-properties`), one value worked by hand
# (`ln-backward-value`), the invariances behind the two terms (`ln-invariances`), and what to
# save when memory is tight (`tr-checkpoint-what-it-saves`).
#
# ## Cost and memory
#
# - **Saved for backward:** `x_hat` (full size) and `rstd` (one number per row), plus `weight`.
#   Fused kernels save `x` instead of `x_hat` (often already kept by the layer before) and the
#   per-row mean and `rstd`, and recompute `x_hat`: two numbers per row of extra memory.
# - **Backward FLOPs:** about ten per element, two row reductions for dx and two column
#   reductions for the parameters. Like the forward it is memory-bound: it reads `dy` and `x_hat`
#   and writes `dx`; a fused kernel does it in one pass per row plus a reduction over rows for
#   `dweight` and `dbias`.
#
# ## Test yourself
#
# - `torch.autograd.gradcheck(lambda x, w, b: LayerNormFunction.apply(x, w, b, 1e-5), ...)` in
#   float64.
# - Check numerically that `dx` sums to 0 over each row and that `(dx * x_hat).sum(-1)` is 0.
# - Save `x`, `mean` and `rstd` instead of `x_hat` and compare peak memory with
#   `torch.autograd.graph.saved_tensors_hooks`.
# - Do the same for BatchNorm in training: the same formula, with the means taken over the batch.
#
# ## Background
#
# The article "FFN, Residual Addition, LN", section "2.1 LayerNorm", walks through the forward you
# differentiate here step by step, with the shape of every intermediate; the article "Add & Norm
# 层", section "层归一化的计算方法", computes the same statistics on a small example. The article
# "Transformer残差连接与归一化层实现详解", section "2.1 LayerNorm的实现细节", shows a version with the
# unbiased std and eps outside the root: its derivative is a different function, which is why the
# backward has to follow the forward exactly.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 手写 LayerNorm 的反向传播
#
# 你写的任何 LayerNorm，autograd 都能自动求导，为什么还要手写？因为融合算子就是手写的（`nn.LayerNorm`
# 的反向是一个手写的 kernel，而不是一串 autograd 节点）；因为显存占用取决于你选择保存什么；也因为
# “推导 LayerNorm 的梯度”是白板面试的经典题，答案里有两项总是有人漏掉。本题用
# `torch.autograd.Function` 实现 LayerNorm，`backward` 由你自己写。
#
# ## 要写什么
#
# ```python
# class LayerNormFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x, weight, bias, eps): ...  # 返回 y
#     @staticmethod
#     def backward(ctx, dy): ...  # 返回 (dx, dweight, dbias, None)
# ```
#
# 调用方式：`y = LayerNormFunction.apply(x, weight, bias, eps)`。
#
# - `x`：形状 `(..., D)`，前面有一个或多个维度（测试覆盖 2 维到 4 维，以及不连续的视图），dtype
#   为 float32 或 float64。`weight`、`bias`：形状 `(D,)`，dtype 相同。`eps`：Python 浮点数。
# - 前向，对最后一维上的每个向量（n = D）：
#
#   $$\begin{aligned}
#   \mathrm{mean} &= \frac{1}{n}\sum_i x_i\\
#   \mathrm{var} &= \frac{1}{n}\sum_i (x_i - \mathrm{mean})^2 \qquad \text{有偏方差}\\
#   \mathrm{rstd} &= \frac{1}{\sqrt{\mathrm{var} + \varepsilon}}\\
#   \hat{x} &= (x - \mathrm{mean}) \cdot \mathrm{rstd}\\
#   y &= \hat{x} \cdot \mathrm{weight} + \mathrm{bias} \qquad \text{形状和 dtype 与 } x \text{ 相同}
#   \end{aligned}$$
#
# - 反向接收 `dy`（形状同 `y`），返回**四个**值，与前向的输入一一对应：形状同 `x` 的 `dx`；
#   **形状为 `(D,)`** 的 `dweight` 和 `dbias`（在所有前置维度上求和）；`eps` 对应 `None`。
#   记 `g = dy * weight`：
#
#   $$\begin{aligned}
#   dx &= \mathrm{rstd} \cdot \big(g - \mathrm{mean}(g) - \hat{x} \cdot \mathrm{mean}(g \cdot \hat{x})\big) \qquad \text{均值都在最后一维上求}\\
#   d\,\mathrm{weight} &= \sum_{\text{行}} dy \cdot \hat{x}\\
#   d\,\mathrm{bias} &= \sum_{\text{行}} dy
#   \end{aligned}$$
#
# - 反向需要的张量用 **`ctx.save_for_backward(...)`** 保存，再从 `ctx.saved_tensors` 取回。普通
#   数字可以留在 `ctx` 上（`ctx.eps = eps`）；把张量存成属性（`ctx.x_hat = x_hat`）即使数值正确也
#   判为错误。
# - autograd 实际运行的必须是你的 `backward`（评测会检查 `y.grad_fn` 这个节点），而且梯度要由它
#   自己算出来，不能借助 autograd。
#
# 行为要与 `F.layer_norm(x, (D,), weight, bias, eps)` 一致：输出相同，对 `x`、`weight`、`bias`
# 的梯度也相同。
#
# ## 不允许使用
#
# `F.layer_norm`、`torch.layer_norm`、`torch.native_layer_norm` 及其反向、`nn.LayerNorm`，以及
# 拿来凑出同样效果的其他归一化；还有一切让 autograd 替你做反向的手段：`torch.autograd.grad`、
# `torch.autograd.backward`、在 `backward` 里调用 `Tensor.backward`、`torch.func.vjp` /
# `torch.func.grad`、`torch.enable_grad`。调用了它们的提交会被判为 *rejected*。
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
# `torch.no_grad()` 下运行，检查 `x` 是否被原地修改）：`(N, D)`；很少的特征（`D` 为 2 到 6，此时两个均值项占主导，`n / (n - 1)` 也远离 1）；
# `(B, T, D)`，以及不连续（隔列取）视图形式的 `(B, H, T, D)`；一维向量；`(1, 1, D)` 输入；极小输入（`x * 1e-3`）；
# `eps = 0.1`；数值在 1e3 附近的 float32；数值在 1e4 附近、`D` 为 200 或 300 的 float64；转置视图
# 上的默认参数（全 1 和全 0）；沿最后一维取常数的行。其余用例的 `weight` 和 `bias` 都是随机的。评测程序直接调用你的反向节点
# （`y.grad_fn.apply(dy)`），把它返回的梯度**原样**比较：形状为 `(T, D)` 的 `dweight` 或 `dbias`，autograd 会悄悄
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
# - **三条路径。** 每个 `x_i` 既直接影响 `x_hat`，又通过均值、通过方差影响它。漏掉两个均值项，
#   就等于把统计量当成常数求导。
# - **用 `g`，不是 `dy`。** 到达 `x_hat` 的梯度已经乘过 `weight`。
# - **参数梯度的形状。** 所有前置维度上的每一行都共享 `weight`，要在这些维度上全部求和。autograd
#   会悄悄把可广播的梯度加总成参数的形状，三维输入上只做 `.sum(0)` 的错误因此被掩盖；本题的约定
#   不依赖这一点。
# - **与前向相同的统计量。** 如果在反向里重新计算，必须用有偏方差和同一个 eps；直接保存 `x_hat`
#   和 `rstd` 就没有这个问题。
# - **`eps` 返回 `None`。** 前向有几个输入，反向就返回几个值。
#
# ## 为什么有效
#
# 记 `x_hat = (x - mean) * rstd`。整行加上同一个常数，`x_hat` 不变，所以 `dx` 必须与全 1 向量
# 正交，这就是 `- mean(g)` 项。整行乘以一个正数，`x_hat` 也不变（忽略 eps），所以 `dx` 必须与
# `x - mean` 正交，也就是与 `x_hat` 正交，这就是 `- x_hat * mean(g * x_hat)` 项。合起来，`dx`
# 就是把 `rstd * g` 投影到与 `1` 和 `x_hat` 都正交的子空间上；由于 `x_hat` 均值为零，这两个方向
# 彼此正交，两次投影可以分别减去，正是公式所做的事。
#
# ## 面试官的追问
#
# 随题目一起提供（`GET /exercises/layer_norm_backward` 返回的 `follow_ups` 字段），也列在 notebook 末尾，
# 每条都链接到题库：dx 的公式（`ln-backward-dx-formula`）、dx 在一行上的和
# （`ln-backward-properties`）、手算一个具体数值（`ln-backward-value`）、两个均值项背后的不变性
# （`ln-invariances`），以及显存紧张时该保存什么（`tr-checkpoint-what-it-saves`）。
#
# ## 计算量与显存
#
# - **为反向保存的内容：** `x_hat`（与输入同样大）和 `rstd`（每行一个数），外加 `weight`。融合
#   算子改存 `x`（它往往已被前一层保存）以及每行的均值和 `rstd`，在反向里重新算 `x_hat`：额外显存
#   只有每行两个数。
# - **反向的 FLOPs：** 每个元素约十次运算，dx 需要两次按行归约，参数梯度需要两次按列归约。和前向
#   一样受内存带宽限制：读 `dy` 和 `x_hat`，写 `dx`；融合算子每行一趟完成，再对所有行归约出
#   `dweight` 和 `dbias`。
#
# ## 自我检验
#
# - 在 float64 下运行 `torch.autograd.gradcheck(lambda x, w, b: LayerNormFunction.apply(x, w, b,
#   1e-5), ...)`。
# - 数值验证：`dx` 每行之和为 0，`(dx * x_hat).sum(-1)` 也为 0。
# - 改存 `x`、`mean`、`rstd` 而不是 `x_hat`，用 `torch.autograd.graph.saved_tensors_hooks` 比较
#   保存的张量大小。
# - 对训练模式的 BatchNorm 做同样的推导：公式相同，只是均值改在 batch 维上求。
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》的“2.1 LayerNorm”一节逐步讲解了本题要求导
# 的这个前向，并标出了每个中间量的形状；文章《Add & Norm 层》的“层归一化的计算方法”一节在一个小
# 例子上算了同样的统计量。文章《Transformer残差连接与归一化层实现详解》的“2.1 LayerNorm的实现细节”
# 一节给出的版本用的是无偏标准差，eps 也加在根号外：它的导数是另一个函数，这也说明反向必须严格
# 跟随前向。
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
#    `# addnorm: exercise layer_norm_backward`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise layer_norm_backward` 不要删：提交单元格发送的是
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
# addnorm: exercise layer_norm_backward
from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        # x: (..., D). Normalise over the last dim (biased variance, eps inside the sqrt), then
        # scale and shift. Save what backward needs with ctx.save_for_backward(...).
        raise NotImplementedError("implement LayerNormFunction.forward")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        # Return (dx, dweight, dbias, None): dx like x, dweight and dbias shaped (D,), None for
        # eps. Compute them by hand: no autograd here.
        raise NotImplementedError("implement LayerNormFunction.backward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.layer_norm` with random weight and bias: the output, and your backward's
# gradients for x, weight and bias.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.layer_norm`，weight 和 bias 随机：比较输出，以及你的 backward
# 对 x、weight、bias 的梯度。
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
        b = torch.randn(d, generator=g)

        def build(fn: Any) -> Callable[..., Any]:
            return lambda t, weight=w, bias=b: fn.apply(t, weight, bias, 1e-5)

        expected = F.layer_norm(x, (d,), w, b, 1e-5)
        return LocalCase(name, x, build, expected, leaves={"weight": w, "bias": b})

    return [
        case("2-D", (4, 16), 1.0),
        case("3-D", (2, 3, 24), 1.0),
        case("offset rows", (3, 40), 5.0),
    ]


from addnorm_client.local import check

check("layer_norm_backward", "LayerNormFunction", local_cases())

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

submit_cell("layer_norm_backward")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Write dL/dx for LayerNorm in terms of x_hat and g = gamma * dy. (`ln-backward-dx-formula`, `questions_layer_norm`)
# 2. What does dx sum to over a row, and why? (`ln-backward-properties`, `questions_layer_norm`)
# 3. Work out one element of dx for x = [1, 2, 3, 4] and dy = [1, 0, 0, 0]. (`ln-backward-value`, `questions_layer_norm`)
# 4. Which invariances of the forward explain the two mean terms? (`ln-invariances`, `questions_layer_norm`)
# 5. You saved x_hat and 1/std. What would you keep if memory were tight? (`tr-checkpoint-what-it-saves`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 用 x_hat 和 g = gamma * dy 写出 LayerNorm 的 dL/dx。 (`ln-backward-dx-formula`, `questions_layer_norm`)
# 2. dx 在一行上的和是多少？为什么？ (`ln-backward-properties`, `questions_layer_norm`)
# 3. x = [1, 2, 3, 4]、dy = [1, 0, 0, 0] 时，算出 dx 的一个元素。 (`ln-backward-value`, `questions_layer_norm`)
# 4. 前向的哪些不变性解释了那两个均值项？ (`ln-invariances`, `questions_layer_norm`)
# 5. 你保存了 x_hat 和 1/std。显存紧张时你会改存什么？ (`tr-checkpoint-what-it-saves`, `questions_training`)
#
# </details>
