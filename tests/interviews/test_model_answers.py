"""Every exercise carries its own model answer for the explain item (exercises/<slug>/
model_answer.yaml), in both languages: no two exercises share a point, and each speaks of its
own block. The FFN exercises' answers once talked about residual connections."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from api.content.catalog import EXPLAIN_POINTS, ContentError, load_catalog
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")

# Words each exercise's answer must use: what its block is made of, said in its own terms.
OWN_WORDS: dict[str, tuple[str, ...]] = {
    "adamw_step": ("exp_avg", "bias correction"),
    "rotary_embedding": ("inv_freq", "head_dim/2"),
    "clip_grad_norm": ("1e-6", "total"),
    "cross_entropy": ("log(sum(exp", "ignored"),
    "layer_norm": ("biased", "(..., 1)"),
    "layer_norm_backward": ("dweight", "mean(g)"),
    "mixed_precision_norm": ("float16", "65504"),
    "rms_norm": ("mean(x^2)", "no bias"),
    "rms_norm_backward": ("dweight", "without the mean(g) term"),
    "fused_add_rms_norm": ("new_residual", "overflow"),
    "batch_norm_1d": ("running", "(C,)"),
    "feed_forward": ("d_ff", "Dropout"),
    "glu_ffn": ("multiple_of", "gate"),
    "swiglu_ffn": ("SiLU", "hidden_dim"),
    "ffn_block": ("RMSNorm", "SwiGLU"),
    "residual_block": ("Pre-norm", "identity path"),
    "norm_block": ("DeepNorm", "sandwich"),
    "gelu": ("erf", "0.044715"),
    "silu_function": ("sigmoid", "save"),
    "softmax": ("maximum", "log_softmax"),
    "scaled_dot_product_attention": ("1/sqrt(E)", "KV cache"),
    "multi_head_attention": ("head_dim", "repeat"),
    "batch_norm_backward": ("(C,)", "SyncBatchNorm"),
    "online_softmax": ("exp(m_old - m_new)", "FlashAttention"),
    "dropout": ("1/(1 - p)", "Bernoulli"),
    "checkpointed_ffn": ("recompute", "checkpointing"),
    "pre_post_ln_gradients": ("Post-LN", "warm-up"),
    "bf16_norm_precision": ("one-pass", "float32 statistics"),
    "training_monitor": ("lr·‖∇W‖/‖W‖", "hooks"),
    "moe_ffn": ("index_add", "46.7B"),
    "kv_cache_memory": ("n_kv_heads", "repeat_kv"),
    "decoder_block": ("RoPE", "KV cache"),
}
# A residual connection's vocabulary: only the exercises that build one may use it.
RESIDUAL = re.compile(r"x \+ f\(x\)|pre-norm|post-norm|skip[- ]?(connection|path)", re.I)
WITH_RESIDUAL = {"ffn_block", "residual_block", "norm_block", "fused_add_rms_norm"}


def test_every_exercise_has_an_answer_for_every_point_in_both_languages() -> None:
    assert set(OWN_WORDS) == set(CATALOG)
    for slug, exercise in CATALOG.items():
        assert exercise.model_answer is not None, slug
        for lang in ("en", "zh"):
            text = exercise.model_answer.text(lang)
            assert list(text) == list(EXPLAIN_POINTS), slug
            assert all(text.values()), slug


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_two_exercises_share_a_point(lang: str) -> None:
    seen: dict[str, str] = {}
    for slug, exercise in CATALOG.items():
        assert exercise.model_answer is not None
        for point, text in exercise.model_answer.text(lang).items():
            assert text not in seen, f"{slug}.{point} repeats {seen.get(text)}"
            seen[text] = f"{slug}.{point}"


@pytest.mark.parametrize("slug", sorted(OWN_WORDS))
def test_each_answer_speaks_of_its_own_block(slug: str) -> None:
    answer = CATALOG[slug].model_answer
    assert answer is not None
    english = " ".join(answer.text("en").values())
    for word in OWN_WORDS[slug]:
        assert word.lower() in english.lower(), f"{slug}: {word!r} missing"
    if slug not in WITH_RESIDUAL:
        assert not RESIDUAL.search(english), f"{slug}: {RESIDUAL.search(english)}"


def test_a_missing_or_english_only_answer_stops_the_catalogue(tmp_path: Path) -> None:
    content = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises", content, ignore=shutil.ignore_patterns("__pycache__"))
    answer = content / "ffn_block" / "model_answer.yaml"
    original = answer.read_text(encoding="utf-8")
    answer.unlink()
    with pytest.raises(ContentError, match=re.escape("ffn_block/model_answer.yaml: missing")):
        load_catalog(content)
    english = re.sub(r"(?m)^(  zh: ).*$", r"\1Written in English only, no Chinese", original)
    answer.write_text(english, encoding="utf-8")
    with pytest.raises(ContentError, match=r"field 'shapes\.zh': .*Chinese"):
        load_catalog(content)
