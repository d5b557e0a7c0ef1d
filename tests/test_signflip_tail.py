"""The exact tail of the paired sign-flip test against enumeration with exact binomial weights."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from batcheval.kernels.signflip import two_binomial_tail


def tail_by_enumeration(a: int, b: int, wa: float, wb: float, t: float) -> float:
    """P(|wa(2X_a − a) + wb(2X_b − b)| ≥ t) for independent X ~ Bin(m, 1/2), every (x, y) counted."""
    total = Fraction(0)
    for x in range(a + 1):
        for y in range(b + 1):
            if abs(wa * (2 * x - a) + wb * (2 * y - b)) >= t:
                total += math.comb(a, x) * math.comb(b, y)
    return float(total / 2 ** (a + b))


CASES = [
    # (a, b, wa, wb, t): small tails, where 1 − cdf cancelled, and the lattice's extremes
    (3, 40, 0.01, 0.02, 0.02 * 40),
    (3, 40, 0.01, 0.02, 0.02 * 38),
    (0, 60, 0.0, 1 / 60, 1.0),
    (2, 57, 0.3, 1 / 57, 0.95),
    (5, 33, 0.05, 0.04, 1.3),
    (10, 10, 0.1, 0.1, 1.9),
    (1, 200, 0.2, 0.005, 0.9),
    (4, 9, 0.25, 0.125, 0.5),
]


@pytest.mark.parametrize(("a", "b", "wa", "wb", "t"), CASES)
def test_tail_equals_enumeration_to_relative_precision(a: int, b: int, wa: float, wb: float, t: float):
    out = np.empty(1)
    args = [np.array([v], dtype=np.float64) for v in (a, b, wa, wb, t)]
    two_binomial_tail(*args, out)
    expected = tail_by_enumeration(a, b, wa, wb, t)
    assert out[0] >= 0.0
    assert out[0] == pytest.approx(expected, rel=1e-9, abs=0.0)


def test_tails_are_never_negative_over_many_tables():
    rng = np.random.default_rng(7)
    n = 2000
    a = rng.integers(0, 8, n).astype(np.float64)
    b = rng.integers(1, 120, n).astype(np.float64)
    wa = rng.uniform(0.0, 0.5, n)
    wb = rng.uniform(0.001, 0.5, n)
    t = (wa * a + wb * b) * rng.uniform(0.5, 1.0, n) + 1e-12
    out = np.empty(n)
    two_binomial_tail(a, b, wa, wb, t, out)
    assert np.all((out >= 0.0) & (out <= 1.0))
    for g in range(0, n, 200):
        exp = tail_by_enumeration(int(a[g]), int(b[g]), wa[g], wb[g], t[g])
        assert out[g] == pytest.approx(exp, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("pos", [0, 1])
def test_binary_sign_flip_kernel_gives_the_numpy_bits(pos: int):
    """The kernel behind sign_flip_p for binary tables against the numpy version
    (tests/reference/sign_flip.py) per table, for every sign-flip measure, on random tables
    (exact tails and normal ones) and degenerate ones: the weights, statistic, normal tails,
    1s and NaNs bit for bit, and the exact tails, which the reference takes from scipy's
    binomial pmfs (no batcheval code), to float rounding."""
    from batcheval.inference import paired_se
    from tests.reference.sign_flip import binary_sign_flip

    rng = np.random.default_rng(11 + pos)
    joints = [np.zeros((3, 2, 2, 2), dtype=np.int64)]
    for n in (1, 3, 8, 40, 300, 5000):
        joints.append(rng.multinomial(n, rng.dirichlet(np.full(8, 0.5)), 400).reshape(-1, 2, 2, 2))
    joint = np.concatenate(joints)
    joint[:20, 0] = 0
    joint[20:40, 1] = 0
    discordant = joint[:, :, 0, 1].sum(axis=1) + joint[:, :, 1, 0].sum(axis=1)
    for measure in paired_se.SIGN_FLIP_MEASURES[2]:
        expected, exact = binary_sign_flip(joint, measure, pos)
        got = paired_se.sign_flip_p(joint, measure, pos)
        assert exact.sum() > 800, measure  # the exact tails are a good share of the tables
        np.testing.assert_array_equal(got[~exact].view(np.int64), expected[~exact].view(np.int64),
                                      err_msg=measure)  # fmt: skip
        # Both sides sum positive Bin(m, 1/2) probabilities of m = m_a + m_b discordant examples
        # (here at most 230), so float rounding bounds their gap by a small multiple of
        # (m + 2)·eps, below 1e-13 (seen: 2.25·(m + 2)·eps); 1e-12 is that with room, while any
        # real error in a tail (a term dropped, halved, or off by one lattice point) is > 1e-3.
        assert discordant[exact].max() * np.finfo(float).eps < 1e-13
        np.testing.assert_allclose(got[exact], expected[exact], rtol=1e-12, atol=0.0, err_msg=measure)


@pytest.mark.parametrize("pos", [0, 1])
def test_binary_sign_flip_kernel_repeats_two_binomial_tail_bits(pos: int):
    """batcheval against batcheval, not an independent check: the kernel's exact tails, read
    from Bin(m, 1/2) tables shared by every table of one discordant count, are bit for bit
    those of ``two_binomial_tail``, which builds each table's own (both are checked against
    independent sources above: enumeration and scipy's pmfs)."""
    from batcheval.inference import paired_se
    from tests.reference.sign_flip import binary_sign_flip

    rng = np.random.default_rng(11 + pos)
    joint = np.concatenate(
        [rng.multinomial(n, rng.dirichlet(np.full(8, 0.5)), 400).reshape(-1, 2, 2, 2) for n in (8, 40, 300)]
    )
    for measure in paired_se.SIGN_FLIP_MEASURES[2]:
        expected, _ = binary_sign_flip(joint, measure, pos, tails=two_binomial_tail)
        got = paired_se.sign_flip_p(joint, measure, pos)
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64), err_msg=measure)
