"""Independent, one-table-at-a-time reference implementation of the measure spec.

Everything here is written straight from ``/work/shared/spec/measures.md``
("the spec"; section numbers below refer to it) for clarity, not speed, and
deliberately shares no code with ``batcheval``.  Each measure is computed from
its *definition* column, not from the identities the spec lists, so that tests
checking those identities are meaningful.

Orientation (spec §1): ``table[i, j]`` is the number of examples of real class
``i`` predicted as ``j``.  For a binary table with positive class 1:
``tp = t[1, 1]``, ``fn = t[1, 0]``, ``fp = t[0, 1]``, ``tn = t[0, 0]``.

Degenerate tables (spec §2 "Degenerate tables"):

* a plain ratio whose denominator is 0 is NaN;
* informedness, markedness, correlation, bookmark, kappa_cohen, kappa_fleiss
  are 0.0 when the margin in their denominator is 0;
* the chi-squared family is 0.0 (p = 1) when a margin is 0 and n > 0;
* n = 0 gives NaN for every measure.

Choices where the spec leaves room (kept here so batcheval can be held to them):

* ``auc_single`` = (recall + inverse_recall)/2 is NaN when rp = 0 or rn = 0
  (its rates are plain ratios), although (1 + informedness)/2 would say 0.5.
* ``lr_plus``, ``lr_minus``, ``odds_ratio``, ``lift``: NaN on a zero
  denominator, never inf.
* kappa_fleiss follows its definition; the spec's identity
  dtp/((prev+bias)(2-prev-bias)/4) only holds when prevalence = bias.
* multiclass chi2/g2 leave out cells whose expected count is 0 (a zero
  margin), and every χ² tail takes dof = (K_real-1)(K_pred-1) over the classes present in
  each margin (scipy's chi2_contingency of the table without its empty rows and columns;
  0 dof, p = 1, when a margin holds one class); correlation is 0.0 when
  informedness·markedness = 0.
* macro_* / weighted_*: see ``multiclass_reference``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .chance import chance_2x2, chance_multiclass

NAN = float("nan")

#: Spec §2, in table order (``f_beta`` is only returned when ``beta`` is given).
BINARY_MEASURES: tuple[str, ...] = (
    "prevalence", "bias", "recall", "precision", "inverse_recall",
    "inverse_precision", "fallout", "miss_rate", "accuracy", "jaccard", "f1",
    "g_measure", "informedness", "markedness", "correlation", "bookmark", "dtp",
    "evenness_real", "evenness_predicted", "evenness_global", "kappa_cohen",
    "kappa_fleiss", "wracc", "auc_single", "lift", "lr_plus", "lr_minus",
    "odds_ratio",
)  # fmt: skip

#: Spec §3 for a 2x2 table.
BINARY_SIGNIFICANCE: tuple[str, ...] = (
    "chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km",
    "chi2_kbm", "p_chi2", "p_g2", "p_chi2_pos_pred", "p_chi2_pos_real",
    "p_chi2_kb", "p_chi2_km", "p_chi2_kbm", "p_fisher", "alpha_sbb",
    "p_informedness", "p_markedness",
)  # fmt: skip

#: Spec §4 (plus the explicitly named alternative weightings).
MULTICLASS_MEASURES: tuple[str, ...] = (
    "accuracy", "informedness", "markedness", "correlation", "mcc",
    "kappa_cohen", "kappa_fleiss", "evenness_real", "evenness_predicted",
    "evenness_global", "chi2", "g2", "chi2_kb", "chi2_km", "chi2_kbm",
    "p_chi2", "p_g2", "p_chi2_kb", "p_chi2_km", "p_chi2_kbm",
    "p_informedness", "p_markedness", "mutual_information", "conditional_entropy", "macro_recall",
    "macro_precision", "macro_f1", "weighted_recall", "weighted_precision",
    "weighted_f1", "bias_weighted_informedness", "macro_informedness",
    "prevalence_weighted_markedness", "macro_markedness",
)  # fmt: skip


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


def ratio(numerator: float, denominator: float) -> float:
    """Plain ratio; NaN when the denominator is 0 (spec §2, degenerate rule 1)."""
    return numerator / denominator if denominator != 0 else NAN


def margin_ratio(numerator: float, denominator: float) -> float:
    """Ratio of a chance-corrected measure; 0.0 when its margin is 0 (spec §2, rule 2)."""
    return numerator / denominator if denominator != 0 else 0.0


def chi2_sf(statistic: float, dof: int) -> float:
    """Upper-tail chi-squared probability (spec §3 ``p_*``)."""
    return float(stats.chi2.sf(statistic, dof))


def sbb_alpha(p: float) -> float:
    """Sellke-Bayarri-Berger calibrated alpha (000 eqs. 36-37, spec §3 ``alpha_sbb``).

    L(p) = -e·p·ln p for p < 1/e; for p ≥ 1/e the value is 1/2 (L = 1, which is
    also the limit of -e·p·ln p at p = 1/e, so the function is continuous).
    alpha = 1/(1 + 1/L).  p = 0 gives L = 0 and alpha = 0.
    """
    if math.isnan(p):
        return NAN
    if p >= 1.0 / math.e:
        return 0.5
    if p <= 0.0:
        return 0.0
    likelihood = -math.e * p * math.log(p)
    return 1.0 / (1.0 + 1.0 / likelihood)


def _pearson_cells(observed: list[float], expected: list[float]) -> float:
    """Σ (O - E)²/E over the given cells (Pearson's χ²)."""
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def _log_likelihood_cells(observed: list[float], expected: list[float]) -> float:
    """2·Σ O·ln(O/E) over the given cells, with 0·ln 0 = 0 (G²)."""
    return 2.0 * sum(o * math.log(o / e) for o, e in zip(observed, expected, strict=True) if o > 0)


def one_vs_rest(table: np.ndarray, k: int) -> np.ndarray:
    """The 2x2 table (spec orientation) with class ``k`` as positive (index 1).

    ``[[tn, fp], [fn, tp]]`` where tp = t[k, k], fn = real k predicted
    otherwise, fp = predicted k but really otherwise, tn = everything else.
    """
    t = np.asarray(table)
    tp = t[k, k]
    fn = t[k, :].sum() - tp
    fp = t[:, k].sum() - tp
    tn = t.sum() - tp - fn - fp
    return np.array([[tn, fp], [fn, tp]], dtype=t.dtype)


# --------------------------------------------------------------------------
# binary
# --------------------------------------------------------------------------


def binary_reference(
    table: np.ndarray, positive: int = 1, beta: float | None = None, exact_tests: bool = True
) -> dict[str, float]:
    """Every spec §2 and §3 measure of one 2x2 table (real x predicted).

    ``positive`` names the positive class (spec §1: class 1 unless the user
    names another); ``f_beta`` is included only when ``beta`` is given.
    ``exact_tests=False`` leaves out ``p_fisher``, ``p_informedness``, ``p_markedness`` and
    ``alpha_sbb``, whose exact sums take scipy seconds a table at counts of 10⁹.
    """
    t = np.asarray(table)
    if t.shape != (2, 2):
        raise ValueError(f"binary_reference needs a 2x2 table, got shape {t.shape}")
    if positive not in (0, 1):
        raise ValueError("positive must be 0 or 1")
    neg = 1 - positive
    tp, fn = float(t[positive, positive]), float(t[positive, neg])
    fp, tn = float(t[neg, positive]), float(t[neg, neg])
    n = tp + fp + fn + tn

    names = list(BINARY_MEASURES) + list(BINARY_SIGNIFICANCE)
    if beta is not None:
        names.append("f_beta")
    if n == 0:  # spec §2: an empty group gives NaN for every measure
        return dict.fromkeys(names, NAN)

    # margins (spec §1)
    rp, rn, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
    out: dict[str, float] = {}

    # --- spec §2, plain ratios -------------------------------------------
    prevalence = rp / n
    bias = pp / n
    out["prevalence"] = prevalence
    out["bias"] = bias
    recall = ratio(tp, rp)
    precision = ratio(tp, pp)
    inverse_recall = ratio(tn, rn)
    inverse_precision = ratio(tn, pn)
    fallout = ratio(fp, rn)
    miss_rate = ratio(fn, rp)
    out["recall"] = recall
    out["precision"] = precision
    out["inverse_recall"] = inverse_recall
    out["inverse_precision"] = inverse_precision
    out["fallout"] = fallout
    out["miss_rate"] = miss_rate
    out["accuracy"] = (tp + tn) / n
    out["jaccard"] = ratio(tp, tp + fp + fn)
    out["f1"] = ratio(2 * tp, 2 * tp + fp + fn)
    if beta is not None:
        b2 = beta * beta
        out["f_beta"] = ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    out["g_measure"] = math.sqrt(recall * precision)  # NaN propagates

    # --- spec §2, chance-corrected (0.0 on a zero margin) -----------------
    # informedness = recall + inverse_recall - 1; its denominators are rp, rn.
    informedness = tp / rp + tn / rn - 1 if rp > 0 and rn > 0 else 0.0
    # markedness = precision + inverse_precision - 1; denominators pp, pn.
    markedness = tp / pp + tn / pn - 1 if pp > 0 and pn > 0 else 0.0
    out["informedness"] = informedness
    out["markedness"] = markedness
    out["correlation"] = margin_ratio(tp * tn - fp * fn, math.sqrt(rp * rn * pp * pn))
    out["bookmark"] = informedness * markedness
    out["dtp"] = tp / n - prevalence * bias
    evenness_real = prevalence * (1 - prevalence)
    evenness_predicted = bias * (1 - bias)
    evenness_global = math.sqrt(evenness_real * evenness_predicted)
    out["evenness_real"] = evenness_real
    out["evenness_predicted"] = evenness_predicted
    out["evenness_global"] = evenness_global
    # kappa = (accuracy - e)/(1 - e), multiplied through by n² (by 4n² for
    # Fleiss) so that the numerator is an exact count difference and a zero
    # stays exactly zero:
    #   Cohen  e = prevalence·bias + (1 - prevalence)(1 - bias)
    #   Fleiss e = ((prevalence + bias)/2)² + ((2 - prevalence - bias)/2)²
    e_cohen_n2 = rp * pp + rn * pn
    out["kappa_cohen"] = margin_ratio(n * (tp + tn) - e_cohen_n2, n * n - e_cohen_n2)
    e_fleiss_4n2 = (rp + pp) ** 2 + (rn + pn) ** 2
    out["kappa_fleiss"] = margin_ratio(4 * n * (tp + tn) - e_fleiss_4n2, 4 * n * n - e_fleiss_4n2)
    out["wracc"] = 4 * out["dtp"]
    # auc_single is defined as (recall + inverse_recall)/2, so it is NaN when
    # either rate is undefined (a one-class table).  The spec's alternative
    # form (1 + informedness)/2 would give 0.5 there: the spec is ambiguous.
    out["auc_single"] = (recall + inverse_recall) / 2
    out["lift"] = ratio(precision, prevalence)
    out["lr_plus"] = ratio(recall, fallout)
    out["lr_minus"] = ratio(miss_rate, inverse_recall)
    out["odds_ratio"] = ratio(tp * tn, fp * fn)

    # --- spec §3, significance -------------------------------------------
    zero_margin = min(rp, rn, pp, pn) == 0
    if zero_margin:
        chi2 = g2 = chi2_pos_pred = chi2_pos_real = 0.0
    else:
        obs = [tp, fn, fp, tn]
        exp = [rp * pp / n, rp * pn / n, rn * pp / n, rn * pn / n]
        chi2 = _pearson_cells(obs, exp)  # all four cells
        g2 = _log_likelihood_cells(obs, exp)
        # the +P row of the papers' layout = the predicted-positive column here
        chi2_pos_pred = _pearson_cells([tp, fp], [rp * pp / n, rn * pp / n])
        # the +R column of the papers' layout = the real-positive row here
        chi2_pos_real = _pearson_cells([tp, fn], [rp * pp / n, rp * pn / n])
    out["chi2"] = chi2
    out["g2"] = g2
    out["chi2_pos_pred"] = chi2_pos_pred
    out["chi2_pos_real"] = chi2_pos_real
    out["chi2_kb"] = 2 * n * informedness**2 * evenness_real  # 000 eq. 32
    out["chi2_km"] = 2 * n * markedness**2 * evenness_predicted  # eq. 34
    out["chi2_kbm"] = 2 * n * informedness * markedness * evenness_global  # eq. 35
    for name in ("chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km", "chi2_kbm"):
        out[f"p_{name}"] = chi2_sf(out[name], 1)
    if not exact_tests:
        return {name: out[name] for name in names if name in out}
    # Fisher exact, one-sided towards positive association (tp·tn > fp·fn).
    fisher_table = [[round(tp), round(fn)], [round(fp), round(tn)]]
    with np.errstate(divide="ignore", invalid="ignore"):  # scipy's odds ratio on zero cells
        out["p_fisher"] = float(stats.fisher_exact(fisher_table, alternative="greater").pvalue)
    # the calibrated chance tests (spec §3): for K = 2 both test the one cell tp given the margins
    out["p_informedness"] = out["p_markedness"] = chance_2x2(round(tp), round(fp), round(fn), round(tn))
    out["alpha_sbb"] = sbb_alpha(out["p_informedness"])
    return {name: out[name] for name in names}


# --------------------------------------------------------------------------
# multiclass
# --------------------------------------------------------------------------


def _half_harmonic_evenness(shares: np.ndarray) -> float:
    """Half the harmonic mean of the shares s_k and 1 - s_k of the present classes (spec §4).

    A class with share 0 is left out; 0.0 if a share is 1.  For K = 2 this is s·(1 - s).
    """
    present = [float(s) for s in shares if s > 0]
    values = present + [1.0 - s for s in present]
    if any(v == 0 for v in values):
        return 0.0
    harmonic = len(values) / sum(1.0 / v for v in values)
    return harmonic / 2


def _weighted(values: list[float], weights: np.ndarray) -> float:
    """Σ w_k·x_k where zero-weight terms contribute 0 even if x_k is NaN."""
    return float(sum(w * x for w, x in zip(weights, values, strict=True) if w != 0))


def multiclass_reference(table: np.ndarray, chance: bool = True) -> dict[str, float]:
    """Every spec §4 measure of one KxK table (real x predicted), K ≥ 2.

    ``p_informedness`` and ``p_markedness`` are None for a table of at most 60 examples with too
    many tables of its margins to enumerate (batcheval estimates them by shuffles), and NaN
    when ``chance`` is False.

    macro_* / weighted_*: unweighted / prevalence-weighted means of the
    one-vs-rest recall, precision and f1, as scikit-learn's
    ``average='macro'`` / ``'weighted'`` with ``labels=range(K)`` and
    ``zero_division=np.nan``: an undefined per-class value (zero denominator)
    is left out of the average, never counted as 0.
    """
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise ValueError(f"multiclass_reference needs a KxK table with K ≥ 2, got {t.shape}")
    k_classes = t.shape[0]
    counts = t.astype(float)
    n = float(counts.sum())
    if n == 0:
        return dict.fromkeys(MULTICLASS_MEASURES, NAN)

    real = counts.sum(axis=1)
    predicted = counts.sum(axis=0)
    prevalence = real / n
    bias = predicted / n
    per_class = [binary_reference(one_vs_rest(t, k)) for k in range(k_classes)]
    out: dict[str, float] = {}

    out["accuracy"] = float(np.trace(counts)) / n

    # Bookmaker (001 "Analysis of the General Case", spec §4): a bet on label l
    # is placed with probability bias_l and pays
    # (precision_l - prevalence_l)/(1 - prevalence_l); an unused label or a
    # class that is everything contributes 0.
    informedness = 0.0
    for lab in range(k_classes):
        if predicted[lab] == 0 or prevalence[lab] == 1:
            continue
        precision_l = counts[lab, lab] / predicted[lab]
        informedness += bias[lab] * (precision_l - prevalence[lab]) / (1 - prevalence[lab])
    out["informedness"] = float(informedness)
    # Markedness: Σ_k bias_k·markedness_k (000 eq. 43).
    markedness = float(sum(bias[k] * per_class[k]["markedness"] for k in range(k_classes)))
    out["markedness"] = markedness
    # Correlation: sign·sqrt(informedness·markedness), NaN on opposite signs.
    product = informedness * markedness
    if product < 0:
        out["correlation"] = NAN
    elif product == 0:
        out["correlation"] = 0.0
    else:
        out["correlation"] = math.copysign(math.sqrt(product), informedness)

    # Gorodkin's R_K as the covariance of the one-hot real and predicted
    # vectors: Σ_k dtp_k / sqrt(Σ_k prev_k(1-prev_k) · Σ_k bias_k(1-bias_k)).
    cov_rp = sum(counts[k, k] / n - prevalence[k] * bias[k] for k in range(k_classes))
    cov_rr = sum(prevalence[k] * (1 - prevalence[k]) for k in range(k_classes))
    cov_pp = sum(bias[k] * (1 - bias[k]) for k in range(k_classes))
    out["mcc"] = float(margin_ratio(cov_rp, math.sqrt(cov_rr * cov_pp)))

    # kappa = (accuracy - e)/(1 - e) in counts (x n², x 4n² for Fleiss):
    #   Cohen  e = Σ_k prevalence_k·bias_k,  Fleiss e = Σ_k ((prevalence_k + bias_k)/2)²
    trace = float(np.trace(counts))
    e_cohen_n2 = float(np.sum(real * predicted))
    out["kappa_cohen"] = margin_ratio(n * trace - e_cohen_n2, n * n - e_cohen_n2)
    e_fleiss_4n2 = float(np.sum((real + predicted) ** 2))
    out["kappa_fleiss"] = margin_ratio(4 * n * trace - e_fleiss_4n2, 4 * n * n - e_fleiss_4n2)

    evenness_real = _half_harmonic_evenness(prevalence)
    evenness_predicted = _half_harmonic_evenness(bias)
    evenness_global = math.sqrt(evenness_real * evenness_predicted)
    out["evenness_real"] = evenness_real
    out["evenness_predicted"] = evenness_predicted
    out["evenness_global"] = evenness_global

    # Pearson χ² and G² over all K² cells; cells with E = 0 (a zero margin)
    # have O = 0 as well and are left out.
    observed: list[float] = []
    expected: list[float] = []
    for i in range(k_classes):
        for j in range(k_classes):
            e = real[i] * predicted[j] / n
            if e > 0:
                observed.append(float(counts[i, j]))
                expected.append(float(e))
    out["chi2"] = _pearson_cells(observed, expected)
    out["g2"] = _log_likelihood_cells(observed, expected)
    # K_real and K_pred count the classes present in each margin (spec §4)
    k_real, k_pred = int((real > 0).sum()), int((predicted > 0).sum())
    out["chi2_kb"] = k_real * n * informedness**2 * evenness_real  # 000 §5 (39)
    out["chi2_km"] = k_pred * n * markedness**2 * evenness_predicted  # (40)
    out["chi2_kbm"] = math.copysign(math.sqrt(out["chi2_kb"] * out["chi2_km"]), informedness * markedness)
    # a test of independence of the present sub-table: rows with a real example, columns with a
    # prediction (a class of the class set absent from this table adds no degree of freedom)
    dof = (k_real - 1) * (k_pred - 1)
    for name in ("chi2", "g2", "chi2_kb", "chi2_km", "chi2_kbm"):
        # scipy gives 1 for a negative statistic; with 0 dof nothing is tested: 1
        out[f"p_{name}"] = chi2_sf(out[name], dof) if dof > 0 else 1.0
    for which in ("informedness", "markedness"):
        out[f"p_{which}"] = chance_multiclass(t, which) if chance else math.nan

    # Information in bits: MI(R;P) and H(R | P) (000 eqs. 39-40).
    mutual_information = 0.0
    conditional_entropy = 0.0
    for i in range(k_classes):
        for j in range(k_classes):
            if counts[i, j] == 0:
                continue
            p_ij = counts[i, j] / n
            mutual_information += p_ij * math.log2(p_ij / (prevalence[i] * bias[j]))
            conditional_entropy -= p_ij * math.log2(p_ij / bias[j])
    out["mutual_information"] = float(mutual_information)
    out["conditional_entropy"] = float(conditional_entropy)

    # scikit-learn's zero_division=np.nan: an undefined per-class value is left
    # out of the average (weights renormalised); NaN only when none is defined
    for measure in ("recall", "precision", "f1"):
        values = [per_class[k][measure] for k in range(k_classes)]
        defined = [(v, w) for v, w in zip(values, prevalence, strict=True) if not math.isnan(v)]
        out[f"macro_{measure}"] = float(sum(v for v, _ in defined) / len(defined)) if defined else NAN
        weight = sum(w for _, w in defined)
        out[f"weighted_{measure}"] = float(sum(v * w for v, w in defined) / weight) if weight > 0 else NAN

    informedness_k = [per_class[k]["informedness"] for k in range(k_classes)]
    markedness_k = [per_class[k]["markedness"] for k in range(k_classes)]
    out["bias_weighted_informedness"] = _weighted(informedness_k, bias)
    # the unweighted means over the classes whose one-vs-rest real (predicted) margin has examples
    # on both sides: elsewhere the value is a convention (0), not a measurement
    for name, values, shares in (("macro_informedness", informedness_k, prevalence),
                                 ("macro_markedness", markedness_k, bias)):  # fmt: skip
        kept = [v for v, s in zip(values, shares, strict=True) if 0 < s < 1]
        out[name] = float(sum(kept) / len(kept)) if kept else 0.0
    out["prevalence_weighted_markedness"] = _weighted(markedness_k, prevalence)
    return {name: None if out[name] is None else float(out[name]) for name in MULTICLASS_MEASURES}
