"""Names people know: aliases of the measures, and a "did you mean" for names that are not known.

A measure may be asked for by its batcheval name or by an alias from the wider literature
(``specificity``, ``tpr``, ``ppv``, ``youden_j``, ``balanced_accuracy``, ...). Averages are
named ``<average>_<measure>`` (``macro_f1``, ``weighted_recall``, ``macro_informedness``,
``bias_weighted_informedness``, ``prevalence_weighted_markedness``); the older
``<measure>_<average>`` names (``informedness_macro``, ...) stay valid. Output columns are
named **as asked**: ``measures=["specificity"]`` gives a ``specificity`` column (and
``specificity_ci_low`` ...), the default measure set gives the batcheval names.

Examples
--------
>>> from batcheval.measures.names import resolve
>>> resolve("informedness")
(['informedness'], {})
>>> resolve(["specificity", "recall"])
(['inverse_recall', 'recall'], {'inverse_recall': 'specificity'})
>>> resolve(["informednes"])
Traceback (most recent call last):
...
batcheval.errors.UnknownMeasureError: unknown measure 'informednes' (did you mean 'informedness'?); \
batcheval measures lists every name
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from ..errors import DuplicateColumnError, UnknownMeasureError
from .registry import BINARY_MEASURES, LOWER_IS_BETTER, MULTICLASS_MEASURES, MeasureName

__all__ = ["ALIASES", "as_measure_list", "canonical", "higher_is_better", "rename_columns", "resolve"]

#: Alias → batcheval name. Every alias is accepted wherever a measure is named.
ALIASES: dict[str, str] = {
    "sensitivity": "recall",
    "tpr": "recall",
    "true_positive_rate": "recall",
    "hit_rate": "recall",
    "specificity": "inverse_recall",
    "tnr": "inverse_recall",
    "true_negative_rate": "inverse_recall",
    "selectivity": "inverse_recall",
    "fpr": "fallout",
    "false_positive_rate": "fallout",
    "fnr": "miss_rate",
    "false_negative_rate": "miss_rate",
    "ppv": "precision",
    "positive_predictive_value": "precision",
    "npv": "inverse_precision",
    "negative_predictive_value": "inverse_precision",
    "youden_j": "informedness",
    "youden": "informedness",
    "bookmaker_informedness": "informedness",
    "phi": "correlation",
    "matthews": "mcc",
    "balanced_accuracy": "macro_recall",
    "f_measure": "f1",
    "kappa": "kappa_cohen",
    "auc_balanced": "auc_single",
    # one scheme for averages, <average>_<measure> as macro_f1 and weighted_f1 are: the names
    # of releases before it stay valid (their columns are named as asked)
    "informedness_macro": "macro_informedness",
    "informedness_bias_weighted": "bias_weighted_informedness",
    "markedness_macro": "macro_markedness",
    "markedness_prevalence_weighted": "prevalence_weighted_markedness",
    # the other weighting of each Bookmaker measure is the canonical one (docs/measures.md,
    # multiclass measures): Σ prevalence_k·informedness_k is informedness, Σ bias_k·markedness_k
    # markedness; and weighted_ weights by prevalence (support), as scikit-learn's "weighted"
    "prevalence_weighted_informedness": "informedness",
    "weighted_informedness": "informedness",
    "bias_weighted_markedness": "markedness",
    "weighted_markedness": "prevalence_weighted_markedness",
    "prevalence_weighted_f1": "weighted_f1",
    "prevalence_weighted_recall": "weighted_recall",
    "prevalence_weighted_precision": "weighted_precision",
}

#: Averages over classes, as in ``<average>_<measure>`` (or the older ``<measure>_<average>``);
#: bias_weighted and prevalence_weighted before weighted, which ends both.
_AVERAGES = ("prevalence_weighted", "bias_weighted", "weighted", "macro", "micro")
# measures whose micro average over the classes of a single-label table is accuracy
_MICRO_IS_ACCURACY = frozenset({"recall", "precision", "f1"})


def _known() -> list[str]:
    return list(dict.fromkeys([*BINARY_MEASURES, *MULTICLASS_MEASURES]))


def as_measure_list(measures: str | Sequence[str] | None) -> list[str] | None:
    """``None`` stays None, a string is one measure, anything else a list of names.

    Examples
    --------
    >>> as_measure_list("recall"), as_measure_list(("recall", "f1"))
    (['recall'], ['recall', 'f1'])
    >>> as_measure_list(3)
    Traceback (most recent call last):
    ...
    batcheval.errors.UnknownMeasureError: measures= takes a measure name or a list of names, got 3
    """
    if measures is None:
        return None
    if isinstance(measures, str):
        return [measures]
    if isinstance(measures, bytes | bytearray | memoryview | Mapping):
        # byte values (b"x" was read as 120, shown as the name refused) or a dict's keys alone
        raise UnknownMeasureError(f"measures= takes a measure name or a list of names, got {measures!r}")
    try:
        out = list(measures)
    except TypeError:
        raise UnknownMeasureError(
            f"measures= takes a measure name or a list of names, got {measures!r}"
        ) from None
    for m in out:
        if not isinstance(m, str):
            raise UnknownMeasureError(f"measures= takes measure names, got {m!r}")
    return out


def canonical(name: str) -> str:
    """The batcheval name of ``name`` (an alias or a batcheval name); unknown names raise.

    Examples
    --------
    >>> canonical("tpr"), canonical("recall")
    ('recall', 'recall')
    """
    if name in ALIASES:
        return ALIASES[name]
    if name in _known():
        return name
    raise UnknownMeasureError(f"unknown measure {name!r}{_hint(name)}; batcheval measures lists every name")


# suffixes of evaluate's columns that hold the measure itself, and so rank in its direction: _mean,
# its mean over the pooled groups; not _ci_low/_ci_high (the ends of an interval, not a value to
# rank runs by) nor _std (a spread, better neither way)
_SAME_DIRECTION_SUFFIXES: tuple[str, ...] = ("_mean",)


def higher_is_better(name: Any, given: Any = None) -> Any:
    """Whether a better classifier has more of the measure ``name`` (a batcheval name or an
    alias, in any case: ``"FPR"``, ``"Fallout"``; or a column that holds it, ``<measure>_mean``
    of a pooled :func:`batcheval.evaluate`, its mean over the pooled groups): ``given``, a caller's
    ``higher_is_better=``, where it is not None (the caller checks it is a flag), and otherwise
    false for :data:`~batcheval.measures.registry.LOWER_IS_BETTER`. Any other name (a score column
    of the caller's own, ``<measure>_std``, or a column given otherwise than by name) ranks highest
    first, as do the measures that describe the data rather than the classifier (``prevalence``,
    the evenness) and the χ² statistics. The measures of association (the χ² statistics, mutual
    information, conditional entropy and the two-sided p-values) rank a classifier that is always
    wrong as high as one that is always right: rank by informedness to tell them apart.

    Examples
    --------
    >>> higher_is_better("informedness"), higher_is_better("fpr"), higher_is_better("my_score")
    (True, False, True)
    >>> higher_is_better("Fallout"), higher_is_better("fallout_mean"), higher_is_better("fallout_std")
    (False, False, True)
    >>> higher_is_better("fpr", given=True)
    True
    """
    if given is not None:
        return given
    if not isinstance(name, str):
        return True
    lowered = name.lower()
    if lowered not in ALIASES and lowered not in _known():  # a measure's column: its measure's way
        for suffix in _SAME_DIRECTION_SUFFIXES:
            if lowered.endswith(suffix):
                lowered = lowered.removesuffix(suffix)
                break
    return ALIASES.get(lowered, lowered) not in LOWER_IS_BETTER


def _split_average(name: str) -> tuple[str | None, str]:
    """``(average, measure)`` of an average's name in either order, ``(None, name)`` for any other."""
    for average in _AVERAGES:
        if name.startswith(f"{average}_"):
            return average, name[len(average) + 1 :]
        if name.endswith(f"_{average}"):
            return average, name[: -len(average) - 1]
    return None, name


def _hint(name: str) -> str:
    """What the caller may have meant by the unknown ``name``, in parentheses, or "".

    A close name is only offered with the same average and a close measure: whole names once
    differed in their measure alone (``prevalence_weighted_informedness`` got
    ``prevalence_weighted_markedness``, a different measure).

    Examples
    --------
    >>> _hint("f1_macro"), _hint("macro_informednes"), _hint("Recall")
    (" (did you mean 'macro_f1'?)", " (did you mean 'macro_informedness'?)", " (did you mean 'recall'?)")
    >>> _hint("macro_kappa")
    " (batcheval has no macro average of 'kappa'; per_class=True gives its one-vs-rest values)"
    """
    known = [*_known(), *ALIASES]
    plain = name.strip().lower().replace("-", "_").replace(" ", "_")
    if plain != name and plain in known:
        return f" (did you mean {plain!r}?)"
    average, stem = _split_average(plain)
    measure = ALIASES.get(stem, stem)
    if average == "micro":
        pooling = "pool= pools the tables of folds or seeds before measuring"
        if measure in _MICRO_IS_ACCURACY:
            return (
                f" (micro-averaged over the classes of single-label tables, {stem} is accuracy: "
                f"ask for 'accuracy'; {pooling})"
            )
        return f" (batcheval has no micro average over classes; {pooling})"
    if average is None:
        plain_names = [k for k in known if _split_average(k)[0] is None]
        close = difflib.get_close_matches(plain, plain_names, n=1, cutoff=0.75)
        return f" (did you mean {close[0]!r}?)" if close else ""
    named: dict[
        str, str
    ] = {}  # measure → the name of this average of it, <average>_<measure> where one exists
    for k in known:
        a, m = _split_average(k)
        if a == average and (m not in named or k == f"{a}_{m}"):
            named[m] = k
    close = [m for m in (stem, measure) if m in named] or difflib.get_close_matches(
        stem, named, n=1, cutoff=0.75
    )
    if close and named[close[0]] != name:
        return f" (did you mean {named[close[0]]!r}?)"
    if measure in _known():
        return (
            f" (batcheval has no {average.replace('_', '-')} average of {stem!r}; "
            "per_class=True gives its one-vs-rest values)"
        )
    return ""


def resolve(measures: str | Sequence[str] | None) -> tuple[list[str] | None, dict[str, str]]:
    """Batcheval names of ``measures`` and the output renaming {batcheval name: name asked}."""
    names = as_measure_list(measures)
    if names is None:
        return None, {}
    out: list[str] = []
    rename: dict[str, str] = {}
    for name in names:
        canon = canonical(name)
        if canon in out:  # asked twice under two names: one column, named as first asked
            continue
        if canon != name:
            rename[canon] = name
            canon = MeasureName(canon, name)
        out.append(canon)
    return out, rename


# column suffixes that belong to a measure's column (intervals, pooled spreads, abstentions)
_SUFFIXES = ("", "_ci_low", "_ci_high", "_mean", "_std", "_overall", "_overall_mean", "_overall_std")


def rename_columns(frame: pl.DataFrame, rename: Mapping[str, str]) -> pl.DataFrame:
    """Rename each measure's columns (and their interval/pool suffixes) to the name asked for."""
    if not rename:
        return frame
    mapping: dict[str, str] = {}
    cols = set(frame.columns)
    for canon, asked in rename.items():
        for suffix in _SUFFIXES:
            for prefix in ("", "best_"):
                col = f"{prefix}{canon}{suffix}"
                if col in cols:
                    mapping[col] = f"{prefix}{asked}{suffix}"
    kept = cols - set(mapping)
    for new in mapping.values():
        if new in kept:  # a key column of the measure's name, as asked
            raise DuplicateColumnError(
                f"key column {new!r} has the name of an output column (the measures); "
                f"rename it, e.g. df.rename({{{new!r}: '{new}_key'}})"
            )
    return frame.rename(mapping)
