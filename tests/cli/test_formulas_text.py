"""``addnorm hint`` prints formulas as plain text: the converter on the TeX the exercises use,
and on every hint and prompt of every exercise in both languages (no command or ``$`` left)."""

from __future__ import annotations

import re

import pytest

from addnorm_client.formulas import as_text, tex_to_text
from api.content.catalog import load_catalog
from tests.support import REPO

CATALOGUE = load_catalog(REPO / "exercises")
# Code as written is not converted (``\n`` in a string, a line continuation).
_CODE = re.compile(r"^[ \t]*```.*?^[ \t]*```|`+[^`]*`+", re.S | re.M)
_LEFT = re.compile(r"\\[A-Za-z]+|\\[,;!{}]|\$")


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}}", "(x - μ)/√(σ² + ε)"),
        (r"\frac{1}{n}\sum_i x_i", "1/n Σᵢ xᵢ"),
        (r"\tfrac{1}{2}", "1/2"),
        (r"\mathrm{rstd} = \frac{1}{\sqrt{\mathrm{var} + \epsilon}}", "rstd = 1/√(var + ε)"),
        (r"W^\top x", "Wᵀ x"),
        (r"x^{-1/2}", "x^(-1/2)"),
        (r"e^{x_i - m}", "e^(xᵢ - m)"),
        (r"\sum_{\text{rows}} dy \cdot \hat{x}", "Σ_rows dy · x̂"),
        (r"a \odot b", "a ⊙ b"),
        (r"\big(g - \mathrm{mean}(g)\big)", "(g - mean(g))"),
        (r"\left\lfloor \frac{n}{2} \right\rfloor", "⌊ n/2 ⌋"),
        (r"\Phi(x) \sim \mathbb{R}", "Φ(x) ~ ℝ"),
        (r"\max_j z_j", "maxⱼ zⱼ"),
        (r"\sqrt[3]{x}", "∛x"),
        (r"d\,\mathrm{weight}", "d weight"),
        (r"\begin{aligned} a &= b\\ c &= d \end{aligned}", "a = b\nc = d"),
        (r"\operatorname{softmax}(z)_i", "softmax(z)ᵢ"),
        # Unknown commands keep their names and arguments, without the backslash.
        (r"\weird{x} + \unknown", "weird(x) + unknown"),
    ],
)
def test_tex_to_text(tex: str, text: str) -> None:
    assert tex_to_text(tex) == text


def test_markdown_keeps_code_and_converts_math() -> None:
    md = "Use `x.var(-1)` and $\\frac{a}{b}$:\n\n```python\ny = x \\\n    + 1\n```\n$$\\sqrt{x}$$"
    assert as_text(md) == "Use `x.var(-1)` and a/b:\n\n```python\ny = x \\\n    + 1\n```\n√x"


def _texts() -> list[tuple[str, str, str]]:
    found = []
    for slug, exercise in sorted(CATALOGUE.items()):
        for n, hint in enumerate(exercise.hints, 1):
            found += [(slug, f"hint {n} en", hint.en), (slug, f"hint {n} zh", hint.zh)]
        found += [(slug, f"prompt {lang}", text) for lang, text in exercise.prompt.items()]
    return found


def test_the_texts_carry_formulas() -> None:
    """Control: the check below has TeX to find (it would pass on texts with no math)."""
    formulas = [t for _, _, t in _texts() if _LEFT.search(_CODE.sub("", t))]
    assert len(formulas) > len(CATALOGUE)


@pytest.mark.parametrize(("slug", "where", "text"), _texts())
def test_no_tex_left_in_any_hint_or_prompt(slug: str, where: str, text: str) -> None:
    shown = as_text(text)
    left = _LEFT.findall(_CODE.sub("", shown))
    assert not left, f"{slug} {where}: {left}\n{shown}"
    # Nothing dropped: every word a formula writes upright is still there.
    for word in re.findall(r"\\(?:mathrm|text|operatorname)\{([A-Za-z]{2,})\}", text):
        assert word in shown, (slug, where, word)
