"""The decoder of the child's answer against forged frames: it returns or raises ``WireError``,
never anything else, and never holds more than a small multiple of what it was given.

Hypothesis drives three generators: raw bytes, headers built from JSON values (big integers,
deep nesting, long strings), and tensor descriptors aimed at the blob (overlaps, huge shapes,
out-of-range offsets). Python-side memory is measured with ``tracemalloc``; the tensors' own
bytes (allocated by torch, invisible to ``tracemalloc``) are summed and compared with the blob.
"""

from __future__ import annotations

import json
import struct
import tracemalloc
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.grading import wire

# Python objects cost up to ~25x the JSON that describes them (``[]``: 2 bytes, a list: 56+16).
PY_MULTIPLE = 32
# tracemalloc's own bookkeeping and the interpreter's small caches, whatever the input.
PY_CONSTANT = 256 << 10

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def frame_of(head: bytes, blob: bytes = b"") -> bytes:
    return struct.pack(">I", len(head)) + head + blob


def decode_bounded(frame: bytes) -> dict[str, torch.Tensor] | None:
    """Decode ``frame`` as the verdict does, asserting the contract; None when it was refused."""
    tracemalloc.start()
    try:
        try:
            header, blob = wire.split(frame)
            tensors = wire.decode_tensors(header, blob)
        except wire.WireError:
            tensors = None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= PY_MULTIPLE * len(frame) + PY_CONSTANT, (peak, len(frame))
    if tensors is not None:
        decoded = sum(t.numel() * t.element_size() for t in tensors.values())
        assert decoded <= max(0, len(frame) - 4), (decoded, len(frame))
    return tensors


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True)
    | st.text(max_size=50),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=10), children, max_size=6)
    ),
    max_leaves=60,
)

dims = st.one_of(
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=-5, max_value=2**64),
    st.just(True),
    st.text(max_size=3),
)

descriptors = st.fixed_dictionaries(
    {
        "key": st.one_of(st.sampled_from(["0.output", "0.input_after", "1.output"]), json_values),
        "dtype": st.one_of(st.sampled_from(sorted(wire.DTYPES)), json_values),
        "shape": st.one_of(st.lists(dims, max_size=10), json_values),
        "offset": st.one_of(st.integers(min_value=-8, max_value=300), json_values),
        "nbytes": st.one_of(st.integers(min_value=0, max_value=300), json_values),
    }
)


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes(frame: bytes) -> None:
    decode_bounded(frame)


@FUZZ
@given(st.binary(max_size=2048), st.binary(max_size=512))
def test_random_header_bytes_with_a_valid_prefix(head: bytes, blob: bytes) -> None:
    decode_bounded(frame_of(head, blob))


@FUZZ
@given(json_values, st.binary(max_size=256))
def test_json_headers(header: Any, blob: bytes) -> None:
    decode_bounded(frame_of(json.dumps(header).encode(), blob))


# Seconds of fuzzing: the full run, not the quick tier.
@pytest.mark.slow
@FUZZ
@given(st.lists(descriptors, max_size=12), st.binary(max_size=256))
def test_tensor_descriptors(described: list[dict[str, Any]], blob: bytes) -> None:
    decode_bounded(frame_of(json.dumps({"tensors": described}).encode(), blob))


@FUZZ
@given(st.data())
def test_mutated_real_frames(data: st.DataObject) -> None:
    real = bytearray(
        wire.encode(
            {"stdout": "x", "cases": [{"name": "a"}]},
            {"0.output": torch.randn(3, 4), "0.grad.input": torch.randn(3, 4, dtype=torch.float64)},
        )
    )
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(real) - 1))
        real[at] = data.draw(st.integers(0, 255))
    decode_bounded(bytes(real))


# --- the forged frames of the attacks, one by one ---------------------------------------------


def test_a_real_frame_round_trips() -> None:
    x = torch.randn(2, 3, 5)
    g = torch.randn(7, dtype=torch.bfloat16)
    tensors = decode_bounded(wire.encode({"stdout": "hi"}, {"0.output": x, "0.grad.w": g}))
    assert tensors is not None
    assert torch.equal(tensors["0.output"], x) and torch.equal(tensors["0.grad.w"], g)


def test_overlapping_descriptors_are_refused() -> None:
    """Many descriptors aimed at the same bytes: the attack that made the service copy far more
    than the frame held."""
    blob = bytes(4096)
    described = [
        {"key": f"{i}.output", "dtype": "float32", "shape": [1024], "offset": 0, "nbytes": 4096}
        for i in range(1000)
    ]
    head = json.dumps({"tensors": described}).encode()
    header, data = wire.split(frame_of(head, blob))
    with pytest.raises(wire.WireError, match="overlaps"):
        wire.decode_tensors(header, data)


@pytest.mark.parametrize(
    ("head", "match"),
    [
        (b'{"x": ' + b"9" * 5000 + b"}", "integer of 5000 digits"),
        (
            b'{"tensors": [{"key": "a", "dtype": "float32", "shape": ['
            + b"9" * 19
            + b", "
            + b"9" * 19
            + b'], "offset": 0, "nbytes": 4}]}',
            "bad shape dimension 9999999999999999999",
        ),
        (
            b'{"tensors": [{"key": "a", "dtype": ["float32"], "shape": [1], "offset": 0, '
            b'"nbytes": 4}]}',
            "dtype not allowed",
        ),
        (
            b'{"tensors": [{"key": "a", "dtype": "float32", "shape": [65536, 65536, 65536, '
            b'65536], "offset": 0, "nbytes": 4}]}',
            "more elements than the limit",
        ),
        (b'{"x": ' + b"[" * 100 + b"]" * 100 + b"}", "nested deeper"),
        (b"[" * 200_000 + b"]" * 200_000, "not JSON"),
        (b'{"x": [' + b"0," * 20_000 + b"0]}", "container of 20001 items"),
        (b'{"x": "' + b"a" * 200_000 + b'"}', "a string of 200000 characters"),
        (b'{"x": "\\ud800", "y": NaN}', None),
        (
            b'{"tensors": [{"key": "a", "dtype": "float32", "shape": [1], "offset": -1, '
            b'"nbytes": 4}]}',
            "outside the data",
        ),
        (
            b'{"tensors": [{"key": "a", "dtype": "float32", "shape": [1], "offset": 0, '
            b'"nbytes": 4}, {"key": "a", "dtype": "float32", "shape": [1], "offset": 4, '
            b'"nbytes": 4}]}',
            "repeated tensor key",
        ),
    ],
)
def test_forged_headers(head: bytes, match: str | None) -> None:
    frame = frame_of(head, bytes(8))
    if match is None:
        assert decode_bounded(frame) == {}
        return
    with pytest.raises(wire.WireError, match=match):
        header, blob = wire.split(frame)
        wire.decode_tensors(header, blob)
    decode_bounded(frame)


@pytest.mark.parametrize(
    ("header", "refusal"),
    [
        # Values spread over many small lists: each within MAX_ITEMS, the total not.
        ({"x": [[0] * 1000 for _ in range(wire.MAX_NODES // 1000 + 1)]}, "more than"),
        ({"x": ["a" * (wire.MAX_STRING + 1)]}, "a string of"),
        ({"k" * (wire.MAX_STRING + 1): 1}, "a key of"),
        ({"x": list(range(wire.MAX_ITEMS + 1))}, "a container of"),
    ],
)
def test_header_shape_bounds_are_enforced(header: dict[str, Any], refusal: str) -> None:
    with pytest.raises(wire.WireError, match=refusal):
        wire.split(frame_of(json.dumps(header).encode()))


def test_a_header_at_the_node_bound_is_accepted() -> None:
    header = {"x": [[0] * 1000 for _ in range(wire.MAX_NODES // 1000 - 1)]}
    assert wire.split(frame_of(json.dumps(header).encode()))[0] == header
