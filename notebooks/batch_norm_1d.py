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
# # BatchNorm1d with running statistics
#
# **topic:** batch_norm · **difficulty:** medium
#
# Batch normalisation standardises each **channel** across the batch: for one feature, subtract
# its mean over every sample in the batch (and every position, for sequences), divide by its
# standard deviation, then apply a learned per-channel scale and shift. Because the statistics
# come from the batch, the layer behaves differently in training and in evaluation: in training
# it uses the current batch and keeps a running estimate of the statistics; in eval it uses that
# estimate alone, so that a sample's output no longer depends on what else is in its batch. This
# exercise is about that state.
#
# ## What to write
#
# ```python
# class BatchNorm1d(nn.Module):
#     def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(N, C)` or `(N, C, L)` with `C = num_features`: **channels at dim 1**, not
#   last. Dtype float32 or float64; the input may be a non-contiguous view (a transpose). Return
#   a tensor of the same shape and dtype.
# - Parameters and buffers, with exactly these names, shapes and initial values. The grader loads
#   a state into them (`load_state_dict`, strict) and compares every one of them after each step.
#
#   | name | kind | shape | initial value |
#   | --- | --- | --- | --- |
#   | `weight` (γ) | parameter | `(C,)` | ones |
#   | `bias` (β) | parameter | `(C,)` | zeros |
#   | `running_mean` | buffer | `(C,)` | zeros |
#   | `running_var` | buffer | `(C,)` | ones |
#   | `num_batches_tracked` | buffer | `()`, `torch.long` | 0 |
#
# - For each channel c, with the reduction over dims `(0,)` for `(N, C)` and `(0, 2)` for
#   `(N, C, L)`, and n = the number of values reduced (`N` or `N * L`):
#
#   $$\begin{aligned}
#   &\text{training (module.training is True):}\\
#   \mathrm{mean} &= \frac{1}{n}\sum x \qquad\text{per channel}\\
#   \mathrm{var} &= \frac{1}{n}\sum (x - \mathrm{mean})^2 \qquad\text{biased: used to normalise}\\
#   y &= \frac{x - \mathrm{mean}}{\sqrt{\mathrm{var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias}\\
#   \mathrm{running\_mean} &\leftarrow (1 - \mathrm{momentum}) \cdot \mathrm{running\_mean} + \mathrm{momentum} \cdot \mathrm{mean}\\
#   \mathrm{running\_var} &\leftarrow (1 - \mathrm{momentum}) \cdot \mathrm{running\_var} + \mathrm{momentum} \cdot \mathrm{var} \cdot \frac{n}{n - 1} \qquad\text{unbiased}\\
#   \mathrm{num\_batches\_tracked} &\leftarrow \mathrm{num\_batches\_tracked} + 1\\
#   &\text{eval:}\\
#   y &= \frac{x - \mathrm{running\_mean}}{\sqrt{\mathrm{running\_var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias} \qquad\text{no buffer changes}
#   \end{aligned}$$
#
# - The buffer updates carry no gradient (do them under `torch.no_grad()` or on detached
#   tensors). The gradient in training flows through the batch mean and variance; in eval the
#   running statistics are constants.
# - Training needs n ≥ 2 (one value per channel has no variance); the tests never pass n = 1 in
#   training. `momentum=None` (a cumulative average) is not part of the contract.
#
# Your module must behave like `torch.nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)`
# through a whole scenario: same outputs, same gradients with respect to `x`, `weight` and `bias`,
# same buffers after every step.
#
# ## Not allowed
#
# `nn.BatchNorm1d` (and 2d, 3d, `SyncBatchNorm`, `LazyBatchNorm1d`), `F.batch_norm`,
# `torch.batch_norm`, `torch.native_batch_norm`, and other norms bent to the same purpose
# (`F.instance_norm`, `F.group_norm`, `F.layer_norm`), however you reach them (an alias,
# `getattr`, `torch.ops.aten`). Everything else is fine: `mean`, `var`, `var_mean`, `lerp_`,
# `movedim`, `rsqrt`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Each submission runs short scenarios, freshly drawn per submission, each in one process: build
# the module (default initialisation or a loaded state), then a few steps in train or eval mode,
# each with a backward pass of a random upstream gradient, then an optimiser-like update of the
# parameters before the next step. Outputs, gradients and all three buffers are compared after
# every step. The scenarios cover three training batches then eval on `(N, C)`; two training
# batches then eval on `(N, C, L)` where positions differ in scale; eval from a loaded state, a
# parameter update and eval again; non-default `momentum` (0.3) and `eps` (0.01) on a
# small-variance input; a batch of two (`n / (n - 1) = 2`); a batch of one sequence (statistics
# over `L` alone); a channel that is constant over the batch; float64 input around 1e4; a
# transposed `(N, L, C) -> (N, C, L)` view; 200 or 300 channels with eval on a single sample;
# and a training-mode forward under `torch.no_grad()` (the buffers still move).
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Two variances.** The batch is normalised with the biased variance (it describes this batch
#   exactly); the running estimate takes the unbiased one (it estimates the population).
# - **Which way round is momentum?** In PyTorch it is the weight of the *new* batch: 0.1 keeps
#   90% of the history. Keras's `momentum=0.99` means the opposite.
# - **Eval must not change the model.** No buffer moves in eval mode, and repeated eval calls give
#   the same output.
# - **Axes.** Channels are at dim 1; for `(N, C, L)` one channel's statistics pool the batch *and*
#   the length. `x.view(-1, C)` on `(N, C, L)` mixes channels with positions; move the channel
#   axis last first, and use `reshape` (a moved axis is not contiguous).
# - **State and graphs.** A running buffer assigned from a tensor that requires grad keeps the
#   whole step's graph alive and breaks the next backward. A scale fused from `weight` and
#   `running_var` and cached goes stale after the next optimiser step.
#
# ## Why it works
#
# Every channel reaches the next layer with zero mean and unit variance over the batch, whatever
# the layers before did to its scale, so the next layer sees inputs in a stable range and larger
# learning rates stay stable (Ioffe and Szegedy 2015, "Batch Normalization"; Santurkar et al.
# 2018 argue the gain comes from a smoother loss landscape rather than from less "covariate
# shift"). γ and β give each channel back the scale and offset the network wants; with
# γ = sqrt(var + eps) and β = mean it can undo the normalisation exactly. The running estimates
# exist because at inference there may be a single sample, and because a prediction must not
# depend on which other samples share its batch.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/batch_norm_1d`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it: what `model.eval()` changes (`bn-eval-uses-running-stats`), the running mean after two
# batches (`bn-running-mean-update`), the axes for `(N, C, L)` (`bn-axes`), serving one request
# in train mode (`bn-single-sample-train-mode`), batch dependence (`bn-batch-dependence`),
# folding into the previous Linear (`bn-fold-into-linear`), and why Transformers use LayerNorm
# instead (`bn-why-not-in-transformers`).
#
# ## Cost and memory
#
# - **Parameters:** `2C`, plus `2C + 1` buffers that are saved with the model but not trained.
# - **FLOPs:** about eight per element in training, like LayerNorm; in eval only a multiply and
#   an add per element, and even those vanish when the layer is folded into the preceding linear
#   layer (`W' = W * s`, `b' = (b - running_mean) * s + bias`, `s = weight / sqrt(running_var +
#   eps)`).
# - **Memory-bound** in training: the reductions read the whole batch; kept for backward: the
#   normalised tensor (or `x`) plus `(C,)` statistics.
# - **Distributed training:** each device sees only its own slice of the batch; `SyncBatchNorm`
#   all-reduces the per-channel sums so the statistics are those of the global batch.
#
# ## Test yourself
#
# - **Cumulative average:** support `momentum=None`, where the weight of the new batch is
#   `1 / num_batches_tracked`, and compare with `nn.BatchNorm1d(C, momentum=None)`.
# - **Fold it:** for an eval-mode `Linear -> BatchNorm1d`, build one `Linear` that gives the same
#   outputs.
# - **Batch dependence:** in training mode, change one sample of a batch and watch the outputs of
#   the others move; in eval they do not.
# - **Gradient by hand:** the input gradient in training is LayerNorm's backward taken over the
#   batch axis instead of the feature axis (see the `layer_norm_backward` exercise).
#
# ## Background
#
# The article "FFN, Residual Addition, LN", section "LayerNorm 为什么不用 BatchNorm", contrasts the
# two normalisations: BatchNorm's statistics depend on the batch, which is what makes it awkward
# for variable-length sequences, small batches and token-by-token generation, and what the running
# statistics of this exercise are for. Its section "1.3 LN （Layer Norm，层归一化）" describes
# LayerNorm's statistics over one sample's features, the other axis. The article
# "Transformer残差连接与归一化层实现详解", section "2. 归一化层的设计与选择", says normalisation in
# Transformers evolved from BatchNorm to LayerNorm; it did not: the original Transformer used
# LayerNorm from the start, and BatchNorm comes from convolutional networks (`bn-history-claim`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 带滑动统计量的 BatchNorm1d
#
# 批归一化（BatchNorm）按**通道**在整个 batch 上做标准化：对某一个特征，先减去它在这批所有样本
# （序列输入还包括所有位置）上的均值，再除以标准差，最后逐通道乘上可学习的缩放、加上平移。统计量
# 来自 batch，所以这个层在训练和推理时表现不同：训练时用当前批的统计量，同时维护一份滑动估计；
# eval 时只用这份估计，这样一个样本的输出就不再取决于同批里还有谁。本题考的正是这份状态。
#
# ## 要写什么
#
# ```python
# class BatchNorm1d(nn.Module):
#     def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状是 `(N, C)` 或 `(N, C, L)`，`C = num_features`：**通道在第 1 维**，不在最后一维。
#   dtype 为 float32 或 float64；输入可能是不连续的视图（转置过的张量）。返回形状和 dtype 都与
#   `x` 相同的张量。
# - 参数和 buffer 的名称、形状、初始值必须如下。评测会把状态载入其中（严格的
#   `load_state_dict`），并在每一步之后逐一比较。
#
#   | 名称 | 类别 | 形状 | 初始值 |
#   | --- | --- | --- | --- |
#   | `weight`（γ） | 参数 | `(C,)` | 全 1 |
#   | `bias`（β） | 参数 | `(C,)` | 全 0 |
#   | `running_mean` | buffer | `(C,)` | 全 0 |
#   | `running_var` | buffer | `(C,)` | 全 1 |
#   | `num_batches_tracked` | buffer | `()`，`torch.long` | 0 |
#
# - 对每个通道 c：`(N, C)` 在维度 `(0,)` 上归约，`(N, C, L)` 在 `(0, 2)` 上归约，n 为参与归约的
#   元素个数（`N` 或 `N * L`）：
#
#   $$\begin{aligned}
#   &\text{训练（module.training 为 True）：}\\
#   \mathrm{mean} &= \frac{1}{n}\sum x \qquad\text{每个通道一个}\\
#   \mathrm{var} &= \frac{1}{n}\sum (x - \mathrm{mean})^2 \qquad\text{有偏方差，用于归一化}\\
#   y &= \frac{x - \mathrm{mean}}{\sqrt{\mathrm{var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias}\\
#   \mathrm{running\_mean} &\leftarrow (1 - \mathrm{momentum}) \cdot \mathrm{running\_mean} + \mathrm{momentum} \cdot \mathrm{mean}\\
#   \mathrm{running\_var} &\leftarrow (1 - \mathrm{momentum}) \cdot \mathrm{running\_var} + \mathrm{momentum} \cdot \mathrm{var} \cdot \frac{n}{n - 1} \qquad\text{无偏}\\
#   \mathrm{num\_batches\_tracked} &\leftarrow \mathrm{num\_batches\_tracked} + 1\\
#   &\text{eval：}\\
#   y &= \frac{x - \mathrm{running\_mean}}{\sqrt{\mathrm{running\_var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias} \qquad\text{buffer 不变}
#   \end{aligned}$$
#
# - 更新 buffer 不带梯度（放在 `torch.no_grad()` 里，或者用 detach 过的张量）。训练时梯度要经过
#   批均值和批方差；eval 时滑动统计量是常数。
# - 训练时要求 n ≥ 2（每个通道只有一个值就没有方差可言），测试不会在训练模式下给 n = 1 的输入。
#   `momentum=None`（累计平均）不在本题的约定之内。
#
# 你的模块在整个场景中都要与 `torch.nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)`
# 一致：每一步的输出、对 `x`、`weight`、`bias` 的梯度，以及每一步之后的 buffer 都相同。
#
# ## 不允许使用
#
# `nn.BatchNorm1d`（以及 2d、3d、`SyncBatchNorm`、`LazyBatchNorm1d`）、`F.batch_norm`、
# `torch.batch_norm`、`torch.native_batch_norm`，以及拿来凑出同样效果的其他归一化
# （`F.instance_norm`、`F.group_norm`、`F.layer_norm`），不管通过什么方式调用（起别名、`getattr`、
# `torch.ops.aten`）。其余都可以用：`mean`、`var`、`var_mean`、`lerp_`、`movedim`、`rsqrt`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交都会现场生成若干短场景，每个场景在同一个进程里跑完：先构建模块（默认初始化或载入一份
# 状态），再在 train 或 eval 模式下执行几步，每步都用随机的上游梯度做一次反向传播，步与步之间
# 像优化器那样更新一次参数。每一步之后都比较输出、梯度和三个 buffer。场景包括：`(N, C)` 上连续
# 训练三个批次再 eval；`(N, C, L)` 上训练两个批次再 eval，且不同位置的尺度不同；载入状态后 eval、
# 更新参数、再 eval；非默认的 `momentum`（0.3）和 `eps`（0.01），输入方差很小；batch 只有两个样本
# （`n / (n - 1) = 2`）；batch 只有一条序列（只在 `L` 上统计）；某个通道在整批里是常数；float64
# 输入、数值在 1e4 附近；由 `(N, L, C)` 转置而来的 `(N, C, L)` 视图；200 或 300 个通道、eval 时
# 只有一个样本；以及在 `torch.no_grad()` 下的训练模式前向（buffer 照样要更新）。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **两种方差。** 归一化当前批用有偏方差（它精确描述这一批）；滑动估计用无偏方差（它要估计总体）。
# - **momentum 是哪一边的权重？** PyTorch 里它是**新批次**的权重：0.1 表示保留 90% 的历史。
#   Keras 的 `momentum=0.99` 意思正好相反。
# - **eval 不能改模型。** eval 模式下任何 buffer 都不动，连续两次 eval 的输出一样。
# - **维度。** 通道在第 1 维；对 `(N, C, L)`，一个通道的统计量要把 batch 和长度两个维度合起来算。
#   在 `(N, C, L)` 上直接 `x.view(-1, C)` 会把通道和位置混在一起；应先把通道维移到最后，再用
#   `reshape`（移动过维度的张量不连续）。
# - **状态与计算图。** 如果滑动 buffer 被赋成一个带梯度的张量，整个训练步的计算图都会被它拖住，
#   下一次反向传播就会出错。把 `weight` 和 `running_var` 融合成一个缩放系数并缓存起来，下一次
#   优化器更新后它就过期了。
#
# ## 为什么有效
#
# 经过 BatchNorm，每个通道在这一批上都是零均值、单位方差，不管前面的层把它的尺度改成什么样，下一层
# 看到的输入都落在稳定的范围内，更大的学习率也能稳定训练（Ioffe 与 Szegedy 2015，“Batch
# Normalization”；Santurkar 等人 2018 认为收益来自更平滑的损失曲面，而不是减少了所谓的“内部协变量
# 偏移”）。γ 和 β 把每个通道想要的尺度和偏移还给网络；取 γ = sqrt(var + eps)、β = mean 时，它甚至
# 能把归一化完全抵消。之所以要维护滑动估计，一是推理时可能只有一个样本，二是预测结果不应该取决于
# 同批里碰巧有哪些别的样本。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/batch_norm_1d` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每条都链接到题库中给出答案的那道题：`model.eval()` 改变了
# 什么（`bn-eval-uses-running-stats`）、两个批次之后的滑动均值（`bn-running-mean-update`）、
# `(N, C, L)` 的统计维度（`bn-axes`）、在训练模式下逐条处理线上请求（`bn-single-sample-train-mode`）、
# 对 batch 的依赖（`bn-batch-dependence`）、折叠进前一个 Linear（`bn-fold-into-linear`），以及
# Transformer 为什么改用 LayerNorm（`bn-why-not-in-transformers`）。
#
# ## 计算量与显存
#
# - **参数量：** `2C`，另有 `2C + 1` 个 buffer，随模型保存但不参与训练。
# - **FLOPs：** 训练时每个元素约八次运算，和 LayerNorm 相当；eval 时每个元素只剩一次乘法和一次
#   加法，若把它折叠进前面的线性层（`W' = W * s`，`b' = (b - running_mean) * s + bias`，
#   `s = weight / sqrt(running_var + eps)`），连这两次也省了。
# - **训练时受内存带宽限制：** 归约要读完整个 batch；为反向传播保留归一化后的张量（或 `x`）以及
#   `(C,)` 形状的统计量。
# - **分布式训练：** 每张卡只看到自己那一份 batch；`SyncBatchNorm` 会对每个通道的求和做
#   all-reduce，让统计量来自全局 batch。
#
# ## 自我检验
#
# - **累计平均：** 支持 `momentum=None`，此时新批次的权重是 `1 / num_batches_tracked`，与
#   `nn.BatchNorm1d(C, momentum=None)` 对比。
# - **折叠：** 对 eval 模式下的 `Linear -> BatchNorm1d`，构造一个输出完全相同的 `Linear`。
# - **对 batch 的依赖：** 训练模式下改动 batch 中的一个样本，观察其他样本的输出随之变化；eval
#   模式下则不变。
# - **手推梯度：** 训练时对输入的梯度，就是把 LayerNorm 的反向从特征维换到 batch 维
#   （见 `layer_norm_backward` 这道题）。
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》的“LayerNorm 为什么不用 BatchNorm”一节对比了两种归一化：
# BatchNorm 的统计量依赖 batch，这正是它不适合变长序列、小 batch 和逐 token 生成的原因，也是本题
# 滑动统计量存在的理由；该文“1.3 LN （Layer Norm，层归一化）”一节讲的是在单个样本的特征上求统计量，
# 也就是另一个轴。文章《Transformer残差连接与归一化层实现详解》的“2. 归一化层的设计与选择”一节说
# Transformer 的归一化层是从 BatchNorm 演进到 LayerNorm 的；事实并非如此：原始 Transformer 一开始用的就是 LayerNorm，BatchNorm
# 来自卷积网络（`bn-history-claim`）。
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
#    `# addnorm: exercise batch_norm_1d`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise batch_norm_1d` 不要删：提交单元格发送的是
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
# addnorm: exercise batch_norm_1d
import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        # The grader loads and compares the state by these names: keep them.
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (N, C) or (N, C, L), channels at dim 1. Statistics per channel over every other dim.
        # Training: normalise with the batch's mean and biased variance, and update the running
        # estimates (unbiased variance) without tracking gradients. Eval: use the running ones.
        raise NotImplementedError("implement BatchNorm1d.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.batch_norm` in eval mode, with loaded running statistics and random
# `weight` and `bias` (training mode and the buffer updates are graded by the server).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.batch_norm` 的 eval 模式，载入滑动统计量，`weight`、`bias` 取随机值
# （训练模式和 buffer 的更新由服务器评测）。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...]) -> LocalCase:
        c = shape[1]
        x = torch.randn(shape, generator=g)
        state = {
            "weight": torch.randn(c, generator=g),
            "bias": torch.randn(c, generator=g),
            "running_mean": torch.randn(c, generator=g),
            "running_var": torch.rand(c, generator=g) + 0.5,
            "num_batches_tracked": torch.tensor(7),
        }
        expected = F.batch_norm(
            x,
            state["running_mean"].clone(),
            state["running_var"].clone(),
            state["weight"],
            state["bias"],
            training=False,
        )
        return LocalCase(name=name, x=x, build=lambda cls: cls(c), state=state, expected=expected)

    return [
        case("eval, (N, C)", (4, 6)),
        case("eval, (N, C, L)", (2, 5, 7)),
        case("eval, one sample", (1, 3, 4)),
    ]


from addnorm_client.local import check

check("batch_norm_1d", "BatchNorm1d", local_cases())

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

submit_cell("batch_norm_1d")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What changes when you call model.eval(), and why? (`bn-eval-uses-running-stats`, `questions_batch_norm`)
# 2. Two batches with mean 2.0 go through a fresh layer. What is running_mean now? (`bn-running-mean-update`, `questions_batch_norm`)
# 3. For (N, C, L) input, over which positions is one channel's mean taken? (`bn-axes`, `questions_batch_norm`)
# 4. You serve one request at a time and forgot model.eval(). What happens? (`bn-single-sample-train-mode`, `questions_batch_norm`)
# 5. Can one sample's output change when other samples join its batch? (`bn-batch-dependence`, `questions_batch_norm`)
# 6. How do you fold an eval-mode BatchNorm into the Linear layer before it? (`bn-fold-into-linear`, `questions_batch_norm`)
# 7. Why do Transformers use LayerNorm instead? (`bn-why-not-in-transformers`, `questions_batch_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 调用 model.eval() 之后有什么变化？为什么要这样？ (`bn-eval-uses-running-stats`, `questions_batch_norm`)
# 2. 一个新建的层先后看到两个均值都是 2.0 的批次，running_mean 现在是多少？ (`bn-running-mean-update`, `questions_batch_norm`)
# 3. 输入是 (N, C, L) 时，一个通道的均值是在哪些位置上求的？ (`bn-axes`, `questions_batch_norm`)
# 4. 线上一次只处理一个请求，却忘了调用 model.eval()，会发生什么？ (`bn-single-sample-train-mode`, `questions_batch_norm`)
# 5. 同一批里换了别的样本，某个样本的输出会跟着变吗？ (`bn-batch-dependence`, `questions_batch_norm`)
# 6. 推理时怎么把 eval 模式的 BatchNorm 折叠进它前面的 Linear 层？ (`bn-fold-into-linear`, `questions_batch_norm`)
# 7. 为什么 Transformer 改用 LayerNorm？ (`bn-why-not-in-transformers`, `questions_batch_norm`)
#
# </details>
