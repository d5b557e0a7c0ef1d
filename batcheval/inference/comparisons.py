"""Comparing runs: each run's difference from a reference run, its standard
error and p-value, for :func:`batcheval.leaderboard`.

Paired comparisons (runs scored on shared test examples) work on each run's
joint table with its reference, ``joint[real, reference's prediction, run's
prediction]``. :func:`count_board` counts the board: a dense board gets
all of them from the same pass over the rows (:class:`Cells`); others count
each comparison in a pass of its own (:class:`TwoPass`). Unpaired comparisons take the runs as
independent samples (:func:`versus`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.counting import (
    PRIVATE_ROWS_PER_THREAD,
    KeySpace,
    compact,
    count_encoded,
    encode_frame_scanning,
    exact_keys,
    kernel_keys,
    key_space,
    raise_outside,
    run_count_kernel,
)
from ..core.encode import KEY_GUESS_ROWS, ClassCoding, guess_key_range, value_range
from ..core.memory import check_allocation, zeroed_int8
from ..core.table import ContingencyTable, sum_axes
from ..errors import InvalidArgumentError, UnknownMeasureError
from ..io.frames import unused_name
from ..kernels import leaderboard as _lb
from ..kernels import score_diff as _score_diff
from ..kernels.jit import n_threads, readonly
from . import intervals as _intervals
from . import paired_se as _paired_se
from . import ratios as _ratios

__all__ = [
    "MAX_CODED_CLASSES", "SCORE_MARGIN", "SCORE_MEASURES", "Cells", "RepeatedExampleError", "TwoPass",
    "check_joint_memory", "count_board", "count_with_cells", "equal_difference_p", "joint_tables", "normal_p",
    "paired_cells_fit", "paired_columns", "permutation_floor", "unpaired_centre", "unpaired_se",
    "unpaired_versus", "versus",
]  # fmt: skip

# an integer example column is looked up through an array when its range is at most this
_LUT_LIMIT = 1 << 26
# the one-pass joint count keeps a private table per thread while all of them stay this small
_PRIVATE_CELLS = 1 << 25
# paired tests hold one prediction per compared run and example: at most this many (1-2 bytes each)
_ADJACENT_CELLS = 1 << 30
# one-pass paired boards hold every run × example, if that is at most this many cells per row
_CELLS_PER_ROW = 4
# bytes a paired board holds per cell of its joint tables [G, K, K, K]: the int64 counts and the
# float copies the tests make of them (the multiclass sign-flip test's peak: about 33 bytes a cell
# at 150 classes, 20 runs)
_JOINT_BYTES = 32


#: the most classes whose pairs (a real and a predicted class, and 0 for "not scored") fit the
#: int8 codes ``1 + real·K + pred`` of a paired board's runs × examples cells; boards of more
#: classes count their joint tables without those cells, and have no rank intervals
MAX_CODED_CLASSES = 11


def paired_cells_fit(k: int) -> bool:
    """Whether the class pairs of ``k`` classes fit the int8 cells of a paired board.

    Examples
    --------
    >>> paired_cells_fit(MAX_CODED_CLASSES), paired_cells_fit(MAX_CODED_CLASSES + 1)
    (True, False)
    """
    return k * k + 1 <= np.iinfo(np.int8).max


class RepeatedExampleError(InvalidArgumentError):
    """A run has two rows of one example: :func:`batcheval.leaderboard` then treats each
    example as a cluster (:mod:`batcheval.inference.clustered`) instead of pairing rows."""


def normal_p(diff: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Two-sided normal p-value of a difference with standard error ``se``: ``2·Φ(−|diff|/se)``."""
    from scipy import special

    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(diff) / se
    p = special.erfc(z / np.sqrt(2.0))
    # no spread at all: equal values are no evidence of a difference; for unequal ones a zero
    # standard error is a failure of the estimate, not certainty, so no p-value (callers that
    # can reach it use an adjusted or exact test instead)
    return np.where(se == 0, np.where(diff == 0, 1.0, np.nan), p)


def unpaired_se(
    counts: np.ndarray, measure: str, ci_method: str, n_boot: int, seed: int | None, pos: int
) -> np.ndarray:
    """Each run's standard error of ``measure``: the adjusted delta method
    (:func:`batcheval.inference.intervals.adjusted_se`), or the bootstrap's replicate
    spread with ``ci_method="bootstrap"``. Never 0 for a non-empty table, so no
    p-value comes from a standard error of 0: a bootstrap spread of 0 (a perfect
    or constant run) is replaced by that of the table with one more example in
    every cell. A binary ratio measure (``odds_ratio``, ``lr_plus``, ``lr_minus``) is
    compared on the log scale whatever ``ci_method`` says: the standard error of its
    log (:func:`batcheval.inference.ratios.log_variance`, Woolf's for the odds ratio),
    NaN where the measure is undefined."""
    if _ratios.is_ratio(measure, np.shape(counts)[1]):
        value = _measures.compute(counts, [measure], positive=pos)[measure]
        return np.where(np.isnan(value), np.nan, np.sqrt(_ratios.log_variance(counts, measure, pos)))
    if ci_method == "bootstrap":
        se = _bootstrap_se(counts, measure, n_boot, seed, pos)
        flat = _paired_se.collapsed(se) & (np.asarray(counts).sum(axis=(1, 2)) > 0)
        if flat.any():
            se[flat] = _bootstrap_se(np.asarray(counts)[flat] + 1, measure, n_boot, seed, pos)
        return se
    return _intervals.table_standard_errors(counts, [measure], pos, adjusted=True)[measure]


def unpaired_centre(
    counts: np.ndarray, measure: str, ci_method: str, value: np.ndarray, pos: int = 1
) -> np.ndarray:
    """What an unpaired test compares: the measure of each table with the pseudo-counts
    of its adjusted standard error for the chance-corrected measures (so the test
    inverts the Agresti–Caffo-type interval of the difference), the log of a binary ratio
    measure's table plus a half in each cell (:func:`batcheval.inference.ratios.log_ratio`,
    whatever ``ci_method``), else ``value``."""
    if _ratios.is_ratio(measure, np.shape(counts)[1]):
        return _ratios.log_ratio(counts, measure, pos, value)
    if ci_method == "bootstrap" or measure not in _intervals.DELTA_MEASURES:
        return value
    # table by table: numpy's chance_values held [K, K, G] copies (17 of a 1000-class board's 27 s)
    extra = _intervals.pseudo_count(np.shape(counts)[1])
    adjusted = _intervals.kernel_chance_values(counts, extra)[_intervals.DELTA_MEASURES.index(measure)]
    return np.where(np.isfinite(value), adjusted, np.nan)


def versus(
    value: np.ndarray, se: np.ndarray, ref: np.ndarray, name: str, centre: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Unpaired difference of each run from run ``ref[g]``, with independent standard
    errors; the p-value compares ``centre`` (:func:`unpaired_centre`; default ``value``)."""
    at = np.maximum(ref, 0)
    diff = value - value[at]
    test = diff if centre is None else centre - centre[at]
    return {f"diff_vs_{name}": diff, f"p_vs_{name}": normal_p(test, np.sqrt(se * se + se[at] ** 2))}


#: Binary measures whose unpaired ``p_vs_leader`` is the score test :func:`equal_difference_p`
#: where both tables' margins hold :data:`SCORE_MARGIN` examples.
SCORE_MEASURES = ("informedness", "markedness")
#: The smallest margin (real or predicted class size, of either table) at which the score test is
#: used: below it the test exceeds its level (0.086 at 0.05 with 5 examples a class), where the
#: z-test of the adjusted estimates is conservative (docs/calibration_leader.md).
SCORE_MARGIN = 10


def equal_difference_p(counts: np.ndarray, measure: str, ref: np.ndarray, pos: int = 1) -> np.ndarray:
    """Two-sided score test that binary table g and table ``ref[g]`` (independent samples)
    have equal informedness (a difference of the hit rates given the real class sizes) or
    markedness (given the predicted sizes), for tables whose four margins, and the
    reference's, hold at least :data:`SCORE_MARGIN` examples; NaN elsewhere (and where
    ``ref[g] < 0``).

    ``z = d / sqrt(Σ p̃_i(1 − p̃_i)/n_i)`` with ``d`` the observed difference of the two
    differences of rates and ``p̃`` the four binomial rates of most likelihood under the null
    ``p₁ − p₀ = q₁ − q₀``: Miettinen & Nurminen's construction (1985, Statist. Med.
    4:213) for a difference of two differences, without their ``N/(N − 1)``
    (:func:`batcheval.kernels.score_diff.constrained_variance`). Its variance is the null's,
    not the estimate's, so a run with few errors in a class does not read as certain.

    Examples
    --------
    Two runs on 100 positives and 100 negatives: hit rates 0.8 and 0.2 (informedness 0.6)
    against 0.7 and 0.3 (0.4).

    >>> counts = np.array([[[80, 20], [20, 80]], [[70, 30], [30, 70]]])  # [run, real, predicted]
    >>> p = equal_difference_p(counts, "informedness", np.array([1, 0]))
    >>> [round(float(v), 4) for v in p]
    [0.0209, 0.0209]
    """
    if measure not in SCORE_MEASURES:
        raise UnknownMeasureError(
            f"measure {measure!r} has no unpaired score test; it is for {list(SCORE_MEASURES)}"
        )
    counts = np.asarray(counts)
    neg = 1 - pos
    cells = np.stack(
        [counts[:, pos, pos], counts[:, neg, pos], counts[:, pos, neg], counts[:, neg, neg]], axis=1
    ).astype(np.int64)
    p = np.empty(len(cells))
    ref = np.ascontiguousarray(ref, dtype=np.int64)
    _score_diff.equal_difference_score_p(cells, ref, measure == "markedness", float(SCORE_MARGIN), p)
    return p


def unpaired_versus(
    counts: np.ndarray,
    measure: str,
    ci_method: str,
    pos: int,
    value: np.ndarray,
    se: np.ndarray,
    ref: np.ndarray,
    name: str,
    centre: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """:func:`versus`, with the p-value of binary informedness and markedness (unless
    ``ci_method="bootstrap"``) from the score test :func:`equal_difference_p` where both
    tables' margins hold :data:`SCORE_MARGIN` examples: the z-test of the adjusted
    estimates is conservative there (size within [0.04, 0.06] at 0.05 at 8 of the 18 grid
    points with margins of 10 and more; the score test at 14, and at most 0.059 anywhere,
    docs/calibration_leader.md), and holds the level below it, where the score test does not."""
    out = versus(value, se, ref, name, centre)
    counts = np.asarray(counts)
    if measure in SCORE_MEASURES and ci_method != "bootstrap" and counts.ndim == 3 and counts.shape[1] == 2:
        score = equal_difference_p(counts, measure, ref, pos)
        held = ~np.isnan(score)
        out[f"p_vs_{name}"] = np.where(held, score, out[f"p_vs_{name}"])
    n = counts.reshape(len(counts), -1).sum(axis=1)
    # a perfect and an inverted run of 12 examples each gave 6e-26 (the bootstrap's z of 10)
    out[f"p_vs_{name}"] = np.maximum(out[f"p_vs_{name}"], permutation_floor(n, n[np.maximum(ref, 0)]))
    return out


def permutation_floor(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The smallest two-sided mid-p value a permutation test of two independent samples of
    ``n`` and ``m`` examples can give, ``1/C(n + m, n)``: no split of the pooled examples is
    less likely than one in C, and an unpaired p-value below it claims more than the examples
    hold.

    Examples
    --------
    >>> [round(float(x) * 184756, 9) for x in permutation_floor(np.array([10]), np.array([10]))]
    [1.0]
    """
    from scipy import special

    n, m = np.asarray(n, dtype=np.float64), np.asarray(m, dtype=np.float64)
    return np.exp(special.gammaln(n + 1.0) + special.gammaln(m + 1.0) - special.gammaln(n + m + 1.0))


def _bootstrap_se(counts: np.ndarray, measure: str, n_boot: int, seed: int | None, pos: int) -> np.ndarray:
    def value(reps: np.ndarray) -> np.ndarray:
        return _measures.compute(reps, [measure], positive=pos)[measure]

    return _paired_se.replicate_spread(counts, n_boot, seed, value)


def count_board(
    df: pl.DataFrame,
    runs: list[str],
    examples: list[str],
    label: str,
    prediction: str,
    classes: Sequence[Any] | None,
) -> tuple[ContingencyTable, Cells | TwoPass | None]:
    """Each run's table, and with ``examples`` what its paired comparisons are
    counted from: :class:`Cells` when the one pass can hold every run ×
    example, else :class:`TwoPass`."""
    fused = _fusable_example(df, examples)
    # the board counts as evaluate does, which takes the class and integer key ranges from a
    # sample and checks them while counting (count_encoded, and count_with_cells's fill): no scan
    # of the class columns nor of the run keys (the unpaired benchmark board's range scan 52 ->
    # 32 ms of one thread's CPU; the paired one's count_board 221-231 -> 169-177 ms). A single
    # integer example column's range is guessed alike where the keys' are, and checked by the
    # fill; else it comes from the pass that scans the keys and classes
    guess_example = fused is not None and df.height >= KEY_GUESS_ROWS
    also = [fused] if fused is not None and not guess_example else []
    coding, space, found = encode_frame_scanning(
        df, runs, label, prediction, classes, also, guess=True, guess_keys=True
    )
    example = None
    if examples:
        exact_example = _exact_example(df, examples, fused, found[0] if found else None)
        example = _example_coding(df, examples, guess_key_range(fused)) if guess_example else exact_example()
        if space is not None:
            cells = count_with_cells(
                df, runs, examples, example, coding, space, exact_example if guess_example else None
            )
            if cells is not None:
                return cells.table, cells
            example = exact_example()  # the two passes need the scanned range
    counted = count_encoded(df, runs, coding, space)
    table = ContingencyTable(counted.keys, counted.classes, counted.counts, copy=False)
    if example is None:
        return table, None
    (label_col, pred_col), class_lo, class_lut = _class_coding(df, table, label, prediction)
    rows = _RowCodes(*_run_coding(df, table, runs), *example, label_col, pred_col, class_lo, class_lut)
    rows = _RowCodes(*(readonly(v) if isinstance(v, np.ndarray) else v for v in rows))
    _check_one_row_per_example(df, table, runs, examples, rows)
    return table, TwoPass(df, table, runs, rows)


class _RowCodes(NamedTuple):
    """Every row's run, example and classes as codes: ``run_lut[run - run_lo]``
    is its row of the table, ``example - ex_lo`` one of ``0..E-1``, and
    ``class_lut[value - class_lo]`` a class code (:func:`_run_coding`,
    :func:`_example_coding`, :func:`_class_coding`)."""

    run: np.ndarray
    run_lo: int
    run_lut: np.ndarray
    example: np.ndarray
    ex_lo: int
    n_examples: int
    label: np.ndarray
    pred: np.ndarray
    class_lo: int
    class_lut: np.ndarray


@dataclass
class Cells:
    """Every run's class pair (real · K + predicted + 1, 0: none) on every example,
    ``cells[rows[g] * E + e]`` for run g of ``table``: counted and filled in
    one pass over the rows, after which each paired comparison reads only
    this table."""

    table: ContingencyTable
    cells: np.ndarray
    n_examples: int
    rows: np.ndarray
    k: int  # class codes in ``cells``; ``table`` keeps ``class_codes`` of them
    class_codes: np.ndarray
    # binary cells as bit planes (kernels/leaderboard.binary_planes), which the joint tables
    # read; the counting pass makes them, else they are made from ``cells`` here
    planes: np.ndarray | None = None

    def __post_init__(self) -> None:
        # binary_planes reads the cells eight bytes a word: one byte a cell, or wrong planes
        assert self.cells.dtype == np.int8, self.cells.dtype
        if self.k == 2 and self.planes is None:
            g, e = len(self.cells) // max(self.n_examples, 1), self.n_examples
            self.planes = np.empty((g, 3, (e + 63) // 64), dtype=np.uint64)
            _lb.binary_planes(self.cells, e, n_threads(), np.empty((g, 5), dtype=np.int64), self.planes)

    def labels_differ(self) -> bool:
        """Whether some example's real class differs between the runs holding it (a
        pass over the bit planes of binary cells: 3 ms for 100,000 runs of 1,000 examples,
        where a pass over the cells' bytes took 0.38 s)."""
        if self.planes is not None:
            return bool(_lb.binary_labels_differ(self.planes))
        return bool(_lb.labels_differ(self.cells, self.n_examples, self.k))

    def joint(self, ref: np.ndarray) -> np.ndarray:
        """``joint[g, real, ref's prediction, g's prediction]`` as :func:`joint_tables`
        gives it."""
        if self.planes is not None:
            return self._from_planes(ref, None)[0]
        g, k = len(self.rows), self.k
        check_joint_memory(g, k)
        joint = np.zeros((g, k, k, k), dtype=np.int64)
        _lb.joint_from_cells(self.cells, self.n_examples, self.rows, ref, k, joint.reshape(g, k**3))
        return self._kept(joint)

    def joints(self, ref: np.ndarray, ref2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(self.joint(ref), self.joint(ref2))``, binary tables from one pass over the planes."""
        if self.planes is None:
            return self.joint(ref), self.joint(ref2)
        return self._from_planes(ref, ref2)  # type: ignore[return-value]

    def _from_planes(self, ref: np.ndarray, ref2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The binary joint tables against ``ref`` (and ``ref2``) from :attr:`planes`: 64
        examples a word, where the cells take 8 (the benchmark's 100k runs, one thread: the
        leader's joint tables 30 -> 6 ms, both of an adjacent board 78 -> 13 ms)."""
        g = len(self.rows)
        joint = np.zeros((g, 2, 2, 2), dtype=np.int64)
        joint2 = np.zeros((g if ref2 is not None else 0, 2, 2, 2), dtype=np.int64)
        ref = np.ascontiguousarray(ref, dtype=np.int64)
        ref2 = np.empty(0, dtype=np.int64) if ref2 is None else np.ascontiguousarray(ref2, dtype=np.int64)
        _lb.joint_from_planes(self.planes, self.rows, ref, ref2, joint.reshape(g, 8),
                              joint2.reshape(len(joint2), 8))  # fmt: skip
        return self._kept(joint), self._kept(joint2) if len(ref2) else None

    def _kept(self, joint: np.ndarray) -> np.ndarray:
        """``joint`` on the class codes the table keeps."""
        keep = self.class_codes
        if len(keep) != self.k:
            joint = joint[:, keep][:, :, keep][:, :, :, keep]
        return np.ascontiguousarray(joint)


@dataclass
class TwoPass:
    """Paired comparisons counted by :func:`joint_tables`, a pass over the rows each."""

    df: pl.DataFrame
    table: ContingencyTable
    runs: list[str]
    rows: _RowCodes

    def joint(self, ref: np.ndarray) -> np.ndarray:
        """Only the reference runs are held: the leader, or every run with one
        below it. (:func:`count_board` checked every run for repeated examples.)"""
        held = np.unique(ref[ref >= 0])
        return joint_tables(self.df, self.table, self.runs, self.rows, held, ref)


def count_with_cells(
    df: pl.DataFrame,
    runs: list[str],
    examples: list[str],
    example: tuple[np.ndarray, int, int],
    coding: ClassCoding,
    space: KeySpace,
    exact_example: Callable[[], tuple[np.ndarray, int, int]] | None = None,
) -> Cells | None:
    """The board's table and its :class:`Cells` from one pass over the rows, or
    None when the runs × examples table would be large or sparse (or class
    pairs beyond int8). Raises for a run with two rows for one example.
    ``example`` is :func:`_example_coding`'s; ``exact_example``, where given, makes it
    from the scanned range, ``example``'s being a guess from a sample."""
    filled = None
    if coding.exact is not None or space.guessed or exact_example is not None:
        # class, key and example ranges guessed from a sample (count_board): filled unchecked
        # (see fill_cells), then, unless every row filled a cell, again with the scanned ranges
        byte_pairs = _byte_pairs(coding) if len(space.columns) == 1 else None
        filled = _filled(df, coding, space, example, byte_pairs) if byte_pairs is not None else None
        if filled is None or int(filled[1].sum()) != df.height:
            coding = coding.exact() if coding.exact is not None else coding
            if space.guessed:
                space = key_space(exact_keys(space.columns), df.height, coding.n_codes)
            if exact_example is not None:
                example = exact_example()
            filled = None
    n_examples = example[2]
    if filled is None:
        filled = _filled(df, coding, space, example, None)
        if filled is None:
            return None
    cells, counts, planes = filled
    k = coding.n_codes
    # every row fills a cell of its own unless two rows of a run share an example
    if int(counts.sum()) != df.height:
        _raise_first_duplicate(df, runs, examples, coding, space, counts)
    counted = compact(space, coding, counts, True)
    table = ContingencyTable(counted.keys, counted.classes, counted.counts, copy=False)
    assert counted.groups is not None
    return Cells(table, cells, n_examples, counted.groups, k, counted.class_codes, planes)  # type: ignore[arg-type]


def _filled(
    df: pl.DataFrame,
    coding: ClassCoding,
    space: KeySpace,
    example: tuple[np.ndarray, int, int],
    byte_pairs: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """The runs × examples cells filled (:func:`~batcheval.kernels.leaderboard.fill_cells`; with
    ``byte_pairs``, unchecked, one byte longer for its sink), the counts ``[space id, K, K]``
    read from them and, for two classes, their bit planes
    (:func:`~batcheval.kernels.leaderboard.binary_planes`, read in the same pass); or None when
    the table would be large or sparse (or class pairs beyond int8). Raises for a row outside
    the class set of a scanned coding."""
    k = coding.n_codes
    example_col, ex_lo, n_examples = example
    size = space.size * n_examples
    if not paired_cells_fit(k) or size > min(_ADJACENT_CELLS, _CELLS_PER_ROW * df.height):
        return None
    cells = zeroed_int8(size + (byte_pairs is not None))
    pairs = np.zeros(1, dtype=np.int8) if byte_pairs is None else byte_pairs
    bad = _lb.fill_cells(*kernel_keys(space.columns), coding.label, coding.prediction, coding.vmin,
                         coding.lut, k, example_col, ex_lo, n_examples, n_threads(), cells,
                         pairs)  # fmt: skip
    if bad:
        raise_outside(coding, bad)
    per_cell = np.empty((space.size, k * k + 1), dtype=np.int64)
    planes = None
    if k == 2:
        planes = np.empty((space.size, 3, (n_examples + 63) // 64), dtype=np.uint64)
        _lb.binary_planes(cells, n_examples, n_threads(), per_cell, planes)
    else:
        _lb.cell_counts(cells, n_examples, n_threads(), per_cell)
    return cells[:size], np.ascontiguousarray(per_cell[:, 1:]).reshape(space.size, k, k), planes


def _byte_pairs(coding: ClassCoding) -> np.ndarray | None:
    """For 8-bit label and prediction columns, each pair of their bytes' cell value
    ``real · K + predicted + 1`` (0 where either is not a class of ``coding``), indexed
    ``label byte · 256 + prediction byte``; None for other columns."""
    lab, pred = coding.label, coding.prediction
    k = coding.n_codes
    if lab.dtype.itemsize != 1 or pred.dtype.itemsize != 1 or not paired_cells_fit(k):
        return None

    def codes(dtype: np.dtype) -> np.ndarray:
        at = np.arange(256, dtype=np.uint8).view(dtype).astype(np.int64) - coding.vmin
        inside = (at >= 0) & (at < len(coding.lut))
        out = np.full(256, -1, dtype=np.int64)
        out[inside] = coding.lut[at[inside]]
        return out

    a, b = codes(lab.dtype), codes(pred.dtype)
    both = (a[:, None] >= 0) & (b[None, :] >= 0)
    return np.where(both, a[:, None] * k + b[None, :] + 1, 0).astype(np.int8).ravel()


def _raise_first_duplicate(
    df: pl.DataFrame,
    runs: list[str],
    examples: list[str],
    coding: ClassCoding,
    space: KeySpace,
    filled: np.ndarray,
) -> None:
    """Name a run with fewer ``filled`` cells (``[space id, K, K]``) than rows."""
    k = coding.n_codes
    rows = run_count_kernel(space.columns, coding, space.size, k).reshape(space.size, k, k)
    counted = compact(space, coding, rows, True)
    table = ContingencyTable(counted.keys, counted.classes, counted.counts, copy=False)
    assert counted.groups is not None
    short = sum_axes(filled, (1, 2))[counted.groups] < sum_axes(rows, (1, 2))[counted.groups]
    _raise_duplicate_examples(df, table, runs, examples, int(np.flatnonzero(short)[0]))


def joint_tables(
    df: pl.DataFrame,
    table: ContingencyTable,
    runs: list[str],
    rows: _RowCodes,
    held: np.ndarray,
    ref: np.ndarray,
) -> np.ndarray:
    """``joint[g, real, reference's prediction, g's prediction]`` over the examples both
    predicted, where g's reference is run ``ref[g]`` (-1: none, a zero table).

    Two passes: the runs in ``held`` (every reference) write their predictions
    into a ``held × examples`` table, then every row is counted against its
    reference. Callers check first that no run repeats an example
    (:func:`_check_one_row_per_example`).
    """
    k, g = table.n_classes, len(table)
    slot = np.full(g, -1, dtype=np.int64)
    slot[held] = np.arange(len(held))
    n_examples = rows.n_examples
    if len(held) * n_examples > _ADJACENT_CELLS:
        raise InvalidArgumentError(
            f"paired tests hold each compared run's prediction per example: {len(held):,} runs × "
            f"{n_examples:,} example ids (the span of the example column) is over {_ADJACENT_CELLS:,} "
            "cells; number the examples densely, or drop example= for unpaired tests"
        )
    check_joint_memory(g, k)
    preds = np.full(len(held) * n_examples, -1, dtype=np.int8 if k < 128 else np.int16)
    fill = (rows.run, rows.example, rows.pred)
    if len(held) == 1:  # one run's rows: a polars filter finds them faster than a pass over every row
        own = pl.Series(_run_mask(df, table, runs, int(held[0]))).arg_true().to_numpy()
        fill = tuple(readonly(col[own]) for col in fill)
    _lb.fill_predictions(fill[0], rows.run_lo, rows.run_lut, slot, fill[1], rows.ex_lo, n_examples, fill[2],
                         rows.class_lo, rows.class_lut, preds)  # fmt: skip
    # a private table per thread while they stay small, else one table: the result itself, in int64
    # (a uint32 table summed into int64 held 12 bytes a cell at once)
    threads = n_threads() if g * k**3 * n_threads() <= _PRIVATE_CELLS else 1
    narrow = threads > 1 and -(-df.height // threads) <= PRIVATE_ROWS_PER_THREAD
    bufs = np.zeros((threads, g * k**3), dtype=np.uint32 if narrow else np.int64)
    ref_slot = np.where(ref >= 0, slot[np.maximum(ref, 0)], -1)
    _lb.joint_vs_reference(
        rows.run, rows.run_lo, rows.run_lut, rows.example, rows.ex_lo, rows.label, rows.pred, rows.class_lo,
        rows.class_lut, ref_slot, n_examples, preds, k, bufs,
    )  # fmt: skip
    if threads == 1:
        return bufs.reshape(g, k, k, k)
    return bufs.sum(axis=0, dtype=np.int64).reshape(g, k, k, k)


def check_joint_memory(g: int, k: int) -> None:
    """Raise :class:`~batcheval.errors.MemoryBudgetError` when the joint tables of ``g`` paired
    runs over ``k`` classes, ``g · k³`` cells, and the tests' copies of them
    (:data:`_JOINT_BYTES` a cell) need more memory than is available.

    Examples
    --------
    >>> check_joint_memory(10, 3)
    >>> check_joint_memory(10, 100_000)
    Traceback (most recent call last):
    ...
    batcheval.errors.MemoryBudgetError: the paired comparisons of 10 runs over 100,000 classes ...
    """
    cells = g * k**3
    check_allocation(
        cells * _JOINT_BYTES,
        f"the paired comparisons of {g:,} runs over {k:,} classes (a joint table of the real class "
        f"and both runs' predictions per run, {g:,} × {k:,}³ cells)",
        f"drop example= for unpaired comparisons ({k:,} × {k:,} cells a run), or merge rare classes",
    )


def _check_one_row_per_example(
    df: pl.DataFrame, table: ContingencyTable, runs: list[str], examples: list[str], rows: _RowCodes
) -> None:
    """Raise for a run with two rows of one example: one pass marking a bit per
    run × example, or polars' hash of the (run, example) keys when that
    bitmap would pass ``_ADJACENT_CELLS`` bytes."""
    n_bits = len(table) * rows.n_examples
    if n_bits <= 8 * _ADJACENT_CELLS:
        seen = np.zeros(-(-n_bits // 8), dtype=np.uint8)
        g = _lb.first_repeat(
            rows.run, rows.run_lo, rows.run_lut, rows.example, rows.ex_lo, rows.n_examples, seen
        )
        if g >= 0:
            _raise_duplicate_examples(df, table, runs, examples, int(g))
        return
    repeated = df.select(pl.struct(runs + examples).is_duplicated()).to_series()
    if repeated.any():
        first = df.filter(repeated).select(runs).row(0, named=True)
        at = unused_name(table.keys.columns, "__g")
        g = table.keys.with_row_index(at).join(
            pl.DataFrame([first], schema=table.keys.select(runs).schema), on=runs, nulls_equal=True
        )
        _raise_duplicate_examples(df, table, runs, examples, int(g.get_column(at)[0]))


def _run_mask(df: pl.DataFrame, table: ContingencyTable, runs: list[str], g: int) -> pl.Series:
    """The rows of run g."""
    keys = table.keys.row(g, named=True)
    mask = pl.lit(True)
    for c in runs:
        mask = mask & (pl.col(c).is_null() if keys[c] is None else pl.col(c) == keys[c])
    return df.select(mask.alias("mask")).to_series()


def _raise_duplicate_examples(
    df: pl.DataFrame, table: ContingencyTable, runs: list[str], examples: list[str], g: int
) -> None:
    keys = table.keys.row(g, named=True)
    rows = df.filter(_run_mask(df, table, runs, g)).select(examples)
    dup = rows.is_duplicated()
    first = rows.filter(dup).row(0, named=True)
    null = [c for c in runs if keys[c] is None]
    shown = repr(null[0]) if len(null) == 1 else repr(null)
    # a null run key is a run of its own (as evaluate's null groups): rows of several runs whose
    # key is missing repeat each other's examples there, and the fold hint pointed elsewhere
    # an example scored once per seed left the user to guess pool=; and the fold hint was repeated to
    # a user whose example key held the fold already
    fold = "if ids restart in each fold, include the fold, e.g. example=['fold', 'example_id']; "
    if any("fold" in str(c).lower() for c in examples):
        fold = ""
    fold += (
        "if each example is scored more than once (seeds, replicates), name those columns in pool=, "
        "e.g. pool=['seed']: the example then counts once, as a cluster of its rows"
    )
    # the null key may be one of several, and the rows repeat for another reason: both hints
    cause = (
        f"the run key {shown} is null in these rows, and null keys form one run of their own: fill or "
        f"drop them; or {fold}"
        if null
        else fold
    )
    raise RepeatedExampleError(
        f"example={examples} does not identify one row per example in run {keys}: "
        f"{int(dup.sum())} of its {rows.height} rows share their example with another (first: {first}); "
        f"{cause}"
    )


def _dense_lut(col: pl.Series, limit: int = _LUT_LIMIT) -> tuple[int, int] | None:
    """``(lo, hi)`` of an integer column without nulls whose range is small enough for a lookup array."""
    if not col.dtype.is_integer() or col.null_count() or not len(col):
        return None
    if col.dtype == pl.UInt64:  # may not fit the int64 pass
        lo, hi = int(col.min()), int(col.max())  # type: ignore[arg-type]
        if hi >= 1 << 63:  # the kernels index through int64
            return None
    else:
        lo, hi = value_range(col.to_numpy())  # one parallel pass; polars' min and max are two
    return (lo, hi) if hi - lo < limit else None


def _dense_codes(values: pl.Series) -> tuple[int, np.ndarray] | None:
    """``(lo, lut)`` with ``lut[v - lo]`` = the position of v in ``values`` (distinct
    small-range integers), else None."""
    dense = _dense_lut(values)
    if dense is None:
        return None
    lo, hi = dense
    lut = np.zeros(hi - lo + 1, dtype=np.int64)
    lut[values.to_numpy().astype(np.int64) - lo] = np.arange(len(values))
    return lo, lut


def _run_coding(
    df: pl.DataFrame, table: ContingencyTable, runs: list[str]
) -> tuple[np.ndarray, int, np.ndarray]:
    """``(column, lo, lut)``: row i belongs to group ``lut[column[i] - lo]`` of ``table``
    (every row's run is a key of it: the table was counted from these rows)."""
    dense = _dense_codes(table.keys.get_column(runs[0])) if len(runs) == 1 else None
    if dense is not None:
        return df.get_column(runs[0]).to_numpy(), *dense
    at = unused_name(table.keys.columns, "__g")
    keys = table.keys.with_row_index(at)
    joined = df.select(runs).join(keys, on=runs, how="left", nulls_equal=True, maintain_order="left")
    return joined.get_column(at).to_numpy(), 0, np.arange(len(table), dtype=np.int64)


def _fusable_example(df: pl.DataFrame, examples: list[str]) -> np.ndarray | None:
    """The example column as the array :func:`_dense_lut` would scan (one integer column
    without nulls, not uint64), for the counting pass's range scan; else None."""
    if len(examples) != 1 or not df.height:
        return None
    col = df.get_column(examples[0])
    if not col.dtype.is_integer() or col.dtype == pl.UInt64 or col.null_count():
        return None
    return readonly(col.to_numpy())


def _exact_example(
    df: pl.DataFrame, examples: list[str], fused: np.ndarray | None, found: tuple[int, int] | None
) -> Callable[[], tuple[np.ndarray, int, int]]:
    """:func:`_example_coding` of the scanned range, made once on the first call: from ``found``
    when the counting pass scanned the example column, else by a scan of ``fused`` (or of the
    columns, :func:`_example_coding`)."""

    @functools.cache
    def exact() -> tuple[np.ndarray, int, int]:
        scanned = found if found is not None or fused is None else value_range(fused)
        return _example_coding(df, examples, scanned)

    return exact


def _example_coding(
    df: pl.DataFrame, examples: list[str], found: tuple[int, int] | None = None
) -> tuple[np.ndarray, int, int]:
    """``(column, lo, E)``: row i scores example ``column[i] - lo``, one of ``0..E-1``.
    ``found``: the min and max of the single example column, when already scanned."""
    if found is not None:
        lo, hi = found
        dense = (lo, hi) if hi - lo < _LUT_LIMIT else None
    else:
        dense = _dense_lut(df.get_column(examples[0])) if len(examples) == 1 else None
    if dense is not None:
        lo, hi = dense
        return readonly(df.get_column(examples[0]).to_numpy()), lo, hi - lo + 1
    codes = readonly(df.select(pl.struct(examples).rank("dense")).to_series().to_numpy())
    return codes, 1, int(codes.max()) if len(codes) else 0


def _class_coding(
    df: pl.DataFrame, table: ContingencyTable, label: str, prediction: str
) -> tuple[tuple[np.ndarray, np.ndarray], int, np.ndarray]:
    """The label and prediction columns with ``(lo, lut)``: class code ``lut[value - lo]``."""
    classes = table.classes
    k = len(classes)
    dense = _dense_codes(classes)
    if dense is not None:
        return (df.get_column(label).to_numpy(), df.get_column(prediction).to_numpy()), *dense
    codes = pl.Series(range(k), dtype=pl.Int16)
    cols = tuple(df.get_column(c).replace_strict(classes, codes).to_numpy() for c in (label, prediction))
    return cols, 0, np.arange(k, dtype=np.int64)  # type: ignore[return-value]


def paired_columns(
    joint: np.ndarray,
    measure: str,
    pos: int,
    n_boot: int,
    seed: int | None,
    method: str,
    with_se: bool = True,
) -> dict[str, np.ndarray]:
    """Each run against its reference from their joint table: the measure's
    difference, its standard error and its p-value (:func:`batcheval.inference.paired_se.paired_p`:
    exact sign-flip for linear measures, else normal with the ``method``'s standard error,
    ``"bootstrap"`` or ``"delta"``),
    the paired and discordant counts, and the exact McNemar p-value (NaN for a run that shares
    no example with its reference, 1 where they share some but none is discordant).

    ``with_se=False`` leaves ``se_vs_leader`` out where the p-value does not read it (a
    measure with a sign-flip test, :func:`batcheval.inference.paired_se.has_sign_flip`): the
    paired bootstrap's standard errors were most of the paired board's own cost, and a board
    above the rank limit selects by the sign-flip p-values.

    A measure of :data:`~batcheval.measures.registry.BINARY_EQUIVALENT` is compared as its
    equivalent (:func:`batcheval.measures.registry.equivalent`), its standard error too: mcc's
    bootstrap was the multinomial one, correlation's the Poisson bootstrap with a control variate."""
    measure = _measures.equivalent(measure, joint.shape[1])
    if joint.shape[1] == 2:
        g = joint.shape[0]
        run_cells, lead_cells, agree = (np.empty((n, g), dtype=np.int64) for n in (4, 4, 3))
        flat = np.ascontiguousarray(joint, dtype=np.int64).reshape(g, 8)
        _lb.binary_pair_cells(flat, pos, run_cells, lead_cells, agree)
        run_value = _measures.compute_cells(*run_cells, [measure])[measure]
        diff = run_value - _measures.compute_cells(*lead_cells, [measure])[measure]
        n_paired, leader_right, run_right = agree
    else:
        run_tables = sum_axes(joint, 2)  # real × run's prediction
        lead_tables = sum_axes(joint, 3)  # real × leader's prediction
        diff = (
            _measures.compute(run_tables, [measure], positive=pos)[measure]
            - _measures.compute(lead_tables, [measure], positive=pos)[measure]
        )
        both = np.einsum("gyyy->g", joint)
        leader_right = np.einsum("gyyp->g", joint) - both
        run_right = np.einsum("gyly->g", joint) - both
        n_paired = sum_axes(joint, (1, 2, 3))
    se = None
    ratio = _ratios.is_ratio(measure, joint.shape[1])
    if ratio:
        # on the log scale, whichever method: the raw ratio's spread grows with the ratio
        p, se = _ratios.paired_p(joint, measure, pos, diff)
    elif with_se or not _paired_se.has_sign_flip(measure, joint.shape[1]):
        if method == "delta":
            se = _paired_se.delta_se(joint, measure, pos)
        else:
            se = _paired_se.bootstrap_se(joint, measure, pos, n_boot, seed, diff)
    cols = {
        "diff_vs_leader": diff,
        "p_vs_leader": p if ratio else _paired_se.paired_p(joint, measure, pos, diff, se, method),
        "n_paired": n_paired,
        "n_leader_only": leader_right,
        "n_run_only": run_right,
        # no example in common: nothing to test (as p_vs_leader), not a p-value of 1
        "p_mcnemar": np.where(n_paired == 0, np.nan, _mcnemar_exact(leader_right, run_right)),
    }
    if se is not None:
        cols["se_vs_leader"] = se
    return cols


def _mcnemar_exact(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Two-sided exact McNemar p-value: 2·P(X <= min(b, c)), X ~ Bin(b + c, 1/2), at most 1.

    Each distinct ``(min(b, c), b + c)`` is evaluated once: 100k runs on one
    test set share a few thousand (the tails took 41 ms, now 10 ms).
    """
    from scipy import special

    m = np.asarray(b + c, dtype=np.int64)
    low = np.minimum(b, c).astype(np.int64)
    width = int(low.max(initial=0)) + 1
    inverse = None
    if len(m) and int(m.max()) < (1 << 62) // width:  # the pair as one int64 key
        keys, inverse = np.unique(m * width + low, return_inverse=True)
        m, low = keys // width, keys % width
    with np.errstate(invalid="ignore"):
        p = np.where(m == 0, 1.0, np.minimum(1.0, 2.0 * special.bdtr(low, m, 0.5)))
    return p if inverse is None else p[inverse]
