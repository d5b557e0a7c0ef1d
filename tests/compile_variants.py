"""Kernels compiled twice for one input type: ``test_compile_variants.py`` runs these checks in fresh
interpreters, where every kernel and every helper a call compiles is seen (run alone with an empty
``NUMBA_CACHE_DIR``, ``python -m tests.compile_variants`` checks every one).

numba compiles a function once per argument type, and two types that differ only in a literal value
(``n = 0`` passed before the loop that sums it: ``Literal[int](0)``; a flag passed as ``True``) or in
an array's writability (a ``ContingencyTable``'s read-only counts beside a writable copy) compile
the same code twice. A first multiclass ``evaluate`` paid about 14 s of CPU for such twins.
Prints one line per kernel and twin; nothing when there is none.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import warnings

import numpy as np
import polars as pl
from numba.core.registry import CPUDispatcher


def plain(signature: object) -> str:
    """A signature with literals made their types and read-only arrays writable."""
    names = {"int": "int64", "bool": "bool", "float": "float64"}
    text = re.sub(r"Literal\[(\w+)\]\([^)]*\)", lambda m: names.get(m[1], m[1]), str(signature))
    return re.sub(r"(Array\([^,]+, \d+, '[ACF]'), True,", r"\1, False,", text)


def twins(dispatchers: list[tuple[str, object]]) -> list[str]:
    """``name: [signatures]`` for every dispatcher with two signatures of one :func:`plain` form."""
    found = []
    for name, dispatcher in dispatchers:
        forms: dict[str, list[str]] = {}
        for signature in dispatcher.signatures:
            forms.setdefault(plain(signature), []).append(str(signature))
        found += [f"{name}: {same}" for same in forms.values() if len(same) > 1]
    return found


def kernel_dispatchers() -> list[tuple[str, object]]:
    from batcheval import kernels

    found = []
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"batcheval.kernels.{info.name}")
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher):
                versions = [(name, obj)]
            elif hasattr(obj, "serial") and hasattr(obj, "parallel"):  # jit.ParallelKernel
                versions = [(f"{name}.serial", obj.serial), (f"{name}.parallel", obj.parallel)]
            else:
                continue
            for label, dispatcher in versions:
                if getattr(dispatcher.py_func, "__module__", None) == module.__name__:  # not an import
                    found.append((f"{info.name}.{label}", dispatcher))
    return found


def flows() -> None:
    """Binary and 3-class ``evaluate`` with intervals, plain and clustered, a binary board, a table of
    one class, and the score paths: a sweep on a grid and an exact one, ``auc`` with and without ``ci=``, and
    ``compare_auc`` (``exact.run_scratch`` compiled again for a literal 0 under them)."""
    import batcheval as be

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    for k in (2, 3):
        y = rng.integers(0, k, 60)
        df = pl.concat([
            pl.DataFrame({"run": r, "seed": s, "example": np.arange(60), "label": y,
                          "prediction": np.where(rng.random(60) < 0.75, y, rng.integers(0, k, 60))})
            for r in range(3) for s in range(2)
        ])  # fmt: skip
        be.evaluate(df, by="run", ci=0.95)
        # one table: its cells are contiguous read-only views of the table's counts
        be.evaluate(df.filter((pl.col("run") == 0) & (pl.col("seed") == 0)), ci=0.95)
        be.evaluate(df, by=["run", "seed"], pool="seed", ci=0.95, example="example")
        if k == 2:  # a board: its tables reach the delta variance from the table and as distinct ones
            be.leaderboard(df.filter(pl.col("seed") == 0))
            # a pool and an unkeyed merge add a table's frozen counts, a keyed merge a fresh
            # concatenation: scatter_add compiled once for each
            table = be.ContingencyTable.from_frame(df, by=["run", "seed"])
            table.pool("seed")
            table + table
            be.ContingencyTable.from_frame(df) + be.ContingencyTable.from_frame(df)
    # a table of one class: its binary measures come from a one-vs-rest table (whose cell columns
    # were read-only views of its counts: run_program, the chance tests and Fisher's compiled again),
    # and its smoothed bootstrap resamples its one class beside one other (read-only counts)
    one = pl.DataFrame({"label": [1] * 10, "prediction": [1] * 10})
    be.evaluate(one, measures=["mcc", "recall", "p_informedness", "p_fisher"], ci=0.95, seed=0)
    be.evaluate(one, measures=["macro_f1"], ci=0.95, seed=0, classes=[0, 1, 2])
    y = np.tile(rng.integers(0, 2, 60), 2)
    scored = pl.DataFrame({"run": np.repeat([0, 1], 60), "example": np.tile(np.arange(60), 2),
                           "label": y, "score": rng.random(120)})  # fmt: skip
    be.sweep(scored, by="run")
    be.sweep(scored, by="run", thresholds="exact")
    be.auc(scored, by="run")
    be.auc(scored, by="run", ci=0.95)
    be.compare_auc(scored)


def main() -> None:
    flows()
    print("\n".join(twins(kernel_dispatchers())))


if __name__ == "__main__":
    main()
