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
# # Cross-entropy from logits, with ignore_index and label smoothing
#
# **topic:** training · **difficulty:** medium
#
# Every language model and classifier is trained on cross-entropy: the negative log-probability
# the model gives to the right class, averaged over the positions that count. PyTorch's
# `F.cross_entropy` hides three things an interviewer will ask you to write out: the log-sum-exp
# that keeps it finite, the padding positions that must leave the average (`ignore_index`), and
# label smoothing. Here you write all three.
#
# ## What to write
#
# ```python
# def cross_entropy(
#     logits: torch.Tensor,
#     target: torch.Tensor,
#     ignore_index: int = -100,
#     label_smoothing: float = 0.0,
# ) -> torch.Tensor: ...
# ```
#
# - `logits` is `(N, C)` or `(N, C, d1, ..., dk)`: **the classes are on dim 1** whatever the
#   rank (a `(B, C, T)` sequence of token logits, a `(B, C, H, W)` segmentation map), dtype
#   float32, float64 or bfloat16 (compute bfloat16 in float32 and cast the result back once).
#   The unbatched `(C,)` form is not graded.
# - `target` is int64 class indices shaped like `logits` without dim 1: `(N)` or
#   `(N, d1, ..., dk)`, each in `[0, C)` or equal to `ignore_index`. `ignore_index` can be any
#   int, a valid class such as `0` included: a target equal to it is ignored, whatever it is.
# - `label_smoothing` (`eps`) is in `[0, 1]`: the target distribution becomes
#   `(1 - eps) * one_hot(t) + eps / C` over **all C classes** (the target's own class included).
# - Return a **0-d tensor** in the logits' dtype: the mean, over the positions `i` whose target
#   is not `ignore_index`, of
#
#   $$\ell_i = (1 - \varepsilon)\,(-\log p_{i,t_i}) + \frac{\varepsilon}{C} \sum_{c=1}^{C} (-\log p_{i,c}),
#   \qquad \log p_{i,c} = x_{i,c} - \log \sum_{j} e^{x_{i,j}}$$
#
#   $$\text{loss} = \frac{\sum_{i:\,t_i \ne \text{ignore}} \ell_i}{\#\{i : t_i \ne \text{ignore}\}}$$
#
# - Logits can be around 1e4, and some can be `-inf` (a masked class, a padded vocabulary; the
#   target's own logit is always finite). With `label_smoothing = 0` and `-inf` logits the loss
#   is finite, as PyTorch's: a smoothing term that is `inf` on a `-inf` logit must not be
#   multiplied by 0 into NaN. (With smoothing on and a `-inf` logit, the loss is `inf` in
#   PyTorch too; that combination is not graded.)
# - **Edge values, all graded**: `label_smoothing` 0.0, 1.0 (the target no longer matters) and
#   in between; `ignore_index` present, absent, and a valid class (`0`); a single class (`C =
#   1`: every log-probability is 0, so the loss is 0 with or without smoothing); a single row.
# - **Every target ignored**: the mean of nothing is `0 / 0`, and `F.cross_entropy` returns NaN.
#   Return NaN too (that case is graded forward only; its gradient is not).
#
# Your function must behave like `F.cross_entropy(logits, target, ignore_index=ignore_index,
# label_smoothing=label_smoothing)` (its default `reduction="mean"`, no class weights): the same
# loss, and the same gradient with respect to `logits`. Do not modify `logits` or `target`.
#
# ## Not allowed
#
# The log-sum-exp is the exercise. Refused, however they are reached: `F.cross_entropy`,
# `F.nll_loss`, `nn.CrossEntropyLoss`, `nn.NLLLoss`; `torch.log_softmax`, `F.log_softmax`,
# `Tensor.log_softmax`, `torch.softmax`, `F.softmax`, `Tensor.softmax`, `F.softmin`,
# `F.gumbel_softmax`, `nn.Softmax`, `nn.LogSoftmax`, `nn.Softmin`, `torch.special.softmax`/
# `log_softmax`; `torch.logsumexp`, `Tensor.logsumexp`, `torch.special.logsumexp`,
# `torch.logaddexp`; and their aten entry points (`cross_entropy_loss`, `nll_loss`,
# `nll_loss_nd`, `nll_loss2d`, `_softmax`, `_log_softmax`, `logsumexp`). A submission that
# reaches one is *rejected*. Everything else is fine: `exp`, `log`, `amax`, `sum`, `mean`,
# `gather`, `F.one_hot`, `masked_select`, `where`, `movedim`, `reshape`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Seventeen freshly drawn cases per submission, each one call with a random upstream gradient
# (the gradient of the logits is compared) except where it says forward only: label smoothing
# with 30% of the targets ignored (float64); an `(N, C, d)` input with ignored targets; logits
# around 1e4; rows whose target logit sits 110 to 150 below the others (float32, the others
# around 250 and, in another case, around 30: the probability underflows to 0, the loss is a
# finite 110 or so); an `(N, C, d1, d2)` input with
# smoothing and ignored targets; `ignore_index = 0` with targets equal to 0; `label_smoothing =
# 1.0`; random `-inf` logits with smoothing off; one row over a vocabulary of 1000 to 2000
# classes; `C = 1` with smoothing 0.5; a transposed (non-contiguous) logits tensor; bfloat16
# logits; every target ignored (forward only: NaN); a forward under `torch.no_grad()` (where an
# in-place change of the inputs is looked for); the defaults on logits with a spread of 20.
# The loss is compared with PyTorch's, a NaN must come back as NaN.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **exp of the raw logits**: `exp(1e4)` is inf, and the loss NaN. Subtract the row's max.
# - **`log(softmax(x))`**: a probability below 1e-45 (float32) is 0 before the log sees it;
#   `-log 0 = inf` where the answer is a finite 110, and NaN gradients.
# - **The mean over every target**: dividing by `N` (or `N * d1 * ...`) instead of the number of
#   targets that are not ignored makes the loss depend on how much padding a batch holds.
# - **eps / (C - 1)**: `F.cross_entropy` spreads eps over all C classes, the target included.
# - **Smoothing over ignored rows**: the uniform term of a padding position is still a term.
# - **(1 - eps) * nll and nothing else**: that is not label smoothing, only a smaller loss.
# - **Classes on the last dim**: `reshape(-1, C)` on `(N, C, d)` without `movedim(1, -1)` first.
# - **Sum instead of mean**: the gradient then grows with the batch size.
# - **Indexing with -100**: `gather` with an ignored target raises (or wraps); index with a valid
#   class and mask the result.
#
# ## Why it works
#
# - **Log-sum-exp.** `log sum_j exp(x_j) = m + log sum_j exp(x_j - m)` for any `m`; with `m` the
#   row's max every exponent is `<= 0`, the sum lies in `[1, C]`, and the log of it is finite
#   (question `ce-why-log-sum-exp`). Then `-log p_t = log sum_j exp(x_j - m) - (x_t - m)`: no
#   probability is ever formed, so none can underflow.
# - **The gradient** of one position's loss is `softmax(x) - q`, with `q` the (smoothed) target
#   distribution, divided by the count of kept targets; an ignored position gets 0
#   (`ce-gradient-softmax-minus-onehot`). Autograd derives it from your forward.
# - **Label smoothing**'s uniform term is `eps * mean_c(-log p_c) = eps * (log sum exp(x) -
#   mean_c x_c)`: it penalises logits that run away from their mean, so the optimum keeps a
#   finite margin instead of pushing the target logit to infinity (`ce-label-smoothing-optimum`).
# - **ignore_index** removes a position from the numerator and the denominator both: the loss
#   is the mean per real token, whatever the padding.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/cross_entropy`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it. A few to prepare:
#
# - What is the gradient of cross-entropy with respect to the logits? (`ce-gradient-softmax-minus-onehot`)
# - Why log-sum-exp, and not `log(softmax(x))`? (`ce-why-log-sum-exp`, `act-log-of-softmax-code`)
# - What does label smoothing do to the optimum logits? (`ce-label-smoothing-optimum`)
# - Two batches with different amounts of padding: what does the mean over ignored targets do?
#   (`ce-ignore-index-mean`)
# - With gradient accumulation over k micro-batches, how do you scale the loss? (`sched-grad-accumulation-scaling`)
#
# ## Cost and memory
#
# Per position: one pass for the max, one for the sum of exponentials, one gather: `O(N * C)`
# time. Autograd keeps the shifted logits (or the probabilities), a tensor the size of the
# logits: with a vocabulary of 128k and 8k tokens that is 4 GiB in float32, which is why fused
# and chunked cross-entropy kernels (Liger, the chunked losses of large-model trainers) compute
# the loss and its gradient block by block and never store the probabilities.
#
# ## Test yourself
#
# Check your loss against `F.cross_entropy` on `(4, 10)` logits plus 1e4, on `(2, 5, 7)`
# logits with a third of the targets -100, and with `label_smoothing=0.1`. Then compute by hand
# the gradient `(softmax(x) - q) / count` and compare it with `logits.grad`.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "Softmax", introduces softmax as the
# output layer of a classifier, whose probabilities cross-entropy reads. The log-sum-exp, the
# mean over the targets that count and label smoothing are not in the course articles: label
# smoothing comes from Szegedy et al. (2016), "Rethinking the Inception Architecture for
# Computer Vision", and its effect on the logits is studied by Müller, Kornblith and Hinton
# (2019), "When Does Label Smoothing Help?".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从 logits 计算交叉熵：ignore_index 与标签平滑
#
# 每个语言模型、每个分类器都用交叉熵训练：模型给正确类别的负对数概率，在需要计入的位置上取平均。
# PyTorch 的 `F.cross_entropy` 藏起了三件面试官会让你亲手写出来的事：让结果保持有限的
# log-sum-exp，必须从平均中剔除的 padding 位置（`ignore_index`），以及标签平滑。本题三件都要写。
#
# ## 要写什么
#
# ```python
# def cross_entropy(
#     logits: torch.Tensor,
#     target: torch.Tensor,
#     ignore_index: int = -100,
#     label_smoothing: float = 0.0,
# ) -> torch.Tensor: ...
# ```
#
# - `logits` 为 `(N, C)` 或 `(N, C, d1, ..., dk)`：**无论几维，类别都在 dim 1**（比如
#   `(B, C, T)` 的逐 token logits，`(B, C, H, W)` 的分割图），dtype 为 float32、float64 或
#   bfloat16（bfloat16 先转成 float32 计算，最后只转换回去一次）。不带 batch 的 `(C,)` 形式不在评测
#   范围内。
# - `target` 是 int64 的类别下标，形状为 `logits` 去掉 dim 1：`(N)` 或 `(N, d1, ..., dk)`，每个值
#   在 `[0, C)` 内，或者等于 `ignore_index`。`ignore_index` 可以是任意整数，包括 `0` 这样的合法类别：
#   等于它的 target 一律被忽略。
# - `label_smoothing`（记作 `eps`）取值在 `[0, 1]`：目标分布变为
#   `(1 - eps) * one_hot(t) + eps / C`，均匀分布覆盖**全部 C 个类别**（包括 target 自己）。
# - 返回 logits 同 dtype 的 **0 维张量**：对所有 target 不等于 `ignore_index` 的位置 `i`，求下式的
#   均值
#
#   $$\ell_i = (1 - \varepsilon)\,(-\log p_{i,t_i}) + \frac{\varepsilon}{C} \sum_{c=1}^{C} (-\log p_{i,c}),
#   \qquad \log p_{i,c} = x_{i,c} - \log \sum_{j} e^{x_{i,j}}$$
#
#   $$\text{loss} = \frac{\sum_{i:\,t_i \ne \text{ignore}} \ell_i}{\#\{i : t_i \ne \text{ignore}\}}$$
#
# - logits 可能在 1e4 附近，也可能有 `-inf`（被掩码的类别、补齐的词表；target 自己的 logit 总是
#   有限的）。`label_smoothing = 0` 且存在 `-inf` logit 时，损失是有限值，与 PyTorch 一致：平滑项在
#   `-inf` 的 logit 上是 `inf`，不能让它乘以 0 变成 NaN。（开启平滑且存在 `-inf` logit 时，PyTorch
#   的损失也是 `inf`；这种组合不评测。）
# - **各参数的边界值都会评测**：`label_smoothing` 取 0.0、1.0（此时 target 已无关紧要）和中间值；
#   `ignore_index` 出现、不出现、等于合法类别（`0`）；只有一个类别（`C = 1`：每个对数概率都是 0，
#   无论是否平滑损失都为 0）；只有一行。
# - **所有 target 都被忽略**：对空集求均值就是 `0 / 0`，`F.cross_entropy` 返回 NaN。你也要返回
#   NaN（这个用例只评测前向，不评测梯度）。
#
# 你的函数要与 `F.cross_entropy(logits, target, ignore_index=ignore_index,
# label_smoothing=label_smoothing)`（默认 `reduction="mean"`，不带类别权重）行为一致：损失相同，
# 对 `logits` 的梯度也相同。不要修改 `logits` 或 `target`。
#
# ## 不允许使用
#
# log-sum-exp 正是本题要写的东西。以下内容无论通过什么途径调用都会被拒绝：`F.cross_entropy`、
# `F.nll_loss`、`nn.CrossEntropyLoss`、`nn.NLLLoss`；`torch.log_softmax`、`F.log_softmax`、
# `Tensor.log_softmax`、`torch.softmax`、`F.softmax`、`Tensor.softmax`、`F.softmin`、
# `F.gumbel_softmax`、`nn.Softmax`、`nn.LogSoftmax`、`nn.Softmin`、`torch.special.softmax`/
# `log_softmax`；`torch.logsumexp`、`Tensor.logsumexp`、`torch.special.logsumexp`、
# `torch.logaddexp`；以及它们的 aten 入口（`cross_entropy_loss`、`nll_loss`、`nll_loss_nd`、
# `nll_loss2d`、`_softmax`、`_log_softmax`、`logsumexp`）。用到其中任何一个的提交会被判为
# *rejected*。其余都可以用：`exp`、`log`、`amax`、`sum`、`mean`、`gather`、`F.one_hot`、
# `masked_select`、`where`、`movedim`、`reshape`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十七个新随机生成的用例，每个用例调用一次，并用随机的上游梯度做反向传播（比较 logits
# 的梯度），注明只评测前向的除外：带标签平滑、30% 的 target 被忽略（float64）；带被忽略 target 的
# `(N, C, d)` 输入；1e4 附近的 logits；target 的 logit 比其余 logit 低 110 到 150 的行（float32，其余 logit 在 250
# 附近，另一个用例在 30 附近：概率下溢为 0，而损失是 110 左右的有限值）；带平滑和被忽略 target 的 `(N, C, d1, d2)` 输入；
# `ignore_index = 0` 且部分 target 为 0；`label_smoothing = 1.0`；关闭平滑、随机若干 logit 为
# `-inf`；词表大小为 1000 到 2000 的单行输入；平滑为 0.5 的 `C = 1`；转置（不连续）的 logits；
# bfloat16 的 logits；所有 target 都被忽略（只评测前向：NaN）；`torch.no_grad()` 下的一次前向（检查
# 你有没有原地修改输入）；参数取默认值、logits 跨度为 20。损失与 PyTorch 的结果比较，NaN 必须仍是
# NaN。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **直接对原始 logits 取 exp**：`exp(1e4)` 是 inf，损失变成 NaN。要先减去该行最大值。
# - **`log(softmax(x))`**：小于 1e-45（float32）的概率在取对数之前就已经是 0；本应是有限的 110，
#   却得到 `-log 0 = inf`，梯度也是 NaN。
# - **对全部 target 求均值**：分母用 `N`（或 `N * d1 * ...`）而不是未被忽略的 target 个数，损失就会
#   随 batch 里 padding 的多少而变。
# - **eps / (C - 1)**：`F.cross_entropy` 把 eps 分给全部 C 个类别，包括 target 自己。
# - **平滑项算上了被忽略的行**：padding 位置的均匀项仍然是一项。
# - **只写 (1 - eps) * nll**：这不是标签平滑，只是把损失变小了。
# - **类别放在最后一维**：对 `(N, C, d)` 没有先 `movedim(1, -1)` 就 `reshape(-1, C)`。
# - **求和而不是求均值**：梯度会随 batch 大小变大。
# - **用 -100 做索引**：拿被忽略的 target 直接 `gather` 会报错（或者回绕）；先换成合法类别做索引，
#   再用掩码去掉。
#
# ## 为什么有效
#
# - **log-sum-exp。** 对任意 `m` 都有 `log sum_j exp(x_j) = m + log sum_j exp(x_j - m)`；取 `m` 为
#   该行最大值时，所有指数都 `<= 0`，求和落在 `[1, C]` 内，取对数后是有限值（题目
#   `ce-why-log-sum-exp`）。于是 `-log p_t = log sum_j exp(x_j - m) - (x_t - m)`：整个过程从不
#   显式算出概率，也就不会有概率下溢。
# - **梯度。** 单个位置的损失对 logits 的梯度是 `softmax(x) - q`，`q` 为（平滑后的）目标分布，再除以
#   未被忽略的 target 个数；被忽略的位置梯度为 0（`ce-gradient-softmax-minus-onehot`）。autograd 会
#   根据你的前向计算自动求出它。
# - **标签平滑**的均匀项是 `eps * mean_c(-log p_c) = eps * (log sum exp(x) - mean_c x_c)`：它惩罚
#   偏离均值太远的 logits，所以最优解保持一个有限的间隔，而不是把 target 的 logit 推向无穷
#   （`ce-label-smoothing-optimum`）。
# - **ignore_index** 同时从分子和分母中去掉一个位置：损失是每个真实 token 的平均，与 padding 多少
#   无关。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/cross_entropy` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先
# 准备这几个：
#
# - 交叉熵对 logits 的梯度是什么？（`ce-gradient-softmax-minus-onehot`）
# - 为什么用 log-sum-exp，而不是 `log(softmax(x))`？（`ce-why-log-sum-exp`、`act-log-of-softmax-code`）
# - 标签平滑对最优 logits 有什么影响？（`ce-label-smoothing-optimum`）
# - 两个 batch 的 padding 多少不同，对全部 target 求均值会怎样？（`ce-ignore-index-mean`）
# - 梯度累积 k 个 micro-batch 时，损失要怎么缩放？（`sched-grad-accumulation-scaling`）
#
# ## 计算量与显存
#
# 每个位置：一遍求最大值，一遍求指数和，一次 gather：时间 `O(N * C)`。autograd 会保存平移后的
# logits（或概率），一个与 logits 同样大的张量：词表 128k、8k 个 token 时，float32 下就是 4 GiB。
# 这就是融合或分块的交叉熵 kernel（Liger，以及大模型训练框架里的分块损失）逐块计算损失和梯度、
# 从不保存概率矩阵的原因。
#
# ## 自我检验
#
# 在 `(4, 10)` 且加上 1e4 的 logits 上、在三分之一 target 为 -100 的 `(2, 5, 7)` logits 上，以及
# `label_smoothing=0.1` 时，把你的损失与 `F.cross_entropy` 对比。然后手算梯度
# `(softmax(x) - q) / count`，与 `logits.grad` 对比。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“Softmax”一节把 softmax 介绍为分类网络的输出层，交叉熵读
# 的正是它给出的概率。log-sum-exp、只对需要计入的 target 求均值以及标签平滑，课程文章都没有讲：
# 标签平滑出自 Szegedy 等人 2016 年的论文《Rethinking the Inception Architecture for Computer
# Vision》，它对 logits 的影响见 Müller、Kornblith 和 Hinton 2019 年的论文《When Does Label
# Smoothing Help?》。
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
#    `# addnorm: exercise cross_entropy`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise cross_entropy` 不要删：提交单元格发送的是
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
# addnorm: exercise cross_entropy
import torch
import torch.nn.functional as F  # noqa: F401  (F.one_hot is allowed)


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    # logits: (N, C) or (N, C, d1, ...), the classes on dim 1; target: int64 class indices
    # shaped (N) or (N, d1, ...). Return the mean over the targets that are not ignore_index
    # of (1 - eps) * (-log p_target) + eps * mean_c(-log p_c), a 0-d tensor in logits.dtype.
    # Write the log-sum-exp yourself: logits can be 1e4 or -inf.
    raise NotImplementedError("implement cross_entropy")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `F.cross_entropy(logits, target, ignore_index, label_smoothing)` on logits around 1e4, on an
# (N, C, d) input with ignored targets and smoothing, and with ignore_index = 0.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`F.cross_entropy(logits, target, ignore_index, label_smoothing)`：logits 在 1e4 附近；带被忽略
# target 和标签平滑的 (N, C, d) 输入；以及 ignore_index = 0。
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

    def case(name: str, x: torch.Tensor, t: torch.Tensor, ignore: int, eps: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda logits: fn(logits, t, ignore, eps)

        expected = F.cross_entropy(x, t, ignore_index=ignore, label_smoothing=eps)
        return LocalCase(name=name, x=x, build=build, expected=expected)

    big = torch.randn(4, 10, generator=g) + 1e4  # exp(1e4) overflows unless the max goes first
    big_t = torch.randint(0, 10, (4,), generator=g)
    seq = torch.randn(2, 5, 7, generator=g) * 2  # (N, C, d): the classes on dim 1
    seq_t = torch.randint(0, 5, (2, 7), generator=g)
    seq_t[0, :3] = -100
    rows = torch.randn(6, 4, generator=g)
    rows_t = torch.tensor([0, 1, 2, 0, 3, 1])
    return [
        case("logits around 1e4", big, big_t, -100, 0.0),
        case("(N, C, d), some targets -100, label_smoothing 0.1", seq, seq_t, -100, 0.1),
        case("ignore_index = 0, label_smoothing 1.0", rows, rows_t, 0, 1.0),
    ]


from addnorm_client.local import check

check("cross_entropy", "cross_entropy", local_cases())

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

submit_cell("cross_entropy")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What is the gradient of the mean cross-entropy with respect to the logits? (`ce-gradient-softmax-minus-onehot`, `questions_training`)
# 2. Why log-sum-exp, and what goes wrong with log(softmax(x))? (`ce-why-log-sum-exp`, `questions_training`)
# 3. A loss written as -log(softmax(x))[target] returns inf. Why? (`act-log-of-softmax-code`, `questions_activations`)
# 4. What does label smoothing do to the logits a model converges to? (`ce-label-smoothing-optimum`, `questions_training`)
# 5. Compute a smoothed cross-entropy by hand. (`ce-smoothed-loss-value`, `questions_training`)
# 6. Why must the mean leave the padding positions out of its denominator? (`ce-ignore-index-mean`, `questions_training`)
# 7. With gradient accumulation over k micro-batches, how is the loss scaled? (`sched-grad-accumulation-scaling`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 平均交叉熵对 logits 的梯度是什么？ (`ce-gradient-softmax-minus-onehot`, `questions_training`)
# 2. 为什么要用 log-sum-exp？log(softmax(x)) 会出什么问题？ (`ce-why-log-sum-exp`, `questions_training`)
# 3. 写成 -log(softmax(x))[target] 的损失返回了 inf，为什么？ (`act-log-of-softmax-code`, `questions_activations`)
# 4. 标签平滑会让模型收敛到什么样的 logits？ (`ce-label-smoothing-optimum`, `questions_training`)
# 5. 手算一个带标签平滑的交叉熵。 (`ce-smoothed-loss-value`, `questions_training`)
# 6. 为什么求均值时分母必须排除 padding 位置？ (`ce-ignore-index-mean`, `questions_training`)
# 7. 梯度累积 k 个 micro-batch 时，损失要怎么缩放？ (`sched-grad-accumulation-scaling`, `questions_training`)
#
# </details>
