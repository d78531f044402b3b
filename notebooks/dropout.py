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
# # Inverted dropout, from scratch
#
# **topic:** training · **difficulty:** easy
#
# Dropout zeroes each activation with probability `p` during training, so that no unit can rely
# on any particular other one being there. Every framework implements the *inverted* form: the
# surviving units are scaled up by `1 / (1 - p)` in training, so that the expected activation is
# unchanged and inference needs nothing at all. It is a few lines, and the interview questions are
# about the lines around them: the two modes, the two ends of `p`, and what backward uses.
#
# ## What to write
#
# ```python
# class Dropout(nn.Module):
#     def __init__(self, p: float = 0.5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `p` is the probability of **dropping** a unit. `p` outside `[0, 1]` raises `ValueError` in
#   the constructor, as `nn.Dropout` does. No parameters, no buffers.
# - **Training** (`module.train()`): zero each element independently with probability `p`, a
#   fresh mask on every call, and scale what is kept by `1 / (1 - p)`: `x * keep / (1 - p)`. Draw
#   the mask however you like: `torch.empty_like(x).bernoulli_(1 - p)` (as `nn.Dropout` does),
#   `torch.rand_like(x) > p`, a uniform draw below `1 - p`, in any memory order. The grader checks
#   dropout's law, not one random stream (see "How it is graded").
# - `p = 0`: the identity, also in training. `p = 1`: zeros (no `0 / 0`); this call is checked
#   forward only, so zeros made afresh and zeros computed from `x` are both right.
# - **Eval** (`module.eval()`): the identity, whatever `p`.
# - **Backward**: the gradient of `x` is the upstream gradient times the *same* mask and
#   `1 / (1 - p)`. Autograd keeps the mask for you; if you write the backward yourself (a
#   `torch.autograd.Function` inside your module), save the mask with `ctx.save_for_backward` and
#   never draw again. A new mask on every call: nothing is cached on the module.
# - `x` has any shape (1-D to 4-D in the tests), dtype float32 or float64, any layout; return
#   the same shape and dtype, and do not modify `x`.
#
# In formulas, in training, with a keep mask drawn per element:
#
# $$\mathrm{keep}_i \sim \mathrm{Bernoulli}(1 - p),\qquad y_i = \frac{\mathrm{keep}_i\, x_i}{1 - p},\qquad \mathbb{E}[y_i] = x_i$$
#
# ## Not allowed
#
# `nn.Dropout` and its family (`Dropout1d/2d/3d`, `AlphaDropout`, `FeatureAlphaDropout`),
# `F.dropout` and its family (`dropout1d/2d/3d`, `alpha_dropout`, `feature_alpha_dropout`),
# `torch.dropout`, `torch.native_dropout` and the aten dropout ops, however reached. A submission
# that reaches one is *rejected*. `bernoulli_`, `rand_like`, `uniform_`, `empty_like`, `zeros_like`,
# `where` are fine.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Thirteen freshly drawn scenarios and two constructor checks: one module called in training
# twice on the same shape and then in eval, the three forwards before one backward of all three
# (a mask kept from the first call shows on the second; a mask kept on the module and replaced by
# the next forward shows in the earlier calls' gradients; classic dropout's `(1 - p)` shows in
# eval); `p = 0.1` in float64, training then eval; `p = 0.9`
# (kept units times 10); `p = 1` (zeros) and `p = 0` (the identity) in training; eval alone on
# 200 features; a strided 4-D view at `p = 0.25`; a 1-D vector; a batch of one; the default
# `p = 0.5` in float64; a transposed view; a training and an eval forward under `torch.no_grad()`
# (where an in-place change of `x` is looked for); and `Dropout(p=1.5)`, `Dropout(p=-0.1)`, which must raise `ValueError`. Every call
# but the no-grad ones runs backward with a random upstream gradient and checks the gradient of
# `x`.
#
# A training call is graded by **dropout's law**, so any correct draw passes: every output
# element is `0` or `x / (1 - p)` (within the dtype's tolerance); the number dropped lies within
# 6 standard deviations of `p n` (binomial, plus one), `n` the elements where `x` is not 0 (at 6
# sigma a correct solution fails about once in 500 million cases); the gradient of `x` is the
# upstream gradient times the forward's own mask and `1 / (1 - p)`; two training calls of one
# shape never drop the same units; eval and `p = 0` are the identity, `p = 1` gives zeros and a
# zero gradient. (The grader seeds torch's generator before every call: a mask drawn exactly as
# `nn.Dropout` draws it matches the reference's value by value, which is checked first and
# faster; any other draw is judged by the law.)
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **No `1 / (1 - p)`**: the next layer sees activations `(1 - p)` times smaller in training
#   than at inference (question `tr-dropout-inverted-scale`).
# - **Classic dropout**: no scaling in training, `* (1 - p)` in eval; same expectation, not the
#   contract.
# - **Dropout at inference**: `self.training` never read.
# - **`p` read as the keep probability** (TensorFlow 1's `keep_prob`).
# - **`p = 1`**: `x * 0 / 0 = NaN`.
# - **The mask cached on the module** "for backward" and reused by the next call.
# - **A new mask drawn in a hand-written backward.**
# - **A hand-written backward that reads the mask from the module** (`self.mask`): the next
#   forward replaces it, so with two forwards before one backward the first call's gradient goes
#   through the second call's mask.
# - **`p` outside `[0, 1]` accepted.**
#
# ## Why it works
#
# - **Expectation.** Each unit is kept with probability `1 - p` and then worth `x / (1 - p)`, so
#   `E[output] = (1 - p) * x / (1 - p) = x`. Scaling in training rather than at test time keeps
#   inference the plain network: no factor to remember when exporting or serving.
# - **Backward.** `y = x * keep / (1 - p)` is linear in `x`: `dL/dx = g * keep / (1 - p)`, the same
#   mask. A unit that was dropped received no signal forward and gets no gradient back.
# - **The edges.** `p = 0` keeps everything (every draw keeps, the scale is 1);
#   `p = 1` keeps nothing and the scale is infinite, so it must be special-cased: the limit of the
#   output is 0.
# - **Where it goes.** In a Transformer, dropout sits on the sublayer's output before the residual
#   addition, and on the FFN's hidden activation (questions `res-dropout-placement-bug`,
#   `np-dropout-pre-ln`).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/dropout`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it. A few to prepare:
#
# - A kept unit of 3.0 at `p = 0.2`: what comes out? (`tr-dropout-inverted-scale`)
# - Where does dropout go in a Pre-LN block? (`np-dropout-pre-ln`) And in this residual wrapper?
#   (`res-dropout-placement-bug`, `res-article-dropout-before-add`)
# - Is GELU a kind of dropout? (`act-gelu-deterministic`)
#
# ## Cost and memory
#
# One random draw and one multiply per element; the mask is what autograd keeps for backward, one
# tensor the size of `x` (PyTorch stores it as bytes, or as the scaled mask). Frameworks that
# recompute activations can store the generator's seed instead and redraw the same mask in
# backward, which is the one legitimate way to "draw again": from the same seed, not from the
# generator's current state.
#
# ## Test yourself
#
# Check the expectation empirically: over 10,000 draws at `p = 0.3`, the mean output of a unit
# should be within about 1.3% of its input: one draw's standard deviation is
# $|x|\sqrt{p/(1-p)} \approx 0.65\,|x|$, so the mean of 10,000 is off by about $0.0065\,|x|$ (twice
# that covers 95% of runs). Then write the seed-replay variant: a
# `torch.autograd.Function` that saves only a seed and regenerates the forward's mask in backward
# with a `torch.Generator` seeded the same way, and check its gradient against your module's.
#
# ## Background
#
# The article "Transformer残差连接与归一化层实现详解", section "1.3 实现细节与调参经验", places the
# residual block's dropout after the sublayer and before the addition. The article "FFN, Residual
# Addition, LN", section "3 激活函数", describes GELU as combining the activation with the idea of
# dropout; GELU itself is deterministic, weighting each input by a probability rather than drawing
# a mask (`act-gelu-deterministic`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 inverted dropout
#
# dropout 在训练时以概率 `p` 把每个激活置零，让任何单元都不能依赖某个特定的其他单元一定存在。
# 所有框架实现的都是 *inverted* 形式：训练时把保留下来的单元放大 `1 / (1 - p)` 倍，使激活的期望
# 不变，推理时就什么都不用做。代码只有几行，面试题问的是这几行周围的东西：两种模式、`p` 的两个
# 端点，以及 backward 用的是什么。
#
# ## 要写什么
#
# ```python
# class Dropout(nn.Module):
#     def __init__(self, p: float = 0.5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `p` 是**丢弃**一个单元的概率。`p` 不在 `[0, 1]` 之内时，构造函数要像 `nn.Dropout` 一样抛出
#   `ValueError`。没有参数，也没有 buffer。
# - **训练**（`module.train()`）：每个元素独立地以概率 `p` 置零，每次调用都抽新的掩码，保留下来的
#   乘以 `1 / (1 - p)`：`x * keep / (1 - p)`。掩码怎么抽都可以：`torch.empty_like(x).bernoulli_(1 - p)`
#   （`nn.Dropout` 的做法）、`torch.rand_like(x) > p`、均匀分布小于 `1 - p`，按任意内存顺序抽都行。
#   评测检查的是 dropout 的分布规律，而不是某一条随机数序列（见“如何评测”）。
# - `p = 0`：恒等映射，训练时也是。`p = 1`：全零（不能出现 `0 / 0`）；这次调用只检查前向，所以
#   新建的全零张量和由 `x` 算出的全零都算对。
# - **eval**（`module.eval()`）：无论 `p` 是多少都是恒等映射。
# - **反向传播**：`x` 的梯度是上游梯度乘以*同一个*掩码和 `1 / (1 - p)`。autograd 会替你保存
#   掩码；如果你自己写 backward（在模块里用 `torch.autograd.Function`），要用
#   `ctx.save_for_backward` 保存掩码，绝不能再抽一次。每次调用都是新掩码：不要在模块上缓存任何东西。
# - `x` 可以是任意形状（测试中为 1 维到 4 维），dtype 为 float32 或 float64，任意内存布局；返回
#   同样形状和 dtype 的张量，不要修改 `x`。
#
# 用公式写，训练时每个元素抽一个保留掩码：
#
# $$\mathrm{keep}_i \sim \mathrm{Bernoulli}(1 - p),\qquad y_i = \frac{\mathrm{keep}_i\, x_i}{1 - p},\qquad \mathbb{E}[y_i] = x_i$$
#
# ## 不允许使用
#
# `nn.Dropout` 及其同族（`Dropout1d/2d/3d`、`AlphaDropout`、`FeatureAlphaDropout`），`F.dropout`
# 及其同族（`dropout1d/2d/3d`、`alpha_dropout`、`feature_alpha_dropout`），`torch.dropout`、
# `torch.native_dropout` 以及 aten 的 dropout 算子，无论通过什么途径调用。用到其中任何一个的提交
# 会被判为 *rejected*。`bernoulli_`、`rand_like`、`uniform_`、`empty_like`、`zeros_like`、`where`
# 都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十三个新随机生成的场景和两个构造函数检查：同一个模块在训练模式下对同一形状调用两次、
# 再以 eval 模式调用，三次前向之后才对三者一起做一次反向传播（从第一次调用保留下来的掩码会在第二次
# 暴露；存在模块上、被下一次前向换掉的掩码会在前面几次调用的梯度里暴露；经典 dropout 的 `(1 - p)`
# 会在 eval 时暴露）；float64 下 `p = 0.1`，先训练后 eval；`p = 0.9`（保留的单元乘以 10）；训练模式下的
# `p = 1`（全零）和 `p = 0`（恒等）；200 个特征上只做 eval；`p = 0.25` 时跨步切片得到的四维视图；
# 一维向量；batch 为 1；float64 下默认的 `p = 0.5`；转置视图；`torch.no_grad()` 下训练和 eval 各一次
# 前向（检查有没有原地修改 `x`）；以及必须抛出 `ValueError` 的 `Dropout(p=1.5)`、`Dropout(p=-0.1)`。除 no-grad 的调用外，每次调用都会用随机的上游梯度做反向传播
# 并检查 `x` 的梯度。
#
# 训练模式的调用按 **dropout 的分布规律**评测，任何正确的抽取方式都能通过：每个输出元素要么是 `0`，
# 要么是 `x / (1 - p)`（在该 dtype 的容差之内）；被丢弃的个数落在 `p n` 的 6 个标准差之内（二项分布，
# 再加一），`n` 是 `x` 不为 0 的元素个数（取 6 个标准差时，正确的解大约每五亿个用例才会误判一次）；
# `x` 的梯度等于上游梯度乘以该次前向自己的掩码和 `1 / (1 - p)`；同一形状的两次训练调用不会丢弃完全
# 相同的单元；eval 和 `p = 0` 是恒等映射，`p = 1` 给出全零和全零的梯度。（每次调用前评测都会给 torch
# 的随机数生成器设定种子：和 `nn.Dropout` 完全相同的抽取方式会与参考实现逐值一致，这一路先检查、
# 也更快；其他抽取方式按分布规律判定。）
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **没有 `1 / (1 - p)`**：下一层在训练时看到的激活比推理时小 `(1 - p)` 倍（题目
#   `tr-dropout-inverted-scale`）。
# - **经典 dropout**：训练时不缩放、eval 时乘以 `(1 - p)`；期望相同，但不符合约定。
# - **推理时也在 dropout**：从不读取 `self.training`。
# - **把 `p` 当成保留概率**（TensorFlow 1 的 `keep_prob`）。
# - **`p = 1`**：`x * 0 / 0 = NaN`。
# - **把掩码缓存在模块上**“留给 backward 用”，下一次调用继续复用。
# - **在手写的 backward 里重新抽掩码。**
# - **手写的 backward 从模块上读取掩码**（`self.mask`）：下一次前向会把它换掉，所以在一次反向传播
#   之前做了两次前向时，第一次调用的梯度会经过第二次调用的掩码。
# - **接受了 `[0, 1]` 之外的 `p`。**
#
# ## 为什么有效
#
# - **期望。** 每个单元以 `1 - p` 的概率被保留，保留后的值为 `x / (1 - p)`，所以
#   `E[output] = (1 - p) * x / (1 - p) = x`。在训练时而不是测试时缩放，推理时就是原本的网络：导出或
#   部署时不需要记着乘任何因子。
# - **反向传播。** `y = x * keep / (1 - p)` 对 `x` 是线性的：`dL/dx = g * keep / (1 - p)`，同一个
#   掩码。前向时被丢弃的单元没有传出信号，反向时也得不到梯度。
# - **端点。** `p = 0` 保留全部（每次抽取都保留，缩放为 1）；`p = 1` 什么都不保留，缩放
#   是无穷大，所以必须单独处理：输出的极限是 0。
# - **放在哪里。** 在 Transformer 中，dropout 放在子层输出之后、残差相加之前，以及 FFN 的隐藏层
#   激活上（题目 `res-dropout-placement-bug`、`np-dropout-pre-ln`）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/dropout` 返回的 `follow_ups`
# 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先准备这几个：
#
# - `p = 0.2` 时一个被保留的 3.0 会输出什么？（`tr-dropout-inverted-scale`）
# - Pre-LN 模块里 dropout 放在哪里？（`np-dropout-pre-ln`）这个残差封装里呢？
#   （`res-dropout-placement-bug`、`res-article-dropout-before-add`）
# - GELU 算是一种 dropout 吗？（`act-gelu-deterministic`）
#
# ## 计算量与显存
#
# 每个元素一次随机抽取、一次乘法；autograd 为 backward 保存的就是掩码，一个与 `x` 同样大的张量
# （PyTorch 以字节或缩放后的掩码保存）。做激活重计算的框架可以只保存随机数生成器的种子，在
# backward 时重新抽出同一个掩码，这是唯一正当的“再抽一次”：从同一个种子出发，而不是从生成器的
# 当前状态出发。
#
# ## 自我检验
#
# 用实验验证期望：在 `p = 0.3` 下抽 10,000 次，一个单元的平均输出应与输入相差约 1.3% 以内：单次抽样的标准差是
# $|x|\sqrt{p/(1-p)} \approx 0.65\,|x|$，10,000 次的均值偏差约为 $0.0065\,|x|$（两倍于此覆盖 95% 的运行）。
# 然后写出种子重放的版本：一个只保存种子的 `torch.autograd.Function`，在 backward 里用以同样方式
# 设置种子的 `torch.Generator` 重新生成 forward 的掩码，并把它的梯度与你的模块对比。
#
# ## 背景
#
# 文章《Transformer残差连接与归一化层实现详解》的“1.3 实现细节与调参经验”一节把残差模块的
# dropout 放在子层之后、相加之前。文章《FFN, Residual Addition, LN》的“3 激活函数”一节说 GELU
# 把激活与 dropout 的思想结合在一起；GELU 本身是确定性的，它用一个概率给每个输入加权，而不是抽取
# 掩码（`act-gelu-deterministic`）。
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
#    `# addnorm: exercise dropout`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise dropout` 不要删：提交单元格发送的是
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
# addnorm: exercise dropout
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        # p is the probability of dropping a unit; outside [0, 1] it is an error.
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Training: keep = torch.empty_like(x).bernoulli_(1 - p), scale the kept units by
        # 1 / (1 - p); eval: the identity.
        raise NotImplementedError("implement Dropout.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.Dropout(p)` in eval mode, the identity for every p (training-mode masks are graded
# on the server, by dropout's law: any correct draw passes).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.Dropout(p)` 的 eval 模式：对任何 p 都是恒等映射（训练模式的掩码由服务器按 dropout
# 的分布规律评测，任何正确的抽取方式都能通过）。
#
# </details>

# %%
import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], p: float) -> LocalCase:
        x = torch.randn(shape, generator=g)
        return LocalCase(name=name, x=x, build=lambda cls: cls(p), expected=x.clone())

    return [
        case("eval mode, p = 0.5", (4, 16), 0.5),
        case("eval mode, p = 0.9, 3-D", (2, 3, 8), 0.9),
        case("eval mode, p = 1", (3, 5), 1.0),
    ]


from addnorm_client.local import check

check("dropout", "Dropout", local_cases())

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

submit_cell("dropout")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. With p = 0.2, what does a kept unit of value 3 become in training, and why? (`tr-dropout-inverted-scale`, `questions_training`)
# 2. In a Pre-LN block with residual dropout, where does the dropout go? (`np-dropout-pre-ln`, `questions_norm_placement`)
# 3. This residual wrapper puts its dropout in the wrong place. Where should it be? (`res-dropout-placement-bug`, `questions_residual`)
# 4. Does dropout in a residual block go before or after the addition? (`res-article-dropout-before-add`, `questions_residual`)
# 5. Is GELU a form of dropout, as the article suggests? (`act-gelu-deterministic`, `questions_activations`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. p = 0.2 时，训练中一个值为 3 且被保留的单元会变成多少？为什么？ (`tr-dropout-inverted-scale`, `questions_training`)
# 2. 在带残差 dropout 的 Pre-LN 模块中，dropout 放在哪里？ (`np-dropout-pre-ln`, `questions_norm_placement`)
# 3. 这个残差封装把 dropout 放错了位置。应该放在哪里？ (`res-dropout-placement-bug`, `questions_residual`)
# 4. 残差模块里的 dropout 放在相加之前还是之后？ (`res-article-dropout-before-add`, `questions_residual`)
# 5. GELU 是否像文章所说的那样是一种 dropout？ (`act-gelu-deterministic`, `questions_activations`)
#
# </details>
