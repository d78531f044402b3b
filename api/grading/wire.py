"""Frames of JSON plus raw tensor bytes: the only format that crosses the sandbox boundary.

Nothing is ever unpickled. A frame is ``len(header) | header JSON | blob``; the header lists each
tensor's key, dtype (from an allowlist), shape and byte range in the blob. ``decode_tensors``
checks every field before it touches the bytes, because the child writing them is untrusted.

Everything the child controls is bounded before it is used: the header's size, every integer's
digits, nesting, container and string sizes; shapes (products computed with an early stop),
byte ranges (inside the blob, never overlapping). Every failure is a ``WireError`` and nothing
else, which the verdict turns into ``crashed``; decoding allocates at most a small multiple of
the frame (``tests/grading/test_wire_fuzz.py`` measures it).
"""

from __future__ import annotations

import ctypes
import json
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in DTYPES.items()}

_ITEMSIZE: dict[torch.dtype, int] = {
    d: torch.empty((), dtype=d).element_size() for d in DTYPES.values()
}

_LEN = struct.Struct(">I")
_SEPARATORS = (",", ":")
# What a real header needs, with room: the job's code (64 KiB, up to 6x as JSON escapes),
# capped stdout/stderr and error messages, a few dozen case entries. Python objects cost up to
# ~25x the JSON bytes they come from (``[]`` is 2 bytes, a list 56), so this bounds a parse too.
MAX_HEADER = 1 << 20
MAX_INT_DIGITS = 20
MAX_DEPTH = 16
MAX_ITEMS = 10_000
MAX_NODES = 100_000
MAX_STRING = 1 << 17
MAX_TENSORS = 4096
MAX_KEY = 256
MAX_DIMS = 8


class WireError(ValueError):
    """A frame or tensor description that does not hold together."""


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The tensor's bytes, read straight from its storage (``bytes(storage)`` is ~100x slower)."""
    t = t.detach().contiguous()
    n = t.numel() * t.element_size()
    return ctypes.string_at(t.data_ptr(), n) if n else b""


def encode(header: Mapping[str, Any], tensors: Mapping[str, torch.Tensor]) -> bytes:
    """One frame: ``header`` gains a ``tensors`` list describing ``tensors`` in the blob."""
    described, chunks = _describe(tensors)
    head = json.dumps({**header, "tensors": described}, separators=_SEPARATORS).encode()
    # One join, one copy of the tensors' bytes: a job of an FFN exercise carries megabytes of
    # parameters and update deltas, and a concatenation after the join would copy them again.
    return b"".join([_LEN.pack(len(head)), head, *chunks])


@dataclass(frozen=True)
class Partial:
    """Frames that differ only in one string, their header's first field: everything else is
    encoded once (``partial``) and each frame adds its string (``fill``). The jobs graded on
    one case set differ only in their code."""

    key: str
    rest: bytes  # the header's JSON after its first field, from its separating comma on
    blob: bytes

    def fill(self, value: str) -> bytes:
        """``encode({key: value, **header}, tensors)``, byte for byte."""
        head = b"".join(
            [b"{", json.dumps(self.key).encode(), b":", json.dumps(value).encode(), self.rest]
        )
        return b"".join([_LEN.pack(len(head)), head, self.blob])


def partial(key: str, header: Mapping[str, Any], tensors: Mapping[str, torch.Tensor]) -> Partial:
    """The frames ``encode({key: ..., **header}, tensors)`` for any string in ``key``."""
    described, chunks = _describe(tensors)
    rest = json.dumps({**header, "tensors": described}, separators=_SEPARATORS).encode()
    return Partial(key, b"," + rest[1:], b"".join(chunks))


def _describe(tensors: Mapping[str, torch.Tensor]) -> tuple[list[dict[str, Any]], list[bytes]]:
    """A header's ``tensors`` list and the blob's chunks."""
    described = []
    chunks = []
    offset = 0
    for key, t in tensors.items():
        name = DTYPE_NAMES.get(t.dtype)
        if name is None:
            raise WireError(f"{key}: dtype {t.dtype} cannot be sent")
        data = tensor_bytes(t)
        described.append(
            {
                "key": key,
                "dtype": name,
                "shape": list(t.shape),
                "offset": offset,
                "nbytes": len(data),
            }
        )
        chunks.append(data)
        offset += len(data)
    return described, chunks


def _bounded_int(text: str) -> int:
    # Python refuses ints over 4300 digits with a plain ValueError, after the work; a shape,
    # offset or count never needs more than a few digits.
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise WireError(f"an integer of {len(text)} digits in the header")
    return int(text)


def _check_shape_of(header: Any) -> None:
    """Nesting, container sizes, string lengths and the node count of a decoded header, walked
    without recursion: a header the child forged must not turn into work or memory later."""
    nodes = 0
    containers: list[tuple[Any, int]] = [(header, 1)]
    while containers:
        value, depth = containers.pop()
        nodes += 1
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise WireError(f"a string of {len(value)} characters in the header")
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise WireError(f"header nested deeper than {MAX_DEPTH} levels")
        if len(value) > MAX_ITEMS:
            raise WireError(f"a container of {len(value)} items in the header")
        if isinstance(value, dict):
            if value and max(map(len, value)) > MAX_STRING:
                raise WireError(f"a key of {max(map(len, value))} characters in the header")
            items: Iterable[Any] = value.values()
        else:
            items = value
        # Leaves (numbers, short strings: most of a header) are counted and checked here, not
        # pushed: a header holds thousands of them per verdict.
        for item in items:
            if isinstance(item, dict | list):
                containers.append((item, depth + 1))
            else:
                nodes += 1
                if isinstance(item, str) and len(item) > MAX_STRING:
                    raise WireError(f"a string of {len(item)} characters in the header")
        if nodes > MAX_NODES:
            raise WireError(f"header has more than {MAX_NODES} values")


def split(frame: bytes | bytearray, *, trusted: bool = False) -> tuple[dict[str, Any], bytearray]:
    """The header and the blob of one frame; raises WireError (only) on anything malformed.

    Bounded before and after parsing: the header's byte length, every integer's digit count
    (checked as the parser meets it), then nesting, sizes and the number of values. A
    ``trusted`` frame (the job the service wrote, read by the child before any learner code
    runs) skips the bounds on integers and shape, which cost the child a few per cent of a
    passing verdict; its structure is still checked.
    """
    if len(frame) < _LEN.size:
        raise WireError("frame shorter than its length prefix")
    (n,) = _LEN.unpack_from(frame)
    if n > MAX_HEADER or _LEN.size + n > len(frame):
        raise WireError("header length out of range")
    text = bytes(memoryview(frame)[_LEN.size : _LEN.size + n])
    try:
        header = json.loads(text) if trusted else json.loads(text, parse_int=_bounded_int)
    except WireError:
        raise
    except (ValueError, RecursionError, MemoryError) as exc:  # JSONDecodeError, bad UTF-8
        raise WireError(f"header is not JSON: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    if not trusted:
        _check_shape_of(header)
    # Through a memoryview: one copy of the blob (a slice would be a second).
    return header, bytearray(memoryview(frame)[_LEN.size + n :])


def _count(value: Any, low: int, high: int) -> int | None:
    """``value`` if it is a plain int in [low, high] (bool is not a count), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return None


def _numel(key: str, shape: Any, max_numel: int) -> int:
    """The element count of ``shape``, refusing it as soon as a partial product exceeds the
    limit, so no product is ever larger than ``max_numel`` times one dimension."""
    if not isinstance(shape, list) or len(shape) > MAX_DIMS:
        raise WireError(f"{key}: bad shape")
    numel = 1
    for size in shape:
        dim = _count(size, 0, max_numel)
        if dim is None:
            raise WireError(f"{key}: bad shape dimension {str(size)[:40]}")
        numel *= dim
        if numel > max_numel:
            raise WireError(f"{key}: more elements than the limit of {max_numel}")
    return numel


def decode_tensors(
    header: Mapping[str, Any], blob: bytearray, *, max_numel: int = 1 << 24
) -> dict[str, torch.Tensor]:
    """The tensors a header describes, each validated against the blob before it is read.

    Byte ranges must lie inside the blob and may not overlap, so the tensors decoded never hold
    more bytes than the blob does: many descriptors aimed at the same bytes are refused.
    """
    described = header.get("tensors", [])
    if not isinstance(described, list):
        raise WireError("tensors is not a list")
    if len(described) > MAX_TENSORS:
        raise WireError(f"{len(described)} tensors is more than the limit of {MAX_TENSORS}")
    planned: list[tuple[int, int, str, torch.dtype, list[int], int]] = []
    for d in described:
        if not isinstance(d, dict):
            raise WireError("tensor description is not an object")
        key, dtype_name = d.get("key"), d.get("dtype")
        if not isinstance(key, str) or len(key) > MAX_KEY:
            raise WireError("bad tensor key")
        if not isinstance(dtype_name, str) or dtype_name not in DTYPES:
            raise WireError(f"{key}: dtype not allowed")
        dtype = DTYPES[dtype_name]
        numel = _numel(key, d.get("shape"), max_numel)
        offset = _count(d.get("offset"), 0, len(blob))
        nbytes = _count(d.get("nbytes"), 0, len(blob))
        if offset is None or nbytes is None or offset + nbytes > len(blob):
            raise WireError(f"{key}: byte range outside the data")
        if nbytes != numel * _ITEMSIZE[dtype]:
            raise WireError(f"{key}: byte range does not match its shape and dtype")
        planned.append((offset, nbytes, key, dtype, d["shape"], numel))
    end = 0
    for offset, nbytes, key, *_ in sorted(planned, key=lambda p: (p[0], p[1])):
        if nbytes and offset < end:
            raise WireError(f"{key}: byte range overlaps another tensor's")
        end = max(end, offset + nbytes)
    out: dict[str, torch.Tensor] = {}
    for offset, _nbytes, key, dtype, shape, numel in planned:
        if key in out:
            raise WireError(f"repeated tensor key {key[:100]!r}")
        if numel == 0:
            out[key] = torch.empty(shape, dtype=dtype)
        else:
            flat = torch.frombuffer(blob, dtype=dtype, count=numel, offset=offset)
            out[key] = flat.reshape(shape).clone()
    return out
