"""A learner-facing phrase written in both languages where it is produced.

The grader used to word its texts in English only and ``verdict_zh`` put them into Chinese
afterwards, by pattern: every new English phrase needed a rule there, and one without a rule
stayed English on a Chinese page. A producer that builds a ``Phrase`` says the Chinese itself,
beside the English, so nothing is translated after the fact. Every producer of a verdict's
texts is on it now; ``verdict_zh`` remains for verdicts stored before.

Chinese typography: full-width punctuation between Chinese words (``，`` ``（）`` ``：``), one
space between a Chinese word and a number, name or formula, none between Chinese words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class Phrase(NamedTuple):
    en: str
    zh: str


def same(text: str) -> Phrase:
    """Text that reads the same in both languages: a formula, a number, code, a name."""
    return Phrase(text, text)


def listing(parts: Iterable[Phrase]) -> Phrase:
    """Parts said one after another: ', ' in English, '，' in Chinese."""
    items = list(parts)
    return Phrase(", ".join(p.en for p in items), "，".join(p.zh for p in items))


# How a non-contiguous view was made, said as a Chinese reader would (the English word is no
# identifier the learner types).
_LAYOUTS_ZH = {"transposed": "转置", "strided": "跨步切片"}


def view_zh(layout: str) -> str:
    made = _LAYOUTS_ZH.get(layout)
    return f"{made}得到的非连续视图" if made else f"非连续（{layout}）视图"


def non_contiguous(layout: str) -> Phrase:
    """'a non-contiguous (transposed) view'."""
    return Phrase(f"a non-contiguous ({layout}) view", view_zh(layout))


FORWARD_ONLY_NO_GRAD = Phrase(
    "forward only, under torch.no_grad()", "在 torch.no_grad() 下只做前向"
)
TWO_FORWARDS_ONE_BACKWARD = Phrase(
    "two forwards then one backward of both", "先做两次前向，再对两者一起做一次反向传播"
)
TRAIN_UPDATE_EVAL = Phrase(
    "train, update, eval", "先以 train 模式调用，更新参数后再以 eval 模式调用"
)


def points_on(n: int, lo: int, hi: int) -> Phrase:
    """An input of ``n`` points spread over ``[lo, hi]``."""
    return Phrase(f"{n} points on [{lo}, {hi}]", f"区间 [{lo}, {hi}] 上的 {n} 个点")


def more_calls(n: int) -> Phrase:
    return Phrase(f"then {n} more calls", f"之后再调用 {n} 次")


AGAIN_ON_A_NEW_INPUT = Phrase("again, on a new input", "换一个新输入再次调用")

EVAL_UPDATE_EVAL = Phrase(
    "eval, update, eval again", "先以 eval 模式调用，更新参数后再以 eval 模式调用"
)
DEFAULT_INIT = Phrase("default init", "默认初始化")
AN_UPDATE_OF_WEIGHT_AND_BIAS = Phrase(
    "an optimiser-like update of weight and bias", "按优化器的方式更新 weight 和 bias"
)


def modes(called: Iterable[str]) -> Phrase:
    """The modes a module is called in, one after another: 'train then eval', '依次以 train、
    eval 模式调用'; one call: 'train', 'train 模式'."""
    said = list(called)
    en = " then ".join(said)
    if len(said) == 1:
        return Phrase(en, f"{said[0]} 模式")
    return Phrase(en, "依次以 " + "、".join(said) + " 模式调用")


def after_the_update(note: str = "") -> Phrase:
    """A call's note after an update: 'after the update', 'eval, after the update'."""
    return Phrase(f"{note}after the update", "参数更新之后")


# A call's note that only repeats the call's own mode: nothing to add in Chinese, where the
# step already says it ("第 1/5 步：以 train 模式调用并做反向传播").
IN_TRAIN_MODE = Phrase("in train mode", "")
AGAIN_IN_EVAL_MODE_ON_A_NEW_INPUT = Phrase(
    "again, in eval mode, on a new input", AGAIN_ON_A_NEW_INPUT.zh
)


def no_parameters(module: str) -> Phrase:
    """An update step of a module with nothing to update."""
    return Phrase(
        f"an optimiser step ({module} has no parameters)", f"一次优化器更新（{module} 没有参数）"
    )


def constructor_raises(call: str, error: str) -> Phrase:
    """A contract case: 'Dropout(p=1.5): the constructor raises ValueError'."""
    return Phrase(f"{call}: the constructor raises {error}", f"{call}：构造函数应抛出 {error}")


def default_value(name: str, value: str) -> Phrase:
    """'default p = 0.5'."""
    return Phrase(f"default {name} = {value}", f"默认 {name} = {value}")


RANDOM_WEIGHT_BIAS = Phrase("random weight/bias", "weight/bias 取随机值")
RANDOM_WEIGHT = Phrase("random weight", "weight 取随机值")

# Batch norm's statistics (batch_norm_1d, batch_norm_backward).
ONE_SEQUENCE = Phrase("one sequence (statistics over L)", "只有一条序列（统计量沿 L 计算）")
BATCH_OF_TWO = Phrase("a batch of two (n / (n - 1) = 2)", "批大小为 2（n / (n - 1) = 2）")
CHANNEL_OFFSETS = Phrase("N(0,1) + channel offsets", "N(0,1) + 各通道的偏移")


def channels_offset_by(offsets: str) -> Phrase:
    return Phrase(f"channels offset by {offsets}", f"各通道加上偏移 {offsets}")


def option(name: str, value: str, *, default: bool = False) -> Phrase:
    """A constructor argument as the case sets it: "placement = 'pre' (default)"."""
    said = f"{name} = {value}"
    return Phrase(
        said + (" (default)" if default else ""), said + ("（默认值）" if default else "")
    )


# The gated FFNs' projections (swiglu_ffn, glu_ffn, ffn_block).
RANDOM_W1_W2_W3 = Phrase(
    "random w1/w2/w3 (std 1/sqrt(fan_in))", "w1/w2/w3 取随机值（标准差 1/sqrt(fan_in)）"
)

# A call's note that only names the call's own mode (glu_ffn, ffn_block): nothing to add in
# Chinese.
TRAIN_MODE_NOTE = Phrase("train mode", "")
EVAL_MODE_NOTE = Phrase("eval mode", "")
