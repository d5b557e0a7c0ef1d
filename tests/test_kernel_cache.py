"""numba's disk cache follows every kernel source, not only the kernel's own file.

numba stamps a cached kernel with its own source file, so a kernel that calls or inlines a jitted
function of another module kept the old callee's machine code after only the callee's file changed
(an editable install, a git pull): a silent wrong answer until the cache was cleared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from batcheval.kernels import jit as _jit

# leaderboard.paired_informedness_se calls delta.informedness_gradient (a call of another module's
# kernel); ranks.permutation_rank_sums draws with sampling.uniform, inlined, whose _TO_UNIT numba
# freezes into the code. Both inputs are small, so each runs its serial twin.
_SCRIPT = """
import json, sys
import numpy as np
import batcheval
from batcheval.kernels import leaderboard, ranks
assert batcheval.__file__.startswith(sys.argv[1]), batcheval.__file__
se = np.empty(1)
leaderboard.paired_informedness_se(np.array([[30, 5, 4, 6, 7, 3, 5, 40]], dtype=np.int64), se)
at_least = np.zeros(3, dtype=np.int64)
blocks = np.array([[[0, 1, 2, 3]] * 3], dtype=np.int64)
stat = np.array([90, 100, 110], dtype=np.int64)
ranks.permutation_rank_sums(blocks, np.array([7], dtype=np.uint64), 3, np.array([0, 3]), stat, at_least)
kernels = (leaderboard.paired_informedness_se.serial, ranks.permutation_rank_sums.serial)
print(json.dumps({
    "se": se[0],
    "at_least": at_least.tolist(),
    "hits": sum(sum(k.stats.cache_hits.values()) for k in kernels),
    "misses": sum(sum(k.stats.cache_misses.values()) for k in kernels),
}))
"""


def _run(root: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "BATCHEVAL_QUIET_COMPILE": "1"}
    env["PYTHONPATH"] = str(root)
    command = [sys.executable, "-c", _SCRIPT, str(root)]
    done = subprocess.run(
        command, check=False, env=env, cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def _rank_sums_without_shuffle(n_rows: int, k: int, draws: int) -> list[int]:
    """``Σ_j R_j²`` of each draw when every uniform is 0: Fisher–Yates then swaps column j with 0."""
    work = np.tile(np.arange(k), (n_rows, 1))
    out = []
    for _ in range(draws):
        r = work[0].copy()
        for i in range(1, n_rows):
            for j in range(k - 1, 0, -1):
                work[i, j], work[i, 0] = work[i, 0], work[i, j]
            r += work[i]
        out.append(int((r * r).sum()))
    return out


def test_a_change_to_a_called_kernel_module_recompiles_its_callers(tmp_path):
    """A copy of the package with an empty cache, run three times in fresh interpreters: as is,
    after editing delta.py and sampling.py (the callees' modules only), and unchanged again.
    Before: the second run loaded the callers' cached code and gave the first run's values (a
    finite standard error for a table the edit makes undefined, the old shuffles)."""
    root = tmp_path / "pkg"
    package = Path(_jit.__file__).parents[1]
    shutil.copytree(package, root / "batcheval", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    kernels = root / "batcheval" / "kernels"
    # every uniform 0: the three draws' rank sums, and how many reach each statistic
    unshuffled = np.array(_rank_sums_without_shuffle(3, 4, 3))
    at_least = [int(np.sum(unshuffled >= t)) for t in (90, 100, 110)]

    first = _run(root, cache)
    assert np.isfinite(first["se"]) and first["se"] > 0
    assert first["at_least"] != at_least
    assert first["misses"] == 2 and first["hits"] == 0

    # the gradient says "undefined" for every table, so the standard error is NaN; every uniform is 0
    _edit(kernels / "delta.py", "    return r0 >= 1.0 or r1 >= 1.0\n", "    return True\n")
    _edit(kernels / "sampling.py", "_TO_UNIT = 1.0 / 9007199254740992.0", "_TO_UNIT = 0.0")
    second = _run(root, cache)
    assert np.isnan(second["se"])
    assert second["at_least"] == at_least
    assert second["misses"] == 2 and second["hits"] == 0

    third = _run(root, cache)  # nothing changed: both kernels load from the cache, none compiles
    assert third["misses"] == 0 and third["hits"] == 2
    assert np.isnan(third["se"]) and third["at_least"] == at_least


def test_the_fingerprint_is_every_kernel_source_in_name_order():
    """Recomputed here from the files: the names and bytes of every kernels/*.py, sorted by name."""
    import hashlib

    here = Path(_jit.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(here.glob("*.py"), key=lambda p: p.name):
        data = path.read_bytes()
        digest.update(b"%d:%s:%d:" % (len(path.name), path.name.encode(), len(data)))
        digest.update(data)
    assert _jit.KERNELS_FINGERPRINT == digest.hexdigest() == _jit.kernels_fingerprint()


def test_cache_entries_are_written_and_read_under_one_lock(tmp_path, monkeypatch):
    """numba replaces a function's index and data files one at a time; two processes compiling two
    signatures of one function at once could leave the index naming one signature and the data file
    holding the other's code. batcheval's cache saves under an exclusive lock and loads under a
    shared one (``jit.cache_lock``): here another descriptor cannot take the lock while numba
    writes, and can share it, not take it whole, while a second dispatcher reads."""
    import numba
    import pytest

    fcntl = pytest.importorskip("fcntl")
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(tmp_path))

    def add_two(x):
        return x + 2

    kernel = _jit.jit(add_two)
    cache_file = type(kernel._cache._cache_file)
    lock = kernel._cache._lock_path()
    seen = []

    def probe(kind):
        fd = os.open(lock, os.O_RDWR)
        try:
            for mode in (fcntl.LOCK_EX, fcntl.LOCK_SH):
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    seen.append((kind, mode, "free"))
                except BlockingIOError:
                    seen.append((kind, mode, "held"))
        finally:
            os.close(fd)

    save, load = cache_file.save, cache_file.load
    monkeypatch.setattr(cache_file, "save", lambda self, key, data: probe("save") or save(self, key, data))
    monkeypatch.setattr(cache_file, "load", lambda self, key: probe("load") or load(self, key))
    assert kernel(1) == 3  # a miss (a load under the shared lock), a compile, then the save
    again = _jit.jit(add_two)
    assert again(5) == 7 and again.stats.cache_hits  # read back from the files just written
    assert ("save", fcntl.LOCK_EX, "held") in seen and ("save", fcntl.LOCK_SH, "held") in seen
    assert ("load", fcntl.LOCK_EX, "held") in seen and ("load", fcntl.LOCK_SH, "free") in seen
    assert os.listdir(tmp_path)  # the entry is on disk


def test_a_file_system_without_locks_leaves_the_cache_unlocked(tmp_path, monkeypatch):
    # flock raises ENOLCK or EOPNOTSUPP on some network and FUSE file systems: every kernel call
    # would have failed there; the entry is written and read as numba writes it
    import errno

    import numba
    import pytest

    fcntl = pytest.importorskip("fcntl")
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(tmp_path))

    def refuse(fd, mode):
        raise OSError(errno.ENOLCK, "no locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)

    def add_three(x):
        return x + 3

    assert _jit.jit(add_three)(1) == 4
    again = _jit.jit(add_three)
    assert again(2) == 5 and again.stats.cache_hits
