"""The one-time notice when batcheval's kernels compile (issue 23 §1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import pytest

from batcheval.kernels import jit as _jit


def _fresh_kernel(module: str):
    def add_one(x):
        return x + 1

    add_one.__module__ = module
    return numba.njit(cache=False)(add_one)


def test_notice_once_for_batcheval_kernels_only(capsys, monkeypatch):
    monkeypatch.setattr(_jit, "_told", [])
    monkeypatch.delenv("BATCHEVAL_QUIET_COMPILE", raising=False)
    assert _fresh_kernel("someone.else")(1) == 2  # a compile that is not batcheval's says nothing
    assert capsys.readouterr().err == ""
    assert _fresh_kernel("batcheval.kernels.fake")(1) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "batcheval: compiling numba kernels for this machine (first: batcheval.kernels.fake.add_one)"
    )
    assert "once per machine" in err and "cached in" in err
    assert _fresh_kernel("batcheval.kernels.fake")(2.0) == pytest.approx(
        3.0
    )  # compiles again: no second notice
    assert capsys.readouterr().err == ""


def test_a_hook_runs_once_at_the_next_batcheval_compile_even_when_quiet(capsys, monkeypatch):
    # batcheval demo starts its warm-up process so when its predictions are cached
    monkeypatch.setattr(_jit, "_told", [True])
    monkeypatch.setattr(_jit, "_on_compile", [])
    monkeypatch.setenv("BATCHEVAL_QUIET_COMPILE", "1")
    calls = []
    cancel = _jit.call_on_first_compile(lambda: calls.append("a"))
    dropped = _jit.call_on_first_compile(lambda: calls.append("dropped"))
    dropped()
    assert _fresh_kernel("someone.else")(1) == 2 and calls == []  # not batcheval's
    assert _fresh_kernel("batcheval.kernels.fake")(1) == 2 and calls == ["a"]
    assert _fresh_kernel("batcheval.kernels.fake")(2.0) == 3.0 and calls == ["a"]  # once
    cancel()  # after it ran: nothing to cancel
    assert capsys.readouterr().err == ""


def test_notice_can_be_silenced(capsys, monkeypatch):
    monkeypatch.setattr(_jit, "_told", [])
    monkeypatch.setenv("BATCHEVAL_QUIET_COMPILE", "1")
    assert _fresh_kernel("batcheval.kernels.fake")(1) == 2
    assert capsys.readouterr().err == ""


def test_parallel_kernels_run_a_serial_twin_on_small_inputs():
    """Small inputs take the serial twin, large ones the parallel kernel, with the same values;
    both against the plain formulas of G² and informedness."""
    import numpy as np

    from batcheval.kernels import binary
    from batcheval.measures.compute import compute_cells

    rng = np.random.default_rng(7)
    n_groups = _jit.SERIAL_BELOW + 5
    tp, fp, fn, tn = (rng.integers(1, 60, n_groups) for _ in range(4))  # no empty margin
    names = ["g2", "informedness"]
    big = compute_cells(tp, fp, fn, tn, names)
    small = compute_cells(tp[:300], fp[:300], fn[:300], tn[:300], names)
    assert binary.run_program.parallel.signatures and binary.run_program.serial.signatures
    for name in names:
        np.testing.assert_array_equal(small[name], big[name][:300])
    informedness = tp / (tp + fn) - fp / (fp + tn)
    table = np.stack([tp, fp, fn, tn], axis=1).astype(float)
    n = table.sum(axis=1, keepdims=True)
    expected = (
        np.stack([tp + fp, tp + fp, fn + tn, fn + tn], axis=1) * np.stack([tp + fn, fp + tn] * 2, axis=1) / n
    )
    g2 = 2 * (table * np.log(table / expected)).sum(axis=1)
    np.testing.assert_allclose(big["informedness"], informedness, rtol=1e-14, atol=1e-15)
    # the plain sum's cell terms cancel to about n·eps near independence (g2 of 0.002 there); the
    # kernel sums each cell's deviance from the exact n·o − r·p (tests/test_measures_precision.py)
    np.testing.assert_allclose(big["g2"], g2, rtol=1e-12, atol=1e-12)


def test_twin_has_its_own_cache_entry():
    """The serial twin must not share the parallel kernel's cache file, or one would load the other."""
    from batcheval.kernels import binary

    kernel = binary.run_program
    assert kernel.serial.py_func.__qualname__ == kernel.parallel.py_func.__qualname__ + "_serial"
    assert kernel.__doc__ == kernel.parallel.py_func.__doc__


def test_warmup_tables_take_the_per_group_kernels():
    """`batcheval warmup`'s random tables must miss the distinct tables' pass (so that it compiles
    the per-group kernels a sweep of large groups takes) and be large enough for the parallel ones."""
    import numpy as np

    from batcheval.cli.main import warmup_tables
    from batcheval.kernels.jit import SERIAL_BELOW
    from batcheval.measures.compute import binary_cells, distinct_groups

    n = 2 * SERIAL_BELOW + 2  # the warmup's large size
    cells = binary_cells(warmup_tables(n, np.random.default_rng(0)))
    assert distinct_groups(cells, n) is None
    assert len(np.unique(np.stack(cells), axis=1)[0]) > 0.9 * n  # hardly any table repeats


_WARMUP = """
import contextlib, io, json
import numpy as np, polars as pl, batcheval as be
from numba.core import event
from batcheval.cli import main
from batcheval.kernels import binary, chance, count, sweep
from tests.compile_variants import kernel_dispatchers, twins

out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert main(["warmup", "--small-only"]) == 0  # with its second process (--jobs 2)
out = out.getvalue()
steps = ("evaluate", "evaluate, 3 classes", "evaluate, intervals", "evaluate, 3 classes, intervals",
         "evaluate, clustered intervals", "evaluate, 2 groups", "evaluate, 3 classes, 2 groups",
         "evaluate, 3 classes, groups of 10", "sweep", "sweep, 2 groups", "sweep, 400 groups", "auc",
         "auc, 2 groups", "leaderboard", "leaderboard, paired", "leaderboard, 200 runs",
         "leaderboard, 400 runs", "leaderboard, paired delta, adjacent")
missing = [step for step in steps if f"warmup: {step} (400 rows):" not in out]
assert not missing, (missing, out)
assert "compiled kernels are cached in" in out, out
assert binary.run_program.serial.signatures and count.count_private.serial.signatures
# the twins that groups of few rows or few groups take, each reached on purpose
for kernel in (sweep.score_histogram, sweep.row_any, chance.multiclass_chance):
    assert kernel.serial.signatures and kernel.parallel.signatures, kernel.__name__
assert sweep.sweep_columns.serial.signatures and count.sum_rows.serial.signatures
assert chance.permutation_tests.serial.signatures
twinned = twins(kernel_dispatchers())
# what the warmup gave is on disk, where the next process finds it (numba only warns when a kernel
# cannot be cached)
unsaved = [name for name, kernel in kernel_dispatchers() for signature in kernel.signatures
           if kernel._cache.load_overload(signature, kernel.targetctx) is None]


def signatures():  # compiled here or loaded from the disk cache, as the warmup left them
    return {name: {str(s) for s in kernel.signatures} for name, kernel in kernel_dispatchers()}


warmed, compiled = signatures(), []


class Listener(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("batcheval."):
            compiled.append(func.__qualname__)

    def on_end(self, ev):
        pass


rng = np.random.default_rng(1)
df = pl.DataFrame({"run": rng.integers(0, 5, 300), "label": rng.integers(0, 3, 300),
                   "prediction": rng.integers(0, 3, 300), "score": rng.random(300)})
event.register("numba:compile", Listener())
be.sweep(df.with_columns(pl.col("label") % 2), by="run")
be.evaluate(df, by="run")
new = {name: sorted(now - warmed[name]) for name, now in signatures().items() if now - warmed[name]}
print(json.dumps({"twins": twinned, "unsaved": unsaved, "new": new, "compiled": sorted(set(compiled))}))
"""


def test_warmup_small_only_leaves_a_small_sweep_and_3_class_evaluate_nothing_to_compile(tmp_path):
    """`batcheval warmup --small-only` reports each of its steps and gives the serial twins of the
    kernels it names, none of them twice for one type (tests/compile_variants.py says why: before,
    ``exact.run_scratch`` compiled again for a literal 0); after it, a sweep of 5 runs (the serial
    sweep kernels) and a 3-class evaluate of 60 examples a run (the serial chance tests and
    permutation tests) need no kernel for a type the warmup did not give: the help text's promise,
    "the serial kernels that inputs under 65,536 rows or groups use". Before, they compiled 5 and
    13 s.

    One fresh interpreter on the suite's own numba cache, whatever it holds: a kernel the warmup
    compiled or loaded has its type in the dispatcher, and every kernel is cached on disk
    (``kernels/jit.py``; the test loads each of the warmup's types back from the disk cache), so a
    type that the sweep or evaluate adds after the warmup is one a new process would compile after
    it. Twins are seen here only in the kernels the warmup compiled, not in the helpers of those it
    loaded: ``flows()`` of tests/compile_variants.py takes evaluate, a board, the sweeps, auc and
    compare_auc on an empty cache. (On an empty cache of its own this test compiled everything
    again, 130 s of CI's cold run for nothing the suite reuses.)"""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "BATCHEVAL_QUIET_COMPILE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, "-c", _WARMUP], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["twins"] == [], "a kernel the warmup compiled twice for one type"
    assert seen["unsaved"] == [], "a kernel the warmup gave is not in the disk cache"
    assert seen["new"] == {} and seen["compiled"] == [], f"not given by the warmup: {seen}"
