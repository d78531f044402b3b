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
# # Lab: a training monitor with alarms
#
# **topic:** training · **difficulty:** medium
#
# A lab is an exercise whose answer is a **measurement**. Here you build the monitor that the
# article "Transformer残差连接与归一化层实现详解" recommends in section "4.3 监控指标建议", beyond
# loss and accuracy: a **gradient-to-weight ratio** per layer and the **standard deviation of each
# layer's activations**, watched over the first steps of training, with **alarms** when they leave
# their range. You run it on the CPU, in well under a second, on a small ReLU network in three
# situations: a healthy run where nothing fires, a learning rate that is too high, and an
# initialisation that is too large or too small.
#
# ## What the article says, and what this lab measures instead
#
# The article lists three numbers with healthy ranges, without a definition precise enough to
# compute them or a setup they were measured on:
#
# - a "gradient norm ratio" between the residual branch and the main branch, healthy within
#   0.5 to 2.0. It has two readings. Taken as the gradients the two branches *receive* at a
#   residual add $y = h + f(h)$, it is **always 1**: both receive the same
#   $\partial \mathcal{L} / \partial y$. Taken as the gradient each path *passes back* to $h$, the
#   branch's $J_f^\top \, \partial \mathcal{L} / \partial y$ against the skip path's
#   $\partial \mathcal{L} / \partial y$, it is informative: it says how much the sublayer shapes
#   the gradient that reaches the layers below (near 0, the block is almost an identity; far
#   above 1, the branch dominates). The article defines neither. This lab measures the size of
#   the step the optimiser takes relative to the weight, the article's third number;
# - the standard deviation of each layer's output, which "should stay within 0.8 to 1.2";
# - the ratio of a parameter's update to its value, best "from 1e-3 to 1e-5".
#
# This lab puts the third one, made precise as the **update-to-weight ratio** of each layer, in
# place of the first, and keeps the second:
#
# $$r_{l,t} = \frac{\eta \, \lVert \nabla_{W_l} \mathcal{L}_t \rVert_F}{\lVert W_l^{(t)} \rVert_F}, \qquad s_{l,t} = \mathrm{std}(z_{l,t})$$
#
# where $\eta$ is the learning rate, $W_l^{(t)}$ the weight of layer $l$ **before** step $t$'s
# update, $\lVert \cdot \rVert_F$ the Frobenius norm (the L2 norm of all entries), and $z_{l,t}$ the
# output of layer $l$ in step $t$'s forward. For plain SGD, $r_{l,t}$ is exactly
# $\lVert \Delta W_l \rVert / \lVert W_l \rVert$, the size of the coming step relative to the weight.
#
# The article's ranges are where a healthy run sits, not where an alarm belongs, and on this
# network they are too narrow: over 40 seeds of the healthy case below, some layer's std leaves
# 0.8 to 1.2 on 25 seeds and some ratio passes 1e-3 on 38, while the run trains normally. The
# alarms here fire an order of magnitude outside the ratio's range and a factor of two outside
# the std's:
#
# $$a_{l,t} = \big[\, r_{l,t} > 10^{-2} \ \lor\ s_{l,t} < 0.5 \ \lor\ s_{l,t} > 2 \,\big]$$
#
# ## What to write
#
# ```python
# def training_monitor(
#     x: torch.Tensor,
#     target: torch.Tensor,
#     depth: int,
#     steps: int,
#     lr: float,
#     gain: float,
#     seed: int,
# ) -> torch.Tensor: ...
# ```
#
# The starter builds the model; keep it as it is (it fixes the order in which the weights are
# drawn, so the same seed gives the same weights on both sides): `torch.manual_seed(seed)`, then
# `depth` layers `nn.Linear(dim, dim)` created in order, each weight redrawn with
# `nn.init.normal_` at std `gain * sqrt(1 / dim)` for the first layer and `gain * sqrt(2 / dim)`
# for the others (He's scale for a ReLU's input: with `gain = 1` each layer's output keeps a std
# near 1), biases zeroed, moved to `x.dtype`; and the optimiser `torch.optim.SGD(parameters, lr)`
# without momentum. You write the training loop and the monitor. For each step `t = 0 ..
# steps - 1`:
#
# 1. forward: $z_1 = L_1(x)$, $z_l = L_l(\mathrm{relu}(z_{l-1}))$, the output is $z_{\text{depth}}$;
#    record $s_{l,t}$ = `z_l.std()` over all its elements (torch's default correction);
# 2. `loss = ((out - target) ** 2).mean()`, `optimiser.zero_grad()`, `loss.backward()`;
# 3. record $r_{l,t}$ = `lr * ||layer.weight.grad|| / ||layer.weight||`, before the update;
# 4. `optimiser.step()`.
#
# Return a `(3, depth, steps)` tensor in `x.dtype`: plane 0 the ratios $r$, plane 1 the stds $s$,
# plane 2 the alarms $a$ as `1.0` (fires) or `0.0`; row `l` the layer `l + 1` from the input,
# column `t` the step `t` from initialisation. The thresholds are the starter's `RATIO_ALARM`,
# `STD_LOW` and `STD_HIGH`, compared strictly.
#
# `x` and `target` are `(..., dim)` with two or three dimensions, float32 or float64. The grader
# calls your function with autograd on and seeds torch before the call; it passes `seed` so that
# you seed the model yourself. Forward hooks (`register_forward_hook`) or your own loop over the
# layers are both fine; if you use hooks, make sure each forward records exactly one std per layer.
#
# ## Not allowed
#
# Nothing is banned: the experiment is yours to write with `nn` modules, `nn.init`, hooks,
# autograd and the optimiser.
#
# ## What your code may run
#
# There is no allow-list for this lab: like the feed-forward exercise, it composes `nn` modules
# and built-ins. The sandbox still applies (no files, no network, a few seconds of CPU).
#
# ## How it is graded
#
# Eleven freshly drawn cases, each one call with a new `seed`, on inputs and targets drawn from
# N(0,1): a `(64, 32)` batch through 4 layers for 6 steps at learning rate 0.01 and gain 1 (the
# healthy run, no alarm on any seed); the same at learning rate 0.5 (the figure the page draws:
# every layer's ratio crosses the alarm at step 0 on every seed); 2 layers of width 16 at
# learning rate 3, where a step is a third of the weight; 4 steps at gain 1.6 (the std
# alarm from layer 2 on) and at gain 0.6 (the std falls below 0.5 from layer 2 on); a batch of
# sequences `(4, 16, 24)` through 3 layers; a float64 run `(48, 40)`; a single layer; a batch of one `(1, 8, 24)`; `dim = 130` in
# float64; and an 8-layer network at learning rate 0.01, where the ratio alarm fires on some seeds
# and not on others. Your
# answer is compared with the reference experiment's on the same inputs and seed, value by
# value: float32 within `2e-4` relative (plus `2e-5` of the answer's size), float64 within
# `1e-9`. A correct monitor matches far inside that: another correct spelling of the norms moves
# the numbers by at most `3.5e-7` relative, and over 40 seeds no value comes within 0.008% of a
# threshold, so the alarm plane is the same bit for bit. After a submission the page draws your
# ratios beside the reference's, one curve per layer, for the learning rate that is too high.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## What you should see
#
# At learning rate 0.5 the first step's ratios are near 0.07 (the median over 40 seeds), seven
# times the alarm; they fall below it within a few steps as the loss drops, and at the sixth step
# the ratio alarm fires on at most one layer. The std alarm does not settle as fast: at the sixth
# step it still fires on one to three layers, depending on the seed. At gain 1.6 each layer's std is about 1.6 times the one before
# (in expectation 1.6, 2.6, 4.1, 6.6), so the std alarm fires from layer 2 on, and the large activations give
# large gradients too: the ratio alarm fires on the first layer as well. At gain 0.6 the stds
# shrink by the same factor and the gradients with them: ratios near 1e-4, a run that barely
# learns.
#
# ## Pitfalls interviewers look for
#
# - **The ratio wrong**: upside down (`ratio_inverted`), or of squared norms (`squared_norm`).
# - **The weight's norm after `optimiser.step()`** (`measured_after_step`).
# - **The wrong std**: of the weights (`weight_std`), or per feature and averaged
#   (`std_per_feature`).
# - **Hooks registered every step and never removed** (`hooks_accumulate`): they pile up, and
#   from step 1 on your list holds more than one std per layer.
# - **The alarm on the gradient ratio without the learning rate** (`alarm_without_lr`).
# - **The first step not measured** (`first_step_skipped`).
#
# ## Why it works
#
# - **The ratio.** SGD moves a weight by $\eta \nabla W$. A step is too large when it is large
#   compared with the weight itself, whatever the layer's scale: the ratio is scale-free, which is
#   why one threshold serves every layer. LARS and LAMB use the same per-layer ratio to set each
#   layer's step.
# - **The std.** He's initialisation keeps $\mathrm{Var}(z_l)$ constant through ReLU layers; a
#   gain above or below 1 multiplies it by $\text{gain}^2$ per layer, so the std grows or shrinks
#   geometrically with depth. Watching each layer's std finds the layer where it starts.
# - **The order.** The activations and the gradient belong to the same step, and the ratio to the
#   weight the step starts from: that is the quantity the optimiser is about to apply.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once the curves are on the screen are served with the lab
# (the `follow_ups` field of `GET /exercises/training_monitor`) and listed at the end of its
# notebook. A few to prepare:
#
# - What does an update-to-weight ratio far above 1e-3 tell you? (`tr-update-ratio-article`)
# - Where do monitoring thresholds come from? (`tr-monitoring-thresholds`)
# - Which initialisation keeps the std near 1 in a ReLU network? (`tr-kaiming-std`)
#
# ## Cost and memory
#
# Six steps of a 4-layer, width-32 network on 64 rows: a few milliseconds on one CPU core. The
# monitor reads what training computes anyway (one norm of each gradient and weight, one std of
# each layer's output per step), so a real run can log it at every step.
#
# ## Test yourself
#
# Sweep the learning rate from 0.01 to 1 and plot the first step's largest ratio against it; find
# the learning rate at which the loss stops falling and compare it with where the alarm fires.
# Then add a residual connection, $h_{l+1} = h_l + \mathrm{relu}(L_l(h_l))$, and watch the stds
# grow with depth although nothing is wrong: the article's 0.8 to 1.2 does not hold for a
# residual stream.
#
# ## Background
#
# The article's section "4.3 监控指标建议" gives the three numbers and their ranges in a few lines,
# and its section "4.1 典型问题排查表" lists symptoms such as an oscillating loss or NaN outputs.
# Neither gives a definition or a measurement. This lab measures what the numbers do on a
# network whose fault is known, and shows that the alarms have to sit outside the healthy ranges
# the article gives.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 实验：带报警的训练监控
#
# 实验（lab）是答案为**测量结果**的练习。本题要搭建《Transformer残差连接与归一化层实现详解》在
# “4.3 监控指标建议”一节中推荐的、损失和准确率之外的监控：每层的**梯度与权重之比**，以及**每层
# 激活值的标准差**，在训练的最初几步里观察它们，并在它们离开正常范围时**报警**。你在 CPU 上、一秒
# 之内，在一个小型 ReLU 网络上把它跑三种情况：什么都不报警的健康训练、学习率过高、初始化过大或过小。
#
# ## 文章怎么说，本实验改为测什么
#
# 文章列出三个数及其健康范围，但既没有精确到可以计算的定义，也没有说明是在什么设置下测得的：
#
# - 残差分支与主分支之间的“梯度范数比”，健康范围 0.5 到 2.0。它有两种理解。如果指残差相加
#   $y = h + f(h)$ 处两个分支**收到**的梯度，它**恒等于 1**：两者收到的是同一个
#   $\partial \mathcal{L} / \partial y$。如果指两条路径各自**传回** $h$ 的梯度，即分支的
#   $J_f^\top \, \partial \mathcal{L} / \partial y$ 与跳连路径的 $\partial \mathcal{L} / \partial y$
#   之比，它就有信息量：它说明子层在多大程度上塑造了传到下面各层的梯度（接近 0 时这个块几乎是
#   恒等映射；远大于 1 时分支占主导）。文章对两者都没有定义。本实验测的是优化器这一步相对权重本身
#   迈得多大，也就是文章的第三个数；
# - 每层输出的标准差，“应保持在 0.8 到 1.2”；
# - 参数更新量与参数值之比，“1e-3 到 1e-5 为佳”。
#
# 本实验用精确化后的第三个数，即每层的**更新量与权重之比**，代替第一个数，第二个数保持不变：
#
# $$r_{l,t} = \frac{\eta \, \lVert \nabla_{W_l} \mathcal{L}_t \rVert_F}{\lVert W_l^{(t)} \rVert_F}, \qquad s_{l,t} = \mathrm{std}(z_{l,t})$$
#
# 其中 $\eta$ 是学习率，$W_l^{(t)}$ 是第 $l$ 层在第 $t$ 步更新**之前**的权重，$\lVert \cdot \rVert_F$
# 是 Frobenius 范数（全部元素的 L2 范数），$z_{l,t}$ 是第 $t$ 步前向中第 $l$ 层的输出。对普通 SGD 而言，
# $r_{l,t}$ 恰好等于 $\lVert \Delta W_l \rVert / \lVert W_l \rVert$，即即将进行的这一步相对权重的大小。
#
# 文章给出的范围是健康训练所处的位置，而不是报警线该设的位置；在这个网络上它们还太窄：在下面的健康
# 用例上跑 40 个种子，有 25 个种子出现某层标准差离开 0.8 到 1.2，有 38 个种子出现某个比值超过 1e-3，
# 而训练本身一切正常。这里的报警设在比值范围之外一个数量级、标准差范围之外两倍处：
#
# $$a_{l,t} = \big[\, r_{l,t} > 10^{-2} \ \lor\ s_{l,t} < 0.5 \ \lor\ s_{l,t} > 2 \,\big]$$
#
# ## 要写什么
#
# ```python
# def training_monitor(
#     x: torch.Tensor,
#     target: torch.Tensor,
#     depth: int,
#     steps: int,
#     lr: float,
#     gain: float,
#     seed: int,
# ) -> torch.Tensor: ...
# ```
#
# 起始代码构建好了模型，请保持原样（它固定了权重的抽取顺序，同一个种子在两边才得到同样的权重）：
# `torch.manual_seed(seed)`，然后按顺序创建 `depth` 个 `nn.Linear(dim, dim)`，每个权重用
# `nn.init.normal_` 重新抽取，第一层的标准差为 `gain * sqrt(1 / dim)`，其余各层为
# `gain * sqrt(2 / dim)`（He 初始化对 ReLU 输入的尺度：`gain = 1` 时每层输出的标准差保持在 1
# 附近），偏置置零，转换到 `x.dtype`；优化器为不带动量的 `torch.optim.SGD(parameters, lr)`。你来写
# 训练循环和监控。对每一步 `t = 0 .. steps - 1`：
#
# 1. 前向：$z_1 = L_1(x)$，$z_l = L_l(\mathrm{relu}(z_{l-1}))$，输出为 $z_{\text{depth}}$；记录
#    $s_{l,t}$ = `z_l.std()`，对全部元素计算（torch 的默认修正）；
# 2. `loss = ((out - target) ** 2).mean()`，`optimiser.zero_grad()`，`loss.backward()`；
# 3. 在更新之前记录 $r_{l,t}$ = `lr * ||layer.weight.grad|| / ||layer.weight||`；
# 4. `optimiser.step()`。
#
# 返回 `x.dtype` 的 `(3, depth, steps)` 张量：第 0 面是比值 $r$，第 1 面是标准差 $s$，第 2 面是报警
# $a$，触发为 `1.0`，否则为 `0.0`；第 `l` 行是从输入数起的第 `l + 1` 层，第 `t` 列是从初始化起的第
# `t` 步。阈值就是起始代码里的 `RATIO_ALARM`、`STD_LOW` 和 `STD_HIGH`，用严格不等号比较。
#
# `x` 和 `target` 的形状是 `(..., dim)`，二维或三维，float32 或 float64。评测在开启 autograd 的情况
# 下调用你的函数，并在调用前设置 torch 的种子；它传入 `seed`，让你自己为模型设置种子。用前向钩子
# （`register_forward_hook`）或者自己逐层循环都可以；如果用钩子，要保证每次前向每层恰好记录一个
# 标准差。
#
# ## 不允许使用
#
# 没有禁用项：实验由你用 `nn` 模块、`nn.init`、钩子、autograd 和优化器来写。
#
# ## 代码可以运行什么
#
# 本实验没有允许清单：与前馈网络练习一样，它由 `nn` 模块和内置函数组合而成。沙箱照常生效（不能读写
# 文件、不能联网、只有几秒 CPU 时间）。
#
# ## 如何评测
#
# 每次提交新抽取十一个用例，每个用例一次调用、一个新的 `seed`，输入和目标都取自 N(0,1)：`(64, 32)`
# 的一批数据经过 4 层、训练 6 步，学习率 0.01，增益 1（健康训练，任何种子下都不报警）；同样设置但
# 学习率为 0.5（页面上画的那张图：在每个种子下，每一层的比值在第 0 步都越过报警线）；宽度 16 的 2 层网络，学习率 3，一步就有权重的三分之一大；增益 1.6 训练
# 4 步（从第 2 层起触发标准差报警），以及增益 0.6（从第 2 层起标准差低于 0.5）；`(4, 16, 24)` 的一批
# 序列经过 3 层；float64 的 `(48, 40)`；只有一层的网络；一批只有一个的 `(1, 8, 24)`；float64 下 `dim = 130`；以及学习率
# 0.01 的 8 层网络，它的比值报警在有些种子下触发、有些种子下不触发。你的答案在同样的输入和种子下与参考实验
# 逐值比较：float32 相对误差 `2e-4` 以内（另加答案大小的 `2e-5`），float64 在 `1e-9` 以内。正确的
# 监控远在容差之内：范数的另一种正确写法让数值最多相差 `3.5e-7`（相对误差），而在 40 个种子下没有
# 任何数值离阈值近于 0.008%，所以报警面逐位相同。提交之后，页面会把学习率过高时你的比值和参考比值画在
# 一起，每层一条曲线。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 你应该看到什么
#
# 学习率为 0.5 时，第一步的比值在 0.07 左右（40 个种子的中位数），是报警线的七倍；随着损失下降，
# 几步之内就回落到报警线以下，到第六步比值报警最多还在一层上触发。标准差报警平息得没那么快：到第六步，
# 随种子不同仍有一到三层在报警。增益为 1.6 时，每层的标准差约为前一层的
# 1.6 倍（期望值依次为 1.6、2.6、4.1、6.6），所以从第 2 层起触发标准差报警；过大的激活值也带来过大的
# 梯度：第一层同样触发比值报警。增益为 0.6 时，标准差按同样的倍数缩小，梯度也随之变小：比值在 1e-4
# 附近，训练几乎学不动。
#
# ## 面试官会盯的坑
#
# - **比值算错**：分子分母颠倒（`ratio_inverted`），或用了平方范数（`squared_norm`）。
# - **权重的范数取在 `optimiser.step()` 之后**（`measured_after_step`）。
# - **标准差取错**：取了权重的（`weight_std`），或按特征求标准差再平均（`std_per_feature`）。
# - **每步都注册钩子且从不移除**（`hooks_accumulate`）：钩子越积越多，从第 1 步起你的列表里每层不止
#   一个标准差。
# - **报警比较的是不含学习率的梯度比值**（`alarm_without_lr`）。
# - **没有测量第一步**（`first_step_skipped`）。
#
# ## 为什么有效
#
# - **比值。** SGD 把权重移动 $\eta \nabla W$。一步是否太大，要看它与权重本身相比有多大，与该层的
#   尺度无关：比值没有量纲，所以一个阈值适用于每一层。LARS 和 LAMB 正是用同样的逐层比值来决定每层
#   的步长。
# - **标准差。** He 初始化让 $\mathrm{Var}(z_l)$ 在 ReLU 层之间保持不变；增益大于或小于 1 时，每过一层
#   方差就乘以 $\text{gain}^2$，标准差随深度按几何级数增长或缩小。观察每层的标准差，就能找到问题从
#   哪一层开始。
# - **顺序。** 激活值和梯度属于同一步，比值则对应这一步出发时的权重：那正是优化器即将施加的量。
#
# ## 面试官的追问
#
# 曲线出来之后面试官会问的问题随本实验一起提供（`GET /exercises/training_monitor` 的 `follow_ups`
# 字段），也列在笔记本的末尾。可以先准备这几个：
#
# - 更新量与权重之比远高于 1e-3 说明了什么？（`tr-update-ratio-article`）
# - 监控阈值从哪里来？（`tr-monitoring-thresholds`）
# - 在 ReLU 网络中，哪种初始化能让标准差保持在 1 附近？（`tr-kaiming-std`）
#
# ## 计算量与显存
#
# 一个 4 层、宽度 32 的网络在 64 行数据上训练六步：在一个 CPU 核上只需几毫秒。监控读取的是训练本来
# 就会算出的东西（每步每个梯度和权重各一个范数，每层输出一个标准差），所以真实训练可以每一步都记录。
#
# ## 自我检验
#
# 把学习率从 0.01 扫到 1，画出第一步最大比值随学习率的变化；找出损失不再下降时的学习率，与报警触发
# 的位置比较。再加上残差连接 $h_{l+1} = h_l + \mathrm{relu}(L_l(h_l))$，看着标准差随深度增长，尽管
# 一切正常：文章的 0.8 到 1.2 对残差流并不成立。
#
# ## 背景
#
# 文章在“4.3 监控指标建议”一节里用寥寥几行给出了三个数及其范围，在“4.1 典型问题排查表”一节列出了
# 损失震荡、输出 NaN 之类的症状。两处都没有给出定义或测量。本实验在一个故障已知的网络上测量这些数
# 的表现，并说明报警线必须设在文章给出的健康范围之外。
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
#    `# addnorm: exercise training_monitor`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise training_monitor` 不要删：提交单元格发送的是
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
# addnorm: exercise training_monitor
import math

import torch
from torch import nn

RATIO_ALARM = 1e-2  # an alarm when lr * ||grad W|| / ||W|| is above this
STD_LOW, STD_HIGH = 0.5, 2.0  # an alarm when a layer's output std is outside this band


def training_monitor(
    x: torch.Tensor,
    target: torch.Tensor,
    depth: int,
    steps: int,
    lr: float,
    gain: float,
    seed: int,
) -> torch.Tensor:
    dim = x.shape[-1]
    # The contract's model: keep this as it is (the same seed must give the same weights).
    torch.manual_seed(seed)
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    layers = [layer.to(x.dtype) for layer in layers]
    optimiser = torch.optim.SGD([p for layer in layers for p in layer.parameters()], lr=lr)
    for _ in range(steps):
        # Forward (z_1 = layers[0](x), z_l = layers[l](relu(z_{l-1}))), record each z_l's std;
        # loss = ((z_depth - target) ** 2).mean(), backward, each layer's ratio, then:
        optimiser.step()
    # Return (3, depth, steps): the update-to-weight ratios, the stds of each z_l, the alarms.
    raise NotImplementedError("implement training_monitor")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The monitor at learning rates 0.01 and 0.5 and at an initialisation gain of 1.6, on seed
# 1234, against the reference experiment's numbers (computed once and written here, so the check
# does not give the experiment away).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：训练监控在种子 1234、学习率 0.01 和 0.5 以及初始化增益 1.6 时的测量结果，与参考实验的数值对比
# （数值预先算好写在这里，以免泄露实验代码）。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase

SEED = 1234
DEPTH, STEPS = 4, 6
# training_monitor(x, target, DEPTH, STEPS, lr, gain, SEED) of the reference by (lr, gain),
# to 6 significant digits: (3, DEPTH, STEPS), the ratios, the stds and the alarms.
EXPECTED = {
    (0.01, 1.0): [
        [
            [0.00130672, 0.00124987, 0.00121088, 0.00116645, 0.00112511, 0.00108744],
            [0.00132948, 0.00126099, 0.0011992, 0.00115634, 0.00111101, 0.00106193],
            [0.00129434, 0.00123524, 0.00118098, 0.00113661, 0.00109275, 0.00105214],
            [0.00103521, 0.000988167, 0.000945447, 0.000906178, 0.000869884, 0.000836414],
        ],
        [
            [0.991051, 0.990334, 0.989652, 0.989001, 0.988375, 0.987777],
            [0.997687, 0.994402, 0.991305, 0.988359, 0.98555, 0.982875],
            [0.867847, 0.858027, 0.848853, 0.84019, 0.83195, 0.824164],
            [0.844117, 0.823879, 0.805059, 0.787457, 0.770874, 0.755286],
        ],
        [
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ],
    ],
    (0.01, 1.6): [
        [
            [0.0199204, 0.0108964, 0.00820816, 0.00668223, 0.00572334, 0.00498527],
            [0.0208352, 0.0100653, 0.00709955, 0.00551404, 0.00456677, 0.00392972],
            [0.0201146, 0.00998, 0.00705079, 0.0054985, 0.00456434, 0.00391118],
            [0.0157474, 0.00750982, 0.00521159, 0.00401556, 0.00327993, 0.00277486],
        ],
        [
            [1.58568, 1.56758, 1.55843, 1.55191, 1.54674, 1.54252],
            [2.55408, 2.43366, 2.38055, 2.34513, 2.3188, 2.29784],
            [3.5547, 3.01601, 2.79327, 2.64936, 2.54407, 2.4616],
            [5.53201, 3.89957, 3.28453, 2.90875, 2.64565, 2.44574],
        ],
        [
            [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ],
    ],
    (0.5, 1.0): [
        [
            [0.0653359, 0.0191108, 0.0137319, 0.0118789, 0.0109895, 0.00976911],
            [0.066474, 0.0129791, 0.00794456, 0.00646299, 0.00577501, 0.00505924],
            [0.0647172, 0.0103818, 0.006365, 0.00524042, 0.00454087, 0.0040882],
            [0.0517604, 0.00769124, 0.00567413, 0.00485954, 0.00436266, 0.00400788],
        ],
        [
            [0.991051, 0.958625, 0.953815, 0.95084, 0.948844, 0.947578],
            [0.997687, 0.866317, 0.849322, 0.839025, 0.83177, 0.826759],
            [0.867847, 0.544192, 0.50972, 0.489586, 0.477062, 0.468268],
            [0.844117, 0.339047, 0.28076, 0.255388, 0.241735, 0.233336],
        ],
        [
            [1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        ],
    ],
}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    x, target = torch.randn(64, 32, generator=g), torch.randn(64, 32, generator=g)

    def case(lr: float, gain: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, target, DEPTH, STEPS, lr, gain, SEED)

        return LocalCase(
            name=f"learning rate {lr}, gain {gain}, seed {SEED}: (3, {DEPTH}, {STEPS}) "
            "ratios, stds, alarms",
            x=x,
            build=build,
            expected=torch.tensor(EXPECTED[(lr, gain)]),
            measurement=True,
            # The too-high learning rate is the figure the notebook draws (plot_lab): plane 0,
            # one curve per layer over the steps.
            series=tuple(f"layer {i + 1}" for i in range(DEPTH)) if lr == 0.5 else (),
            plane=0,
            x_label="SGD step (1 = the first)",
            y_label="update-to-weight ratio",
        )

    return [case(0.01, 1.0), case(0.01, 1.6), case(0.5, 1.0)]


from addnorm_client.local import check

check("training_monitor", "training_monitor", local_cases())

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

plot_lab("training_monitor", "training_monitor", local_cases());

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

submit_cell("training_monitor")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What does an update-to-weight ratio far above 1e-3 tell you, and what would you change? (`tr-update-ratio-article`, `questions_training`)
# 2. Would you page someone when a layer's output std leaves 0.8 to 1.2? Where do your thresholds come from? (`tr-monitoring-thresholds`, `questions_training`)
# 3. What standard deviation does Kaiming initialisation give a ReLU layer with 512 inputs, and why that value? (`tr-kaiming-std`, `questions_training`)
# 4. In a Pre-LN Transformer, should the residual stream's std stay near 1 layer after layer? (`res-stream-variance-growth`, `questions_residual`)
# 5. The global gradient norm is 10 at the first step and you clip it at 2.5. By what factor does each gradient shrink, and what does that do to the ratio alarm? (`tr-clip-grad-norm-factor`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 更新量与权重之比远高于 1e-3 说明了什么？你会改什么？ (`tr-update-ratio-article`, `questions_training`)
# 2. 某层输出的标准差离开 0.8 到 1.2 时，你会发报警叫人吗？你的阈值从哪里来？ (`tr-monitoring-thresholds`, `questions_training`)
# 3. Kaiming 初始化给一个有 512 个输入的 ReLU 层的权重设多大的标准差？为什么是这个值？ (`tr-kaiming-std`, `questions_training`)
# 4. 在 Pre-LN Transformer 中，残差流的标准差应当逐层保持在 1 附近吗？ (`res-stream-variance-growth`, `questions_residual`)
# 5. 第一步全局梯度范数为 10，你把它裁剪到 2.5。每个梯度缩小为原来的多少倍？这对比值报警有什么影响？ (`tr-clip-grad-norm-factor`, `questions_training`)
#
# </details>
