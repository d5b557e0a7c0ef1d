"""Coverage and width of the 95 % bootstrap intervals of the measures with no closed form.

Usage::

    python benchmarks/calibration_bootstrap.py [--tables 400] [--n-boot 1000] [--classes 2,3,5]
        [--out docs/calibration_bootstrap.md]

``evaluate(..., ci=0.95, measures=[...])`` gives a measure outside
``interval_measures(K)`` (mcc with more than two classes, macro_f1, macro_recall, ...) a
bootstrap interval of the table, ``n_boot`` = 1,000 multinomial resamples (the default of
``evaluate``). This measures its coverage on the population model of ``calibration_intervals.py``
(:func:`population`: paper 002's informed-plus-chance model, K classes, the last class of share
``prevalence``, the others sharing the rest, informedness ``B``), the truth of each measure being
the library's own point value of the population's cell probabilities (:func:`truths`).

Reported per grid point (K, n, prevalence, B, expected smallest margin
``n · min(min_k r_k, min_k c_k)``) and measure: the coverage over the tables where the interval
is defined, with its Monte-Carlo standard error ``sqrt(c(1 − c)/R)``, and the median width, of
four methods on the same tables, the first three computed by the library itself (:func:`ends`:
:func:`batcheval.inference.intervals.intervals` with ``method="bootstrap"`` and ``pseudo=``):

- *percentile* (``percentile``): the plain percentile bootstrap, the multinomial resamples of
  the table (what ``evaluate(ci=..., ci_method="bootstrap")`` and the leaderboard give, and
  what ``evaluate(ci=...)`` gave these measures before), with its share of zero-width intervals;
- *smoothed* (``smoothed``): the percentile bootstrap of the table with a pseudo-count: the
  ``n`` examples of each resample are drawn from the cell shares of the table plus
  ``a = 2/(K(K − 1))`` in every cell, ``(counts + a)/(n + K²a)``
  (:func:`batcheval.inference.intervals.pseudo_count`, the closed forms' Agresti–Caffo-type
  pseudo-count: 1 for K = 2, 1/3 for K = 3, 1/10 for K = 5), so a perfect or constant table no
  longer resamples only itself;
- *half* (``half``): the same with half of it, ``a/2 = 1/(K(K − 1))`` per cell
  (:func:`batcheval.inference.intervals.bootstrap_pseudo_count`): **the library's default**,
  what ``evaluate(ci=0.95, seed=s)`` gives these measures under ``ci_method="wilson_delta"``,
  bit for bit on the same seed;
- *BCa* (``bca``): Efron's bias-corrected and accelerated percentiles of the percentile
  bootstrap's own replicates (Efron & Tibshirani 1993, §14.3), the bias ``z0`` from the share of
  replicates below the estimate (ties counted half), the acceleration from the jackknife over the
  table's examples (one example left out of each non-empty cell, weighted by the cell's count).

Each method's width is shown as the ratio of its median width to the percentile bootstrap's (a
1,000-replicate one; the issue's reference is a 2,000-replicate one, whose percentiles differ
from the 1,000-replicate ones by Monte-Carlo error only). The three resampling methods draw from
the same seed per grid point.

Grid (few points per axis to stay within ~5 min CPU): K = 2, 3, 5; n = 10, 20, 40, 100, 400,
2000; smallest-class prevalence 0.1, 0.3, 0.5 (K = 2), 0.1, 1/3 (K = 3), 0.1, 0.2 (K = 5);
informedness 0, 0.5, 0.9. Left out against the issue's wider grid: n above 2,000, prevalence
below 0.1, and informedness between the three values.

Targets (issue 20): coverage within [0.935, 0.965] wherever the smallest margin is at least 10,
at least 0.92 from 5; median width at most 1.1 × a 2,000-replicate percentile bootstrap's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

from batcheval import measures as bm
from batcheval.inference import intervals as iv

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the same population model and margins as the closed forms' study, so the two tables read alike
from calibration_intervals import population, smallest_margin

LEVEL = 0.95
NS = (10, 20, 40, 100, 400, 2000)
INFORMEDNESS = (0.0, 0.5, 0.9)
PREVALENCES = {2: (0.1, 0.3, 0.5), 3: (0.1, 1 / 3), 5: (0.1, 0.2)}
#: the measures that evaluate(ci=...) gives a bootstrap interval and that the issue names
MULTICLASS = (
    "mcc",
    "macro_f1",
    "macro_recall",
    "macro_precision",
    "weighted_f1",
    "kappa_fleiss",
    "macro_informedness",
    "bias_weighted_informedness",
    "mutual_information",
)
BINARY_ONLY = ("f_beta", "g_measure")
BETA = 2.0  # the β of f_beta
#: "half" is evaluate(ci=)'s default for these measures, "percentile" ci_method="bootstrap"'s
METHODS = ("percentile", "smoothed", "half", "bca")
#: integer scale of the population table whose point values are the truths (measures take int64)
TRUTH_SCALE = 10**8
TOL = 1e-7  # an end equal to the truth covers it (truths carry ~1e-8 of rounding)

#: What the tables show (figures of the run in docs/calibration_bootstrap.md: 400 tables per point,
#: seed 20261124); "measures" are the ten other than mutual_information unless named.
NOTES = [
    "## Findings",
    "",
    "- **Adopted: the smoothed bootstrap (*half*) is `evaluate(ci=)`'s default for these measures.** "
    'Under `ci_method="wilson_delta"` a measure with no closed form gets the percentile bootstrap '
    "of resamples of `n` examples from the table plus `1/(K(K − 1))` in every cell (half the closed "
    'forms\' pseudo-count; `intervals(..., "bootstrap", pseudo="present")`), K and the cells those of '
    "the classes present in the group's table (a real example or a prediction): a class of the call the "
    "group never has gets none, so a group's interval does not change with the other groups or `classes=` "
    "(where all K classes are present, `pseudo=bootstrap_pseudo_count(K)` bit for bit; a group of one "
    "class is smoothed as a table of two, its class and one other, as a binary table); "
    '`ci_method="bootstrap"` keeps the plain percentile bootstrap for every measure, and so does '
    "the leaderboard. The *half* column below is the library's default bit for bit on the same seed "
    "(tests/test_calibration_bootstrap.py).",
    "- **Its coverage.** Where the smallest expected margin is ≥ 10 its lowest coverage per measure is "
    "0.930–0.935 with two classes (21–29 of 36 points in [0.935, 0.965]), 0.915–0.930 with three "
    "(14–18 of 21) and 0.910–0.932 with five (12–16 of 18), and no point of any measure is clearly "
    "below the band (coverage + 2 MC SE < 0.935); at margins 5–10 it is at least 0.950–0.973 (K = 2), "
    "0.930–0.965 (K = 3) and 0.907–0.953 (K = 5). The percentile bootstrap on the same tables: lowest "
    "0.537–0.635 (K = 2, 20–26 of 36 in the band, 4–8 points clearly below per measure), 0.787–0.910 "
    "(K = 3), 0.880–0.927 (K = 5), and down to 0.370 at margins 5–10. The smoothed bootstrap "
    "over-covers where the percentile bootstrap collapses: up to 0.990–0.995 (K = 2), 0.970–0.995 "
    "(K = 3), 0.958–0.963 (K = 5), e.g. 0.995 for macro_recall at n = 20, balanced, informedness 0.9, "
    "where the percentile bootstrap covers 0.635 with 36 % zero-width intervals.",
    "- **Its width, and the width rule.** Its median width over the grid is 1.00–1.01 times the "
    "percentile bootstrap's for every measure. Where the margin is ≥ 10 it is above 1.1 times at 5 of "
    "36 binary points per measure (6 for f_beta), at 1–2 of 21 with three classes and at none of 18 "
    "with five (macro_informedness: 1), at most 1.50–3.20 (K = 2), 1.31–1.65 (K = 3) and 1.05–1.23 "
    "(K = 5) times at margins ≥ 5. At all those points but two the percentile bootstrap itself covers "
    "below the band: 0.537–0.920 with two classes (mutual_information 0.020; per measure the median "
    "over the points is 0.635–0.830), 0.787–0.932 with three, 0.915 with five; the two are K = 3, "
    "n = 100, balanced, informedness 0.9, mcc and weighted_f1 (percentile 0.938 and 0.943, smoothed "
    "0.965 both, width ratio 1.11). As for the closed forms (docs/calibration_intervals.md), coverage "
    "comes first: the width rule compares with a reference that fails at those points.",
    "- **Where and why the percentile bootstrap fails.** (a) Small tables with few expected errors "
    "(K = 2, informedness 0.9, n = 20–40): a table without errors resamples only itself, so 10–36 % "
    "of its intervals have zero width. (b) A cell expected to hold about one example although the "
    "margins hold 10 (K = 2, n = 100, prevalence 0.1): in the tables where it is empty every resample "
    "has it empty too. The pseudo-count gives every cell a chance in every resample. (c) Mild "
    "under-coverage, 0.880–0.932, at points with margins of 20 to 200 with three and five classes "
    "(18 and 43 points × measures): the percentile bootstrap is a little narrow.",
    "- **The other candidates.** The whole pseudo-count (*smoothed*) is wider (at most 1.80–3.65 times "
    "with two classes, 1.55–2.00 with three, 1.17–1.39 with five) and is above 1.1 times at more points "
    "(7 of 36 binary), and leaves macro_f1 and kappa_fleiss at 0.855 and weighted_f1 at 0.900 (K = 2). "
    "BCa keeps the percentile bootstrap's failures (lowest binary coverage 0.535–0.630): it moves the "
    "percentiles of a collapsed bootstrap distribution but cannot widen it.",
    "- **mutual_information** has its truth 0 at informedness 0, the lower end of its range, and every "
    "replicate is ≥ 0, so no percentile interval, smoothed or not, covers it there (coverage 0.000 at "
    "every such point); it is also biased upwards at small n. The smoothed bootstrap does not make it "
    "worse, so it gets the default too: in the band at 16 (percentile 15) of 36, 9 (5) of 21 and 1 (1) "
    "of 18 points (K = 2, 3, 5), clearly below at 12 (15), 8 (12) and 14 (14). Do not read its interval "
    "as 95 % at small n or near independence.",
    "",
]


def names_for(k: int) -> list[str]:
    """The measures of the study for ``k`` classes (binary MCC included: it is the bootstrap's
    under ``ci_method="bootstrap"``, though ``evaluate``'s default gives it correlation's closed form)."""
    return [*MULTICLASS, *(BINARY_ONLY if k == 2 else ())]


def truths(pop: np.ndarray, names: list[str]) -> dict[str, float]:
    """Each measure's value at the population: the point value of the table of cell shares
    scaled to :data:`TRUTH_SCALE` examples (every measure here is a function of the shares)."""
    table = np.round(pop * TRUTH_SCALE).astype(np.int64)[None]
    return {m: float(v[0]) for m, v in bm.compute(table, names, beta=BETA).items()}


def _percentile_rows(values: np.ndarray, lo_q: np.ndarray, hi_q: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per-row quantiles (linear, as numpy's default) of ``values[G, B]`` ignoring NaN, at
    per-row levels ``lo_q``, ``hi_q``; NaN for a row with fewer than 2 finite values."""
    s = np.sort(values, axis=1)  # NaN sort last
    m = np.isfinite(s).sum(axis=1)
    out = []
    for q in (lo_q, hi_q):
        pos = np.clip(q, 0.0, 1.0) * np.maximum(m - 1, 0)
        i = np.floor(pos).astype(np.int64)
        j = np.minimum(i + 1, np.maximum(m - 1, 0))
        frac = pos - i
        rows = np.arange(len(s))
        v = s[rows, i] * (1 - frac) + s[rows, j] * frac
        out.append(np.where(m >= 2, v, np.nan))
    return out[0], out[1]


def bca(
    counts: np.ndarray, values: np.ndarray, estimate: np.ndarray, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """BCa ends from replicate values ``values[G, B]`` of the tables ``counts[G, K, K]``."""
    g, k, _ = counts.shape
    finite = np.isfinite(values)
    nf = finite.sum(axis=1)
    below = np.sum(finite & (values < estimate[:, None]), axis=1)
    ties = np.sum(finite & (values == estimate[:, None]), axis=1)
    share = (below + 0.5 * ties) / np.maximum(nf, 1)
    z0 = special.ndtri(np.clip(share, 1.0 / (2 * np.maximum(nf, 1)), 1 - 1.0 / (2 * np.maximum(nf, 1))))
    # jackknife over examples: leave one out of each non-empty cell
    flat = counts.reshape(g, k * k)
    jack = np.repeat(flat[:, None, :], k * k, axis=1) - np.eye(k * k, dtype=np.int64)[None]
    w = flat.astype(np.float64)
    ok_cell = flat > 0
    jack = np.where(ok_cell[:, :, None], jack, flat[:, None, :])
    theta = bm.compute(jack.reshape(-1, k, k), [name], beta=BETA)[name].reshape(g, k * k)
    w = np.where(ok_cell & np.isfinite(theta), w, 0.0)
    theta = np.where(w > 0, theta, 0.0)
    wsum = w.sum(axis=1)
    mean = (w * theta).sum(axis=1) / np.maximum(wsum, 1)
    d = mean[:, None] - theta
    num = (w * d**3).sum(axis=1)
    den = 6.0 * ((w * d**2).sum(axis=1)) ** 1.5
    acc = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    z = special.ndtri(np.array([(1 - LEVEL) / 2, (1 + LEVEL) / 2]))
    qs = []
    for zz in z:
        t = z0 + (z0 + zz) / (1 - acc * (z0 + zz))
        qs.append(special.ndtr(t))
    low, high = _percentile_rows(values, qs[0], qs[1])
    bad = ~np.isfinite(estimate)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def pseudo_of(method: str, k: int) -> float | str:
    """The pseudo-count per cell that ``method`` resamples with (0: the plain bootstrap);
    "half" is the library's ``"present"``: :func:`~batcheval.inference.intervals.bootstrap_pseudo_count`
    of the classes present in each table, over its cells (K's where all K are present)."""
    return {"percentile": 0.0, "smoothed": iv.pseudo_count(k), "half": "present"}[method]


def ends(
    counts: np.ndarray, names: list[str], method: str, n_boot: int, seed: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The library's percentile intervals of ``method`` ("percentile", "smoothed", "half"):
    :func:`batcheval.inference.intervals.intervals` with ``method="bootstrap"`` and the
    method's ``pseudo=``, so the benchmark cannot drift from the library. "half" is what
    ``evaluate(ci=0.95, seed=seed)`` gives these measures (tests/test_calibration_bootstrap.py
    checks it bit for bit), "percentile" what ``ci_method="bootstrap"`` gives."""
    k = counts.shape[1]
    pseudo = pseudo_of(method, k)
    return iv.intervals(counts, names, LEVEL, "bootstrap", n_boot=n_boot, seed=seed, beta=BETA, pseudo=pseudo)


def simulate_point(
    k: int, n: int, prev: float, b: float, tables: int, n_boot: int, rng: np.random.Generator, seed: int
) -> list[dict]:
    """One row per measure at one grid point."""
    names = names_for(k)
    pop = population(k, prev, b)
    truth = truths(pop, names)
    counts = rng.multinomial(n, pop.ravel(), size=tables).reshape(tables, k, k).astype(np.int64)
    estimate = bm.compute(counts, names, beta=BETA)
    # the library's intervals on the stacked tables, as evaluate computes them, all from the same seed
    by_method = {method: ends(counts, names, method, n_boot, seed) for method in METHODS[:3]}
    # BCa from the plain bootstrap's replicates (the same ones as "percentile")
    reps = iv.bootstrap_replicates(counts, n_boot, seed).reshape(-1, k, k)
    values = bm.compute(reps, names, beta=BETA)
    rows = []
    for m in names:
        v = values[m].reshape(tables, n_boot)
        point_ends = {method: by_method[method][m] for method in METHODS[:3]}
        point_ends["bca"] = bca(counts, v, estimate[m], m)
        row = {
            "k": k, "n": n, "prevalence": prev, "informedness": b, "margin": smallest_margin(n, pop),
            "measure": m, "truth": truth[m],
        }  # fmt: skip
        t = truth[m]
        ref_width = np.nan
        for method in METHODS:
            low, high = point_ends[method]
            ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(estimate[m])
            defined = int(ok.sum())
            hit = ok & (low <= t + TOL) & (t - TOL <= high)
            cov = hit.sum() / defined if defined else np.nan
            width = (high - low)[ok]
            med = float(np.median(width)) if defined else np.nan
            if method == "percentile":
                ref_width = med
                row["defined"] = defined / tables
                row["zero_width"] = float(np.mean(width <= 1e-12)) if defined else np.nan
            row[f"{method}_coverage"] = cov
            row[f"{method}_se"] = np.sqrt(cov * (1 - cov) / defined) if defined else np.nan
            row[f"{method}_width"] = med
            row[f"{method}_ratio"] = med / ref_width if ref_width > 1e-12 else np.nan
        rows.append(row)
    return rows


def simulate(
    k: int,
    tables: int,
    n_boot: int,
    seed: int,
    ns: tuple[int, ...] = NS,
    prevalences: tuple[float, ...] | None = None,
    informedness: tuple[float, ...] = INFORMEDNESS,
) -> list[dict]:
    """Every grid point of ``k`` classes; one row per point × measure."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        for prev in prevalences or PREVALENCES[k]:
            for b in informedness:
                rows += simulate_point(k, n, prev, b, tables, n_boot, rng, seed + n)
    return rows


def _band(row: dict, method: str) -> str:
    c = row[f"{method}_coverage"]
    if not np.isfinite(c):
        return "–"
    flag = ""
    if row["margin"] >= 10 and not 0.935 <= c <= 0.965:
        flag = " ⚠"
    elif 5 <= row["margin"] < 10 and c < 0.92:
        flag = " ⚠"
    return f"{c:.3f} ± {row[f'{method}_se']:.3f}{flag}"


def summary(rows: list[dict]) -> list[str]:
    """Per K, measure and method: the points with margin ≥ 10 in the band, clearly below it
    (coverage + 2 MC SE < 0.935), the range, the floor at margins 5-10, the width ratio, and
    (as in docs/calibration_intervals.md) the points with margin ≥ 10 whose width ratio is
    above 1.1 with the percentile bootstrap's own coverage there."""
    out = [
        "| K | measure | method | points, margin ≥ 10 | in [0.935, 0.965] | clearly below "
        "(c + 2 se < 0.935) | min | max | min, margin 5–10 | min, margin < 5 | × percentile width: "
        "median | max (margin ≥ 5) | points above 1.1 (margin ≥ 10) | percentile's own coverage "
        "there (median, min) |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in sorted({r["k"] for r in rows}):
        for m in names_for(k):
            sel = [r for r in rows if r["k"] == k and r["measure"] == m]
            for method in METHODS:
                c = np.array([r[f"{method}_coverage"] for r in sel if r["margin"] >= 10])
                se = np.array([r[f"{method}_se"] for r in sel if r["margin"] >= 10])
                c5 = [r[f"{method}_coverage"] for r in sel if 5 <= r["margin"] < 10]
                c0 = [r[f"{method}_coverage"] for r in sel if r["margin"] < 5]
                ratio = np.array([r[f"{method}_ratio"] for r in sel if r["margin"] >= 5])
                ratio = ratio[np.isfinite(ratio)]
                fin = np.isfinite(c)
                wide = [
                    r["percentile_coverage"]
                    for r in sel
                    if r["margin"] >= 10 and np.isfinite(r[f"{method}_ratio"]) and r[f"{method}_ratio"] > 1.1
                ]
                n_ratio = sum(1 for r in sel if r["margin"] >= 10 and np.isfinite(r[f"{method}_ratio"]))
                there = f"{np.median(wide):.3f}, {np.min(wide):.3f}" if wide else "–"
                out.append(
                    f"| {k} | {m} | {method} | {int(fin.sum())} "
                    f"| {int(np.sum((c[fin] >= 0.935) & (c[fin] <= 0.965)))} "
                    f"| {int(np.sum(c[fin] + 2 * se[fin] < 0.935))} "
                    f"| {np.nanmin(c):.3f} | {np.nanmax(c):.3f} "
                    f"| {np.nanmin(c5) if c5 else np.nan:.3f} | {np.nanmin(c0) if c0 else np.nan:.3f} "
                    f"| {np.median(ratio) if len(ratio) else np.nan:.2f} "
                    f"| {ratio.max() if len(ratio) else np.nan:.2f} "
                    f"| {len(wide)} of {n_ratio} | {there} |"
                )
    return out


def detail(rows: list[dict], k: int) -> list[str]:
    out = [
        "| n | prevalence | B | margin | measure | truth | defined | percentile: coverage "
        "| zero width | median width | smoothed: coverage | × width | half (default): coverage | × width "
        "| BCa: coverage | × width |",
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["k"] != k:
            continue
        out.append(
            f"| {r['n']} | {r['prevalence']:.3g} | {r['informedness']} | {r['margin']:.1f} | {r['measure']} "
            f"| {r['truth']:.4f} | {r['defined']:.3f} | {_band(r, 'percentile')} | {r['zero_width']:.3f} "
            f"| {r['percentile_width']:.4f} | {_band(r, 'smoothed')} | {r['smoothed_ratio']:.2f} "
            f"| {_band(r, 'half')} | {r['half_ratio']:.2f} "
            f"| {_band(r, 'bca')} | {r['bca_ratio']:.2f} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=400)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--classes", default="2,3,5")
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--out", default=None, help="write the markdown report here")
    args = ap.parse_args(argv)
    t0 = time.process_time()
    rows: list[dict] = []
    for k in (int(v) for v in args.classes.split(",")):
        rows += simulate(k, args.tables, args.n_boot, args.seed + k)
        print(f"K = {k}: {time.process_time() - t0:.0f} s CPU", file=sys.stderr)
    cmd = "python benchmarks/calibration_bootstrap.py " + " ".join(argv if argv is not None else sys.argv[1:])
    se95 = np.sqrt(0.95 * 0.05 / args.tables)
    lines = [
        "# Calibration of the bootstrap intervals (measures with no closed form)",
        "",
        f"Made by `{cmd.strip()}` ({time.process_time() - t0:.0f} s CPU); {args.tables} tables per grid "
        f"point, {args.n_boot} bootstrap replicates per table (the default `n_boot`), seed {args.seed}. "
        f"Monte-Carlo standard error near 0.95: {se95:.4f}. See the benchmark's docstring for the model "
        'and the four methods (*percentile*: the plain percentile bootstrap, `ci_method="bootstrap"`; '
        "*smoothed*: the percentile bootstrap from the table plus the closed forms' pseudo-count; "
        "*half*: with half of it, `evaluate(ci=)`'s default for these measures; *BCa*).",
        "",
        *NOTES,
        "## Summary",
        "",
        *summary(rows),
        "",
    ]
    for k in sorted({r["k"] for r in rows}):
        lines += [
            f"## K = {k}: coverage ± Monte-Carlo SE",
            "",
            "⚠: outside [0.935, 0.965] where the smallest expected margin is ≥ 10, below 0.92 where it "
            "is 5 to 10. × width: the method's median width over the percentile bootstrap's.",
            "",
            *detail(rows, k),
            "",
        ]
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
