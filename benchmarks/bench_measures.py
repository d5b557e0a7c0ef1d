"""The measure stage alone: CPU time of ``measures.compute`` on ready tables.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_measures.py [--repeat 15]

Cases:

* ``every default measure`` and ``34 point measures`` (the binary measures but ``g2`` and
  ``f_beta``): 100k binary tables of 200 rows, the cell probabilities of
  ``bench_evaluate.py``'s frame (issue #24's case), through ``compute``;
* a sweep's measure stage: 2M tables with cells uniform in 0..399, through ``compute_cells``,
  for the sweep's default measures and for ``informedness`` alone.

``--parts`` adds the pieces of the first case: the point measures' program over every group (for
comparison), the distinct-table hashing, the point measures of the distinct tables, their
one-pass exact tests (Fisher and the chance test), the χ² tails and the two gathers (point rows,
test rows) that hand every row to every group.

Each line is the best and the median of ``--repeat`` calls' ``time.process_time`` after one
warm-up call (which compiles what is not cached); with ``--wall``, ``time.perf_counter`` (for
the threads' wall time: run without ``NUMBA_NUM_THREADS=1``). To compare two versions, run
this script for each in separate processes, alternating.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable

import numpy as np

from batcheval.kernels import binary, pvalues
from batcheval.measures.registry import default_measures
from batcheval.measures.significance import chi2_upper_tail
from batcheval.scores.sweep import SWEEP_MEASURES

compute_module = importlib.import_module("batcheval.measures.compute")


def cpu_ms(
    fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.process_time
) -> tuple[float, float]:
    """Best and median time of ``repeat`` calls by ``clock``, in ms, after a warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times) * 1e3, float(np.median(times)) * 1e3


def parts(counts: np.ndarray, cells: tuple[np.ndarray, ...]) -> dict[str, Callable[[], object]]:
    """The pieces of ``compute`` for every default measure of ``counts``, each on its own."""
    names = default_measures(2)
    distinct = compute_module.distinct_groups(cells, len(counts))
    assert distinct is not None, "the benchmark's tables repeat: the shared path is taken"
    ids, first = distinct
    tails = [
        n for n in names if n.startswith("p_") and n not in ("p_fisher", "p_informedness", "p_markedness")
    ]
    point = [m for m in binary.NAMES if m in names]
    slots = np.full(len(binary.NAMES), -1, dtype=np.int64)
    slots[[binary.NAMES.index(m) for m in point]] = np.arange(len(point))
    sub = tuple(c[first] for c in cells)
    once = np.empty((len(point), len(first)))
    binary.binary_measures(*sub, 1.0, slots, once)
    stats = once[[point.index(t[2:]) for t in tails]]
    what = np.array([pvalues.FISHER, pvalues.CHANCE], dtype=np.int64)
    tests = np.empty((2, len(first)))
    shared = np.ascontiguousarray(np.concatenate([stats, tests, tests[1:], tests[1:]]))
    return {
        "  point measures' program over every group (34 rows)": lambda: compute_module.compute(
            counts, [m for m in point if m != "g2"], cells=cells
        ),
        "  distinct-table hashing": lambda: compute_module.distinct_groups(cells, len(counts)),
        f"  the {len(point)} point measures of the {len(first)} distinct tables": lambda: (
            binary.binary_measures(*(c[first] for c in cells), 1.0, slots, once)
        ),
        "  Fisher and the chance test of the distinct tables, one pass": lambda: pvalues.distinct_tests(
            *cells, first, what, tests, None
        ),
        "    of which Fisher alone": lambda: pvalues.distinct_tests(*cells, first, what[:1], tests[:1], None),
        "    of which the chance test alone": lambda: pvalues.distinct_tests(
            *cells, first, what[1:], tests[:1], None
        ),
        "  chi2 tails of the distinct tables (7 rows)": lambda: chi2_upper_tail(stats.reshape(-1), 1),
        f"  gather of the {len(point)} point rows": lambda: compute_module.gather_shared(once, ids),
        f"  gather of the {len(shared)} test rows": lambda: compute_module.gather_shared(shared, ids),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--parts", action="store_true", help="also time the first case's pieces")
    parser.add_argument("--wall", action="store_true", help="wall time (perf_counter), not CPU time")
    args = parser.parse_args()
    clock, unit = (time.perf_counter, "wall") if args.wall else (time.process_time, "CPU")

    rng = np.random.default_rng(20240601)
    # bench_evaluate: prediction = label with probability 0.7, else uniform: 0.85 agree
    counts = rng.multinomial(200, [0.425, 0.075, 0.075, 0.425], size=100_000).reshape(-1, 2, 2)
    cells = compute_module.binary_cells(counts)
    point = [m for m in binary.NAMES if m not in ("f_beta", "g2")]
    big = tuple(rng.integers(0, 400, 2_000_000) for _ in range(4))
    cases = {
        "100k tables, every default measure": lambda: compute_module.compute(
            counts, default_measures(2), cells=cells
        ),
        **(parts(counts, cells) if args.parts else {}),
        "100k tables, 34 point measures": lambda: compute_module.compute(counts, point, cells=cells),
        "2M tables, the sweep's default measures": lambda: compute_module.compute_cells(
            *big, list(SWEEP_MEASURES)
        ),
        "2M tables, informedness": lambda: compute_module.compute_cells(*big, ["informedness"]),
    }
    for name, fn in cases.items():
        best, median = cpu_ms(fn, args.repeat, clock)
        print(f"{name}: {best:.2f} ms {unit} best, {median:.2f} median")


if __name__ == "__main__":
    main()
