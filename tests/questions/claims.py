"""Dubious claims of the articles, and where they may appear: only next to their correction.

The material is interview notes of mixed quality. A question may quote a wrong claim (a
true/false item, a distractor) as long as its explanation corrects it; an exercise prompt may
cite it as long as the same paragraph does. A claim that is wrong in every wording (a number
the prompt's own count contradicts, an argument pinned on the wrong placement) has no correction
that makes it acceptable and may not appear at all.

Issue 29 found prompts repeating eight of these; test_claims.py holds the bank, the exercise
prompts and the follow-ups to this list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from api.content.questions import Lang


@dataclass(frozen=True)
class Claim:
    name: str
    # The claim, per language; a match is a use of it.
    said: dict[Lang, re.Pattern[str]]
    # What a correction next to it looks like, per language; None: never acceptable.
    corrected: dict[Lang, re.Pattern[str]] | None

    def offends(self, text: str, context: str, lang: Lang) -> bool:
        """`text` uses the claim and `context` (its paragraph, or the question's explanation)
        does not correct it."""
        text, context = _flat(text, lang), _flat(context, lang)
        if not self.said[lang].search(text):
            return False
        return self.corrected is None or not self.corrected[lang].search(context)


def _flat(text: str, lang: Lang) -> str:
    # Markdown and folded YAML break lines anywhere: in English a break is a space, in Chinese
    # nothing (a break between two characters is not a word boundary).
    return re.sub(r"\s+", " ", text) if lang == "en" else re.sub(r"\s*\n\s*", "", text)


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "post-norm regularises more strongly",
        {
            "en": _re(r"regularis\w* (strongly|more)|strong(er)? regularis|stronger regularising"),
            "zh": _re(r"正则化(作用|效果)?更?强"),
        },
        {
            "en": _re(r"asserted|not shown|no evidence|without evidence|unproven|untested|False"),
            "zh": _re(r"断言|并无证据|没有给出证据|没有证据|未经证实|错误"),
        },
    ),
    Claim(
        "pre-norm is the placement that needs warm-up",
        {
            "en": _re(r"pre-?norm[^.]{0,60}(calls for|needs?|requires?)[^.]{0,20}warm-?up"),
            "zh": _re(r"Pre-?Norm[^。]{0,30}需要[^。]{0,10}预热"),
        },
        {"en": _re(r"Xiong|revers"), "zh": _re(r"Xiong|说反")},
    ),
    Claim(
        "pre-norm trains without warm-up",
        {
            "en": _re(r"pre-?norm[^.]{0,80}without[^.]{0,20}warm-?up"),
            "zh": _re(r"(Pre-?Norm|前置归一化)[^。]{0,40}不(需要|用|借助|依赖)[^。]{0,20}预热"),
        },
        {"en": _re(r"LLaMA|still"), "zh": _re(r"LLaMA|仍")},
    ),
    Claim(
        "post-norm's effective depth",
        {
            "en": _re(r"post-?norm'?s? (\"|“)?effective depth"),
            "zh": _re(r"Post-?Norm ?的(“)?有效深度"),
        },
        None,
    ),
    Claim(
        "normalisation in Transformers evolved from BatchNorm to LayerNorm",
        {
            "en": _re(r"evol\w*[^.]{0,30}(from BatchNorm|towards LayerNorm|to LayerNorm)"),
            "zh": _re(r"从[^。]{0,10}BatchNorm[^。]{0,6}演进"),
        },
        {
            "en": _re(r"did not|from the start|False|refute"),
            "zh": _re(r"并非|一开始|错误|不是"),
        },
    ),
    Claim(
        "the non-linearity comes from the FFN alone",
        {
            "en": _re(
                r"non-?linearity[^.]{0,30}(comes from|of the block)[^.]{0,20}FFN"
                r"|FFN'?s? activation supplies the real non-?linearity"
            ),
            "zh": _re(r"非线性[^。]{0,10}(来自|归功于) ?FFN"),
        },
        {
            "en": _re(r"not quite|non-?linear function of its input|ffn-attention-not-linear"),
            "zh": _re(r"并不准确|非线性函数|ffn-attention-not-linear"),
        },
    ),
    Claim(
        "the SwiGLU gate's mechanisms as fact",
        {
            "en": _re(r"gate with more expressive power"),
            "zh": _re(r"门控带来了更强的表达能力"),
        },
        {"en": _re(r"Shazeer|no explanation"), "zh": _re(r"Shazeer|无法解释")},
    ),
    Claim(
        "a fused add-and-norm saves a full round trip",
        {"en": _re(r"full round trip"), "zh": _re(r"一整轮[^。]{0,20}往返")},
        None,
    ),
    Claim(
        "the FFN saves about 9x its input for backward",
        {"en": _re(r"about 9 times the input"), "zh": _re(r"输入字节数的 ?9 ?倍")},
        None,
    ),
    Claim(
        "the rounding of a half-precision mean is as large as the spread",
        {"en": _re(r"as large as the spread"), "zh": _re(r"离散程度一样大")},
        None,
    ),
    Claim(
        "warm-up is 热身 (the bank's term is 预热)",
        {"en": _re(r"(?!x)x"), "zh": _re(r"热身")},
        None,
    ),
)


def offences(text: str, context: str, lang: Lang) -> list[str]:
    return [c.name for c in CLAIMS if c.offends(text, context, lang)]
