"""One line on what each measure means, for ``batcheval measures`` (docs/measures.md has the formulas).

Examples
--------
>>> from batcheval.measures.catalog import meaning
>>> meaning("informedness")
'probability that a prediction is informed rather than a guess (tpr - fpr, Youden J)'
>>> meaning("p_informedness")
'chance p-value of informedness'
>>> meaning("p_chi2_kb")
'chi-squared tail of chi2_kb; conservative (Powers), not a calibrated test'
"""

from __future__ import annotations

__all__ = ["MEANINGS", "meaning"]

MEANINGS: dict[str, str] = {
    "prevalence": "share of real positives, rp/n",
    "bias": "share of positive predictions, pp/n",
    "recall": "share of real positives predicted positive, tp/rp (sensitivity, tpr)",
    "precision": "share of positive predictions that are right, tp/pp (ppv)",
    "inverse_recall": "share of real negatives predicted negative, tn/rn (specificity, tnr)",
    "inverse_precision": "share of negative predictions that are right, tn/pn (npv)",
    "fallout": "share of real negatives predicted positive, fp/rn (fpr)",
    "miss_rate": "share of real positives predicted negative, fn/rp (fnr)",
    "accuracy": "share of right answers, (tp + tn)/n",
    "jaccard": "tp/(tp + fp + fn), overlap of predicted and real positives",
    "f1": "harmonic mean of recall and precision; ignores tn",
    "f_beta": "F with recall weighted beta times as much as precision (needs beta)",
    "g_measure": "geometric mean of recall and precision (Fowlkes-Mallows)",
    "informedness": "probability that a prediction is informed rather than a guess (tpr - fpr, Youden J)",
    "markedness": "probability that the real class is marked by the prediction (ppv + npv - 1)",
    "correlation": "Matthews correlation, +-sqrt(informedness * markedness)",
    "bookmark": "informedness * markedness, the squared correlation",
    "dtp": "determinant of the normalised table, tp/n - prevalence * bias",
    "evenness_real": "prevalence * (1 - prevalence)",
    "evenness_predicted": "bias * (1 - bias)",
    "evenness_global": "sqrt(evenness_real * evenness_predicted)",
    "kappa_cohen": "Cohen's kappa: agreement beyond chance from both margins",
    "kappa_fleiss": "Scott's pi / Fleiss' kappa: chance from the pooled margins",
    "wracc": "weighted relative accuracy, 4 * dtp",
    "auc_single": "area under the one-point ROC curve, (1 + informedness)/2",
    "lift": "precision/prevalence",
    "lr_plus": "positive likelihood ratio, recall/fallout",
    "lr_minus": "negative likelihood ratio, miss_rate/inverse_recall",
    "odds_ratio": "diagnostic odds ratio, (tp * tn)/(fp * fn)",
    "chi2": "Pearson chi-squared statistic of independence",
    "g2": "likelihood-ratio (G) statistic of independence",
    "chi2_pos_pred": "chi-squared over the positive-prediction row only",
    "chi2_pos_real": "chi-squared over the real-positive column only",
    "chi2_kb": "chi-squared statistic of informedness (K n B^2 evenness_real, B = informedness)",
    "chi2_km": "chi-squared statistic of markedness",
    "chi2_kbm": "chi-squared statistic of informedness * markedness",
    "p_fisher": "Fisher's exact test, one-sided towards positive association",
    "alpha_sbb": "Sellke-Bayarri-Berger lower bound on P(null | p_informedness)",
    "p_chi2_kb": "chi-squared tail of chi2_kb; conservative (Powers), not a calibrated test",
    "p_chi2_km": "chi-squared tail of chi2_km; conservative (Powers), not a calibrated test",
    "p_chi2_kbm": "chi-squared tail of chi2_kbm; conservative (Powers), not a calibrated test",
    "mcc": "Matthews correlation (Gorodkin's R_K with K classes, as scikit-learn)",
    "mutual_information": "information the prediction gives about the class, in bits",
    "conditional_entropy": "uncertainty left about the class given the prediction, in bits",
    "macro_recall": "unweighted mean of per-class recall (balanced accuracy)",
    "macro_precision": "unweighted mean of per-class precision",
    "macro_f1": "unweighted mean of per-class f1",
    "weighted_recall": "prevalence-weighted mean of per-class recall (= accuracy)",
    "weighted_precision": "prevalence-weighted mean of per-class precision",
    "weighted_f1": "prevalence-weighted mean of per-class f1",
    "bias_weighted_informedness": "bias-weighted mean of one-vs-rest informedness",
    "macro_informedness": "unweighted mean of one-vs-rest informedness",
    "prevalence_weighted_markedness": "prevalence-weighted mean of one-vs-rest markedness",
    "macro_markedness": "unweighted mean of one-vs-rest markedness",
}


def meaning(name: str) -> str:
    """One line on what the measure ``name`` (a batcheval name) means."""
    if name in MEANINGS:
        return MEANINGS[name]
    if name.startswith("p_"):
        return f"chance p-value of {name[2:]}"
    return ""
