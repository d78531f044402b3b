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
# # Depth-scaled initialisation of a GPT-2 stack: `residual_scaled_init`
#
# **topic:** training · **difficulty:** medium
#
# A deep Transformer starts life as a sum: the residual stream is the embeddings plus the output
# of every attention and every MLP branch, $2L$ branches for $L$ blocks. At initialisation those
# branch outputs are close to independent, so their variances add, and with every matrix drawn
# alike the stream's scale grows with depth. GPT-2 answers with one line in its initialisation:
# the two matrices that write onto the stream in each block are drawn $\sqrt{2L}$ times smaller.
# Here you write that initialisation for a small GPT-2-style model, and say exactly which tensors
# get which law.
#
# ## What to write
#
# ```python
# def residual_scaled_init(model: nn.Module, n_layers: int, std: float = 0.02) -> None: ...
# ```
#
# The grader hands you a `TinyGPT`, built like nanoGPT's GPT-2 (parameters only; it is never run
# forward):
#
# ```python
# class TinyGPT(nn.Module):  # TinyGPT(vocab, n_ctx, dim, n_layers, hidden)
#     wte: nn.Embedding  # (vocab, dim)      token embedding
#     wpe: nn.Embedding  # (n_ctx, dim)      position embedding
#     h: nn.ModuleList  # n_layers Blocks:
#     # ln_1: nn.LayerNorm(dim)
#     # attn.c_attn: nn.Linear(dim, 3 * dim)     q, k, v in one matrix
#     # attn.c_proj: nn.Linear(dim, dim)         attention's output projection
#     # ln_2: nn.LayerNorm(dim)
#     # mlp.c_fc: nn.Linear(dim, hidden)         up (hidden = 4 * dim in GPT-2)
#     # mlp.c_proj: nn.Linear(hidden, dim)       down: the MLP's output projection
#     ln_f: nn.LayerNorm  # (dim,)
#     lm_head: nn.Linear  # (vocab, dim), no bias, not tied to wte
# ```
#
# Set **every parameter, in place** (the model you receive holds PyTorch's default
# initialisation, or the values of a trained model):
#
# - every `nn.Linear` weight and every `nn.Embedding` weight: $\mathcal{N}(0, \sigma^2)$ with
#   $\sigma$ = `std`;
# - the **residual branches' output projections**, `attn.c_proj.weight` and `mlp.c_proj.weight`
#   of every block (names ending in `c_proj.weight`), instead:
#   $$W_{\text{proj}} \sim \mathcal{N}\Big(0, \big(\tfrac{\sigma}{\sqrt{2L}}\big)^2\Big),\qquad L = \texttt{n\_layers};$$
# - every `nn.Linear` bias: 0;
# - every `nn.LayerNorm`: weight 1, bias 0.
#
# The grader calls `residual_scaled_init(model, n_layers=L, std=s)` with keywords (`std` left out
# in one case: its default is 0.02). What you return is not read, nor is any `.grad`. Replacing a
# parameter (`m.weight = nn.Parameter(...)`) counts as setting it: the model is read back by name.
#
# ## Not allowed
#
# Nothing is banned: the point of the exercise is which tensor gets which law, not how a normal
# draw is made. `torch.nn.init` (`normal_`, `zeros_`, `ones_`, `trunc_normal_`), `Tensor.normal_`,
# `torch.randn * std` copied in, `model.apply`, `named_modules` and `named_parameters` are all fine.
# A truncated normal passes only where its bounds cut nothing measurable: `trunc_normal_`'s default
# `a = -2, b = 2` at std 0.02 sits 100 standard deviations out, while bounds at $\pm 2\sigma$ lower
# the standard deviation by 12% and fail.
#
# ## How it is graded
#
# Initialisation is random, so the verdict is graded **by its law, never by one random stream**:
# any correct draw passes. Twelve freshly drawn models, one call each: depths 1 to 16 (at 1 and 2
# some wrong factors coincide with the right one; at 8 and 16 they are far apart), `std` 0.02,
# 0.05, 0.01 and the default, a model moved by training (its LayerNorms no longer 1 and 0), a
# one-token vocabulary with a width past 128, float64 models, an embedding laid out transposed in
# memory, with and without gradients held. The grader seeds torch's generator before the call, so
# code that draws as the reference does (one `normal_` per weight, in module order) matches value
# by value; anything else is judged tensor by tensor:
#
# - a normal tensor of $n$ draws passes when its sample standard deviation is inside the
#   chi-square bounds for $n$ (Wilson and Hilferty's approximation, 6 sigma: a correct draw falls
#   outside about twice in a billion), its mean inside $6\sigma/\sqrt{n}$, and, from 1024 draws
#   on, at least the binomial lower bound of its draws lie beyond $2\sigma$ (a normal has 4.6%
#   there, a uniform of the same spread none);
# - a bias and a LayerNorm tensor pass when every element is exactly 0 (or 1).
#
# One check per group (embeddings, Linear weights off the residual stream, residual output
# projections, biases, LayerNorm weights, LayerNorm biases) and call; a failure names the first
# tensor out of bounds, its standard deviation and the bounds, and the known mistake whose
# standard deviation fits.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases leave room for float32 internals (`x.float()` and a cast back, as Llama's RMSNorm does, is correct).
#
# ## Pitfalls interviewers look for
#
# - **No depth scaling**: `c_proj` drawn at 0.02 like everything else (question
#   `init-residual-variance-depth`).
# - **$1/\sqrt{L}$ instead of $1/\sqrt{2L}$**: each block has *two* residual branches.
# - **$1/L$ instead of $1/\sqrt{2L}$**: the factor targets the variance, so the standard deviation
#   takes a square root.
# - **Every Linear scaled**, not only the two output projections (question
#   `init-which-matrices-scaled`).
# - **The variance passed as the standard deviation**: `normal_(0, 0.02 ** 2)`.
# - **Uniform instead of normal**, with the right standard deviation: no tails.
# - **Biases not zeroed**: PyTorch's default Linear bias is uniform in $\pm 1/\sqrt{\text{fan\_in}}$.
# - **LayerNorm drawn at random** in a loop over every parameter, or left as a trained model had it.
#
# ## Why it works
#
# - **Variances add.** The stream after $L$ blocks is $x_0 + \sum_{i=1}^{2L} f_i$. With the
#   branches roughly independent at initialisation,
#   $\operatorname{Var} = \operatorname{Var}(x_0) + \sum_i \operatorname{Var}(f_i)$: $2L$ equal
#   terms grow linearly with depth.
# - **Scale the last matrix of each branch.** A branch's output is linear in its output
#   projection, so drawing that matrix $\sqrt{2L}$ times smaller divides the branch's variance by
#   $2L$, and the sum of all $2L$ stays about one branch's, whatever the depth.
# - **Leave the rest alone.** `c_attn` and `c_fc` read a normalised input and feed a softmax or a
#   nonlinearity; shrinking them weakens the signal inside the branch without changing how many
#   terms the stream sums. Biases at 0 and LayerNorms at the identity keep the weights the only
#   source of scale.
# - **DeepNorm** makes the same move for Post-LN: it scales the residual by $\alpha > 1$ and
#   draws the value and output projections and the FFN's matrices with a gain $\beta < 1$ set by
#   depth.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/residual_scaled_init`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - What does the $1/\sqrt{2N}$ keep bounded? (`init-residual-variance-depth`)
# - Which matrices get the factor, and why not the others? (`init-which-matrices-scaled`)
# - Where does 0.02 come from? (`init-origin-of-002`)
# - Does `trunc_normal_(w, std=0.02)` change the standard deviation? (`init-trunc-normal-default-bounds`)
# - Which matrices does DeepNorm scale by $\beta$? (`tr-deepnorm-beta-matrices`)
#
# ## Cost and memory
#
# One pass over the parameters, one random number per weight element: $O(P)$ time for $P$
# parameters, no memory beyond the model itself, run once before training. In a sharded model
# (FSDP, tensor parallelism) each rank draws only its shard, from a generator seeded per rank or
# offset per shard, so that the shards together are one draw of the law.
#
# ## Test yourself
#
# Build a 48-layer pre-norm stack of random linear branches, feed it unit-variance input, and
# print the residual stream's standard deviation after each block, once with every matrix at
# 0.02 and once with the output projections at $0.02/\sqrt{2L}$: the first grows like
# $\sqrt{\text{depth}}$, the second stays near its start. Then check your function by its law:
# each tensor's standard deviation within a few percent of its target, and about 4.6% of its
# draws beyond two standard deviations.
#
# ## Background
#
# The course article "Transformer残差连接与归一化层实现详解", section "1.3 实现细节与调参经验",
# recommends a small initial scale for the last layer of a residual branch (it uses 0.02), and the
# article "Add & Norm 层", in its FeedForward code, initialises the FFN's second linear layer, the
# one that writes back onto the residual, with a gain of 0.02 where the first gets Kaiming's. GPT-2's rule, $1/\sqrt{N}$ on the residual layers'
# weights with $N$ the number of residual layers, is stated in Radford et al. 2019 ("Language
# Models are Unsupervised Multitask Learners", section 2.3); nanoGPT writes it as
# $0.02/\sqrt{2 \cdot \text{n\_layer}}$ on every `c_proj.weight`. DeepNorm is Wang et al. 2022
# ("DeepNet: Scaling Transformers to 1,000 Layers").

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # GPT-2 堆叠的按深度缩放初始化：`residual_scaled_init`
#
# 深层 Transformer 一开始就是一个求和：残差流等于词嵌入加上每个注意力分支和每个 MLP 分支的输出，$L$ 个块一共 $2L$ 个分支。初始化时这些分支的输出近似独立，方差相加；如果所有矩阵都按同一规则抽取，残差流的尺度就会随深度增长。GPT-2 在初始化里用一行代码解决它：每个块里往残差流上写的两个矩阵，抽取时缩小 $\sqrt{2L}$ 倍。本题要你为一个小型的 GPT-2 式模型写出这个初始化，并准确说明哪个张量服从哪个分布。
#
# ## 要写什么
#
# ```python
# def residual_scaled_init(model: nn.Module, n_layers: int, std: float = 0.02) -> None: ...
# ```
#
# 评测程序会交给你一个 `TinyGPT`，结构与 nanoGPT 的 GPT-2 相同（只有参数，从不做前向计算）：
#
# ```python
# class TinyGPT(nn.Module):  # TinyGPT(vocab, n_ctx, dim, n_layers, hidden)
#     wte: nn.Embedding  # (vocab, dim)      token embedding
#     wpe: nn.Embedding  # (n_ctx, dim)      position embedding
#     h: nn.ModuleList  # n_layers Blocks:
#     # ln_1: nn.LayerNorm(dim)
#     # attn.c_attn: nn.Linear(dim, 3 * dim)     q, k, v in one matrix
#     # attn.c_proj: nn.Linear(dim, dim)         attention's output projection
#     # ln_2: nn.LayerNorm(dim)
#     # mlp.c_fc: nn.Linear(dim, hidden)         up (hidden = 4 * dim in GPT-2)
#     # mlp.c_proj: nn.Linear(hidden, dim)       down: the MLP's output projection
#     ln_f: nn.LayerNorm  # (dim,)
#     lm_head: nn.Linear  # (vocab, dim), no bias, not tied to wte
# ```
#
# **原地设置每一个参数**（你拿到的模型里是 PyTorch 的默认初始化，或者是训练过的模型的值）：
#
# - 每个 `nn.Linear` 的权重和每个 `nn.Embedding` 的权重：$\mathcal{N}(0, \sigma^2)$，$\sigma$ 即 `std`；
# - **残差分支的输出投影**，也就是每个块的 `attn.c_proj.weight` 和 `mlp.c_proj.weight`（名字以 `c_proj.weight` 结尾），改为：
#   $$W_{\text{proj}} \sim \mathcal{N}\Big(0, \big(\tfrac{\sigma}{\sqrt{2L}}\big)^2\Big),\qquad L = \texttt{n\_layers};$$
# - 每个 `nn.Linear` 的偏置：0；
# - 每个 `nn.LayerNorm`：weight 为 1，bias 为 0。
#
# 评测程序以关键字参数调用 `residual_scaled_init(model, n_layers=L, std=s)`（有一个用例不传 `std`，默认值是 0.02）。返回值不会被读取，`.grad` 也不评测。替换参数（`m.weight = nn.Parameter(...)`）同样算设置了它：评测程序按名字从模型里读回参数。
#
# ## 不允许使用
#
# 没有禁用任何函数：这道题的重点是哪个张量服从哪个分布，而不是怎样抽取正态随机数。`torch.nn.init`（`normal_`、`zeros_`、`ones_`、`trunc_normal_`）、`Tensor.normal_`、先算 `torch.randn * std` 再拷贝进去、`model.apply`、`named_modules` 和 `named_parameters` 都可以用。截断正态分布只有在截断边界远到不产生可测影响时才能通过：std 为 0.02 时，`trunc_normal_` 的默认边界 `a = -2, b = 2` 远在 100 个标准差之外；而在 $\pm 2\sigma$ 处截断会让标准差下降 12%，判为错误。
#
# ## 如何评测
#
# 初始化是随机的，所以**按分布规律评测，从不依赖某一条随机数序列**：任何正确的抽取都能通过。每次提交重新抽取十二个模型，每个调用一次：深度从 1 到 16（深度为 1 和 2 时，有些错误的因子恰好与正确的相同；深度为 8 和 16 时它们相差很远），`std` 取 0.02、0.05、0.01 以及默认值，一个训练过的模型（它的 LayerNorm 已经不是 1 和 0），一个词表只有一个词、宽度超过 128 的模型，float64 的模型，一个在内存中转置存放的词嵌入，有的调用带着梯度，有的没有。调用之前评测程序会给 torch 的随机数生成器设定种子，所以与参考实现抽取方式相同的代码（按模块顺序，每个权重一次 `normal_`）会逐个数值对上；其余情况逐个张量判断：
#
# - 含 $n$ 个样本的正态张量，要求样本标准差落在对应 $n$ 的卡方分布范围内（用 Wilson 与 Hilferty 的近似，取 6 个标准差：正确的抽取大约每十亿次才有两次落在范围外），均值落在 $6\sigma/\sqrt{n}$ 以内，并且从 1024 个样本起，超出 $2\sigma$ 的样本数不少于二项分布的下界（正态分布有 4.6% 的样本在那里，同样标准差的均匀分布一个也没有）；
# - 偏置和 LayerNorm 的张量，要求每个元素恰好是 0（或 1）。
#
# 每组张量（词嵌入、不直接加到残差流上的 Linear 权重、残差分支的输出投影、偏置、LayerNorm 的 weight、LayerNorm 的 bias）在每次调用中各有一项检查；不通过时会给出第一个越界的张量、它的标准差和允许的范围，以及标准差与之相符的已知错误。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` 再转回去也算对）。
#
# ## 面试官会盯的坑
#
# - **没有按深度缩放**：`c_proj` 和其他矩阵一样按 0.02 抽取（题目 `init-residual-variance-depth`）。
# - **用了 $1/\sqrt{L}$ 而不是 $1/\sqrt{2L}$**：每个块里有*两个*残差分支。
# - **用了 $1/L$ 而不是 $1/\sqrt{2L}$**：这个因子针对的是方差，所以标准差要开平方根。
# - **所有 Linear 都缩放了**，而不只是两个输出投影（题目 `init-which-matrices-scaled`）。
# - **把方差当成标准差传入**：`normal_(0, 0.02 ** 2)`。
# - **用均匀分布代替正态分布**，标准差虽然对了，却没有尾部。
# - **偏置没有置零**：PyTorch 默认的 Linear 偏置是 $\pm 1/\sqrt{\text{fan\_in}}$ 内的均匀分布。
# - **LayerNorm 被随机抽取**（在遍历所有参数的循环里），或者保留了训练过的模型里的值。
#
# ## 为什么有效
#
# - **方差相加。** $L$ 个块之后的残差流是 $x_0 + \sum_{i=1}^{2L} f_i$。初始化时各分支近似独立，$\operatorname{Var} = \operatorname{Var}(x_0) + \sum_i \operatorname{Var}(f_i)$：$2L$ 个相同的项随深度线性增长。
# - **缩放每个分支的最后一个矩阵。** 分支的输出对它的输出投影是线性的，把这个矩阵抽得小 $\sqrt{2L}$ 倍，分支的方差就除以 $2L$，$2L$ 个分支之和无论多深都大约只有一个分支那么大。
# - **其余保持不变。** `c_attn` 和 `c_fc` 读的是归一化后的输入，后面接的是 softmax 或非线性；缩小它们只会削弱分支内部的信号，残差流要累加的项数并没有变。偏置为 0、LayerNorm 为恒等变换，尺度就只由权重决定。
# - **DeepNorm** 对 Post-LN 做了同样的事：它把残差乘以 $\alpha > 1$，并让 value 投影、输出投影和 FFN 的矩阵以随深度确定的增益 $\beta < 1$ 抽取。
#
# ## 面试官的追问
#
# 这道题跑通之后面试官会问的问题，随题目一起提供（`GET /exercises/residual_scaled_init` 的 `follow_ups` 字段），也列在对应笔记本的末尾，每个问题都链接到题库里给出答案的那一题。先准备这几个：
#
# - $1/\sqrt{2N}$ 让什么保持有界？（`init-residual-variance-depth`）
# - 哪些矩阵要乘这个因子？为什么其他矩阵不用？（`init-which-matrices-scaled`）
# - 0.02 是怎么来的？（`init-origin-of-002`）
# - `trunc_normal_(w, std=0.02)` 会改变标准差吗？（`init-trunc-normal-default-bounds`）
# - DeepNorm 用 $\beta$ 缩放哪些矩阵？（`tr-deepnorm-beta-matrices`）
#
# ## 计算量与显存
#
# 对参数遍历一次，每个权重元素抽一个随机数：$P$ 个参数的时间为 $O(P)$，除模型本身外不占额外显存，只在训练前运行一次。模型分片时（FSDP、张量并行），每个进程只抽取自己的分片，随机数生成器按进程设定种子或按分片偏移，使所有分片合起来仍是一次符合该分布的抽取。
#
# ## 自我检验
#
# 搭一个 48 层、分支为随机线性层的 Pre-Norm 堆叠，输入方差为 1，打印每个块之后残差流的标准差：一次让所有矩阵都按 0.02 抽取，一次让输出投影按 $0.02/\sqrt{2L}$ 抽取。前者按 $\sqrt{\text{深度}}$ 增长，后者基本保持在起点附近。然后按分布规律检查你的函数：每个张量的标准差与目标相差不超过几个百分点，并且大约 4.6% 的样本超出两个标准差。
#
# ## 背景
#
# 课程文章《Transformer残差连接与归一化层实现详解》的“1.3 实现细节与调参经验”一节建议，残差分支最后一层的初始缩放要小（文中用 0.02）；文章《Add & Norm 层》的 FeedForward 代码里，写回残差的第二个线性层用 0.02 的增益初始化，第一个线性层则用 Kaiming 初始化。GPT-2 的规则，即对残差层的权重乘以 $1/\sqrt{N}$（$N$ 为残差层的个数），见 Radford 等人 2019 年的论文（“Language Models are Unsupervised Multitask Learners”，第 2.3 节）；nanoGPT 把它写成对每个 `c_proj.weight` 使用 $0.02/\sqrt{2 \cdot \text{n\_layer}}$。DeepNorm 见 Wang 等人 2022 年的论文（“DeepNet: Scaling Transformers to 1,000 Layers”）。
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
#    `# addnorm: exercise residual_scaled_init`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise residual_scaled_init` 不要删：提交单元格发送的是
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
# addnorm: exercise residual_scaled_init
from torch import nn


def residual_scaled_init(model: nn.Module, n_layers: int, std: float = 0.02) -> None:
    """Initialise every parameter of ``model`` (a GPT-2-style stack) in place, GPT-2's way.

    - every nn.Linear weight and every nn.Embedding weight: N(0, std);
    - the residual branches' output projections (``attn.c_proj`` and ``mlp.c_proj``, names
      ending in ``c_proj.weight``): N(0, std / sqrt(2 * n_layers)) instead;
    - every nn.Linear bias: 0;
    - every nn.LayerNorm: weight 1, bias 0.
    """
    # Walk the modules (model.named_modules() or model.apply) and give each tensor its law.
    raise NotImplementedError("implement residual_scaled_init")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: GPT-2's depth-scaled initialisation on three small GPT-2-style models: each group of
# tensors checked against its law (standard deviation within 15% of its target, no more than a
# few standard errors of mean, LayerNorms exactly 1 and 0, biases exactly 0). The server
# grades with bounds stated for each tensor's size; any correct draw passes both..
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：三个小型 GPT-2 式模型上的按深度缩放初始化：逐组检查张量是否符合它应服从的分布（标准差与目标
# 相差不超过 15%，均值足够接近 0，LayerNorm 恰好为 1 和 0，偏置恰好为 0）。服务器按每个张量的
# 大小给出范围来评测；任何正确的抽取在两边都能通过。。
#
# </details>

# %%
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase

GROUPS = ("embeddings", "Linear weights", "c_proj weights", "biases", "LayerNorms")


class _Block(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(dim, 3 * dim)
        self.attn.c_proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(dim, hidden)
        self.mlp.c_proj = nn.Linear(hidden, dim)


class TinyGPT(nn.Module):
    """The grader's model (``api/grading/handed_models.py``), rebuilt here."""

    def __init__(self, vocab: int, n_ctx: int, dim: int, n_layers: int, hidden: int) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(n_ctx, dim)
        self.h = nn.ModuleList(_Block(dim, hidden) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)


def _verdicts(model: nn.Module, n_layers: int, std: float) -> torch.Tensor:
    """1.0 per group whose every tensor holds its law, else 0.0 (in ``GROUPS`` order)."""
    ok = [True] * len(GROUPS)
    for name, p in model.named_parameters():
        x = p.detach().double().reshape(-1)
        if ".ln_" in name or name.startswith("ln_f"):
            ok[4] &= bool((x == (1.0 if name.endswith("weight") else 0.0)).all())
        elif name.endswith("bias"):
            ok[3] &= bool((x == 0).all())
        else:
            proj = name.endswith("c_proj.weight")
            want = std / math.sqrt(2 * n_layers) if proj else std
            group = 2 if proj else (0 if name.startswith(("wte", "wpe")) else 1)
            s, mean = float(x.std()), float(x.mean())
            ok[group] &= abs(s / want - 1) < 0.15 and abs(mean) < 6 * want / math.sqrt(x.numel())
    return torch.tensor([1.0 if o else 0.0 for o in ok])


def local_cases() -> list[LocalCase]:
    def case(name: str, dims: tuple[int, int, int, int, int], std: float) -> LocalCase:
        n_layers = dims[3]

        def build(fn: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            def call(x: torch.Tensor) -> torch.Tensor:
                model = TinyGPT(*dims)
                fn(model, n_layers=n_layers, std=std)
                return _verdicts(model, n_layers, std)

            return call

        return LocalCase(
            name=name,
            x=torch.zeros(len(GROUPS)),
            build=build,
            expected=torch.ones(len(GROUPS)),
            updates_in_place=True,
        )

    return [
        case("4 layers, dim 64, std 0.02", (64, 32, 64, 4, 256), 0.02),
        case("12 layers, dim 48, std 0.02", (48, 32, 48, 12, 192), 0.02),
        case("6 layers, dim 64, std 0.05", (40, 32, 64, 6, 256), 0.05),
    ]


from addnorm_client.local import check

check("residual_scaled_init", "residual_scaled_init", local_cases())

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

submit_cell("residual_scaled_init")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What does the 1/sqrt(2N) on the output projections keep bounded at initialisation? (`init-residual-variance-depth`, `questions_training`)
# 2. Which matrices of a block get the depth factor, and why not the others? (`init-which-matrices-scaled`, `questions_training`)
# 3. Where does GPT-2's 0.02 come from? (`init-origin-of-002`, `questions_training`)
# 4. Does trunc_normal_(w, std=0.02) with its default bounds change the standard deviation? (`init-trunc-normal-default-bounds`, `questions_training`)
# 5. DeepNorm scales some matrices by beta at initialisation. Which ones? (`tr-deepnorm-beta-matrices`, `questions_training`)
# 6. Why not start every weight at zero, as the biases do? (`init-symmetry-breaking`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 输出投影上的 1/sqrt(2N) 在初始化时让什么保持有界？ (`init-residual-variance-depth`, `questions_training`)
# 2. 一个块里哪些矩阵要乘深度因子？为什么其他矩阵不用？ (`init-which-matrices-scaled`, `questions_training`)
# 3. GPT-2 的 0.02 是怎么来的？ (`init-origin-of-002`, `questions_training`)
# 4. 默认边界下的 trunc_normal_(w, std=0.02) 会改变标准差吗？ (`init-trunc-normal-default-bounds`, `questions_training`)
# 5. DeepNorm 在初始化时会用 beta 缩放一部分矩阵。是哪些？ (`tr-deepnorm-beta-matrices`, `questions_training`)
# 6. 为什么不像偏置那样，让所有权重都从零开始？ (`init-symmetry-breaking`, `questions_training`)
#
# </details>
