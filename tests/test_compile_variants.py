"""No kernel compiles twice for one input type (tests/compile_variants.py says why it matters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from .compile_variants import plain, twins


def test_evaluate_compiles_no_kernel_twice_for_one_type(tmp_path):
    """Binary and 3-class ``evaluate`` with intervals, plain and clustered, and a binary board, in a
    fresh interpreter with an empty cache (about 25 s of CPU). Before: 18 twins, among them the
    whole multiclass measure kernel (writable and read-only counts)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "BATCHEVAL_QUIET_COMPILE": "1"}
    script = Path(__file__).with_name("compile_variants.py")
    root = str(script.parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    command = [sys.executable, str(script)]
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""


def test_the_twin_check_finds_planted_literal_and_read_only_twins():
    @numba.njit(cache=False)
    def add(x, flag):
        return x + 1 if flag else x

    @numba.njit(cache=False)
    def by_literal(x):
        return add(x, True) + add(x, np.bool_(True))

    @numba.njit(cache=False)
    def first(a):
        return a[0]

    by_literal(1)
    frozen = np.arange(3)
    first(frozen)
    frozen.flags.writeable = False
    first(frozen)
    assert len(twins([("add", add), ("first", first)])) == 2
    first(np.arange(3.0))  # another dtype is no twin
    assert len(twins([("first", first)])) == 1
    assert plain("(Literal[int](0), Array(int64, 1, 'C', True, aligned=True))") == (
        "(int64, Array(int64, 1, 'C', False, aligned=True))"
    )


_RARE_PATHS_SCRIPT = """
import warnings, numpy as np, polars as pl, batcheval as be
from batcheval.kernels import chance, multiclass
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
def frame(n):
    y = rng.integers(0, 3, 4 * n)
    p = np.where(rng.random(4 * n) < 0.6, y, rng.integers(0, 3, 4 * n))
    return pl.DataFrame({"run": np.arange(4 * n) // n, "label": y, "prediction": p})
def compiled():
    kernels = (chance._enumerated_midp, chance._shuffled_midp, multiclass._exact_sums, chance._wide_midp)
    return [len(k.signatures) for k in kernels]
be.evaluate(frame(200), by="run", ci=0.95)
print(*compiled())
# a table whose one-vs-rest informedness sums cancel to within their rounding of zero
table = [[0, 2, 4], [0, 2, 0], [1, 1, 0]]
cells = [(i, j) for i in range(3) for j in range(3) for _ in range(table[i][j])]
small = pl.DataFrame({"label": [i for i, _ in cells], "prediction": [j for _, j in cells]})
be.evaluate(small, measures=["accuracy", "mcc"])  # no measure of the Bookmaker sums: nothing to redo
print(*compiled())
be.evaluate(small, ci=0.95)
print(*(n > 0 for n in compiled()))
# a rare class of 3e9 examples: the exact tail of 2^31 examples or more
n = 3_000_000_000
counts = np.array([[[n - 108, 58], [48, 2]]], dtype=np.int64)
be.ContingencyTable(pl.DataFrame({"g": [0]}), [0, 1], counts).measures(["p_informedness"])
print(compiled()[3] > 0)
"""


def test_large_multiclass_tables_compile_neither_permutation_tests_nor_exact_sums(tmp_path):
    """Three-class tables of 200 examples take the z test and the float Bookmaker sums: the first
    call compiles neither the enumerated nor the shuffled permutation test nor the exact sums
    (9 s of CPU of 21), nor does a table of 10 examples whose sums cancel when no measure of those
    sums is asked for; with them it compiles all three. Nor the chance test's exact tail of 2^31
    examples or more (about 1 s), which a table of 3e9 compiles."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "BATCHEVAL_QUIET_COMPILE": "1"}
    root = str(Path(__file__).parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-c", _RARE_PATHS_SCRIPT], check=False, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0"] * 8 + ["True", "True", "True", "False", "True"]
