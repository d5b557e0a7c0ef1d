"""Many groups with repeated tables: the p-values, computed once per distinct table, against scipy
and against the same tables measured one group at a time."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from batcheval.kernels.count import distinct_tables
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
    """Fisher's and the chance test run their parallel kernel from their own ``serial_below``
    distinct tables on (below the element count at which other parallel kernels switch)."""
    from batcheval.kernels import chance, fisher

    counts = _repeated_tables(20_000, 30, 7)
    kernels = (fisher.fisher_greater, chance.binary_chance)
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
