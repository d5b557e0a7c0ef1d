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

import polars as pl

from ..errors import DuplicateColumnError, UnknownMeasureError
from .registry import BINARY_MEASURES, MULTICLASS_MEASURES

__all__ = ["ALIASES", "as_measure_list", "canonical", "rename_columns", "resolve"]

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
}


def _known() -> list[str]:
    return list(dict.fromkeys([*BINARY_MEASURES, *MULTICLASS_MEASURES]))


def as_measure_list(measures: str | Sequence[str] | None) -> list[str] | None:
    """``None`` stays None, a string is one measure, anything else a list of names."""
    if measures is None:
        return None
    if isinstance(measures, str):
        return [measures]
    out = list(measures)
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
    known = _known()
    if name in known:
        return name
    close = difflib.get_close_matches(name, [*known, *ALIASES], n=1, cutoff=0.75)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownMeasureError(f"unknown measure {name!r}{hint}; batcheval measures lists every name")


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
        out.append(canon)
        if canon != name:
            rename[canon] = name
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
