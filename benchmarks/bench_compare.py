"""be.compare, be.rank_methods and the DeLong functions against loops over baycomp, scipy and a
straightforward DeLong.

Each loop is timed on a subset and extrapolated linearly to the full size (the loops make one
independent call per run or pair, so their time is linear in the count); the printout says so.

1. ``compare``: ``--runs`` runs (default 100,000) × 10 repeats × 10 folds of one measure (an
   evaluated frame, 10M rows), corrected t and Bayesian correlated t against a fixed reference,
   vs ``baycomp.two_on_single`` and a Nadeau–Bengio t computed with scipy, one call per run.
   The evaluate that produces such a frame is timed on ``--eval-runs`` runs (its predictions:
   ``--rows`` rows per fold), with compare on the same runs, for the "stats step vs evaluate" ratio.
2. ``rank_methods``: 1,000 methods × 100 datasets (499,500 pairs), vs scipy's
   ``friedmanchisquare`` plus one ``wilcoxon`` and one ``studentized_range.sf`` (Nemenyi p) per pair.
3. DeLong: ``compare_auc`` over 10,000 runs × 2,000 shared examples vs a per-pair DeLong by the
   definition (numpy broadcasting of the m × n comparison matrix); and ``auc(ci=0.95)`` vs ``auc``.

Times are the best of ``--repeat`` calls, as CPU (process) time and wall-clock time; run with
``NUMBA_NUM_THREADS=1`` so that both sides use one core and the CPU times compare like with like.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_compare.py           # full sizes, ~3 GB
    python benchmarks/bench_compare.py --quick   # small sizes, a smoke test
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl
from scipy import stats

import batcheval as be


class Timing:
    """The best wall-clock and the best CPU (process) time of some calls. On a shared machine the
    CPU time is the steadier figure: run with NUMBA_NUM_THREADS=1 so both sides use one core."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = wall, cpu

    def __truediv__(self, k: float) -> Timing:
        return Timing(self.wall / k, self.cpu / k)

    def __mul__(self, k: float) -> Timing:
        return Timing(self.wall * k, self.cpu * k)

    def __add__(self, o: Timing) -> Timing:
        return Timing(self.wall + o.wall, self.cpu + o.cpu)

    def __str__(self) -> str:
        return f"cpu {self.cpu:8.3f} s  wall {self.wall:8.3f} s"

    def ratio(self, o: Timing) -> str:
        """This (a loop) over ``o`` (ours)."""
        return f"{self.cpu / o.cpu:,.1f}x cpu, {self.wall / o.wall:,.1f}x wall"


def best_of(fn, repeat: int) -> Timing:
    walls, cpus = [], []
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return Timing(min(walls), min(cpus))


def cv_frame(n_runs: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    cells = 100
    shared = rng.normal(0, 0.02, cells)
    values = (
        0.7 + rng.uniform(-0.05, 0.05, (n_runs, 1)) + shared[None, :] + rng.normal(0, 0.02, (n_runs, cells))
    )
    return pl.DataFrame({
        "run": np.repeat(np.arange(n_runs, dtype=np.int32), cells),
        "repeat": np.tile(np.repeat(np.arange(10, dtype=np.int8), 10), n_runs),
        "fold": np.tile(np.arange(10, dtype=np.int8), n_runs * 10),
        "accuracy": values.reshape(-1),
    })  # fmt: skip


def predictions(n_runs: int, rows: int, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    per_run = 100 * rows
    label = rng.integers(0, 2, per_run).astype(np.int8)
    skill = rng.uniform(0.2, 0.8, n_runs)
    pred = np.where(rng.random((n_runs, per_run)) < skill[:, None], label[None, :],
                    rng.integers(0, 2, (n_runs, per_run))).astype(np.int8)  # fmt: skip
    return pl.DataFrame({
        "run": np.repeat(np.arange(n_runs, dtype=np.int32), per_run),
        "repeat": np.tile(np.repeat(np.arange(10, dtype=np.int8), 10 * rows), n_runs),
        "fold": np.tile(np.repeat(np.arange(10, dtype=np.int8), rows), n_runs * 10),
        "label": np.tile(label, n_runs), "prediction": pred.reshape(-1),
    })  # fmt: skip


def bench_compare(n_runs: int, subset: int, eval_runs: int, rows: int, repeat: int) -> None:
    import baycomp

    df = cv_frame(n_runs)
    be.compare(df.head(2000), repeat="repeat", measure="accuracy", reference=0)  # warm
    t_ct = best_of(lambda: be.compare(df, repeat="repeat", measure="accuracy", reference=0), repeat)
    t_by = best_of(lambda: be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes",
                                      rope=0.01), repeat)  # fmt: skip
    x = df.get_column("accuracy").to_numpy().reshape(n_runs, 100)

    def loop_baycomp():
        for r in range(1, subset + 1):
            baycomp.two_on_single(x[0], x[r], rope=0.01, runs=10)

    def loop_scipy():
        for r in range(1, subset + 1):
            d = x[r] - x[0]
            t = d.mean() / np.sqrt(d.var(ddof=1) * (1 / 100 + 1 / 9))
            2 * stats.t.sf(abs(t), 99)

    per_b = best_of(loop_baycomp, 1) / subset
    per_s = best_of(loop_scipy, 1) / subset
    full_b, full_s = per_b * (n_runs - 1), per_s * (n_runs - 1)
    print(f"compare, {n_runs:,} runs x 10 repeats x 10 folds ({len(df):,} rows):")
    print(f"  be.compare corrected_t   {t_ct}")
    print(f"  be.compare bayes         {t_by}")
    print(f"  baycomp loop             {full_b}  (timed on {subset:,} runs, extrapolated)  "
          f"{full_b.ratio(t_by)}")  # fmt: skip
    print(f"  scipy corrected-t loop   {full_s}  (timed on {subset:,} runs, extrapolated)  "
          f"{full_s.ratio(t_ct)}")  # fmt: skip
    pred = predictions(eval_runs, rows)
    be.evaluate(pred.head(100_000), by=["run", "repeat", "fold"], measures=["accuracy"])  # warm
    t_ev = best_of(lambda: be.evaluate(pred, by=["run", "repeat", "fold"], measures=["accuracy"]), repeat)
    ev = be.evaluate(pred, by=["run", "repeat", "fold"], measures=["accuracy"])
    t_c = best_of(lambda: be.compare(ev, repeat="repeat", measure="accuracy", reference=0), repeat)
    print(f"  evaluate of {eval_runs:,} runs x 100 folds x {rows} rows ({len(pred):,} rows): {t_ev}")
    print(f"  compare of its output: {t_c} (+{100 * t_c.cpu / t_ev.cpu:.0f} % cpu, "
          f"+{100 * t_c.wall / t_ev.wall:.0f} % wall)")  # fmt: skip


def bench_ranks(k: int, n: int, subset: int, repeat: int) -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(n, k)) + np.linspace(0, 1, k)[None, :]
    df = pl.DataFrame({"method": np.tile(np.arange(k), n), "dataset": np.repeat(np.arange(n), k),
                       "score": x.reshape(-1)})  # fmt: skip
    be.rank_methods(df.filter(pl.col("method") < 10))  # warm
    t_ours = best_of(lambda: be.rank_methods(df), repeat)
    ia, ib = np.triu_indices(k, 1)
    pick = rng.choice(len(ia), subset, replace=False)
    se = np.sqrt(k * (k + 1) / (6 * n))
    mean_rank = stats.rankdata(-x, axis=1).mean(0)

    def loop():
        for p in pick:
            stats.wilcoxon(x[:, ia[p]], x[:, ib[p]])
            stats.studentized_range.sf(abs(mean_rank[ia[p]] - mean_rank[ib[p]]) / se * np.sqrt(2), k, np.inf)

    t_f = best_of(lambda: stats.friedmanchisquare(*x.T), 1)
    per = best_of(loop, 1) / subset
    full = t_f + per * len(ia)
    print(f"rank_methods, {k:,} methods x {n} datasets ({len(ia):,} pairs):")
    print(f"  be.rank_methods          {t_ours}")
    print(f"  scipy loop               {full}  (friedman once + wilcoxon and studentized_range.sf "
          f"per pair, timed on {subset:,} pairs, extrapolated)  {full.ratio(t_ours)}")  # fmt: skip


def delong_pair(a: np.ndarray, b: np.ndarray, label: np.ndarray) -> tuple[float, float]:
    """DeLong by the definition, one pair of runs: the m × n comparison matrices."""
    out, psis = [], []
    for s in (a, b):
        pos, neg = s[label == 1], s[label == 0]
        psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        out.append((psi.mean(1), psi.mean(0)))
        psis.append(psi)
    m, n = len(out[0][0]), len(out[0][1])
    s10 = np.cov(np.vstack([out[0][0], out[1][0]]))
    s01 = np.cov(np.vstack([out[0][1], out[1][1]]))
    # each class's part of DeLong's variance of the difference, their Welch–Satterthwaite df, and the
    # variance less its bias W/(mn) from the pairs' mean square (compare_auc's se_diff)
    p10 = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m
    p01 = (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n
    d = out[0][0].mean() - out[1][0].mean()
    df = (p10 + p01) ** 2 / (p10**2 / (m - 1) + p01**2 / (n - 1))
    q = ((psis[0] - psis[1]) ** 2).mean() - d * d
    w = (q - (m - 1) * p10 - (n - 1) * p01) / ((1 - 1 / m) * (1 - 1 / n))
    var = p10 + p01 - w / (m * n)
    return d, 2 * stats.t.sf(abs(d) / np.sqrt(max(var, (p10 + p01) / 2)), df)


def bench_delong(n_runs: int, n_ex: int, subset: int, repeat: int) -> None:
    rng = np.random.default_rng(3)
    label = rng.integers(0, 2, n_ex).astype(np.int8)
    s = rng.normal(size=(n_runs, n_ex)) + rng.uniform(0, 1.5, (n_runs, 1)) * label[None, :]
    df = pl.DataFrame({"run": np.repeat(np.arange(n_runs, dtype=np.int32), n_ex),
                       "example": np.tile(np.arange(n_ex, dtype=np.int32), n_runs),
                       "label": np.tile(label, n_runs), "score": s.reshape(-1)})  # fmt: skip
    be.compare_auc(df.filter(pl.col("run") < 5))  # warm
    be.auc(df.filter(pl.col("run") < 5), by="run", ci=0.95)
    t_ours = best_of(lambda: be.compare_auc(df, reference=0), repeat)
    t_auc = best_of(lambda: be.auc(df, by="run"), repeat)
    t_auc_ci = best_of(lambda: be.auc(df, by="run", ci=0.95), repeat)
    per = best_of(lambda: [delong_pair(s[r], s[0], label) for r in range(1, subset + 1)], 1) / subset
    full = per * (n_runs - 1)
    print(f"DeLong, {n_runs:,} runs x {n_ex:,} shared examples ({len(df):,} rows):")
    print(f"  be.compare_auc           {t_ours}")
    print(f"  per-pair DeLong loop     {full}  (timed on {subset:,} pairs, extrapolated)  "
          f"{full.ratio(t_ours)}")  # fmt: skip
    print(f"  be.auc                   {t_auc}")
    print(f"  be.auc(ci=0.95)          {t_auc_ci}  (+{100 * (t_auc_ci.cpu / t_auc.cpu - 1):.0f} % cpu, "
          f"+{100 * (t_auc_ci.wall / t_auc.wall - 1):.0f} % wall)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=["compare", "ranks", "delong"], default=None)
    args = ap.parse_args()
    q = args.quick
    if args.only in (None, "compare"):
        bench_compare(2_000 if q else 100_000, 200 if q else 2_000, 500 if q else 20_000, 10, args.repeat)
    if args.only in (None, "ranks"):
        bench_ranks(50 if q else 1_000, 20 if q else 100, 200 if q else 2_000, args.repeat)
    if args.only in (None, "delong"):
        bench_delong(200 if q else 10_000, 500 if q else 2_000, 20 if q else 100, args.repeat)


if __name__ == "__main__":
    main()
