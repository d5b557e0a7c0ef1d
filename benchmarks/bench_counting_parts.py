"""The parts of evaluate's counting stage on issue #24's case, and the radix decision.

Usage::

    NUMBA_NUM_THREADS=2 python benchmarks/bench_counting_parts.py [--rows N] [--groups G] [--repeat R]

20M shuffled rows, an int32 run key and an int8 fold key, 100k groups, binary int64 labels
(``bench_evaluate.py``'s ``binary-narrow`` frame). Times, best of ``--repeat`` after a
warm-up, wall and CPU (process time over all threads; on a shared machine the wall time
also holds the time other processes had the cores):

* encoding as evaluate does it (the key and class ranges from a sample of rows) and with every
  range scanned in one fused pass (``encode_frame``),
* the counting kernel as evaluate runs it (``count_checked``: every row's key and class codes
  checked against the sampled ranges) and with the scanned ranges (``run_count_kernel``), and its
  pieces: the per-thread 16-bit private tables (``count_private`` on pre-zeroed tables)
  and their flush into the int64 result (``sum_split_rows``); the radix-partitioned alternative
  (ids, partition, in-cache counts),
* compaction (``group_totals`` and decoding the keys),
* the measures stage (``measures.compute`` of the counted tables, every default measure),
* the floor: reading the four columns once (numpy ``.sum()`` of each),
* the whole ``evaluate`` call,

and every part's CPU time as a multiple of the floor's. With ``NUMBA_NUM_THREADS=1`` the CPU
times are the least disturbed by other processes on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_evaluate as bench

import batcheval as be
from batcheval.core import counting
from batcheval.kernels import count as kernels
from batcheval.kernels.jit import n_threads
from batcheval.measures.compute import compute as compute_measures


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of ``repeat`` calls after one warm-up."""
    fn()
    wall = cpu = float("inf")
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - w)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=bench.FULL_ROWS)
    parser.add_argument("--groups", type=int, default=bench.FULL_GROUPS)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    df = bench.make_frame(args.rows, args.groups, 2, bench.SEED + 2, narrow=True)
    by, label, prediction = bench.BY, bench.LABEL, bench.PREDICTION
    # as evaluate encodes: the class and key ranges from a sample, checked while counting
    guessed, guessed_space = counting.encode_frame(
        df, by, label, prediction, None, guess=True, guess_keys=True
    )
    assert guessed_space is not None
    coding, space = counting.encode_frame(df, by, label, prediction, None)
    assert space is not None
    k = coding.n_codes
    threads = n_threads()
    cells = space.size * k * k
    keys = counting.kernel_keys(space.columns)
    kernel_args = (*keys, coding.label, coding.prediction, coding.vmin, coding.lut, k)
    radix = counting.use_radix(keys, len(coding.label), cells)
    print(f"{args.rows:,} rows, {space.size:,} groups, {cells:,} cells, {threads} threads")
    print(f"evaluate's choice: {'radix partitions' if radix else 'per-thread 16-bit private tables'}")

    # count_private's per-thread 16-bit tables and their wrap counts (a column more each for rows
    # outside the classes, and the wraps' own count)
    low = np.zeros((threads, cells + 1), np.uint16)
    wraps = np.zeros((threads, cells + 2), np.uint32)
    direct = counting.identity_lut(coding.lut)
    cards = counting.key_cards(space.columns)
    flat = np.zeros(cells, np.int64)
    views = [bench.column_view(df, c) for c in df.columns]

    def private() -> None:
        low[:] = 0
        wraps[:] = 0
        kernels.count_private(*kernel_args, direct, cards, low, wraps)

    def radix_count() -> None:
        out = np.zeros(cells, np.int64)
        radix_args = (*kernel_args, False, cards)  # codes looked up, not checked
        counting._count_radix(radix_args, len(space.columns), len(coding.label), cells, threads, out)

    counted = counting.run_count_kernel(space.columns, coding, space.size, k).reshape(space.size, k, k)
    parts = {
        "encode_frame (as evaluate: ranges sampled)": lambda: counting.encode_frame(
            df, by, label, prediction, None, guess=True, guess_keys=True
        ),
        "encode_frame (every range scanned)": lambda: counting.encode_frame(df, by, label, prediction, None),
        "count_checked (as evaluate counts)": lambda: counting.count_checked(
            guessed_space.columns, guessed, guessed_space.size
        ),
        "run_count_kernel (scanned class range)": lambda: counting.run_count_kernel(
            space.columns, coding, space.size, k
        ),
        "  count_private, tables pre-zeroed": private,
        "  sum_split_rows (16-bit tables -> int64)": lambda: kernels.sum_split_rows(
            low, wraps, False, False, flat
        ),
        "radix partitions (ids, scatter, count)": radix_count,
        "compact (totals, trim, decode keys)": lambda: counting.compact(space, coding, counted, True),
        "  group_totals": lambda: kernels.group_totals(counted),
        "  decode keys": lambda: space.decode(np.arange(space.size)),
        "measures (every default measure, compute())": lambda: compute_measures(counted),
        "floor: numpy sum of the 4 columns": lambda: [int(v.sum()) for v in views],
        "evaluate (the whole call)": lambda: bench.run_evaluate(be.evaluate, df),
    }
    print(f"{'part':<46} {'wall ms':>9} {'CPU ms':>9}")
    found = {}
    for name, fn in parts.items():
        wall, cpu = best(fn, args.repeat)
        found[name] = cpu
        print(f"{name:<46} {wall * 1e3:>9.1f} {cpu * 1e3:>9.1f}", flush=True)
    floor = found["floor: numpy sum of the 4 columns"]
    print("CPU time / the floor's CPU time:")
    for name, cpu in found.items():
        print(f"  {name:<44} {cpu / floor:>6.2f}x")
    print(f"load average at the end (1/5/15 min): {bench.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
