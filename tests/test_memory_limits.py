"""available_bytes: the least of the system's free memory, the cgroup's limit and RLIMIT_AS.

In a container /proc/meminfo is the host's, so the memory guards let through allocations that the
container's cgroup limit then killed (no MemoryBudgetError, no message). The oracles are the
numbers written to the files the function reads and the limit given to a child process.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from batcheval.core import memory

GIB = 2**30


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Point the function at files of the test's own: 10 GiB free, no cgroup, no RLIMIT_AS."""
    (tmp_path / "meminfo").write_text("MemTotal: 20971520 kB\nMemAvailable: 10485760 kB\n")
    monkeypatch.setattr(memory, "MEMINFO", str(tmp_path / "meminfo"))
    v2 = (str(tmp_path / "memory.max"), str(tmp_path / "memory.current"))
    v1 = (str(tmp_path / "limit_in_bytes"), str(tmp_path / "usage_in_bytes"))
    monkeypatch.setattr(memory, "CGROUP_LIMITS", (v2, v1))
    monkeypatch.setattr(resource, "getrlimit", lambda _: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return tmp_path


def test_without_limits_it_is_memavailable(files):
    assert memory.available_bytes() == 10 * GIB


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_cgroup_limit_below_the_free_memory_is_what_it_leaves(files, version):
    limit, usage = (
        ("memory.max", "memory.current") if version == "v2" else ("limit_in_bytes", "usage_in_bytes")
    )
    (files / limit).write_text(f"{2 * GIB}\n")
    (files / usage).write_text(f"{GIB // 2}\n")
    assert memory.available_bytes() == 3 * GIB // 2
    with pytest.raises(memory.MemoryBudgetError, match=r"needs 2\.0 GiB, more than the 1\.5 GiB available"):
        memory.check_allocation(2 * GIB, "a table")


@pytest.mark.parametrize("text", ["max\n", "9223372036854771712\n"])  # v2's and v1's "no limit"
def test_no_cgroup_limit_is_no_limit(files, text):
    (files / "memory.max").write_text(text)
    (files / "limit_in_bytes").write_text(text)
    assert memory.available_bytes() == 10 * GIB


def test_a_cgroup_over_its_limit_leaves_nothing(files):
    (files / "memory.max").write_text(f"{GIB}\n")
    (files / "memory.current").write_text(f"{GIB + 4096}\n")
    assert memory.available_bytes() == 0


def test_rlimit_as_leaves_its_limit_less_what_the_process_maps(files, monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda _: (3 * GIB, resource.RLIM_INFINITY))
    (files / "statm").write_text("131072 2000 1000 1 0 5000 0\n")  # pages mapped
    monkeypatch.setattr(memory, "STATM", str(files / "statm"))
    assert memory.available_bytes() == 3 * GIB - 131072 * resource.getpagesize()


def test_a_process_under_ulimit_v_sees_its_limit():
    """A real limit, in a child process: what the guards compare against stays below it."""
    limit_kib = 12 * 2**20  # 12 GiB of address space: enough to import numpy, polars and numba
    code = "from batcheval.core import memory; print(memory.available_bytes())"
    root = str(Path(__file__).parents[1])
    done = subprocess.run(["bash", "-c", f"ulimit -v {limit_kib} && {sys.executable} -c '{code}'"],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < int(done.stdout) < limit_kib * 1024
