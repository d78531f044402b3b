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
# # Gradient clipping by the global norm: `clip_grad_norm_`
#
# **topic:** training · **difficulty:** medium
#
# One bad batch can produce a gradient a hundred times larger than usual, and one optimiser step
# on it can throw a model off for thousands of steps: the loss spike every large training run
# fears. Nearly every LLM recipe therefore clips the **global norm** of the gradients, usually at
# 1.0, right after backward and before the optimiser step. Here you write what
# `torch.nn.utils.clip_grad_norm_` does, in place, with its exact semantics.
#
# ## What to write
#
# ```python
# def clip_grad_norm_(
#     parameters: torch.Tensor | Iterable[torch.Tensor],
#     max_norm: float,
#     norm_type: float = 2.0,
# ) -> torch.Tensor: ...
# ```
#
# - **The total norm** is the `norm_type`-norm of every gradient entry of every parameter, as if
#   they were one long vector: the norms of the single gradients, stacked, normed again. For
#   `norm_type = float("inf")` it is the largest absolute entry. Parameters whose `.grad` is
#   `None` are skipped; with no gradient at all, return `torch.tensor(0.0)`.
# - **Clip in place**: multiply every gradient by the one coefficient
#   `clip_coef = max_norm / (total + 1e-6)`, clamped at 1.0, so gradients under the threshold are
#   left as they are and nothing is ever scaled up.
# - **Return the total norm before clipping**, a 0-d tensor in the gradients' dtype.
# - `parameters` is a single tensor or any iterable of tensors, including a **generator** that can
#   be read only once (`model.parameters()` is one).
# - **Non-finite totals** are handled as torch does with its default `error_if_nonfinite=False`:
#   the gradients are multiplied by the clamped coefficient unconditionally. An infinite total
#   gives a coefficient of 0 (finite entries become 0, infinite ones NaN); a NaN total makes every
#   gradient NaN. No `if total > max_norm:`.
# - The parameters' values are not touched; only their `.grad`. Work under `torch.no_grad()` (or
#   on `.grad`, which does not require grad).
#
# In formulas, with $g$ all the gradients:
#
# $$\|g\|_p = \Big(\sum_t \|g_t\|_p^p\Big)^{1/p},\qquad \|g\|_\infty = \max_t \|g_t\|_\infty,\qquad g_t \leftarrow g_t \cdot \min\Big(1, \frac{\text{max\_norm}}{\|g\|_p + 10^{-6}}\Big)$$
#
# ## Not allowed
#
# The clipping helpers, which do the whole job: `torch.nn.utils.clip_grad_norm_`,
# `clip_grad_norm`, `get_total_norm`, `clip_grads_with_norm_` and `clip_grad_value_`, also reached
# through `torch.nn.utils.clip_grad` or any other name. A submission that reaches one is
# *rejected*. Everything else is fine: `torch.linalg.vector_norm`, `Tensor.norm`, `torch.stack`,
# `torch.clamp`, `mul_`, and the foreach ops (`torch._foreach_norm`, `torch._foreach_mul_`).
#
# ## How it is graded
#
# Your function updates what it is given, which is the contract: each case builds fresh
# parameters (`nn.Parameter`, with their `.grad` set) from its tensors, hands them to your
# function, and compares what it returns **and every parameter's values and `.grad` afterwards**
# with `torch.nn.utils.clip_grad_norm_`'s, in float64 where the case is float32. Fourteen freshly
# drawn cases, one call each, on a small model's parameters (an embedding, a norm's weight, a
# linear layer): gradients far above `max_norm`, gradients of very different sizes (per-tensor
# clipping shows there), gradients under the threshold, `norm_type` 1, 3 and `inf`, gradients
# near 1e-7 with `max_norm = 1e-6` (where the `1e-6` in the coefficient is 10%), some
# parameters with `.grad = None`, none with a gradient, a single tensor, a generator, a
# parameter of shape `(1, n)` laid out transposed in memory, an `inf` and a `NaN` entry.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Each tensor clipped by its own norm**: the total can then exceed `max_norm`, and the
#   direction of the update changes (question `clip-per-tensor-total`).
# - **The coefficient not capped at 1**: small gradients blown up to norm `max_norm`.
# - **The norm after clipping returned**: it is never above `max_norm` and hides every spike
#   (question `clip-returns-clipped`).
# - **`norm_type` ignored**, or the **inf norm summed** over tensors instead of maxed (question
#   `clip-inf-norm-coefficient`).
# - **The generator read twice**: the second loop sees nothing (question `clip-generator-twice`).
# - **A single tensor iterated** instead of wrapped in a list: its rows have no `.grad`.
# - **`if total > max_norm:`** around the scaling: a NaN total then leaves the gradients as they
#   were (question `clip-nan-total`).
# - **`max_norm / total` without the 1e-6**: only visible for tiny totals, and a division by a
#   total of 0 in Python raises.
#
# ## Why it works
#
# - **One vector.** An optimiser step moves all the weights at once; the size of that move is
#   the norm of the whole gradient vector. Combining the per-tensor norms with the same `p`-norm
#   gives exactly that: `(sum_t ||g_t||_p^p)^(1/p)`; for `inf`, the max of the maxima.
# - **One coefficient.** Multiplying every gradient by the same factor keeps the direction of the
#   step and shortens it to `max_norm`; per-tensor factors would bend it.
# - **Capped at 1.** Clipping is a safety limit, not a normalisation: a normal step passes
#   untouched.
# - **Before, not after.** The returned norm is what a run logs: a spike in it marks the batch
#   that would have derailed training.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/clip_grad_norm`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it. A few to prepare:
#
# - What does clipping protect a run against? (`clip-what-it-protects`)
# - Why the global norm and not each tensor's? (`clip-per-tensor-total`)
# - Does the function return the norm before or after clipping? (`clip-returns-clipped`)
# - What happens to the gradients when one entry is NaN? (`clip-nan-total`)
# - With a GradScaler, when must you clip? (`tr-clip-after-unscale`)
#
# ## Cost and memory
#
# One pass over the gradients to take the norms (one number per tensor, then one reduction of
# those) and one pass to scale them, in place: no extra memory beyond a number per parameter
# tensor. Under data parallelism the gradients are already all-reduced, so every rank computes
# the same total; under ZeRO-2/3 or FSDP each rank holds a shard of the gradients and the squared
# norms must be summed across ranks before the square root (the `inf` norm takes a max instead).
# With mixed precision, clip after `scaler.unscale_(optimizer)`, or `max_norm` is compared with
# gradients still multiplied by the loss scale.
#
# ## Test yourself
#
# Check that after your call the global norm is `min(total, max_norm)` up to the 1e-6, and that
# the ratio of any two gradient entries is unchanged. Then write the sharded version: each of
# four "ranks" holds a quarter of the gradient tensors; compute the same total from partial sums
# of `||g_t||_p^p` and check it against the unsharded one, for `p = 2` and `inf`.
#
# ## Background
#
# The course articles do not cover gradient clipping. The "Transformer residual connections and
# normalisation explained" article, section "4.3 监控指标建议", suggests watching gradient norms and
# update ratios; clipping is what turns such a watch into a limit. The method comes from Pascanu
# et al. 2013 ("On the difficulty of training recurrent neural networks"), and `max_norm = 1.0`
# is the setting of GPT-3's and LLaMA's training.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 按全局范数裁剪梯度：`clip_grad_norm_`
#
# 一个坏批次产生的梯度可能比平常大上百倍，在它上面走一步优化器，模型可能要花几千步才缓过来：这就是每个大规模训练都怕的损失尖峰。所以几乎所有大语言模型的训练配方都会在反向传播之后、优化器更新之前，裁剪梯度的**全局范数**，阈值通常取 1.0。本题要你原地实现 `torch.nn.utils.clip_grad_norm_` 做的事，语义与它完全一致。
#
# ## 要写什么
#
# ```python
# def clip_grad_norm_(
#     parameters: torch.Tensor | Iterable[torch.Tensor],
#     max_norm: float,
#     norm_type: float = 2.0,
# ) -> torch.Tensor: ...
# ```
#
# - **总范数**是所有参数的所有梯度元素合在一起的 `norm_type` 范数，好像它们是一条长向量：先求各个梯度的范数，堆起来再求一次范数。`norm_type = float("inf")` 时是绝对值最大的元素。`.grad` 为 `None` 的参数跳过；一个梯度都没有时，返回 `torch.tensor(0.0)`。
# - **原地裁剪**：所有梯度乘以同一个系数 `clip_coef = max_norm / (total + 1e-6)`，并把它限制在 1.0 以内，所以低于阈值的梯度保持原样，任何梯度都不会被放大。
# - **返回裁剪之前的总范数**，一个 0 维张量，数据类型与梯度相同。
# - `parameters` 可以是单个张量，也可以是任意可迭代对象，包括只能读一次的**生成器**（`model.parameters()` 就是）。
# - **总范数不是有限值时**，按 torch 默认 `error_if_nonfinite=False` 的方式处理：无条件地乘以限制后的系数。总范数为无穷大时系数为 0（有限元素变成 0，无穷元素变成 NaN）；总范数为 NaN 时所有梯度都变成 NaN。不要写 `if total > max_norm:`。
# - 不要改动参数的值，只改它们的 `.grad`。在 `torch.no_grad()` 下操作（或者直接操作 `.grad`，它本身不需要梯度）。
#
# 用公式写，记全部梯度为 $g$：
#
# $$\|g\|_p = \Big(\sum_t \|g_t\|_p^p\Big)^{1/p},\qquad \|g\|_\infty = \max_t \|g_t\|_\infty,\qquad g_t \leftarrow g_t \cdot \min\Big(1, \frac{\text{max\_norm}}{\|g\|_p + 10^{-6}}\Big)$$
#
# ## 不允许使用
#
# 一步完成全部工作的裁剪工具函数：`torch.nn.utils.clip_grad_norm_`、`clip_grad_norm`、`get_total_norm`、`clip_grads_with_norm_` 和 `clip_grad_value_`，通过 `torch.nn.utils.clip_grad` 或其他任何名字拿到的也算。用到其中任何一个的提交会被判为 *rejected*。其余都可以用：`torch.linalg.vector_norm`、`Tensor.norm`、`torch.stack`、`torch.clamp`、`mul_`，以及 foreach 系列运算（`torch._foreach_norm`、`torch._foreach_mul_`）。
#
# ## 如何评测
#
# 你的函数会修改传给它的东西，这正是约定：每个用例都用自己的张量新建参数（`nn.Parameter`，并设好 `.grad`），交给你的函数，然后把它的返回值**以及调用之后每个参数的值和 `.grad`** 与 `torch.nn.utils.clip_grad_norm_` 的结果比较，float32 用例与 float64 下的结果比较。每次提交重新抽取十四个用例，每个调用一次，参数来自一个小模型（一个 embedding、一个归一化层的权重、一个线性层）：远超 `max_norm` 的梯度、大小相差悬殊的梯度（逐个张量裁剪会在这里暴露）、低于阈值的梯度、`norm_type` 取 1、3 和 `inf`、约 1e-7 的梯度配 `max_norm = 1e-6`（这时系数里的 `1e-6` 占 10%）、部分参数 `.grad = None`、所有参数都没有梯度、单个张量、生成器、形状为 `(1, n)` 且在内存中转置存放的参数、含一个 `inf` 和一个 `NaN` 元素的梯度。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **每个张量按自己的范数裁剪**：总范数可能超过 `max_norm`，更新方向也变了（问题 `clip-per-tensor-total`）。
# - **系数没有限制在 1 以内**：小梯度被放大到范数为 `max_norm`。
# - **返回裁剪之后的范数**：它永远不超过 `max_norm`，把所有尖峰都藏起来了（问题 `clip-returns-clipped`）。
# - **忽略 `norm_type`**，或者把 **inf 范数**在张量之间相加而不是取最大（问题 `clip-inf-norm-coefficient`）。
# - **生成器被读了两次**：第二个循环什么都拿不到（问题 `clip-generator-twice`）。
# - **单个张量被直接遍历**，没有包成列表：它的各行没有 `.grad`。
# - 在缩放外面套了 **`if total > max_norm:`**：总范数为 NaN 时梯度原样保留（问题 `clip-nan-total`）。
# - **`max_norm / total` 少了 1e-6**：只在总范数极小时才看得出来，而用 Python 除以为 0 的总范数会报错。
#
# ## 为什么有效
#
# - **一条向量。** 优化器的一步同时移动所有权重，这一步有多大，取决于整个梯度向量的范数。用同一个 `p` 范数把各张量的范数合起来，得到的正是它：`(sum_t ||g_t||_p^p)^(1/p)`；`inf` 时是各最大值中的最大值。
# - **同一个系数。** 所有梯度乘以同一个因子，更新方向不变，只是长度被缩到 `max_norm`；每个张量用各自的因子会把方向掰弯。
# - **上限为 1。** 裁剪是安全阈值，不是归一化：正常的一步原样通过。
# - **裁剪前，而不是裁剪后。** 返回的范数是训练要记录的：它的尖峰标出了那个差点让训练失控的批次。
#
# ## 面试官的追问
#
# 本题跑通之后面试官会问的问题随题目一起提供（`GET /exercises/clip_grad_norm` 的 `follow_ups` 字段），也列在对应 notebook 的末尾，每个都链接到题库里给出答案的题目。可以先准备这几个：
#
# - 裁剪能让训练免受什么影响？（`clip-what-it-protects`）
# - 为什么用全局范数，而不是每个张量各自的范数？（`clip-per-tensor-total`）
# - 函数返回的是裁剪之前还是之后的范数？（`clip-returns-clipped`）
# - 有一个梯度元素是 NaN 时，梯度会变成什么？（`clip-nan-total`）
# - 用 GradScaler 时，应该在什么时候裁剪？（`tr-clip-after-unscale`）
#
# ## 计算量与显存
#
# 遍历一次梯度求范数（每个张量一个数，再对这些数做一次归约），再遍历一次原地缩放：除了每个参数张量一个数之外，不占额外显存。数据并行时梯度已经 all-reduce 过，每个进程算出的总范数相同；在 ZeRO-2/3 或 FSDP 下，每个进程只持有一部分梯度，必须先把各进程的范数平方和加起来再开方（`inf` 范数则取最大值）。混合精度训练时，要在 `scaler.unscale_(optimizer)` 之后再裁剪，否则拿来和 `max_norm` 比较的梯度还乘着损失缩放因子。
#
# ## 自我检验
#
# 验证调用之后全局范数等于 `min(total, max_norm)`（相差不超过 1e-6 带来的误差），并且任意两个梯度元素之比保持不变。然后写一个分片版本：四个“进程”各持有四分之一的梯度张量；用各自 `||g_t||_p^p` 的部分和算出同一个总范数，在 `p = 2` 和 `inf` 下与不分片的结果对比。
#
# ## 背景
#
# 课程文章没有讲梯度裁剪。《Transformer残差连接与归一化层实现详解》的 “4.3 监控指标建议” 一节建议监控梯度范数和更新比率；裁剪则把这种监控变成了一道硬性上限。这个方法出自 Pascanu 等人 2013 年的论文（“On the difficulty of training recurrent neural networks”），`max_norm = 1.0` 是 GPT-3 和 LLaMA 训练时的设置。
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
#    `# addnorm: exercise clip_grad_norm`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise clip_grad_norm` 不要删：提交单元格发送的是
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
# addnorm: exercise clip_grad_norm
from collections.abc import Iterable

import torch


def clip_grad_norm_(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
) -> torch.Tensor:
    # The total norm over every gradient at once (parameters whose .grad is None skipped),
    # then every gradient multiplied in place by min(1, max_norm / (total + 1e-6)).
    # Return the total norm before clipping, as a 0-d tensor.
    raise NotImplementedError("implement clip_grad_norm_")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.utils.clip_grad_norm_` on three small parameters: gradients far above max_norm,
# the inf norm, and one parameter without a gradient handed as a generator; the returned norm
# and every gradient after the call are compared.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：三个小参数上的 `torch.nn.utils.clip_grad_norm_`：远超 max_norm 的梯度、inf 范数、以生成器传入
# 且其中一个参数没有梯度；比较返回的范数以及调用之后的每个梯度。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase


def _parameters(x: torch.Tensor, g: torch.Generator) -> list[nn.Parameter]:
    """x is the first parameter's gradient; two more parameters with drawn gradients, the
    last one with none."""
    params = [
        nn.Parameter(torch.zeros_like(x)),
        nn.Parameter(torch.ones(7)),
        nn.Parameter(torch.ones(3)),
    ]
    params[0].grad = x.clone()
    params[1].grad = torch.randn(7, generator=g) * 2
    return params


def _flat(total: Any, params: list[nn.Parameter]) -> torch.Tensor:
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    return torch.cat([torch.as_tensor(total).reshape(1), *(q.reshape(-1) for q in grads)])


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    big = torch.randn(4, 6, generator=g) * 3

    def case(name: str, x: torch.Tensor, max_norm: float, **kw: Any) -> LocalCase:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=g))
        as_generator = kw.pop("as_generator", False)

        def build(fn: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            def call(t: torch.Tensor) -> torch.Tensor:
                params = _parameters(t, torch.Generator().manual_seed(seed))
                handed = (p for p in params) if as_generator else params
                return _flat(fn(handed, max_norm, **kw), params)

            return call

        reference = _parameters(x, torch.Generator().manual_seed(seed))
        total = torch.nn.utils.clip_grad_norm_(reference, max_norm, **kw)
        return LocalCase(
            name=name, x=x, build=build, expected=_flat(total, reference), updates_in_place=True
        )

    return [
        case("global norm far above max_norm = 1", big, 1.0),
        case("norm_type = inf, max_norm = 2", big, 2.0, norm_type=float("inf")),
        case("a generator, max_norm = 2", big, 2.0, as_generator=True),
        case("under the threshold: left as it is", big * 0.01, 5.0),
    ]


from addnorm_client.local import check

check("clip_grad_norm", "clip_grad_norm_", local_cases())

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

submit_cell("clip_grad_norm")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What does clipping the global gradient norm protect a training run against? (`clip-what-it-protects`, `questions_training`)
# 2. Why the global norm and not each tensor's own? (`clip-per-tensor-total`, `questions_training`)
# 3. Does clip_grad_norm_ return the norm before or after clipping, and why does it matter? (`clip-returns-clipped`, `questions_training`)
# 4. One gradient entry is NaN. What are the gradients after clipping? (`clip-nan-total`, `questions_training`)
# 5. How does the inf norm combine the per-tensor norms? (`clip-inf-norm-coefficient`, `questions_training`)
# 6. Your clipping runs but the loss still spikes. What could make it clip nothing? (`clip-generator-twice`, `questions_training`)
# 7. With a GradScaler, when must you clip? (`tr-clip-after-unscale`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 裁剪全局梯度范数能让训练免受什么影响？ (`clip-what-it-protects`, `questions_training`)
# 2. 为什么用全局范数，而不是每个张量各自的范数？ (`clip-per-tensor-total`, `questions_training`)
# 3. clip_grad_norm_ 返回的是裁剪之前还是之后的范数？这有什么关系？ (`clip-returns-clipped`, `questions_training`)
# 4. 有一个梯度元素是 NaN，裁剪之后梯度是什么样？ (`clip-nan-total`, `questions_training`)
# 5. inf 范数怎样把各张量的范数合起来？ (`clip-inf-norm-coefficient`, `questions_training`)
# 6. 裁剪函数运行了，损失却仍然出现尖峰。什么会让它什么都没裁剪？ (`clip-generator-twice`, `questions_training`)
# 7. 用 GradScaler 时，应该在什么时候裁剪？ (`tr-clip-after-unscale`, `questions_training`)
#
# </details>
