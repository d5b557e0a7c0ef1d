"""Benchmark streamed and Dask evaluation of parquet files against the in-memory path.

Usage::

    python benchmarks/bench_streaming.py [--quick] [--rows N] [--groups G] [--files F]
                                         [--layout shuffled|sorted] [--dir D] [--no-dask]

The data (binary predictions, ``(run, fold)`` groups, 5 folds per run) is written
once to ``--dir`` as ``--files`` parquet files and reused on later runs. Each
measurement runs in a fresh child process, so its peak RSS (``ru_maxrss``) is its
own. A child runs its case twice and times the second run: the first compiles or loads
every kernel the case takes at this size (a tiny warm-up frame did not reach them all, and
the first child paid numba's compiles: 5.3-6.7 s of streamed time at 20M rows, 1.1 s warm);
the peak RSS covers both runs:

* ``streamed``   -- ``be.evaluate(dir, by=["run", "fold"])``: batches of 16M rows;
* ``in-memory``  -- ``pl.read_parquet(dir)`` then ``be.evaluate(frame, ...)``; the
  evaluate time alone is also reported;
* ``dask``       -- ``engine="dask"`` on a ``LocalCluster(n_workers=2,
  threads_per_worker=1)`` started before the clock; peak RSS is not comparable
  (the workers are other processes) and is not reported.

Rows/s ratios are streamed / in-memory (>= 0.6 is the issue's target).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

FOLDS = 5
SEED = 7


def write_data(directory: Path, rows: int, groups: int, files: int, layout: str) -> None:
    marker = directory / f"_done_{rows}_{groups}_{files}_{layout}"
    if marker.exists():
        return
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.parquet"):
        old.unlink()
    rng = np.random.default_rng(SEED)
    per_file = rows // files
    for i in range(files):
        if layout == "sorted":  # a sweep writes its runs one after another
            lo = i * groups // files
            hi = (i + 1) * groups // files
            g = np.sort(rng.integers(lo, hi, per_file))
        else:
            g = rng.integers(0, groups, per_file)
        label = rng.integers(0, 2, per_file, dtype=np.int8)
        right = rng.random(per_file) < 0.7
        prediction = np.where(right, label, rng.integers(0, 2, per_file, dtype=np.int8)).astype(np.int8)
        pl.DataFrame(
            {
                "run": (g // FOLDS).astype(np.int32),
                "fold": (g % FOLDS).astype(np.int8),
                "label": label,
                "prediction": prediction,
            }
        ).write_parquet(directory / f"part-{i:04d}.parquet", row_group_size=1 << 20)
    marker.touch()


CHILD = r"""
import json, resource, sys, time, warnings
import polars as pl
import batcheval as be
mode, directory = sys.argv[1], sys.argv[2]
out = {}
if mode == "streamed":
    for _ in range(2):  # the first run is the warm-up: numba's compiles and cache loads
        res = None
        t = time.perf_counter()
        res = be.evaluate(directory, by=["run", "fold"], progress=False)
        out["seconds"] = time.perf_counter() - t
elif mode == "in-memory":
    for _ in range(2):
        frame = res = None  # the first run's frame is freed before the second reads
        t = time.perf_counter()
        frame = pl.read_parquet(directory + "/*.parquet")
        t_read = time.perf_counter() - t
        t = time.perf_counter()
        res = be.evaluate(frame, by=["run", "fold"])
        out["evaluate_seconds"] = time.perf_counter() - t
        out["seconds"] = t_read + out["evaluate_seconds"]
        out["read_seconds"] = t_read
else:
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    with cluster, Client(cluster) as c:
        for _ in range(2):
            t = time.perf_counter()
            res = be.evaluate(directory, by=["run", "fold"], engine="dask", client=c)
            out["seconds"] = time.perf_counter() - t
out["groups"] = res.height
out["rows"] = int(res.get_column("n").sum())
out["checksum"] = float(res.get_column("informedness").fill_nan(0).sum())
out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(mode: str, directory: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(directory)], capture_output=True, text=True, check=False
    )
    if proc.returncode:
        raise SystemExit(f"{mode} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000_000)
    ap.add_argument("--groups", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--layout", choices=["shuffled", "sorted"], default="shuffled")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/batcheval-bench-streaming"))
    ap.add_argument("--quick", action="store_true", help="20M rows, 100k groups, 4 files")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.quick:
        args.rows, args.groups, args.files = 20_000_000, 100_000, 4
    directory = args.dir / f"{args.layout}-{args.rows}-{args.groups}"
    t = time.perf_counter()
    write_data(directory, args.rows, args.groups, args.files, args.layout)
    size = sum(p.stat().st_size for p in directory.glob("*.parquet"))
    print(f"data: {args.rows:,} rows, {args.groups:,} groups, {args.files} files, {args.layout}, "
          f"{size / 2**20:.0f} MiB parquet ({time.perf_counter() - t:.1f} s to prepare)")  # fmt: skip

    modes = ["streamed", "in-memory"] + ([] if args.no_dask else ["dask"])
    results: dict[str, dict] = {}
    for mode in modes:
        best = None
        for _ in range(args.repeat):
            r = run_child(mode, directory)
            best = r if best is None or r["seconds"] < best["seconds"] else best
        results[mode] = best
        assert best["rows"] == args.rows // args.files * args.files, best
    sums = {m: r["checksum"] for m, r in results.items()}
    assert len({round(v, 6) for v in sums.values()}) == 1, f"results differ: {sums}"

    rows = args.rows // args.files * args.files
    s, m = results["streamed"], results["in-memory"]
    print(f"{'mode':<12}{'seconds':>10}{'M rows/s':>11}{'peak RSS MiB':>14}")
    for mode, r in results.items():
        rss = f"{r['peak_rss_mib']:,.0f}" if mode != "dask" else "-"
        print(f"{mode:<12}{r['seconds']:>10.2f}{rows / r['seconds'] / 1e6:>11.1f}{rss:>14}")
    print(f"in-memory: read {m['read_seconds']:.2f} s + evaluate {m['evaluate_seconds']:.2f} s")
    ratio = m["seconds"] / s["seconds"]
    print(f"streamed rows/s vs in-memory (read + evaluate): {ratio:.2f}  (target >= 0.6)")
    print(f"streamed rows/s vs in-memory evaluate alone:    {m['evaluate_seconds'] / s['seconds']:.2f}")
    print(f"streamed peak RSS: {s['peak_rss_mib'] / 1024:.2f} GiB  (target < 2 GiB)")
    if "dask" in results:
        overhead = results["dask"]["seconds"] / s["seconds"]
        print(f"dask LocalCluster(2x1) / single-process streamed: {overhead:.2f}x time")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "groups": args.groups, "results": results}, indent=2))


if __name__ == "__main__":
    main()
