"""The χ² tails' thread pool: the same values as scipy, and a forked child that computes
tails after its parent did gets its own pool instead of waiting forever on the parent's."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from scipy import stats

from batcheval.kernels.jit import n_threads
from batcheval.measures.significance import chi2_upper_tail

N = 1 << 16  # above the size from which the tails are split across threads


def _child(queue) -> None:
    x = np.linspace(0.0, 30.0, N)
    queue.put(float(np.abs(chi2_upper_tail(x, 1) - stats.chi2.sf(x, 1)).max()))


def test_tails_match_scipy_with_and_without_threads():
    x = np.linspace(0.0, 40.0, N)
    for dof in (1, 3):
        assert chi2_upper_tail(x, dof) == pytest.approx(stats.chi2.sf(x, dof), rel=1e-12, abs=1e-300)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
@pytest.mark.skipif(n_threads() < 2, reason="one thread: the tails take no pool")
def test_a_forked_child_computes_tails_after_its_parent():
    chi2_upper_tail(np.linspace(0.0, 30.0, N), 1)  # the parent's pool exists now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung computing χ² tails")
    assert child.exitcode == 0
    assert queue.get(timeout=5) < 1e-12
