"""Calibration of the model-comparison tests that docs/comparing.md does not cover elsewhere.

Every rate is a seeded Monte-Carlo rejection rate under a null hypothesis, printed with its binomial
standard error ``sqrt(p(1 − p)/reps)``:

1. ``be.compare(test="5x2cv")`` (Dietterich's 5×2cv paired t; the library has no Alpaydin F) and,
   on the same folds, ``test="corrected_t"``: two classifiers of equal skill. Each replicate draws
   a dataset of n examples (the first ``round(π n)`` positive), two features ``x_j = y + √½ s +
   √½ e_j`` that share an example effect ``s``, and five stratified 2-fold splits; classifier j
   thresholds feature j at the midpoint of the class means of its training fold. The two are
   equally good by symmetry, so every rejection is an error. The per-fold accuracy and
   informedness differences of all replicates go to one ``be.compare`` call against a run of
   zeros (the tests see only the differences).
2. ``be.rank_methods``' Friedman χ², Iman–Davenport F (their ``friedman_p`` and ``iman_davenport_p``:
   the permutation p-value where ``(k − 1)(N − 1) ≤ 40``, else the χ² and F tails, which are also
   shown everywhere as "χ² tail" and "F tail"), Nemenyi (any pair with ``nemenyi_different``),
   Holm over all pairs (any ``p_holm`` < α), Holm against a control (any control ``p_holm`` < α)
   and Holm over the pairwise Wilcoxon tests (any ``p_wilcoxon_holm`` < α): k exchangeable
   methods on N datasets. Without ties the scores are N(0, 1); with ties they are accuracies on a
   test set of 30 examples, ``Binomial(30, p_d)/30`` with ``p_d ~ U(0.6, 0.95)`` per dataset.
   The tables are stacked and passed to ``friedman_tests`` and ``wilcoxon_pairs``, the functions
   ``rank_methods`` calls; the first replicates of every cell are checked against
   ``be.rank_methods`` itself. The tied rows where the permutation p-value applies are run again
   on 10,000 tables each, for its size with a smaller Monte-Carlo error. For k = 3 without ties
   the exact sizes of the χ² and F tails, of the exact permutation test and of Nemenyi follow
   from the distribution of the rank sums.
3. The Wilcoxon signed-rank test of one pair over N datasets (``wilcoxon_pairs``, the
   ``p_wilcoxon`` column) with continuous scores, and with accuracies on 200 or 30 test examples
   (few or many ties and zero differences), beside the p-value the library gave before it took
   scipy's sign-flip distribution for N ≤ 13 with ties or zeros (the normal approximation there);
   and, exactly (all 2^N sign flips of a fixed pattern of ties and zeros), the size of both.

    python benchmarks/calibration_ranks.py            # the tables in docs/comparing.md
    python benchmarks/calibration_ranks.py --quick    # a smoke test
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl
from scipy import special

import batcheval as be
from batcheval.inference.ranks import (
    PERMUTATION_MAX_DF,
    friedman_tests,
    friedman_with_method,
    nemenyi_cd,
    wilcoxon_pairs,
)
from batcheval.kernels import ranks as rank_kernels

ALPHAS = (0.01, 0.05)


def _rate(hits: float, reps: int) -> str:
    p = hits / reps
    return f"{p:.4f} ± {np.sqrt(p * (1 - p) / reps):.4f}"


def _rates(p: np.ndarray) -> list[str]:
    """Rejection rates at each level of ``ALPHAS`` (a NaN p-value never rejects)."""
    return [_rate(float(np.sum(p < a)), len(p)) for a in ALPHAS]


# ---------------------------------------------------------------------------------------------- 5×2cv


def five_by_two_differences(
    n: int, prevalence: float, reps: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Per-fold accuracy and informedness of classifier 0 minus classifier 1: ``[reps, 5, 2]`` each."""
    pos = round(prevalence * n)
    y = np.r_[np.ones(pos), np.zeros(n - pos)]
    shared = rng.normal(size=(reps, 1, n))
    x = y + np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=(reps, 2, n))
    out = {"accuracy": np.empty((reps, 5, 2)), "informedness": np.empty((reps, 5, 2))}
    acc = np.empty((reps, 2, 5, 2))
    inf = np.empty((reps, 2, 5, 2))
    for r in range(5):
        u = rng.random((reps, n))
        # stratified 2-fold split: the first half (by a random key) of each class is fold 0
        fold = np.empty((reps, n), dtype=bool)
        for lo, hi in ((0, pos), (pos, n)):
            rank = np.argsort(np.argsort(u[:, lo:hi], axis=1), axis=1)
            fold[:, lo:hi] = rank >= (hi - lo) // 2
        for test in (0, 1):
            train = (fold == bool(1 - test))[:, None, :]  # [reps, 1, n]
            tst = ~train
            m1 = (x * (train & (y == 1))).sum(-1) / (train & (y == 1)).sum(-1)
            m0 = (x * (train & (y == 0))).sum(-1) / (train & (y == 0)).sum(-1)
            pred = x > ((m1 + m0) / 2)[..., None]
            hit = pred == (y == 1)
            acc[:, :, r, test] = (hit & tst).sum(-1) / tst.sum(-1)
            tpr = (pred & tst & (y == 1)).sum(-1) / (tst & (y == 1)).sum(-1)
            tnr = (~pred & tst & (y == 0)).sum(-1) / (tst & (y == 0)).sum(-1)
            inf[:, :, r, test] = tpr + tnr - 1
    out["accuracy"] = acc[:, 0] - acc[:, 1]
    out["informedness"] = inf[:, 0] - inf[:, 1]
    return out


def compare_null(diffs: np.ndarray, test: str) -> np.ndarray:
    """``be.compare`` p-values of every replicate's fold differences ``[reps, 5, 2]`` (each replicate a
    run against a reference run of zeros, so the test sees exactly these differences)."""
    reps = diffs.shape[0]
    values = np.vstack([np.zeros((1, 10)), diffs.reshape(reps, 10)])
    df = pl.DataFrame({
        "run": np.repeat(np.arange(reps + 1), 10), "repeat": np.tile(np.repeat(np.arange(5), 2), reps + 1),
        "fold": np.tile(np.arange(2), 5 * (reps + 1)), "m": values.reshape(-1),
    })  # fmt: skip
    out = be.compare(df, repeat="repeat", measure="m", reference=0, test=test)  # type: ignore[arg-type]
    return out["p_value"].to_numpy()


# ---------------------------------------------------------------------------------- Friedman and friends


def null_scores(reps: int, k: int, n: int, ties: bool, rng: np.random.Generator) -> np.ndarray:
    """``x[rep, method, dataset]`` of k exchangeable methods: N(0, 1), or accuracies on 30 examples."""
    if not ties:
        return rng.normal(size=(reps, k, n))
    p = rng.uniform(0.6, 0.95, size=(reps, 1, n))
    return rng.binomial(30, np.broadcast_to(p, (reps, k, n))) / 30.0


def rank_null(x: np.ndarray, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Per replicate, whether each of ``rank_methods``' level-α claims rejects (``x[rep, k, N]``)."""
    reps, k, n = x.shape
    mean_rank, _, p_chi2, _, p_f = friedman_tests(x)
    _, _, tail_chi2, _, tail_f = friedman_tests(x, permutation_max_df=0)  # the approximations
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    spread = mean_rank.max(axis=1) - mean_rank.min(axis=1)
    m = k * (k - 1) // 2
    # Holm rejects something exactly when its first step does: the smallest p-value times the count
    p_min_pair = 2.0 * special.ndtr(-spread / se)
    p_min_control = 2.0 * special.ndtr(-np.abs(mean_rank[:, 1:] - mean_rank[:, :1]).max(axis=1) / se)
    ia, ib = np.triu_indices(k, 1)
    a = (np.arange(reps)[:, None] * k + ia[None, :]).reshape(-1)
    b = (np.arange(reps)[:, None] * k + ib[None, :]).reshape(-1)
    _, p_w = wilcoxon_pairs(x.reshape(reps * k, n), a, b)
    return {
        "friedman": p_chi2 < alpha,
        "iman_davenport": p_f < alpha,
        "chi2_tail": tail_chi2 < alpha,
        "f_tail": tail_f < alpha,
        "nemenyi": spread >= nemenyi_cd(k, n, alpha),
        "holm_pairs": np.minimum(m * p_min_pair, 1.0) < alpha,
        "holm_control": np.minimum((k - 1) * p_min_control, 1.0) < alpha,
        "wilcoxon_holm": np.minimum(m * p_w.reshape(reps, m).min(axis=1), 1.0) < alpha,
    }


def exact_k3_sizes(n: int, alpha: float) -> dict[str, float]:
    """Exact null rejection rates of Friedman χ², Iman–Davenport F (their tails), the exact
    permutation p-value (``permutation``: P(Σ R_j² ≥ observed) under the same distribution) and
    Nemenyi for k = 3 methods without ties: the rank sums (R_1, R_2) over N datasets, each one of
    the 3! orders with equal probability, by convolution (no Monte-Carlo error)."""
    from itertools import permutations

    from scipy import stats

    top = 3 * n
    dist = np.zeros((top + 1, top + 1))
    dist[0, 0] = 1.0
    for _ in range(n):
        new = np.zeros_like(dist)
        for r1, r2, _r3 in permutations((1, 2, 3)):
            new[r1:, r2:] += dist[: top + 1 - r1, : top + 1 - r2] / 6.0
        dist = new
    r1, r2 = np.nonzero(dist)
    prob = dist[r1, r2]
    mean = np.stack([r1, r2, 6 * n - r1 - r2]).astype(float) / n
    chi2 = 12.0 * n / 12.0 * (np.sum(mean**2, axis=0) - 3 * 16 / 4.0)
    with np.errstate(divide="ignore"):
        f = np.where(2 * n - chi2 > 0, (n - 1) * chi2 / np.maximum(2 * n - chi2, 1e-300), np.inf)
    p_f = np.where(np.isfinite(f), stats.f.sf(np.where(np.isfinite(f), f, 0.0), 2, 2 * (n - 1)), 0.0)
    spread = mean.max(axis=0) - mean.min(axis=0)
    ss = r1 * r1 + r2 * r2 + (6 * n - r1 - r2) ** 2  # Σ R_j², integers
    order = np.argsort(-ss, kind="stable")
    tail = np.cumsum(prob[order])  # P(S ≥ s) for each point, ties of s given their full mass
    _, first = np.unique(-ss[order], return_index=True)
    last = np.r_[first[1:], len(order)] - 1
    p_perm = np.empty(len(ss))
    p_perm[order] = np.repeat(tail[last], np.diff(np.r_[first, len(order)]))
    return {
        "friedman": float(prob[stats.chi2.sf(chi2, 2) < alpha].sum()),
        "permutation": float(prob[p_perm < alpha].sum()),
        "iman_davenport": float(prob[p_f < alpha].sum()),
        # a hair below the CD counts as reaching it: rank_methods compares floating mean ranks
        "nemenyi": float(prob[spread >= nemenyi_cd(3, n, alpha) - 1e-12].sum()),
    }


def check_against_rank_methods(x: np.ndarray, rejects: dict[str, np.ndarray], alpha: float) -> None:
    """The stacked statistics are ``be.rank_methods``' own: compare on the first replicates."""
    from batcheval.inference.adjust import adjust

    _, k, n = x.shape
    for g in range(x.shape[0]):
        df = pl.DataFrame({
            "method": np.tile(np.arange(k), n), "dataset": np.repeat(np.arange(n), k),
            "score": x[g].T.reshape(-1),
        })  # fmt: skip
        res = be.rank_methods(df, alpha=alpha, control=0)
        got = {
            "friedman": res.friedman_p < alpha,
            "iman_davenport": res.iman_davenport_p < alpha,
            "nemenyi": bool(res.pairwise["nemenyi_different"].any()),
            "holm_pairs": bool((res.pairwise["p_holm"] < alpha).any()),
            "holm_control": bool((res.control["p_holm"] < alpha).any()),  # type: ignore[index]
            "wilcoxon_holm": bool((adjust(res.pairwise["p_wilcoxon"], "holm") < alpha).any()),
        }
        for name, value in got.items():
            if value != bool(rejects[name][g]):
                raise AssertionError(
                    f"replicate {g}, k={k}, N={n}: {name} {value} vs stacked {rejects[name][g]}"
                )


# ------------------------------------------------------------------------------------------- Wilcoxon


def wilcoxon_null(n: int, examples: int | None, reps: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """For ``reps`` null pairs over N datasets: ``wilcoxon_pairs``' p-values (``p``), the p-values the
    library gave before it took scipy's sign-flip distribution for N ≤ 13 with ties or zeros
    (``former``: the normal approximation there), and whether each pair has a tie or a zero
    (``tied``). Scores are N(0, 1) (``examples=None``) or accuracies on ``examples`` test examples."""
    if examples is None:
        x = rng.normal(size=(2 * reps, n))
    else:
        p_true = np.repeat(rng.uniform(0.6, 0.95, size=(reps, n)), 2, axis=0)
        x = rng.binomial(examples, p_true) / examples
    a, b = np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2)
    _, p = wilcoxon_pairs(x, a, b)
    r_plus, r_minus, tie = np.empty(reps), np.empty(reps), np.empty(reps)
    count = np.empty(reps, dtype=np.int64)
    rank_kernels.signed_rank_sums(x, a, b, r_plus, r_minus, count, tie)
    var = (count * (count + 1) * (2 * count + 1) - tie / 2.0) / 24.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - count * (count + 1) / 4.0) / np.sqrt(var)
    tied = (count < n) | (tie > 0)
    former = np.where(tied, 2.0 * special.ndtr(-np.abs(z)), p)  # untied pairs were exact already
    return {"p": p, "former": former, "tied": tied}


def wilcoxon_pattern_size(magnitudes: np.ndarray, alpha: float) -> tuple[float, float]:
    """Exact null size, given the pattern of |differences| (zeros included), of ``wilcoxon_pairs``
    and of the former normal approximation: the share of the 2^m equally likely sign vectors of the
    m non-zero differences that each rejects at ``alpha`` (no Monte-Carlo error)."""
    nonzero = np.flatnonzero(magnitudes)
    m = len(nonzero)
    signs = 1.0 - 2.0 * ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1)
    d = np.zeros((2**m, len(magnitudes)))
    d[:, nonzero] = signs * magnitudes[nonzero]
    x = np.vstack([d, np.zeros((1, len(magnitudes)))])  # every row against a row of zeros
    a, b = np.arange(2**m), np.full(2**m, 2**m)
    _, p = wilcoxon_pairs(x, a, b)
    r_plus, r_minus, tie = np.empty(2**m), np.empty(2**m), np.empty(2**m)
    count = np.empty(2**m, dtype=np.int64)
    rank_kernels.signed_rank_sums(x, a, b, r_plus, r_minus, count, tie)
    var = (count * (count + 1) * (2 * count + 1) - tie / 2.0) / 24.0
    z = (r_plus - count * (count + 1) / 4.0) / np.sqrt(var)
    return float(np.mean(p < alpha)), float(np.mean(2.0 * special.ndtr(-np.abs(z)) < alpha))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few replicates: a smoke test")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    reps_cv, reps_rank, reps_w = (200, 200, 1000) if args.quick else (4000, 4000, 20000)
    t0, c0 = time.perf_counter(), time.process_time()

    print(f"## be.compare: 5×2cv under the null, two equally good classifiers ({reps_cv:,} datasets)\n")
    print("| n | positives | measure | 5×2cv t, α = 0.01 | 5×2cv t, α = 0.05 | corrected t, α = 0.01 "
          "| corrected t, α = 0.05 | undefined t |")  # fmt: skip
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for n in (40, 100, 400):
        for prevalence in (0.5, 0.1):
            diffs = five_by_two_differences(n, prevalence, reps_cv, rng)
            for measure, d in diffs.items():
                p5 = compare_null(d, "5x2cv")
                pc = compare_null(d, "corrected_t")
                nan = int(np.isnan(p5).sum())
                print(f"| {n} | {round(prevalence * n)} | {measure} | {' | '.join(_rates(p5))} | "
                      f"{' | '.join(_rates(pc))} | {nan} |")  # fmt: skip

    names = ["friedman", "iman_davenport", "chi2_tail", "f_tail", "nemenyi", "holm_pairs", "holm_control",
             "wilcoxon_holm"]  # fmt: skip
    for alpha in ALPHAS:
        print(f"\n## be.rank_methods under the null, α = {alpha} ({reps_rank:,} tables per row)\n")
        print("| ties | k | N | p-value | Friedman χ² | Iman–Davenport F | χ² tail | F tail "
              "| Nemenyi (any pair) | Holm, all pairs | Holm vs control | Wilcoxon + Holm |")  # fmt: skip
        print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for ties in (False, True):
            for k in (3, 5, 10):
                for n in (5, 10, 20, 50):
                    x = null_scores(reps_rank, k, n, ties, rng)
                    rejects = rank_null(x, alpha)
                    check_against_rank_methods(x[:3], {m: v[:3] for m, v in rejects.items()}, alpha)
                    cells = [_rate(float(rejects[m].sum()), reps_rank) for m in names]
                    how = "permutation" if (k - 1) * (n - 1) <= PERMUTATION_MAX_DF else "χ², F tails"
                    print(f"| {'yes' if ties else 'no'} | {k} | {n} | {how} | {' | '.join(cells)} |")

    reps_perm = 500 if args.quick else 10000
    print(f"\n## Friedman / Iman–Davenport permutation p-value with ties ({reps_perm:,} tables per row)\n")
    print("| k | N | exact p-values | permutation, α = 0.01 | permutation, α = 0.05 | F tail, α = 0.01 "
          "| F tail, α = 0.05 |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    perm_rng = np.random.default_rng(args.seed + 1)  # its own stream: the tables below stay as they were
    for k, n in ((3, 5), (3, 20), (5, 5), (10, 5)):
        x = null_scores(reps_perm, k, n, True, perm_rng)
        _, _, _, _, p_f, how = friedman_with_method(x)
        _, _, _, _, tail_f = friedman_tests(x, permutation_max_df=0)
        print(f"| {k} | {n} | {np.mean(how == 'exact'):.3f} | {' | '.join(_rates(p_f))} "
              f"| {' | '.join(_rates(tail_f))} |")  # fmt: skip

    print("\n## be.rank_methods, k = 3 without ties: exact sizes (all (3!)^N rank orders)\n")
    print("| N | χ² tail, α = 0.01 | F tail, α = 0.01 | permutation, α = 0.01 | Nemenyi, α = 0.01 "
          "| χ² tail, α = 0.05 | F tail, α = 0.05 | permutation, α = 0.05 | Nemenyi, α = 0.05 |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    names_k3 = ("friedman", "iman_davenport", "permutation", "nemenyi")
    for n in (5, 10, 20, 50):
        cells = [exact_k3_sizes(n, a) for a in ALPHAS]
        row = [f"{c[m]:.4f}" for c in cells for m in names_k3]
        print(f"| {n} | {' | '.join(row)} |")

    print(f"\n## Wilcoxon signed-rank, one pair under the null ({reps_w:,} pairs per row)\n")
    print("| scores | N | pairs with ties or zeros | p_wilcoxon, α = 0.01 | p_wilcoxon, α = 0.05 "
          "| former p, α = 0.01 | former p, α = 0.05 | former p, α = 0.05, tied pairs only |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, examples in (("continuous", None), ("accuracy on 200", 200), ("accuracy on 30", 30)):
        for n in (5, 8, 10, 13, 20, 50):
            w = wilcoxon_null(n, examples, reps_w, rng)
            tied = w["tied"]
            only = _rate(float(np.sum(w["former"][tied] < 0.05)), int(tied.sum())) if tied.any() else "—"
            print(f"| {label} | {n} | {tied.mean():.3f} | {' | '.join(_rates(w['p']))} | "
                  f"{' | '.join(_rates(w['former']))} | {only} |")  # fmt: skip
    print("\n## Wilcoxon signed-rank: exact size given the pattern of ties and zeros (all sign flips)\n")
    print("| N | pattern | p_wilcoxon, α = 0.01 | p_wilcoxon, α = 0.05 | former p, α = 0.01 "
          "| former p, α = 0.05 |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    for n in range(5, 14):
        patterns = {
            "one zero": np.arange(n, dtype=float),
            "one tied pair": np.r_[1.0, np.arange(1, n, dtype=float)],
            "two zeros, a tied triple": np.r_[0.0, 0.0, 1.0, 1.0, 1.0, np.arange(2, n - 3, dtype=float)],
        }
        for name, mags in patterns.items():
            sizes = [wilcoxon_pattern_size(mags, a) for a in ALPHAS]
            (new01, old01), (new05, old05) = sizes
            print(f"| {n} | {name} | {new01:.4f} | {new05:.4f} | {old01:.4f} | {old05:.4f} |")
    print(
        f"\n(seed {args.seed}; {time.process_time() - c0:.0f} s CPU, {time.perf_counter() - t0:.0f} s wall)"
    )


if __name__ == "__main__":
    main()
