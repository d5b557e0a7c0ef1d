"""Tests of the *reference* implementation itself (tests/reference/naive.py).

The reference is checked against the papers' worked examples, scikit-learn,
scipy and the identities of the measures specification (batcheval follows it; its
definitions are docs/measures.md, its sources docs/references.md), §2-§4 below.
Those tests use no batcheval code. Two at the end exercise batcheval itself (``import
batcheval as be``), against means of one-vs-rest rates and known values:
``test_macro_informedness_leaves_out_classes_without_examples_on_both_sides``
(``ContingencyTable.measures``) and
``test_perfect_classifier_of_a_fold_without_a_class_has_macro_informedness_1``
(``evaluate``).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats
from sklearn import metrics

import batcheval as be

try:  # works whether or not tests/ is a package
    from tests.reference import naive, worked_examples
except ModuleNotFoundError:  # pragma: no cover - depends on pytest's rootdir handling
    from reference import naive, worked_examples  # type: ignore[no-redef]

binary_reference = naive.binary_reference
multiclass_reference = naive.multiclass_reference
one_vs_rest = naive.one_vs_rest

REL, ABS = 1e-9, 1e-9


def same(a: float, b: float, rel: float = REL, abs_: float = ABS) -> bool:
    """Float equality up to rounding; NaN equals NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def square_tables(k_min: int = 2, k_max: int = 2, max_count: int = 40) -> st.SearchStrategy:
    """KxK count tables (spec orientation), zeros and degenerate margins allowed."""
    return st.integers(k_min, k_max).flatmap(
        lambda k: arrays(np.int64, (k, k), elements=st.integers(0, max_count))
    )


def nonempty(t: np.ndarray) -> bool:
    return bool(t.sum() > 0)


def full_margins(t: np.ndarray) -> bool:
    """Every real class and every predicted label occurs."""
    return bool((t.sum(axis=0) > 0).all() and (t.sum(axis=1) > 0).all())


def labels(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand a count table into (y_true, y_pred) label vectors."""
    k = t.shape[0]
    real, pred = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    reps = t.ravel()
    return np.repeat(real.ravel(), reps), np.repeat(pred.ravel(), reps)


# --------------------------------------------------------------------------
# worked examples
# --------------------------------------------------------------------------


@pytest.mark.parametrize("example", worked_examples.ALL_EXAMPLES, ids=lambda e: e.source.split(".txt, ")[-1])
def test_worked_example(example: worked_examples.WorkedExample) -> None:
    got = binary_reference(example.table, positive=example.positive)
    for name, (value, tol) in example.expected.items():
        assert abs(got[name] - value) <= tol, (example.source, name, got[name], value)


@pytest.mark.parametrize("claim", worked_examples.CLAIMS, ids=lambda c: f"{c.source[-30:]}-{c.measure}")
def test_worked_claim(claim: worked_examples.Claim) -> None:
    got = binary_reference(claim.table, positive=claim.positive)[claim.measure]
    assert got < claim.threshold if claim.relation == "<" else got > claim.threshold


def test_000_table2_figures_deliberately_not_reproduced() -> None:
    """000 Table 2: the χ²₊R column (2.22, 1.61) disagrees with eq. 33, and the
    plain "χ²" column is the +P-row χ², not the spec's four-cell chi2."""
    first, second = (ex.table for ex in worked_examples.EXAMPLES_000)
    a, b = binary_reference(first), binary_reference(second)
    assert same(a["chi2_pos_real"], 100 * a["markedness"] ** 2 * a["evenness_predicted"] / 0.60)
    assert abs(a["chi2_pos_real"] - 1.5764) < 1e-4 and abs(b["chi2_pos_real"] - 1.5046) < 1e-4
    assert abs(a["chi2"] - 3.9409) < 1e-4 and abs(b["chi2"] - 4.7020) < 1e-4  # ≠ 2.29, 1.13


def test_002_mixture_tables_are_exact() -> None:
    """The reconstruction recovers the mixing proportion as informedness exactly."""
    for informed in ("0", "1", "0.15", "-0.15"):
        for p, q in (("1/2", "1/2"), ("4/5", "4/5"), ("4/5", "1/5")):
            table = worked_examples.mixture(p, q, informed)
            assert table.sum() == 10_000
            assert same(binary_reference(table)["informedness"], float(informed))


def test_printed_tolerance() -> None:
    assert worked_examples.printed("19.85%") == pytest.approx((0.1985, 0.00005))
    assert worked_examples.printed("2.29") == pytest.approx((2.29, 0.005))
    assert worked_examples.printed("-0.1") == pytest.approx((-0.1, 0.05))
    assert worked_examples.printed("83%") == pytest.approx((0.83, 0.005))


# --------------------------------------------------------------------------
# binary: scikit-learn and scipy
# --------------------------------------------------------------------------


# scikit-learn warns (UserWarning, UndefinedMetricWarning, numpy RuntimeWarning)
# on the degenerate tables these tests feed it on purpose.
SKLEARN_QUIET = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::RuntimeWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)


@SKLEARN_QUIET
@given(square_tables())
def test_binary_against_sklearn(t: np.ndarray) -> None:
    if not nonempty(t):
        return
    y, p = labels(t)
    r = binary_reference(t)
    kw = dict(labels=[0, 1], pos_label=1, average="binary", zero_division=np.nan)
    assert same(r["recall"], metrics.recall_score(y, p, **kw))
    assert same(r["precision"], metrics.precision_score(y, p, **kw))
    assert same(r["f1"], metrics.f1_score(y, p, **kw))
    f2 = binary_reference(t, beta=2.0)["f_beta"]
    assert same(f2, metrics.fbeta_score(y, p, beta=2.0, **kw))
    if t[1, 1] + t[0, 1] + t[1, 0] > 0:  # sklearn's jaccard has no zero_division=nan
        assert same(r["jaccard"], metrics.jaccard_score(y, p, labels=[0, 1]))
    assert same(r["accuracy"], metrics.accuracy_score(y, p))
    assert same(r["correlation"], metrics.matthews_corrcoef(y, p))  # 0.0 on zero margins too
    r0 = binary_reference(t, positive=0)
    assert same(r0["recall"], metrics.recall_score(y, p, **{**kw, "pos_label": 0}))
    rp, rn, pp, pn = t[1].sum(), t[0].sum(), t[:, 1].sum(), t[:, 0].sum()
    if rp > 0 and rn > 0:
        assert same(r["informedness"], metrics.balanced_accuracy_score(y, p, adjusted=True))
        # sklearn's (tpr, fpr) point and (1 + informedness)/2
        assert same(r["auc_single"], metrics.roc_auc_score(y, p))
    if not ((rp == pp == 0) or (rn == pn == 0)):  # otherwise 1 - e = 0 (see test below)
        assert same(r["kappa_cohen"], metrics.cohen_kappa_score(y, p, labels=[0, 1]))
    lr_plus, lr_minus = metrics.class_likelihood_ratios(y, p, labels=[0, 1], replace_undefined_by=np.nan)
    assert same(r["lr_plus"], lr_plus) and same(r["lr_minus"], lr_minus)


@given(square_tables(2, 2))
def test_binary_against_scipy(t: np.ndarray) -> None:
    if not nonempty(t):
        return
    r = binary_reference(t)
    if full_margins(t):
        res = stats.chi2_contingency(t, correction=False)
        assert same(r["chi2"], res.statistic) and same(r["p_chi2"], res.pvalue) and res.dof == 1
        res = stats.chi2_contingency(t, correction=False, lambda_="log-likelihood")
        assert same(r["g2"], res.statistic) and same(r["p_g2"], res.pvalue)
    # Fisher one-sided = P(TP ≥ tp) under the hypergeometric null with fixed margins
    tp, rp, pp, n = int(t[1, 1]), int(t[1].sum()), int(t[:, 1].sum()), int(t.sum())
    assert same(r["p_fisher"], float(stats.hypergeom.sf(tp - 1, n, rp, pp)), rel=1e-7)
    assert 0.0 <= r["alpha_sbb"] <= 0.5


# --------------------------------------------------------------------------
# binary: spec §2 identities and symmetries
# --------------------------------------------------------------------------


@given(square_tables(max_count=10_000))
def test_binary_identities(t: np.ndarray) -> None:
    if not nonempty(t):
        return
    r = binary_reference(t, beta=1.0)
    prev, bias, dtp = r["prevalence"], r["bias"], r["dtp"]
    tn, fp, fn, tp = (float(x) for x in t.ravel())
    n = t.sum()

    def by(den: float) -> float:  # the 0.0 rule: numerator dtp is 0 whenever den is
        return dtp / den if den else 0.0

    assert same(dtp, (tp * tn - fp * fn) / n**2)
    assert same(r["informedness"], by(r["evenness_real"]))
    assert same(r["markedness"], by(r["evenness_predicted"]))
    assert same(r["correlation"], by(r["evenness_global"]))
    assert same(r["kappa_cohen"], by((prev * (1 - bias) + bias * (1 - prev)) / 2))
    # The spec's kappa_fleiss = dtp/((prev+bias)(2-prev-bias)/4) (002 eq. 6) only
    # holds when prev = bias; from the definition the numerator is dtp - d²,
    # d = (prev - bias)/2 (see test_kappa_fleiss_spec_identity_needs_equal_margins).
    fleiss_den = (prev + bias) * (2 - prev - bias) / 4
    d = (prev - bias) / 2
    assert same(r["kappa_fleiss"], (dtp - d * d) / fleiss_den if fleiss_den else 0.0)
    if prev == bias:
        assert same(r["kappa_fleiss"], by(fleiss_den))
    assert same(r["correlation"], math.copysign(math.sqrt(r["bookmark"]), dtp))
    assert same(r["bookmark"], r["correlation"] ** 2)
    assert same(r["wracc"], 4 * dtp)
    assert same(r["f_beta"], r["f1"])
    if not math.isnan(r["recall"] + r["inverse_recall"]):
        assert same(r["informedness"], r["recall"] - r["fallout"])
        assert same(r["auc_single"], (1 + r["informedness"]) / 2)
    if not math.isnan(r["recall"] + r["precision"]) and r["recall"] + r["precision"] > 0:
        hm = 2 * r["recall"] * r["precision"] / (r["recall"] + r["precision"])
        assert same(r["f1"], hm)
    # §3: the chi-squared family
    assert same(r["chi2"], n * r["correlation"] ** 2)
    mi_nats = sum(
        o / n * math.log(o * n / (t[i].sum() * t[:, j].sum())) for (i, j), o in np.ndenumerate(t) if o > 0
    )
    assert same(r["g2"], 2 * n * mi_nats)
    if bias > 0:
        assert same(r["chi2_pos_pred"], n * r["informedness"] ** 2 * r["evenness_real"] / bias)
    if prev > 0:
        assert same(r["chi2_pos_real"], n * r["markedness"] ** 2 * r["evenness_predicted"] / prev)
    assert same(r["chi2_kbm"], math.sqrt(r["chi2_kb"] * r["chi2_km"]))
    for name in ("chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km", "chi2_kbm"):
        assert same(r[f"p_{name}"], float(stats.chi2.sf(r[name], 1)))
    assert same(r["alpha_sbb"], naive.sbb_alpha(r["p_informedness"]))  # spec §3: from p_informedness


def test_kappa_fleiss_spec_identity_needs_equal_margins() -> None:
    """Spec §2 lists kappa_fleiss = dtp/((prev+bias)(2-prev-bias)/4) as an identity.

    It is false when prevalence ≠ bias: the definition (accuracy - e)/(1 - e)
    gives (dtp - ((prev - bias)/2)²)/((prev+bias)(2-prev-bias)/4).  002's own
    Table 3 (kFleiss -36 % for a pure-chance 4:1/1:4 table, where dtp = 0)
    agrees with the definition, not with eq. 6.
    """
    r = binary_reference(worked_examples.mixture("4/5", "1/5", "0"))
    assert abs(r["dtp"]) < 1e-15 and same(r["kappa_fleiss"], -0.36)
    r = binary_reference(np.array([[1, 0], [1, 1]]))  # prev 2/3, bias 1/3
    den = (r["prevalence"] + r["bias"]) * (2 - r["prevalence"] - r["bias"]) / 4
    assert same(r["kappa_fleiss"], 1 / 3) and same(r["dtp"] / den, 4 / 9)


CLASS_SWAP_INVARIANT = (
    "accuracy", "informedness", "markedness", "correlation", "bookmark", "dtp",
    "evenness_real", "evenness_predicted", "evenness_global", "kappa_cohen",
    "kappa_fleiss", "wracc", "auc_single", "odds_ratio", "chi2", "g2", "chi2_kb",
    "chi2_km", "chi2_kbm", "p_fisher",
)  # fmt: skip
TRANSPOSE_PAIRS = (
    ("informedness", "markedness"), ("recall", "precision"), ("prevalence", "bias"),
    ("inverse_recall", "inverse_precision"), ("evenness_real", "evenness_predicted"),
    ("chi2_pos_pred", "chi2_pos_real"), ("chi2_kb", "chi2_km"),
    ("correlation", "correlation"), ("kappa_cohen", "kappa_cohen"),
    ("kappa_fleiss", "kappa_fleiss"), ("f1", "f1"), ("jaccard", "jaccard"),
    ("accuracy", "accuracy"), ("chi2", "chi2"), ("g2", "g2"), ("chi2_kbm", "chi2_kbm"),
    ("p_fisher", "p_fisher"), ("odds_ratio", "odds_ratio"),
)  # fmt: skip


@given(square_tables(max_count=200))
def test_binary_class_swap(t: np.ndarray) -> None:
    """Swapping positive and negative (labels and predictions) keeps informedness etc."""
    r1, r0 = binary_reference(t), binary_reference(t, positive=0)
    flipped = binary_reference(t[::-1, ::-1])
    for name in r1:
        assert same(r0[name], flipped[name]), name
    for name in CLASS_SWAP_INVARIANT:
        assert same(r0[name], r1[name]), name
    for a, b in (("recall", "inverse_recall"), ("precision", "inverse_precision"),
                 ("fallout", "miss_rate"), ("prevalence", "bias")):  # fmt: skip
        if a == "prevalence":
            assert same(r0[a], 1 - r1[a]) and same(r0[b], 1 - r1[b])
        else:
            assert same(r0[a], r1[b]) and same(r0[b], r1[a]), a


@given(square_tables(max_count=200))
def test_binary_transpose(t: np.ndarray) -> None:
    """Swapping real and predicted exchanges informedness/markedness, recall/precision."""
    r, rt = binary_reference(t), binary_reference(t.T)
    for a, b in TRANSPOSE_PAIRS:
        assert same(r[a], rt[b]) and same(r[b], rt[a]), (a, b)


# --------------------------------------------------------------------------
# binary: degenerate tables
# --------------------------------------------------------------------------


def test_binary_empty_table_is_all_nan() -> None:
    r = binary_reference(np.zeros((2, 2), dtype=np.int64), beta=0.5)
    assert set(r) == set(naive.BINARY_MEASURES) | set(naive.BINARY_SIGNIFICANCE) | {"f_beta"}
    assert all(math.isnan(v) for v in r.values())
    assert all(math.isnan(v) for v in multiclass_reference(np.zeros((3, 3), dtype=np.int64)).values())


@pytest.mark.parametrize("label", [0, 1])
@pytest.mark.parametrize("rp,rn", [(70, 30), (1, 99), (100, 0), (0, 100)])
def test_binary_constant_classifier(label: int, rp: int, rn: int) -> None:
    """Always answering one label: informedness 0 whatever the prevalence (spec §2)."""
    t = np.zeros((2, 2), dtype=np.int64)
    t[1, label], t[0, label] = rp, rn
    r = binary_reference(t)
    for name in ("informedness", "markedness", "correlation", "bookmark", "kappa_cohen",
                 "dtp", "wracc", "chi2", "g2", "chi2_pos_pred", "chi2_pos_real",
                 "chi2_kb", "chi2_km", "chi2_kbm"):  # fmt: skip
        assert r[name] == 0.0, name
    # Fleiss/Scott's chance level uses the *mean* margin, so a constant
    # classifier is penalized unless prevalence = bias (then 1 - e = 0 → 0.0).
    prev, bias = r["prevalence"], r["bias"]
    assert r["kappa_fleiss"] <= 0.0
    assert (r["kappa_fleiss"] == 0.0) == (prev == bias)
    for name in ("p_chi2", "p_g2", "p_chi2_pos_pred", "p_chi2_pos_real", "p_chi2_kb", "p_chi2_km",
                 "p_chi2_kbm", "p_fisher"):  # fmt: skip
        assert r[name] == 1.0, name
    assert r["alpha_sbb"] == 0.5
    assert math.isnan(r["precision"] if label == 0 else r["inverse_precision"])
    assert math.isnan(r["odds_ratio"]) and math.isnan(r["lr_minus" if label == 1 else "lr_plus"])


def test_binary_plain_ratios_nan_not_zero() -> None:
    r = binary_reference(np.array([[5, 0], [0, 0]]))  # nothing positive at all
    for name in ("recall", "precision", "miss_rate", "jaccard", "f1", "g_measure", "lift", "auc_single"):
        assert math.isnan(r[name]), name
    assert r["inverse_recall"] == 1.0 and r["accuracy"] == 1.0 and r["informedness"] == 0.0


def test_sbb_alpha() -> None:
    e = math.e
    assert naive.sbb_alpha(1 / e) == 0.5 and naive.sbb_alpha(0.9) == 0.5
    assert naive.sbb_alpha(1 / e - 1e-12) == pytest.approx(0.5)
    p = 0.05  # L = -e·p·ln p
    likelihood = -e * p * math.log(p)
    assert naive.sbb_alpha(p) == pytest.approx(likelihood / (1 + likelihood))
    assert naive.sbb_alpha(p) == pytest.approx(0.2893, abs=1e-4)  # the usual SBB figure for 0.05
    assert naive.sbb_alpha(0.0) == 0.0 and math.isnan(naive.sbb_alpha(float("nan")))


# --------------------------------------------------------------------------
# multiclass
# --------------------------------------------------------------------------


@SKLEARN_QUIET
@given(square_tables(3, 5, max_count=12))
def test_multiclass_against_sklearn(t: np.ndarray) -> None:
    if not nonempty(t):
        return
    k = t.shape[0]
    y, p = labels(t)
    r = multiclass_reference(t, chance=False)
    assert same(r["accuracy"], metrics.accuracy_score(y, p))
    assert same(r["mcc"], metrics.matthews_corrcoef(y, p))
    if len(set(y) | set(p)) > 1:  # otherwise 1 - e = 0
        assert same(r["kappa_cohen"], metrics.cohen_kappa_score(y, p, labels=list(range(k))))
    assert same(r["mutual_information"], metrics.mutual_info_score(None, None, contingency=t) / math.log(2))
    h_real = -sum(s / t.sum() * math.log2(s / t.sum()) for s in t.sum(axis=1) if s > 0)
    assert same(r["conditional_entropy"], h_real - r["mutual_information"])
    for cls, m in enumerate(metrics.multilabel_confusion_matrix(y, p, labels=list(range(k)))):
        assert (one_vs_rest(t, cls) == m).all()
    kw = dict(labels=list(range(k)), zero_division=np.nan)
    for avg in ("macro", "weighted"):  # sklearn leaves undefined classes out, as the reference does
        for name, fn in (("recall", metrics.recall_score), ("precision", metrics.precision_score),
                         ("f1", metrics.f1_score)):  # fmt: skip
            expected = fn(y, p, average=avg, **kw)
            # where every defined class has zero support sklearn answers 0; we say NaN (nothing to weigh)
            if avg == "weighted" and math.isnan(r[f"{avg}_{name}"]) and expected == 0.0:
                continue
            assert same(r[f"{avg}_{name}"], expected), (avg, name)
    # scipy on the present sub-table (rows with a real example, columns with a prediction), whose
    # dof is (K_real - 1)(K_pred - 1): the absent classes of the class set change nothing
    sub = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if min(sub.shape) >= 2:
        res = stats.chi2_contingency(sub, correction=False)
        assert same(r["chi2"], res.statistic) and same(r["p_chi2"], res.pvalue)
        assert res.dof == (k - 1) ** 2 or not full_margins(t)
        res = stats.chi2_contingency(sub, correction=False, lambda_="log-likelihood")
        assert same(r["g2"], res.statistic) and same(r["p_g2"], res.pvalue)
    elif t.sum() > 0:
        assert r["p_chi2"] == r["p_g2"] == 1.0  # one class in a margin: nothing to test


@SKLEARN_QUIET
def test_multiclass_undefined_per_class_is_left_out() -> None:
    """Class 2 is never predicted: its precision is undefined and left out of the averages."""
    t = np.array([[5, 1, 0], [2, 6, 0], [1, 3, 0]])
    r = multiclass_reference(t)
    assert same(r["macro_precision"], (5 / 8 + 6 / 10) / 2)
    assert same(r["weighted_precision"], (6 * 5 / 8 + 8 * 6 / 10) / 14)
    y, p = labels(t)
    assert metrics.precision_score(y, p, average="macro", zero_division=0) < r["macro_precision"]
    everything_undefined = multiclass_reference(np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0]]))
    assert math.isnan(everything_undefined["macro_precision"])


@given(square_tables(3, 5, max_count=30))
def test_multiclass_identities(t: np.ndarray) -> None:
    if not nonempty(t):
        return
    r = multiclass_reference(t, chance=False)  # tests/test_chance.py checks the p-values
    n, k = t.sum(), t.shape[0]
    prev, bias = t.sum(axis=1) / n, t.sum(axis=0) / n
    per = [binary_reference(one_vs_rest(t, c)) for c in range(k)]
    # spec §4: Bookmaker = Σ prevalence_k·informedness_k = Σ dtp_k/(1 - prevalence_k)
    assert same(r["informedness"], sum(prev[c] * per[c]["informedness"] for c in range(k)))
    assert same(r["informedness"], sum(per[c]["dtp"] / (1 - prev[c]) for c in range(k) if prev[c] < 1))
    assert same(r["markedness"], sum(bias[c] * per[c]["markedness"] for c in range(k)))
    # the dual: transposing exchanges informedness and markedness
    rt = multiclass_reference(t.T, chance=False)
    for a, b in (("informedness", "markedness"), ("evenness_real", "evenness_predicted"),
                 ("chi2_kb", "chi2_km"), ("mcc", "mcc"), ("kappa_cohen", "kappa_cohen"),
                 ("chi2", "chi2"), ("g2", "g2"), ("mutual_information", "mutual_information"),
                 ("macro_recall", "macro_precision")):  # fmt: skip
        assert same(r[a], rt[b]) and same(r[b], rt[a]), (a, b)
    # relabelling the classes consistently changes nothing
    perm = np.roll(np.arange(k), 1)
    rp = multiclass_reference(t[np.ix_(perm, perm)], chance=False)
    for name in naive.MULTICLASS_MEASURES:
        assert same(r[name], rp[name]), name
    assert same(r["weighted_recall"], r["accuracy"]) or math.isnan(r["weighted_recall"])
    assert same(r["g2"], 2 * n * math.log(2) * r["mutual_information"])
    if r["informedness"] * r["markedness"] < 0:
        assert math.isnan(r["correlation"])
    else:
        assert same(r["correlation"] ** 2, r["informedness"] * r["markedness"])
    if all(0 < x < 1 for x in prev):
        hm = 2 * k / sum(1 / x + 1 / (1 - x) for x in prev)
        assert same(r["evenness_real"], hm / 2)
    # spec §4: K_real and K_pred count the present classes; all K when every class is present
    k_real, k_pred = int((prev > 0).sum()), int((bias > 0).sum())
    scale = math.sqrt(k_real * k_pred) * n
    assert same(r["chi2_kbm"], scale * r["informedness"] * r["markedness"] * r["evenness_global"])


@settings(max_examples=300, deadline=None)
@given(square_tables(2, 2, max_count=30))
def test_multiclass_k2_equals_binary(t: np.ndarray) -> None:
    """Spec §4: for K = 2 every multiclass measure equals the binary one."""
    m, b = multiclass_reference(t), binary_reference(t)
    shared = set(m) & set(b)
    assert {"informedness", "markedness", "correlation", "chi2_kbm", "p_chi2_kb"} <= shared
    for name in shared:
        assert same(m[name], b[name]), (name, m[name], b[name])
    assert same(m["mcc"], b["correlation"])
    for name in ("bias_weighted_informedness", "macro_informedness"):
        assert same(m[name], b["informedness"]), name
    for name in ("prevalence_weighted_markedness", "macro_markedness"):
        assert same(m[name], b["markedness"]), name


def test_one_vs_rest() -> None:
    t = np.array([[5, 2, 1], [3, 7, 0], [1, 1, 9]])
    assert (one_vs_rest(t, 0) == np.array([[17, 4], [3, 5]])).all()
    assert (one_vs_rest(t, 2) == np.array([[17, 1], [2, 9]])).all()
    for c in range(3):
        assert one_vs_rest(t, c).sum() == t.sum()


@settings(max_examples=300, deadline=None)
@given(square_tables(3, 5, max_count=6), st.lists(st.booleans(), min_size=5, max_size=5))
def test_macro_informedness_leaves_out_classes_without_examples_on_both_sides(
    t: np.ndarray, absent: list[bool]
) -> None:
    """macro_informedness (macro_markedness) is the plain mean of the one-vs-rest informedness
    (markedness) over the classes with real (predicted) examples in the group and outside it: a
    perfect classifier of a fold that lacks a class scored 2/3 when that class's 0 was counted."""
    for c, gone in enumerate(absent[: len(t)]):
        if gone:  # classes of the class set that this group lacks
            t[c, :] = 0
            t[:, c] = 0
    if t.sum() == 0:
        return
    out = be.ContingencyTable(pl.DataFrame({"g": [0]}), list(range(len(t))), t[None])
    got = out.measures(["macro_informedness", "macro_markedness"]).row(0, named=True)
    n = t.sum()
    for name, margins in (("informedness", t.sum(axis=1)), ("markedness", t.sum(axis=0))):
        values = []
        for c in range(len(t)):
            if 0 < margins[c] < n:
                (tn, fp), (fn, tp) = one_vs_rest(t, c)
                if name == "informedness":
                    values.append(tp / (tp + fn) - fp / (fp + tn))
                else:
                    values.append(tp / (tp + fp) + tn / (tn + fn) - 1)
        expected = float(np.mean(values)) if values else 0.0
        assert got[f"macro_{name}"] == pytest.approx(expected, abs=1e-12), (name, t)


def test_perfect_classifier_of_a_fold_without_a_class_has_macro_informedness_1() -> None:
    df = pl.DataFrame({"fold": [0] * 6 + [1] * 4, "label": [0, 0, 1, 1, 2, 2, 0, 0, 1, 1]})
    df = df.with_columns(prediction=pl.col("label"))
    out = be.evaluate(df, by="fold", pool="fold", measures=["macro_informedness", "macro_markedness"])
    columns = ("macro_informedness", "macro_informedness_mean", "macro_markedness_mean")
    assert [out[c][0] for c in columns] == [1.0, 1.0, 1.0]
    named = be.evaluate(df.filter(pl.col("fold") == 0), measures=["macro_informedness"], classes=[0, 1, 2, 3])
    assert named["macro_informedness"][0] == 1.0
