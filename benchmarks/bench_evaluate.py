"""Benchmark ``batcheval.evaluate`` against common ways of building contingency tables.

Usage::

    python benchmarks/bench_evaluate.py [--rows N] [--groups G] [--quick] [--json out.json]

Cases (see ``benchmarks/README.md``):

* ``binary``     -- K = 2, (run, fold) keys, timed against polars, duckdb, numpy,
  sklearn and a "floor" (summing every input column once).
* ``binary-narrow`` -- the same with an int32 run key and an int8 fold key (issue #24's
  case), plus a profile of evaluate's own stages (ranges, encoding, counting, measures,
  frame build) timed inside the call.
* ``multiclass`` -- the same with K = 10.
* ``memory``     -- 1M groups x 50 rows, binary, run in a child process so that its
  peak RSS is not polluted by the other cases.

All times are the best of ``--repeat`` runs after one warm-up call.
Ratios are ``competitor_time / batcheval_time``: > 1 means batcheval is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module, metadata
from pathlib import Path
from typing import Any

import numba
import numpy as np
import polars as pl

REPO_ROOT = Path(__file__).resolve().parents[1]
BY = ["run", "fold"]
LABEL = "label"
PREDICTION = "prediction"
FOLDS = 5
SIGNAL = 0.7  # probability that prediction == label; otherwise uniform random
SEED = 20240601
SKLEARN_SAMPLE_GROUPS = 200

FULL_ROWS = 20_000_000
FULL_GROUPS = 100_000
FULL_MEMORY_GROUPS = 1_000_000
QUICK_ROWS = 1_000_000
QUICK_GROUPS = 5_000
QUICK_MEMORY_GROUPS = 20_000
MEMORY_ROWS_PER_GROUP = 50

# Targets from the issue.
TARGET_BINARY_VS_FLOOR = 3.0  # batcheval / floor <= 3
TARGET_BINARY_VS_DUCKDB = 8.0  # duckdb / batcheval >= 8
TARGET_MULTICLASS_VS_DUCKDB = 3.0  # duckdb / batcheval >= 3
TARGET_MEMORY_RATIO = 1.0  # (peak - baseline) / (2 * input + output) <= 1

Evaluate = Callable[..., pl.DataFrame]


# --------------------------------------------------------------------------- helpers


def timeit(fn: Callable[[], object], repeat: int = 3, warmup: int = 1) -> float:
    """Return the best wall time of ``repeat`` calls of ``fn`` (seconds), after warm-up."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def load_evaluate() -> tuple[Evaluate | None, str]:
    """Import ``batcheval.evaluate`` from the checkout; return (fn, message)."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    try:
        module = import_module("batcheval")
    except ImportError as exc:
        return None, f"SKIPPED: cannot import batcheval ({exc})"
    evaluate = getattr(module, "evaluate", None)
    if evaluate is None:
        return None, "SKIPPED: batcheval has no attribute 'evaluate'"
    return (evaluate, f"batcheval {getattr(module, '__version__', '?')} from {module.__file__}")


def run_evaluate(evaluate: Evaluate, df: pl.DataFrame) -> pl.DataFrame:
    return evaluate(df, by=BY, label=LABEL, prediction=PREDICTION)


def make_frame(rows: int, groups: int, k: int, seed: int, narrow: bool = False) -> pl.DataFrame:
    """Synthetic predictions: ``groups`` (run, fold) groups of (near) equal size, rows shuffled.

    Built column by column (``pl.Series`` wraps int64 numpy arrays without copying) so the
    transient memory stays around one extra column -- this matters for the memory case.
    ``narrow`` stores the run key as int32 and the fold key as int8 (labels stay int64).
    """
    rng = np.random.default_rng(seed)
    gid = np.arange(rows, dtype=np.int64)
    np.remainder(gid, groups, out=gid)
    rng.shuffle(gid)
    run = pl.Series("run", gid // FOLDS)
    np.remainder(gid, FOLDS, out=gid)
    fold = pl.Series("fold", gid)
    del gid
    if narrow:
        run, fold = run.cast(pl.Int32), fold.cast(pl.Int8)
    label = rng.integers(0, k, rows, dtype=np.int64)
    prediction = rng.integers(0, k, rows, dtype=np.int64)
    keep = rng.random(rows, dtype=np.float32) < SIGNAL
    np.copyto(prediction, label, where=keep)
    del keep
    return pl.DataFrame([run, fold, pl.Series(LABEL, label), pl.Series(PREDICTION, prediction)])


def column_view(df: pl.DataFrame, name: str) -> np.ndarray:
    return df.get_column(name).to_numpy(allow_copy=False)


def dense_group_ids(df: pl.DataFrame) -> np.ndarray:
    """0-based dense ids of the (run, fold) groups (computed outside any timing)."""
    fold_span = int(df.get_column("fold").max()) + 1  # type: ignore[arg-type]
    key = pl.col("run") * fold_span + pl.col("fold")
    ids = df.select((key.rank("dense").cast(pl.Int64) - 1).alias("gid"))
    return column_view(ids, "gid")


def ru_maxrss_kib() -> int:
    """Peak RSS as ``getrusage`` reports it (KiB on Linux); informational, see ``peak_rss_kib``."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss_kib() -> int:
    """Peak RSS of this process's address space (``VmHWM``, KiB), resettable by ``reset_peak_rss``.

    ``ru_maxrss`` is not used for the ratio: it also keeps the peak of the parent's address
    space at ``exec`` and the peak recorded whenever a thread exits, neither of which a reset
    clears.
    """
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


def reset_peak_rss() -> bool:
    """Reset the RSS high-water mark to the current RSS (Linux ``clear_refs`` 5).

    numba's JIT warm-up can push the peak far above the RSS it settles at; without a reset
    that gap would hide the first few hundred MiB that ``evaluate`` allocates.
    """
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def fmt_ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:,.1f}"


def mib(kib: float) -> str:
    return f"{kib / 1024:,.1f} MiB"


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.2f}x"


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


# --------------------------------------------------------------------------- competitors


def polars_counts(df: pl.DataFrame, k: int) -> Callable[[], pl.DataFrame]:
    if k == 2:
        y = pl.col(LABEL) == 1
        p = pl.col(PREDICTION) == 1
        cells = {"tp": y & p, "fp": ~y & p, "fn": y & ~p, "tn": ~y & ~p}
        aggs = [expr.sum().alias(name) for name, expr in cells.items()]
        return lambda: df.group_by(BY).agg(aggs)
    return lambda: df.group_by([*BY, LABEL, PREDICTION]).len()


# duckdb and scikit-learn are imported lazily: the memory child process must not pay
# for them in its RSS baseline.


def duckdb_counts(df: pl.DataFrame, k: int) -> tuple[Callable[[], object], int]:
    import duckdb

    con = duckdb.connect(config={"threads": os.cpu_count() or 1})
    threads = int(con.sql("SELECT current_setting('threads')").fetchall()[0][0])
    con.register("preds", df)
    keys = ", ".join(BY)
    if k == 2:
        cells = {
            "tp": "label = 1 AND prediction = 1",
            "fp": "label <> 1 AND prediction = 1",
            "fn": "label = 1 AND prediction <> 1",
            "tn": "label <> 1 AND prediction <> 1",
        }
        sums = ", ".join(f"SUM(CASE WHEN {cond} THEN 1 ELSE 0 END) AS {n}" for n, cond in cells.items())
        query = f"SELECT {keys}, {sums} FROM preds GROUP BY {keys}"
    else:
        query = f"SELECT {keys}, label, prediction, COUNT(*) AS n FROM preds GROUP BY ALL"
    return (lambda: con.sql(query).to_arrow_table()), threads


def numpy_bincount(df: pl.DataFrame, gid: np.ndarray, k: int) -> Callable[[], np.ndarray]:
    label, prediction = column_view(df, LABEL), column_view(df, PREDICTION)
    n_groups = int(gid.max()) + 1
    return lambda: np.bincount(gid * (k * k) + label * k + prediction, minlength=n_groups * k * k)


def sklearn_sample(
    df: pl.DataFrame, gid: np.ndarray, k: int, n_sample: int, seed: int
) -> tuple[Callable[[], None], float]:
    """Pre-split ``n_sample`` random groups; return (timed loop, factor to extrapolate to all groups)."""
    from sklearn.metrics import confusion_matrix

    n_groups = int(gid.max()) + 1
    sample = np.random.default_rng(seed).choice(n_groups, size=min(n_sample, n_groups), replace=False)
    rows = np.flatnonzero(np.isin(gid, sample))
    rows = rows[np.argsort(gid[rows], kind="stable")]
    bounds = np.flatnonzero(np.diff(gid[rows])) + 1
    label, prediction = column_view(df, LABEL)[rows], column_view(df, PREDICTION)[rows]
    pairs = list(zip(np.split(label, bounds), np.split(prediction, bounds), strict=True))
    labels = list(range(k))

    def loop() -> None:
        for y, p in pairs:
            confusion_matrix(y, p, labels=labels)

    return loop, n_groups / len(pairs)


def floor_polars(df: pl.DataFrame) -> Callable[[], pl.DataFrame]:
    return lambda: df.select(pl.all().sum())


def floor_numpy(df: pl.DataFrame) -> Callable[[], list[int]]:
    views = [column_view(df, name) for name in df.columns]
    return lambda: [int(view.sum()) for view in views]


# --------------------------------------------------------------------------- timing cases

# (name, K, rows grouped by key, narrow keys): shuffled rows are the worst case for scattered
# increments; sorted rows are how a sweep writes its predictions, run after run; narrow keys
# (int32 run, int8 fold) are issue #24's case, profiled stage by stage
TIMING_CASES = (
    ("binary", 2, False, False),
    ("binary-narrow", 2, False, True),
    ("binary-sorted", 2, True, False),
    ("multiclass", 10, False, False),
    ("multiclass-sorted", 10, True, False),
)
ALL_CASES = (*(c[0] for c in TIMING_CASES), "memory")


@dataclass
class Timing:
    name: str
    seconds: float | None
    note: str = ""


@dataclass
class CaseResult:
    name: str
    rows: int
    groups: int
    k: int
    timings: list[Timing] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def seconds(self, name: str) -> float | None:
        return next(t.seconds for t in self.timings if t.name == name)


def run_timing_case(
    name: str,
    rows: int,
    groups: int,
    k: int,
    *,
    evaluate: Evaluate | None,
    skip_msg: str,
    repeat: int,
    grouped: bool = False,
    narrow: bool = False,
) -> CaseResult:
    order = "rows sorted by (run, fold), as a sweep writes them" if grouped else "rows shuffled"
    if narrow:
        order += ", run int32, fold int8"
    print(f"\n[{name}] generating {rows:,} rows, {groups:,} groups, K={k}, {order} ...", flush=True)
    df = make_frame(rows, groups, k, SEED + k, narrow=narrow)
    if grouped:
        df = df.sort(BY).rechunk()
    gid = dense_group_ids(df)
    result = CaseResult(name, rows, int(gid.max()) + 1, k)
    result.info["input_bytes"] = df.estimated_size()

    def add(label: str, fn: Callable[[], object], note: str = "", scale: float = 1.0) -> None:
        print(f"[{name}] timing {label} ...", flush=True)
        result.timings.append(Timing(label, timeit(fn, repeat) * scale, note))

    if evaluate is None:
        result.timings.append(Timing("batcheval", None, skip_msg))
    else:
        add("batcheval", lambda: run_evaluate(evaluate, df), "evaluate(): every measure, frame in/out")
        out = run_evaluate(evaluate, df)
        result.info["output_shape"] = list(out.shape)
        result.info["output_bytes"] = out.estimated_size()
        if narrow:
            print(f"[{name}] profiling evaluate's stages ...", flush=True)
            result.info["profile"] = profile_stages(evaluate, df, repeat)
    add(
        "polars",
        polars_counts(df, k),
        "group_by tp/fp/fn/tn" if k == 2 else "group_by run,fold,label,pred len()",
    )
    duck_fn, duck_threads = duckdb_counts(df, k)
    result.info["duckdb_threads"] = duck_threads
    add("duckdb", duck_fn, f"SQL GROUP BY, {duck_threads} threads, -> arrow table")
    add(
        "numpy bincount", numpy_bincount(df, gid, k), "ids precomputed, NOT timed; bincount + flat index only"
    )
    loop, factor = sklearn_sample(df, gid, k, SKLEARN_SAMPLE_GROUPS, SEED)
    sample_n = round(result.groups / factor)
    add("sklearn loop", loop, f"EXTRAPOLATED from {sample_n} groups (x{factor:,.0f})", scale=factor)
    add("floor: polars sum", floor_polars(df), "df.select(pl.all().sum())")
    add("floor: numpy sum", floor_numpy(df), ".sum() of each column's to_numpy() view")
    floors = [s for t in result.timings if t.name.startswith("floor") and (s := t.seconds) is not None]
    result.timings.append(Timing("floor", min(floors), "faster of the two floors"))
    return result


# --------------------------------------------------------------------------- stage profile

# (stage, timed callables as "module:attribute" or "module:Class.method"): each is wrapped by a
# timer for the profiled calls; a stage's time is its callables' total minus the stages timed
# inside them (listed as the third element)
PROFILE_STAGES = (
    ("ranges", ("batcheval.kernels.ranges:minmax", "batcheval.kernels.ranges:column_ranges"), ()),
    ("encoding", ("batcheval.core.counting:encode_frame",), ("ranges",)),
    ("counting", ("batcheval.core.counting:run_count_kernel", "batcheval.core.counting:count_checked"), ()),
    ("compact + key decode", ("batcheval.core.counting:compact",), ()),
    ("measures", ("batcheval.core.table:ContingencyTable.measure_arrays",), ()),
    ("frame build", ("batcheval.core.table:ContingencyTable.measures",), ("measures",)),
)


class StageTimers:
    """Wraps the functions of :data:`PROFILE_STAGES` with accumulating timers while active.

    Functions are looked up where their callers find them (module globals and lazy
    ``from ... import`` statements both read the module attribute), so the profile times
    the stages inside a real ``evaluate`` call, with its caches and page faults.
    """

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._undo: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> StageTimers:
        for _stage, targets, _inner in PROFILE_STAGES:
            for target in targets:
                module_name, attr = target.split(":")
                owner: Any = import_module(module_name)
                *path, name = attr.split(".")
                for part in path:
                    owner = getattr(owner, part)
                original = getattr(owner, name, None)
                if original is None:
                    continue
                self._undo.append((owner, name, original))
                setattr(owner, name, self._timed(target, original))
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()

    def _timed(self, target: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[target] = self.spent.get(target, 0.0) + time.perf_counter() - start

        return timed

    def stages(self, total: float) -> dict[str, float]:
        own = {
            stage: sum(self.spent.get(t, 0.0) for t in targets) for stage, targets, _inner in PROFILE_STAGES
        }
        out = {stage: own[stage] - sum(own[i] for i in inner) for stage, _targets, inner in PROFILE_STAGES}
        out["other (checks, select)"] = total - sum(out.values())
        out["evaluate"] = total
        return out


def profile_stages(evaluate: Evaluate, df: pl.DataFrame, repeat: int) -> dict[str, Any]:
    """evaluate's stages, timed inside ``repeat`` calls: the call with the best total, and per
    stage its best over the calls."""
    runs = []
    cpu = []
    for _ in range(repeat):
        with StageTimers() as timers:
            start, start_cpu = time.perf_counter(), time.process_time()
            run_evaluate(evaluate, df)
            total = time.perf_counter() - start
            cpu.append(time.process_time() - start_cpu)
        runs.append(timers.stages(total))
    best_call = min(runs, key=lambda r: r["evaluate"])
    # the process's CPU time over all its threads: above threads x wall where idle threads spin
    # (numba's OpenMP workers wait actively after each parallel region)
    return {
        "best_call": best_call,
        "best_each": {s: min(r[s] for r in runs) for s in best_call},
        "cpu_of_best_call": cpu[runs.index(best_call)],
    }


def print_profile(result: CaseResult) -> None:
    prof = result.info.get("profile")
    if not prof:
        return
    best, each = prof["best_call"], prof["best_each"]
    print(f"\n--- {result.name}: evaluate's stages (timed inside the call) ---")
    print(f"{'stage':<24} {'ms (best call)':>15} {'ms (best each)':>15} {'share':>7}")
    for stage, seconds in best.items():
        share = f"{seconds / best['evaluate']:.0%}" if stage != "evaluate" else ""
        print(f"{stage:<24} {fmt_ms(seconds):>15} {fmt_ms(each[stage]):>15} {share:>7}")
    if "cpu_of_best_call" in prof:
        print(
            f"{'evaluate, process CPU':<24} {fmt_ms(prof['cpu_of_best_call']):>15}  (all threads, best call)"
        )


def print_case(result: CaseResult) -> None:
    be = result.seconds("batcheval")
    print(f"\n=== {result.name}: {result.rows:,} rows, {result.groups:,} groups, K={result.k} ===")
    print(f"{'method':<20} {'best ms':>12} {'t / batcheval':>14}  note")
    print("-" * 100)
    for t in result.timings:
        shown = "-" if t.name == "batcheval" else fmt_ratio(ratio(t.seconds, be))
        print(f"{t.name:<20} {fmt_ms(t.seconds):>12} {shown:>14}  {t.note}")
    print(f"batcheval / floor = {fmt_ratio(ratio(be, result.seconds('floor')))}")
    if "output_shape" in result.info:
        print(f"batcheval output shape = {tuple(result.info['output_shape'])}")
    print_profile(result)


# --------------------------------------------------------------------------- memory case


def memory_child(groups: int, rows_per_group: int) -> dict[str, Any]:
    evaluate, msg = load_evaluate()
    if evaluate is None:
        return {"skipped": msg}
    run_evaluate(evaluate, make_frame(1_000, 10, 2, SEED))  # imports + JIT warm-up
    warmup_peak = peak_rss_kib()
    peak_was_reset = reset_peak_rss()
    baseline = peak_rss_kib()
    df = make_frame(groups * rows_per_group, groups, 2, SEED)
    input_bytes = df.estimated_size()
    peak_after_input = peak_rss_kib()
    start = time.perf_counter()
    out = run_evaluate(evaluate, df)
    seconds = time.perf_counter() - start
    output_bytes = out.estimated_size()
    peak = peak_rss_kib()
    return {
        "rows": df.height,
        "groups": groups,
        "warmup_peak_kib": warmup_peak,
        "peak_was_reset": peak_was_reset,
        "baseline_kib": baseline,
        "peak_after_input_kib": peak_after_input,
        "peak_kib": peak,
        "ru_maxrss_kib": ru_maxrss_kib(),
        "input_bytes": input_bytes,
        "output_bytes": output_bytes,
        "output_shape": list(out.shape),
        "evaluate_seconds": seconds,
        "ratio": (peak - baseline) * 1024 / (2 * input_bytes + output_bytes),
    }


def run_memory_case(groups: int, rows_per_group: int) -> dict[str, Any]:
    print(f"\n[memory] child process: {groups:,} groups x {rows_per_group} rows ...", flush=True)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--memory-child",
        "--memory-groups",
        str(groups),
        "--memory-rows-per-group",
        str(rows_per_group),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise RuntimeError(f"memory child failed with exit code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def print_memory(mem: dict[str, Any]) -> None:
    print("\n=== memory ===")
    if "skipped" in mem:
        print(mem["skipped"])
        return
    reset = "reset to current RSS" if mem["peak_was_reset"] else "NOT reset (clear_refs failed)"
    lines = {
        "rows / groups": f"{mem['rows']:,} / {mem['groups']:,}",
        "input  (estimated)": mib(mem["input_bytes"] / 1024),
        "output (estimated)": f"{mib(mem['output_bytes'] / 1024)}, shape {tuple(mem['output_shape'])}",
        "peak RSS after warm-up": f"{mib(mem['warmup_peak_kib'])}, then {reset}",
        "baseline RSS": f"{mib(mem['baseline_kib'])} (after imports + JIT warm-up)",
        "peak RSS after input": mib(mem["peak_after_input_kib"]),
        "peak RSS": f"{mib(mem['peak_kib'])} (VmHWM; ru_maxrss {mib(mem['ru_maxrss_kib'])})",
        "evaluate time": f"{mem['evaluate_seconds'] * 1e3:,.1f} ms (single call, cold data)",
    }
    for key, value in lines.items():
        print(f"{key:<24} {value}")
    print(f"(peak - baseline) / (2*input + output) = {mem['ratio']:.3f}")


# --------------------------------------------------------------------------- report


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def machine_info(batcheval_msg: str) -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.config.THREADING_LAYER,
        "polars_threads": pl.thread_pool_size(),
        "versions": {
            d: version(d) for d in ("numpy", "numba", "polars", "duckdb", "scikit-learn", "pyarrow")
        },
        "batcheval": batcheval_msg,
        "load_average_start": load_average(),
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def cpu_seconds() -> tuple[float, float]:
    """(CPU seconds used by the whole machine, CPU seconds used by this process + children)."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    machine = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    own = sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    return machine, own


def numba_layer_used() -> str:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel numba region has run in this process
        return "none used"


def targets(cases: dict[str, CaseResult], mem: dict[str, Any] | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def check(name: str, measured: float | None, goal: float, at_most: bool) -> None:
        ok = None if measured is None else (measured <= goal if at_most else measured >= goal)
        rows.append({"target": name, "goal": goal, "measured": measured, "pass": ok})

    for name in ("binary", "binary-narrow", "binary-sorted"):
        if (b := cases.get(name)) is not None:
            be = b.seconds("batcheval")
            vs_floor = ratio(be, b.seconds("floor"))
            check(f"{name}: batcheval / floor <= 3", vs_floor, TARGET_BINARY_VS_FLOOR, True)
            check(
                f"{name}: duckdb / batcheval >= 8",
                ratio(b.seconds("duckdb"), be),
                TARGET_BINARY_VS_DUCKDB,
                False,
            )
    for name in ("multiclass", "multiclass-sorted"):
        if (m := cases.get(name)) is not None:
            ratio_m = ratio(m.seconds("duckdb"), m.seconds("batcheval"))
            check(f"{name}: duckdb / batcheval >= 3", ratio_m, TARGET_MULTICLASS_VS_DUCKDB, False)
    if mem is not None:
        check("memory: ratio <= 1.0", mem.get("ratio"), TARGET_MEMORY_RATIO, True)
    return rows


def print_targets(rows: list[dict[str, Any]]) -> None:
    print("\n=== targets ===")
    for row in rows:
        verdict = {True: "PASS", False: "MISS", None: "n/a"}[row["pass"]]
        measured = "n/a" if row["measured"] is None else f"{row['measured']:.2f}"
        print(f"{row['target']:<40} measured {measured:>8}   {verdict}")


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, help=f"rows for binary/multiclass (default {FULL_ROWS:,})")
    parser.add_argument("--groups", type=int, help=f"groups for binary/multiclass (default {FULL_GROUPS:,})")
    parser.add_argument("--quick", action="store_true", help="small sizes (~1M rows), for smoke tests")
    parser.add_argument("--json", type=Path, help="write all figures to this JSON file")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed repetitions after one warm-up (default 3)"
    )
    parser.add_argument(
        "--cases",
        default=",".join(ALL_CASES),
        help=f"comma-separated subset of {','.join(ALL_CASES)}",
    )
    parser.add_argument(
        "--memory-groups", type=int, help=f"groups in the memory case (default {FULL_MEMORY_GROUPS:,})"
    )
    parser.add_argument("--memory-rows-per-group", type=int, default=MEMORY_ROWS_PER_GROUP)
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_groups, args.memory_rows_per_group)))
        return 0

    rows = args.rows or (QUICK_ROWS if args.quick else FULL_ROWS)
    groups = args.groups or (QUICK_GROUPS if args.quick else FULL_GROUPS)
    memory_groups = args.memory_groups or (QUICK_MEMORY_GROUPS if args.quick else FULL_MEMORY_GROUPS)
    selected = {c.strip() for c in args.cases.split(",") if c.strip()}
    unknown = selected - set(ALL_CASES)
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))}")

    started = time.perf_counter()
    machine_cpu_start, own_cpu_start = cpu_seconds()
    evaluate, batcheval_msg = load_evaluate()
    info = machine_info(batcheval_msg)
    print("=== machine ===")
    for key, value in info.items():
        print(f"{key:<22} {value}")

    cases: dict[str, CaseResult] = {}
    for name, k, grouped, narrow in TIMING_CASES:
        if name in selected:
            cases[name] = run_timing_case(
                name,
                rows,
                groups,
                k,
                evaluate=evaluate,
                skip_msg=batcheval_msg,
                repeat=args.repeat,
                grouped=grouped,
                narrow=narrow,
            )
    mem = run_memory_case(memory_groups, args.memory_rows_per_group) if "memory" in selected else None

    print(f"\nAll times: best of {args.repeat} after 1 warm-up (time.perf_counter).")
    print("Ratios: t / batcheval (> 1 means batcheval is faster).")
    for result in cases.values():
        print_case(result)
    if mem is not None:
        print_memory(mem)
    target_rows = targets(cases, mem)
    print_targets(target_rows)
    total = time.perf_counter() - started
    machine_cpu, own_cpu = cpu_seconds()
    other_cpu = (machine_cpu - machine_cpu_start) - (own_cpu - own_cpu_start)
    info["other_processes_cpu_share"] = max(other_cpu, 0.0) / (total * (os.cpu_count() or 1))
    info["numba_threading_layer_used"] = numba_layer_used()
    print(f"\nnumba threading layer used: {info['numba_threading_layer_used']}")
    print(f"load average at start (1/5/15 min): {info['load_average_start']}")
    print(
        f"CPU used by other processes during the run: {info['other_processes_cpu_share']:.0%} of the machine"
    )
    if info["other_processes_cpu_share"] > 0.1:
        print("WARNING: the machine was busy with other work; timings may be unreliable.")
    print(f"total benchmark wall time: {total:,.1f} s")

    if args.json is not None:
        payload = {
            "machine": info,
            "config": {
                "repeat": args.repeat,
                "quick": args.quick,
                "seed": SEED,
                "signal": SIGNAL,
                "folds": FOLDS,
            },
            "cases": {
                name: {
                    "rows": r.rows,
                    "groups": r.groups,
                    "k": r.k,
                    "seconds": {t.name: t.seconds for t in r.timings},
                    "notes": {t.name: t.note for t in r.timings},
                    "ratio_vs_batcheval": {
                        t.name: ratio(t.seconds, r.seconds("batcheval")) for t in r.timings
                    },
                    "batcheval_vs_floor": ratio(r.seconds("batcheval"), r.seconds("floor")),
                    **r.info,
                }
                for name, r in cases.items()
            },
            "memory": mem,
            "targets": target_rows,
            "total_seconds": total,
        }
        args.json.write_text(json.dumps(payload, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
