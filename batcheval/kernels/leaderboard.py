"""The paired leaderboard's second pass: joint tables of every run against the leader,
or against a reference run of its own (the run ranked just above it)."""

from __future__ import annotations

import numpy as np

from .jit import jit_parallel, prange


@jit_parallel
def joint_counts(run, run_lo, run_lut, label, pred, class_lo, class_lut, example, ex_lo, lead_lut, k, bufs):
    """Add each row to ``bufs[t]``, a private flat ``[G, K, K, K]`` table per thread.

    A row of run ``g = run_lut[run - run_lo]`` with real class ``y`` and
    prediction ``p`` (both through ``class_lut``) on an example the leader
    predicted as ``l = lead_lut[example - ex_lo]`` adds one to cell
    ``(g, y, l, p)``. Rows whose example the leader did not predict (-1) are
    skipped. The lookups are dense arrays over each column's value range, so
    a row costs a few gathers and no hashing; classes that are already
    ``0..K-1`` skip their lookup (a quarter of the pass). Every index is
    non-negative and cast to uint64, which spares numba's wraparound.
    """
    n = label.shape[0]
    n_threads = bufs.shape[0]
    k2 = k * k
    k3 = k2 * k
    identity = class_lo == 0 and class_lut.shape[0] == k
    for c in range(class_lut.shape[0]):
        identity &= class_lut[c] == c
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        buf = bufs[t]
        start = min(n, t * step)
        stop = min(n, start + step)
        if identity:
            for i in range(start, stop):
                lead = lead_lut[np.uint64(np.int64(example[i]) - ex_lo)]
                if lead < 0:
                    continue
                g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
                buf[np.uint64(g * k3 + np.int64(label[i]) * k2 + lead * k + np.int64(pred[i]))] += 1
        else:
            for i in range(start, stop):
                lead = lead_lut[np.uint64(np.int64(example[i]) - ex_lo)]
                if lead < 0:
                    continue
                g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
                y = class_lut[np.uint64(np.int64(label[i]) - class_lo)]
                p = class_lut[np.uint64(np.int64(pred[i]) - class_lo)]
                buf[np.uint64(g * k3 + y * k2 + lead * k + p)] += 1


@jit_parallel
def fill_predictions(run, run_lo, run_lut, example, ex_lo, n_examples, pred, class_lo, class_lut, preds):
    """``preds[g * E + e]`` = the class code run g predicted for example e.

    Run g is ``run_lut[run - run_lo]``, example e is ``example - ex_lo`` and
    the code ``class_lut[pred - class_lo]``. Cells start at -1 (not
    predicted). Two rows of one (run, example) would race for a cell, so
    callers check afterwards that each run set as many cells as it has rows.
    """
    for i in prange(run.shape[0]):
        g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
        e = np.int64(example[i]) - ex_lo
        preds[np.uint64(g * n_examples + e)] = class_lut[np.uint64(np.int64(pred[i]) - class_lo)]


@jit_parallel
def joint_vs_reference(
    run, run_lo, run_lut, example, ex_lo, label, pred, class_lo, class_lut, ref, n_examples, preds, k, bufs
):  # fmt: skip
    """Add each row to ``bufs[t]``, a private flat ``[G, K, K, K]`` table per thread.

    A row of run g on example e (coded as in :func:`fill_predictions`) adds
    one to cell ``(g, real, l, own prediction)``, where ``l = preds[ref[g] *
    E + e]`` is what the reference run predicted there. Runs without a
    reference (``ref[g] < 0``) and examples the reference did not predict
    are skipped.
    """
    n = run.shape[0]
    n_threads = bufs.shape[0]
    k2 = k * k
    k3 = k2 * k
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        buf = bufs[t]
        start = min(n, t * step)
        stop = min(n, start + step)
        for i in range(start, stop):
            g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
            r = ref[np.uint64(g)]
            if r < 0:
                continue
            e = np.int64(example[i]) - ex_lo
            lead = np.int64(preds[np.uint64(r * n_examples + e)])
            if lead < 0:
                continue
            y = class_lut[np.uint64(np.int64(label[i]) - class_lo)]
            p = class_lut[np.uint64(np.int64(pred[i]) - class_lo)]
            buf[np.uint64(g * k3 + y * k2 + lead * k + p)] += 1
