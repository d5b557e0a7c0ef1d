"""One table seen whole: a text report (scikit-learn's ``classification_report`` with informedness,
markedness and their intervals) and a confusion-matrix heatmap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.encode import check_classes, label_kind
from ..core.table import ContingencyTable, one_vs_rest
from ..errors import InvalidArgumentError, NullValuesError
from ..inference.intervals import by_class, intervals
from ..io.frames import check_label_keywords, from_mapping, named_by_keyword, shown_value
from ..measures import check_level
from .backend import check_path, check_title, literal, percent, pyplot, shorten

__all__ = ["confusion_table", "plot_confusion", "report"]

_PER_CLASS = ("precision", "recall", "f1", "informedness", "markedness")
#: decimal places a report shows at most: every float64 is written exactly in at most 1074 (the
#: smallest subnormal is 2**-1074), so more would only add zeros
_MAX_DIGITS = 1074
_EMPTY = "the frame is empty: a report or confusion matrix needs at least one example"


def confusion_table(
    data: Any = None,
    label: str = "label",
    prediction: str = "prediction",
    *,
    y_true: Any = None,
    y_pred: Any = None,
    classes: Sequence[Any] | None = None,
) -> ContingencyTable:
    """The single table of ``data`` (a frame, a dict of columns, a one-group ContingencyTable) or of
    ``y_true``/``y_pred``."""
    roles = None
    if y_true is not None or y_pred is not None:  # before a table: y_true= beside one is refused too
        check_label_keywords(data, y_true, y_pred)
        data, roles = {label: y_true, prediction: y_pred}, {label: "y_true=", prediction: "y_pred="}
    if isinstance(data, ContingencyTable):
        if data.n == 0:  # no group, or one of no examples or no classes: no rows, as a frame's
            raise InvalidArgumentError(
                "this ContingencyTable holds no examples: a report or confusion matrix needs at least "
                "one example"
            )
        if len(data) != 1:
            raise InvalidArgumentError(
                f"a report is of one table; this ContingencyTable holds {len(data)} groups: "
                "pool or filter first"
            )
        # a table's classes are fixed when it is counted: classes= cannot change them; checked as
        # a frame's classes= is (a number or a string is no list of classes)
        if classes is not None:
            with named_by_keyword({data.classes.name: "this ContingencyTable"}):
                given = check_classes(classes, label_kind(data.classes, "class"), data.classes.name) or []
            if set(given) != set(data.classes.to_list()):
                raise InvalidArgumentError(
                    f"classes={given!r} applies to a frame; this ContingencyTable was counted over "
                    f"classes {data.classes.to_list()!r}"
                )
        return data
    if _is_values(data) and not isinstance(label, str):  # report(y_true, y_pred), as scikit-learn's
        raise InvalidArgumentError(
            f"label= takes a column name (a string), got {shown_value(label)}; labels and predictions "
            "as lists or arrays are given by keyword: y_true=..., y_pred=..."
        )
    if data is None:
        raise InvalidArgumentError("give data= (a frame or a one-group table) or y_true= and y_pred=")
    if isinstance(data, dict):
        data = from_mapping(data, roles)
        if data.height == 0:  # before its Null dtype is blamed on the label column
            raise InvalidArgumentError(_EMPTY)
    try:
        with named_by_keyword(roles):
            table = ContingencyTable.from_frame(data, None, label, prediction, classes=classes)
    except NullValuesError as exc:  # its hint names drop_nulls=, which a report does not take
        raise NullValuesError(
            f"{str(exc).split('; pass drop_nulls')[0]}; a report counts every row: drop the rows with "
            + (
                f"a null {label!r} or {prediction!r} first"
                if roles is None
                else "a null in y_true= or y_pred= first"
            )
        ) from None
    if len(table) == 0:  # no rows: no table (be.evaluate of such a frame has no rows either)
        raise InvalidArgumentError(_EMPTY)
    return table


def _is_values(data: Any) -> bool:
    """Whether ``data`` is a sequence of labels (a list, array or Series), not a frame."""
    return isinstance(data, list | tuple | np.ndarray) or type(data).__name__ == "Series"


def report(
    data: Any = None,
    label: str = "label",
    prediction: str = "prediction",
    *,
    y_true: Any = None,
    y_pred: Any = None,
    classes: Sequence[Any] | None = None,
    ci: float = 0.95,
    digits: int = 3,
) -> str:
    """A text report of one table: per class (one-vs-rest) precision, recall, f1, informedness and
    markedness with their intervals, and support; then accuracy, the macro and support-weighted
    averages, and the table's own (multiclass) informedness and markedness with intervals.

    Like scikit-learn's ``classification_report``, whose precision, recall, f1 and support columns it
    reproduces as ``classification_report(..., zero_division=np.nan)`` gives them (a class never
    predicted has precision NaN, and one with no real example recall NaN), with one departure: where
    no class with real examples is ever predicted, the ``weighted avg`` precision is NaN, as
    :func:`batcheval.evaluate`'s ``weighted_precision`` is (docs/measures.md), because every class
    left has weight 0; scikit-learn then falls back to the unweighted mean of those classes and
    gives 0.0 (1.0 under ``zero_division=1.0``). The intervals are those of
    :func:`batcheval.evaluate` (``ci=``).

    Parameters
    ----------
    data
        The examples: a polars DataFrame or LazyFrame, pyarrow Table, pandas DataFrame or dict of
        columns (counted as one table, with no keys), or a :class:`~batcheval.ContingencyTable` of
        exactly one group. Leave it None to give ``y_true`` and ``y_pred`` instead. No rows (a
        table of no examples, or of no classes, too), or a table of several groups, is an
        :class:`~batcheval.errors.InvalidArgumentError`; a null label or prediction a
        :class:`~batcheval.errors.NullValuesError`.
    label, prediction
        The columns of ``data`` holding the real and the predicted class (unused for a
        ContingencyTable).
    y_true, y_pred
        The real and predicted classes as sequences (lists, arrays, Series), in place of
        ``data``: give both, and no ``data``. A scalar, string, dict or generator is an
        :class:`~batcheval.errors.InvalidArgumentError`, as in :func:`batcheval.evaluate`.
    classes
        The class set, one row per class in sorted order; default the sorted union of the labels
        and predictions. A class no example holds gets a row of support 0 (NaN where a measure
        is undefined). A ContingencyTable keeps the classes it was counted over: ``classes=``
        naming other classes is refused.
    ci
        The confidence level of the informedness and markedness intervals, strictly between 0
        and 1; the header names it (``95% CI``). A report always has its intervals: ``None`` or
        a level outside (0, 1) is an :class:`~batcheval.errors.InvalidArgumentError` naming
        ``ci``, as in :func:`batcheval.leaderboard`.
    digits
        Decimal places of every value, an integer from 0 to 1074 (every float64 is written
        exactly in at most 1074 decimal places; more would only add zeros).

    Returns
    -------
    str
        The report: a header line, one line per class, then the accuracy, ``macro avg``,
        ``weighted avg`` (weighted by support) and ``overall`` lines, ending in a newline. The
        averages leave out classes whose value is undefined (NaN), and give no interval; the
        macro informedness and markedness also leave out a class with no real (predicted)
        example, whose line reads 0 by convention (as ``macro_informedness`` does).

    Examples
    --------
    >>> import batcheval as be
    >>> print(be.report(y_true=[0, 0, 1, 1, 1, 0, 1, 0], y_pred=[0, 1, 1, 1, 0, 0, 1, 0]))
                  precision  recall  f1-score  informedness (95% CI)  markedness (95% CI)    support
    <BLANKLINE>
               0      0.750   0.750     0.750  0.500 [-0.222, 0.868]  0.500 [-0.222, 0.868]        4
               1      0.750   0.750     0.750  0.500 [-0.222, 0.868]  0.500 [-0.222, 0.868]        4
    <BLANKLINE>
        accuracy                        0.750                                                      8
       macro avg      0.750   0.750     0.750  0.500                  0.500                        8
    weighted avg      0.750   0.750     0.750  0.500                  0.500                        8
         overall                               0.500 [-0.222, 0.868]  0.500 [-0.222, 0.868]        8
    <BLANKLINE>

    No class with real examples is predicted: the weighted precision is NaN (scikit-learn: 0.0).

    >>> [line for line in be.report(y_true=[1, 1], y_pred=[0, 0]).splitlines() if "weighted" in line]
    ['weighted avg        nan   0.000     0.000  0.000                  0.000                      2']
    """
    if isinstance(digits, bool) or not isinstance(digits, int | np.integer) or digits < 0:
        raise InvalidArgumentError(f"digits= must be a non-negative integer, got {digits!r}")
    if digits > _MAX_DIGITS:  # 2**70 raised the format's ValueError 'Too many decimal digits'
        raise InvalidArgumentError(f"digits= must be at most {_MAX_DIGITS}, got {digits!r}")
    ci = check_level(ci, "ci")  # before counting, and named as the user gave it (intervals() says level)
    table = confusion_table(data, label, prediction, y_true=y_true, y_pred=y_pred, classes=classes)
    counts = np.asarray(table.counts)
    per = table.measures(list(_PER_CLASS), per_class=True)
    support = (per["tp"] + per["fn"]).to_numpy()
    names = ["informedness", "markedness"]
    if counts.shape[1] == 2:  # as evaluate(per_class=True): positive=0 and 1 of the table as counted
        iv = by_class(lambda c: intervals(counts, names, ci, positive=c), (0, 1))
    else:
        iv = intervals(one_vs_rest(counts), names, ci)
    whole = table.measures(["accuracy", "informedness", "markedness"])
    whole_iv = intervals(counts, ["informedness", "markedness"], ci)
    level = percent(ci)
    d = digits

    def num(v: float) -> str:
        if np.isnan(v):
            return "nan"
        text = f"{v:.{d}f}"
        return text.lstrip("-") if float(text) == 0 else text  # -0.0004 rounds to 0, not to "-0"

    def with_ci(v: float, lo: float, hi: float) -> str:
        return f"{num(v)} [{num(lo)}, {num(hi)}]"

    names = [str(c) for c in per["class"].to_list()]
    rows = []
    for i, name in enumerate(names):
        vals = [per[m][i] for m in _PER_CLASS]
        bounds = [(iv[m][0][i], iv[m][1][i]) for m in ("informedness", "markedness")]
        rows.append([name, num(vals[0]), num(vals[1]), num(vals[2]), with_ci(vals[3], *bounds[0]),
                     with_ci(vals[4], *bounds[1]), str(int(support[i]))])  # fmt: skip
    n = int(support.sum())
    weights = support / n if n else np.full(len(support), np.nan)
    summary = [["accuracy", "", "", num(whole["accuracy"][0]), "", "", str(n)]]
    # a class with no real (predicted) example shows informedness (markedness) 0 by convention, a
    # value the macro means leave out, as macro_informedness does
    macro = table.measures(["macro_informedness", "macro_markedness"])
    for title, w in (("macro avg", None), ("weighted avg", weights)):
        means = []
        for m in _PER_CLASS:
            if w is None and m in ("informedness", "markedness"):
                means.append(float(macro[f"macro_{m}"][0]))
                continue
            v = per[m].to_numpy()
            ok = ~np.isnan(v)
            ww = np.ones(len(v)) if w is None else w  # classes with an undefined value are left out
            total = float(np.sum(ww[ok]))
            means.append(float(np.sum(v[ok] * ww[ok]) / total) if total else float("nan"))
        summary.append([title, *(num(x) for x in means), str(n)])
    overall = [
        with_ci(whole[m][0], whole_iv[m][0][0], whole_iv[m][1][0]) for m in ("informedness", "markedness")
    ]
    summary.append(["overall", "", "", "", *overall, str(n)])
    head = ["", "precision", "recall", "f1-score", f"informedness ({level} CI)", f"markedness ({level} CI)",
            "support"]  # fmt: skip
    widths = [max(len(r[j]) for r in [head, *rows, *summary]) for j in range(len(head))]

    def line(r: list[str]) -> str:
        cells = [r[0].rjust(widths[0])]
        for j in (1, 2, 3):
            cells.append(r[j].rjust(widths[j]))
        cells += [r[4].ljust(widths[4]), r[5].ljust(widths[5]), r[6].rjust(widths[6])]
        return "  ".join(cells).rstrip()

    out = [line(head), "", *(line(r) for r in rows), "", *(line(r) for r in summary)]
    return "\n".join(out) + "\n"


# the largest panel (heatmap, names and colour bar; inches), the most class names an axis shows, and
# the longest class name shown whole (longer ones are cut in the middle unless two would look alike)
_MAX_SIDE = 12.0
_MAX_TICKS = 40
_MAX_NAME = 24
_CELL = 0.45  # inches a class takes, at least


def _count_text(v: float) -> str:
    """A count as an integer (the cells' numbers); see ``_compact`` for cells too narrow for it."""
    return f"{v:.0f}"


def _compact(v: float) -> str:
    """A count in three significant digits with k, M, G: ``2_322_755`` -> ``'2.32M'``.

    Examples
    --------
    >>> [_compact(v) for v in (7, 999, 12_345, 2_322_755, 4.5e10)]
    ['7', '999', '12.3k', '2.32M', '45G']
    """
    for step, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= step:
            return f"{v / step:.3g}{unit}"
    return f"{v:.0f}"


def _fit_confusion(fig: Any, axes: Any, cells: list[tuple[Any, float]], k: int) -> None:
    """Size the figure from what its panels hold: class names, colour bars, and cells wide enough for
    their numbers.

    The figure's size came from k alone and tight_layout fit the names by shrinking the heatmaps:
    33-character names left two 126-pixel heatmaps in a 1100-pixel figure with their shares run
    together ("0.680.020.09"), and 20 classes of 7-digit counts ran together too.
    """
    renderer = fig.canvas.get_renderer()
    dpi = fig.dpi

    def inches(artists, what="width"):
        return max((getattr(a.get_window_extent(renderer), what) / dpi for a in artists if a.get_text()),
                   default=0.0)  # fmt: skip

    ax0 = axes[0]
    names_w = inches(ax0.get_yticklabels()) + inches([ax0.yaxis.label], "width") + 0.25
    names_h = inches(ax0.get_xticklabels(), "height") + inches([ax0.xaxis.label], "height") + 0.25
    titles = max(inches([ax.title]) for ax in axes)
    bar = 0.9  # the colour bar, its pad and its numbers
    # the widest panel's heatmap within _MAX_SIDE inches beside its names and colour bar
    most = max(_MAX_SIDE - names_w - bar, 1.5)
    side = min(max(_CELL * k, 2.0), most)
    if cells:
        cell = side / k
        counts = [(t, v) for t, v in cells if t.axes is ax0 and t.get_text()]
        if inches([t for t, _ in counts]) + 0.1 > cell:  # 7-digit counts ran into their neighbours
            for t, v in counts:
                t.set_text(_compact(v))
        wide = inches([t for t, _ in cells]) + 0.1
        if wide > cell:  # room for the numbers, up to the panel's limit
            side = min(wide * k, most)
            cell = side / k
            wide = inches([t for t, _ in cells]) + 0.1
            if wide > cell:
                size = cells[0][0].get_fontsize() * cell / wide
                for t, _ in cells:
                    t.set_fontsize(size)
    width = 2 * max(names_w + side + bar, titles + 0.2) + 0.3
    height = side + names_h + 1.2  # the figure's title and the panels'
    fig.set_size_inches(width, height)
    fig.tight_layout()


def plot_confusion(
    data: Any = None,
    label: str = "label",
    prediction: str = "prediction",
    *,
    y_true: Any = None,
    y_pred: Any = None,
    classes: Sequence[Any] | None = None,
    path: Any = None,
    title: str | None = None,
) -> Any:
    """A confusion-matrix heatmap of one table: counts beside the row-normalised table (each real
    class's share predicted as each class, so the diagonal holds the per-class recall).

    Parameters
    ----------
    data, label, prediction, y_true, y_pred, classes
        The table, as in :func:`report`: a frame or dict of columns with its ``label`` and
        ``prediction`` columns, a one-group :class:`~batcheval.ContingencyTable`, or ``y_true``
        and ``y_pred``; ``classes`` fixes the rows and columns (sorted). A real class with no
        examples has an empty row in the shares panel.
    path
        Where to save the figure as well (``Figure.savefig`` at 110 dpi; the file's extension
        picks the format, e.g. ``.png`` or ``.pdf``). Default: not saved. A path that cannot be
        written is refused before anything is drawn.
    title
        The figure's title; default ``"confusion matrix of N examples"``.

    Returns
    -------
    matplotlib.figure.Figure
        Two heatmaps, real class down and predicted class across: the counts, and each real
        class's share predicted as each class. Cells show their values up to 20 classes. The
        figure is sized from what it holds: cells at least 0.45 inch and wide enough for their
        numbers (counts too wide for a cell are written in three significant digits with k, M
        or G: ``2.32M``), and the class names beside them. A panel (heatmap, names and colour
        bar) is at most 12 inches wide, an axis names at most 40 classes (every second, third,
        ... class beyond that), and names over 24 characters are cut in the middle (``…``)
        unless two would look alike.

    Examples
    --------
    >>> import batcheval as be
    >>> fig = be.plot_confusion(y_true=[0, 0, 1, 1, 2, 2], y_pred=[0, 1, 1, 1, 2, 0])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['counts', 'share of each real class (row-normalised)']
    """
    check_path(path)
    check_title(title)  # 1, ['a'] or an object was drawn as its str(), where be.plot refuses it
    table = confusion_table(data, label, prediction, y_true=y_true, y_pred=y_pred, classes=classes)
    counts = np.asarray(table.counts)[0].astype(np.float64)
    rows = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(rows > 0, counts / rows, np.nan)
    names = [str(c) for c in table.classes.to_list()]
    k = len(names)
    plt = pyplot()
    # class names cut in the middle (as the other charts' names), unless that makes two alike
    short = [shorten(n, _MAX_NAME) for n in names]
    shown_names = short if len(set(short)) == len(set(names)) else names
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 4.0))  # sized below from what the panels hold
    # at most _MAX_TICKS class names an axis: every step-th class past that, still in order
    ticks = list(range(0, k, -(-k // _MAX_TICKS)))
    whole = np.isfinite(counts).all() and np.all(counts == np.round(counts))
    panels = ((axes[0], counts, "counts", _count_text if whole else "{:.3g}".format),
              (axes[1], shares, "share of each real class (row-normalised)", "{:.2f}".format))  # fmt: skip
    cells = []
    for ax, values, what, fmt in panels:
        image = ax.imshow(
            values, cmap="Blues", vmin=0, vmax=np.nanmax(values) if np.isfinite(values).any() else 1
        )
        top = np.nanmax(values) if np.isfinite(values).any() else 1.0
        if k <= 20:  # numbers in the cells while they stay legible
            for i in range(k):
                for j in range(k):
                    v = values[i, j]
                    text = "" if np.isnan(v) else fmt(v)
                    cells.append((ax.text(j, i, text, ha="center", va="center", fontsize="small",
                                          color="white" if v > 0.6 * top else "black"), v))  # fmt: skip
        shown = [literal(shown_names[i]) for i in ticks]
        size = "medium" if k <= 20 else "small" if k <= _MAX_TICKS else "x-small"
        slanted = max(map(len, shown)) > 3  # slanted names end at their column
        ax.set_xticks(ticks, shown, rotation=45 if slanted else 0, fontsize=size,
                      ha="right" if slanted else "center", rotation_mode="anchor")  # fmt: skip
        ax.set_yticks(ticks, shown, fontsize=size)
        ax.set_xlabel("predicted class")
        ax.set_ylabel("real class")
        ax.set_title(what, fontsize="medium")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.suptitle(title or f"confusion matrix of {int(counts.sum()):,} examples")
    _fit_confusion(fig, axes, cells, k)
    if path is not None:
        fig.savefig(path, dpi=110, bbox_inches="tight")
    return fig
