"""Many groups with repeated tables: the p-values, computed once per distinct table, against scipy
and against the same tables measured one group at a time."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from batcheval.kernels.count import distinct_small_tables, distinct_tables
from batcheval.measures import compute
from batcheval.measures.compute import binary_cells
from tests.reference import chance as ref

P_VALUES = ["p_fisher", "p_informedness", "p_markedness", "p_chi2", "p_g2", "p_chi2_kb", "alpha_sbb"]


def _repeated_tables(groups: int, n: int, seed: int) -> np.ndarray:
    """Tables of n examples each: few enough distinct ones that the shared path is taken."""
    rng = np.random.default_rng(seed)
    cells = rng.multinomial(n, [0.4, 0.1, 0.1, 0.4], size=groups)  # tn fp fn tp
    return cells.reshape(groups, 2, 2).astype(np.int64)


def test_distinct_tables_index_every_group_to_its_own_cells():
    counts = _repeated_tables(20_000, 30, 1)
    cells = binary_cells(counts)
    ids, first = distinct_tables(*cells)
    flat = counts.reshape(len(counts), 4)
    assert len(first) == len(np.unique(flat, axis=0))
    np.testing.assert_array_equal(flat[first][ids], flat)


@pytest.mark.parametrize("top", [25, 3_000, 65_535, 65_536])
def test_distinct_small_tables_give_the_general_kernels_ids_and_numpys_unique_tables(top):
    """Packed keys of cells below 2¹⁶: the general kernel's ids and first (first occurrences in
    group order, as numpy's unique with return_index finds them); a cell of 2¹⁶ sends the
    tables back to the general kernel."""
    rng = np.random.default_rng(top)
    counts = _repeated_tables(30_001, 25, 1)
    counts[::11] = 0
    counts[5_000:5_300] = rng.integers(0, top + 1, (300, 2, 2))  # tables seen once, up to top
    counts[5_000, 1, 0] = top
    cells = binary_cells(counts)
    ids, first, small = distinct_small_tables(*cells)
    assert small == (counts.max() < 2**16)
    if not small:
        return
    flat = counts.reshape(len(counts), 4)
    _, firsts = np.unique(flat, axis=0, return_index=True)
    np.testing.assert_array_equal(first, np.sort(firsts))
    np.testing.assert_array_equal(flat[first][ids], flat)
    general_ids, general_first = distinct_tables(*cells)
    np.testing.assert_array_equal(ids, general_ids)
    np.testing.assert_array_equal(first, general_first)


@pytest.mark.parametrize("late_big", [False, True])
def test_distinct_small_tables_past_the_first_tables_growth(late_big):
    """More distinct tables than the first hash table holds half full (2¹⁴ of its 2¹⁵ slots), so
    it grows (three times here): ids and first stay numpy's first occurrences; a cell of 2¹⁶ found only
    after the growth still sends the tables back to the general kernel."""
    rng = np.random.default_rng(11)
    counts = rng.integers(0, 40, (120_000, 2, 2))
    counts[rng.random(len(counts)) < 0.3] = counts[7]  # repeats among them
    if late_big:
        counts[100_000, 0, 1] = 2**16
    cells = binary_cells(counts)
    ids, first, small = distinct_small_tables(*cells)
    assert small != late_big
    if late_big:
        return
    flat = counts.reshape(len(counts), 4)
    unique, firsts = np.unique(flat, axis=0, return_index=True)
    assert len(unique) > 4 * 2**14
    np.testing.assert_array_equal(first, np.sort(firsts))
    np.testing.assert_array_equal(flat[first][ids], flat)


def test_every_measure_keeps_its_bits_between_the_two_shares_of_distinct_tables():
    """Between a quarter and three quarters of the tables distinct, the tests and g2 are shared
    but the other point measures are computed for every group; below a quarter, every one is
    shared. Both give each group the bits of measuring it alone."""
    from batcheval.measures import BINARY_MEASURES

    rng = np.random.default_rng(8)
    names = list(BINARY_MEASURES)
    for n_big, lo, hi in ((500, 0.0, 0.25), (4_000, 0.25, 0.75)):  # of 10k tables, distinct big ones
        counts = rng.multinomial(40, [0.3, 0.2, 0.2, 0.3], size=10_000)
        counts[:n_big] = rng.multinomial(3_000, [0.3, 0.2, 0.2, 0.3], size=n_big)
        counts = counts.reshape(-1, 2, 2).astype(np.int64)
        share = len(np.unique(counts.reshape(-1, 4), axis=0)) / len(counts)
        assert lo < share < hi, share
        got = compute(counts, names, beta=0.5)
        for g in rng.choice(len(counts), 30, replace=False):
            alone = compute(counts[g : g + 1], names, beta=0.5)
            for name in names:
                np.testing.assert_array_equal(got[name][g], alone[name][0], err_msg=f"{name} of {g}")


def test_p_values_of_repeated_tables_agree_with_scipy_and_with_one_group_at_a_time():
    counts = _repeated_tables(20_000, 30, 2)
    got = compute(counts, P_VALUES)
    rng = np.random.default_rng(3)
    for g in rng.choice(len(counts), 60, replace=False):
        (tn, fp), (fn, tp) = counts[g].tolist()
        fisher = stats.fisher_exact([[tp, fp], [fn, tn]], alternative="greater").pvalue
        assert got["p_fisher"][g] == pytest.approx(fisher, rel=1e-12)
        midp = ref.midp_2x2(tp, tp + fp + fn + tn, tp + fn, tp + fp)
        assert got["p_informedness"][g] == pytest.approx(midp, rel=1e-12)
        alone = compute(counts[g : g + 1], P_VALUES)  # one table: no sharing
        for name in P_VALUES:
            assert got[name][g] == alone[name][0], name


def test_tables_that_do_not_repeat_give_the_same_values_as_one_group_at_a_time():
    rng = np.random.default_rng(4)
    n = rng.integers(0, 400, 5_000)
    counts = np.stack([rng.multinomial(int(k), [0.3, 0.2, 0.2, 0.3]) for k in n]).reshape(-1, 2, 2)
    got = compute(counts, P_VALUES)
    for g in rng.choice(len(counts), 40, replace=False):
        alone = compute(counts[g : g + 1], P_VALUES)
        for name in P_VALUES:
            np.testing.assert_array_equal(got[name][g], alone[name][0])


def test_g2_and_every_default_measure_of_repeated_tables_equal_one_group_at_a_time():
    """g2 is computed once per distinct table (and alpha_sbb from the distinct p-values); every
    default measure must keep the bits of measuring each group alone, and g2 is scipy's G-test."""
    counts = _repeated_tables(20_000, 40, 5)
    counts[::9] = 0  # empty tables: NaN statistics must be gathered as NaN
    counts[::13, 0, 1] = 0  # zero cells: the 0·log 0 terms
    got = compute(counts)
    rng = np.random.default_rng(6)
    for g in rng.choice(len(counts), 40, replace=False):
        alone = compute(counts[g : g + 1])
        for name, values in got.items():
            np.testing.assert_array_equal(values[g], alone[name][0], err_msg=name)
        table = counts[g]
        if table.sum() and (table.sum(axis=0) > 0).all() and (table.sum(axis=1) > 0).all():
            g2 = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")[0]
            assert got["g2"][g] == pytest.approx(g2, rel=1e-10)


def test_exact_tests_on_every_thread_give_the_serial_bits_and_scipy(monkeypatch):
    """Fisher's and the chance test (and the distinct tables' one-pass kernels that run both, with
    the point measures and χ² tails in ``distinct_pass_kernel``) run their parallel kernel from
    their own ``serial_below`` tables on (below the element count at which other parallel kernels
    switch)."""
    from batcheval.kernels import chance, fisher, pvalues

    counts = _repeated_tables(20_000, 30, 7)
    kernels = (
        fisher.fisher_greater,
        chance.binary_chance,
        pvalues.distinct_tests,
        pvalues.distinct_pass_kernel,
    )
    for kernel in kernels:
        monkeypatch.setattr(kernel, "serial_below", 10**9)
    serial = compute(counts, P_VALUES)
    for kernel in kernels:
        monkeypatch.setattr(kernel, "serial_below", 1)
    threaded = compute(counts, P_VALUES)
    for name in P_VALUES:
        np.testing.assert_array_equal(threaded[name], serial[name], err_msg=name)
    for g in np.random.default_rng(8).choice(len(counts), 30, replace=False):
        (tn, fp), (fn, tp) = counts[g].tolist()
        fisher = stats.fisher_exact([[tp, fp], [fn, tn]], alternative="greater").pvalue
        assert threaded["p_fisher"][g] == pytest.approx(fisher, rel=1e-12)


def _awkward_repeated_tables(seed: int) -> np.ndarray:
    """Repeated small tables with the edge cases mixed in: empty tables, empty margins, one cell
    filled, and a few counts past the exact determinant's limit (3e9) and past 2^31."""
    counts = _repeated_tables(12_000, 50, seed)
    rng = np.random.default_rng(seed + 1)
    counts[::11] = 0
    counts[::17, 1, :] = 0  # no positives: a margin is empty
    counts[::19, :, 0] = 0  # nothing predicted negative
    counts[::23] = 0
    counts[::23, 1, 1] = rng.integers(1, 5, len(counts[::23]))  # only tp
    big = rng.choice(len(counts), 12, replace=False)
    counts[big[:6]] = [[[3_000_000_011, 2], [5, 4_000_000_000]]]
    counts[big[6:]] = [[[1_000_000_000, 999_999_000], [1_000_000_200, 1_000_000_300]]]
    return counts


def test_every_binary_measure_of_repeated_awkward_tables_has_the_bits_of_each_table_alone():
    """The distinct tables' measures (the point measures' program and the one-pass kernel of
    Fisher and the chance test over the distinct tables) and their gathers against the kernels
    each group alone runs: every measure, ``f_beta`` too, bit for bit, including NaN, 0 and 1."""
    from batcheval.measures import BINARY_MEASURES

    counts = _awkward_repeated_tables(21)
    names = list(BINARY_MEASURES)
    got = compute(counts, names, beta=2.0)
    flat = counts.reshape(len(counts), 4)
    _, first = np.unique(flat, axis=0, return_index=True)
    assert len(first) < 0.75 * len(counts)  # the shared path is taken
    for g in first:
        alone = compute(counts[g : g + 1], names, beta=2.0)
        for name in names:
            np.testing.assert_array_equal(got[name][g], alone[name][0], err_msg=f"{name} of group {g}")


def test_p_values_of_repeated_awkward_tables_agree_with_scipy():
    counts = _awkward_repeated_tables(22)
    got = compute(counts, ["p_fisher", "p_informedness", "p_chi2", "p_g2"])
    flat = counts.reshape(len(counts), 4)
    _, first = np.unique(flat, axis=0, return_index=True)
    for g in first[:: max(1, len(first) // 80)]:
        (tn, fp), (fn, tp) = counts[g].tolist()
        n = tp + fp + fn + tn
        if n == 0:
            assert all(np.isnan(got[k][g]) for k in got)
            continue
        if n < 10**6:  # scipy's exact test enumerates the support
            fisher = stats.fisher_exact([[tp, fp], [fn, tn]], alternative="greater").pvalue
            assert got["p_fisher"][g] == pytest.approx(fisher, rel=1e-12, abs=1e-300)
            midp = ref.midp_2x2(tp, n, tp + fn, tp + fp)
            assert got["p_informedness"][g] == pytest.approx(midp, rel=1e-12)
        table = np.array([[tp, fp], [fn, tn]])
        if (table.sum(axis=0) > 0).all() and (table.sum(axis=1) > 0).all():
            chi2 = stats.chi2_contingency(table, correction=False)
            assert got["p_chi2"][g] == pytest.approx(chi2.pvalue, rel=1e-9, abs=1e-300)
            g2 = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
            assert got["p_g2"][g] == pytest.approx(g2.pvalue, rel=1e-9, abs=1e-300)


def test_fishers_table_of_stirling_terms_is_lgamma_less_stirlings_formula():
    """``stirlerr_table`` (the terms Fisher's pmf looks up) against 40-digit arithmetic."""
    import mpmath

    from batcheval.kernels.fisher import STIRLERR_TABLE_SIZE, stirlerr_table

    table = stirlerr_table(10**9)
    assert len(table) == STIRLERR_TABLE_SIZE
    assert len(stirlerr_table(7)) == 8
    mpmath.mp.dps = 40
    assert table[0] == 0.0
    # Loader's truncated series: a few 1e-14 relative (the pmf's error budget is ~1e-14)
    for k in (*range(1, 40), *range(40, STIRLERR_TABLE_SIZE, 7), STIRLERR_TABLE_SIZE - 1):
        m = mpmath.mpf(k)
        exact = mpmath.loggamma(m + 1) - (m + 0.5) * mpmath.log(m) + m - mpmath.log(2 * mpmath.pi) / 2
        assert table[k] == pytest.approx(float(exact), rel=5e-14)


def test_the_one_pass_kernels_chi2_tails_have_scipys_bits():
    """The χ² tails that :func:`~batcheval.kernels.pvalues.distinct_pass` takes inside its pass
    (scipy's compiled erfc) equal ``scipy.special.erfc(sqrt(x / 2))`` bit for bit, for the NaN
    statistics of empty tables and zero ones too."""
    from scipy import special

    from batcheval.kernels import binary, pvalues

    counts = _awkward_repeated_tables(3)
    counts[::7] = 0
    tp, fp, fn, tn = binary_cells(counts)
    first = np.arange(len(tp))
    stats = ["chi2", "g2", "chi2_kbm", "chi2_kb"]
    slots = np.full(len(binary.NAMES), -1)
    for row, name in enumerate(stats):
        slots[binary.NAMES.index(name)] = row
    out = np.empty((2 * len(stats), len(tp)))
    none = np.array([], dtype=np.int64)
    rows = np.arange(len(stats))
    pvalues.distinct_pass(tp, fp, fn, tn, first, binary.program(slots, 1.0), none, none, rows, rows + 4, out)
    x = out[:4]
    assert np.isnan(x).any() and (x == 0).any()
    want = special.erfc(np.sqrt(np.maximum(x, 0.0) / 2.0))
    assert out[4:].tobytes() == want.tobytes()
