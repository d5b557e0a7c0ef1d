"""p_informedness and p_markedness (spec §3) against scipy and a permutation test; spec §4's evenness rule."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import batcheval as be
from batcheval.measures import compute
from tests.reference import chance as ref
from tests.reference.naive import multiclass_reference, sbb_alpha


def _all_2x2(n: int) -> np.ndarray:
    """Every 2×2 table of n examples, as counts[G, 2, 2]."""
    tables = [
        [[tn, fp], [fn, n - tn - fp - fn]]
        for tn in range(n + 1)
        for fp in range(n + 1 - tn)
        for fn in range(n + 1 - tn - fp)
    ]
    return np.array(tables, dtype=np.int64)


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_small_binary_tables_are_the_exact_mid_p_of_scipy_hypergeom(n):
    tables = _all_2x2(n)
    got = compute(tables, ["p_informedness", "p_markedness"])
    for g, t in enumerate(tables):
        (_, fp), (fn, tp) = t
        want = ref.midp_2x2(int(tp), n, int(tp + fn), int(tp + fp))
        assert got["p_informedness"][g] == pytest.approx(want, rel=1e-12), t.tolist()
        assert got["p_markedness"][g] == got["p_informedness"][g]


def test_random_binary_tables_below_the_exact_limit_agree_with_scipy():
    rng = np.random.default_rng(5)
    n = rng.integers(2, 400, size=300)
    probs = rng.dirichlet([1, 1, 1, 1], size=300)
    tables = np.array([rng.multinomial(m, p) for m, p in zip(n, probs, strict=True)]).reshape(-1, 2, 2)
    got = compute(tables, ["p_informedness"])["p_informedness"]
    checked = 0
    for g, t in enumerate(tables):
        (tn, fp), (fn, tp) = (int(v) for v in t[0]), (int(v) for v in t[1])
        m, rp, pp = tn + fp + fn + tp, tp + fn, tp + fp
        if (
            0 < rp < m
            and 0 < pp < m
            and rp * (m - rp) * pp * (m - pp) / (m * m * (m - 1)) <= ref.EXACT_VARIANCE
        ):
            assert got[g] == pytest.approx(ref.midp_2x2(tp, m, rp, pp), rel=1e-10)
            checked += 1
    assert checked > 100


def test_large_binary_tables_are_the_exact_mid_p_of_scipy_hypergeom():
    """A cell variance of some 1,000 (the z test before, off by 2-3 % at p = 1e-9 and up to 25 % at
    1e-33): the exact mid-p of scipy.stats.hypergeom, summed over the whole support."""
    rng = np.random.default_rng(6)
    tables = rng.multinomial(20_000, [0.3, 0.2, 0.2, 0.3], size=50).reshape(-1, 2, 2)
    tables[:10] = rng.multinomial(20_000, [0.4, 0.1, 0.1, 0.4], size=10).reshape(-1, 2, 2)  # tiny p-values
    got = compute(tables, ["p_informedness"])["p_informedness"]
    for g, ((tn, fp), (fn, tp)) in enumerate(tables):
        want = ref.midp_2x2(int(tp), int(tn + fp + fn + tp), int(tp + fn), int(tp + fp))
        assert got[g] == pytest.approx(want, rel=1e-9)


def test_binary_extremes_and_degenerate_tables():
    tables = np.array(
        [
            [[0, 0], [0, 0]],  # empty: NaN
            [[5, 0], [0, 0]],  # one class: nothing to test
            [[3, 4], [0, 0]],  # no real positives
            [[3, 0], [4, 0]],  # never predicts positive
            [[700, 300], [300, 700]],  # large (normal path): correlation 0.4
            [[30, 0], [0, 30]],  # perfect, small (exact path)
        ]
    )
    got = compute(tables, ["p_informedness", "alpha_sbb"])
    p = got["p_informedness"]
    assert math.isnan(p[0]) and math.isnan(got["alpha_sbb"][0])
    assert p[1:4].tolist() == [1.0, 1.0, 1.0]
    assert p[4] == pytest.approx(stats.chi2.sf(1999 * 0.4**2, 1), rel=1e-9)  # z² = (n − 1)·correlation²
    # perfect 30/30: only the two corner tables are as far from the mean; mid-p counts them half
    assert p[5] == pytest.approx(0.5 * 2 * stats.hypergeom.pmf(30, 60, 30, 30), rel=1e-10)
    assert got["alpha_sbb"].tolist()[1:] == pytest.approx([sbb_alpha(v) for v in p[1:]])


@pytest.mark.parametrize(
    ("p", "shown"),
    [(-0.1, "-0.1"), (1.5, "1.5"), (True, "True"), (None, "None"), ("0.05", "'0.05'"),
     ([0.05, 1.5], "1.5"), ([0.05, None], "None"), ([True, 0.1], "True"), (np.array([0.2, -1.0]), "-1.0")],
)  # fmt: skip
def test_alpha_sbb_refuses_what_is_not_a_p_value(p, shown):
    with pytest.raises(be.InvalidArgumentError) as err:
        be.alpha_sbb(p)
    assert str(err.value) == f"p must be p-values in [0, 1], got {shown}"


def test_alpha_sbb_of_p_values_nan_included():
    p = [0.0, 1e-300, 0.05, 1 / math.e, 1.0, float("nan")]
    got = be.alpha_sbb(p)
    assert got[:5].tolist() == pytest.approx([sbb_alpha(v) for v in p[:5]], rel=1e-12)
    assert math.isnan(got[5])
    assert be.alpha_sbb(np.array([[0.01]])).shape == (1, 1)


@pytest.mark.parametrize(
    "table",
    [
        [[20, 5, 3], [4, 25, 6], [2, 7, 28]],
        [[10, 2, 1, 0], [3, 12, 4, 1], [2, 3, 15, 2], [1, 0, 2, 9]],
        [[30, 2, 20], [1, 4, 0], [25, 3, 40]],  # informedness and markedness differ
        [[3, 1, 2], [0, 4, 1], [2, 2, 5]],
    ],
)
def test_multiclass_agrees_with_a_monte_carlo_permutation_test(table):
    rng = np.random.default_rng(11)
    n_perm = 4000
    got = compute(np.array([table]), ["p_informedness", "p_markedness"])
    for which in ("informedness", "markedness"):
        want = ref.permutation_p(np.array(table), which, n_perm, rng)
        tolerance = 4 * math.sqrt(max(want * (1 - want), 1 / n_perm) / n_perm)
        assert got[f"p_{which}"][0] == pytest.approx(want, abs=tolerance), which


def test_multiclass_normal_test_uses_the_exact_permutation_variance():
    rng = np.random.default_rng(12)
    tables = rng.multinomial(300, np.outer([0.2, 0.3, 0.5], [0.4, 0.4, 0.2]).ravel(), size=40).reshape(
        -1, 3, 3
    )
    tables[:5] = rng.integers(7, 16, size=(5, 3, 3))  # above 60 examples: the z test
    got = compute(tables, ["p_informedness", "p_markedness"])
    for g, t in enumerate(tables):
        for which in ("informedness", "markedness"):
            assert got[f"p_{which}"][g] == pytest.approx(ref.chance_multiclass(t, which), rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_small_multiclass_tables_are_the_exact_permutation_mid_p(seed):
    """Up to 60 examples the z test is off by up to a third (and a 3×3 identity of n = 3 got 0.045,
    below the 1/6 any permutation test of it reaches): small tables are enumerated."""
    rng = np.random.default_rng(seed)
    tables = [np.eye(3, dtype=np.int64), np.eye(4, dtype=np.int64), 3 * np.eye(3, dtype=np.int64)]
    tables += [rng.integers(0, 4, size=(3, 3)) for _ in range(6)]
    tables += [rng.integers(0, 2, size=(4, 4)) for _ in range(2)]
    tables += [np.array([[5, 0, 0], [0, 0, 3], [1, 2, 0]]), np.array([[4, 1, 0], [2, 0, 0], [0, 0, 0]])]
    for t in tables:
        got = compute(t[None], ["p_informedness", "p_markedness"])
        for which in ("informedness", "markedness"):
            want = ref.chance_multiclass(t, which)  # the binary test when one cell varies
            assert got[f"p_{which}"][0] == pytest.approx(want, rel=1e-10, abs=1e-14), (t.tolist(), which)
    identity = compute(tables[0][None], ["p_informedness"])["p_informedness"][0]
    assert identity == pytest.approx(1 / 12)  # P(all 3 match) = 1/6, counted half


def _shuffles_used(p: float) -> int:
    """The documented stopping rule: blocks of 1,000 until 100 hits, at most 10,000."""
    return min(10_000, 1_000 * math.ceil(100 / max(p, 1e-9) / 1_000))


@pytest.mark.parametrize("shape", [(5, 20), (6, 30), (4, 60)])
def test_small_multiclass_tables_too_many_to_enumerate_agree_with_shuffles(shape):
    k, n = shape
    rng = np.random.default_rng(k * n)
    tables = []
    for quality in (0.0, 0.25, 0.5):
        y = rng.integers(0, k, n)
        tables.append(np.zeros((k, k), np.int64))
        np.add.at(tables[-1], (y, np.where(rng.random(n) < quality, y, rng.integers(0, k, n))), 1)
    got = compute(np.array(tables), ["p_informedness", "p_markedness"])
    n_perm = 40_000
    for g, t in enumerate(tables):
        for which in ("informedness", "markedness"):
            want = ref.permutation_p(t, which, n_perm, rng)
            p = max(want, 1 / n_perm)
            tolerance = 4 * math.sqrt(p * (1 - p) * (1 / n_perm + 1 / _shuffles_used(p)))
            assert got[f"p_{which}"][g] == pytest.approx(want, abs=tolerance), (t.tolist(), which)
            assert got[f"p_{which}"][g] > 0  # the observed table counts as a shuffle


def _half_identity_probability(size: int, k: int) -> float:
    """0.5 · (m!)^K / (mK)!, in exact integers: the permutation mid-p of m·I_K, the only table of its
    margins with B = 1 (no table reaches B = −1 for K ≥ 3: B ≥ −1/(K − 1))."""
    return float(Fraction(math.factorial(size) ** k, 2 * math.factorial(size * k)))


@pytest.mark.parametrize(("size", "k"), [(6, 4), (4, 5), (10, 6)])
def test_a_small_multiclass_table_far_from_chance_is_not_floored_by_its_shuffles(size, k):
    """Perfect classifiers of 20-60 examples got p = 0.5 / 10,001 from the shuffles, where the
    permutation mid-p (only the identity is as extreme) is 0.5 · (m!)^K / (mK)!: 2e-13 to 1e-43;
    then the z test's 1e-16 to 4e-66; now the exact mid-p."""
    t = size * np.eye(k, dtype=np.int64)
    got = compute(t[None], ["p_informedness", "p_markedness"])
    exact = _half_identity_probability(size, k)
    assert exact < 1e-11
    assert got["p_informedness"][0] == pytest.approx(exact, rel=1e-9)
    assert got["p_markedness"][0] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize(
    ("size", "k"),
    [(7, 3), (20, 3), (40, 3), (66, 3), (6, 4), (25, 4), (50, 4), (4, 5), (30, 5), (40, 5), (10, 6), (20, 6)],
)
def test_a_perfect_multiclass_table_is_never_below_its_permutation_mid_p(size, k):
    """The z test of a table far from chance fell far below any permutation mid-p (6·I₄: 9.8e-17
    where the exact mid-p is 2.2e-13; 20·I₆: 2e-131 for 1.6e-89). The p-value is now at least half
    the probability of the observed diagonal given the margins, which for m·I_K is the exact mid-p;
    the z test stays where it is above (20·I₃: 1.7e-27 against 8.6e-28)."""
    t = size * np.eye(k, dtype=np.int64)
    got = compute(t[None], ["p_informedness", "p_markedness"])
    exact = _half_identity_probability(size, k)
    for which in ("informedness", "markedness"):
        p = got[f"p_{which}"][0]
        assert p >= exact * (1 - 1e-9), which
        assert p == pytest.approx(max(exact, ref.z_multiclass(t, which)), rel=1e-9), which


def _enumerated(table: np.ndarray) -> tuple[dict[str, float], float]:
    """The permutation mid-p of B = 0 and M = 0 summed over every table with the margins (plain
    numpy, the statistics from the spec's definitions), and half the observed table's probability
    Π r_i! Π p_j! / (n! Π c_ij!) in exact integers."""
    t = np.asarray(table, dtype=np.int64)
    real, pred, n = t.sum(1), t.sum(0), int(t.sum())
    others = ref.tables_with_margins(real, pred)
    log_fact = np.array([math.lgamma(v + 1) for v in range(n + 1)])
    log_const = log_fact[real].sum() + log_fact[pred].sum() - log_fact[n]
    prob = np.exp(log_const - log_fact[others].sum(axis=(1, 2)))
    assert prob.sum() == pytest.approx(1.0, rel=1e-9)
    midp = {}
    for which in ("informedness", "markedness"):
        observed = abs(ref.bookmaker(t, which))
        d = np.abs(ref.bookmakers(others, which)) - observed
        tol = 1e-9 * (observed + 1.0)
        midp[which] = float(prob[d > tol].sum() + 0.5 * prob[np.abs(d) <= tol].sum())
    top = math.prod(math.factorial(int(v)) for v in (*real, *pred))
    bottom = math.factorial(n) * math.prod(math.factorial(int(v)) for v in t.ravel())
    return midp, float(Fraction(top, 2 * bottom))


@pytest.mark.parametrize(
    "table",
    [
        [[6, 0, 0], [0, 6, 0], [0, 0, 6]],  # 5.5e-9 from the z test, exact 2.9e-8
        [[9, 0, 0], [0, 8, 0], [0, 0, 7]],
        [[12, 1, 0], [0, 5, 0], [0, 1, 4]],  # each diagonal cell at min(r_k, p_k): B and M at their maximum
        [[10, 0, 0], [0, 6, 0], [0, 3, 2]],
        [[25, 0, 0], [0, 22, 3], [0, 0, 20]],
        [[5, 0, 2, 0], [0, 5, 0, 2], [0, 0, 5, 0], [0, 0, 0, 5]],  # three tables share the maximum
        [[5, 0, 1, 1], [0, 5, 1, 1], [0, 0, 5, 0], [0, 0, 0, 5]],
    ],
)
def test_a_small_table_at_its_maximum_is_never_below_the_enumerated_mid_p(table):
    """Tables far from chance above 12 examples keep the z test (shuffles could only give a floor),
    which fell below the permutation mid-p by up to 5x here. At the statistic's maximum given the
    margins, the tables tied with it are those with its diagonal, and their probability is the
    exact mid-p's floor: the p-value is at least the enumerated mid-p, and equal to it where the
    z test was below."""
    t = np.array(table, dtype=np.int64)
    assert int(t.sum()) > 12
    midp, half_pmf = _enumerated(t)
    got = compute(t[None], ["p_informedness", "p_markedness"])
    for which in ("informedness", "markedness"):
        p = got[f"p_{which}"][0]
        assert p >= midp[which] * (1 - 1e-9) and p >= half_pmf * (1 - 1e-9), which
        z = ref.z_multiclass(t, which)
        if z < midp[which]:
            assert p == pytest.approx(midp[which], rel=1e-9), which
        else:
            assert p == pytest.approx(z, rel=1e-9), which  # unchanged where it was not below


@pytest.mark.parametrize(
    "table",
    [
        [[9, 1, 0], [0, 8, 1], [1, 0, 7]],
        [[15, 2, 1], [1, 14, 0], [0, 1, 16]],
        [[29, 2, 1], [1, 29, 4], [3, 2, 28]],
        [[31, 0, 2, 0], [2, 27, 2, 2], [1, 1, 21, 1], [2, 2, 2, 23]],
        [[42, 2, 2, 2, 1], [1, 28, 2, 1, 2], [2, 3, 25, 2, 1], [2, 1, 1, 37, 1], [2, 1, 2, 1, 39]],
        [
            [14, 0, 0, 1, 1, 0], [0, 14, 0, 0, 1, 0], [1, 0, 15, 1, 0, 1],
            [2, 1, 2, 22, 1, 1], [2, 1, 0, 1, 24, 0], [1, 0, 1, 1, 0, 25],
        ],
    ],
)  # fmt: skip
def test_a_table_far_from_chance_is_never_below_half_its_own_probability(table):
    """The permutation mid-p counts the observed table half at least: p ≥ ½ · Π r! Π p! / (n! Π c!).
    The z test gave 7.1e-52 for the 4×4 table (floor 1.1e-46), 2.7e-112 for the 5×5 (4.7e-91)."""
    t = np.array(table, dtype=np.int64)
    real, pred, n = t.sum(1), t.sum(0), int(t.sum())
    top = math.prod(math.factorial(int(v)) for v in (*real, *pred))
    bottom = math.factorial(n) * math.prod(math.factorial(int(v)) for v in t.ravel())
    half_pmf = float(Fraction(top, 2 * bottom))
    got = compute(t[None], ["p_informedness", "p_markedness"])
    for which in ("informedness", "markedness"):
        p = got[f"p_{which}"][0]
        assert p >= half_pmf * (1 - 1e-9), which
        assert p == pytest.approx(max(half_pmf, ref.z_multiclass(t, which)), rel=1e-9), which


def test_a_small_multiclass_table_gets_the_same_p_value_wherever_it_is():
    """The shuffles start from one seed for every table: no dependence on neighbours or threads."""
    small = np.array([[3, 1, 2, 0, 1], [0, 4, 1, 1, 0], [2, 2, 5, 0, 1], [1, 0, 0, 3, 1], [0, 1, 1, 0, 2]])
    rng = np.random.default_rng(3)
    others = rng.multinomial(40, np.full(25, 0.04), size=2_999).reshape(-1, 5, 5)
    alone = compute(small[None], ["p_informedness", "p_markedness"])
    mixed = compute(np.concatenate([others[:1_500], small[None], others[1_500:]]), ["p_informedness"])
    assert mixed["p_informedness"][1_500] == alone["p_informedness"][0]
    many = compute(np.repeat(small[None], 3_000, axis=0), ["p_markedness"])  # past the serial cut
    assert np.all(many["p_markedness"] == alone["p_markedness"][0])


def test_multiclass_with_one_or_two_classes_present_is_the_binary_test():
    two = np.array([[[7, 3], [2, 8]]])
    inside = np.array([[[7, 0, 3], [0, 0, 0], [2, 0, 8]]])  # class 1 absent from both margins
    p2 = compute(two, ["p_informedness"])["p_informedness"][0]
    p3 = compute(inside, ["p_informedness", "p_markedness"])
    assert p3["p_informedness"][0] == pytest.approx(p2, rel=1e-14) == p3["p_markedness"][0]
    one = np.array([[[6, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]])
    got = compute(one)
    for name in ("p_informedness", "p_markedness", "p_chi2", "p_g2", "p_chi2_kb", "p_chi2_km", "p_chi2_kbm"):
        assert got[name][0] == 1.0 and math.isnan(got[name][1]), name


def test_one_class_gives_p_equal_to_one():
    # issue 21: K = 1 has dof 0; nothing to test, so p = 1 (NaN only for an empty group)
    got = compute(np.array([[[9]], [[0]]]))
    for name in ("p_informedness", "p_markedness", "p_chi2", "p_g2", "p_chi2_kb", "p_chi2_km", "p_chi2_kbm"):
        assert got[name][0] == 1.0 and math.isnan(got[name][1]), name


def test_negative_chi2_kbm_has_p_equal_to_one():
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 6, size=(4000, 3, 3))
    got = compute(tables, ["informedness", "markedness", "chi2_kbm", "p_chi2_kbm"])
    opposite = got["informedness"] * got["markedness"] < -1e-12
    assert opposite.sum() > 10
    assert (got["chi2_kbm"][opposite] < 0).all()
    assert (got["p_chi2_kbm"][opposite] == 1.0).all()  # spec §3; was NaN


def _spec_evenness(margin: np.ndarray) -> float:
    shares = margin[margin > 0] / margin.sum()
    values = np.concatenate([shares, 1 - shares])
    return 0.0 if (values == 0).any() else len(values) / np.sum(1 / values) / 2


def test_evenness_and_chi2_kb_count_only_present_classes():
    perfect = np.array([[[50, 0, 0], [0, 50, 0], [0, 0, 0]]])
    got = compute(perfect, ["evenness_real", "chi2_kb", "p_chi2_kb", "chi2_kbm"])
    # two present classes of share ½: evenness ¼, K_real = 2, chi2_kb = 2·100·1·¼ = 50 on
    # (K_real − 1)(K_pred − 1) = 1 dof (the absent third class adds none)
    assert got["evenness_real"][0] == pytest.approx(0.25)
    assert got["chi2_kb"][0] == pytest.approx(50.0)
    assert got["p_chi2_kb"][0] == pytest.approx(stats.chi2.sf(50.0, 1))
    assert got["p_chi2_kb"][0] < 1e-9  # was 1: one absent class made the evenness 0
    rng = np.random.default_rng(4)
    tables = rng.integers(0, 5, size=(300, 4, 4))
    tables[np.arange(300), rng.integers(0, 4, 300), :] = 0  # drop a real class from each table
    tables[::3, :, 2] = 0  # and predicted labels
    got = compute(
        tables, ["informedness", "markedness", "evenness_real", "evenness_predicted", "chi2_kb", "chi2_km"]
    )
    for g, t in enumerate(tables):
        n = t.sum()
        if n == 0:
            continue
        real, pred = t.sum(1), t.sum(0)
        assert got["evenness_real"][g] == pytest.approx(_spec_evenness(real), rel=1e-12, abs=1e-15)
        assert got["evenness_predicted"][g] == pytest.approx(_spec_evenness(pred), rel=1e-12, abs=1e-15)
        want_kb = (real > 0).sum() * n * got["informedness"][g] ** 2 * _spec_evenness(real)
        want_km = (pred > 0).sum() * n * got["markedness"][g] ** 2 * _spec_evenness(pred)
        assert got["chi2_kb"][g] == pytest.approx(want_kb, rel=1e-10, abs=1e-12)
        assert got["chi2_km"][g] == pytest.approx(want_km, rel=1e-10, abs=1e-12)
        r = multiclass_reference(t, chance=False)
        assert got["informedness"][g] == pytest.approx(r["informedness"], rel=1e-12, abs=1e-15)


def test_leaderboard_reports_p_informedness_by_default():
    rng = np.random.default_rng(8)
    import polars as pl

    n = 120
    label = rng.integers(0, 2, size=n)
    rows = []
    for run, flip in (("good", 0.1), ("chance", 0.5)):
        pred = np.where(rng.random(n) < flip, rng.integers(0, 2, size=n), label)
        rows.append(pl.DataFrame({"run": run, "label": label, "prediction": pred}))
    df = pl.concat(rows)
    board = be.leaderboard(df)
    assert "p_informedness" in board.columns
    for run in ("good", "chance"):
        part = df.filter(pl.col("run") == run)
        tp = int(((part["label"] == 1) & (part["prediction"] == 1)).sum())
        fp = int(((part["label"] == 0) & (part["prediction"] == 1)).sum())
        fn = int(((part["label"] == 1) & (part["prediction"] == 0)).sum())
        tn = n - tp - fp - fn
        got = board.filter(pl.col("run") == run)["p_informedness"].item()
        assert got == pytest.approx(ref.chance_2x2(tp, fp, fn, tn), rel=1e-10)


def _mp_midp_2x2(tp: int, n: int, rp: int, pp: int) -> float:
    """The two-sided hypergeometric mid-p (distance from the mean r·p/n) in mpmath at 50 digits:
    exact integers throughout, summed over the whole support (which is short for these tables)."""
    import mpmath as mp

    with mp.workdps(50):
        lo, hi = max(0, pp - (n - rp)), min(rp, pp)
        d = abs(n * tp - rp * pp)  # n·|x − mean|, an integer
        total = mp.mpf(0)
        for k in range(lo, hi + 1):
            dk = abs(n * k - rp * pp)
            if dk >= d:
                weight = mp.binomial(rp, k) * mp.binomial(n - rp, pp - k)
                total += weight if dk > d else weight / 2
        return float(total / mp.binomial(n, pp))


def test_binary_p_informedness_keeps_its_digits_at_a_billion_examples():
    """Skewed tables of n = 1e5 … 1e9 take the exact tail (a cell variance ≤ 100). Its first term
    came from lgamma(n + 1) − …, which cancels to n·u: 3e-9 relative at n = 1e6, 4e-6 at 1e9; and
    the saddle-point pmf took ln((n − x)/n) as log1p(−x/n), 2e-10 where the mirrored tail draws
    nearly all of n. Against mpmath: within 1e-13 at every n."""
    rng = np.random.default_rng(20)
    tables = []
    for n in [100_000, 1_000_000, 10**7, 10**9]:
        for _ in range(6):
            pp = int(rng.integers(3, 40))
            rp = int(rng.integers(n // 10, n // 2))
            mean = rp * pp / n
            tp = int(min(pp, max(0, round(mean + rng.normal() * 3 * math.sqrt(mean) + 0.5))))
            fp, fn = pp - tp, rp - tp
            tables.append([[n - tp - fp - fn, fp], [fn, tp]])
    counts = np.array(tables, dtype=np.int64)
    got = compute(counts, ["p_informedness"])["p_informedness"]
    for g, ((tn, fp), (fn, tp)) in enumerate(tables):
        n = tn + fp + fn + tp
        want = _mp_midp_2x2(tp, n, tp + fn, tp + fp)
        assert got[g] == pytest.approx(want, rel=1e-13), tables[g]


def test_a_multiclass_table_with_one_varying_cell_keeps_its_digits_at_a_billion_examples():
    """A 3-class table whose third class is empty is the binary test of its one varying cell; the
    multiclass kernel takes the saddle-point first term alike (its version chosen from K²·the
    largest cell), within 1e-13 of mpmath at n = 1e7 and 1e9."""
    tables, want = [], []
    for n, pp, rp, tp in [(10**7, 12, 3_000_000, 7), (10**9, 30, 400_000_000, 19), (10**9, 5, 10**8, 0)]:
        fp, fn = pp - tp, rp - tp
        tables.append([[n - tp - fp - fn, fp, 0], [fn, tp, 0], [0, 0, 0]])
        want.append(_mp_midp_2x2(tp, n, rp, pp))
    got = compute(np.array(tables, dtype=np.int64), ["p_informedness", "p_markedness"])
    for g, w in enumerate(want):
        assert got["p_informedness"][g] == pytest.approx(w, rel=1e-13), tables[g]
        assert got["p_markedness"][g] == got["p_informedness"][g]


def _scipy_midp_2x2(tp: int, n: int, rp: int, pp: int) -> float:
    """The two-sided mid-p of scipy.stats.hypergeom (its logpmf: the pmf takes seconds a cell at
    these sizes), the distances in Python's integers (n·k passes 2^63 here), over the first 500
    cells of the support: the tables below have a mean within a hundred of its start, and the
    cells beyond are below 1e-300."""
    ks = np.arange(max(0, pp - (n - rp)), min(rp, pp) + 1)[:500]
    pmf = np.exp(stats.hypergeom(n, rp, pp).logpmf(ks))
    d = abs(n * tp - rp * pp)
    dk = np.array([abs(n * int(k) - rp * pp) for k in ks], dtype=object)
    return float(pmf[dk > d].sum() + 0.5 * pmf[dk == d].sum())


def test_a_rare_class_of_billions_of_examples_gets_the_exact_mid_p_of_scipy_hypergeom():
    """A table of 2^31 examples or more took the normal tail even where the cell's variance is at
    most EXACT_VARIANCE: with one true positive expected and four seen, 0.0113 at 2e9 examples
    but 0.0027 at 3e9, and a far tail of 2.4e-13 was 0. (scipy's logpmf is within 1e-5 here.)"""
    cases = [
        (2_000_000_000, 44_721, 44_721, 4),
        (3_000_000_000, 54_772, 54_772, 4),
        (3_000_000_000, 54_772, 54_772, 0),
        (3_000_000_000, 50, 60, 2),
        (3_000_000_000, 3_000_000_000 - 50, 60, 58),  # the classes of the real margin swapped
    ]
    counts = np.array([[[n - r - p + x, p - x], [r - x, x]] for n, r, p, x in cases], dtype=np.int64)
    got = compute(counts, ["p_informedness", "alpha_sbb"])
    want = [_scipy_midp_2x2(x, n, r, p) for n, r, p, x in cases]
    assert got["p_informedness"] == pytest.approx(want, rel=2e-5)
    assert want[1] == pytest.approx(0.01132, rel=1e-3) and want[3] == pytest.approx(2.409e-13, rel=1e-3)
    assert np.all(got["alpha_sbb"] > 0)


def _huge_tables() -> tuple[list[tuple[int, int, int, int]], list[float]]:
    """``(n, r, p, x)`` of n in [2^31, 2^62) with a cell variance at most EXACT_VARIANCE, and their
    mid-p in mpmath: random ones, and ones whose doubled mean r·p/n is whole (a cell's mirror is a
    cell: the ties of the mid-p), each also with the classes of either margin or both swapped (the
    same table with its rows or columns swapped, so the same mid-p)."""
    rng = np.random.default_rng(31)
    cases = []
    while len(cases) < 24:
        n = int(2 ** rng.uniform(31, 61.99))
        r = int(rng.integers(1, 300))
        p = max(1, int(rng.uniform(0.05, 40) * n / r))
        mean, var = r * p / n, r * (n - r) / n * p * (n - p) / (n * (n - 1.0))
        if p < n and var <= ref.EXACT_VARIANCE:
            x = int(np.clip(round(mean + rng.normal() * 3 * math.sqrt(var)), 0, min(r, p)))
            cases.append((n, r, p, x))
    for n in (2**31, 3 * 2**40, 3 * 2**60):
        for r, twice_mean in ((2**8, 12), (2**8, 11), (2**5, 1)):
            p = twice_mean * n // (2 * r)
            cases += [(n, r, p, x) for x in (0, twice_mean // 2, (twice_mean + 1) // 2, twice_mean + 3)]
    turned, want = [], []
    for n, r, p, x in cases:
        turned += [(n, r, p, x), (n, n - r, p, p - x), (n, r, n - p, r - x), (n, n - r, n - p, n - r - p + x)]
        want += [_mp_midp_2x2(x, n, r, p)] * 4
    return turned, want


def test_tables_of_2_31_to_2_62_examples_are_the_exact_mid_p_of_mpmath():
    """The exact tail at any n below 2^62, in the binary and the multiclass kernels: within 1e-12 of
    mpmath, ties of the mid-p included, and for a margin near n, whose float (n − 5 is n above 2^53)
    the tail must not read."""
    cases, want = _huge_tables()
    counts = np.array([[[n - r - p + x, p - x], [r - x, x]] for n, r, p, x in cases], dtype=np.int64)
    three = np.zeros((len(cases), 3, 3), dtype=np.int64)
    three[:, :2, :2] = counts
    assert compute(counts, ["p_informedness"])["p_informedness"] == pytest.approx(want, rel=1e-12)
    assert compute(three, ["p_informedness"])["p_informedness"] == pytest.approx(want, rel=1e-12)
