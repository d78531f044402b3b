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
# # AdamW from scratch: `step`, `zero_grad` and parameter groups
#
# **topic:** training · **difficulty:** hard
#
# AdamW is the optimiser nearly every Transformer is trained with, and "write Adam from memory"
# is a classic interview request: two moments per parameter, the bias correction, eps in the
# right place, and the decay that gives AdamW its W. Here you write the optimiser class itself,
# with parameter groups, as `torch.optim.AdamW` behaves, and it is graded over many steps.
#
# ## What to write
#
# ```python
# class AdamW:
#     def __init__(
#         self,
#         params: Iterable[torch.Tensor] | Iterable[dict],
#         lr: float = 1e-3,
#         betas: tuple[float, float] = (0.9, 0.999),
#         eps: float = 1e-8,
#         weight_decay: float = 1e-2,
#     ) -> None: ...
#     def step(self) -> None: ...
#     def zero_grad(self) -> None: ...
# ```
#
# - **`params`** is an iterable of tensors, read once (it may be a generator such as
#   `model.parameters()`), or of **parameter groups**: dicts with `"params"` and any of `lr`,
#   `weight_decay`, `betas`, `eps` of their own; what a group leaves out takes the constructor's
#   value. `betas` may arrive as a list.
# - **`step()`**: for every parameter whose `.grad` is not None, with `t` that parameter's own
#   number of updates (1 at its first), `lr`, `wd`, `betas`, `eps` its group's:
#   1. decoupled weight decay, on the weight: `p *= 1 - lr * wd`;
#   2. the moments: `m = b1 * m + (1 - b1) * g`, `v = b2 * v + (1 - b2) * g * g` (both start at 0);
#   3. the bias correction and the step, eps **outside** the root:
#      `p -= lr * m_hat / (sqrt(v_hat) + eps)` with `m_hat = m / (1 - b1**t)`,
#      `v_hat = v / (1 - b2**t)`.
#
#   A parameter whose `.grad` is None is **skipped**: no decay, no moment update, its count not
#   advanced. Update the parameters in place (`p.mul_`, `p.addcdiv_`, or `p.data`), under
#   `torch.no_grad()`: `step()` is called with autograd on, as in a training loop.
# - **`zero_grad()`** sets every parameter's `.grad` to None (torch's default; filling zeros is
#   accepted too).
#
# In formulas, for one parameter at its step $t$:
#
# $$\theta \leftarrow \theta\,(1 - \eta\lambda),\quad m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2,\quad \theta \leftarrow \theta - \eta\,\frac{m_t / (1-\beta_1^t)}{\sqrt{v_t / (1-\beta_2^t)} + \epsilon}$$
#
# ## Not allowed
#
# The optimisers that do the whole step: `torch.optim.AdamW` and `torch.optim.Adam` (their `step`,
# by any route), the functional `torch.optim.adamw.adamw`, `torch.optim.adam.adam` and
# `torch.optim._functional`, and the fused kernels `torch._fused_adam_` / `torch._fused_adamw_`.
# A submission that reaches one is *rejected*. **Allowed**: subclassing `torch.optim.Optimizer`
# for its parameter-group and state bookkeeping (your `step` does the work), and every
# elementwise op, the foreach ones included (`torch._foreach_mul_`, `_foreach_lerp_`,
# `_foreach_addcdiv_`, ...).
#
# ## How it is graded
#
# Your optimiser updates the parameters it is given, which is the contract: each case builds a
# small model's six parameters (an embedding, a projection, a norm's weight and bias, an output
# layer's weight and bias) from its tensors, constructs your `AdamW` on them at the first call
# and calls `step()` again and again, the grader writing fresh gradients before each call; after
# **every** call each parameter's values and `.grad` are compared with `torch.optim.AdamW`'s on
# the same gradients (in float64 where the case is float32). Twelve freshly drawn scenarios of 5
# to 14 steps: a large lr and decay (decoupled against L2), the defaults with a `zero_grad()`
# call, two parameter groups (weights decayed, the norm and biases not), layer-wise learning
# rates as three groups (the norm at 0.1 x the base lr), a parameter without a gradient on some
# steps, gradients of 1e-4 (eps's place shows), gradients that shrink a hundredfold with
# `betas (0.9, 0.5)` in a group, `lr = 0`, `weight_decay = 0`, `betas (0, 0.999)` in a group, the
# parameters handed as a generator with a `(1, n)` embedding, and an embedding laid out
# transposed in memory with `lr = 3e-3, eps = 1e-6, weight_decay = 0.1` over 14 steps; float32
# and float64 parameters.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **L2 instead of decoupled decay**: `g = g + wd * p` is Adam with L2, not AdamW (question
#   `adamw-decoupled-vs-l2`).
# - **No bias correction**: the first step is about `3.16 lr` (question
#   `adamw-first-step-no-bias-correction`); or the correction **a step ahead** (`t + 1`).
# - **eps inside the square root**: `sqrt(v_hat + eps)` (question `adamw-eps-inside-sqrt`).
# - **The decay's lr**: `p *= 1 - wd` (no lr) or `lr * lr * wd`.
# - **The groups' own lr or weight_decay ignored** (question `adamw-param-groups-code`).
# - **One step count for the optimiser** instead of per parameter: wrong for a parameter that
#   skipped steps.
# - **A missing gradient treated as zeros**: the frozen parameter decays and keeps moving.
# - **A running max of v** (AMSGrad) instead of v.
#
# ## Why it works
#
# - **Scale-free steps.** `m_hat / sqrt(v_hat)` is about `±1` for a consistent gradient and
#   smaller for a noisy one, whatever the gradient's units: each weight moves by about `lr`.
# - **Bias correction.** After `t` steps from zero, `m` has accumulated only `1 - b1**t` of the
#   weight it will have; dividing restores an unbiased average. With `b2 = 0.999`, `v` needs
#   hundreds of steps to warm up, hence its correction matters longest.
# - **Decoupled decay.** As L2 inside Adam, the decay term would be divided by `sqrt(v_hat)` and
#   weights with large gradients would barely decay; applied to the weight directly, every weight
#   shrinks by the same factor `1 - lr * wd` per step (Loshchilov & Hutter 2019).
# - **Groups.** Norm gains and biases have no scale worth regularising (shrinking a gain fights
#   the normalisation), so they go in a group with `weight_decay = 0`; groups are also how
#   layer-wise learning rates are written.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/adamw_step`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it. A few to prepare:
#
# - Why is AdamW's decay not L2? (`adamw-decoupled-vs-l2`)
# - How large is the first step without bias correction? (`adamw-first-step-no-bias-correction`)
# - How much memory do the moments take, and what does ZeRO shard? (`adamw-moments-memory`,
#   `tr-zero-stages`)
# - Which parameters go without decay? (`adamw-param-groups-code`)
# - How do you give the norms a tenth of the learning rate? (`adamw-layerwise-lr-groups`)
#
# ## Cost and memory
#
# A few elementwise passes over each parameter per step: negligible compute, but memory-bound
# (torch's foreach and fused paths batch the kernels). The state is the cost: `m` and `v` are two
# full copies of the model, 8 bytes per parameter in float32; with mixed precision (half weights
# and gradients 2 + 2, float32 master weights 4, `m` 4, `v` 4) 16 bytes per parameter, 112 GB of
# model state for 7B parameters before any activation. ZeRO stage 1 shards those 12 bytes of
# optimiser state across data-parallel ranks, stage 2 the gradients too, stage 3 the weights.
#
# ## Test yourself
#
# Run your optimiser and `torch.optim.AdamW` side by side on a small MLP for 100 steps of real
# training and compare the weights. Then add `amsgrad` and `maximize` flags, a learning-rate
# scheduler that changes `group["lr"]`, and `state_dict()` / `load_state_dict()` so that training
# resumes exactly after a checkpoint.
#
# ## Background
#
# The course articles do not cover optimisers, except the "Transformer residual connections and
# normalisation explained" article, section "4.2 学习率调整策略", which recommends layer-wise
# learning rates from experience (the norm layers at 0.1 x the base rate); parameter groups are
# how such a rule is written, and one case grades it. Adam is Kingma & Ba 2015 ("Adam: A Method
# for Stochastic Optimization"), AdamW Loshchilov & Hutter 2019 ("Decoupled Weight Decay
# Regularization"); the memory figures are those of Rajbhandari et al. 2020 (ZeRO).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 AdamW：`step`、`zero_grad` 与参数组
#
# 几乎每个 Transformer 都用 AdamW 训练，“凭记忆写出 Adam”也是面试里的经典要求：每个参数两个矩估计、偏差修正、eps 放对位置，以及让 AdamW 多出那个 W 的权重衰减。本题要你写出优化器类本身，支持参数组，行为与 `torch.optim.AdamW` 一致，并在连续多步上评测。
#
# ## 要写什么
#
# ```python
# class AdamW:
#     def __init__(
#         self,
#         params: Iterable[torch.Tensor] | Iterable[dict],
#         lr: float = 1e-3,
#         betas: tuple[float, float] = (0.9, 0.999),
#         eps: float = 1e-8,
#         weight_decay: float = 1e-2,
#     ) -> None: ...
#     def step(self) -> None: ...
#     def zero_grad(self) -> None: ...
# ```
#
# - **`params`** 是张量的可迭代对象，只读一次（可能是 `model.parameters()` 这样的生成器）；或者是**参数组**的可迭代对象：每个参数组是一个字典，含 `"params"`，还可以有自己的 `lr`、`weight_decay`、`betas`、`eps`；参数组没有给出的项用构造函数的值。`betas` 可能以列表的形式传入。
# - **`step()`**：对每个 `.grad` 不为 None 的参数，记 `t` 为该参数自己被更新的次数（第一次为 1），`lr`、`wd`、`betas`、`eps` 取它所在参数组的值：
#   1. 解耦的权重衰减，直接作用在权重上：`p *= 1 - lr * wd`；
#   2. 更新矩估计：`m = b1 * m + (1 - b1) * g`，`v = b2 * v + (1 - b2) * g * g`（两者都从 0 开始）；
#   3. 偏差修正和更新，eps 放在平方根**之外**：`p -= lr * m_hat / (sqrt(v_hat) + eps)`，其中 `m_hat = m / (1 - b1**t)`，`v_hat = v / (1 - b2**t)`。
#
#   `.grad` 为 None 的参数**跳过**：不衰减，不更新矩估计，计数也不增加。原地更新参数（`p.mul_`、`p.addcdiv_`，或 `p.data`），并放在 `torch.no_grad()` 下：`step()` 是在开启 autograd 的情况下调用的，和训练循环里一样。
# - **`zero_grad()`** 把每个参数的 `.grad` 设为 None（torch 的默认行为；填零也算对）。
#
# 用公式写，对一个参数在它的第 $t$ 步：
#
# $$\theta \leftarrow \theta\,(1 - \eta\lambda),\quad m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t,\quad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2,\quad \theta \leftarrow \theta - \eta\,\frac{m_t / (1-\beta_1^t)}{\sqrt{v_t / (1-\beta_2^t)} + \epsilon}$$
#
# ## 不允许使用
#
# 一步完成整个更新的优化器：`torch.optim.AdamW` 和 `torch.optim.Adam`（它们的 `step`，无论通过什么途径调用），函数式的 `torch.optim.adamw.adamw`、`torch.optim.adam.adam` 和 `torch.optim._functional`，以及融合内核 `torch._fused_adam_` / `torch._fused_adamw_`。用到其中任何一个的提交会被判为 *rejected*。**允许**：继承 `torch.optim.Optimizer`，借用它对参数组和状态的管理（真正的更新由你的 `step` 完成），以及所有逐元素运算，包括 foreach 系列（`torch._foreach_mul_`、`_foreach_lerp_`、`_foreach_addcdiv_` 等）。
#
# ## 如何评测
#
# 你的优化器会修改传给它的参数，这正是约定：每个用例用自己的张量构建一个小模型的六个参数（一个 embedding、一个投影、归一化层的权重和偏置、输出层的权重和偏置），在第一次调用时用它们构造你的 `AdamW`，然后反复调用 `step()`，每次调用之前由评测方写入新的梯度；**每次**调用之后，都把每个参数的值和 `.grad` 与 `torch.optim.AdamW` 在相同梯度下的结果比较（float32 用例与 float64 下的结果比较）。每次提交重新抽取十二个场景，每个 5 到 14 步：较大的 lr 和衰减（解耦与 L2 的区别）、默认超参数加一次 `zero_grad()` 调用、两个参数组（权重衰减，归一化层和偏置不衰减）、以三个参数组表示的分层学习率（归一化层为基础学习率的 0.1 倍）、某些步没有梯度的参数、1e-4 量级的梯度（eps 放在哪里会暴露出来）、某个参数组 `betas (0.9, 0.5)` 下缩小一百倍的梯度、`lr = 0`、`weight_decay = 0`、某个参数组 `betas (0, 0.999)`、以生成器传入且 embedding 形状为 `(1, n)` 的参数，以及在内存中转置存放的 embedding，配 `lr = 3e-3, eps = 1e-6, weight_decay = 0.1`，跑 14 步；参数有 float32 也有 float64。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **用 L2 代替解耦的衰减**：`g = g + wd * p` 是带 L2 的 Adam，不是 AdamW（问题 `adamw-decoupled-vs-l2`）。
# - **没有偏差修正**：第一步约为 `3.16 lr`（问题 `adamw-first-step-no-bias-correction`）；或者修正**提前了一步**（`t + 1`）。
# - **eps 放进了平方根**：`sqrt(v_hat + eps)`（问题 `adamw-eps-inside-sqrt`）。
# - **衰减里的 lr**：`p *= 1 - wd`（没乘 lr），或者乘成了 `lr * lr * wd`。
# - **忽略参数组自己的 lr 或 weight_decay**（问题 `adamw-param-groups-code`）。
# - **整个优化器共用一个步数**，而不是每个参数一个：跳过了某些步的参数会算错。
# - **把缺失的梯度当成零**：被冻结的参数仍在衰减、仍在移动。
# - **用 v 的历史最大值**（AMSGrad）代替 v。
#
# ## 为什么有效
#
# - **与尺度无关的步长。** 对方向一致的梯度，`m_hat / sqrt(v_hat)` 约为 `±1`，噪声大的梯度则更小，与梯度的单位无关：每个权重大约移动 `lr`。
# - **偏差修正。** 从零开始走了 `t` 步之后，`m` 只累积了最终权重的 `1 - b1**t`；除以它就还原成无偏的平均。`b2 = 0.999` 时 `v` 要几百步才能预热完毕，所以它的修正影响最久。
# - **解耦的衰减。** 如果作为 L2 放在 Adam 里，衰减项会被除以 `sqrt(v_hat)`，梯度大的权重几乎不衰减；直接作用在权重上，每个权重每步都按同一个因子 `1 - lr * wd` 收缩（Loshchilov 和 Hutter 2019）。
# - **参数组。** 归一化层的增益和偏置没有值得正则的尺度（把增益往小缩会与归一化相抵触），所以放进 `weight_decay = 0` 的参数组；分层学习率也是用参数组来写的。
#
# ## 面试官的追问
#
# 本题跑通之后面试官会问的问题随题目一起提供（`GET /exercises/adamw_step` 的 `follow_ups` 字段），也列在对应 notebook 的末尾，每个都链接到题库里给出答案的题目。可以先准备这几个：
#
# - 为什么 AdamW 的衰减不是 L2？（`adamw-decoupled-vs-l2`）
# - 没有偏差修正时第一步有多大？（`adamw-first-step-no-bias-correction`）
# - 矩估计占多少显存？ZeRO 切分的是什么？（`adamw-moments-memory`、`tr-zero-stages`）
# - 哪些参数不做衰减？（`adamw-param-groups-code`）
# - 怎样让归一化层只用十分之一的学习率？（`adamw-layerwise-lr-groups`）
#
# ## 计算量与显存
#
# 每一步对每个参数做几次逐元素运算：计算量可以忽略，但受内存带宽限制（torch 的 foreach 和 fused 路径会把内核合并）。真正的代价在状态：`m` 和 `v` 相当于模型的两份完整拷贝，float32 下每个参数 8 字节；混合精度下（半精度的权重和梯度 2 + 2，float32 主权重 4，`m` 4，`v` 4）每个参数 16 字节，70 亿参数的模型在算上任何激活之前就有 112 GB 的模型状态。ZeRO 第一阶段把其中 12 字节的优化器状态切分到各个数据并行进程上，第二阶段再加上梯度，第三阶段再加上权重。
#
# ## 自我检验
#
# 在一个小 MLP 上用真实训练跑 100 步，把你的优化器和 `torch.optim.AdamW` 并排运行，比较权重。然后加上 `amsgrad` 和 `maximize` 选项、一个修改 `group["lr"]` 的学习率调度器，以及 `state_dict()` / `load_state_dict()`，让训练能从检查点精确地继续。
#
# ## 背景
#
# 课程文章没有讲优化器，只有《Transformer残差连接与归一化层实现详解》的 “4.2 学习率调整策略” 一节凭经验建议使用分层学习率（归一化层用基础学习率的 0.1 倍）；这样的规则正是用参数组来写的，也有一个用例专门评测它。Adam 出自 Kingma 和 Ba 2015 年的论文（“Adam: A Method for Stochastic Optimization”），AdamW 出自 Loshchilov 和 Hutter 2019 年的论文（“Decoupled Weight Decay Regularization”）；显存数字来自 Rajbhandari 等人 2020 年的 ZeRO 论文。
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
#    `# addnorm: exercise adamw_step`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise adamw_step` 不要删：提交单元格发送的是
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
# addnorm: exercise adamw_step
from collections.abc import Iterable
from typing import Any

import torch


class AdamW:
    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        # params: tensors, or parameter groups (dicts with "params" and their own lr,
        # weight_decay, betas, eps). Keep the groups, with the defaults filled in, and one
        # state per parameter (its step count and the two moments).
        self.param_groups: list[dict[str, Any]] = []
        self.state: dict[torch.Tensor, dict[str, Any]] = {}

    def zero_grad(self) -> None:
        # Set every parameter's .grad to None.
        raise NotImplementedError("implement zero_grad")

    @torch.no_grad()
    def step(self) -> None:
        # For each parameter with a gradient: decoupled decay p *= 1 - lr * wd, the moments,
        # the bias correction with the parameter's own step count, then
        # p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
        raise NotImplementedError("implement step")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.optim.AdamW` for five steps on three parameters: the defaults, a large lr and weight
# decay, and two groups (no decay on the 1-D parameters) with one parameter frozen on a step; the
# parameters after the last step are compared.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.optim.AdamW` 在三个参数上跑五步：默认超参数、较大的 lr 和权重衰减、两个参数组（一维
# 参数不衰减）且其中一个参数有一步没有梯度；比较最后一步之后的参数。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase

STEPS = 5


def _run(make: Any, x: torch.Tensor, kwargs: dict[str, Any], grouped: bool) -> torch.Tensor:
    """Five steps of the optimiser ``make`` builds on three parameters (x the first one's
    values), gradients drawn from a fixed seed; the parameters flattened afterwards."""
    g = torch.Generator().manual_seed(1)
    params = [nn.Parameter(x.clone()), nn.Parameter(torch.ones(5)), nn.Parameter(torch.zeros(5))]
    handed: Any = params
    if grouped:
        handed = [{"params": params[:1]}, {"params": params[1:], "weight_decay": 0.0}]
    optimiser = make(handed, **kwargs)
    for step in range(STEPS):
        for i, p in enumerate(params):
            p.grad = (
                None if (grouped and step == 2 and i == 2) else torch.randn(p.shape, generator=g)
            )
        optimiser.step()
    return torch.cat([p.detach().reshape(-1) for p in params])


def local_cases() -> list[LocalCase]:
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))

    def case(name: str, kwargs: dict[str, Any], grouped: bool = False) -> LocalCase:
        def build(cls: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            return lambda t: _run(cls, t, kwargs, grouped)

        expected = _run(torch.optim.AdamW, x, kwargs, grouped)
        return LocalCase(name=name, x=x, build=build, expected=expected, updates_in_place=True)

    return [
        case("defaults, five steps", {}),
        case("lr 0.05, weight_decay 0.1", {"lr": 0.05, "weight_decay": 0.1}),
        case("two groups, a frozen step", {"lr": 0.05, "weight_decay": 0.1}, grouped=True),
    ]


from addnorm_client.local import check

check("adamw_step", "AdamW", local_cases())

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

submit_cell("adamw_step")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why is AdamW's decay not the same as adding L2 to the loss with Adam? (`adamw-decoupled-vs-l2`, `questions_training`)
# 2. What does the bias correction fix, and how large is the first step without it? (`adamw-first-step-no-bias-correction`, `questions_training`)
# 3. Where does eps go in Adam, and why does it matter? (`adamw-eps-inside-sqrt`, `questions_training`)
# 4. How much memory do Adam's moments take for a 1.3B model? (`adamw-moments-memory`, `questions_training`)
# 5. With ZeRO stage 1 on 8 GPUs, how many bytes per parameter does each GPU keep? (`adamw-zero-1-bytes`, `questions_training`)
# 6. What does each ZeRO stage shard? (`tr-zero-stages`, `questions_training`)
# 7. Which parameters should not be decayed, and how do you set that up? (`adamw-param-groups-code`, `questions_training`)
# 8. How would you give the norm layers a tenth of the learning rate? (`adamw-layerwise-lr-groups`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 为什么 AdamW 的衰减与在 Adam 里给损失加 L2 并不相同？ (`adamw-decoupled-vs-l2`, `questions_training`)
# 2. 偏差修正修正的是什么？没有它，第一步有多大？ (`adamw-first-step-no-bias-correction`, `questions_training`)
# 3. Adam 里的 eps 放在哪里？为什么这很重要？ (`adamw-eps-inside-sqrt`, `questions_training`)
# 4. 一个 13 亿参数的模型，Adam 的矩估计要占多少显存？ (`adamw-moments-memory`, `questions_training`)
# 5. 在 8 张 GPU 上用 ZeRO 第一阶段，每张 GPU 每个参数保存多少字节？ (`adamw-zero-1-bytes`, `questions_training`)
# 6. ZeRO 的每个阶段分别切分什么？ (`tr-zero-stages`, `questions_training`)
# 7. 哪些参数不应该做权重衰减？怎样配置？ (`adamw-param-groups-code`, `questions_training`)
# 8. 怎样让归一化层只用十分之一的学习率？ (`adamw-layerwise-lr-groups`, `questions_training`)
#
# </details>
