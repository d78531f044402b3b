"""The zygote's configuration arrives through an inherited pipe, not its command line
(``api/grading/zygote_config.py``): ``ps`` stays readable, no local user reads the banned lists,
and a configuration that is too large or malformed stops the zygote with the error named."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from api.content.catalog import load_catalog
from api.grading import frames, zygote_config
from api.grading.pool import GraderPool
from tests.support import REPO, Server

PROFILE = os.environ.get("ADDNORM_SANDBOX", "strict")


def _zygote_of(server: Server) -> int:
    found = [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit()
        and _ppid(entry) == server.process.pid
        and b"api.grading.zygote" in _read(entry / "cmdline")
    ]
    assert len(found) == 1, found
    return found[0]


def _ppid(entry: Path) -> int | None:
    stat = _read(entry / "stat")
    return int(stat.rsplit(b")", 1)[1].split()[1]) if stat else None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # a process that ended while we looked
        return b""


def test_the_zygote_command_line_is_short_and_names_nothing_banned(server: Server) -> None:
    zygote = _zygote_of(server)
    cmdline = (Path("/proc") / str(zygote) / "cmdline").read_bytes()
    args = cmdline.split(b"\0")
    # Before: ~5 KB of JSON (every exercise's backstop); now the interpreter, -m and four flags.
    assert len(cmdline) < 300, cmdline
    assert b"--banned" not in args
    banned = {name for e in load_catalog(REPO / "exercises").values() for name in e.spec.banned}
    assert banned, "the catalogue bans nothing: this test would prove nothing"
    assert [n for n in banned if n.encode() in cmdline] == []
    assert b"aten." not in cmdline
    # The pipe was read and closed before the zygote forked: the fd it named is not open now.
    fd = args[args.index(b"--config-fd") + 1].decode()
    assert not (Path("/proc") / str(zygote) / "fd" / fd).exists()


def _start_zygote(payload: bytes, tmp_path: Path) -> tuple[subprocess.Popen[str], socket.socket]:
    """The zygote started as the pool starts it, its configuration ``payload`` (here in a file:
    the zygote reads any fd to EOF); our end of its one slot socket."""
    config = tmp_path / "config"
    config.write_bytes(payload)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    fd = os.open(config, os.O_RDONLY)
    cmd = [sys.executable, "-m", "api.grading.zygote", "--fds", str(theirs.fileno())]
    try:
        proc = subprocess.Popen(
            [*cmd, "--profile", PROFILE, "--config-fd", str(fd)],
            pass_fds=[theirs.fileno(), fd],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    finally:
        os.close(fd)
        theirs.close()
    ours.settimeout(120)
    return proc, ours


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b'[["torch.softmax"', "the configuration is not JSON"),
        (b"\xff\xfe", "the configuration is not JSON"),
        (b"", "the configuration is not JSON"),
        (json.dumps([["torch.softmax"]]).encode(), 'one key "banned", got list'),
        (json.dumps({"banned": [], "extra": 1}).encode(), "got ['banned', 'extra']"),
        (json.dumps({"banned": "torch.softmax"}).encode(), '"banned" must be a list of lists'),
        (json.dumps({"banned": ["torch.softmax"]}).encode(), '"banned"[0] must be a list'),
        (json.dumps({"banned": [["torch.softmax", 3]]}).encode(), '"banned"[0][1] must be a name'),
        (json.dumps({"banned": [[""]]}).encode(), '"banned"[0][0] must be a name'),
        (b" " * (zygote_config.MAX_BYTES + 1), f"over {zygote_config.MAX_BYTES} bytes"),
    ],
    ids=[
        "truncated",
        "not-utf8",
        "empty",
        "a-bare-list",
        "an-extra-key",
        "a-string",
        "a-list-of-strings",
        "a-number",
        "an-empty-name",
        "too-large",
    ],
)
def test_a_malformed_configuration_stops_the_zygote(
    payload: bytes, error: str, tmp_path: Path
) -> None:
    proc, ours = _start_zygote(payload, tmp_path)
    with ours:
        header, _ = frames.recv(ours)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, (proc.returncode, stderr)
    assert "api.grading.zygote: refusing to start: " in stderr
    assert error in stderr, stderr
    assert header["kind"] == "refused" and error in header["error"], header


def test_a_well_formed_configuration_is_accepted_by_the_same_start(tmp_path: Path) -> None:
    """The control for the refusals above: the same start with a good configuration serves."""
    payload = zygote_config.encode([["torch.nn.functional.layer_norm"], []])
    proc, ours = _start_zygote(payload, tmp_path)
    try:
        header, _ = frames.recv(ours)
        assert header["kind"] not in ("refused", "fatal"), header
        assert header.get("pid"), header
    finally:
        ours.close()
        os.killpg(proc.pid, 9)
        proc.communicate()


def test_the_pool_names_the_refusal() -> None:
    """Through the pool's own pipe: a list holding a number is refused, and the pool says why
    instead of running with a layer missing."""
    pool = GraderPool(slots=1, profile=PROFILE, banned=[["torch.softmax", 3]])  # type: ignore[list-item]
    with pytest.raises(RuntimeError, match=r'refused its configuration: "banned"\[0\]\[1\]'):
        pool.start()
    assert not pool.status.running


def test_a_configuration_larger_than_the_pipe_buffer_arrives_whole() -> None:
    """Over the pipe's 64 KiB the pool's write waits for the zygote to read (after it imported
    torch): the start still succeeds, and a refusal at the end shows the zygote read it all."""
    banned = [["torch.nn.functional.layer_norm"]] * 10_000
    assert len(zygote_config.encode(banned)) > 4 * 65536
    pool = GraderPool(slots=1, profile=PROFILE, banned=banned)
    pool.start()
    try:
        assert pool.status.running
    finally:
        pool.close()
    pool = GraderPool(slots=1, profile=PROFILE, banned=[*banned, [""]])
    with pytest.raises(RuntimeError, match=r'"banned"\[10000\]\[0\] must be a name'):
        pool.start()


def test_encode_round_trips_through_a_pipe() -> None:
    banned = [["torch.nn.functional.layer_norm", "aten.native_layer_norm"], []]
    r, w = os.pipe()
    with open(w, "wb") as pipe:
        pipe.write(zygote_config.encode(banned))
    assert zygote_config.read(r).banned == banned
    with pytest.raises(OSError):
        os.fstat(r)  # read closed it


def test_encode_refuses_what_the_zygote_would_not_read() -> None:
    with pytest.raises(zygote_config.ConfigError, match="over"):
        zygote_config.encode([["x" * 100] * (zygote_config.MAX_BYTES // 100)])
