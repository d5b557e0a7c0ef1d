"""What first calls compile, on an empty numba cache (a helper that a cached kernel calls is never
called itself, so only compiling shows what a call needs).

Three-class tables of 200 examples compile neither the permutation tests nor the exact sums (9 s of
CPU of 21), nor does a table of 10 examples whose sums cancel when no measure of those sums is asked
for; with them it compiles all three. Nor the chance test's exact tail of 2^31 examples or more
(about 1 s), which a table of 3e9 compiles. Then the flows of ``tests/compile_variants.py``, and no
kernel has a twin. Before, they found 18 twins, among them the whole multiclass measure kernel
(writable and read-only counts). Both run in one interpreter: each fresh one compiles the evaluate
kernels again (about 20 s of CPU).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from .compile_variants import plain, twins

_RARE_PATHS = """
import json, warnings, numpy as np, polars as pl, batcheval as be
from batcheval.kernels import chance, multiclass
from tests.compile_variants import flows, kernel_dispatchers, twins
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
def frame(n):
    y = rng.integers(0, 3, 4 * n)
    p = np.where(rng.random(4 * n) < 0.6, y, rng.integers(0, 3, 4 * n))
    return pl.DataFrame({"run": np.arange(4 * n) // n, "label": y, "prediction": p})
def called():  # an empty cache: what a call needed, it compiled
    kernels = (chance._enumerated_midp, chance._shuffled_midp, multiclass._exact_sums, chance._wide_midp)
    return [len(k.signatures) for k in kernels]
seen = []
be.evaluate(frame(200), by="run", ci=0.95)
seen += called()
# a table whose one-vs-rest informedness sums cancel to within their rounding of zero
table = [[0, 2, 4], [0, 2, 0], [1, 1, 0]]
cells = [(i, j) for i in range(3) for j in range(3) for _ in range(table[i][j])]
small = pl.DataFrame({"label": [i for i, _ in cells], "prediction": [j for _, j in cells]})
be.evaluate(small, measures=["accuracy", "mcc"])  # no measure of the Bookmaker sums: nothing to redo
seen += called()
be.evaluate(small, ci=0.95)
seen += [n > 0 for n in called()]
# a rare class of 3e9 examples: the exact tail of 2^31 examples or more
n = 3_000_000_000
counts = np.array([[[n - 108, 58], [48, 2]]], dtype=np.int64)
be.ContingencyTable(pl.DataFrame({"g": [0]}), [0, 1], counts).measures(["p_informedness"])
seen.append(called()[3] > 0)
flows()
print(json.dumps({"calls": seen, "twins": twins(kernel_dispatchers())}))
"""


def test_first_calls_compile_no_rare_path_and_no_twin(tmp_path):
    root = str(Path(__file__).parents[1])
    # NUMBA_OPT=0: what compiles is the question, not how fast it runs (LLVM's passes at the default
    # level were a fifth of the 52 s this took on an empty cache)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "BATCHEVAL_QUIET_COMPILE": "1", "NUMBA_OPT": "0"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-c", _RARE_PATHS], check=False, env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    rare = json.loads(done.stdout.strip().splitlines()[-1])
    # three-class tables of 200: none of the four; the cancelling table without its measures: none;
    # with them, the permutation tests and the exact sums but not the tail; the 3e9 table: the tail
    assert rare["calls"] == [0] * 8 + [True, True, True, False, True]
    assert rare["twins"] == []


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
