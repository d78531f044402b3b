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
# # Softmax and log-softmax, numerically stable
#
# **topic:** activations · **difficulty:** medium
#
# Softmax turns a vector of scores (logits) into a probability distribution: every output is
# positive and they sum to 1, and a larger score gets a larger share. It sits at the output of
# every classifier and inside every attention layer. Log-softmax is its logarithm, which is what
# cross-entropy actually needs. Both are easy to write and easy to write so that they return NaN
# on real inputs: this exercise is about the second part.
#
# ## What to write
#
# ```python
# def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor: ...
# def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor: ...
# ```
#
# - `x` has any shape (the tests use 1-D to 4-D inputs, contiguous and transposed) and dtype
#   float32, float64, bfloat16 or float16; `dim` is any axis, negative or not
#   (`-x.ndim <= dim < x.ndim`). Return a new tensor of the **same shape and dtype**; do not
#   modify `x`.
# - Along `dim`, for each slice `x_1 ... x_n`:
#
#   $$\begin{aligned}
#   \mathrm{softmax}(x)_i &= \frac{e^{x_i}}{\sum_j e^{x_j}}\\
#   \mathrm{log\_softmax}(x)_i &= x_i - \log \sum_j e^{x_j}
#   \end{aligned}$$
#
# - Logits can be large (1e4) or `-inf` (a masked position: its probability is exactly 0 and its
#   log-probability `-inf`). Every slice the tests use holds at least one finite logit; a slice of
#   only `-inf` is left undefined here.
# - For float16/bfloat16 inputs, compute in float32 and cast the result back once.
#
# Your functions must behave like `torch.softmax(x, dim)` and `torch.log_softmax(x, dim)`: same
# outputs, and the same gradient with respect to `x`.
#
# ## Not allowed
#
# Anything that normalises in one call: `torch.softmax`, `torch.log_softmax`, `Tensor.softmax`,
# `F.softmax`, `F.log_softmax`, `F.softmin`, `F.gumbel_softmax`, `nn.Softmax`, `nn.LogSoftmax`,
# `nn.Softmin`, `torch.special.softmax`/`log_softmax`, the aten `_softmax`/`_log_softmax` ops, and
# also `torch.logsumexp` (in any form) and `torch.distributions` (whose `Categorical` normalises
# with it): log-sum-exp is the stability trick this exercise asks you to write. A submission that
# reaches one is *rejected*. Everything else is fine: `exp`, `log`, `amax`, `max`, `sum`,
# `movedim`, broadcasting.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Seventeen freshly drawn cases per submission. Each case calls `softmax` and then `log_softmax`
# on the same input (the verdict's checks say which function a failing call was): a square
# `(T, T)` matrix of attention scores with `-inf` above the diagonal (a causal mask); logits around
# 1e4; two rows 2e4 apart; logits with a spread of 1e3 within a row (probabilities that underflow
# to 0 behind finite log-probabilities near -2000); standard normal logits times 3 of a random
# 3-D shape with the default `dim`; a 4-D input reduced over `dim=0`, `1` and `-2`; a random
# padding mask of `-inf` entries; rows of equal values (2.5, 1e4 and -7); a transposed
# (non-contiguous) input reduced over `dim=0`; a single class (`n = 1`); a long 1-D vector; a
# batch of one; bfloat16 and float16 inputs. Most calls run a backward pass with a random upstream
# gradient and compare the gradient of `x`; the float16 case and one float32 case run under
# `torch.no_grad()`, where an in-place change of `x` is looked for. Outputs are compared with the
# reference computed in float64; `-inf` must come back as `-inf` and 0 as 0.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum rounded to bfloat16 before the division fails: compute in float32); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **No max subtraction**: logits of 1e4 give `inf / inf = NaN` (question
#   `act-softmax-naive-code`).
# - **Max without `keepdim`**: `x - x.max(dim).values` raises on most shapes, but on a square
#   `(T, T)` attention matrix it broadcasts silently along the wrong axis.
# - **The wrong `dim`**: a hard-coded `-1` in the max or the sum.
# - **One global max** (`x.max()`): NaN for a row far below the others.
# - **Sum over everything** (`e.sum()` without `dim`): the whole batch sums to 1.
# - **`log(softmax(x))`**: `-inf` where the answer is a finite -2000, and NaN gradients.
# - **log-sum-exp without the max added back**: `x - log(sum(exp(x - m)))` is `m` too large.
# - **Side effects and dtype**: no in-place `x.sub_(...)`; return `x.dtype`.
# - **A mistake in one of the two functions** is still that mistake: the verdict names it whichever
#   function it is in.
#
# ## Why it works
#
# - **Shift invariance.** For any constant `c` along `dim`,
#   `exp(x_i - c) / sum_j exp(x_j - c) = exp(x_i) / sum_j exp(x_j)`: the `exp(-c)` cancels.
#   Choose `c = max_j x_j`. Every exponent is then `<= 0`, so `exp` never overflows (float32's
#   `exp` overflows above 88.7, float64's above 709), and the largest term is `exp(0) = 1`, so the
#   sum is between 1 and n: never 0, never inf (question `act-softmax-shift`).
# - **One constant per slice.** The max must be taken along `dim` and kept broadcastable
#   (`keepdim=True`); one max over the whole tensor is still shift-invariant in exact arithmetic,
#   but a row far below the global max underflows to all zeros.
# - **Log space.** `log_softmax(x)_i = (x_i - m) - log(sum_j exp(x_j - m))`, with `m` the max.
#   Every piece is finite whenever the true value is; `log(softmax(x))` is not, because a
#   probability below float32's smallest number (about 1e-45, a logit 104 below the max) is
#   already 0 before the log sees it.
# - **Masks.** `exp(-inf - m) = 0`, so a masked position drops out of the sum and gets probability
#   0 and log-probability `-inf`, with gradient 0 (softmax) or the upstream gradient itself
#   (log_softmax), exactly like PyTorch.
# - **Gradient.** With `y = softmax(x)` and upstream `g`, `dL/dx_i = y_i (g_i - sum_j g_j y_j)`;
#   for log_softmax, `dL/dx_i = g_i - y_i sum_j g_j`. Autograd derives both from your forward;
#   the shift by the max contributes nothing (in exact arithmetic), so detaching it is fine.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/softmax`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it. A few to prepare:
#
# - Why subtract the max, and why does it not change the result? (`act-softmax-shift`)
# - This softmax returns NaN on attention scores in training: why? (`act-softmax-naive-code`)
# - What is softmax([1, 2, 3])? (`act-softmax-value`: 0.090, 0.245, 0.665) Which properties
#   does softmax have? (`act-softmax-properties`)
# - Write the backward of softmax and of log_softmax by hand. (`act-softmax-backward`,
#   `act-log-softmax-backward`)
# - Why is attention a weighted average and where does the non-linearity come from?
#   (`ffn-attention-not-linear`)
# - What should a row that is entirely masked return, and what do fused attention kernels do?
# - Why does cross-entropy take logits rather than probabilities? A loss written as
#   `-log(softmax(x))[target]` returns inf: why? (`act-log-of-softmax-code`) What is its gradient
#   with respect to the logits? (`act-cross-entropy-grad`)
#
# ## Cost and memory
#
# Three passes over each slice (max, sum of exponentials, normalise), all memory-bound; `n` exps
# per slice dominate the arithmetic. Autograd keeps the output (or the exponentials) for
# backward: one tensor the size of `x`. In attention the `(T, T)` score matrix makes this
# quadratic in sequence length, which is why fused kernels (FlashAttention) compute softmax
# block by block with a *running* max and sum ("online softmax") and never store the full matrix.
#
# ## Test yourself
#
# Write the online softmax: process a row in chunks of 128, keeping a running max `m` and a
# running sum `s` of `exp(x - m)`, rescaling `s` by `exp(m_old - m_new)` whenever the max grows.
# Check it against your `softmax` on a row of length 1000 with logits of 1e4, then add a
# temperature `softmax(x / T)` and see what happens as `T -> 0` and `T -> inf`.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "Softmax", describes softmax as the
# activation of a classifier's output layer: it maps the scores into (0, 1) so that they form a
# probability distribution over the classes, and the larger a score, the more likely its class.
# Section "1.1 FFN" of the same article adds the other place it lives: attention applies softmax
# only to its weights, so attention is a weighted average of the values, and it credits the FFN
# with the block's non-linearity. Not quite: the weights are a softmax of the inputs, so attention
# is a non-linear function of its input as well, linear only in the values once the weights are
# fixed (`ffn-attention-not-linear`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 数值稳定的 softmax 与 log_softmax
#
# softmax 把一组分数（logits）变成一个概率分布：每个输出都是正数，加起来等于 1，分数越大分到的
# 份额越多。每个分类器的输出端、每一层注意力里都有它。log_softmax 是它的对数，交叉熵真正需要的
# 正是这个量。两者都很好写，但也很容易写成一遇到真实输入就返回 NaN 的版本：本题考的就是后者。
#
# ## 要写什么
#
# ```python
# def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor: ...
# def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor: ...
# ```
#
# - `x` 可以是任意形状（测试中为 1 维到 4 维，有连续的也有转置后不连续的），dtype 为 float32、
#   float64、bfloat16 或 float16；`dim` 可以是任意一个维度，正负皆可（`-x.ndim <= dim < x.ndim`）。
#   返回一个**形状和 dtype 都与 `x` 相同**的新张量，不要修改 `x`。
# - 沿 `dim` 方向，对每个切片 `x_1 ... x_n`：
#
#   $$\begin{aligned}
#   \mathrm{softmax}(x)_i &= \frac{e^{x_i}}{\sum_j e^{x_j}}\\
#   \mathrm{log\_softmax}(x)_i &= x_i - \log \sum_j e^{x_j}
#   \end{aligned}$$
#
# - logits 可能很大（1e4），也可能是 `-inf`（被掩码的位置：概率恰好为 0，对数概率为 `-inf`）。
#   测试用到的每个切片至少有一个有限的 logit；全是 `-inf` 的切片在本题中没有定义。
# - 输入为 float16/bfloat16 时，先转成 float32 计算，最后只转换回原 dtype 一次。
#
# 你的函数要与 `torch.softmax(x, dim)` 和 `torch.log_softmax(x, dim)` 行为一致：输出相同，对 `x`
# 的梯度也相同。
#
# ## 不允许使用
#
# 一步完成归一化的一切内置实现：`torch.softmax`、`torch.log_softmax`、`Tensor.softmax`、
# `F.softmax`、`F.log_softmax`、`F.softmin`、`F.gumbel_softmax`、`nn.Softmax`、`nn.LogSoftmax`、
# `nn.Softmin`、`torch.special.softmax`/`log_softmax`、aten 的 `_softmax`/`_log_softmax` 算子；
# 还有任何形式的 `torch.logsumexp`，以及 `torch.distributions`（它的 `Categorical` 就用
# logsumexp 做归一化）：log-sum-exp 正是本题要你亲手写出的稳定化技巧。用到其中任何一个的提交
# 会被判为 *rejected*。其余都可以用：`exp`、`log`、`amax`、`max`、`sum`、`movedim`、广播。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十七个新随机生成的用例。每个用例在同一个输入上先调用 `softmax`，再调用
# `log_softmax`（评测结果里的每项检查都注明了失败的是哪个函数）：对角线以上为 `-inf` 的方阵形状
# `(T, T)` 注意力分数（因果掩码）；1e4 附近的 logits；相距 2e4 的两行；同一行内跨度达 1e3 的
# logits（概率下溢为 0，而对数概率是 -2000 左右的有限值）；随机三维形状、乘以 3 的标准正态
# logits，使用默认 `dim`；四维输入分别沿 `dim=0`、`1`、`-2` 归一化；随机位置为 `-inf` 的填充
# 掩码；整行相等的值（2.5、1e4 和 -7）；沿 `dim=0` 归一化的转置（不连续）输入；只有一个类别
# （`n = 1`）；一个很长的一维向量；batch 为 1 的输入；bfloat16 和 float16 输入。大多数调用还会用
# 随机的上游梯度做一次反向传播，比较 `x` 的梯度；float16 用例和一个 float32 用例在
# `torch.no_grad()` 下运行，检查你有没有原地修改 `x`。输出与在 float64 下计算的参考结果比较；
# `-inf` 必须仍是 `-inf`，0 必须仍是 0。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再相除的代码会判错：请在 float32 里计算）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **没有减去最大值**：1e4 的 logits 得到 `inf / inf = NaN`（题目 `act-softmax-naive-code`）。
# - **取最大值时没有 `keepdim`**：`x - x.max(dim).values` 在多数形状下直接报错，但在方阵形状的
#   `(T, T)` 注意力矩阵上会悄悄沿错误的方向广播。
# - **`dim` 用错**：在 max 或 sum 里写死了 `-1`。
# - **只取一个全局最大值**（`x.max()`）：远低于其他行的那一行变成 NaN。
# - **对所有元素求和**（`e.sum()` 不带 `dim`）：整个 batch 加起来才等于 1。
# - **`log(softmax(x))`**：本应是有限的 -2000，却得到 `-inf`，梯度为 NaN。
# - **log-sum-exp 忘了把最大值加回来**：`x - log(sum(exp(x - m)))` 整体大了 `m`。
# - **副作用和 dtype**：不要原地 `x.sub_(...)`；返回 `x.dtype`。
# - **错误只出现在其中一个函数里**也照样算这个错误：无论它出在哪个函数，评测都会指出它。
#
# ## 为什么有效
#
# - **平移不变性。** 对沿 `dim` 不变的任意常数 `c`，
#   `exp(x_i - c) / sum_j exp(x_j - c) = exp(x_i) / sum_j exp(x_j)`：`exp(-c)` 上下约掉了。
#   取 `c = max_j x_j`，所有指数都 `<= 0`，exp 永远不会上溢（float32 的 exp 在输入超过 88.7 时
#   溢出，float64 是 709）；最大的那一项是 `exp(0) = 1`，所以分母介于 1 和 n 之间，既不会是 0
#   也不会是 inf（题目 `act-softmax-shift`）。
# - **每个切片一个常数。** 最大值必须沿 `dim` 取，并保持可广播（`keepdim=True`）；对整个张量取
#   一个最大值，在精确算术下同样满足平移不变，但远低于全局最大值的那一行会整行下溢成 0。
# - **在对数域计算。** `log_softmax(x)_i = (x_i - m) - log(sum_j exp(x_j - m))`，`m` 是最大值。
#   只要真实值有限，每一项就都有限；`log(softmax(x))` 则不然，因为小于 float32 最小正数（约
#   1e-45，即比最大值低 104 的 logit）的概率在取 log 之前就已经变成 0 了。
# - **掩码。** `exp(-inf - m) = 0`，被掩码的位置从求和中消失，概率为 0，对数概率为 `-inf`，
#   梯度为 0（softmax）或等于上游梯度本身（log_softmax），与 PyTorch 完全一致。
# - **梯度。** 设 `y = softmax(x)`，上游梯度为 `g`，则 `dL/dx_i = y_i (g_i - sum_j g_j y_j)`；
#   对 log_softmax，`dL/dx_i = g_i - y_i sum_j g_j`。autograd 会根据你的前向计算自动求出这两者；
#   减去最大值这一步（在精确算术下）对梯度没有贡献，所以对它 detach 也没问题。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/softmax` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先准备这几个：
#
# - 为什么要减去最大值？为什么这样不改变结果？（`act-softmax-shift`）
# - 这个 softmax 用在注意力分数上，训练时返回 NaN，为什么？（`act-softmax-naive-code`）
# - softmax([1, 2, 3]) 等于多少？（`act-softmax-value`：0.090、0.245、0.665）softmax 有哪些性质？
#   （`act-softmax-properties`）
# - 手推 softmax 和 log_softmax 的反向传播。（`act-softmax-backward`、`act-log-softmax-backward`）
# - 为什么说注意力是加权平均？非线性从哪里来？（`ffn-attention-not-linear`）
# - 整行都被掩码时应该返回什么？融合的注意力 kernel 是怎么处理的？
# - 交叉熵为什么接收 logits 而不是概率？写成 `-log(softmax(x))[target]` 的损失会返回 inf，为什么？
#   （`act-log-of-softmax-code`）它对 logits 的梯度是什么？（`act-cross-entropy-grad`）
#
# ## 计算量与显存
#
# 每个切片要扫三遍（求最大值、求指数和、归一化），都受限于访存；每个切片 `n` 次 exp 是主要的
# 算术开销。autograd 会为反向传播保留输出（或指数值）：一个与 `x` 同样大的张量。在注意力中，
# `(T, T)` 的分数矩阵让这部分开销随序列长度平方增长，这正是融合 kernel（FlashAttention）分块
# 计算 softmax 的原因：它维护一个*滚动的*最大值和求和（“online softmax”），从不保存完整的矩阵。
#
# ## 自我检验
#
# 实现 online softmax：把一行按 128 个元素分块处理，维护滚动最大值 `m` 和 `exp(x - m)` 的滚动
# 求和 `s`，每当最大值变大时，就把 `s` 乘以 `exp(m_old - m_new)` 重新缩放。在一行长度为 1000、
# logits 为 1e4 的数据上与你的 `softmax` 对比。然后加上温度 `softmax(x / T)`，观察 `T -> 0` 和
# `T -> inf` 时会发生什么。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“Softmax”一节把 softmax 描述为分类网络输出层的激活函数：
# 它把分数映射到 (0, 1) 区间，使之构成各类别上的概率分布，分数越大，对应类别的可能性越大。同一
# 篇文章的“1.1 FFN”一节补充了它的另一个位置：注意力只对权重做 softmax，所以注意力是对 value 的
# 加权平均，并把整个模块的非线性归功于 FFN。这并不准确：权重本身是输入的 softmax，所以注意力对输入同样是非线性函数，
# 只有在权重固定时才对 value 是线性的（`ffn-attention-not-linear`）。
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
#    `# addnorm: exercise softmax`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise softmax` 不要删：提交单元格发送的是
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
# addnorm: exercise softmax
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # exp(x) / sum(exp(x)) along `dim`, without overflowing for logits like 1e4.
    raise NotImplementedError("implement softmax")


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # log(softmax(x)) along `dim`, finite wherever the true value is finite.
    raise NotImplementedError("implement log_softmax")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.softmax(x, dim)` and `torch.log_softmax(x, dim)`, on large logits, a causal mask
# and a leading axis.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.softmax(x, dim)` 与 `torch.log_softmax(x, dim)`，输入包括很大的 logits、因果掩码，
# 以及沿第一个维度的归一化。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, x: torch.Tensor, function: str, dim: int) -> LocalCase:
        reference = torch.softmax if function == "softmax" else torch.log_softmax

        def build(functions: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
            return lambda t: functions[function](t, dim=dim)

        return LocalCase(
            name=f"{function}: {name}",
            x=x,
            build=build,
            expected=reference(x, dim),
        )

    scores = torch.randn(6, 6, generator=g) * 4  # causal attention scores: -inf above the diagonal
    causal = scores.masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), float("-inf"))
    big = torch.randn(3, 10, generator=g) + 1e4  # exp(1e4) overflows unless the max goes first
    wide = torch.randn(3, 5, 7, generator=g) * 3
    return [
        case("logits around 1e4", big, "softmax", -1),
        case("logits around 1e4", big, "log_softmax", -1),
        case("causal mask (-inf above the diagonal)", causal, "softmax", -1),
        case("causal mask (-inf above the diagonal)", causal, "log_softmax", -1),
        case("3-D, dim=0", wide, "softmax", 0),
        case("3-D, dim=0", wide, "log_softmax", 0),
    ]


from addnorm_client.local import check

check("softmax", "softmax,log_softmax", local_cases())

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

submit_cell("softmax")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why subtract the max, and why does it not change the result? (`act-softmax-shift`, `questions_activations`)
# 2. This softmax returns NaN on attention scores in training. Why? (`act-softmax-naive-code`, `questions_activations`)
# 3. What is softmax([1, 2, 3])? (`act-softmax-value`, `questions_activations`)
# 4. What do a temperature above 1 and doubling the logits each do to softmax's output, and what do its gradient's rows sum to? (`act-softmax-properties`, `questions_activations`)
# 5. Write the backward of softmax by hand. (`act-softmax-backward`, `questions_activations`)
# 6. And the backward of log_softmax? (`act-log-softmax-backward`, `questions_activations`)
# 7. A loss written as -log(softmax(x))[target] returns inf. Why? (`act-log-of-softmax-code`, `questions_activations`)
# 8. What is the gradient of cross-entropy with respect to the logits? (`act-cross-entropy-grad`, `questions_activations`)
# 9. Attention applies softmax to its weights. Where does the block's non-linearity come from? (`ffn-attention-not-linear`, `questions_ffn`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 为什么要减去最大值？为什么这样不改变结果？ (`act-softmax-shift`, `questions_activations`)
# 2. 这个 softmax 用在注意力分数上，训练时返回 NaN，为什么？ (`act-softmax-naive-code`, `questions_activations`)
# 3. softmax([1, 2, 3]) 等于多少？ (`act-softmax-value`, `questions_activations`)
# 4. 温度大于 1、把 logits 翻倍，各自对 softmax 的输出有什么影响？它的梯度每行之和是多少？ (`act-softmax-properties`, `questions_activations`)
# 5. 手推 softmax 的反向传播。 (`act-softmax-backward`, `questions_activations`)
# 6. 那 log_softmax 的反向传播呢？ (`act-log-softmax-backward`, `questions_activations`)
# 7. 写成 -log(softmax(x))[target] 的损失返回了 inf，为什么？ (`act-log-of-softmax-code`, `questions_activations`)
# 8. 交叉熵对 logits 的梯度是什么？ (`act-cross-entropy-grad`, `questions_activations`)
# 9. 注意力只对权重做 softmax，那整个模块的非线性从哪里来？ (`ffn-attention-not-linear`, `questions_ffn`)
#
# </details>
