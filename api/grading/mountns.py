"""A private view of the filesystem for a grading child: only what importing torch needs.

Landlock stops a child reading files outside the Python install, but ``stat``, ``readlink`` and
``access`` are not Landlock rights: a child could still learn that ``solutions/`` exists, its
size and mtime, where the database lives, which processes run and as whom. In a private mount
namespace the child's root is a small read-only tmpfs holding bind mounts of the readable roots
(the standard library, site-packages, the loaded libraries' directories) and ``/dev/null``,
``/dev/zero``, ``/dev/urandom``; nothing else exists for it: no repo, no data directory, no
``/proc``, no ``/etc``, no home.

As root the namespace is created directly; otherwise inside an unprivileged user namespace,
where the kernel allows them. ``available()`` finds out in a throwaway child at start-up.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

# Where the new root is assembled, in the child's own namespace only (hidden by the tmpfs).
STAGING = "/tmp"
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {source or fstype} on {target}",
    )


def _enter_namespaces() -> None:
    """A new mount namespace: directly as root, else inside a new user namespace where this
    process is root (mapped to its own uid and gid, one id each)."""
    if os.geteuid() == 0:
        _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        return
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(CLONE_NEWUSER|CLONE_NEWNS)")
    for path, text in (
        ("/proc/self/setgroups", "deny"),
        ("/proc/self/uid_map", f"{uid} {uid} 1"),
        ("/proc/self/gid_map", f"{gid} {gid} 1"),
    ):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def enter(readable: Iterable[str]) -> None:
    """Switch the calling (single-threaded, not yet locked) child to the private view."""
    roots = sorted({os.path.realpath(p) for p in readable if os.path.isabs(p)})
    _enter_namespaces()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing of ours propagates out
    # Opened in the new namespace (a bind needs a mount of its own namespace) and before the
    # tmpfs hides anything, so a root beneath STAGING stays reachable.
    sources = {}
    for path in [*roots, *DEVICES]:
        try:
            sources[path] = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
    try:
        _mount("tmpfs", STAGING, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
        for path, fd in sources.items():
            target = STAGING + path
            if path in DEVICES:
                os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
            else:
                os.makedirs(target, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
            if path not in DEVICES:
                _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        _mount(None, STAGING, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        for fd in sources.values():
            os.close(fd)
    os.chdir(STAGING)
    os.chroot(".")
    os.chdir("/")
