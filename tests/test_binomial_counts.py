"""The public binomial intervals (wilson, modified_wilson, newcombe) refuse counts no binomial has.

Before, 12 successes in 10 trials, a negative count or NaN gave a NaN interval without a word, an
infinite number of trials gave [0, 0], and arrays of different lengths raised numpy's broadcast
error. Valid counts keep statsmodels' Wilson interval.
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from batcheval.errors import InvalidArgumentError
from batcheval.inference.intervals import modified_wilson, newcombe, wilson


@pytest.mark.parametrize(
    ("x", "m", "message"),
    [
        (
            [12],
            [10],
            "wilson: successes must not exceed trials, got successes=12.0 and trials=10.0 (element 0)",
        ),
        ([3, -1], [10, 10], "wilson: successes must be finite and non-negative, got -1.0 (element 1)"),
        ([3], [-5], "wilson: trials must be finite and non-negative, got -5.0 (element 0)"),
        ([np.nan], [10], "wilson: successes must be finite and non-negative, got nan (element 0)"),
        ([3], [np.inf], "wilson: trials must be finite and non-negative, got inf (element 0)"),
        (["a"], [3], "wilson: successes must be numbers, got array(['a'], dtype='<U1')"),
        (
            [1, 2],
            [3, 4, 5],
            "wilson: successes and trials must have the same shape or broadcast to one, got (2,) and (3,)",
        ),
        ([True], [3], "wilson: successes must be numbers, got array([ True])"),
    ],
)
def test_wilson_refuses_counts_no_binomial_has(x, m, message):
    with pytest.raises(InvalidArgumentError) as info:
        wilson(np.array(x), np.array(m))
    assert str(info.value) == message
    with pytest.raises(InvalidArgumentError, match=r"^modified_wilson: "):
        modified_wilson(np.array(x), np.array(m))


def test_newcombe_names_the_argument():
    with pytest.raises(InvalidArgumentError) as info:
        newcombe(np.array([12]), np.array([10]), np.array([1]), np.array([10]))
    assert str(info.value) == "newcombe: x1 must not exceed m1, got x1=12.0 and m1=10.0 (element 0)"
    with pytest.raises(InvalidArgumentError) as info:
        newcombe(np.array([1]), np.array([10]), np.array([1]), np.array([-10]))
    assert str(info.value) == "newcombe: m2 must be finite and non-negative, got -10.0 (element 0)"
    with pytest.raises(InvalidArgumentError) as info:
        newcombe(np.array([1, 2]), np.array([10, 10]), np.array([1, 2, 3]), np.array([10, 10, 10]))
    assert (
        str(info.value)
        == "newcombe: x1 and x2 must have the same shape or broadcast to one, got (2,) and (3,)"
    )


def test_valid_counts_keep_statsmodels_wilson():
    rng = np.random.default_rng(55)
    m = rng.integers(1, 200, size=300)
    x = rng.integers(0, m + 1)
    low, high = wilson(x, m, 0.9)
    ref_low, ref_high = proportion_confint(x, m, alpha=0.1, method="wilson")
    np.testing.assert_allclose(low, ref_low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(high, ref_high, rtol=0, atol=1e-12)
    # effective (fractional) counts and empty groups stay allowed: NaN where there are no trials
    low, high = wilson(np.array([2.5, 0.0]), np.array([7.25, 0.0]))
    ref = proportion_confint(2.5, 7.25, alpha=0.05, method="wilson")
    np.testing.assert_allclose([low[0], high[0]], ref, rtol=0, atol=1e-12)
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_broadcasting_and_python_integers_stay_as_numpy_takes_them():
    # the first version of the checks demanded one shape, refusing 10 trials for every count and
    # a 2-d array beside a row of trials, and refused an object array of Python integers
    low, high = wilson(np.array([3, 4]), 10)
    ref = proportion_confint(np.array([3, 4]), 10, alpha=0.05, method="wilson")
    np.testing.assert_allclose([low, high], ref, rtol=0, atol=1e-12)
    x, m = np.array([[3, 4], [5, 6]]), np.array([10, 12])
    low, high = modified_wilson(x, m)
    assert low.shape == (2, 2)
    np.testing.assert_array_equal(low, modified_wilson(x, np.broadcast_to(m, x.shape))[0])
    low, high = newcombe(np.array([3, 4]), np.array([10, 10]), 5, 10)
    assert [(low[i], high[i]) for i in range(2)] == [
        tuple(float(e[0]) for e in newcombe(np.array([x1]), np.array([10]), np.array([5]), np.array([10])))
        for x1 in (3, 4)
    ]
    low, high = wilson(np.array([3, 2**70], dtype=object), np.array([10, 2**71], dtype=object))
    ref = proportion_confint(np.array([3.0, 2.0**70]), np.array([10.0, 2.0**71]), method="wilson")
    np.testing.assert_allclose([low, high], ref, rtol=1e-12, atol=0)
