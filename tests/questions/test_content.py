"""The shipped question bank: coverage, bilingual text, valid keys, numbers checked with torch."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import torch.utils.checkpoint
import yaml
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from api.content.questions import (
    LANGS,
    QUESTION_TYPES,
    TOPICS,
    CodeReadingQuestion,
    MultipleSelectQuestion,
    NumericQuestion,
    QuestionBank,
    SingleChoiceQuestion,
    TrueFalseQuestion,
    check_answer,
)
from tests.questions.conftest import QUESTIONS_DIR, REPO

CJK = re.compile(r"[\u3400-\u9fff]")
# Chinese characters and full-width punctuation: no space belongs between two of them (a folded
# YAML line break inside Chinese prose turns into one, which reads as a typo).
_CJK_CHAR = r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"
CJK_GAP = re.compile(rf"{_CJK_CHAR}\s+{_CJK_CHAR}")
# Full-width punctuation carries its own spacing: a space after "，" or before "（" is a stray one,
# whatever follows (issue 29 found 30 of them before Latin text, which CJK_GAP does not see).
_FULL_WIDTH = r"[\u3000-\u303f\uff00-\uffef]"
FULL_WIDTH_SPACE = re.compile(rf"{_FULL_WIDTH}[ \t\n]+\S|\S[ \t\n]+{_FULL_WIDTH}")


def stray_space(text: str) -> re.Match[str] | None:
    return CJK_GAP.search(text) or FULL_WIDTH_SPACE.search(text)


def test_bank_size_and_coverage(bank: QuestionBank) -> None:
    assert len(bank) >= 200
    by_topic = bank.count_by_topic()
    assert set(by_topic) == set(TOPICS)
    assert all(n >= 10 for n in by_topic.values()), by_topic
    # Every type is represented, and spot-the-bug questions exist in more than one topic.
    by_type = bank.count_by_type()
    assert all(by_type[t] >= 5 for t in QUESTION_TYPES), by_type
    assert len({q.topic for q in bank.select(type="code_reading")}) >= 4


def test_one_file_per_topic() -> None:
    # `<topic>.yaml` or `<topic>.<part>.yaml`: every topic has a file, and no file a stray topic.
    files = {
        p.stem.split(".")[0] for p in QUESTIONS_DIR.glob("*.yaml") if not p.name.startswith("_")
    }
    assert files == set(TOPICS)


def test_ids_unique_and_stable_slugs(bank: QuestionBank) -> None:
    ids = [q.id for q in bank]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


def test_every_question_bilingual(bank: QuestionBank) -> None:
    for q in bank:
        for en, zh in ((q.prompt, q.prompt_zh), (q.explanation, q.explanation_zh)):
            assert en.strip() and zh.strip(), q.id
            assert CJK.search(zh), f"{q.id}: zh text has no Chinese"
            assert not CJK.search(en), f"{q.id}: English text contains Chinese: {en[:60]}"
        for zh in (q.prompt_zh, q.explanation_zh):
            assert not stray_space(zh), f"{q.id}: stray space in Chinese: {stray_space(zh)}"
        if isinstance(q, SingleChoiceQuestion | MultipleSelectQuestion | CodeReadingQuestion):
            for c in q.choices:
                assert c.text.strip() and c.text_zh.strip(), q.id
                assert not stray_space(c.text_zh), (q.id, stray_space(c.text_zh))
                assert not CJK.search(c.text), f"{q.id}: English choice contains Chinese"
            # Choice texts that are not formulas or code should be translated, not copied.
            translated = [c for c in q.choices if c.text != c.text_zh]
            assert translated or all(_formula_like(c.text) for c in q.choices), q.id


def test_stray_space_lint_fires() -> None:
    assert stray_space("统计量； eps 要按精度来选")
    assert stray_space("LayerNorm （eps 相同）")
    assert stray_space("中文 中文")
    assert not stray_space("用 float32 计算统计量；eps 要按精度来选（eps 相同）")


def _formula_like(text: str) -> bool:
    return bool(re.search(r"[=()^*/]|\d", text)) or text.istitle() or text.isupper()


def test_answer_keys_valid_for_type(bank: QuestionBank) -> None:
    for q in bank:
        match q:
            case SingleChoiceQuestion() | CodeReadingQuestion():
                assert 0 <= q.answer < len(q.choices)
            case MultipleSelectQuestion():
                assert q.answer and len(set(q.answer)) == len(q.answer)
                assert all(0 <= i < len(q.choices) for i in q.answer)
                # "Every option is right" is allowed on purpose: test_lint requires some, so that
                # "there is always a wrong one" is not a trick that works.
            case TrueFalseQuestion():
                assert isinstance(q.answer, bool)
            case NumericQuestion():
                assert math.isfinite(q.answer)
                assert q.tolerance.absolute is not None or q.tolerance.relative is not None


def test_true_false_not_all_one_way(bank: QuestionBank) -> None:
    keys = [q.answer for q in bank.select(type="true_false") if isinstance(q, TrueFalseQuestion)]
    assert keys.count(True) >= 3 and keys.count(False) >= 3


def test_answer_keys_are_spread(bank: QuestionBank) -> None:
    # Guessing "always the first option" (or any fixed position) must not pass the quiz.
    keys = Counter(
        q.answer for q in bank if isinstance(q, SingleChoiceQuestion | CodeReadingQuestion)
    )
    assert max(keys.values()) <= sum(keys.values()) / 2, keys
    selections = Counter(tuple(q.answer) for q in bank if isinstance(q, MultipleSelectQuestion))
    assert max(selections.values()) <= sum(selections.values()) / 2, selections


def test_every_key_grades_as_correct(bank: QuestionBank) -> None:
    for q in bank:
        key: object = q.answer
        if isinstance(q, MultipleSelectQuestion):
            key = list(q.answer)
        for lang in LANGS:
            result = check_answer(q, key, lang)
            assert result.correct, q.id
            assert result.explanation in (q.explanation, q.explanation_zh)


# --------------------------------------------------------------------------- sources


def _material_dir() -> Path | None:
    # CI checks out ../shared beside the clone; the service itself never reads it.
    for candidate in (REPO.parent / "shared" / "material", Path("/work/shared/material")):
        if candidate.is_dir():
            return candidate
    return None


def test_sources_manifest_matches_material(bank: QuestionBank) -> None:
    material = _material_dir()
    if material is None:
        pytest.skip("../shared/material not found beside the repository")
    for article in bank.sources:
        path = material / article.file
        assert path.is_file(), f"{article.file} not in {material}"
        text = path.read_text(encoding="utf-8")
        for section in article.sections:
            assert section in text, f"{article.file}: no section heading {section!r}"


def test_every_cited_source_is_in_manifest(bank: QuestionBank) -> None:
    manifest = yaml.safe_load((QUESTIONS_DIR / "_sources.yaml").read_text(encoding="utf-8"))
    known = {(a["title"], s) for a in manifest["articles"] for s in a["sections"]}
    cited = [q for q in bank if q.source is not None]
    for q in cited:
        assert q.source is not None and (q.source.article, q.source.section) in known, q.id
    # Each article is used.
    assert {q.source.article for q in cited if q.source} == {
        a["title"] for a in manifest["articles"]
    }


def test_beyond_the_material_names_its_references(bank: QuestionBank) -> None:
    # A question the course articles do not cover says so and names where its claim comes from.
    for q in bank:
        if q.source is None:
            assert q.references and all(len(r) > 10 for r in q.references), q.id


def test_no_text_names_a_material_file(bank: QuestionBank) -> None:
    # Learners cannot open the material's files: an article is named by its title.
    for q in bank:
        texts = [q.prompt, q.prompt_zh, q.explanation, q.explanation_zh, *q.references]
        if isinstance(q, SingleChoiceQuestion | MultipleSelectQuestion | CodeReadingQuestion):
            texts += [t for c in q.choices for t in (c.text, c.text_zh)]
        for text in texts:
            assert not re.search(r"\.txt\b|\b00[0-9]_[0-9a-f]{8}|(article|文章)\s*00[0-9]", text), (
                q.id,
                text[:80],
            )


# --------------------------------------------------------------------------- numbers, recomputed


def _params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


class _SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)


def _ffn(d: int, d_ff: int, bias: bool) -> nn.Module:
    return nn.Sequential(nn.Linear(d, d_ff, bias=bias), nn.ReLU(), nn.Linear(d_ff, d, bias=bias))


def _ffn_share() -> float:
    d = 64
    attn = _params(nn.MultiheadAttention(d, num_heads=4, bias=False))
    ffn = _params(_ffn(d, 4 * d, bias=False))
    return ffn / (attn + ffn)


def _matched_swiglu_width() -> float:
    d = 768
    target = _params(_ffn(d, 4 * d, bias=False))
    hidden = target // (3 * d)
    assert _params(_SwiGLU(d, hidden)) == target
    return hidden


def _bottleneck_ffn() -> float:
    dim, expansion = 512, 4
    net = nn.Sequential(
        nn.Linear(dim, dim // 2),
        nn.GELU(),
        nn.Linear(dim // 2, dim * expansion // 2),
        nn.GELU(),
        nn.Linear(dim * expansion // 2, dim),
    )
    return _params(net)


def _llama_hidden(dim: int, multiple_of: int) -> int:
    # LLaMA's FeedForward: hidden = int(2 * 4 * dim / 3), rounded up to a multiple of multiple_of.
    hidden = int(2 * (4 * dim) / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def _forward_flops(module: nn.Module, dim: int) -> float:
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        module(torch.randn(1, dim))
    return counter.get_total_flops()


def _three_layer_grad() -> float:
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(3):
        y = y + 0.1 * y
    (grad,) = torch.autograd.grad(y, x)
    return grad.item()


def _variance_scale() -> float:
    gen = torch.Generator().manual_seed(0)
    x, fx = torch.randn(2, 200_000, generator=gen, dtype=torch.float64)
    c = math.sqrt(0.5)
    assert abs((c * (x + fx)).var().item() - 1.0) < 0.02
    return c


def _residual_stream_variance(blocks: int) -> float:
    # Simulate the stream; the key is the exact sum, the simulation must land within 2% of it.
    gen = torch.Generator().manual_seed(0)
    stream = torch.randn(400_000, dtype=torch.float64, generator=gen)
    for _ in range(blocks):
        stream = stream + torch.randn(400_000, dtype=torch.float64, generator=gen)
    measured = stream.var().item()
    exact = float(blocks + 1)
    assert abs(measured - exact) / exact < 0.02
    return exact


def _n_normalisations(shape: tuple[int, ...], normalized: list[int]) -> float:
    x = torch.randn(*shape)
    _, mean, _ = torch.native_layer_norm(x, normalized, None, None, 1e-5)
    return mean.numel()


def _bn_statistics() -> float:
    # Values pooled per mean: BatchNorm's per-channel mean over (N, L) equals the mean of those.
    x = torch.randn(8, 512, 128, dtype=torch.float64)  # (N, C, L): channels = the D features
    bn = nn.BatchNorm1d(512, momentum=1.0, dtype=torch.float64)
    bn(x)
    assert bn.running_mean is not None
    assert torch.allclose(bn.running_mean, x.mean(dim=(0, 2)))
    return x.numel() / bn.running_mean.numel()


def _bn_running_mean() -> float:
    bn = nn.BatchNorm1d(1, momentum=0.1)
    for _ in range(2):
        bn(torch.tensor([[1.0], [3.0]]))  # batch mean exactly 2
    assert bn.running_mean is not None
    return bn.running_mean.item()


def _padded_variance() -> float:
    real = torch.tensor([1.9, 2.1], dtype=torch.float64).repeat(50)  # mean 2, variance 0.01
    batch = torch.cat([real, torch.zeros(100, dtype=torch.float64)])
    bn = nn.BatchNorm1d(1, momentum=1.0, dtype=torch.float64)  # running_var := batch variance
    bn(batch.view(-1, 1))
    assert bn.running_var is not None
    # running_var is unbiased; BatchNorm normalises with the biased one.
    n = batch.numel()
    p = 0.5
    formula = p * 0.01 + p * (1 - p) * 2.0**2
    assert bn.running_var.item() * (n - 1) / n == pytest.approx(formula, rel=1e-9)
    return batch.var(unbiased=False).item()


def _folded_bias() -> float:
    linear = nn.Linear(1, 1)
    bn = nn.BatchNorm1d(1, eps=0.0)
    with torch.no_grad():
        linear.weight.fill_(2.0)
        linear.bias.fill_(1.0)
        bn.running_mean.fill_(3.0)  # type: ignore[union-attr]
        bn.running_var.fill_(4.0)  # type: ignore[union-attr]
        bn.bias.fill_(0.5)
    bn.eval()
    assert bn.running_var is not None and bn.running_mean is not None
    s = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    folded = nn.Linear(1, 1)
    with torch.no_grad():
        folded.weight.copy_(linear.weight * s[:, None])
        folded.bias.copy_(s * (linear.bias - bn.running_mean) + bn.bias)
    x = torch.randn(16, 1)
    assert torch.allclose(folded(x), bn(linear(x)), atol=1e-6)
    return folded.bias.item()


def _group_norm_means(shape: tuple[int, ...], groups: int) -> float:
    x = torch.randn(*shape)
    n, c = shape[:2]
    _, mean, _ = torch.native_group_norm(x, None, None, n, c, x[0, 0].numel(), groups, 1e-5)
    return mean.numel()


def _sigmoid_max_grad() -> float:
    x = torch.linspace(-6, 6, 12001, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.sigmoid(x).sum(), x)
    return grad.max().item()


def _cross_entropy_grad() -> float:
    z = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(F.cross_entropy(z[None], torch.tensor([2])), z)
    assert torch.allclose(grad, torch.softmax(z.detach(), 0) - torch.tensor([0, 0, 1.0]).double())
    return grad[2].item()


def _fp16_square_overflow() -> float:
    for n in range(1, 1000):
        if torch.isinf(torch.tensor(float(n), dtype=torch.float16) ** 2):
            return n
    raise AssertionError("no overflow below 1000")


def _kaiming_std() -> float:
    layer = nn.Linear(512, 2048)
    nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    expected = nn.init.calculate_gain("relu") / math.sqrt(layer.weight.shape[1])
    assert abs(layer.weight.std().item() - expected) / expected < 0.02
    return expected


def _gpt2_init_std() -> float:
    # nanoGPT: std = 0.02 / sqrt(2 * n_layer) on c_proj weights.
    n_layer = 12
    return 0.02 / math.sqrt(2 * n_layer)


def _layer_norm_dx(x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    x = x.detach().to(torch.float64).requires_grad_()
    y = F.layer_norm(x, x.shape[-1:], eps=1e-5)
    (dx,) = torch.autograd.grad(y, x, dy.to(torch.float64))
    return dx


def _residual_addition_params() -> float:
    class Residual(nn.Module):
        def __init__(self, sublayer: nn.Module) -> None:
            super().__init__()
            self.sublayer = sublayer

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.sublayer(x)

    sublayer = nn.Linear(16, 16)
    block = Residual(sublayer)
    x = torch.randn(2, 16)
    assert torch.allclose(block(x), x + sublayer(x))
    return _params(block) - _params(sublayer)


def _qk_score_std(d_k: int) -> float:
    # Simulated; the key is the exact sqrt(d_k), and the simulation must land within 2% of it.
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(50_000, d_k, dtype=torch.float64, generator=gen)
    k = torch.randn(50_000, d_k, dtype=torch.float64, generator=gen)
    measured = (q * k).sum(-1).std().item()
    exact = math.sqrt(d_k)
    assert abs(measured - exact) / exact < 0.02
    return exact


def _sdpa_divisor(d_model: int, heads: int) -> float:
    # The factor F.scaled_dot_product_attention divides by, read off its output.
    gen = torch.Generator().manual_seed(0)
    d_k = d_model // heads
    q, k = (torch.randn(1, heads, 3, d_k, dtype=torch.float64, generator=gen) for _ in range(2))
    v = torch.eye(3, dtype=torch.float64).expand(1, heads, 3, 3)
    weights = F.scaled_dot_product_attention(q, k, v)
    raw = q @ k.transpose(-2, -1)
    for divisor in (math.sqrt(d_k), math.sqrt(d_model), float(d_k)):
        if torch.allclose(weights, torch.softmax(raw / divisor, -1)):
            return divisor
    raise AssertionError("no candidate divisor matches scaled_dot_product_attention")


def _kept_dropout_unit(value: float, p: float) -> float:
    """A unit nn.Dropout keeps in training: found by seeding until the unit is kept."""
    layer = torch.nn.Dropout(p).train()
    for seed in range(100):
        torch.manual_seed(seed)
        out = layer(torch.tensor([value], dtype=torch.float64))
        if out.item() != 0.0:
            return out.item()
    raise AssertionError("never kept")


def _online_rescale(m: float, s: float, logit: float) -> float:
    """The running sum after one more logit: the old sum re-expressed against the new max."""
    m_new = max(m, logit)
    return s * math.exp(m - m_new) + math.exp(logit - m_new)


def _causal_pairs(n: int) -> float:
    q = torch.randn(1, 1, n, 4)
    allowed = torch.tril(torch.ones(n, n, dtype=torch.bool))
    # The mask torch applies with is_causal=True is the same lower triangle.
    v = torch.eye(n).expand(1, 1, n, n)
    weights = F.scaled_dot_product_attention(q, q, v, is_causal=True)[0, 0]
    assert torch.equal(weights > 0, allowed)
    return allowed.sum().item()


def _mixed_precision_adam_bytes() -> float:
    # Count the bytes of every tensor a mixed-precision Adam step keeps per parameter: fp16 model
    # weights and gradients, fp32 master weights and the two Adam moments (after one real step).
    model = nn.Linear(64, 64, bias=False).half()
    master = [p.detach().float().requires_grad_() for p in model.parameters()]
    opt = torch.optim.Adam(master, lr=1e-3)
    model(torch.randn(8, 64).half()).float().sum().backward()
    for m, p in zip(master, model.parameters(), strict=True):
        assert p.grad is not None
        m.grad = p.grad.float()
    opt.step()
    n = sum(p.numel() for p in model.parameters())
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    total += sum(
        p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None
    )
    total += sum(m.numel() * m.element_size() for m in master)
    for state in opt.state.values():
        total += sum(t.numel() * t.element_size() for k, t in state.items() if k != "step")
    return total / n


def _clip_factor(total_norm: float, max_norm: float) -> float:
    grads = [torch.randn(30, dtype=torch.float64), torch.randn(7, dtype=torch.float64)]
    scale = total_norm / torch.cat(grads).norm().item()
    params = [torch.zeros_like(g, requires_grad=True) for g in grads]
    for p, g in zip(params, grads, strict=True):
        p.grad = g * scale
    before = [p.grad.clone() for p in params if p.grad is not None]
    returned = torch.nn.utils.clip_grad_norm_(params, max_norm)
    assert returned.item() == pytest.approx(total_norm)
    factors = {
        round((p.grad / b).mean().item(), 9)
        for p, b in zip(params, before, strict=True)
        if p.grad is not None
    }
    assert len(factors) == 1  # one factor for every gradient: the direction is kept
    return factors.pop()


VEC = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)


# The optimiser questions (exercises/questions/training.optim.yaml), from torch's own optimisers.
def _adam_first_step_unit(corrected: bool) -> float:
    """Adam's first step in units of lr, with or without the bias correction; torch's own step
    anchors the corrected one."""
    g = torch.tensor([0.37], dtype=torch.float64)
    p = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    p.grad = g.clone()
    torch.optim.Adam([p], lr=1e-3, betas=(0.9, 0.999), eps=0.0).step()
    assert abs(p.item()) / 1e-3 == pytest.approx(1.0)
    m, v = (1 - 0.9) * g, (1 - 0.999) * g**2
    if corrected:
        m, v = m / (1 - 0.9), v / (1 - 0.999)
    return float((m / v.sqrt()).abs().item())


def _adamw_moment_bytes_per_param() -> float:
    model = torch.nn.Linear(16, 8)
    opt = torch.optim.AdamW(model.parameters())
    model(torch.randn(4, 16)).sum().backward()
    opt.step()
    states = [opt.state[p] for p in model.parameters()]
    moment = sum(
        s[k].numel() * s[k].element_size() for s in states for k in ("exp_avg", "exp_avg_sq")
    )
    return moment / sum(p.numel() for p in model.parameters())


def _per_tensor_clipped_total(norms: tuple[float, ...], max_norm: float) -> float:
    params = []
    for n in norms:
        p = torch.zeros(5, dtype=torch.float64, requires_grad=True)
        g = torch.randn(5, dtype=torch.float64)
        p.grad = g * (n / g.norm())
        torch.nn.utils.clip_grad_norm_([p], max_norm)  # each tensor on its own
        params.append(p)
    return float(torch.cat([p.grad for p in params if p.grad is not None]).norm().item())


def _inf_norm_factor() -> float:
    grads = [torch.tensor([3.0, -7.0]), torch.tensor([5.0, 2.0])]
    params = [torch.zeros(2, requires_grad=True) for _ in grads]
    for p, g in zip(params, grads, strict=True):
        p.grad = g.clone()
    torch.nn.utils.clip_grad_norm_(params, 3.5, norm_type=float("inf"))
    first = params[0].grad
    assert first is not None
    return float((first / grads[0]).mean().item())


def _smoothed_optimum_gap(classes: int, eps: float) -> float:
    """The target's logit minus the others' at the minimum of a smoothed cross-entropy,
    found by optimising the logits (not by the closed form the explanation gives)."""
    z = torch.zeros(1, classes, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([z], max_iter=200, tolerance_grad=1e-12, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = F.cross_entropy(z, torch.tensor([0]), label_smoothing=eps)
        loss.backward()
        return loss

    opt.step(closure)
    return (z[0, 0] - z[0, 1:].mean()).item()


def _smoothed_loss() -> float:
    logits = torch.tensor([[2.0, 0.0, 0.0]], dtype=torch.float64)
    return F.cross_entropy(logits, torch.tensor([0]), label_smoothing=0.3).item()


def _llama_layer_params(dim: int, heads: int, hidden: int) -> int:
    """One LLaMA layer with Meta's module names, built on the meta device (no memory)."""
    layer = nn.ModuleDict(
        {
            "attention_norm": nn.RMSNorm(dim, device="meta"),
            "wq": nn.Linear(dim, dim, bias=False, device="meta"),
            "wk": nn.Linear(dim, dim // heads * heads, bias=False, device="meta"),
            "wv": nn.Linear(dim, dim // heads * heads, bias=False, device="meta"),
            "wo": nn.Linear(dim, dim, bias=False, device="meta"),
            "ffn_norm": nn.RMSNorm(dim, device="meta"),
            "w1": nn.Linear(dim, hidden, bias=False, device="meta"),
            "w2": nn.Linear(hidden, dim, bias=False, device="meta"),
            "w3": nn.Linear(dim, hidden, bias=False, device="meta"),
        }
    )
    return _params(layer)


def _gqa_params(dim: int, heads: int, kv: int) -> int:
    """wq, wk, wv, wo of grouped-query attention, bias-free, on the meta device (no memory)."""
    hd = dim // heads
    shapes = ((dim, heads * hd), (dim, kv * hd), (dim, kv * hd), (heads * hd, dim))
    return sum(_params(nn.Linear(i, o, bias=False, device="meta")) for i, o in shapes)


RECOMPUTE: dict[str, Callable[[], float]] = {
    "mha-param-count": lambda: round(_gqa_params(4096, 32, 8) / 1e6, 2),
    "ffn-params-with-bias": lambda: _params(_ffn(512, 2048, bias=True)),
    "ffn-params-no-bias": lambda: _params(_ffn(512, 2048, bias=False)),
    "ffn-swiglu-params": lambda: _params(_SwiGLU(512, 2048)),
    "ffn-swiglu-matched-width": _matched_swiglu_width,
    "ffn-share-of-params": _ffn_share,
    "ffn-bottleneck-params": _bottleneck_ffn,
    "ffn-llama-hidden-size": lambda: _llama_hidden(4096, 256),
    "ffn-llama-ffn-params": lambda: _params(_SwiGLU(4096, _llama_hidden(4096, 256))),
    "ffn-forward-flops": lambda: _forward_flops(_ffn(512, 2048, bias=False), 512),
    "res-three-layer-gradient": _three_layer_grad,
    "res-sqrt-half-scaling": _variance_scale,
    "res-stream-variance-growth": lambda: _residual_stream_variance(24),
    "res-projection-shortcut-params": lambda: _params(nn.Conv2d(256, 512, 1, bias=False)),
    "ln-output-small-vector": lambda: F.layer_norm(VEC, (4,), eps=1e-5)[0].item(),
    "ln-constant-row": lambda: nn.LayerNorm(4)(torch.ones(2, 4)).abs().max().item(),
    "ln-count-normalisations": lambda: _n_normalisations((8, 128, 512), [512]),
    "ln-normalized-shape-two-dims": lambda: _n_normalisations((2, 5, 3, 4), [3, 4]),
    "ln-backward-value": lambda: _layer_norm_dx(VEC, torch.tensor([1.0, 0, 0, 0]))[0].item(),
    "bn-count-statistics": _bn_statistics,
    "bn-running-mean-update": _bn_running_mean,
    "bn-trainable-params": lambda: _params(nn.BatchNorm1d(512)),
    "bn-padding-variance": _padded_variance,
    "bn-fold-bias-value": _folded_bias,
    "bn-group-norm-count": lambda: _group_norm_means((4, 64, 16, 16), 8),
    "rms-output-small-vector": lambda: F.rms_norm(VEC, (4,), eps=1e-6)[0].item(),
    "rms-param-count": lambda: _params(nn.ModuleList(nn.RMSNorm(4096) for _ in range(2 * 32 + 1))),
    "rms-eps-none-value": lambda: nn.RMSNorm(4)(torch.tensor([1e-3, 0, 0, 0]))[0].item(),
    "rms-offset-output": lambda: F.rms_norm(VEC + 100, (4,), eps=1e-6)[0].item(),
    "np-count-norms-gpt2": lambda: 2 * 12 + 1,
    "np-deepnorm-alpha": lambda: (2 * 64) ** 0.25,
    "act-sigmoid-max-derivative": _sigmoid_max_grad,
    "act-softmax-value": lambda: torch.softmax(VEC[:3], dim=0)[2].item(),
    "act-silu-value": lambda: F.silu(torch.tensor(1.0, dtype=torch.float64)).item(),
    "act-gelu-value": lambda: F.gelu(torch.tensor(1.0, dtype=torch.float64)).item(),
    "act-cross-entropy-grad": _cross_entropy_grad,
    "tr-fp16-max": lambda: torch.finfo(torch.float16).max,
    "tr-fp16-square-overflow": _fp16_square_overflow,
    "tr-gpt2-scaled-init": _gpt2_init_std,
    "tr-kaiming-std": _kaiming_std,
    # Training at scale (exercises/questions/training.scale.yaml): the arithmetic in the open.
    "tr-attention-flops-share": lambda: 100 * (6 * 32 * 4096 * 4096) / (6 * 6.7e9),
    "tr-training-days": lambda: 6 * 7e9 * 1e12 / (256 * 312e12 * 0.4) / 86400,
    "tr-mfu-value": lambda: 100 * 3000 * 6 * 7e9 / 312e12,
    "tr-zero-stage2-memory": lambda: (2 + (2 + 12) / 64) * 7.5e9 / 1e9,
    "tr-chinchilla-tokens": lambda: 20 * 7e9 / 1e9,
    "tr-fp8-e4m3-max": lambda: torch.finfo(torch.float8_e4m3fn).max,
    "tr-deepnorm-beta-value": lambda: (8 * 64) ** -0.25,
    # Kept inputs of 24 blocks, plus the recomputed block's activations other than its input,
    # which is one of the kept ones (counting it again gives 4.4, which the tolerance rejects).
    "tr-checkpoint-peak-memory": lambda: 24 * 0.1 + (2 - 0.1),
    "tr-bf16-eps": lambda: torch.finfo(torch.bfloat16).eps,
    "res-addition-has-no-parameters": _residual_addition_params,
    "act-qk-score-std": lambda: _qk_score_std(64),
    "act-attention-scale-per-head": lambda: _sdpa_divisor(768, 12),
    "act-causal-mask-allowed-pairs": lambda: _causal_pairs(8),
    "act-online-softmax-rescale": lambda: _online_rescale(2.0, 3.0, 4.0),
    "tr-dropout-inverted-scale": lambda: _kept_dropout_unit(3.0, 0.2),
    "tr-adam-bytes-per-param": _mixed_precision_adam_bytes,
    "tr-adam-7b-model-states": lambda: 7e9 * _mixed_precision_adam_bytes() / 1e9,
    "tr-clip-grad-norm-factor": lambda: _clip_factor(10.0, 2.5),
    "dec-llama7b-layer-params": lambda: _llama_layer_params(4096, 32, 11008) / 1e6,
    "ce-label-smoothing-optimum": lambda: _smoothed_optimum_gap(10, 0.1),
    "ce-smoothed-loss-value": _smoothed_loss,
    "adamw-first-step-no-bias-correction": lambda: _adam_first_step_unit(corrected=False),
    "adamw-moments-memory": lambda: 1.3e9 * _adamw_moment_bytes_per_param() / 1e9,
    "adamw-zero-1-bytes": lambda: 2 + 2 + (_mixed_precision_adam_bytes() - 4) / 8,
    "clip-per-tensor-total": lambda: _per_tensor_clipped_total((3.0, 4.0), 1.0),
    "clip-inf-norm-coefficient": _inf_norm_factor,
}


def test_every_numeric_question_is_recomputed(bank: QuestionBank) -> None:
    numeric = {q.id for q in bank.select(type="numeric")}
    assert numeric == set(RECOMPUTE), (
        f"missing: {sorted(numeric - set(RECOMPUTE))}, stale: {sorted(set(RECOMPUTE) - numeric)}"
    )


@pytest.mark.parametrize("question_id", sorted(RECOMPUTE))
def test_numeric_answer_recomputed(bank: QuestionBank, question_id: str) -> None:
    q = bank.get(question_id)
    assert isinstance(q, NumericQuestion)
    value = float(RECOMPUTE[question_id]())
    assert q.tolerance.accepts(value, q.answer), f"{question_id}: key {q.answer}, torch {value}"
    assert check_answer(q, value).correct


def test_gelu_tanh_approximation_also_accepted(bank: QuestionBank) -> None:
    q = bank.get("act-gelu-value")
    approx = F.gelu(torch.tensor(1.0, dtype=torch.float64), approximate="tanh").item()
    assert check_answer(q, approx).correct


def test_checkpoint_peak_does_not_count_the_block_input_twice(bank: QuestionBank) -> None:
    q = bank.get("tr-checkpoint-peak-memory")
    assert not check_answer(q, 24 * 0.1 + 2).correct


def test_constant_dy_catches_only_the_missing_mean_term() -> None:
    # ln-backward-dx-formula: with constant dy the variance term is 0, the mean term is not.
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(16, dtype=torch.float64, generator=gen) * 2 + 1
    dy = torch.full((16,), 0.7, dtype=torch.float64)
    sigma = torch.sqrt(x.var(unbiased=False) + 1e-5)
    x_hat = (x - x.mean()) / sigma
    true = _layer_norm_dx(x, dy)
    no_variance_term = (dy - dy.mean()) / sigma
    no_mean_term = (dy - x_hat * (dy * x_hat).mean()) / sigma
    assert torch.allclose(no_variance_term, true, atol=1e-10)
    assert not torch.allclose(no_mean_term, true, atol=1e-3)


def test_cross_entropy_upstream_gradient_is_minus_onehot() -> None:
    # act-log-softmax-backward: d CE / d log_softmax = -onehot, and then dz = softmax - onehot.
    z = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    logp = F.log_softmax(z, -1)
    (g,) = torch.autograd.grad(F.nll_loss(logp, torch.tensor([1])), logp, retain_graph=True)
    assert torch.equal(g, -F.one_hot(torch.tensor([1]), 3).double())
    (dz,) = torch.autograd.grad(logp, z, g)
    assert torch.allclose(dz, torch.softmax(z, -1) - F.one_hot(torch.tensor([1]), 3))


def test_unbiased_layer_norm_value_is_rejected(bank: QuestionBank) -> None:
    # The article-003 LayerNorm gives -1.162 on [1, 2, 3, 4]; the tolerance must not accept it.
    q = bank.get("ln-output-small-vector")
    wrong = ((VEC - VEC.mean()) / (VEC.std() + 1e-6))[0].item()
    assert not check_answer(q, wrong).correct


# --------------------------------------------------------------------------- code, executed


def _run(question: CodeReadingQuestion) -> dict[str, object]:
    namespace: dict[str, object] = {"torch": torch, "nn": nn, "F": F}
    exec(compile(question.code, question.id, "exec"), namespace)
    return namespace


def _code(bank: QuestionBank, question_id: str) -> CodeReadingQuestion:
    q = bank.get(question_id)
    assert isinstance(q, CodeReadingQuestion)
    return q


def test_code_article003_layer_norm_differs(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "ln-std-eps-code"))
    module = ns["LayerNorm"](4, eps=1e-5)  # type: ignore[operator]
    out = module(VEC.float())
    assert out[0].item() == pytest.approx(-1.1619, abs=1e-3)
    assert not torch.allclose(out, F.layer_norm(VEC.float(), (4,), eps=1e-5), atol=1e-2)


def test_code_layer_norm_over_batch_dim(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "ln-wrong-dim-code"))
    x = torch.randn(3, 5, 8)
    out = ns["layer_norm"](x, torch.ones(8), torch.zeros(8))  # type: ignore[operator]
    assert not torch.allclose(out, F.layer_norm(x, (8,)), atol=1e-3)


def test_code_rms_norm_keepdim(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "rms-keepdim-bug"))
    module = ns["RMSNorm"](8)  # type: ignore[operator]
    x = torch.randn(1, 8, 8)
    assert not torch.allclose(module(x), F.rms_norm(x, (8,), eps=1e-6), atol=1e-3)
    with pytest.raises(RuntimeError):
        module(torch.randn(2, 8, 8))
    # One token at a time with batch > 1: no error, a (batch, batch, dim) output.
    assert module(torch.randn(3, 1, 8)).shape == (3, 3, 8)


def test_code_naive_softmax_nan(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "act-softmax-naive-code"))
    out = ns["softmax"](torch.tensor([[1000.0, 1001.0, 999.0]]))  # type: ignore[operator]
    assert torch.isnan(out).all()


def test_code_prenorm_bug(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "np-prenorm-code-bug"))
    torch.manual_seed(0)
    sub = nn.Linear(8, 8)
    block = ns["PreNormBlock"](8, sub)  # type: ignore[operator]
    x = torch.randn(4, 8) * 3 + 1
    assert not torch.allclose(block(x), x + sub(block.norm(x)), atol=1e-3)


def test_code_swiglu_gate_bug(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "ffn-swiglu-gate-bug"))
    torch.manual_seed(0)
    m = ns["SwiGLUFFN"](8, 16)  # type: ignore[operator]
    x = torch.randn(4, 8)
    assert not torch.allclose(m(x), m.w2(F.silu(m.w1(x)) * m.w3(x)), atol=1e-4)


def test_code_residual_dropout_after_add(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "res-dropout-placement-bug"))
    torch.manual_seed(0)
    block = ns["Residual"](nn.Identity(), dropout=0.5)  # type: ignore[operator]
    block.train()
    out = block(torch.ones(1000))
    # With dropout after the add, the identity path is zeroed too: about half the outputs are 0.
    assert (out == 0).float().mean().item() > 0.3


def test_code_fp16_rms_norm_overflows(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "tr-rmsnorm-fp16-code"))
    module = ns["RMSNorm"](4).half()  # type: ignore[operator]
    out = module(torch.full((1, 4), 300.0, dtype=torch.float16))
    assert not torch.isfinite(out).all() or (out == 0).all()


def test_code_article002_init_is_a_syntax_error(bank: QuestionBank) -> None:
    q = _code(bank, "tr-article002-init-code")
    with pytest.raises(SyntaxError):
        compile(q.code, q.id, "exec")
    w = torch.empty(512, 2048)
    nn.init.xavier_normal_(w, gain=0.02)
    assert w.std().item() == pytest.approx(0.02 * math.sqrt(2 / (2048 + 512)), rel=0.02)


def test_batch_norm_single_sample_raises() -> None:
    bn = nn.BatchNorm1d(16)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(torch.randn(1, 16))
    bn.eval()
    assert bn(torch.randn(1, 16)).shape == (1, 16)


def test_fp16_eps_underflow() -> None:
    assert torch.tensor(1e-8).half().item() == 0.0
    assert torch.tensor(1e-6).half().item() > 0.0


def test_layer_norm_backward_properties() -> None:
    # ln-backward-properties and ln-backward-dx-formula, checked against autograd.
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(16, dtype=torch.float64, generator=gen) * 3 + 2
    dy = torch.randn(16, dtype=torch.float64, generator=gen)
    dx = _layer_norm_dx(x, dy)
    sigma = torch.sqrt(x.var(unbiased=False) + 1e-5)
    x_hat = (x - x.mean()) / sigma
    formula = (dy - dy.mean() - x_hat * (dy * x_hat).mean()) / sigma
    assert torch.allclose(dx, formula, atol=1e-12)
    assert abs(dx.sum().item()) < 1e-12
    assert abs((dx @ x_hat).item()) < 1e-4 * dx.norm().item()  # exactly 0 when eps = 0
    assert torch.allclose(_layer_norm_dx(10 * x, dy), dx / 10, rtol=1e-4)
    # dgamma sums dy * x_hat over every token.
    xs = torch.randn(3, 5, 8, dtype=torch.float64, generator=gen)
    ln = nn.LayerNorm(8, dtype=torch.float64)
    dys = torch.randn(3, 5, 8, dtype=torch.float64, generator=gen)
    ln(xs).backward(dys)
    x_hats = F.layer_norm(xs, (8,))
    assert ln.weight.grad is not None
    assert torch.allclose(ln.weight.grad, (dys * x_hats).sum(dim=(0, 1)))


def test_code_one_pass_variance_is_nan_on_offset_input(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "ln-one-pass-variance-code"))
    x = 10000 + torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    naive = ns["layer_norm"](x)  # type: ignore[operator]
    assert torch.isnan(naive).all()
    assert torch.allclose(F.layer_norm(x, (4,)), F.layer_norm(x - 10000, (4,)), atol=1e-3)
    y = torch.randn(4, 8)
    assert torch.allclose(ns["layer_norm"](y), F.layer_norm(y, (8,)), atol=1e-4)


@pytest.mark.parametrize(
    ("shape", "outcome"),
    [
        ((2, 3, 5), "error"),  # l != d: fails loudly
        ((1, 4, 4), "silent"),  # b == 1 and l == d: right shape, wrong numbers
        ((4, 4, 4), "silent"),  # b == l == d
        ((3, 1, 4), "grows"),  # one token at a time, b > 1: broadcasts to (b, b, d)
    ],
)
def test_mean_without_keepdim(shape: tuple[int, int, int], outcome: str) -> None:
    # The claims of ln-mean-shape about (b, l, d) - (b, l).
    x = torch.randn(*shape)
    if outcome == "error":
        with pytest.raises(RuntimeError):
            x - x.mean(-1)
        return
    out = x - x.mean(-1)
    if outcome == "silent":
        assert out.shape == x.shape
        assert not torch.allclose(out, x - x.mean(-1, keepdim=True))
    else:
        assert out.shape == (shape[0], shape[0], shape[2])


def test_rms_norm_default_eps_is_machine_epsilon() -> None:
    # rms-eps-none and rms-eps-none-value: eps=None means finfo(float32).eps, not 1e-5 or 1e-6.
    x = torch.tensor([1e-3, 0, 0, 0])
    default = nn.RMSNorm(4)(x)
    assert nn.RMSNorm(4).eps is None
    assert torch.allclose(default, F.rms_norm(x, (4,), eps=torch.finfo(torch.float32).eps))
    assert default[0].item() == pytest.approx(1.6457, abs=1e-3)
    assert F.rms_norm(x, (4,), eps=1e-6)[0].item() == pytest.approx(0.894, abs=1e-3)


def test_rms_norm_backward_direction() -> None:
    # rms-backward-direction: orthogonal to x, scales as 1/c, does not sum to zero.
    gen = torch.Generator().manual_seed(1)
    x = (torch.randn(16, dtype=torch.float64, generator=gen) + 1).requires_grad_()
    dy = torch.randn(16, dtype=torch.float64, generator=gen)
    (dx,) = torch.autograd.grad(F.rms_norm(x, (16,), eps=0.0), x, dy)
    assert abs((dx @ x).item()) < 1e-10
    assert abs(dx.sum().item()) > 1e-3
    x2 = (2 * x.detach()).requires_grad_()
    (dx2,) = torch.autograd.grad(F.rms_norm(x2, (16,), eps=0.0), x2, dy)
    assert torch.allclose(dx2, dx / 2)
    rms = x.detach().pow(2).mean().sqrt()
    y = x.detach() / rms
    assert torch.allclose(dx, (dy - y * (dy * y).mean()) / rms)


def test_fold_matches_eval_mode_only() -> None:
    # bn-fold-train-mode: folding reproduces eval mode; training mode uses batch statistics.
    torch.manual_seed(0)
    linear, bn = nn.Linear(4, 3), nn.BatchNorm1d(3)
    model = nn.Sequential(linear, bn)
    model.train()
    for _ in range(20):
        model(torch.randn(64, 4) * 2 + 1)
    assert bn.running_var is not None and bn.running_mean is not None
    s = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
    folded = nn.Linear(4, 3)
    with torch.no_grad():
        folded.weight.copy_(linear.weight * s[:, None])
        folded.bias.copy_(s * (linear.bias - bn.running_mean) + bn.bias)
    x = torch.randn(256, 4) * 2 + 1
    model.eval()
    assert torch.allclose(folded(x), model(x), atol=1e-5)
    model.train()
    assert not torch.allclose(folded(x), model(x), atol=1e-3)


def test_group_norm_special_cases() -> None:
    # bn-group-norm-axes: G = 1 is LayerNorm over (C, H, W), G = C is InstanceNorm.
    x = torch.randn(2, 6, 5, 5)
    assert torch.allclose(F.group_norm(x, 1), F.layer_norm(x, x.shape[1:]), atol=1e-5)
    assert torch.allclose(F.group_norm(x, 6), F.instance_norm(x), atol=1e-5)


def test_matched_swiglu_flops() -> None:
    # ffn-matched-swiglu-facts: same weights and the same matmul FLOPs at width 8d/3.
    d = 96
    relu, swiglu = _ffn(d, 4 * d, bias=False), _SwiGLU(d, 8 * d // 3)
    assert _params(relu) == _params(swiglu) == 8 * d * d

    def run(m: _SwiGLU) -> torch.Tensor:
        x = torch.randn(1, d)
        return m.w2(F.silu(m.w1(x)) * m.w3(x))

    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        run(swiglu)
    assert counter.get_total_flops() == _forward_flops(relu, d) == 2 * 8 * d * d


def test_gelu_approximation_errors() -> None:
    # act-gelu-approximations: tanh form about 5e-4, sigmoid form about 2e-2.
    x = torch.linspace(-8, 8, 160_001, dtype=torch.float64)
    exact = F.gelu(x)
    tanh_error = (exact - F.gelu(x, approximate="tanh")).abs().max().item()
    sigmoid_error = (exact - x * torch.sigmoid(1.702 * x)).abs().max().item()
    assert 3e-4 < tanh_error < 6e-4
    assert 1.5e-2 < sigmoid_error < 2.5e-2


def test_softmax_backward_formula() -> None:
    # act-softmax-backward and act-softmax-properties.
    gen = torch.Generator().manual_seed(2)
    z = torch.randn(3, 5, dtype=torch.float64, generator=gen).requires_grad_()
    g = torch.randn(3, 5, dtype=torch.float64, generator=gen)
    s = torch.softmax(z, -1)
    (dz,) = torch.autograd.grad(s, z, g)
    s = s.detach()
    assert torch.allclose(dz, s * (g - (g * s).sum(-1, keepdim=True)))
    assert torch.allclose(dz.sum(-1), torch.zeros(3, dtype=torch.float64), atol=1e-12)
    assert not torch.allclose(torch.softmax(2 * z, -1), s)
    # act-log-softmax-backward: dz = g - softmax(z) * sum(g).
    (dz_log,) = torch.autograd.grad(F.log_softmax(z, -1), z, g)
    assert torch.allclose(dz_log, g - s * g.sum(-1, keepdim=True))
    assert torch.softmax(z / 3, -1).max() < s.max()


def test_code_log_of_softmax_underflows(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "act-log-of-softmax-code"))
    logits = torch.tensor([0.0, -200.0])
    assert torch.isinf(ns["nll"](logits, 1))  # type: ignore[operator]
    assert -F.log_softmax(logits, -1)[1].item() == pytest.approx(200.0)


def _saved_bytes(run: Callable[[], torch.Tensor]) -> int:
    saved: list[int] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        saved.append(t.numel() * t.element_size())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return sum(saved)


def test_checkpointing_keeps_only_block_inputs() -> None:
    # tr-checkpoint-peak-memory / tr-checkpoint-what-it-saves: forward keeps block inputs only.
    torch.manual_seed(0)
    blocks = [nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)) for _ in range(6)]
    x = torch.randn(32, 64, requires_grad=True)

    def plain() -> torch.Tensor:
        h = x
        for b in blocks:
            h = h + b(h)
        return h

    def checkpointed() -> torch.Tensor:
        h = x
        for b in blocks:
            h = h + torch.utils.checkpoint.checkpoint(b, h, use_reentrant=False)
        return h

    full, kept = _saved_bytes(plain), _saved_bytes(checkpointed)
    block_input = x.numel() * x.element_size()
    assert kept == len(blocks) * block_input  # one input per block
    assert full > 5 * kept
    assert torch.allclose(plain(), checkpointed())


def test_bfloat16_rounding() -> None:
    # tr-bf16-eps and tr-bf16-vs-fp16.
    assert (torch.tensor(256.0, dtype=torch.bfloat16) + 1).item() == 256.0
    assert torch.finfo(torch.bfloat16).max > 1e38 and torch.finfo(torch.float16).max == 65504
    assert torch.tensor(1e-8, dtype=torch.bfloat16).item() > 0


def test_code_causal_mask_filled_with_zero_leaks_the_future(bank: QuestionBank) -> None:
    ns = _run(_code(bank, "act-causal-mask-zero-code"))
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 5, 8, generator=gen) for _ in range(3))
    out = ns["causal_attention"](q, k, v)  # type: ignore[operator]
    assert not torch.allclose(
        out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-4
    )
    # The first position sees the future: changing a later value changes its output.
    v2 = v.clone()
    v2[0, 4] += 10
    assert not torch.allclose(ns["causal_attention"](q, k, v2)[0, 0], out[0, 0])  # type: ignore[operator]


def test_unscaled_scores_saturate_softmax() -> None:
    # act-unscaled-scores-saturate and act-attention-scale-why: d_k = 256, 32 keys.
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(2000, 1, 256, dtype=torch.float64, generator=gen)
    k = torch.randn(2000, 32, 256, dtype=torch.float64, generator=gen)
    scores = (q @ k.transpose(-2, -1)).squeeze(1)
    unscaled = torch.softmax(scores, -1).max(-1).values.mean().item()
    scaled = torch.softmax(scores / 16, -1).max(-1).values.mean().item()
    assert 0.8 < unscaled < 0.97
    assert scaled < 0.35


def test_fully_masked_softmax_row_is_nan() -> None:
    # act-fully-masked-row-nan.
    row = torch.full((1, 4), float("-inf"))
    assert torch.isnan(torch.softmax(row, -1)).all()


def test_value_clipping_changes_direction() -> None:
    # tr-clip-value-direction: (3, 0.5) clamped to [-1, 1] is (1, 0.5).
    p = torch.zeros(2, requires_grad=True)
    p.grad = torch.tensor([3.0, 0.5])
    torch.nn.utils.clip_grad_value_([p], 1.0)
    assert torch.equal(p.grad, torch.tensor([1.0, 0.5]))


def test_grad_scaler_defaults() -> None:
    # tr-grad-scaler-on-overflow: backoff 0.5, growth 2 every 2000 clean steps.
    scaler = torch.amp.GradScaler("cpu")
    assert scaler.get_backoff_factor() == 0.5
    assert scaler.get_growth_factor() == 2.0
    assert scaler.get_growth_interval() == 2000
