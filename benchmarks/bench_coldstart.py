"""Cold start: each public function's first call on a fresh machine, with an empty numba cache.

    python benchmarks/bench_coldstart.py [--cases evaluate,sweep,auc,auc_ci,compare_auc,leaderboard,dtypes]

Each case runs in its own subprocess with ``NUMBA_CACHE_DIR`` pointing at a new, empty
directory, so every kernel it needs is compiled from scratch, exactly as on a fresh install.
The subprocess imports batcheval (timed apart), makes a tiny input, and times the first call
and then a second, warm call of the same function; compile time ≈ first − second. A third run
of the case reuses the cache the first one filled, which is what every later process sees.

Reported per case: import time, first call (wall and the subprocess's CPU time, user + sys,
which does not count time spent waiting for a shared machine's cores), the warm call, and the
first call of a new process with the cache filled. Nothing is rounded up: the table prints
what was measured.

The ``dtypes`` case ("a new dtype after warm") is one subprocess with an empty cache: the first
``evaluate`` of an int64-keyed frame, then the first ``evaluate`` of the same frame with the key
cast to int32, int16, uint8, string and categorical, and with the labels and predictions cast to
int8, boolean and string. Each of those is timed (wall and CPU) with the names of the kernels it
compiled; a dtype that compiles nothing costs what a warm call costs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CASE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np, polars as pl
import batcheval as be
t_import = time.perf_counter() - t0
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 400)
df = pl.DataFrame({"run": np.repeat([1, 2], 200), "fold": np.tile([0, 1], 200), "label": y,
                   "prediction": np.where(rng.random(400) < 0.8, y, 1 - y), "score": rng.random(400) + y})
# two runs scoring the same 200 examples
shared = df.with_columns(pl.int_range(400).mod(200).alias("example"), pl.Series("label", np.tile(y[:200], 2)))
calls = {
    "evaluate": lambda: be.evaluate(df, by="run"),
    "sweep": lambda: be.sweep(df, by="run"),
    "auc": lambda: be.auc(df, by="run"),
    "auc_ci": lambda: be.auc(df, by="run", ci=0.95),
    "compare_auc": lambda: be.compare_auc(shared),
    "leaderboard": lambda: be.leaderboard(df, pool="fold"),
}
call = calls[sys.argv[1]]
before = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
call()
first = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
call()
warm = time.perf_counter() - t0
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(json.dumps({"import": t_import, "first": first, "first_cpu": cpu, "warm": warm}))
"""

_DTYPES = r"""
import json, resource, sys, time
import numpy as np, polars as pl
from numba.core import event
import batcheval as be
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        if func is not None and func.__module__.startswith("batcheval."):
            compiled.append(func.__name__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 400)
df = pl.DataFrame({"run": np.repeat(np.arange(4), 100), "label": y,
                   "prediction": np.where(rng.random(400) < 0.8, y, 1 - y)})
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
cases = [("int64 key, int64 labels (first call)", df), ("int64 key, int64 labels (warm)", df)]
cases += [(f"{dt} key", df.with_columns(pl.col("run").cast(pl.String).cast(dt) if dt == pl.Categorical
                                       else pl.col("run").cast(dt)))
          for dt in (pl.Int32, pl.Int16, pl.UInt8, pl.String, pl.Categorical)]
cases += [(f"{dt} labels", df.with_columns(pl.col("label", "prediction").cast(dt)))
          for dt in (pl.Int8, pl.Boolean, pl.String)]
for name, frame in cases:
    compiled.clear()
    c0, t0 = cpu(), time.perf_counter()
    be.evaluate(frame, by="run")
    wall, used = time.perf_counter() - t0, cpu() - c0
    row = {"case": name, "wall": wall, "cpu": used, "compiled": sorted(set(compiled))}
    print(json.dumps(row), flush=True)
"""

CASES = ("evaluate", "sweep", "auc", "auc_ci", "compare_auc", "leaderboard", "dtypes")


def run_dtypes(cache: str) -> list[dict]:
    """The ``dtypes`` case: ``evaluate``'s first call per key and label dtype after an int64 frame."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT), "BATCHEVAL_QUIET_COMPILE": "1"}
    proc = subprocess.run([sys.executable, "-c", _DTYPES], env=env, capture_output=True, text=True,
                          check=True, timeout=3600)  # fmt: skip
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def print_dtypes() -> None:
    print("\n| `evaluate`, 400 rows, one process | first call s (wall) | first call s (CPU) | compiled |")
    print("| --- | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        for row in run_dtypes(cache):
            names = ", ".join(row["compiled"]) if row["compiled"] else "nothing"
            if len(row["compiled"]) > 6:
                names = f"{len(row['compiled'])} kernels"
            print(f"| {row['case']} | {row['wall']:.3f} | {row['cpu']:.3f} | {names} |", flush=True)


def run_case(name: str, cache: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT), "BATCHEVAL_QUIET_COMPILE": "1"}
    proc = subprocess.run([sys.executable, "-c", _CASE, name], env=env, capture_output=True, text=True,
                          check=True, timeout=3600)  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    args = parser.parse_args(argv)
    names = [c for c in args.cases.split(",") if c and c != "dtypes"]
    if names:
        print("| function | import s | first call s (wall) | first call s (CPU) | warm call s | "
              "first call, cache filled s |")  # fmt: skip
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold = run_case(name, cache)
            filled = run_case(name, cache)
        print(f"| `{name}` | {cold['import']:.2f} | {cold['first']:.2f} | {cold['first_cpu']:.2f} | "
              f"{cold['warm']:.4f} | {filled['first']:.2f} |", flush=True)  # fmt: skip
    if "dtypes" in args.cases.split(","):
        print_dtypes()


if __name__ == "__main__":
    main()
