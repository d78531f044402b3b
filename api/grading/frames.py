"""Length-prefixed frames between the pool (API process) and the zygote's slot servers.

A frame is ``>II`` (header length, blob length), a JSON header and an opaque blob. The blob of a
``job`` is a harness job; of a ``result`` it is the child's raw answer, which the slot server
relays without parsing. The slot server serves many jobs, so it never lets a blob into its
Python heap (freed memory there keeps its bytes, and the next child is forked from it): it
receives a blob into a buffer it unmaps afterwards (``recv_head`` then ``recv_into``) and sends
one from there (``send_view``).
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

_PREFIX = struct.Struct(">II")
MAX_FRAME_HEADER = 1 << 20
MAX_FRAME_BLOB = 256 << 20


class FrameError(ConnectionError):
    """The peer closed the connection or sent something that is not a frame."""


def send(sock: socket.socket, header: dict[str, Any], blob: bytes = b"") -> None:
    head = json.dumps(header, separators=(",", ":")).encode()
    sock.sendall(_PREFIX.pack(len(head), len(blob)) + head + blob)


def send_view(sock: socket.socket, header: dict[str, Any], blob: memoryview) -> None:
    """``send`` for a blob held in a buffer: its bytes are never copied into a Python object."""
    head = json.dumps(header, separators=(",", ":")).encode()
    sock.sendall(_PREFIX.pack(len(head), len(blob)) + head)
    if len(blob):
        sock.sendall(blob)


def recv_into(sock: socket.socket, view: memoryview) -> None:
    """Fill ``view`` exactly from the socket."""
    n = len(view)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise FrameError("connection closed")
        got += k


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray(n)
    with memoryview(buf) as view:
        recv_into(sock, view)
    return bytes(buf)


def recv_head(sock: socket.socket) -> tuple[dict[str, Any], int]:
    """A frame's header and its blob's length; the caller then reads the blob (``recv_into``)."""
    head_len, blob_len = _PREFIX.unpack(_recv_exact(sock, _PREFIX.size))
    if head_len > MAX_FRAME_HEADER or blob_len > MAX_FRAME_BLOB:
        raise FrameError("frame too large")
    header = json.loads(_recv_exact(sock, head_len))
    if not isinstance(header, dict):
        raise FrameError("frame header is not an object")
    return header, blob_len


def recv(sock: socket.socket) -> tuple[dict[str, Any], bytes]:
    header, blob_len = recv_head(sock)
    return header, _recv_exact(sock, blob_len) if blob_len else b""


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
