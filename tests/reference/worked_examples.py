"""Worked examples printed in the source papers (``/work/shared/seeds/``), as data.

Every table is in the spec's orientation, ``table[i, j]`` = real class ``i``
predicted as ``j`` (the papers print the transpose, predictions as rows), with
class 1 positive unless ``positive`` says otherwise.  Expected values use the
spec's column names and are ``(value, absolute tolerance)`` where the
tolerance is half a unit in the last printed place (``printed("19.85%")`` →
``(0.1985, 0.00005)``), unless a note says otherwise.

Encoded:

* 000 Table 2 — two binary tables, N = 100.  The paper's plain "χ²" column is
  Pearson's χ² over the +P row only, i.e. the spec's ``chi2_pos_pred`` (it
  prints the same value as the χ²₊P column), NOT the spec's four-cell
  ``chi2``.  Its χ²₊R figures (2.22, 1.61) are not reproduced by its own
  eq. 33 (which gives 1.576 and 1.505); the spec follows the equation, so
  they are left out.  The paper's statements that the one-sided Fisher test is
  significant at 0.05 for both tables while the χ² statistics are not are
  encoded as ``CLAIMS``.
* 001 Figure 1 — the four Bookmaker models (0 %, 100 %, +15 %, -15 %
  informed) on a 70/30 population of 100; the fractional counts of models 3-4
  (58.1, 20.4, …) are multiplied by 10 to give integer counts, which leaves
  every ratio unchanged (chi-squared figures are not printed there).  The
  "I…" (inverse) figures are encoded as separate cases with ``positive=0``.
  The "noun" example of 001 ("Analysis of the Binary Case" preamble) too.
* 002 Tables 2 and 3 — the mixture model: a proportion B of informed
  decisions (deliberately wrong ones for B < 0) mixed with 1 - |B| chance
  decisions made with prevalence p and an independent chance bias q.  The
  paper prints only accuracies, F and kappas, but the mixture is fully
  determined by (p, q, B), so the tables are reconstructed exactly (as
  probabilities x 10 000, which are whole numbers for these parameters).
  Table 2 gives accuracy and f1; the first three columns of each Table 3
  block (the same 12 settings) give informedness, prevalence, bias,
  kappa_cohen and kappa_fleiss.
* 003 — the three cases of the practitioner's note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import numpy as np


@dataclass(frozen=True)
class WorkedExample:
    """One printed table: where it is from, the counts and the printed values."""

    source: str
    table: np.ndarray
    expected: dict[str, tuple[float, float]]
    positive: int = 1
    note: str = ""


@dataclass(frozen=True)
class Claim:
    """A printed inequality: ``measure`` < or > ``threshold`` for ``table``."""

    source: str
    table: np.ndarray
    measure: str
    relation: str  # "<" or ">"
    threshold: float
    positive: int = 1
    extra: dict[str, str] = field(default_factory=dict)


def printed(text: str) -> tuple[float, float]:
    """A printed figure and half a unit in its last place; ``%`` divides by 100.

    ``printed("19.85%")`` → (0.1985, 0.00005); ``printed("2.29")`` → (2.29, 0.005).
    """
    scale = Decimal(100) if text.endswith("%") else Decimal(1)
    number = Decimal(text.rstrip("%"))
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    half_unit = Decimal(5).scaleb(exponent - 1)
    return float(number / scale), float(half_unit / scale)


def binary(tp: int, fp: int, fn: int, tn: int) -> np.ndarray:
    """A 2x2 table in spec orientation, ``[[tn, fp], [fn, tp]]``."""
    return np.array([[tn, fp], [fn, tp]], dtype=np.int64)


def mixture(prevalence: str, chance_bias: str, informed: str, n: int = 10_000) -> np.ndarray:
    """002's mixture model as an exact count table (spec orientation).

    A proportion ``|informed|`` of decisions is informed — correct for
    ``informed`` ≥ 0, deliberately wrong for ``informed`` < 0 — and the rest
    are guesses: positive with probability ``chance_bias`` independently of
    the real class, whose prevalence is ``prevalence``.
    """
    p, q, b = Fraction(prevalence), Fraction(chance_bias), Fraction(informed)
    g = 1 - abs(b)
    cells = {
        "tp": g * p * q,
        "fn": g * p * (1 - q),
        "fp": g * (1 - p) * q,
        "tn": g * (1 - p) * (1 - q),
    }
    if b >= 0:
        cells["tp"] += b * p
        cells["tn"] += b * (1 - p)
    else:
        cells["fn"] += -b * p
        cells["fp"] += -b * (1 - p)
    counts = {k: v * n for k, v in cells.items()}
    assert all(v.denominator == 1 for v in counts.values()), "choose n so counts are whole"
    c = {k: int(v) for k, v in counts.items()}
    return binary(c["tp"], c["fp"], c["fn"], c["tn"])


def _expect(**figures: str) -> dict[str, tuple[float, float]]:
    return {name: printed(text) for name, text in figures.items()}


# --------------------------------------------------------------------------
# 000 (Powers, "Evaluation: From Precision, Recall and F-Factor …"), Table 2
# --------------------------------------------------------------------------

_P000 = "000_344ace6ea428aadd.txt, §3 Table 2"
_T000_A = binary(tp=30, fp=12, fn=30, tn=28)
_T000_B = binary(tp=56, fp=20, fn=12, tn=12)

EXAMPLES_000: list[WorkedExample] = [
    WorkedExample(
        f"{_P000}, first table",
        _T000_A,
        _expect(
            prevalence="60.0%",
            bias="42.0%",
            informedness="20.00%",
            markedness="19.70%",
            correlation="19.85%",
            recall="50.00%",
            precision="71.43%",
            accuracy="58.00%",
            f1="58.82%",
            g_measure="59.76%",
            kappa_cohen="18.60%",
            chi2_pos_pred="2.29",
            chi2_kb="1.92",
            chi2_km="1.89",
            chi2_kbm="1.91",
        ),
        note="χ² column (2.29) = chi2_pos_pred; χ²₊R 2.22 not reproducible (eq. 33 gives 1.576)",
    ),
    WorkedExample(
        f"{_P000}, second table",
        _T000_B,
        _expect(
            prevalence="68.0%",
            bias="76.0%",
            informedness="19.85%",
            markedness="23.68%",
            correlation="21.68%",
            recall="82.35%",
            precision="73.68%",
            accuracy="68.00%",
            f1="77.78%",
            g_measure="77.90%",
            kappa_cohen="21.26%",
            chi2_pos_pred="1.13",
            chi2_kb="1.72",
            chi2_km="2.05",
            chi2_kbm="1.87",
        ),
        note="χ² column (1.13) = chi2_pos_pred; χ²₊R 1.61 not reproducible (eq. 33 gives 1.505)",
    ),
]

#: 000 §3: "the Fisher Exact Test shows significance to the 0.05 level for both
#: the examples in Table 2" while "neither of these contingencies differ
#: sufficiently from chance at N=100 to be significant to the 0.05 level" by χ².
CLAIMS: list[Claim] = [
    Claim(f"{_P000}, {which}, text below the table", table, measure, relation, 0.05)
    for which, table in (("first table", _T000_A), ("second table", _T000_B))
    for measure, relation in (
        ("p_fisher", "<"),
        ("p_chi2_pos_pred", ">"),
        ("p_chi2_kb", ">"),
        ("p_chi2_km", ">"),
        ("p_chi2_kbm", ">"),
    )
]

# --------------------------------------------------------------------------
# 001 (Powers, "Recall & Precision versus the Bookmaker"), Figure 1
# --------------------------------------------------------------------------

_P001 = "001_2e6358f89d4958f5.txt, Figure 1"
# (model, table) with counts x10 of the printed ones
_MODELS_001 = [
    ("Model 1", binary(tp=560, fp=240, fn=140, tn=60)),
    ("Model 2", binary(tp=700, fp=0, fn=0, tn=300)),
    ("Model 3", binary(tp=581, fp=204, fn=119, tn=96)),
    ("Model 4", binary(tp=476, fp=249, fn=224, tn=51)),
]
_FIG1_POSITIVE = [
    # Bookmaker (informedness), Recall, Precision, Accuracy, F(0.5), G(0.5)
    dict(informedness="0%", recall="80%", precision="70%", accuracy="62%", f1="74.67%", g_measure="74.83%"),
    dict(informedness="100%", recall="100%", precision="100%", accuracy="100%",
         f1="100.00%", g_measure="100.00%"),
    dict(informedness="15%", recall="83%", precision="74%", accuracy="68%", f1="78.25%", g_measure="78.38%"),
    dict(informedness="-15%", recall="68%", precision="66%", accuracy="53%", f1="66.81%", g_measure="66.82%"),
]  # fmt: skip
_FIG1_NEGATIVE = [
    # IRecall, IPrecision, IF(0.5), IG(0.5): the same measures for class 0
    dict(recall="20%", precision="30%", f1="24.00%", g_measure="24.49%"),
    dict(recall="100%", precision="100%", f1="100.00%", g_measure="100.00%"),
    dict(recall="32%", precision="45%", f1="37.28%", g_measure="37.80%"),
    dict(recall="17%", precision="19%", f1="17.74%", g_measure="17.76%"),
]

EXAMPLES_001: list[WorkedExample] = (
    [
        WorkedExample(
            f"{_P001}, {model}",
            table,
            _expect(**pos),
            note="counts are 10x the printed ones (58.1 → 581, …)" if model in ("Model 3", "Model 4") else "",
        )
        for (model, table), pos in zip(_MODELS_001, _FIG1_POSITIVE, strict=True)
    ]
    + [
        WorkedExample(
            f"{_P001}, {model}, inverse (I…) figures",
            table,
            _expect(**neg),
            positive=0,
            note="IRecall/IPrecision/IF/IG are recall/precision/f1/g_measure of class 0",
        )
        for (model, table), neg in zip(_MODELS_001, _FIG1_NEGATIVE, strict=True)
    ]
    + [
        WorkedExample(
            "001_2e6358f89d4958f5.txt, 'noun' example before 'Analysis of the Binary Case'",
            binary(tp=90, fp=10, fn=0, tn=0),
            _expect(recall="100%", precision="90%"),
            note="always saying 'noun': recall 90/90, precision 90/100",
        ),
    ]
)

# --------------------------------------------------------------------------
# 002 (Powers, "The Problem with Kappa"), Tables 2 and 3
# --------------------------------------------------------------------------

_P002 = "002_910eb7c6a2510595.txt"
# Column headings "prevalence odds / chance-bias odds" → (p, q).
_SETTINGS_002 = {"1:1/1:1": ("1/2", "1/2"), "4:1/4:1": ("4/5", "4/5"), "4:1/1:4": ("4/5", "1/5")}
# Table 2: (Acc, F) per informed proportion and column.
_TABLE2_002 = {
    "0": [("50%", "50%"), ("68%", "80%"), ("32%", "32%")],
    "1": [("100%", "100%"), ("100%", "100%"), ("100%", "100%")],
    "0.15": [("57.5%", "57.5%"), ("72.8%", "83%"), ("42.2%", "46.97%")],
    "-0.15": [("42.5%", "42.5%"), ("57.8%", "72%"), ("27.2%", "27.2%")],
}
# Table 3, first three columns of each block:
# (Informedness, Prevalence, Bias, kCohen, kFleiss); None = not encoded.
_TABLE3_002: dict[str, list[tuple[str, str | None, str | None, str, str]]] = {
    "0": [("0%", "50%", "50%", "0%", "0%"), ("0%", "80%", "80%", "0%", "0%"),
          ("0%", "80%", "20%", "0%", "-36%")],
    "1": [("100%", "50%", "50%", "100%", "100%"), ("100%", "80%", "80%", "100%", "100%"),
          ("100%", "80%", "80%", "100%", "100%")],
    "0.15": [("15%", "50%", "50%", "15%", "15%"), ("15%", "80%", "80%", "15%", "15%"),
             ("15%", "80%", "29%", "8%", "-17%")],
    # third column prints Prevalence 20 % / Bias 80 %, i.e. the class-swapped
    # view of the Table 2 setting (p = 80 %, resulting bias 20 %): those two
    # figures are encoded in a separate positive=0 case below.
    "-0.15": [("-15%", "50%", "50%", "-15%", "-15%"), ("-15%", "80%", "71%", "-13%", "-14%"),
              ("-15%", None, None, "-7%", "-46%")],
}  # fmt: skip

EXAMPLES_002: list[WorkedExample] = []
for _informed, _row in _TABLE2_002.items():
    for _col, ((_heading, (_p, _q)), (_acc, _f)) in enumerate(zip(_SETTINGS_002.items(), _row, strict=True)):
        _inf, _prev, _bias, _kc, _kf = _TABLE3_002[_informed][_col]
        _figures = dict(accuracy=_acc, f1=_f, informedness=_inf, kappa_cohen=_kc, kappa_fleiss=_kf)
        if _prev is not None and _bias is not None:
            _figures.update(prevalence=_prev, bias=_bias)
        EXAMPLES_002.append(
            WorkedExample(
                f"{_P002}, Table 2 (accuracy, f1) and Table 3 (other figures), "
                f"informed {_informed}, column {_heading}",
                mixture(_p, _q, _informed),
                _expect(**_figures),
                note=f"mixture model p={_p}, chance bias q={_q}, informed B={_informed}, x10 000",
            )
        )
EXAMPLES_002.append(
    WorkedExample(
        f"{_P002}, Table 3, informed -15%, column 4:1 1:4 (Prevalence/Bias rows)",
        mixture("4/5", "1/5", "-0.15"),
        _expect(prevalence="20%", bias="80%"),
        positive=0,
        note="Table 3 prints this column with the classes swapped relative to Table 2",
    )
)

# --------------------------------------------------------------------------
# 003 (Ranganath, "Informedness and Markedness"), three cases
# --------------------------------------------------------------------------

_P003 = "003_82075097977b32cd.txt"
EXAMPLES_003: list[WorkedExample] = [
    WorkedExample(
        f"{_P003}, case 1 (E1: RP=100, RN=10, M1)",
        binary(tp=90, fp=10, fn=10, tn=0),
        _expect(recall="0.9", precision="0.9", informedness="-0.1", markedness="-0.1"),
    ),
    WorkedExample(
        f"{_P003}, case 2 (E2: RP=100, RN=100, M2)",
        binary(tp=90, fp=10, fn=10, tn=90),
        _expect(recall="0.9", precision="0.9", inverse_precision="0.9", informedness="0.8", markedness="0.8"),
    ),
    WorkedExample(
        f"{_P003}, case 3 (E3: RP=1000, RN=100, M2)",
        binary(tp=900, fp=10, fn=100, tn=90),
        {
            **_expect(recall="0.9", inverse_precision="0.47", informedness="0.8", markedness="0.46"),
            # printed "900/910=.98": 0.98901 truncated, not rounded → one full unit
            "precision": (0.98, 0.01),
        },
        note="precision printed truncated (.98 for 0.989); tolerance is one unit",
    ),
]

ALL_EXAMPLES: list[WorkedExample] = EXAMPLES_000 + EXAMPLES_001 + EXAMPLES_002 + EXAMPLES_003
