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
# # Lab: where a bfloat16 LayerNorm loses precision
#
# **topic:** layer_norm · **difficulty:** medium
#
# A lab is an exercise whose answer is a **measurement**. Here you measure, on a laptop CPU in a
# fraction of a second, the answer to a question every interview on mixed-precision training
# asks: *why do LayerNorm and RMSNorm compute their statistics in float32 even when the model runs
# in bfloat16?* bfloat16 keeps 8 significant bits. Once a row's mean is large next to its spread,
# the mean itself is rounded by a visible fraction of that spread, and the one-pass variance
# $\mathbb{E}[x^2] - \mathbb{E}[x]^2$ subtracts two nearly equal large numbers whose difference is
# smaller than their rounding: **catastrophic cancellation**. You sweep the ratio mean/std and
# measure four ways of normalising the same bfloat16 rows against float64.
#
# ## What to write
#
# ```python
# def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor: ...
# ```
#
# `x` is `(rows, dim)`, float64 or float32, N(0, 1) rows (a spread of 1, or a smaller one in one case, which
# makes the ratio mean/std `offset / std`); `offsets` is a 1-D float64 tensor. For each offset
# `o`, in order:
#
# 1. `xb = (x.double() + o).to(torch.bfloat16)`: the rows every arm receives.
# 2. Four arms, each over the last dim, with `eps = 1e-5` and no weight or bias:
#    - **row 0, bf16 two-pass LayerNorm**, every step in bfloat16: `mean = xb.mean(-1,
#      keepdim=True)`, `d = xb - mean`, `var = (d * d).mean(-1, keepdim=True)`,
#      `y = d / torch.sqrt(var + eps)`;
#    - **row 1, bf16 one-pass LayerNorm**: the same `mean`, then `var = ((xb * xb).mean(-1,
#      keepdim=True) - mean * mean).clamp(min=0)` (it can round below zero), `y = (xb - mean) /
#      torch.sqrt(var + eps)`;
#    - **row 2, float32 statistics**: the two-pass LayerNorm on `xb.float()`, then `.to(torch.bfloat16)`
#      (CUDA's autocast runs `layer_norm` in float32 like this, but returns the float32 result;
#      here it is cast back so that every arm is compared in bfloat16);
#    - **row 3, bf16 RMSNorm**: `y = xb / torch.sqrt((xb * xb).mean(-1, keepdim=True) + eps)`.
# 3. The reference of each arm is the same norm (two-pass LayerNorm for rows 0 to 2, RMSNorm for
#    row 3) computed in float64 **on `xb.double()`**, the rows the arm saw: the error measured is
#    the statistics', not the input's own rounding.
# 4. Per row, the relative error $e = \lVert \hat y - y \rVert_2 / \lVert y \rVert_2$ (with
#    $\hat y$ widened to float64); then the **median** over the rows (`torch.median`; the row
#    counts are odd, so it is the middle row's).
#
# Return a `(4, len(offsets))` tensor in `x`'s dtype: $\log_{10}$ of those medians, column `j`
# for `offsets[j]`.
#
# In formulas, with $\mathrm{bf}(\cdot)$ a rounding to bfloat16 after every operation:
#
# $$\mu = \mathrm{bf}\Big(\tfrac{1}{d}\textstyle\sum_i x_i\Big),\quad \sigma^2_{\text{two}} = \mathrm{bf}\Big(\tfrac{1}{d}\textstyle\sum_i \mathrm{bf}(x_i - \mu)^2\Big),\quad \sigma^2_{\text{one}} = \max\big(\mathrm{bf}(\overline{x^2}) - \mathrm{bf}(\mu^2),\ 0\big)$$
#
# and the answer is $\log_{10} \operatorname{median}_{\text{rows}} \lVert \hat y - y \rVert_2 / \lVert y \rVert_2$ for each arm and offset.
#
# The operations are the contract, not a style: every bfloat16 operation rounds its result, so
# `xb.sum(-1) / dim` (the sum rounded before the division) or `torch.rsqrt` (a rounded reciprocal
# before the product) is another experiment with other numbers. Where nothing is rounded to
# bfloat16 you are free: vectorise over the offsets, use `F.layer_norm` for the float32 arm or the
# float64 reference, `torch.var_mean(..., correction=0)`, `quantile(0.5)`, Python floats.
#
# ## Not allowed
#
# Nothing is banned: the experiment is yours to write with any tensor operation and `F.layer_norm`
# where the contract leaves you free.
#
# ## What your code may run
#
# There is no allow-list for this lab: it casts between bfloat16, float32 and float64 and may call
# `F.layer_norm`. The sandbox still applies (no files, no network, a few seconds of CPU).
#
# ## How it is graded
#
# Eleven freshly drawn cases, each one call: the figure's sweep, mean/std 1, 2, 4 … 128 on
# `(65, 64)` rows (the chart the page draws); small offsets 0 to 1 on `(33, 64)`; wide rows
# `(17, 600)`; narrow rows `(65, 16)`; many rows `(257, 32)`; offsets between the powers of two
# (3 to 96) on `(33, 96)`; a spread of 0.1 on `(33, 128)`; a single row `(1, 300)`; and three
# cases with float32 `x` (`(65, 64)`, `(9, 200)`, one offset of 24 on `(33, 48)`), whose rows you
# widen to float64 before adding the offset, as always. Your `(4, K)` answer is compared
# with the reference experiment's on the same inputs, value by value in log10: within `1e-3` of
# the value plus `2e-4` of the case's largest magnitude (about 0.003 in log10, under 1% in the
# error; float32 cases twenty times that). bfloat16 arithmetic on the CPU rounds identically on
# every run, so an experiment that follows the contract matches to about `1e-6` (over 30 seeds,
# `F.layer_norm` in the float32 arm used at most 13% of the tolerance, by flipping a bfloat16
# rounding now and then); every mistake below misses by hundreds of times its tolerance, on every
# seed the tests try.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases leave room for float32 internals (`x.float()` and a cast back, as Llama's RMSNorm does, is correct).
#
# ## What you should see
#
# On `(65, 64)` rows over 40 seeds, with mean/std swept in quarter powers of two from 1 to 128
# (measured when the lab was written):
#
# - **float32 statistics stay flat**: between 0.14% and 0.18% at every offset, which is the
#   rounding of the bfloat16 output itself (about $2^{-9}$, spread over a row).
# - **bf16 one-pass** crosses 1% at mean/std **2.4** (median; 2.4 to 3.4), 10% at **9.5**, and
#   100% at **23** (16 to 27): there the variance has rounded to zero, and the output is divided
#   by $\sqrt{\epsilon}$ instead of the spread, about **300 times** too large. Its error grows like
#   the square of mean/std.
# - **bf16 two-pass** grows only linearly, through the rounding of the mean: 1% at mean/std
#   **8** (4.8 to 9.5), 9% at 128 (6% to 11%).
# - **bf16 RMSNorm** stays at or below 0.32%: it subtracts nothing, so there is nothing to cancel.
#
# The crossover: at a mean of three standard deviations, common in a residual stream with a few
# large channels, the one-pass bfloat16 LayerNorm already errs about **nine times** more than
# float32 statistics do (the median over 40 seeds; 6.8 to 11 times).
#
# ## Pitfalls interviewers look for
#
# - **A reference on the rows before the cast** (`reference_before_cast`): it measures the
#   input's rounding, and every arm grows.
# - **The absolute error** (`absolute_error`), or **the mean over rows** instead of the median
#   (`mean_of_rows`).
# - **One-pass and two-pass swapped** (`passes_swapped`).
# - **The float32 arm never upcast** (`float32_arm_not_upcast`): statistics taken before
#   `.float()`.
# - **The unbiased variance in the reference** (`unbiased_reference`): `torch.var`'s default.
# - **An RMSNorm that subtracts the mean** (`rms_norm_centred`).
# - **eps added to the standard deviation** (`eps_outside_sqrt`), which only shows where the
#   variance has cancelled to zero.
#
# ## Why it works
#
# - **The mean's rounding.** bfloat16 spaces its numbers $2^{-7}$ apart relative to their size,
#   so a mean of $m$ standard deviations is rounded by up to about $m / 256$ of the spread: every
#   centred value is shifted by that much. The two-pass error is linear in $m$.
# - **Cancellation.** The one-pass variance subtracts $\mathbb{E}[x]^2 \approx m^2$ from
#   $\mathbb{E}[x^2] \approx m^2 + 1$, each rounded by about $m^2 / 256$: the difference, 1, is
#   lost once $m^2 / 256$ approaches it, near $m = 16$. The error grows like $m^2$.
# - **float32 statistics.** 24 significant bits push the same effects $2^{16}$ times further out;
#   what remains is the final cast of a value near 1 to bfloat16.
# - **RMSNorm.** $\mathbb{E}[x^2]$ is a sum of positive terms, rounded relatively: no
#   subtraction, no cancellation, whatever the mean (its output is then nearly constant, which is
#   a modelling matter, not a precision one).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once the curves are on the screen are served with the lab
# (the `follow_ups` field of `GET /exercises/bf16_norm_precision`) and listed at the end of its
# notebook. A few to prepare:
#
# - What in E[x²] − E[x]² goes wrong at a large mean? (`ln-one-pass-variance-code`)
# - How would you compute the variance stably in one pass? (`ln-stable-variance`)
# - In which precision does LayerNorm compute under autocast? (`tr-autocast-layer-norm`)
#
# ## Cost and memory
#
# Four norms of `rows × dim` values per offset: the figure's 8 offsets on `(65, 64)` take a few
# milliseconds on one CPU core. In a real model the float32 statistics cost one cast in and one
# out of a row the norm reads anyway: norms are memory-bound, which is why fused LayerNorm and
# RMSNorm kernels always accumulate in float32.
#
# ## Test yourself
#
# Replace the one-pass variance by Welford's update in bfloat16 and see where it sits between the
# two curves. Run the sweep in float16 (11 significant bits, but a maximum of 65504: where does
# $\mathbb{E}[x^2]$ overflow?). Then subtract a per-row shift (the first element) before the
# one-pass formula and watch the cancellation go.
#
# ## Background
#
# The article "Transformer残差连接与归一化层实现详解", section "2.1 LayerNorm的实现细节", advises
# watching the norm layers' numerical stability in low-precision (FP16) training without saying
# what goes wrong or where; its table in section "4.1 典型问题排查表" blames an oscillating loss on
# the choice of eps. This lab locates the loss of precision: it is the statistics' precision
# against the ratio of mean to spread, not eps (eps only matters once the variance has already
# cancelled to zero); float32 statistics remove it entirely. The same article's LayerNorm adds eps
# to the unbiased standard deviation, two of the mistakes above. The article "FFN, Residual
# Addition, LN", section "2.2 RMSNorm", presents RMSNorm's missing mean subtraction as a saving in
# computation; the lab measures a second benefit it does not mention: with no subtraction, RMSNorm
# has nothing to cancel in bfloat16.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 实验：bfloat16 中的 LayerNorm 在哪里丢失精度
#
# 实验是一种答案为**测量结果**的练习。这里你要在笔记本电脑的 CPU 上、用不到一秒的时间，测出混合精度
# 训练面试中必问的一个问题的答案：*为什么模型用 bfloat16 运行时，LayerNorm 和 RMSNorm 仍要用 float32
# 计算统计量？* bfloat16 只保留 8 个有效二进制位。一行的均值相对于离散度很大时，均值本身的舍入误差就占到
# 离散度中看得见的一部分；而单遍方差 $\mathbb{E}[x^2] - \mathbb{E}[x]^2$ 是两个几乎相等的大数相减，
# 二者之差比它们的舍入误差还小：这就是**灾难性抵消**。你要扫描均值与标准差之比，测量对同样的
# bfloat16 行做归一化的四种方式相对于 float64 的误差。
#
# ## 要写什么
#
# ```python
# def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor: ...
# ```
#
# `x` 的形状是 `(rows, dim)`，float64 或 float32，每行服从 N(0, 1)（离散度为 1；有一个用例的离散度更小，此时
# 均值与标准差之比为 `offset / std`）；`offsets` 是 float64 的一维张量。对每个偏移 `o`，依次：
#
# 1. `xb = (x.double() + o).to(torch.bfloat16)`：每个方案拿到的行。
# 2. 四个方案，都在最后一维上计算，`eps = 1e-5`，没有 weight 和 bias：
#    - **第 0 行，bf16 两遍 LayerNorm**，每一步都在 bfloat16 中：`mean = xb.mean(-1,
#      keepdim=True)`，`d = xb - mean`，`var = (d * d).mean(-1, keepdim=True)`，
#      `y = d / torch.sqrt(var + eps)`；
#    - **第 1 行，bf16 单遍 LayerNorm**：同样的 `mean`，然后 `var = ((xb * xb).mean(-1,
#      keepdim=True) - mean * mean).clamp(min=0)`（它可能被舍入到零以下），`y = (xb - mean) /
#      torch.sqrt(var + eps)`；
#    - **第 2 行，float32 统计量**：对 `xb.float()` 做两遍 LayerNorm，再 `.to(torch.bfloat16)`
#      （CUDA 上的 autocast 也是这样在 float32 中计算 `layer_norm`，但返回的是 float32 结果；
#      这里转回 bfloat16，是为了让每个方案都在 bfloat16 下比较）；
#    - **第 3 行，bf16 RMSNorm**：`y = xb / torch.sqrt((xb * xb).mean(-1, keepdim=True) + eps)`。
# 3. 每个方案的参考结果是同一种归一化（第 0 到 2 行用两遍 LayerNorm，第 3 行用 RMSNorm），用
#    float64 **在 `xb.double()` 上**计算，也就是该方案看到的行：测到的是统计量的误差，而不是输入本身
#    的舍入误差。
# 4. 每一行的相对误差 $e = \lVert \hat y - y \rVert_2 / \lVert y \rVert_2$（$\hat y$ 先转成
#    float64）；然后对各行取**中位数**（`torch.median`；行数都是奇数，所以就是正中间那一行的值）。
#
# 返回 `(4, len(offsets))`、dtype 与 `x` 相同的张量：这些中位数的 $\log_{10}$，第 `j` 列对应 `offsets[j]`。
#
# 用公式表示，$\mathrm{bf}(\cdot)$ 表示每次运算之后都舍入到 bfloat16：
#
# $$\mu = \mathrm{bf}\Big(\tfrac{1}{d}\textstyle\sum_i x_i\Big),\quad \sigma^2_{\text{two}} = \mathrm{bf}\Big(\tfrac{1}{d}\textstyle\sum_i \mathrm{bf}(x_i - \mu)^2\Big),\quad \sigma^2_{\text{one}} = \max\big(\mathrm{bf}(\overline{x^2}) - \mathrm{bf}(\mu^2),\ 0\big)$$
#
# 答案是每个方案、每个偏移下的 $\log_{10} \operatorname{median}_{\text{rows}} \lVert \hat y - y \rVert_2 / \lVert y \rVert_2$。
#
# 这些运算是约定的一部分，而不是写法风格：每一次 bfloat16 运算都会舍入结果，所以
# `xb.sum(-1) / dim`（先把和舍入，再相除）或 `torch.rsqrt`（相乘之前先舍入倒数）是另一个实验，
# 会得到另一组数字。凡是不舍入到 bfloat16 的地方你都可以自由发挥：对各个偏移向量化计算，float32 方案
# 或 float64 参考结果用 `F.layer_norm`，`torch.var_mean(..., correction=0)`，`quantile(0.5)`，
# 或者 Python 浮点数。
#
# ## 不允许使用
#
# 没有禁用任何函数：实验由你用任意张量运算来写，约定没有限制的地方也可以用 `F.layer_norm`。
#
# ## 代码可以运行什么
#
# 本实验没有允许清单：它要在 bfloat16、float32 和 float64 之间转换，也可能调用 `F.layer_norm`。
# 沙箱照常生效（不能读写文件、不能联网、只有几秒 CPU 时间）。
#
# ## 如何评测
#
# 每次提交新抽取十一个用例，每个用例一次调用：图中的扫描，均值/标准差取 1、2、4 … 128，行为
# `(65, 64)`（页面上画的那张图）；`(33, 64)` 上 0 到 1 的小偏移；`(17, 600)` 的宽行；`(65, 16)`
# 的窄行；`(257, 32)` 的多行；`(33, 96)` 上介于 2 的幂之间的偏移（3 到 96）；`(33, 128)` 上离散度
# 为 0.1 的行；只有一行的 `(1, 300)`；以及三个 `x` 为 float32 的用例（`(65, 64)`、`(9, 200)`，
# 以及 `(33, 48)` 上的单个偏移 24），和其他用例一样，先把行转成 float64 再加偏移。你的 `(4, K)`
# 答案在同样的输入下与参考实验的结果按 log10 值逐个比较：容差是该值的 `1e-3` 加上该用例最大
# 绝对值的 `2e-4`（log10 上约 0.003，误差上不到 1%；float32 用例是它的二十倍）。CPU 上的 bfloat16
# 运算每次都以同样的方式舍入，所以遵守约定的实验能匹配到约 `1e-6`（30 个种子上，float32 方案用
# `F.layer_norm` 时最多用掉容差的 13%，原因是偶尔有一次 bfloat16 舍入方向不同）；下面每一种错误在
# 测试用到的每个种子上都差出容差的数百倍。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` 再转回去也算对）。
#
# ## 你应该看到什么
#
# 在 `(65, 64)` 的行上、40 个种子、均值/标准差以 2 的四分之一次幂为步长从 1 扫到 128（编写本实验时
# 测得）：
#
# - **float32 统计量保持平稳**：每个偏移下都在 0.14% 到 0.18% 之间，这正是 bfloat16 输出本身的舍入
#   误差（约 $2^{-9}$，分摊到一行上）。
# - **bf16 单遍**在均值/标准差为 **2.4** 时超过 1%（中位数；范围 2.4 到 3.4），**9.5** 时超过 10%，
#   **23** 时达到 100%（范围 16 到 27）：此时方差已被舍入为零，输出除以的是 $\sqrt{\epsilon}$
#   而不是离散度，大了约 **300 倍**。它的误差随均值/标准差的平方增长。
# - **bf16 两遍**只通过均值的舍入线性增长：均值/标准差为 **8** 时达到 1%（范围 4.8 到 9.5），
#   128 时为 9%（范围 6% 到 11%）。
# - **bf16 RMSNorm** 始终不超过 0.32%：它什么也不减，也就没有东西可抵消。
#
# 交叉点：均值达到三个标准差时（残差流中有几个大通道时很常见），bfloat16 单遍 LayerNorm 的误差已经是
# float32 统计量的约**九倍**（40 个种子的中位数；范围 6.8 到 11 倍）。
#
# ## 面试官会盯的坑
#
# - **参考结果用了转换之前的行**（`reference_before_cast`）：测到的是输入的舍入误差，所有方案都会
#   增长。
# - **用了绝对误差**（`absolute_error`），或者**对各行取均值**而不是中位数（`mean_of_rows`）。
# - **单遍和两遍弄反**（`passes_swapped`）。
# - **float32 方案没有转换精度**（`float32_arm_not_upcast`）：统计量在 `.float()` 之前就算了。
# - **参考结果用了无偏方差**（`unbiased_reference`）：`torch.var` 的默认做法。
# - **RMSNorm 减去了均值**（`rms_norm_centred`）。
# - **eps 加在了标准差上**（`eps_outside_sqrt`）：只有在方差已经抵消为零的地方才看得出来。
#
# ## 为什么有效
#
# - **均值的舍入。** bfloat16 中相邻两个数的间距约为其大小的 $2^{-7}$，所以一个等于 $m$ 个标准差的
#   均值，其舍入误差最多约为离散度的 $m / 256$：每个中心化后的值都被平移了这么多。两遍方案的误差随
#   $m$ 线性增长。
# - **抵消。** 单遍方差从 $\mathbb{E}[x^2] \approx m^2 + 1$ 中减去 $\mathbb{E}[x]^2 \approx m^2$，
#   二者各自的舍入误差约为 $m^2 / 256$：当 $m^2 / 256$ 接近两者之差 1 时（$m$ 约为 16），差值就完全
#   丢失了。误差随 $m^2$ 增长。
# - **float32 统计量。** 24 个有效二进制位把同样的效应推远了 $2^{16}$ 倍；剩下的只是最后把接近 1 的值
#   转成 bfloat16 时的舍入。
# - **RMSNorm。** $\mathbb{E}[x^2]$ 是正数之和，只有相对舍入误差：没有减法，也就没有抵消，不管均值
#   多大（此时它的输出几乎是常数，但那是建模问题，不是精度问题）。
#
# ## 面试官的追问
#
# 曲线出来之后面试官会问的问题随本实验一起提供（`GET /exercises/bf16_norm_precision` 的
# `follow_ups` 字段），也列在笔记本的末尾。可以先准备几个：
#
# - 均值很大时，E[x²] − E[x]² 哪里出了问题？（`ln-one-pass-variance-code`）
# - 如何只遍历一次就稳定地算出方差？（`ln-stable-variance`）
# - autocast 下 LayerNorm 用什么精度计算？（`tr-autocast-layer-norm`）
#
# ## 计算量与显存
#
# 每个偏移要对 `rows × dim` 个值做四次归一化：图中 `(65, 64)` 上的 8 个偏移在一个 CPU 核上只需几
# 毫秒。在真实模型中，float32 统计量只需把本来就要读取的行转入、再把结果转出：归一化受内存带宽限制，
# 所以融合的 LayerNorm 和 RMSNorm 内核总是用 float32 累加。
#
# ## 自我检验
#
# 把单遍方差换成 bfloat16 下的 Welford 更新，看看它落在两条曲线之间的什么位置。用 float16 重新扫描
# （11 个有效二进制位，但最大值只有 65504：$\mathbb{E}[x^2]$ 在哪里溢出？）。再在使用单遍公式之前减去
# 每行的一个平移量（比如第一个元素），看抵消如何消失。
#
# ## 背景
#
# 文章《Transformer残差连接与归一化层实现详解》在"2.1 LayerNorm的实现细节"一节中建议在低精度（FP16）
# 训练时监控归一化层的数值稳定性，却没有说明哪里会出问题、在什么条件下出问题；它在"4.1 典型问题排查表"
# 一节的表格里把损失震荡归因于 eps 的取值。本实验找到了精度丢失的位置：关键是统计量的精度与均值和
# 离散度之比，而不是 eps（只有方差已经抵消为零之后，eps 才有影响）；用 float32 计算统计量就能完全
# 消除它。这篇文章的 LayerNorm 把 eps 加在无偏标准差上，正是上面列出的两种错误。文章
# 《FFN, Residual Addition, LN》在"2.2 RMSNorm"一节中把 RMSNorm 省去减均值一步说成节省计算；本实验
# 测出了它没有提到的第二个好处：没有减法，RMSNorm 在 bfloat16 中就没有东西可抵消。
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
#    `# addnorm: exercise bf16_norm_precision`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise bf16_norm_precision` 不要删：提交单元格发送的是
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
# addnorm: exercise bf16_norm_precision
import torch
import torch.nn.functional as F  # noqa: F401  (F.layer_norm: yours to use where nothing rounds)

EPS = 1e-5


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    # For each offset: rows = (x.double() + offset) cast to bfloat16. Normalise them four ways (bf16
    # two-pass LayerNorm, bf16 one-pass LayerNorm, LayerNorm with float32 statistics cast back,
    # bf16 RMSNorm), each against the same norm in float64 on the same bfloat16 rows.
    # Return (4, len(offsets)) in x's dtype: log10 of the median over rows of the relative L2 error.
    raise NotImplementedError("implement bf16_norm_precision")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The lab on three sweeps drawn from seed 0, against the reference experiment's numbers (computed
# once and written here, so the check does not give the experiment away).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：本实验在种子 0 抽取的三组扫描上的测量结果，与参考实验的数值对比（数值预先算好写在这里，以免泄露
# 实验代码）。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SERIES = ("bf16 two-pass", "bf16 one-pass", "float32 statistics", "bf16 RMSNorm")
# bf16_norm_precision(x, offsets) of the reference, to 6 decimals (log10 of the median
# relative error; rows: two-pass, one-pass, float32 statistics, RMSNorm).
SWEEP = [2.0**k for k in range(8)]
EXPECTED_SWEEP = [
    [-2.499007, -2.400016, -2.22144, -1.886647, -1.68823, -1.360993, -1.080168, -1.002664],
    [-2.45495, -2.16853, -1.707687, -1.001609, -0.411969, 2.433461, 2.473789, 2.490516],
    [-2.785114, -2.789188, -2.780244, -2.781795, -2.792861, -2.777671, -2.76348, -2.775318],
    [-2.696648, -2.614483, -2.614993, -2.604454, -2.575595, -2.552233, -2.56384, -3.083782],
]
WIDE = [0.0, 1.0, 4.0, 16.0, 64.0]
EXPECTED_WIDE = [
    [-2.517063, -2.464978, -2.272965, -1.649817, -1.342191],
    [-2.499896, -2.382654, -1.694893, -0.476151, 2.497324],
    [-2.78248, -2.786336, -2.785237, -2.785446, -2.78117],
    [-2.624451, -2.680757, -2.658122, -2.545707, -3.131213],
]

# float32 rows: the answer comes back in float32.
FLOAT32 = [2.0, 8.0, 32.0]
EXPECTED_FLOAT32 = [
    [-2.428298, -1.865844, -1.657602],
    [-2.113722, -0.922412, 2.502676],
    [-2.773822, -2.770539, -2.773914],
    [-2.610708, -2.437659, -2.622402],
]


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    sweep_x = torch.randn(65, 64, generator=g).double()
    wide_x = torch.randn(33, 128, generator=g).double()
    float32_x = torch.randn(17, 200, generator=g)

    def case(
        name: str, x: torch.Tensor, offsets: list[float], expected: list[list[float]], drawn: bool
    ) -> LocalCase:
        o = torch.tensor(offsets, dtype=torch.float64)

        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, o)

        return LocalCase(
            name=name,
            x=x,
            build=build,
            expected=torch.tensor(expected, dtype=x.dtype),
            measurement=True,
            # The sweep is the figure the notebook draws (plot_lab).
            series=SERIES if drawn else (),
        )

    return [
        case(
            "(65, 64) rows, mean/std 1 to 128: (4, 8) log10 errors",
            sweep_x,
            SWEEP,
            EXPECTED_SWEEP,
            True,
        ),
        case(
            "(33, 128) rows, mean/std 0 to 64: (4, 5) log10 errors",
            wide_x,
            WIDE,
            EXPECTED_WIDE,
            False,
        ),
        case(
            "(17, 200) float32 rows, mean/std 2 to 32: (4, 3) log10 errors",
            float32_x,
            FLOAT32,
            EXPECTED_FLOAT32,
            False,
        ),
    ]


from addnorm_client.local import check

check("bf16_norm_precision", "bf16_norm_precision", local_cases())

# %% [markdown]
# ## The figure
#
# Your measurement beside the reference experiment's, on the local check's last case: one curve
# per row of your answer, yours solid, the reference dashed (matplotlib, from the `notebooks`
# extra; without it, the numbers).
#
# <details><summary>中文</summary>
#
# ## 图
#
# 在本地检查的最后一个用例上，把你的测量结果与参考实验的画在一起：答案的每一行一条曲线，你的是实线，
# 参考的是虚线（用 `notebooks` 附加依赖中的 matplotlib；没有它时打印数值）。
#
# </details>

# %%
from addnorm_client.local import plot_lab

plot_lab("bf16_norm_precision", "bf16_norm_precision", local_cases());

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

submit_cell("bf16_norm_precision")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Your one-pass curve leaves the others at a mean of a few standard deviations. What in E[x²] - E[x]² goes wrong? (`ln-one-pass-variance-code`, `questions_layer_norm`)
# 2. How would you compute the variance stably in a single pass over the data? (`ln-stable-variance`, `questions_layer_norm`)
# 3. Under autocast, in which precision does LayerNorm compute, and why? (`tr-autocast-layer-norm`, `questions_training`)
# 4. bfloat16 or float16 for these activations, and what does each give up? (`tr-bf16-vs-fp16`, `questions_training`)
# 5. What does RMSNorm drop from LayerNorm, and why does your RMSNorm curve stay flat? (`rms-what-is-dropped`, `questions_rms_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 你的单遍曲线在均值达到几个标准差时就与其他曲线分开了。E[x²] - E[x]² 哪里出了问题？ (`ln-one-pass-variance-code`, `questions_layer_norm`)
# 2. 如何只遍历一次数据就稳定地算出方差？ (`ln-stable-variance`, `questions_layer_norm`)
# 3. 在 autocast 下，LayerNorm 用什么精度计算？为什么？ (`tr-autocast-layer-norm`, `questions_training`)
# 4. 这些激活值用 bfloat16 还是 float16？两者各自牺牲了什么？ (`tr-bf16-vs-fp16`, `questions_training`)
# 5. RMSNorm 相比 LayerNorm 去掉了什么？为什么你的 RMSNorm 曲线保持平稳？ (`rms-what-is-dropped`, `questions_rms_norm`)
#
# </details>
