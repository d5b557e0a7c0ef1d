"""The measure stage alone: CPU time of ``measures.compute`` on ready tables.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_measures.py [--repeat 15]

Cases:

* ``every default measure`` and ``34 point measures`` (the binary measures but ``g2`` and
  ``f_beta``): 100k binary tables of 200 rows, the cell probabilities of
  ``bench_evaluate.py``'s frame (issue #24's case), through ``compute``;
* a sweep's measure stage: 2M tables with cells uniform in 0..399, through ``compute_cells``,
  for the sweep's default measures and for ``informedness`` alone.

Each line is the best and the median of ``--repeat`` calls' ``time.process_time`` after one
warm-up call (which compiles what is not cached). To compare two versions, run this script
for each in separate processes, alternating.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable

import numpy as np

from batcheval.kernels import binary
from batcheval.measures.registry import default_measures
from batcheval.scores.sweep import SWEEP_MEASURES

compute_module = importlib.import_module("batcheval.measures.compute")


def cpu_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best and median CPU time of ``repeat`` calls, in ms, after a warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times) * 1e3, float(np.median(times)) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

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
        "100k tables, 34 point measures": lambda: compute_module.compute(counts, point, cells=cells),
        "2M tables, the sweep's default measures": lambda: compute_module.compute_cells(
            *big, list(SWEEP_MEASURES)
        ),
        "2M tables, informedness": lambda: compute_module.compute_cells(*big, ["informedness"]),
    }
    for name, fn in cases.items():
        best, median = cpu_ms(fn, args.repeat)
        print(f"{name}: {best:.2f} ms CPU best, {median:.2f} median")


if __name__ == "__main__":
    main()
