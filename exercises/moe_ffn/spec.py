"""Grading spec for ``moe_ffn``: a sparse mixture-of-experts FFN with top-k routing and the
load-balancing auxiliary loss, as Mixtral's layer and Hugging Face's
``load_balancing_loss_func`` compute them.

Contract: ``MoEFFN(dim, hidden_dim, n_experts, top_k=2)`` with a bias-free router ``gate``
(dim -> n_experts) and ``experts``, an ``nn.ModuleList`` of SwiGLU experts (``w1`` gate, ``w3``
up, ``w2`` down, bias-free). ``forward(x)`` on ``(batch, seq, dim)`` returns ``(out, aux_loss)``:

    p = softmax(gate(x), -1)                   per token, over the experts, in x's dtype
    top_p, top_i = topk(p, top_k)              torch.topk's choice
    w = top_p / top_p.sum(-1)                  renormalised over the chosen k (Mixtral)
    out[t] = sum_j w[t, j] * experts[top_i[t, j]](x[t])
    f_e = (number of tokens whose top-k holds e) / T     (sum_e f_e = top_k; HF's tokens_per_expert)
    P_e = mean over the T tokens of p[t, e]
    aux_loss = n_experts * sum_e f_e * P_e     (a 0-dim tensor in x's dtype; k when balanced)

The cases keep every token's k-th and (k+1)-th router probabilities apart (``_routed``): a
selection that rounding could flip would test the comparison, not the learner. An expert that
receives no token has zero gradients; a solution that never calls it leaves them at None, which
the grader compares as zeros where the reference's are zeros.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.draw import choice, described, linear_weight, normal, scenario, update
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, non_contiguous, same
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Layout, Step


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, layer.weight, layer.bias)


class Expert(nn.Module):
    """One SwiGLU expert: w2(silu(w1(x)) * w3(x)), bias-free."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


class MoEFFN(nn.Module):
    """The reference, and the constructor every mistake below shares."""

    def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None:
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList(Expert(dim, hidden_dim) for _ in range(n_experts))

    def probabilities(self, flat: torch.Tensor) -> torch.Tensor:
        """(T, dim) -> (T, n_experts): the router's softmax per token."""
        return torch.softmax(_lin(self.gate, flat), dim=-1)

    def weights(self, probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        top_p, top_i = torch.topk(probs, self.top_k, dim=-1)
        return top_p / top_p.sum(dim=-1, keepdim=True), top_i

    def combine(
        self, flat: torch.Tensor, weights: torch.Tensor, top_i: torch.Tensor
    ) -> torch.Tensor:
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            # Every expert runs, on the tokens routed to it (none at all included): an expert
            # that receives nothing gets a zero gradient, not a missing one.
            tok, slot = torch.where(top_i == e)
            out = out.index_add(0, tok, expert(flat[tok]) * weights[tok, slot].unsqueeze(-1))
        return out

    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        routed = F.one_hot(top_i, self.n_experts).to(probs.dtype)  # (T, k, E)
        f = routed.sum(dim=1).mean(dim=0)  # fraction of tokens sent to each expert
        p_mean = probs.mean(dim=0)
        return self.n_experts * (f * p_mean).sum()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, s, d = x.shape
        flat = x.reshape(b * s, d)
        probs = self.probabilities(flat)
        weights, top_i = self.weights(probs)
        out = self.combine(flat, weights, top_i)
        return out.reshape(b, s, d), self.aux(probs, top_i)


# --- the cases --------------------------------------------------------------------------------

# The least gap, in logits, between a token's k-th and (k+1)-th router score in every case the
# spec draws. Rounding moves a float32 logit by about 1e-7 of its size: a gap of 1e-2 leaves
# five orders of magnitude, so two correct solutions (or the reference's float64 and float32
# runs) always choose the same experts. About 2% of drawn tokens are redrawn for it.
MARGIN = 1e-2


def _bad(gate: torch.Tensor, x: torch.Tensor, k: int, starve: int | None) -> torch.Tensor:
    """Per token of x (..., dim): True where its k-th and (k+1)-th router logits are closer
    than ``MARGIN``, or where the expert ``starve`` is among its top k."""
    logits = x.double().reshape(-1, x.shape[-1]) @ gate.double().T
    n = logits.shape[-1]
    top = torch.topk(logits, min(k + 1, n), dim=-1)
    bad = torch.zeros(logits.shape[0], dtype=torch.bool)
    if k < n:
        bad |= top.values[:, k - 1] - top.values[:, k] < MARGIN
    if starve is not None:
        bad |= (top.indices[:, :k] == starve).any(dim=-1)
    return bad


def _routed(
    gen: torch.Generator,
    shape: tuple[int, ...],
    dtype: torch.dtype,
    gate: torch.Tensor,
    k: int,
    *,
    scale: float = 1.0,
    starve: int | None = None,
) -> torch.Tensor:
    """N(0, scale^2) tokens, each redrawn until its k-th and (k+1)-th router logits under
    ``gate`` are ``MARGIN`` apart. With ``starve``: feature 0 is |N(0,1)| + 1 and no token
    picks the expert ``starve`` (whose router row is -8 on feature 0)."""

    def fresh(rows: int) -> torch.Tensor:
        t = normal(gen, (rows, shape[-1]), torch.float32, std=scale)
        if starve is not None:
            t[:, 0] = t[:, 0].abs() + 1.0
        return t

    flat = fresh(math.prod(shape[:-1]))
    for _ in range(200):
        bad = _bad(gate, flat.to(dtype), k, starve)
        if not bool(bad.any()):
            return flat.reshape(shape).to(dtype)
        flat[bad] = fresh(int(bad.sum()))
    raise AssertionError("no margin after 200 draws")  # p < 1e-300


def moe_parameters(
    gen: torch.Generator, dim: int, hidden: int, n_experts: int, dtype: torch.dtype
) -> dict[str, torch.Tensor]:
    """The router at a std of 1 per logit (so its probabilities are far from uniform) and each
    expert's w1, w2, w3 at nn.Linear's scale: every draw independent."""
    state = {"gate.weight": normal(gen, (n_experts, dim), dtype, std=1.0 / math.sqrt(dim))}
    for e in range(n_experts):
        state[f"experts.{e}.w1.weight"] = linear_weight(gen, hidden, dim, dtype)
        state[f"experts.{e}.w2.weight"] = linear_weight(gen, dim, hidden, dtype)
        state[f"experts.{e}.w3.weight"] = linear_weight(gen, hidden, dim, dtype)
    return state


ROUTER_AND_EXPERTS = Phrase("random router and expert weights", "路由器和各专家的权重取随机值")
MARGIN_WORDS = Phrase(
    "every token's k-th and (k+1)-th router scores at least 0.01 apart",
    "每个 token 第 k 和第 k+1 大的路由得分至少相差 0.01",
)
STARVED = Phrase(
    "expert {e}'s router row is -8 on feature 0 and feature 0 is at least 1: it receives no token",
    "专家 {e} 的路由权重在第 0 维上为 -8，且第 0 维特征不小于 1：它收不到任何 token",
)


def _upstream(gen: torch.Generator, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Upstream gradients for (out, aux_loss): the aux loss's is a scalar around 1, so its
    gradient reaches the router as much as the output's does."""
    return normal(gen, x.shape, x.dtype), (1.0 + 0.5 * normal(gen, (), torch.float32)).to(x.dtype)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, int, int],
        hidden: int,
        n_experts: int,
        top_k: int,
        dtype: torch.dtype,
        *,
        scale: float = 1.0,
        backward: bool = True,
        layout: Layout = "contiguous",
        train_update: bool = False,
        starve: int | None = None,
    ) -> None:
        dim = shape[-1]
        state = moe_parameters(gen, dim, hidden, n_experts, dtype)
        extra = [
            Phrase(
                f"hidden_dim = {hidden}, n_experts = {n_experts}, top_k = {top_k}",
                f"hidden_dim = {hidden}，n_experts = {n_experts}，top_k = {top_k}",
            ),
            ROUTER_AND_EXPERTS,
        ]
        what = same("N(0,1)" if scale == 1.0 else f"{scale:g} * N(0,1)")
        if starve is not None:
            gate = state["gate.weight"].clone()
            gate[starve, 0] = -8.0
            state["gate.weight"] = gate
            extra.append(Phrase(STARVED.en.format(e=starve), STARVED.zh.format(e=starve)))
        x = _routed(gen, shape, dtype, state["gate.weight"], top_k, scale=scale, starve=starve)
        if starve is not None:
            what = Phrase("N(0,1), feature 0 as |N(0,1)| + 1", "N(0,1)，第 0 维特征取 |N(0,1)| + 1")
        if top_k < n_experts:
            extra.append(MARGIN_WORDS)
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        grads = _upstream(gen, x) if backward else None
        steps: list[Step] = [Call((x,), grads, train=train_update, layout=layout)]
        if train_update:
            extra.append(
                Phrase(
                    "a train-mode call then an update of every weight and an eval-mode call "
                    "on a batch of 1",
                    "先以 train 模式调用，更新全部权重后，再以 eval 模式在批大小为 1 的输入上调用",
                )
            )
            step = update(gen, state)
            moved = state["gate.weight"] + step.deltas["gate.weight"]
            again = _routed(gen, (1, *shape[1:]), dtype, moved, top_k)
            steps += [
                step,
                Call(
                    (again,),
                    _upstream(gen, again),
                    note="after the update, on a batch of 1",
                    note_zh="参数更新之后，批大小为 1",
                ),
            ]
        words = described(x, what, *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={
                    "dim": dim,
                    "hidden_dim": hidden,
                    "n_experts": n_experts,
                    "top_k": top_k,
                },
                state=state,
            )
        )

    # First: every expert chosen (top_k = n_experts), so the platform's repeated calls, drawn
    # from this case with fresh data, have no choice that rounding could flip.
    add("all_experts_chosen", (2, 5, 24), 32, 3, 3, f32)
    add("top2_of_4", (2, 6, 32), 48, 4, 2, f32)
    add("top2_of_8_f64", (3, 4, 16), 24, 8, 2, f64)
    add("top1_switch", (2, 7, 24), 32, 4, 1, f32)
    add("top1_f64", (2, 5, 12), 20, 6, 1, f64)
    add("expert_starved", (2, 8, 16), 24, 4, 2, f64, starve=choice(gen, [0, 1, 2, 3]))
    add("train_update_eval", (2, 4, 24), 32, 4, 2, f32, train_update=True)
    add("batch_of_one", (1, 9, 20), 28, 5, 2, f32)
    add("seq_of_one", (4, 1, 20), 28, 4, 2, f64)
    add("one_expert", (2, 3, 16), 24, 1, 1, f64)
    add("top3_of_4_f64", (2, 5, 12), 16, 4, 3, f64)
    add("wide_200", (1, 6, 200), 16, 4, 2, f32)
    add("large_scale", (2, 4, 16), 24, 4, 2, f32, scale=4.0)
    add("forward_no_grad", (2, 5, 24), 32, 4, 2, f32, backward=False)
    add("transposed", (3, 4, 24), 32, 4, 2, f32, layout="transposed")
    return cases


# --- the known mistakes -------------------------------------------------------------------------


class NoRenormalisation(MoEFFN):
    def weights(self, probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        top_p, top_i = torch.topk(probs, self.top_k, dim=-1)
        return top_p, top_i


class WeightBeforeExpert(MoEFFN):
    def combine(
        self, flat: torch.Tensor, weights: torch.Tensor, top_i: torch.Tensor
    ) -> torch.Tensor:
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            tok, slot = torch.where(top_i == e)
            out = out.index_add(0, tok, expert(flat[tok] * weights[tok, slot].unsqueeze(-1)))
        return out


class SoftmaxOverSequence(MoEFFN):
    """The router's softmax over the sequence axis of (batch, seq, n_experts) logits."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, s, d = x.shape
        probs = torch.softmax(_lin(self.gate, x), dim=1).reshape(b * s, -1)
        flat = x.reshape(b * s, d)
        weights, top_i = self.weights(probs)
        return self.combine(flat, weights, top_i).reshape(b, s, d), self.aux(probs, top_i)


class SoftmaxOverTokens(MoEFFN):
    """The same mistake on flattened (tokens, n_experts) logits: softmax over the tokens."""

    def probabilities(self, flat: torch.Tensor) -> torch.Tensor:
        return torch.softmax(_lin(self.gate, flat), dim=0)


class RoutingPerSequence(MoEFFN):
    """One routing decision per sequence, from its mean logits, for all of its tokens."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        probs = torch.softmax(_lin(self.gate, x.mean(dim=1)), dim=-1)  # (b, E)
        weights, top_i = self.weights(probs)
        dense = torch.zeros_like(probs).scatter(1, top_i, weights)  # (b, E), 0 off the top-k
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):  # every expert: zero gradients, not missing
            out = out + dense[:, e, None, None] * expert(x)
        return out, self.aux(probs, top_i)


class AuxProbabilitiesForF(MoEFFN):
    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        p_mean = probs.mean(dim=0)
        return self.n_experts * (p_mean * p_mean).sum()


class AuxFirstChoiceOnly(MoEFFN):
    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        f = F.one_hot(top_i[:, 0], self.n_experts).to(probs.dtype).mean(dim=0)
        return self.n_experts * (f * probs.mean(dim=0)).sum()


class AuxWithoutExpertCount(MoEFFN):
    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        return super().aux(probs, top_i) / self.n_experts


class AuxOverSlots(MoEFFN):
    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        return super().aux(probs, top_i) / self.top_k


class AuxProbabilitiesDetached(MoEFFN):
    def aux(self, probs: torch.Tensor, top_i: torch.Tensor) -> torch.Tensor:
        return super().aux(probs.detach(), top_i)


MISTAKES = (
    KnownMistake(
        name="no_renormalisation",
        title="Gate weights not renormalised over the chosen experts",
        explanation=(
            "You weighted each chosen expert by its softmax probability over all n_experts, so "
            "a token's weights sum to less than 1 (the probability mass of the experts it was "
            "not sent to is lost). That is the Switch Transformer's top-1 convention (and "
            "Qwen-MoE's norm_topk_prob=False); this contract is Mixtral's: divide the top-k "
            "probabilities by their sum, w = top_p / top_p.sum(-1, keepdim=True). (A softmax "
            "over the k chosen logits is the same thing and is fine.)"
        ),
        title_zh="没有在选中的专家上重新归一化门控权重",
        explanation_zh=(
            "你用每个被选中专家在全部 n_experts 上的 softmax 概率作为权重，于是一个 token 的权重"
            "之和小于 1（没被选中的专家那部分概率被丢掉了）。"
            "这是 Switch Transformer 在 top-1 路由下的做法"
            "（也是 Qwen-MoE 的 norm_topk_prob=False）；"
            "本题按 Mixtral 的约定：把 top-k 概率除以它们"
            "的和，即 w = top_p / top_p.sum(-1, keepdim=True)。（对选中的 k 个 logit 再做一次 "
            "softmax 与此完全相同，也算对。）"
        ),
        build=NoRenormalisation,
    ),
    KnownMistake(
        name="weight_before_expert",
        title="Gate weight applied to the expert's input instead of its output",
        explanation=(
            "You fed w * x to the expert instead of multiplying the expert's output by w. A "
            "SwiGLU expert is not linear (silu, and the product of two projections), so "
            "expert(w * x) is not w * expert(x): for small w it shrinks roughly like w^2 times "
            "the gate's slope, not like w. Fix: out += w * expert(x_token)."
        ),
        title_zh="门控权重乘在了专家的输入上，而不是输出上",
        explanation_zh=(
            "你把 w * x 送进专家，而不是把专家的输出乘以 w。SwiGLU 专家不是线性的（有 silu，还有"
            "两个投影相乘），所以 expert(w * x) 不等于 w * expert(x)：w 较小时前者大致按 w 的平方"
            "缩小，而不是按 w。改法：out += w * expert(x_token)。"
        ),
        build=WeightBeforeExpert,
    ),
    KnownMistake(
        name="softmax_wrong_axis",
        title="Router softmax taken over the tokens instead of the experts",
        explanation=(
            "Your router's softmax normalises over the sequence (dim=1 of the (batch, seq, "
            "n_experts) logits) or over all tokens (dim=0 of the flattened (tokens, n_experts) "
            "logits). Each token needs a distribution over the experts: softmax(logits, "
            "dim=-1). Hugging Face's Mixtral writes dim=1 because its logits are already "
            "flattened to (tokens, n_experts); on a 3-D tensor dim=1 is the sequence."
        ),
        title_zh="路由器的 softmax 沿 token 维而不是专家维计算",
        explanation_zh=(
            "你的路由 softmax 是沿序列维（(batch, seq, n_experts) 的 dim=1）或沿全部 token（展平后 "
            "(tokens, n_experts) 的 dim=0）归一化的。每个 token 需要的是在各专家上的一个分布："
            "softmax(logits, dim=-1)。Hugging Face "
            "的 Mixtral 写 dim=1，是因为它的 logits 已经展平成 "
            "(tokens, n_experts)；在三维张量上 dim=1 是序列维。"
        ),
        build=SoftmaxOverSequence,
        forms=(SoftmaxOverTokens,),
    ),
    KnownMistake(
        name="routing_per_sequence",
        title="One routing decision per sequence instead of per token",
        explanation=(
            "You chose the experts once per sequence (from its mean router logits) and sent "
            "every token of the sequence to them with the same weights. A mixture-of-experts "
            "layer routes each token on its own: logits (tokens, n_experts), a top-k per row. "
            "Fix: flatten x to (batch * seq, dim) before the router and route every row."
        ),
        title_zh="每条序列只做一次路由，而不是每个 token 各自路由",
        explanation_zh=(
            "你对每条序列只选一次专家（用它的平均路由 logits），再把这条序列的所有 token 按同样的"
            "权重送过去。MoE 层是逐 token 路由的：logits 形状为 (tokens, n_experts)，每一行各取 "
            "top-k。改法：进路由器之前先把 x 展平成 (batch * seq, dim)，每一行单独路由。"
        ),
        build=RoutingPerSequence,
    ),
    KnownMistake(
        name="aux_probabilities_for_f",
        title="Aux loss: router probabilities used for f as well as P",
        explanation=(
            "Your load-balancing loss is n_experts * sum_e P_e^2: you used the mean router "
            "probability for the fraction of tokens routed too. f_e must count the routing "
            "decisions: the fraction of tokens whose top-k contains e (one_hot of the top-k "
            "indices, summed over the k slots, averaged over tokens). The loss is n_experts * "
            "sum_e f_e * P_e; the gradient flows through P only, since f is a count."
        ),
        title_zh="辅助损失：f 也用了路由概率",
        explanation_zh=(
            "你的负载均衡损失是 n_experts * sum_e P_e^2：把平均路由概率也当成了分到各专家的 token "
            "比例。f_e 统计的是路由决策本身：top-k 里含有 e 的 token 所占比例（对 top-k 下标做 "
            "one_hot，在 k 个槽位上求和，再对 token 取平均）。损失是 n_experts * sum_e f_e * P_e；"
            "f 是计数，梯度只经过 P。"
        ),
        build=AuxProbabilitiesForF,
    ),
    KnownMistake(
        name="aux_first_choice_only",
        title="Aux loss: f counts only each token's first choice",
        explanation=(
            "Your f_e counts a token only for its top-1 expert, as Switch (top-1) does; with "
            "top_k > 1 the contract (Mixtral, Hugging Face's load_balancing_loss_func) counts "
            "every one of the k assignments: f = one_hot(top_i, n_experts).sum(1).mean(0), "
            "whose entries sum to top_k."
        ),
        title_zh="辅助损失：f 只统计了每个 token 的第一选择",
        explanation_zh=(
            "你的 f_e 只按每个 token 排第一的专家计数，这是 Switch（top-1）的情形；top_k > 1 时，"
            "本题（Mixtral、Hugging Face 的 load_balancing_loss_func）要把 k 个分配都算上："
            "f = one_hot(top_i, n_experts).sum(1).mean(0)，各项之和等于 top_k。"
        ),
        build=AuxFirstChoiceOnly,
    ),
    KnownMistake(
        name="aux_without_expert_count",
        title="Aux loss: the factor n_experts is missing",
        explanation=(
            "Your loss is sum_e f_e * P_e without the factor n_experts. With it, the loss of a "
            "perfectly balanced router does not depend on the number of experts (it is top_k "
            "here, 1 for Switch's top-1), so one coefficient (0.01, 0.02) works whatever the "
            "expert count. Fix: multiply by n_experts."
        ),
        title_zh="辅助损失：漏了 n_experts 这个因子",
        explanation_zh=(
            "你的损失是 sum_e f_e * P_e，没有乘 n_experts。乘上之后，完全均衡的路由器的损失与专家"
            "数无关（本题为 top_k，Switch 的 top-1 为 1），所以同一个系数（0.01、0.02）在任何专家数"
            "下都适用。改法：乘以 n_experts。"
        ),
        build=AuxWithoutExpertCount,
    ),
    KnownMistake(
        name="aux_over_slots",
        title="Aux loss: f divided by tokens * top_k (another paper's normalisation)",
        explanation=(
            "You averaged the one-hot assignments over tokens and slots, so your f sums to 1 "
            "and your loss is exactly 1/top_k of the contract's. Dividing by tokens * k is a "
            "convention too (DeepSeekMoE's f, up to its own scale); this exercise follows "
            "Mixtral and Hugging Face's load_balancing_loss_func: f_e = (tokens routed to e) / "
            "tokens, which sums to top_k. Fix: sum over the k slots, mean over the tokens."
        ),
        title_zh="辅助损失：f 除以了 tokens * top_k（另一种论文的归一化）",
        explanation_zh=(
            "你把 one-hot 分配同时在 token 和槽位上取平均，f 之和为 1，损失正好是本题的 1/top_k。"
            "除以 tokens * k 也是一种约定（DeepSeekMoE 的 f，不计它自己的缩放）；本题按 Mixtral 和 "
            "Hugging Face 的 load_balancing_loss_func：f_e = 分到 e 的 token 数 / token 总数，"
            "各项之和为 top_k。改法：在 k 个槽位上求和，再对 token 取平均。"
        ),
        build=AuxOverSlots,
    ),
    KnownMistake(
        name="aux_probabilities_detached",
        title="Aux loss: P detached, so the loss trains nothing",
        explanation=(
            "Your P (the mean router probability per expert) is detached. f is a count and "
            "carries no gradient anyway (detaching it changes nothing), so with P detached too "
            "the load-balancing loss has no gradient at all: the router is never pushed "
            "towards balance. The gradient must reach the router through P = probs.mean(0)."
        ),
        title_zh="辅助损失：P 被 detach，损失什么都训练不了",
        explanation_zh=(
            "你的 P（每个专家的平均路由概率）被 detach "
            "了。f 是计数，本来就没有梯度（detach 它不影响"
            "什么），P 也 detach 之后，负载均衡损失"
            "就完全没有梯度：路由器永远不会被推向均衡。梯度必须"
            "经过 P = probs.mean(0) 传到路由器。"
        ),
        build=AuxProbabilitiesDetached,
    ),
)

SPEC = ExerciseSpec(
    slug="moe_ffn",
    class_name="MoEFFN",
    reference=MoEFFN,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),
    # Per expert three matmuls, summed over k experts, and a softmax: a gated FFN's rounding.
    tolerance_scale=2.0,
    ranks=(3,),
)
