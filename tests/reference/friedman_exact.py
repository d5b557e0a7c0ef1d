"""Exact permutation p-values of Friedman's χ² and the Iman–Davenport F by brute force: every
combination of the distinct orderings of each dataset's mid-ranks (equally likely under the null;
(k!)^N of them without ties), in exact rational arithmetic. Independent of batcheval: plain
itertools, fractions and the textbook formulas."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product


def mid_ranks(scores: list[float]) -> list[Fraction]:
    """Rank 1 = highest score; tied scores share the mean of their ranks."""
    out = []
    for s in scores:
        above = sum(1 for t in scores if t > s)
        tied = sum(1 for t in scores if t == s)
        out.append(Fraction(2 * above + tied + 1, 2))
    return out


def friedman_chi2_f(ranks: list[list[Fraction]]) -> tuple[Fraction | None, Fraction | None]:
    """Tie-corrected Friedman χ² (scipy's) and Iman–Davenport F of ``ranks[dataset][method]``;
    None for an undefined χ², and F None when it is infinite."""
    n, k = len(ranks), len(ranks[0])
    sums = [sum(r[j] for r in ranks) for j in range(k)]
    chi2 = Fraction(12, n * k * (k + 1)) * sum(s * s for s in sums) - 3 * n * (k + 1)
    ties = 0
    for r in ranks:
        for v in set(r):
            t = r.count(v)
            ties += t**3 - t
    c = 1 - Fraction(ties, n * k * (k * k - 1))
    if c == 0:
        return None, None
    chi2 /= c
    denom = n * (k - 1) - chi2
    return chi2, ((n - 1) * chi2 / denom if denom > 0 else None)


def exact_p(scores: list[list[float]]) -> tuple[Fraction, Fraction]:
    """``scores[dataset][method]``: the exact permutation p-values P(χ²* ≥ χ²) and P(F* ≥ F)
    (an infinite F is the largest value), over all (k!)^N orderings within datasets."""
    ranks = [mid_ranks(s) for s in scores]
    chi2, f = friedman_chi2_f(ranks)
    hits_chi2 = hits_f = total = 0
    # each distinct ordering of a dataset's mid-ranks is equally likely (each stands for Π t! of the
    # k! permutations), so enumerating the distinct ones weighs every pattern alike
    for pattern in product(*(sorted(set(permutations(r))) for r in ranks)):
        c2, ff = friedman_chi2_f([list(p) for p in pattern])
        total += 1
        hits_chi2 += c2 >= chi2
        hits_f += ff is None or (f is not None and ff >= f)
    return Fraction(hits_chi2, total), Fraction(hits_f, total)
