"""A multiclass measure asked for alone has the bits it has among all of them.

The kernel skips the χ² and information sums (a division per cell, a logarithm per nonzero
cell) when no measure that needs them is asked for; every other measure must come out of
the same operations either way. The information measures themselves are checked against
scikit-learn here too, asked for alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from batcheval.measures import MULTICLASS_MEASURES, compute


def _tables(k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, (n, k, k))
    counts[::7, 1, :] = 0  # a real class absent
    counts[::5, :, 0] = 0  # a predicted class absent
    counts[::11] = 0  # empty groups
    counts[3] = np.diag(rng.integers(1, 9, k))  # a perfect classifier
    return counts


@pytest.mark.parametrize("k", [3, 5, 10])
def test_each_measure_alone_has_its_bits_among_all(k):
    counts = _tables(k, 300, seed=k)
    names = [m for m in MULTICLASS_MEASURES if not m.startswith("p_")]
    together = compute(counts, names)
    for name in names:
        alone = compute(counts, [name])[name]
        assert alone.tobytes() == together[name].tobytes(), name


def test_mutual_information_alone_is_scikit_learns():
    counts = _tables(4, 40, seed=1)
    got = compute(counts, ["mutual_information"])["mutual_information"]
    for g, table in enumerate(counts):
        if table.sum() == 0:
            assert np.isnan(got[g])
            continue
        # scikit-learn's mutual information in nats, of the contingency table itself
        nats = mutual_info_score(None, None, contingency=table)
        assert got[g] == pytest.approx(nats / np.log(2), abs=1e-12)
