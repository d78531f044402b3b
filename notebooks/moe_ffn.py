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
# # Mixture-of-experts FFN: top-k routing and the load-balancing loss
#
# **topic:** moe · **difficulty:** hard
#
# A sparse mixture-of-experts (MoE) layer replaces one FFN with `n_experts` FFNs and a small
# router. Each token is sent to its `top_k` best experts only, so the parameters grow with the
# number of experts while the compute per token stays that of `top_k` FFNs. Mixtral-8x7B does
# this in every layer (8 SwiGLU experts, top-2). Because routing reinforces itself, training adds
# an auxiliary loss that rewards spreading the tokens evenly.
#
# ## What to write
#
# ```python
# class MoEFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None: ...
#     def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: ...  # (out, aux_loss)
# ```
#
# - Parameters, with exactly these names: `gate = nn.Linear(dim, n_experts, bias=False)` (the
#   router) and `experts = nn.ModuleList` of `n_experts` SwiGLU experts, each with bias-free
#   `w1` (gate, `dim -> hidden_dim`), `w3` (up, `dim -> hidden_dim`) and `w2` (down,
#   `hidden_dim -> dim`): the state dict holds `gate.weight` and `experts.{e}.w1.weight`,
#   `experts.{e}.w2.weight`, `experts.{e}.w3.weight`. The grader copies each case's weights in.
# - `x` is `(batch, seq, dim)`, float32 or float64. Every token is routed on its own; with
#   $T$ = batch * seq tokens:
#
#   $$p_t = \mathrm{softmax}(W_g x_t) \in \mathbb{R}^{n\_experts}, \qquad (v_t, i_t) = \mathrm{topk}(p_t, k)$$
#   $$w_{t,j} = \frac{v_{t,j}}{\sum_{j'} v_{t,j'}}, \qquad \mathrm{out}_t = \sum_{j=1}^{k} w_{t,j}\, E_{i_{t,j}}(x_t), \qquad E(x) = w_2(\mathrm{silu}(w_1 x) \odot w_3 x)$$
#
#   The weights are **renormalised over the chosen k** (Mixtral's convention). Not renormalising,
#   as Switch's top-1 does, is a named mistake here. A softmax over the k chosen logits is the
#   same thing and is fine, and so is `topk` on the logits (same order).
# - The auxiliary loss, as Switch defines it and Hugging Face's `load_balancing_loss_func`
#   computes it for Mixtral:
#
#   $$f_e = \frac{\#\{t : e \in i_t\}}{T}, \qquad P_e = \frac{1}{T}\sum_t p_{t,e}, \qquad \mathrm{aux} = n\_experts \sum_e f_e P_e$$
#
#   $f_e$ counts all k assignments and divides by the number of tokens only, so
#   $\sum_e f_e = k$ and a perfectly balanced router scores exactly `top_k`. $f$ is a count and
#   has no gradient; the gradient reaches the router through $P$.
# - Return `(out, aux_loss)`: `out` shaped like `x`, `aux_loss` a 0-dim tensor, both in `x`'s
#   dtype. The softmax runs in the input's dtype (float32 or float64): a float64 input is
#   computed in float64 throughout.
# - Ties: the cases draw continuous random inputs and keep every token's k-th and (k+1)-th
#   router scores at least 0.01 apart, so which experts a token gets never depends on rounding
#   or on how `torch.topk` breaks ties.
#
# ## Not allowed
#
# Nothing in torch is banned: PyTorch has no mixture-of-experts layer. `nn.Linear`, `F.silu`,
# `F.softmax`, `torch.topk`, `F.one_hot`, `index_add`, `scatter`, `bincount` and `einsum` are all
# fine. Third-party MoE layers (fairscale, DeepSpeed, tutel, megablocks, transformers' Mixtral
# block) are not available in the sandbox.
#
# ## How it is graded
#
# Fifteen freshly drawn cases: `n_experts` 1 to 8, `top_k` 1, 2, 3 and `n_experts` itself,
# `dim` 12 to 200, a batch of one and sequences of one, float32 and float64, inputs at 4x scale,
# a non-contiguous input, a forward under `torch.no_grad()`, a train-mode call, an update and a
# call again, and a case where one expert's router row keeps it from every token (its gradients
# must be zero; never calling it is fine). Compared: `out`, `aux_loss`, and the gradients of `x`,
# the router and every expert's weights, with upstream gradients on both outputs.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Softmax over the experts**, per token. Hugging Face writes `softmax(logits, dim=1)` on
#   flattened `(tokens, n_experts)` logits; on a 3-D tensor `dim=1` is the sequence.
# - **Renormalise** the chosen k weights.
# - **The weight multiplies the expert's output.** A SwiGLU expert is not linear:
#   `expert(w * x) != w * expert(x)`.
# - **Route per token**, not once per sequence.
# - **The aux loss**: count all k slots in $f$, divide by the tokens, keep the factor
#   `n_experts`, and never detach $P$.
#
# ## Why it works
#
# Routing lets the layer hold many FFNs but spend the compute of `top_k`: each expert specialises
# on the tokens the router sends it, and the router learns which expert helps which token because
# the output depends on its probabilities through the renormalised weights (with `top_k = 1` and
# renormalisation the weight is exactly 1, so only the aux loss trains the router; Switch keeps
# the unnormalised probability for that reason). Routing reinforces itself: an expert that gets
# more tokens improves and is chosen more. The aux loss counters it: with $f$ fixed,
# $\partial \mathrm{aux} / \partial P_e = n\_experts \cdot f_e$, so the gradient pushes
# probability away from the experts that already receive the most tokens.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/moe_ffn`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - **Parameters:** `dim * n_experts` for the router plus `n_experts * 3 * dim * hidden_dim`.
# - **FLOPs per token:** `2 * dim * n_experts` for the router plus `top_k * 6 * dim * hidden_dim`:
#   the compute of `top_k` SwiGLU FFNs, whatever `n_experts` is. Mixtral-8x7B holds 46.7B
#   parameters and uses about 12.9B per token.
# - **Memory:** every expert's weights must be resident; activations are those of `top_k` FFNs
#   per token. Spread over devices (expert parallelism), tokens travel to their experts and back
#   in two all-to-all exchanges, and a capacity per expert bounds the buffers (tokens over it are
#   dropped in training).
# - **The loop over experts** gathers each expert's tokens (`torch.where` on the top-k indices),
#   runs one batched matmul per expert and scatters back with `index_add`; the dense version that
#   runs every expert on every token costs `n_experts / top_k` times the FLOPs.
#
# ## Test yourself
#
# - Count, for `dim = 4096`, `hidden_dim = 14336`, `n_experts = 8`, `top_k = 2`, the layer's
#   parameters and the ones a token uses.
# - Feed a batch where every token goes to expert 0 and check that the aux loss is larger than on
#   a balanced batch, and that its gradient lowers the router's probability of expert 0.
# - Write the dense version (every expert on every token, weights scattered into a
#   `(tokens, n_experts)` matrix) and check that it matches your loop.
#
# ## Background
#
# The course articles do not cover mixtures of experts. Shazeer et al. 2017 ("Outrageously Large
# Neural Networks") introduced the sparsely-gated layer, GShard (Lepikhin et al. 2020) top-2
# routing with expert capacity, the Switch Transformer (Fedus et al. 2021) top-1 routing and the
# `n_experts * sum f P` loss, and Mixtral (Jiang et al. 2024) top-2 over eight SwiGLU experts with
# renormalised weights. The expert is the SwiGLU block of the `swiglu_ffn` exercise.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 混合专家 FFN：top-k 路由与负载均衡损失
#
# 稀疏混合专家（MoE）层把一个 FFN 换成 `n_experts` 个 FFN 加一个小路由器。每个 token 只被送到得分最高的
# `top_k` 个专家，于是参数量随专家数增长，而每个 token 的计算量仍只相当于 `top_k` 个 FFN。Mixtral-8x7B 的
# 每一层都是这样（8 个 SwiGLU 专家，top-2）。路由会自我强化，所以训练时还要加一个鼓励 token 分布均匀的辅助损失。
#
# ## 要写什么
#
# ```python
# class MoEFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None: ...
#     def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: ...  # (out, aux_loss)
# ```
#
# - 参数名必须如下：`gate = nn.Linear(dim, n_experts, bias=False)`（路由器），以及
#   `experts = nn.ModuleList`，包含 `n_experts` 个 SwiGLU 专家，每个都有不带 bias 的 `w1`（门控，
#   `dim -> hidden_dim`）、`w3`（升维，`dim -> hidden_dim`）和 `w2`（降维，`hidden_dim -> dim`）。state dict
#   里是 `gate.weight` 和 `experts.{e}.w1.weight`、`experts.{e}.w2.weight`、`experts.{e}.w3.weight`。评测时会把
#   每个用例的权重拷贝进去。
# - `x` 的形状为 `(batch, seq, dim)`，dtype 为 float32 或 float64。每个 token 单独路由；记 token 数
#   $T$ = batch * seq：
#
#   $$p_t = \mathrm{softmax}(W_g x_t) \in \mathbb{R}^{n\_experts}, \qquad (v_t, i_t) = \mathrm{topk}(p_t, k)$$
#   $$w_{t,j} = \frac{v_{t,j}}{\sum_{j'} v_{t,j'}}, \qquad \mathrm{out}_t = \sum_{j=1}^{k} w_{t,j}\, E_{i_{t,j}}(x_t), \qquad E(x) = w_2(\mathrm{silu}(w_1 x) \odot w_3 x)$$
#
#   权重要**在选中的 k 个上重新归一化**（Mixtral 的约定）。像 Switch 的 top-1 那样不做归一化，在本题是一个
#   有名字的错误。对选中的 k 个 logit 再做 softmax 与此完全相同，可以；对 logits 取 `topk` 也可以（顺序相同）。
# - 辅助损失，按 Switch 的定义、即 Hugging Face 的 `load_balancing_loss_func` 对 Mixtral 的算法：
#
#   $$f_e = \frac{\#\{t : e \in i_t\}}{T}, \qquad P_e = \frac{1}{T}\sum_t p_{t,e}, \qquad \mathrm{aux} = n\_experts \sum_e f_e P_e$$
#
#   $f_e$ 统计全部 k 个分配，只除以 token 数，所以 $\sum_e f_e = k$，完全均衡的路由器得分恰好是 `top_k`。
#   $f$ 是计数，没有梯度；梯度经过 $P$ 传到路由器。
# - 返回 `(out, aux_loss)`：`out` 与 `x` 形状相同，`aux_loss` 为 0 维张量，两者的 dtype 都与 `x` 相同。softmax
#   在输入的 dtype 下计算（float32 或 float64）：float64 输入全程用 float64 计算。
# - 并列：用例的输入是连续随机数，并保证每个 token 第 k 和第 k+1 大的路由得分至少相差 0.01，所以一个 token
#   分到哪些专家，不取决于舍入误差，也不取决于 `torch.topk` 如何处理并列。
#
# ## 不允许使用
#
# torch 里没有禁用项：PyTorch 本身没有混合专家层。`nn.Linear`、`F.silu`、`F.softmax`、`torch.topk`、
# `F.one_hot`、`index_add`、`scatter`、`bincount` 和 `einsum` 都可以用。第三方 MoE 层（fairscale、DeepSpeed、
# tutel、megablocks、transformers 的 Mixtral 模块）在沙箱里不可用。
#
# ## 如何评测
#
# 十五个现场随机生成的用例：`n_experts` 从 1 到 8，`top_k` 取 1、2、3 以及 `n_experts` 本身，`dim` 从 12
# 到 200，批大小为 1 和序列长度为 1 的输入，float32 和 float64，放大 4 倍的输入，非连续输入，一次
# `torch.no_grad()` 下的前向，一次 train 模式调用、更新参数后再调用，还有一个用例让某个专家的路由权重使它收不到
# 任何 token（它的梯度必须为零；根本不调用它也可以）。比较的是 `out`、`aux_loss`，以及对 `x`、路由器和每个专家
# 权重的梯度，两个输出上都有上游梯度。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **softmax 沿专家维**、逐 token 计算。Hugging Face 在展平后的 `(tokens, n_experts)` logits 上写
#   `softmax(logits, dim=1)`；在三维张量上 `dim=1` 是序列维。
# - 选中的 k 个权重要**重新归一化**。
# - **权重乘在专家的输出上。** SwiGLU 专家不是线性的：`expert(w * x) != w * expert(x)`。
# - **逐 token 路由**，而不是每条序列只路由一次。
# - **辅助损失**：$f$ 要统计全部 k 个槽位、除以 token 数，保留 `n_experts` 这个因子，$P$ 不能 detach。
#
# ## 为什么有效
#
# 路由让这一层存着很多个 FFN，却只花 `top_k` 个 FFN 的计算量：每个专家专门处理路由器送来的那些 token，而路由器能学到
# 哪个专家对哪个 token 有用，是因为输出通过重新归一化后的权重依赖于它的概率（`top_k = 1` 且做归一化时权重恒为 1，
# 只有辅助损失在训练路由器；Switch 正因如此保留未归一化的概率）。路由会自我强化：分到更多 token 的专家变得更好，
# 于是更常被选中。辅助损失对此加以抑制：$f$ 固定时 $\partial \mathrm{aux} / \partial P_e = n\_experts \cdot f_e$，
# 梯度会把概率从已经拿到最多 token 的专家那里推开。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/moe_ffn` 返回的 `follow_ups` 字段），也列在
# 对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - **参数量：** 路由器 `dim * n_experts`，加上专家的 `n_experts * 3 * dim * hidden_dim`。
# - **每个 token 的 FLOPs：** 路由器 `2 * dim * n_experts`，加上 `top_k * 6 * dim * hidden_dim`：相当于
#   `top_k` 个 SwiGLU FFN，与 `n_experts` 无关。Mixtral-8x7B 共有 46.7B 参数，每个 token 约用 12.9B。
# - **显存：** 所有专家的权重都要常驻；激活只相当于每个 token 过 `top_k` 个 FFN。专家分布在多卡上时（专家并行），
#   token 要经过两次 all-to-all 送到专家再送回来，每个专家的容量限定了缓冲区大小（训练时超出的 token 被丢弃）。
# - **按专家循环** 的写法先收集每个专家的 token（对 top-k 下标用 `torch.where`），每个专家做一次批量矩阵乘，
#   再用 `index_add` 加回；让每个专家处理所有 token 的稠密写法，FLOPs 是它的 `n_experts / top_k` 倍。
#
# ## 自我检验
#
# - 算一算 `dim = 4096`、`hidden_dim = 14336`、`n_experts = 8`、`top_k = 2` 时这一层的参数量，以及一个 token
#   实际用到的参数量。
# - 构造一批全部路由到专家 0 的 token，检查辅助损失比均衡时更大，并且它的梯度会降低路由器给专家 0 的概率。
# - 写出稠密版本（每个专家处理所有 token，权重散布到 `(tokens, n_experts)` 矩阵里），检查它与你的循环版本一致。
#
# ## 背景
#
# 课程文章没有涉及混合专家。Shazeer 等人 2017（“Outrageously Large Neural Networks”）提出了稀疏门控的 MoE 层，
# GShard（Lepikhin 等人 2020）引入了 top-2 路由和专家容量，Switch Transformer（Fedus 等人 2021）采用 top-1
# 路由和 `n_experts * sum f P` 损失，Mixtral（Jiang 等人 2024）在八个 SwiGLU 专家上做 top-2 并对权重重新归一化。
# 专家本身就是 `swiglu_ffn` 练习里的 SwiGLU 模块。
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
#    `# addnorm: exercise moe_ffn`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise moe_ffn` 不要删：提交单元格发送的是
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
# addnorm: exercise moe_ffn
import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.one_hot, F.softmax: yours to use)
from torch import nn


class _Expert(nn.Module):
    """One SwiGLU expert. The grader loads experts.{e}.w1/w2/w3.weight: keep these names."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("implement _Expert.forward: w2(silu(w1(x)) * w3(x))")


class MoEFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None:
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)  # the router
        self.experts = nn.ModuleList(_Expert(dim, hidden_dim) for _ in range(n_experts))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # x: (batch, seq, dim). Route every token: softmax over the experts, top_k of them,
        # weights renormalised over the k; out = sum of weight * expert(token).
        # aux_loss = n_experts * sum_e f_e * P_e (f: fraction of tokens routed to e,
        # P: mean router probability of e). Return (out, aux_loss), aux_loss 0-dim.
        raise NotImplementedError("implement MoEFFN.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The layer's output and its aux loss on three small configurations, routed per token.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：三个小配置下该层的输出和辅助损失，逐 token 路由。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def _answer(state: dict[str, torch.Tensor], x: torch.Tensor, n: int, k: int) -> list[torch.Tensor]:
    t = x.reshape(-1, x.shape[-1])
    probs = F.softmax(F.linear(t, state["gate.weight"]), dim=-1)
    top_p, top_i = probs.topk(k, dim=-1)
    w = torch.zeros_like(probs).scatter(1, top_i, top_p / top_p.sum(-1, keepdim=True))
    out = sum(
        w[:, e : e + 1]
        * F.linear(
            F.silu(F.linear(t, state[f"experts.{e}.w1.weight"]))
            * F.linear(t, state[f"experts.{e}.w3.weight"]),
            state[f"experts.{e}.w2.weight"],
        )
        for e in range(n)
    )
    f = F.one_hot(top_i, n).sum(1).to(x.dtype).mean(0)
    return [torch.as_tensor(out).reshape(x.shape), n * (f * probs.mean(0)).sum()]


def _part(
    cls: Any, args: tuple[int, int, int, int], state: dict[str, torch.Tensor], which: int
) -> Callable[..., torch.Tensor]:
    """The learner's layer with the case's weights, as a function of x and those weights
    (named like the state dict), returning one of its two outputs."""
    module = cls(*args)
    module.load_state_dict(state, strict=True)

    def call(x: torch.Tensor, **weights: torch.Tensor) -> torch.Tensor:
        given = {**state, **weights}
        given = {k: v.to(x.dtype) for k, v in given.items()}
        out: torch.Tensor = torch.func.functional_call(module, given, (x,))[which]
        return out

    return call


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    cases: list[LocalCase] = []
    for name, shape, hidden, n, k in (
        ("top-2 of 4", (2, 3, 8), 12, 4, 2),
        ("top-1 of 3", (1, 5, 6), 8, 3, 1),
    ):
        dim = shape[-1]
        state = {"gate.weight": torch.randn(n, dim, generator=g) / dim**0.5}
        for e in range(n):
            state[f"experts.{e}.w1.weight"] = torch.randn(hidden, dim, generator=g) / dim**0.5
            state[f"experts.{e}.w2.weight"] = torch.randn(dim, hidden, generator=g) / hidden**0.5
            state[f"experts.{e}.w3.weight"] = torch.randn(hidden, dim, generator=g) / dim**0.5
        x = torch.randn(shape, generator=g)
        answers = _answer(state, x, n, k)
        args = (dim, hidden, n, k)
        for which, what in ((0, "output"), (1, "aux loss")):

            def build(
                cls: Any,
                a: tuple[int, int, int, int] = args,
                s: dict[str, torch.Tensor] = state,
                w: int = which,
            ) -> Callable[..., torch.Tensor]:
                return _part(cls, a, s, w)

            cases.append(
                LocalCase(
                    name=f"{name}, {what}",
                    x=x,
                    build=build,
                    expected=answers[which],
                    leaves=state,
                )
            )
    return cases


from addnorm_client.local import check

check("moe_ffn", "MoEFFN", local_cases())

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

submit_cell("moe_ffn")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What would happen during training without the load-balancing loss? (`moe-aux-loss-purpose`, `questions_moe`)
# 2. Which factor of the aux loss carries its gradient, and why not the other? (`moe-aux-gradient`, `questions_moe`)
# 3. What is expert capacity, and what happens to a token over it? (`moe-capacity-dropped`, `questions_moe`)
# 4. How many parameters does Mixtral-8x7B hold, and how many does one token use? (`moe-mixtral-active`, `questions_moe`)
# 5. Mixtral renormalises the top-k weights, Switch does not. What does that change? (`moe-renormalise`, `questions_moe`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 训练时如果没有负载均衡损失，会发生什么？ (`moe-aux-loss-purpose`, `questions_moe`)
# 2. 辅助损失里哪一项带梯度？另一项为什么不带？ (`moe-aux-gradient`, `questions_moe`)
# 3. 什么是专家容量？超出容量的 token 会怎样？ (`moe-capacity-dropped`, `questions_moe`)
# 4. Mixtral-8x7B 有多少参数？一个 token 实际用到多少？ (`moe-mixtral-active`, `questions_moe`)
# 5. Mixtral 会对 top-k 权重重新归一化，Switch 不会。这会带来什么区别？ (`moe-renormalise`, `questions_moe`)
#
# </details>
