"""Frames of JSON plus raw tensor bytes: the only format that crosses the sandbox boundary.

Nothing is ever unpickled. A frame is ``len(header) | header JSON | blob``; the header lists each
tensor's key, dtype (from an allowlist), shape and byte range in the blob. ``decode_tensors``
checks every field before it touches the bytes, because the child writing them is untrusted.
"""

from __future__ import annotations

import ctypes
import json
import math
import struct
from collections.abc import Mapping
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

_LEN = struct.Struct(">I")
MAX_HEADER = 4 << 20


class WireError(ValueError):
    """A frame or tensor description that does not hold together."""


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The tensor's bytes, read straight from its storage (``bytes(storage)`` is ~100x slower)."""
    t = t.detach().contiguous()
    n = t.numel() * t.element_size()
    return ctypes.string_at(t.data_ptr(), n) if n else b""


def encode(header: Mapping[str, Any], tensors: Mapping[str, torch.Tensor]) -> bytes:
    """One frame: ``header`` gains a ``tensors`` list describing ``tensors`` in the blob."""
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
    head = json.dumps({**header, "tensors": described}, separators=(",", ":")).encode()
    return _LEN.pack(len(head)) + head + b"".join(chunks)


def split(frame: bytes | bytearray) -> tuple[dict[str, Any], bytearray]:
    """The header and the blob of one frame; raises WireError on anything malformed."""
    if len(frame) < _LEN.size:
        raise WireError("frame shorter than its length prefix")
    (n,) = _LEN.unpack_from(frame)
    if n > MAX_HEADER or _LEN.size + n > len(frame):
        raise WireError("header length out of range")
    try:
        header = json.loads(bytes(frame[_LEN.size : _LEN.size + n]))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise WireError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    return header, bytearray(frame[_LEN.size + n :])


def decode_tensors(
    header: Mapping[str, Any], blob: bytearray, *, max_numel: int = 1 << 24
) -> dict[str, torch.Tensor]:
    """The tensors a header describes, each validated against the blob before it is read."""
    out: dict[str, torch.Tensor] = {}
    described = header.get("tensors", [])
    if not isinstance(described, list):
        raise WireError("tensors is not a list")
    for d in described:
        if not isinstance(d, dict):
            raise WireError("tensor description is not an object")
        key, dtype_name, shape = d.get("key"), d.get("dtype"), d.get("shape")
        offset, nbytes = d.get("offset"), d.get("nbytes")
        if not isinstance(key, str) or key in out:
            raise WireError(f"bad or repeated tensor key {key!r}")
        if dtype_name not in DTYPES:
            raise WireError(f"{key}: dtype {dtype_name!r} not allowed")
        if not (
            isinstance(shape, list)
            and len(shape) <= 8
            and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
        ):
            raise WireError(f"{key}: bad shape {shape!r}")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (offset, nbytes)):
            raise WireError(f"{key}: bad byte range")
        assert isinstance(offset, int) and isinstance(nbytes, int)
        dtype = DTYPES[dtype_name]
        numel = math.prod(shape)
        if numel > max_numel:
            raise WireError(f"{key}: {numel} elements is more than the limit of {max_numel}")
        itemsize = torch.empty((), dtype=dtype).element_size()
        if nbytes != numel * itemsize or offset < 0 or offset + nbytes > len(blob):
            raise WireError(f"{key}: byte range does not match its shape and dtype")
        if numel == 0:
            out[key] = torch.empty(shape, dtype=dtype)
        else:
            flat = torch.frombuffer(blob, dtype=dtype, count=numel, offset=offset)
            out[key] = flat.reshape(shape).clone()
    return out
