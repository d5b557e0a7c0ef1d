"""Scale in groups: 10 million (run, fold) groups, memory stays at one table.

Prints the time of ``evaluate`` and its peak memory above the input, for rows
shuffled and sorted. With ``threads × G × K × K`` cells too many for private
per-thread tables, the counting kernel switches to group-partitioned threads
(or to radix partitioning when there are enough rows per cell), so no thread
holds a copy of the whole table.

    python benchmarks/bench_many_groups.py [--groups 10000000] [--rows-per-group 4]

``--wide-keys N`` measures the other way to many groups: N independent key columns of 100 values
each over 2M rows (``--rows``), next to N − 1 of them. Their product (100^N) dwarfs the rows, so
the columns are packed into a key space as dense as the rows allow; before stop 60 five such
columns packed four and left a 2e8-group table beside the fifth (8.7 GB peak, 13-17 s).

    python benchmarks/bench_many_groups.py --wide-keys 5 [--rows 2000000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import polars as pl

import batcheval as be


def _rss_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--groups", type=int, default=10_000_000)
    parser.add_argument("--rows-per-group", type=int, default=4)
    parser.add_argument("--wide-keys", type=int, default=0, help="N key columns of 100 values each")
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of --wide-keys")
    args = parser.parse_args()
    be.evaluate(pl.DataFrame({"run": [1], "fold": [0], "label": [1], "prediction": [0]}), by=["run", "fold"])
    if args.wide_keys:
        _wide_keys(args.wide_keys, args.rows)
        return

    rng = np.random.default_rng(7)
    n = args.groups * args.rows_per_group
    gid = np.arange(n, dtype=np.int64) % args.groups
    label = rng.integers(0, 2, n)
    prediction = np.where(rng.random(n) < 0.7, label, rng.integers(0, 2, n))
    for order in ("sorted", "shuffled"):
        if order == "shuffled":
            rng.shuffle(gid)
        else:
            gid.sort()
        df = pl.DataFrame({"run": gid // 5, "fold": gid % 5, "label": label, "prediction": prediction})
        input_mib = df.estimated_size() / 2**20
        _reset_peak()
        before = _rss_mib("VmRSS")
        t0 = time.perf_counter()
        out = be.evaluate(df, by=["run", "fold"], measures=["informedness", "markedness", "p_chi2_kb"])
        seconds = time.perf_counter() - t0
        peak = _rss_mib("VmHWM") - before
        print(
            f"{order:8s} {n:,} rows, {out.height:,} groups: {seconds:6.2f} s, "
            f"peak memory above input {peak:,.0f} MiB (input {input_mib:,.0f} MiB, "
            f"output {out.estimated_size() / 2**20:,.0f} MiB)"
        )
        del df, out


def _wide_keys(n_keys: int, n_rows: int) -> None:
    rng = np.random.default_rng(7)
    columns = {f"k{i}": rng.integers(0, 100, n_rows) for i in range(n_keys)}
    label = rng.integers(0, 2, n_rows)
    prediction = np.where(rng.random(n_rows) < 0.7, label, rng.integers(0, 2, n_rows))
    df = pl.DataFrame({**columns, "label": label, "prediction": prediction})
    for keys in (n_keys - 1, n_keys):
        by = [f"k{i}" for i in range(keys)]
        # the first call at this size compiles the parallel kernels; the second is timed
        be.evaluate(df, by=by, measures=["informedness"])
        _reset_peak()
        before = _rss_mib("VmRSS")
        t0 = time.perf_counter()
        out = be.evaluate(df, by=by, measures=["informedness"])
        seconds = time.perf_counter() - t0
        peak = _rss_mib("VmHWM") - before
        print(
            f"{keys} key columns of 100 values, {n_rows:,} rows, {out.height:,} groups: {seconds:6.2f} s, "
            f"peak memory above input {peak:,.0f} MiB (input {df.estimated_size() / 2**20:,.0f} MiB)"
        )


if __name__ == "__main__":
    main()
