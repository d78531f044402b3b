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
# # Warm-up then cosine decay to a floor
#
# **topic:** training · **difficulty:** medium
#
# Almost every Transformer is trained with the same learning-rate schedule: a linear warm-up
# from 0, then half a cosine down to a small floor, then the floor. PyTorch's `LambdaLR` runs
# it if you give it the multiplier of the base rate at each step, and that function is what
# interviewers ask you to write on the spot, with its edges: step 0, the last warm-up step, the
# end, and a run that goes past the end.
#
# ## What to write
#
# ```python
# def warmup_cosine_schedule(
#     step: torch.Tensor,
#     warmup_steps: int,
#     total_steps: int,
#     min_ratio: float = 0.0,
# ) -> torch.Tensor: ...
# ```
#
# A **function** returning the **multiplier** of the base learning rate (not the learning rate
# itself), elementwise:
#
# $$f(s) = \frac{s}{W} \qquad (s < W)$$
#
# $$f(s) = m + (1 - m)\,\frac{1 + \cos(\pi p)}{2}, \qquad p = \min\left(\frac{s - W}{T - W},\ 1\right) \qquad (s \ge W)$$
#
# with $W$ = `warmup_steps`, $T$ = `total_steps`, $m$ = `min_ratio`.
#
# - `step` is a float32 or float64 tensor of **any shape, 0-d included**, holding steps `>= 0`,
#   whole or **fractional** (a schedule stepped per sample or per micro-batch). Return a tensor
#   of the same shape and dtype. Compute elementwise with tensor ops (`torch.where`, `clamp`,
#   `torch.cos`): no Python `if` on the step's values.
# - The warm-up is `step / warmup_steps`: **0 at step 0** (Hugging Face's
#   `get_cosine_schedule_with_warmup` convention), reaching 1 exactly at `step == warmup_steps`,
#   where the decay begins at 1, so the curve has no jump.
# - The decay's progress runs from the end of the warm-up: `(step - warmup_steps) /
#   (total_steps - warmup_steps)`, **capped at 1**: at `total_steps` and after it the
#   multiplier stays at `min_ratio` (it must not climb back up).
# - `min_ratio` is in `[0, 1]`; the cosine is scaled into `[min_ratio, 1]`, not clipped at
#   `min_ratio`. `min_ratio = 1.0` gives a constant 1 after the warm-up.
# - `0 <= warmup_steps < total_steps`. **`warmup_steps = 0` means no warm-up**: the multiplier
#   at step 0 is 1, with no division by zero (and no NaN).
# - The grader passes `warmup_steps`, `total_steps` and `min_ratio` positionally in most cases
#   and by keyword in others (so keep these names), and leaves `min_ratio` out in one.
# - Graded on the value and on its **slope**, the gradient with respect to `step`: `1 /
#   warmup_steps` during the warm-up, the cosine's derivative during the decay, 0 past the end.
#   So build it from differentiable tensor ops on `step`. At `step == warmup_steps` exactly the
#   slope has a corner (left `1 / W`, right 0): either side is accepted there. The cases with
#   `warmup_steps = 0` are graded forward only.
#
# To drive an optimiser: `LambdaLR(optimizer, lambda s: float(warmup_cosine_schedule(
# torch.tensor(float(s)), W, T, m)))`, which sets each group's rate to `base_lr * f(s)` at the
# `s`-th call of `scheduler.step()`. Accepting a Python number too (and then returning a
# float) is allowed but not graded: the worked solution does it so that it can be passed to
# `LambdaLR` as it stands.
#
# ## Not allowed
#
# The schedule is the exercise. PyTorch's schedulers are refused, however they are reached:
# `torch.optim.lr_scheduler.LambdaLR`, `MultiplicativeLR`, `LinearLR`, `CosineAnnealingLR`,
# `CosineAnnealingWarmRestarts`, `SequentialLR`, `ChainedScheduler`, `OneCycleLR`,
# `PolynomialLR`. A submission that reaches one is *rejected*. Everything else is fine: `cos`,
# `clamp`, `where`, `minimum`, `maximum`, `floor`, arithmetic, `math.pi`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Fourteen freshly drawn cases per submission, each one call with a random upstream gradient (the
# slope is compared) except where it says forward only: quarter steps around the end of the
# warm-up (float32); one 0-d step per call as `LambdaLR`
# asks for them (0, 1, the last warm-up step, `warmup_steps`, halfway, `total_steps - 1`,
# `total_steps`, one past it, twice it); every integer step from 0 to past the end (float32);
# 400 fractional steps (float64); no warm-up (`warmup_steps = 0`, by keyword, forward only);
# steps from `total_steps` to four times it; the default floor 0.0; `min_ratio = 1.0`; one
# warm-up step; one decay step (`total_steps = warmup_steps + 1`) in quarter steps; a language
# model's run (warm-up 500 to 2000, up to 120,000 steps, shaped `(1, n)`, float32); a shuffled,
# transposed 2-D grid of steps; a forward under `torch.no_grad()` (where an in-place change of
# `step` is looked for); fractional steps inside the warm-up. Values are compared with the
# formula above in float64.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **`(step + 1) / warmup_steps`**: a warm-up one step ahead; it reaches 1 a step early.
# - **`step // warmup_steps`**: floor division is 0 for the whole warm-up.
# - **Rounding the step first**: right on the integers, flat between them (a staircase).
# - **Decaying to 0**: `min_ratio` forgotten.
# - **`max(min_ratio, cosine)`**: the floor clipped instead of the cosine rescaled.
# - **`min_ratio + cosine`**: the floor added without scaling the cosine by `1 - min_ratio`,
#   so the decay starts at `1 + min_ratio`.
# - **`step / total_steps` as the progress**: the cosine already under way when the warm-up
#   ends, a jump at `warmup_steps`.
# - **`(step - warmup_steps) / total_steps`**: the decay too slow, the floor reached late.
# - **No clamp past the end**: the cosine climbs back to 1 by progress 2.
# - **`cos(2 * pi * progress)`**, or **`1 + cos` without the 0.5**: a whole period, or a
#   multiplier that starts at 2.
# - **`warmup_steps = 0`**: `0 / 0` is NaN; a guard of `max(1, warmup_steps)` inside a
#   `minimum` makes a warm-up nobody asked for.
#
# ## Why it works
#
# - **Why warm up.** Adam's step is about `lr` per coordinate whatever the gradient's scale,
#   and its second-moment estimate rests on a handful of gradients at first: a full-size step
#   on that noisy estimate can throw a freshly initialised network off. A short linear ramp
#   (1 to 5% of training) lets the estimates settle first (question
#   `sched-warmup-adam-variance`); Pre-Norm Transformers need it less than Post-Norm ones, but
#   still use it.
# - **Why half a cosine.** $\tfrac12(1 + \cos\pi p)$ goes from 1 to 0 with zero slope at both
#   ends: the rate leaves its peak gently, falls fastest in the middle and lands softly on the
#   floor. Scaling it into $[m, 1]$ keeps that shape (`sched-floor-scaled`); clipping it
#   does not.
# - **Continuity.** At $s = W$ the ramp gives $W/W = 1$ and the decay starts at
#   $m + (1 - m) \cdot 1 = 1$: no jump, only a corner in the slope.
# - **The clamp.** $\cos(\pi p)$ is periodic: without $\min(p, 1)$ a run resumed past its plan
#   warms up a second time (`sched-cosine-clamp-past-end`).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/warmup_cosine_schedule`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - Why does a Transformer trained with Adam need a warm-up? (`sched-warmup-adam-variance`)
# - What happens past `total_steps` without a clamp? (`sched-cosine-clamp-past-end`)
# - Why rescale the cosine to the floor rather than clip it? (`sched-floor-scaled`)
# - With `W = 100`, `T = 1100`, `m = 0.1` and a base rate of 3e-4, what is the rate at step
#   600? (`sched-cosine-rate-at-step`)
# - What does the multiplier 0 at step 0 do to the first update? (`sched-warmup-step-zero`)
#
# ## Cost and memory
#
# A handful of elementwise operations per step: nothing next to a training step. What costs is
# getting it wrong: a schedule that never reaches its floor or warms up again past the end
# shows only as a worse loss curve, hours later.
#
# ## Test yourself
#
# With `W = 10`, `T = 110`, `m = 0.1`: the multiplier is 0 at step 0, 0.9 at step 9, 1 at step
# 10, 0.55 at step 60, 0.1 at steps 110 and 500. Then drive `torch.optim.SGD` with `LambdaLR`
# for 120 steps and check that `optimizer.param_groups[0]["lr"]` equals `base_lr * f(s)` at
# every step, and that `f` at step 60.5 lies between its values at 60 and 61.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "2.3 Pre-Norm & Post-Norm", says
# that Pre-Norm learns slowly at first and so usually needs a learning-rate warm-up. That is
# reversed: Xiong et al. 2020 ("On Layer Normalization in the Transformer Architecture") show
# that Post-Norm's gradients near the output are large at initialisation, which is why it
# cannot train without a warm-up, while Pre-Norm can (and still uses a short one in practice).
# The
# "Transformer residual connections and normalisation explained" article, section "4.2
# 学习率调整策略", sets learning rates from experience. Neither writes the schedule. The
# warm-up goes back to Vaswani et al. 2017 ("Attention Is All You Need"), its link with Adam's
# variance to Liu et al. 2019 (RAdam); the cosine decay is Loshchilov & Hutter 2017 ("SGDR:
# Stochastic Gradient Descent with Warm Restarts"), here without restarts and with a floor.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 线性预热后余弦衰减到下限
#
# 几乎所有 Transformer 都用同一种学习率调度训练：先从 0 线性预热，再沿半个余弦降到一个较小的下限，之后保持在下限。只要给出每一步相对基础学习率的系数，PyTorch 的 `LambdaLR` 就能执行它；面试官常让你当场写的正是这个函数，连同它的边界：第 0 步、预热的最后一步、终点，以及超过终点继续训练的情形。
#
# ## 要写什么
#
# ```python
# def warmup_cosine_schedule(
#     step: torch.Tensor,
#     warmup_steps: int,
#     total_steps: int,
#     min_ratio: float = 0.0,
# ) -> torch.Tensor: ...
# ```
#
# 写一个**函数**，逐元素返回基础学习率的**系数**（不是学习率本身）：
#
# $$f(s) = \frac{s}{W} \qquad (s < W)$$
#
# $$f(s) = m + (1 - m)\,\frac{1 + \cos(\pi p)}{2}, \qquad p = \min\left(\frac{s - W}{T - W},\ 1\right) \qquad (s \ge W)$$
#
# 其中 $W$ = `warmup_steps`，$T$ = `total_steps`，$m$ = `min_ratio`。
#
# - `step` 是 float32 或 float64 张量，**形状任意，也可以是 0 维**，每个值 `>= 0`，可以是整数，也可以是**非整数**（按样本或按 micro-batch 推进的调度）。返回同形状、同 dtype 的张量。请用张量运算逐元素计算（`torch.where`、`clamp`、`torch.cos`），不要对步数的值写 Python 的 `if`。
# - 预热为 `step / warmup_steps`：**第 0 步为 0**（与 Hugging Face 的 `get_cosine_schedule_with_warmup` 约定相同），恰好在 `step == warmup_steps` 时到达 1，衰减也从 1 开始，曲线没有跳变。
# - 衰减的进度从预热结束时算起：`(step - warmup_steps) / (total_steps - warmup_steps)`，并且**截断到 1**：在 `total_steps` 及之后系数保持为 `min_ratio`（不能再升回去）。
# - `min_ratio` 在 `[0, 1]` 内；余弦要缩放到 `[min_ratio, 1]` 区间，而不是在 `min_ratio` 处截断。`min_ratio = 1.0` 时预热之后系数恒为 1。
# - `0 <= warmup_steps < total_steps`。**`warmup_steps = 0` 表示没有预热**：第 0 步的系数为 1，不能出现除以零（也不能出现 NaN）。
# - 评测大多按位置传入 `warmup_steps`、`total_steps` 和 `min_ratio`，也有按关键字传入的用例（所以请保留这些参数名），还有一个用例不传 `min_ratio`。
# - 评测比较函数值及其**斜率**，即对 `step` 的梯度：预热期为 `1 / warmup_steps`，衰减期为余弦的导数，超过终点为 0。所以请用对 `step` 可微的张量运算来写。恰好在 `step == warmup_steps` 处斜率有一个折角（左侧 `1 / W`，右侧 0）：两侧的值都算对。`warmup_steps = 0` 的用例只评测前向。
#
# 用来驱动优化器：`LambdaLR(optimizer, lambda s: float(warmup_cosine_schedule(torch.tensor(float(s)), W, T, m)))`，第 `s` 次调用 `scheduler.step()` 后，每个参数组的学习率被设为 `base_lr * f(s)`。也可以额外接受 Python 数值（此时返回 float），但不评测：参考解答这样做了，于是它可以直接交给 `LambdaLR`。
#
# ## 不允许使用
#
# 调度本身就是本题要写的东西。PyTorch 的调度器无论通过什么途径调用都会被拒绝：`torch.optim.lr_scheduler.LambdaLR`、`MultiplicativeLR`、`LinearLR`、`CosineAnnealingLR`、`CosineAnnealingWarmRestarts`、`SequentialLR`、`ChainedScheduler`、`OneCycleLR`、`PolynomialLR`。用到其中任何一个的提交会被判为 *rejected*。其余都可以用：`cos`、`clamp`、`where`、`minimum`、`maximum`、`floor`、算术运算、`math.pi`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交随机生成 14 个用例，每个用例调用一次并带随机的上游梯度（比较斜率），注明只评测前向的除外：预热结束前后按四分之一步取点（float32）；像 `LambdaLR` 那样每次调用传一个 0 维步数（0、1、预热最后一步、`warmup_steps`、衰减中段、`total_steps - 1`、`total_steps`、再多一步、两倍 `total_steps`）；从 0 到超过终点的每个整数步（float32）；400 个非整数步（float64）；没有预热（`warmup_steps = 0`，按关键字传入，只评测前向）；从 `total_steps` 到它的四倍的各步；默认下限 0.0；`min_ratio = 1.0`；预热只有一步；衰减只有一步（`total_steps = warmup_steps + 1`），按四分之一步取点；一次大模型训练（预热 500 到 2000 步，最多 120,000 步，形状 `(1, n)`，float32）；打乱并转置的二维步数网格；`torch.no_grad()` 下的一次前向（检查是否原地修改了 `step`）；预热期内的非整数步。函数值与上面的公式在 float64 下的结果比较。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **`(step + 1) / warmup_steps`**：预热提前了一步，早一步就到了 1。
# - **`step // warmup_steps`**：整除在整个预热期都是 0。
# - **先把步数取整**：整数点上正确，整数之间是平的（成了阶梯）。
# - **衰减到 0**：忘了 `min_ratio`。
# - **`max(min_ratio, cosine)`**：截断了下限，而不是缩放余弦。
# - **`min_ratio + cosine`**：加上下限却没有把余弦乘以 `1 - min_ratio`，衰减从 `1 + min_ratio` 开始。
# - **进度写成 `step / total_steps`**：预热结束时余弦已经走了一段，在 `warmup_steps` 处跳变。
# - **`(step - warmup_steps) / total_steps`**：衰减太慢，到下限太晚。
# - **超过终点不截断**：进度到 2 时余弦又回到 1。
# - **`cos(2 * pi * progress)`**，或**漏了 0.5 的 `1 + cos`**：走了一整个周期，或系数从 2 开始。
# - **`warmup_steps = 0`**：`0 / 0` 是 NaN；在 `minimum` 里用 `max(1, warmup_steps)` 保护除法，又凭空多出一段预热。
#
# ## 为什么有效
#
# - **为什么要预热。** 无论梯度尺度如何，Adam 每个坐标的步长都约为 `lr`，而它的二阶矩估计一开始只基于寥寥几个梯度：在这样噪声很大的估计上迈满步长，可能把刚初始化的网络推离正轨。一段短短的线性斜坡（训练的 1% 到 5%）让这些估计先稳定下来（题目 `sched-warmup-adam-variance`）；Pre-Norm 的 Transformer 比 Post-Norm 的更不依赖预热，但仍然会用。
# - **为什么是半个余弦。** $\tfrac12(1 + \cos\pi p)$ 从 1 降到 0，两端斜率都为零：学习率平缓地离开峰值，中段下降最快，再平稳地落到下限。把它缩放到 $[m, 1]$ 能保持这个形状（`sched-floor-scaled`），截断则不能。
# - **连续性。** 在 $s = W$ 处，斜坡给出 $W/W = 1$，衰减从 $m + (1 - m) \cdot 1 = 1$ 开始：没有跳变，只是斜率有个折角。
# - **截断。** $\cos(\pi p)$ 是周期函数：没有 $\min(p, 1)$，训练一旦超出计划续跑，就会再预热一次（`sched-cosine-clamp-past-end`）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/warmup_cosine_schedule` 返回的 `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先准备这几个：
#
# - 用 Adam 训练的 Transformer 为什么需要预热？（`sched-warmup-adam-variance`）
# - 没有截断时，超过 `total_steps` 会怎样？（`sched-cosine-clamp-past-end`）
# - 为什么要把余弦缩放到下限，而不是截断？（`sched-floor-scaled`）
# - `W = 100`、`T = 1100`、`m = 0.1`、基础学习率 3e-4 时，第 600 步的学习率是多少？（`sched-cosine-rate-at-step`）
# - 第 0 步系数为 0，对第一次更新意味着什么？（`sched-warmup-step-zero`）
#
# ## 计算量与显存
#
# 每一步只有寥寥几个逐元素运算，与一次训练迭代相比可以忽略。代价在于写错：调度永远到不了下限，或者超过终点后又预热一次，只会在几个小时后表现为更差的损失曲线。
#
# ## 自我检验
#
# 取 `W = 10`、`T = 110`、`m = 0.1`：第 0 步系数为 0，第 9 步为 0.9，第 10 步为 1，第 60 步为 0.55，第 110 步和第 500 步都是 0.1。然后用 `LambdaLR` 驱动 `torch.optim.SGD` 跑 120 步，检查每一步的 `optimizer.param_groups[0]["lr"]` 都等于 `base_lr * f(s)`，并检查 `f` 在第 60.5 步的值介于第 60 步和第 61 步之间。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“2.3 Pre-Norm & Post-Norm”一节认为 Pre-Norm 训练初期学习较慢，因而通常要做学习率预热。这一点说反了：Xiong 等人 2020 年的论文表明，Post-Norm 在初始化时靠近输出的梯度很大，所以离不开预热，而 Pre-Norm 可以不做预热（实践中仍常用一段很短的预热）。《Transformer残差连接与归一化层实现详解》一文的“4.2 学习率调整策略”一节给出了凭经验设定学习率的做法。两篇都没有写出调度本身。预热可以追溯到 Vaswani 等人 2017 年提出 Transformer 的论文，它与 Adam 方差的关系见 Liu 等人 2019 年的 RAdam 论文；余弦衰减出自 Loshchilov 与 Hutter 2017 年的 SGDR 论文，这里去掉了重启，加上了下限。
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
#    `# addnorm: exercise warmup_cosine_schedule`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise warmup_cosine_schedule` 不要删：提交单元格发送的是
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
# addnorm: exercise warmup_cosine_schedule
import math  # noqa: F401  (math.pi and math.cos on Python numbers)

import torch


def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    """The learning-rate multiplier at each element of ``step`` (float32 or float64, any shape,
    0-d included, steps >= 0, fractional allowed), returned in ``step``'s shape and dtype.

    step < warmup_steps: step / warmup_steps. Otherwise, with
    progress = min((step - warmup_steps) / (total_steps - warmup_steps), 1):
    min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress)).
    """
    # Elementwise over the tensor (no Python if on its values): torch.where picks a branch per
    # element. Clamp the progress so the decay stays at the floor past total_steps, and mind
    # warmup_steps = 0 (no warm-up at all: the multiplier at step 0 is 1).
    raise NotImplementedError("implement warmup_cosine_schedule")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: Every step of a short schedule (0 to past the end) against the formula, the warm-up and the
# decay both; fractional steps; no warm-up.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：一个短调度的每一步（从 0 到超过终点）与公式对比，预热与衰减都有；非整数步；没有预热。
#
# </details>

# %%
import math
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def _formula(s: float, w: int, t: int, m: float) -> float:
    if s < w:
        return s / w
    p = min((s - w) / (t - w), 1.0)
    return m + (1 - m) * 0.5 * (1 + math.cos(math.pi * p))


def local_cases() -> list[LocalCase]:
    def case(name: str, x: torch.Tensor, w: int, t: int, m: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda steps: fn(steps, w, t, m)

        values = [_formula(s, w, t, m) for s in x.double().tolist()]
        expected = torch.tensor(values, dtype=torch.float64).to(x.dtype)
        return LocalCase(name=name, x=x, build=build, expected=expected)

    return [
        case("every step 0..130, W = 10, T = 110, m = 0.1", torch.arange(131.0), 10, 110, 0.1),
        case(
            "fractional steps, W = 8, T = 40, m = 0.2",
            torch.linspace(0.0, 45.0, 181, dtype=torch.float64),
            8,
            40,
            0.2,
        ),
        case("no warm-up, W = 0, T = 50, m = 0.05", torch.arange(61.0), 0, 50, 0.05),
    ]


from addnorm_client.local import check

check("warmup_cosine_schedule", "warmup_cosine_schedule", local_cases())

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

submit_cell("warmup_cosine_schedule")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why does a Transformer trained with Adam need a learning-rate warm-up? (`sched-warmup-adam-variance`, `questions_training`)
# 2. Does scaling the loss by 100 make Adam's steps 100 times larger? (`sched-adam-step-scale`, `questions_training`)
# 3. What does an unclamped cosine do when training runs past total_steps? (`sched-cosine-clamp-past-end`, `questions_training`)
# 4. Why rescale the cosine into [min_ratio, 1] rather than clip it at min_ratio? (`sched-floor-scaled`, `questions_training`)
# 5. Compute the learning rate at a step of the decay by hand. (`sched-cosine-rate-at-step`, `questions_training`)
# 6. The multiplier is 0 at step 0. What does the first optimiser step do? (`sched-warmup-step-zero`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 用 Adam 训练的 Transformer 为什么需要学习率预热？ (`sched-warmup-adam-variance`, `questions_training`)
# 2. 把损失乘以 100，Adam 的步长会变成 100 倍吗？ (`sched-adam-step-scale`, `questions_training`)
# 3. 训练超过 total_steps 时，没有截断的余弦会怎样？ (`sched-cosine-clamp-past-end`, `questions_training`)
# 4. 为什么要把余弦缩放到 [min_ratio, 1]，而不是在 min_ratio 处截断？ (`sched-floor-scaled`, `questions_training`)
# 5. 手算衰减段某一步的学习率。 (`sched-cosine-rate-at-step`, `questions_training`)
# 6. 第 0 步的系数为 0，优化器的第一步会做什么？ (`sched-warmup-step-zero`, `questions_training`)
#
# </details>
