"""Calibration of the leaderboard's best set and rank intervals (issue 20, item 1).

For paired boards (every run scores one shared test set, ``example=``) and
unpaired boards (each run its own test set), over a grid of board sizes R,
example counts n and prevalences, simulates boards of runs with true
informedness ``B_r`` (paper 002's informed-plus-chance model: a run copies
the label with probability ``B_r``, else flips a fair coin; the class sizes
are fixed at ``round(prevalence · n)`` positives) and reports:

- ``fwer best``: P(a truly best run is outside ``could_be_best``);
- ``fwer rank``: P(some run's true rank set ``[1 + #{B_j > B_r}, R −
  #{B_j < B_r}]`` lies outside ``[rank_ci_low, rank_ci_high]``);
- ``fwer holm``: the same as ``fwer best`` for the old rule, Holm-adjusted
  ``p_vs_leader`` > α (reproduced here with ``be.adjust``);
- under a staircase of true values (``B`` from 0.7 down to 0.3 evenly,
  one truly best run): the mean size of the best set under both rules and
  the mean width ``rank_ci_high − rank_ci_low + 1``, and ``worse excluded``: the mean share of
  clearly worse runs (B at least 0.2 below the best) outside ``could_be_best``.

The global null has every ``B_r = 0.5``: every run is best, and every true
rank set is ``[1, R]``. ``profiles`` (``--profiles``; 6,000 runs with ``--large``) is a
null too: every run has ``B = 0.5``, but odd and even runs put their errors on different
classes (recall 0.9 and false-positive rate 0.4, or 0.6 and 0.1), so they are not
exchangeable as the sign-flip test's null assumes (paired boards of 100 runs or more with 10
positives failed it in 0.80-1.00 of boards until stop 38's least-favourable variances,
docs/calibration_leader.md). With ``--seeds S`` paired boards score every example once per
seed and pool the seeds (the clustered board); ``--keep q`` makes the seeds repeat a run's
predictions (each keeps a base prediction with probability q), which a floor read at the pooled
rows did not survive until stop 39; ``--keep-class k`` keeps them on real class k only (stop 40:
a run whose seeds repeat their errors on one class, the case stop 39's rule reads least
directly; covered since stop 41 by the board's repeaters). A rate's Monte-Carlo standard error is
``sqrt(p(1 − p)/boards)``.

``--classes 3`` (Stop 39): three classes, the last of ``round(prevalence · n)`` examples and the
others splitting the rest (prevalence 0.8 at n = 100: 80, and two classes of 10). A run copies
the label with probability ``B_r``, else guesses: uniformly (the global null and the staircase),
or, for ``profiles``, 0.8 on the last class (even runs) or on class 0 (odd runs) and 0.1 on each
other class. Any guess law keeps the multiclass informedness at ``B_r``, the leaderboard's default
measure, so the profiles' runs are equally good with their errors on different classes.

    python benchmarks/calibration_leader.py --boards 200 --out docs/calibration_leader.md
    python benchmarks/calibration_leader.py --small-n --boards 400 --out small.md  # n = 10 and 20
    python benchmarks/calibration_leader.py --quick     # a smoke test
    python benchmarks/calibration_leader.py --profiles --classes 3 --designs profiles --boards 200
    python benchmarks/calibration_leader.py --profiles --seeds 3 --keep 0.9 --pairings paired  # stop 39
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings

# one thread: the boards are small, and a parallel launch costs more than their work on a busy machine
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl

import batcheval as be

ALPHA = 0.05
#: the ``profiles`` design's shift of both rates: recall 0.75 ± 0.15, false-positive rate 0.25 ± 0.15
PROFILE_SKEW = 0.15
#: ``--profiles``' (n, prevalence) points: about 10 positives, and more
PROFILE_POINTS = ((100, 0.1), (100, 0.5), (400, 0.1), (1000, 0.1))
#: ``--classes`` above 2: the share of a guess (a run's uninformed prediction) on the class its
#: profile favours, the rest spread evenly; two classes and B = 0.5 give PROFILE_SKEW's rates
PROFILE_FAVOURED = 0.8
#: ``--profiles --classes 3``' points: about 10 examples of the small class beside 45 or 195 a
#: class, and more
MULTICLASS_PROFILE_POINTS = ((100, 0.1), (100, 0.8), (400, 0.025), (400, 0.1), (1000, 0.1))


def labels(n: int, prevalence: float, rng: np.random.Generator, classes: int = 2) -> np.ndarray:
    """A test set of n examples with ``max(1, round(prevalence · n))`` positives, shuffled; with
    ``classes`` K above 2, that many of the last class K − 1 and the rest split evenly over the
    others (the first ones take the remainder)."""
    pos = max(1, round(prevalence * n))
    if classes > 2:
        rest = n - pos
        sizes = [rest // (classes - 1) + (c < rest % (classes - 1)) for c in range(classes - 1)]
        return rng.permutation(np.repeat(np.arange(classes, dtype=np.int8), [*sizes, pos]))
    y = np.zeros(n, dtype=np.int8)
    y[:pos] = 1
    return rng.permutation(y)


def multiclass_predictions(
    b: np.ndarray, y: np.ndarray, classes: int, profiles: bool, rng: np.random.Generator
) -> np.ndarray:
    """K-class predictions of runs informed with probability ``b[r]``, else guessing. A guess is
    uniform, or with ``profiles`` drawn with :data:`PROFILE_FAVOURED` on the last class (the
    small one; even runs) or on class 0 (odd runs), the rest evenly. Any guess law gives the
    table ``r_i(B·δ_ij + (1 − B)·g_j)`` in expectation, whose multiclass informedness
    ``Σ_k det_k/(n(n − r_k))`` is ``B``: equal skill, errors on different classes."""
    r, n = y.shape
    law = np.full((r, classes), 1.0 / classes)
    if profiles:
        other = (1.0 - PROFILE_FAVOURED) / (classes - 1)
        law[:] = other
        law[0::2, classes - 1] = PROFILE_FAVOURED
        law[1::2, 0] = PROFILE_FAVOURED
    edges = np.cumsum(law, axis=1)[:, None, :-1]  # [runs, 1, K − 1]
    guess = (rng.random((r, n))[:, :, None] >= edges).sum(axis=2).astype(np.int8)
    informed = rng.random((r, n)) < b[:, None]
    return np.where(informed, y, guess)


def board(
    b: np.ndarray,
    n: int,
    prevalence: float,
    paired: bool,
    rng: np.random.Generator,
    skew: float = 0.0,
    seeds: int = 1,
    keep: float | tuple[float, ...] = 0.0,
    classes: int = 2,
    keep_class: int | None = None,
) -> pl.DataFrame:
    """One row per run × example; run r is informed with probability ``b[r]``. With ``skew``,
    runs alternate between two error profiles of the same informedness instead: recall
    ``0.5 + b/2 ± skew`` and false-positive rate ``0.5 − b/2 ± skew`` (the same sign), so
    their errors fall on different classes and the runs are not exchangeable. With ``seeds``
    above 1, each run predicts the same examples once per seed (a ``seed`` column): afresh
    each seed, or with ``keep`` above 0 as ``benchmarks/calibration_cluster.py`` does, each
    seed keeps a base prediction of the run's (drawn once, from the same rates) with
    probability ``keep``, else draws afresh, so a run's seeds repeat its errors (two seeds'
    predictions of an example are one draw with probability ``keep²``). Several values: runs
    take them in turn by pairs (runs 0-1 the first, 2-3 the second, …), so that both error
    profiles have each, and the runs of a board differ in how far their seeds repeat. With
    ``keep_class``, only the examples of that real class keep the base prediction (a run's
    seeds repeat their errors on that class alone; the others draw afresh each seed). With
    ``classes`` above 2, :func:`multiclass_predictions` (``skew``: its two profiles)."""
    r = len(b)
    y = (
        np.tile(labels(n, prevalence, rng, classes), (r, 1))
        if paired
        else np.stack([labels(n, prevalence, rng, classes) for _ in range(r)])
    )

    def draw() -> np.ndarray:
        if classes > 2:
            return multiclass_predictions(b, y, classes, bool(skew), rng)
        if skew:
            shift = np.where(np.arange(r) % 2 == 0, skew, -skew)[:, None]
            p_one = np.where(y == 1, 0.5 + b[:, None] / 2, 0.5 - b[:, None] / 2) + shift
            return (rng.random((r, n)) < p_one).astype(np.int8)
        informed = rng.random((r, n)) < b[:, None]
        guess = (rng.random((r, n)) < 0.5).astype(np.int8)
        return np.where(informed, y, guess)

    # keep = 0 draws nothing more: the boards of the earlier stops, draw for draw
    keeps = np.atleast_1d(np.asarray(keep, dtype=np.float64))
    base = draw() if keeps.max() > 0 and seeds > 1 else None
    share = keeps[(np.arange(r) // 2) % len(keeps)][:, None]
    frames = []
    for s in range(seeds):
        if base is None:
            pred = draw()
        else:
            kept = rng.random((r, n)) < share
            if keep_class is not None:
                kept &= y == keep_class
            pred = np.where(kept, base, draw())
        frame = pl.DataFrame({
            "run": np.repeat(np.arange(r, dtype=np.int32), n),
            "example_id": np.tile(np.arange(n, dtype=np.int32), r),
            "label": y.ravel(),
            "prediction": pred.ravel(),
        })  # fmt: skip
        frames.append(frame.with_columns(pl.lit(s, dtype=pl.Int32).alias("seed")) if seeds > 1 else frame)
    return pl.concat(frames)


def one(
    b: np.ndarray,
    n: int,
    prevalence: float,
    paired: bool,
    rng: np.random.Generator,
    seed: int,
    method: str = "delta",
    skew: float = 0.0,
    seeds: int = 1,
    keep: float | tuple[float, ...] = 0.0,
    classes: int = 2,
    keep_class: int | None = None,
) -> dict:
    """The errors and sizes of one simulated board (paired: ``paired=method``). With ``seeds``
    above 1 (paired boards), every run predicts the same test set once per seed and the board
    pools the seeds: each example is then a cluster of ``seeds`` rows (the clustered board);
    ``keep``: the share of a run's predictions its seeds share, on ``keep_class`` only if
    given (:func:`board`)."""
    df = board(b, n, prevalence, paired, rng, skew, seeds, keep, classes, keep_class)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = be.leaderboard(
            df, run="run", example="example_id" if paired else None, paired=method, seed=seed,
            ci=1 - ALPHA, pool="seed" if seeds > 1 else None,
        )  # fmt: skip
    run = out["run"].to_numpy()
    truth = b[run]
    best = truth == truth.max()
    keep = out["could_be_best"].to_numpy().astype(object)
    kept = np.array([k is None or bool(k) for k in keep])  # undefined: not excluded
    p = out["p_vs_leader"].to_numpy().copy()
    holm = be.adjust(p, "holm")
    holm_kept = np.where(np.isnan(holm), True, holm > ALPHA)
    lo = out["rank_ci_low"].to_numpy().astype(float)  # nulls become NaN
    hi = out["rank_ci_high"].to_numpy().astype(float)
    true_lo = 1 + (truth[None, :] > truth[:, None]).sum(axis=1)
    true_hi = len(b) - (truth[None, :] < truth[:, None]).sum(axis=1)
    # the true rank set and the interval are disjoint, or the interval cuts into the ties' span
    miss = np.isfinite(lo) & ((lo > true_lo) | (hi < true_hi))
    return {
        "best": bool(np.any(best & ~kept)),
        "holm": bool(np.any(best & ~holm_kept)),
        "rank": bool(np.any(miss)) if np.isfinite(lo).any() else np.nan,
        "size": kept.sum(),
        "size_holm": holm_kept.sum(),
        # power: the share of clearly worse runs (B at least 0.2 below the best) the set excludes
        "excluded": float(np.mean(~kept[worse])) if (worse := truth <= truth.max() - 0.2).any() else np.nan,
        "width": float(np.nanmean(hi - lo + 1)) if np.isfinite(lo).any() else np.nan,
    }


def grid(
    quick: bool, small_n: bool = False, large: bool = False, profiles: bool = False, classes: int = 2
) -> list[tuple[str, int, int, float]]:
    """(design, R, n, prevalence) points; ``small_n``: the global null at n = 10 and 20 only;
    ``large``: boards of 6,000 runs (over ``selection.RANK_LIMIT``: each run compared with the
    leader alone, Bonferroni's critical value, the paired standard errors of ``paired=``)."""
    if profiles:
        points = PROFILE_POINTS if classes == 2 else MULTICLASS_PROFILE_POINTS
        return [("profiles", r, n, p) for r in (10, 30, 100, 300, 1000) for n, p in points]
    if large:
        pts = [("null", 6000, 100, 0.1), ("null", 6000, 100, 0.5), ("staircase", 6000, 100, 0.5)]
        # Stop 37: few positives and few examples, and a staircase with the examples to see it
        pts += [("null", 6000, 100, 0.02), ("null", 6000, 100, 0.05), ("null", 6000, 40, 0.1)]
        pts += [("null", 6000, 40, 0.5), ("staircase", 6000, 400, 0.5), ("staircase", 6000, 1000, 0.3)]
        # Stop 37: equal informedness, two error profiles (not exchangeable; board's ``skew``)
        points = ((100, 0.1), (100, 0.5), (400, 0.3)) if classes == 2 else MULTICLASS_PROFILE_POINTS
        return [*pts, *(("profiles", 6000, n, p) for n, p in points)]
    if small_n:
        return [("null", r, n, p) for r in (2, 10, 30) for n in (10, 20) for p in (0.5, 0.1)]
    if classes > 2:  # Stop 39: a dominant class and two of 10 examples, or 100-100-200
        pts = [("null", r, n, p) for r, n, p in ((100, 100, 0.8), (1000, 100, 0.8), (100, 400, 0.5))]
        return pts + [
            ("staircase", r, n, p) for r, n, p in ((30, 400, 0.5), (100, 400, 0.5), (100, 100, 0.8))
        ]
    if quick:
        return [(d, r, n, p) for d in ("null", "staircase") for r in (2, 10) for n, p in ((100, 0.1),)]
    small = [(40, 0.5), (40, 0.1), (100, 0.1), (400, 0.5), (400, 0.1)]
    pts = [("null", r, n, p) for r in (2, 10, 30) for n, p in small]
    pts += [("null", 100, n, p) for n, p in ((40, 0.5), (400, 0.1))] + [("null", 1000, 100, 0.1)]
    pts += [("staircase", r, n, p) for r in (10, 30) for n, p in ((40, 0.5), (100, 0.1), (400, 0.5))]
    pts += [("staircase", 100, 400, 0.5)]
    return pts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=200, help="boards per grid point")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None, help="write the markdown table here")
    parser.add_argument("--designs", default="null,staircase")
    parser.add_argument("--max-runs", type=int, default=1000)
    parser.add_argument(
        "--small-n", action="store_true", help="the null grid at n = 10 and 20 (R = 2, 10, 30)"
    )
    parser.add_argument(
        "--paired-method", default="delta", help="paired= of the paired boards: delta or bootstrap"
    )
    parser.add_argument(
        "--profiles", action="store_true", help="the two-profile null at R = 10-1,000 (see grid)"
    )
    parser.add_argument("--large", action="store_true", help="boards of 6,000 runs, n = 40-1,000 (see grid)")
    parser.add_argument("--pairings", default="paired,unpaired", help="paired, unpaired or both")
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="paired boards: each run scored once per seed, pooled (clustered)",
    )
    parser.add_argument(
        "--classes", type=int, default=2,
        help="K classes: the last one of round(prevalence·n) examples, the rest split evenly",
    )  # fmt: skip
    parser.add_argument(
        "--keep",
        default="0",
        help="with --seeds: each seed keeps the run's base prediction of an example with this probability "
        "(several, comma-separated: runs take them in turn by pairs)",
    )
    parser.add_argument(
        "--keep-class", type=int, default=None,
        help="with --keep: only the examples of this real class keep the base prediction (a run's "
        "seeds repeat their errors on that class alone)",
    )  # fmt: skip
    parser.add_argument(
        "--points", default=None,
        help="only these grid points, e.g. 'null:unpaired:2:400:0.1,null:paired:30:40:0.1'",
    )  # fmt: skip
    args = parser.parse_args()
    boards = 20 if args.quick else args.boards
    keeps = tuple(float(k) for k in args.keep.split(","))
    repeats = (args.seeds, keeps, args.classes, args.keep_class)
    rows = []
    t0 = time.perf_counter()
    designs = args.designs.split(",")
    for design, r, n, prev in grid(args.quick, args.small_n, args.large, args.profiles, args.classes):
        if design not in designs or r > args.max_runs:
            continue
        b = np.linspace(0.7, 0.3, r) if design == "staircase" else np.full(r, 0.5)
        skew = PROFILE_SKEW if design == "profiles" else 0.0
        for pairing in args.pairings.split(","):
            if args.points and f"{design}:{pairing}:{r}:{n}:{prev}" not in args.points.split(","):
                continue
            # fewer boards for the 1,000-run points keep each point to a minute or so
            nb = boards if r < 1000 else max(20, boards // 4)
            method = args.paired_method
            key = [args.seed, r, n, int(prev * 1000), pairing == "paired"]
            rng = np.random.default_rng(key if args.classes == 2 else [*key, args.classes])
            t1 = time.perf_counter()
            res = [one(b, n, prev, pairing == "paired", rng, s, method, skew, *repeats) for s in range(nb)]
            frame = pl.DataFrame(res)
            row = {"design": design, "pairing": pairing, "R": r, "n": n, "prevalence": prev, "boards": nb}
            for k in ("best", "rank", "holm"):
                rate = float(frame[k].cast(pl.Float64).mean())  # type: ignore[arg-type]
                row[f"fwer {k}"] = rate
                row[f"se {k}"] = math.sqrt(rate * (1 - rate) / nb) if not math.isnan(rate) else float("nan")
            for k in ("size", "size_holm", "width", "excluded"):
                row[f"mean {k}"] = float(frame[k].cast(pl.Float64).mean())  # type: ignore[arg-type]
            row["seconds"] = time.perf_counter() - t1
            rows.append(row)
            print(
                f"{design:9} {pairing:8} R={r:5} n={n:4} prev={prev:4}: best {row['fwer best']:.3f} "
                f"rank {row['fwer rank']:.3f} holm {row['fwer holm']:.3f} size {row['mean size']:.1f} "
                f"(holm {row['mean size_holm']:.1f}) width {row['mean width']:.1f} "
                f"excluded {row['mean excluded']:.3f} [{row['seconds']:.0f} s]",
                flush=True,
            )
    table = pl.DataFrame(rows)
    print(f"total {time.perf_counter() - t0:.0f} s")
    if args.out:
        write(table, args)


def write(table: pl.DataFrame, args: argparse.Namespace) -> None:
    def fmt(v: float) -> str:
        return "—" if math.isnan(v) else f"{v:.3f}"

    lines = [
        "# Calibration of the leaderboard's best set and rank intervals",
        "",
        "Made by",
        "",
        "```",
        f"python benchmarks/calibration_leader.py --boards {args.boards} --seed {args.seed} "
        f"--designs {args.designs} --max-runs {args.max_runs} --out {args.out}"
        + (" --small-n" if args.small_n else "")
        + (" --large" if args.large else "")
        + (" --profiles" if args.profiles else "")
        + (f" --paired-method {args.paired_method}" if args.paired_method != "delta" else "")
        + (f" --points {args.points}" if args.points else "")
        + (f" --seeds {args.seeds}" if args.seeds > 1 else "")
        + (f" --keep {args.keep}" if args.keep != "0" else "")
        + (f" --keep-class {args.keep_class}" if args.keep_class is not None else "")
        + (f" --pairings {args.pairings}" if args.pairings != "paired,unpaired" else "")
        + (f" --classes {args.classes}" if args.classes != 2 else ""),
        "```",
        "",
        "(see the benchmark's docstring for the design). Nominal family-wise error α = 0.05; ± is the",
        "Monte-Carlo standard error of the rate. `fwer best`: P(a truly best run outside `could_be_best`);",
        "`fwer rank`: P(some true rank outside `[rank_ci_low, rank_ci_high]`); `fwer holm`: the old",
        "rule (Holm-adjusted `p_vs_leader` > α, i.e. `tied_with_leader` before this change). `size`:",
        "mean number of runs in the best set (new rule / Holm rule); `width`: mean rank-interval width.",
        f'Paired boards use `paired="{args.paired_method}"`.',
        "",
    ]
    titles = {
        "null": "Global null: every run has B = 0.5",
        "staircase": "Staircase: B from 0.7 down to 0.3, one truly best run",
        "profiles": "Null with two error profiles: every run has B = 0.5, odd and even runs err on "
        "different classes",
    }
    for design, title in titles.items():
        part = table.filter(pl.col("design") == design)
        if not part.height:
            continue
        lines += [f"## {title}", "",
                  "| pairing | R | n | prevalence | boards | fwer best | fwer rank | fwer holm "
                  "| size (new / holm) | width | worse excluded |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for row in part.iter_rows(named=True):
            lines.append(
                f"| {row['pairing']} | {row['R']} | {row['n']} | {row['prevalence']} | {row['boards']} | "
                f"{fmt(row['fwer best'])} ± {fmt(row['se best'])} | {fmt(row['fwer rank'])} ± "
                f"{fmt(row['se rank'])} | {fmt(row['fwer holm'])} ± {fmt(row['se holm'])} | "
                f"{row['mean size']:.1f} / {row['mean size_holm']:.1f} | {fmt(row['mean width'])} | "
                f"{fmt(row['mean excluded'])} |"
            )
        lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
