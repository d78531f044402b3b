"""The zygote's memory in huge pages: what gets collapsed, and that forks still share nothing
writable (copy-on-write holds inside a huge page)."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from api.grading import hugepages

MAPS = """\
55d0c0000000-55d0c0a00000 rw-p 00000000 00:00 0                          [heap]
7f0000100000-7f0000500000 rw-p 00000000 00:00 0
7f0000600000-7f0000700000 rw-p 00000000 00:00 0
7f0001000000-7f0001400000 rw-p 00001000 08:01 123                        /usr/lib/libtorch_cpu.so
7f0002000000-7f0002400000 r--p 00000000 00:00 0
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0                          [stack]
"""


def test_only_the_heap_and_anonymous_writable_memory_is_collapsed() -> None:
    ranges = hugepages._anonymous_writable_ranges(MAPS)
    two_mib = hugepages.HUGE_PAGE
    assert ranges == [
        (0x55D0C0000000, 0x55D0C0A00000),  # the heap, already aligned
        (0x7F0000200000, 0x7F0000400000),  # the aligned middle of an unaligned region
        # a region smaller than one huge page once aligned, a library's data, a read-only
        # mapping and the stack: none
    ]
    assert all((end - start) % two_mib == 0 for start, end in ranges)


def _supported() -> bool:
    """MADV_COLLAPSE exists since Linux 6.1 and does nothing where THP is ``never``."""
    major, minor = (int(p) for p in platform.release().split(".")[:2])
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    enabled = setting.is_file() and "[never]" not in setting.read_text()
    return (major, minor) >= (6, 1) and enabled


def _anon_huge_kib() -> int:
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    return 0


def test_collapse_backs_memory_with_huge_pages_and_forks_still_copy_on_write() -> None:
    block = bytearray(os.urandom(1024)) * (16 * 1024)  # 16 MiB on the heap or in an mmap
    before = _anon_huge_kib()
    collapsed = hugepages.collapse_anonymous_memory()
    if not _supported():
        assert collapsed == 0
        return
    assert collapsed >= 8 << 20, collapsed
    assert _anon_huge_kib() > before

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child writes into the collapsed memory and reports what it sees
        block[5 << 20] = block[5 << 20] ^ 0xFF
        os.write(write_end, bytes([block[5 << 20]]))
        os._exit(0)
    os.close(write_end)
    seen = os.read(read_end, 1)
    os.close(read_end)
    os.waitpid(pid, 0)
    assert seen[0] == block[5 << 20] ^ 0xFF  # the child's write happened, in its own copy
