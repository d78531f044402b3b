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
# # Lab: Pre-LN vs Post-LN gradients at initialisation
#
# **topic:** norm_placement · **difficulty:** medium
#
# A lab is an exercise whose answer is a **measurement**. Here you reproduce, on a laptop CPU in
# well under a second, the figure behind a question every interview loop on Transformers asks:
# *why does the original Post-LN Transformer need a learning-rate warm-up, and Pre-LN not?*
# Xiong et al. (2020, "On Layer Normalization in the Transformer Architecture") measured the
# gradient norm of each layer's FFN weight at initialisation: in Post-LN it **grows towards the
# output layers**; in Pre-LN it **stays roughly flat** with depth. Their reading, that these large
# top-layer gradients taken at a full learning rate make Post-LN diverge, is a heuristic, and with
# Adam it cannot be the whole story: Adam's step is about the learning rate whatever the
# gradient's scale (exactly `lr * sign(g)` at the first step). Two accounts are better supported:
# Liu et al. 2020 ("Understanding the Difficulty of Training Transformers", Admin) find that
# Post-LN's output depends heavily on its residual branches, so updates of equal size move it much
# further; Liu et al. 2019 ("On the Variance of the Adaptive Learning Rate and Beyond", RAdam) tie
# warm-up to Adam's second-moment estimate, which averages only a few noisy gradients in the first
# steps. Warm-up keeps the first steps small while both settle. The gradient profile you measure
# here is the first half of that story: where the sensitivity sits at initialisation.
#
# ## What to write
#
# ```python
# def pre_post_ln_gradients(
#     x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
# ) -> torch.Tensor: ...
# ```
#
# The starter gives the block, `_Block(dim, pre_ln)`; keep its `__init__` as it is (it fixes the
# order in which the weights are drawn, so the same seed gives the same weights on both sides):
# `norm = nn.LayerNorm(dim)`, `ff1 = nn.Linear(dim, 4 * dim)`, `ff2 = nn.Linear(4 * dim, dim)`,
# then `nn.init.xavier_uniform_` on `ff1.weight` and `ff2.weight`. Its sublayer is
# `f(h) = ff2(relu(ff1(u)))` with `u = (h + h.mean(dim=-2, keepdim=True)) / 2`: each token
# averaged with the sequence mean, which is what attention does at initialisation, when its
# weights are close to uniform. You write:
#
# - **`_Block.forward(h)`**: Pre-LN `h + f(norm(h))`; Post-LN `norm(h + f(h))`.
# - **`pre_post_ln_gradients(x, target, depth, seed)`**: for Pre-LN, then Post-LN:
#   `torch.manual_seed(seed)`; build `depth` blocks in order and move them to `x.dtype`; for
#   Pre-LN also a final `nn.LayerNorm(dim)` applied after the last block (it draws nothing);
#   one forward of `x` through the stack, `loss = ((out - target) ** 2).mean()`, one
#   `loss.backward()`, no optimiser step. Return a `(2, depth)` tensor in `x.dtype`: row 0
#   Pre-LN, row 1 Post-LN; column `i` is `block.ff2.weight.grad.norm()` (the L2 norm of the
#   whole gradient) of block `i + 1`, counted from the input.
#
# `x` and `target` are `(..., seq, dim)`, float32 or float64, with at least two dimensions. The
# grader calls your function with autograd on and seeds torch before the call; it passes `seed`
# so that you seed each stack yourself.
#
# In formulas, for block $l$ with input $h_l$, sublayer $f_l$ and norm $\mathrm{LN}_l$:
#
# $$\text{Pre-LN: } h_{l+1} = h_l + f_l(\mathrm{LN}_l(h_l)),\ \ \text{out} = \mathrm{LN}(h_L);\qquad \text{Post-LN: } h_{l+1} = \mathrm{LN}_l(h_l + f_l(h_l)),\ \ \text{out} = h_L$$
#
# and the answer is $\lVert \partial \mathcal{L} / \partial W^{(2)}_l \rVert_2$ for $l = 1..L$, each placement.
#
# ## Not allowed
#
# Nothing is banned: the experiment is yours to write with `nn` modules, `nn.init`, autograd and
# an optimiser if you want one.
#
# ## What your code may run
#
# There is no allow-list for this lab: like the feed-forward exercise, it composes `nn` modules
# and built-ins. The sandbox still applies (no files, no network, a few seconds of CPU).
#
# ## How it is graded
#
# Ten freshly drawn cases, each one call with a new `seed`: a `(16, 32)` sequence at depths
# 2, 6, 12 and 24 (depth 24 is the figure the page draws); a batch of sequences `(3, 8, 16)` at
# depth 8; a batch of one `(1, 8, 24)`; `dim = 130` in float64; a float64 stack of depth 8; a
# short `(2, 40)` and a long `(64, 16)` sequence. Your `(2, depth)` answer is compared with the
# reference experiment's on the same inputs and seed, value by value: float32 within `2e-4`
# relative (plus `2e-5` of the answer's size), float64 within `1e-9`. A correct experiment
# matches far inside that (the same weights, the same arithmetic up to rounding); every mistake
# below misses it by percents or more, on every seed. After a submission the page draws your
# depth-24 curves beside the reference's.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## What you should see
#
# On this small stack at depth 24, over 40 seeds (measured when the lab was written): Post-LN's
# last six layers average **1.55 times** its first six (the median; from 0.7 to 4.1 times
# depending on the seed), and the ratio is above Pre-LN's on **every** seed. Pre-LN's curve does
# not grow: on this attention-free toy it even falls gently towards the output (median 0.66),
# where the paper's full Transformer is flat. The direction is the finding; a single seed can be
# noisy, which is why the grader compares your numbers with the reference's on the same seed
# rather than asking for a shape.
#
# A top-to-bottom ratio alone cannot tell "largest at the top" from "starved at the bottom": read
# the two curves against each other. Here (depth 24, 40 other seeds, the worked solution) Post-LN's
# first six layers get about what Pre-LN's get (median ratio 0.96) and its last six about twice
# (2.08): Post-LN's gradients are large at the top, not small at the bottom.
#
# ## Pitfalls interviewers look for
#
# - **The two placements swapped** (`variants_swapped`): the norm where the other one puts it.
# - **Pre-LN without its final LayerNorm** (`pre_ln_without_final_norm`).
# - **The wrong tensor**: the weights' norm instead of their gradient's
#   (`weight_norm_not_gradient`), the gradient of the whole block (`whole_block_gradient`), or
#   of the activations (`activation_gradient`).
# - **Not at initialisation**: measured after an optimiser step (`not_at_initialisation`).
# - **Rescaled numbers**: the squared norm (`squared_norm`), or divided by the layer count
#   (`divided_by_depth`).
# - **Seeded once** for both stacks (`seed_not_reset`), or **layers reversed**
#   (`layers_reversed`).
#
# ## Why it works
#
# - **Post-LN.** Every residual add is followed by a LayerNorm, so the identity path from the
#   loss to a layer passes through every norm above it. At initialisation each norm divides by a
#   sum whose size grew with the sublayer's output; the gradient reaching the lower layers is
#   shrunk at each norm it crosses, and the layers next to the output get the largest gradients.
# - **Pre-LN.** The stream `h` is never normalised inside the stack: the loss reaches every layer
#   through an untouched identity path, so no norm above a layer rescales its gradient; the
#   final LayerNorm divides by a stream that grew with depth, which makes all of them smaller as
#   the stack deepens (Xiong et al.: of order `1/sqrt(L)`).
# - **Warm-up.** With SGD the update is the learning rate times the gradient, so the layers with
#   the largest gradients move furthest. With Adam it is not: each coordinate moves by about the
#   learning rate whatever its gradient's scale. What a warm-up buys with Adam is time for its
#   second-moment estimate to stop being noisy (RAdam), while Post-LN's output reacts strongly to
#   equal-size changes in its branches (Admin). Pre-LN, or a rescaled Post-LN such as DeepNorm or
#   Admin, lessens that dependence.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once the curves are on the screen are served with the lab
# (the `follow_ups` field of `GET /exercises/pre_post_ln_gradients`) and listed at the end of its
# notebook. A few to prepare:
#
# - Which placement needs warm-up, and why? (`np-warmup-which`)
# - How do Pre-LN's gradients scale with depth? (`np-gradient-scale-depth`)
# - Why does Pre-LN need a final norm? (`np-final-norm`)
#
# ## Cost and memory
#
# Two stacks of `depth` blocks, one forward and one backward each: at depth 24 and `dim = 32`
# about 10 ms per stack on one CPU core. The measurement reads gradients that training computes
# anyway, so the same per-layer norms can be logged in a real run at no cost.
#
# ## Test yourself
#
# Run the measurement at depths 6, 12 and 24 and plot the ratio of the last layer's norm to the
# first for each placement. Then replace the final LayerNorm of Pre-LN by the identity and watch
# the gradients' scale; and try a Post-LN stack whose residual branch is scaled down (DeepNorm's
# `x * alpha + f(x)`, `alpha > 1`).
#
# ## Background
#
# The article "Transformer残差连接与归一化层实现详解" treats the placement in section
# "2.3 归一化层的位置争议" as a trade-off between stability and final accuracy, with a table of
# results but no mechanism, and in section "1.2 残差连接的作用机制" describes the depth problem as
# gradients fading towards the shallow layers, which the residual path solves. This lab measures
# the reverse for Post-LN: at initialisation its gradients are not starved at the bottom but
# largest at the top, next to the output, because every norm sits on the residual path; that
# is the reason it needs warm-up, and the reason Pre-LN, whose residual path stays clean, does
# not.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 实验：初始化时 Pre-LN 与 Post-LN 的梯度
#
# 实验（lab）是答案为**测量结果**的练习。本题在笔记本电脑的 CPU 上、一秒之内复现一张图，它回答
# 每一轮 Transformer 面试都会问的问题：*为什么最初的 Post-LN Transformer 需要学习率预热，而
# Pre-LN 不需要？* Xiong 等人（2020，“On Layer Normalization in the Transformer Architecture”）
# 测量了初始化时每一层 FFN 权重的梯度范数：Post-LN 的梯度**越靠近输出层越大**；Pre-LN 的梯度随
# 深度**基本持平**。他们的解读是：顶部这些大梯度从第一步就乘以完整的学习率，使 Post-LN 发散。这只是
# 一种启发式的说法，而且对 Adam 来说不可能是全部原因：Adam 每一步的步长大约就是学习率，与梯度的尺度
# 无关（第一步恰好是 `lr * sign(g)`）。有更多证据支持的解释有两个：Liu 等人 2020（“Understanding
# the Difficulty of Training Transformers”，Admin）发现 Post-LN 的输出高度依赖它的残差分支，同样大小
# 的更新会让输出变化大得多；Liu 等人 2019（“On the Variance of the Adaptive Learning Rate and
# Beyond”，RAdam）把预热归因于 Adam 的二阶矩估计在最初几步只平均了少数几个带噪声的梯度。预热让最初
# 几步保持很小，等这两者稳定下来。你在这里测量的梯度分布是这个故事的前一半：初始化时敏感性落在哪里。
#
# ## 要写什么
#
# ```python
# def pre_post_ln_gradients(
#     x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
# ) -> torch.Tensor: ...
# ```
#
# 起始代码给出了块 `_Block(dim, pre_ln)`；它的 `__init__` 保持原样（它固定了权重的抽取顺序，同一
# 个种子在两边才得到同样的权重）：`norm = nn.LayerNorm(dim)`、`ff1 = nn.Linear(dim, 4 * dim)`、
# `ff2 = nn.Linear(4 * dim, dim)`，然后对 `ff1.weight` 和 `ff2.weight` 调用
# `nn.init.xavier_uniform_`。它的子层是 `f(h) = ff2(relu(ff1(u)))`，其中
# `u = (h + h.mean(dim=-2, keepdim=True)) / 2`：每个 token 与序列均值取平均，这正是注意力在初始化
# 时（权重接近均匀）所做的事。你要写：
#
# - **`_Block.forward(h)`**：Pre-LN 为 `h + f(norm(h))`；Post-LN 为 `norm(h + f(h))`。
# - **`pre_post_ln_gradients(x, target, depth, seed)`**：先 Pre-LN，再 Post-LN：
#   `torch.manual_seed(seed)`；按顺序构建 `depth` 个块并转换到 `x.dtype`；Pre-LN 还要在最后一个块
#   之后加一个 `nn.LayerNorm(dim)`（它不抽随机数）；`x` 在堆叠中做一次前向，
#   `loss = ((out - target) ** 2).mean()`，一次 `loss.backward()`，不做优化器更新。返回
#   `x.dtype` 的 `(2, depth)` 张量：第 0 行是 Pre-LN，第 1 行是 Post-LN；第 `i` 列是从输入数起第
#   `i + 1` 个块的 `block.ff2.weight.grad.norm()`（整个梯度的 L2 范数）。
#
# `x` 和 `target` 的形状是 `(..., seq, dim)`，float32 或 float64，至少二维。评测在开启 autograd 的
# 情况下调用你的函数，并在调用前设置 torch 的种子；它传入 `seed`，让你自己为每个堆叠设置种子。
#
# 用公式表示，第 $l$ 个块的输入为 $h_l$、子层为 $f_l$、归一化为 $\mathrm{LN}_l$：
#
# $$\text{Pre-LN: } h_{l+1} = h_l + f_l(\mathrm{LN}_l(h_l)),\ \ \text{out} = \mathrm{LN}(h_L);\qquad \text{Post-LN: } h_{l+1} = \mathrm{LN}_l(h_l + f_l(h_l)),\ \ \text{out} = h_L$$
#
# 答案是两种放置方式下 $l = 1..L$ 的 $\lVert \partial \mathcal{L} / \partial W^{(2)}_l \rVert_2$。
#
# ## 不允许使用
#
# 没有禁用项：实验由你用 `nn` 模块、`nn.init`、autograd 以及（如果需要）优化器来写。
#
# ## 代码可以运行什么
#
# 本实验没有允许清单：与前馈网络练习一样，它由 `nn` 模块和内置函数组合而成。沙箱照常生效（不能读写
# 文件、不能联网、只有几秒 CPU 时间）。
#
# ## 如何评测
#
# 每次提交新抽取十个用例，每个用例一次调用、一个新的 `seed`：`(16, 32)` 的序列，深度 2、6、12 和 24
# （深度 24 就是页面上画的那张图）；`(3, 8, 16)` 的一批序列，深度 8；一批只有一个的 `(1, 8, 24)`；
# float64 下 `dim = 130`；深度 8 的 float64 堆叠；较短的 `(2, 40)` 和较长的 `(64, 16)` 序列。你的
# `(2, depth)` 答案在同样的输入和种子下与参考实验逐值比较：float32 相对误差 `2e-4` 以内（另加答案
# 大小的 `2e-5`），float64 在 `1e-9` 以内。正确的实验远在容差之内（同样的权重，除舍入外同样的运算）；
# 下面每一种错误在每个种子下都差出百分之几甚至更多。提交之后，页面会把你深度 24 的曲线和参考曲线画在
# 一起。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 你应该看到什么
#
# 在这个小堆叠上、深度 24、40 个种子（编写本实验时测得）：Post-LN 最后六层的平均梯度范数是前六层的
# **1.55 倍**（中位数；随种子不同在 0.7 到 4.1 倍之间），并且在**每一个**种子上这个比值都高于 Pre-LN
# 的。Pre-LN 的曲线不会上升：在这个没有注意力的玩具模型上，它甚至朝输出方向缓慢下降（中位数 0.66），
# 而论文中完整的 Transformer 是平的。结论在于方向；单个种子可能有噪声，所以评测是在同一个种子下把你的
# 数值与参考实验的数值比较，而不是要求曲线呈现某种形状。
#
# 只看顶部与底部的比值，分不清“顶部最大”和“底部太小”：要把两条曲线对照着读。在这里（深度 24，另取
# 40 个种子，用参考解法测得），Post-LN 前六层的梯度与 Pre-LN 前六层相当（比值中位数 0.96），后六层
# 约为两倍（2.08）：Post-LN 的梯度是顶部偏大，而不是底部偏小。
#
# ## 面试官会盯的坑
#
# - **两种放置方式弄反**（`variants_swapped`）：LayerNorm 放在了另一种方案的位置。
# - **Pre-LN 缺少最后的 LayerNorm**（`pre_ln_without_final_norm`）。
# - **测错了张量**：测的是权重的范数而不是梯度的（`weight_norm_not_gradient`），整个块的梯度
#   （`whole_block_gradient`），或激活值的梯度（`activation_gradient`）。
# - **不是在初始化时测的**：在优化器更新之后测量（`not_at_initialisation`）。
# - **数值被缩放**：平方范数（`squared_norm`），或除以层数（`divided_by_depth`）。
# - 两个堆叠**只设一次种子**（`seed_not_reset`），或**层的顺序反了**（`layers_reversed`）。
#
# ## 为什么有效
#
# - **Post-LN。** 每次残差相加之后都跟着一个 LayerNorm，所以从损失到某一层的恒等路径要穿过它上面
#   所有的归一化。初始化时每个归一化都除以一个因加上子层输出而变大的和；传到下层的梯度每穿过一个归一化
#   就缩小一次，于是最靠近输出的层得到最大的梯度。
# - **Pre-LN。** 残差流 `h` 在堆叠内部从不归一化：损失经过一条未经处理的恒等路径到达每一层，所以
#   任何一层的梯度都不会被它上面的归一化重新缩放；最后的 LayerNorm 除以一个随深度增长的残差流，使堆叠越深、所有梯度越小
#   （Xiong 等人：量级为 `1/sqrt(L)`）。
# - **预热。** 用 SGD 时更新量是学习率乘以梯度，梯度最大的层走得最远。用 Adam 时并非如此：每个坐标
#   的步长大约就是学习率，与其梯度的尺度无关。对 Adam 来说，预热换来的是时间：让二阶矩估计不再那么
#   嘈杂（RAdam），而 Post-LN 的输出对分支上同样大小的变化反应很强（Admin）。Pre-LN，或者像 DeepNorm、
#   Admin 那样重新缩放的 Post-LN，会减弱这种依赖。
#
# ## 面试官的追问
#
# 曲线出来之后面试官会问的问题随本实验一起提供（`GET /exercises/pre_post_ln_gradients` 的
# `follow_ups` 字段），也列在笔记本的末尾。可以先准备几个：
#
# - 哪种放置方式需要预热？为什么？（`np-warmup-which`）
# - Pre-LN 的梯度如何随深度变化？（`np-gradient-scale-depth`）
# - 为什么 Pre-LN 需要最后的归一化？（`np-final-norm`）
#
# ## 计算量与显存
#
# 两个 `depth` 个块的堆叠，各做一次前向和一次反向：深度 24、`dim = 32` 时在一个 CPU 核上每个堆叠约
# 10 毫秒。测量读取的是训练本来就会算出的梯度，所以在真实训练中记录同样的逐层范数没有任何开销。
#
# ## 自我检验
#
# 在深度 6、12 和 24 下运行测量，为每种放置方式画出最后一层与第一层范数之比。然后把 Pre-LN 最后的
# LayerNorm 换成恒等映射，观察梯度的尺度；再试一个残差分支被缩小的 Post-LN 堆叠（DeepNorm 的
# `x * alpha + f(x)`，`alpha > 1`）。
#
# ## 背景
#
# 文章《Transformer残差连接与归一化层实现详解》在"2.3 归一化层的位置争议"一节中把放置位置当作稳定性
# 与最终准确率之间的取舍，给了一张结果表，却没有讲机制；在"1.2 残差连接的作用机制"一节中把深度带来的
# 问题描述为梯度在浅层逐渐消失、由残差路径来解决。本实验对 Post-LN 测到的恰恰相反：初始化时它的梯度
# 并不是在底部不够，而是在顶部、靠近输出处最大，因为每个归一化都位于残差路径上；这正是它需要预热的
# 原因，也是残差路径保持干净的 Pre-LN 不需要预热的原因。
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
#    `# addnorm: exercise pre_post_ln_gradients`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise pre_post_ln_gradients` 不要删：提交单元格发送的是
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
# addnorm: exercise pre_post_ln_gradients
import torch
import torch.nn.functional as F
from torch import nn


class _Block(nn.Module):
    # The contract's block: keep __init__ as it is (the same seed must give the same weights).
    def __init__(self, dim: int, pre_ln: bool) -> None:
        super().__init__()
        self.pre_ln = pre_ln
        self.norm = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)
        nn.init.xavier_uniform_(self.ff1.weight)
        nn.init.xavier_uniform_(self.ff2.weight)

    def sublayer(self, h: torch.Tensor) -> torch.Tensor:
        # Each token averaged with the sequence mean, then the FFN.
        mixed = (h + h.mean(dim=-2, keepdim=True)) / 2
        out: torch.Tensor = self.ff2(F.relu(self.ff1(mixed)))
        return out

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        # Pre-LN (self.pre_ln) or Post-LN: where does self.norm go?
        raise NotImplementedError("implement _Block.forward")


def pre_post_ln_gradients(
    x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
) -> torch.Tensor:
    # For Pre-LN, then Post-LN: torch.manual_seed(seed), build `depth` blocks in x's dtype
    # (and Pre-LN's final nn.LayerNorm), one forward, loss = ((out - target) ** 2).mean(), one
    # backward. Return (2, depth): the gradient norm of each block's ff2.weight, row 0 Pre-LN.
    raise NotImplementedError("implement pre_post_ln_gradients")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The lab at depths 2, 6 and 24 on seed 1234, against the reference experiment's numbers
# (computed once and written here, so the check does not give the experiment away).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：本实验在种子 1234、深度 2、6 和 24 时的测量结果，与参考实验的数值对比（数值预先算好写在这里，
# 以免泄露实验代码）。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SEED = 1234
# pre_post_ln_gradients(x, target, depth, SEED) of the reference, to 6 significant digits.
EXPECTED = {
    2: [[0.295486, 0.251752], [0.287293, 0.247032]],
    6: [
        [0.326574, 0.263732, 0.313575, 0.291341, 0.300067, 0.245334],
        [0.303111, 0.256669, 0.322503, 0.309296, 0.344208, 0.291943],
    ],
    24: [
        [
            0.269995,
            0.236333,
            0.263068,
            0.238366,
            0.272707,
            0.24995,
            0.270002,
            0.273794,
            0.289088,
            0.273838,
            0.283005,
            0.278012,
            0.232176,
            0.266229,
            0.257977,
            0.243927,
            0.241487,
            0.194243,
            0.213823,
            0.20527,
            0.22392,
            0.179924,
            0.204665,
            0.176865,
        ],
        [
            0.233408,
            0.214549,
            0.275884,
            0.292238,
            0.371026,
            0.327831,
            0.365645,
            0.384884,
            0.373259,
            0.419437,
            0.364317,
            0.474003,
            0.45206,
            0.517595,
            0.485615,
            0.486509,
            0.350473,
            0.261639,
            0.397481,
            0.345766,
            0.343676,
            0.32068,
            0.326485,
            0.401113,
        ],
    ],
}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    x, target = torch.randn(16, 32, generator=g), torch.randn(16, 32, generator=g)

    def case(depth: int) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, target, depth, SEED)

        return LocalCase(
            name=f"depth {depth}, seed {SEED}: (2, {depth}) gradient norms",
            x=x,
            build=build,
            expected=torch.tensor(EXPECTED[depth]),
            measurement=True,
            # The deepest case is the figure the notebook draws (plot_lab).
            series=("Pre-LN", "Post-LN") if depth == 24 else (),
        )

    return [case(2), case(6), case(24)]


from addnorm_client.local import check

check("pre_post_ln_gradients", "pre_post_ln_gradients", local_cases())

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

plot_lab("pre_post_ln_gradients", "pre_post_ln_gradients", local_cases());

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

submit_cell("pre_post_ln_gradients")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Which of the two placements needs a learning-rate warm-up, and what in your curves says why? (`np-warmup-which`, `questions_norm_placement`)
# 2. How does the size of Pre-LN's gradients change as you make the stack deeper? (`np-gradient-scale-depth`, `questions_norm_placement`)
# 3. Why does a Pre-LN stack need a LayerNorm after its last block? (`np-final-norm`, `questions_norm_placement`)
# 4. Which placement keeps an identity path from the loss to the first layer? (`np-identity-path`, `questions_norm_placement`)
# 5. How does DeepNorm make Post-LN trainable at large depth? (`np-deepnorm`, `questions_norm_placement`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 两种放置方式中哪一种需要学习率预热？你的曲线里哪一点说明了原因？ (`np-warmup-which`, `questions_norm_placement`)
# 2. 堆叠加深时，Pre-LN 的梯度大小如何变化？ (`np-gradient-scale-depth`, `questions_norm_placement`)
# 3. 为什么 Pre-LN 堆叠在最后一个块之后还需要一个 LayerNorm？ (`np-final-norm`, `questions_norm_placement`)
# 4. 哪种放置方式保留了从损失到第一层的恒等路径？ (`np-identity-path`, `questions_norm_placement`)
# 5. DeepNorm 如何让 Post-LN 在很深时也能训练？ (`np-deepnorm`, `questions_norm_placement`)
#
# </details>
