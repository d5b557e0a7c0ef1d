"""One way to say each thing across evaluate, sweep, auc, leaderboard and ContingencyTable (issue 23 §3)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import batcheval as be

RNG = np.random.default_rng(23)
Y3 = RNG.integers(0, 3, 300)
P3 = np.where(RNG.random(300) < 0.6, Y3, RNG.integers(0, 3, 300))
Y2 = RNG.integers(0, 2, 200)
P2 = np.where(RNG.random(200) < 0.7, Y2, 1 - Y2)


def test_string_measure_is_one_measure() -> None:
    df = pl.DataFrame({"label": Y2, "prediction": P2})
    out = be.evaluate(df, measures="informedness")
    assert out.columns[-1] == "informedness" and "i" not in out.columns
    expected = skm.balanced_accuracy_score(Y2, P2, adjusted=True)  # = informedness for 2 classes
    assert out["informedness"][0] == pytest.approx(expected, abs=1e-12)
    t = be.ContingencyTable.from_frame(df)
    assert t.measures("recall")["recall"][0] == pytest.approx(skm.recall_score(Y2, P2), abs=1e-12)


@pytest.mark.parametrize(
    ("alias", "reference"),
    [
        ("specificity", lambda y, p: skm.recall_score(y, p, pos_label=0)),
        ("tnr", lambda y, p: skm.recall_score(y, p, pos_label=0)),
        ("tpr", skm.recall_score),
        ("ppv", skm.precision_score),
        ("npv", lambda y, p: skm.precision_score(y, p, pos_label=0)),
        ("fpr", lambda y, p: 1.0 - skm.recall_score(y, p, pos_label=0)),
        ("youden_j", lambda y, p: skm.balanced_accuracy_score(y, p, adjusted=True)),
        ("balanced_accuracy", skm.balanced_accuracy_score),
        ("mcc", skm.matthews_corrcoef),
    ],
)
def test_aliases_match_scikit_learn_and_name_their_column(alias, reference) -> None:
    out = be.evaluate(y_true=Y2, y_pred=P2, measures=[alias])
    assert out.columns[-1] == alias
    assert out[alias][0] == pytest.approx(reference(Y2, P2), abs=1e-12)


def test_average_names_in_one_scheme_are_aliases_of_the_old() -> None:
    df = pl.DataFrame({"label": Y3, "prediction": P3})
    new = be.evaluate(df, measures=["macro_informedness", "prevalence_weighted_markedness", "macro_f1"])
    old = be.evaluate(df, measures=["informedness_macro", "markedness_prevalence_weighted", "macro_f1"])
    assert new.columns[1:] == ["macro_informedness", "prevalence_weighted_markedness", "macro_f1"]
    assert new.row(0)[1:] == old.row(0)[1:]
    assert new["macro_f1"][0] == pytest.approx(skm.f1_score(Y3, P3, average="macro"), abs=1e-12)
    default = be.evaluate(df).columns  # the default set speaks the one scheme
    assert {"macro_informedness", "bias_weighted_informedness", "macro_markedness"} <= set(default)
    assert not {"informedness_macro", "informedness_bias_weighted", "markedness_macro"} & set(default)


def test_did_you_mean() -> None:
    with pytest.raises(
        be.UnknownMeasureError, match=r"unknown measure 'informednes' \(did you mean 'informedness'\?\)"
    ):
        be.evaluate(y_true=Y2, y_pred=P2, measures="informednes")
    with pytest.raises(be.UnknownMeasureError, match=r"did you mean 'specificity'"):
        be.evaluate(y_true=Y2, y_pred=P2, measures="specifity")


def _one_vs_rest(y: np.ndarray, p: np.ndarray, k: int) -> tuple[float, float]:
    """Informedness and markedness of class k against the rest, 0 where a margin is empty."""
    tp, fp = np.sum((y == k) & (p == k)), np.sum((y != k) & (p == k))
    fn, tn = np.sum((y == k) & (p != k)), np.sum((y != k) & (p != k))
    det = float(tp * tn - fp * fn)
    rp, rn, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
    return (det / (rp * rn) if rp * rn else 0.0), (det / (pp * pn) if pp * pn else 0.0)


def test_prevalence_weighted_f1_recall_and_precision_are_scikit_learns_weighted() -> None:
    # the hint said "batcheval has no prevalence-weighted average of 'f1'", though weighted_f1 is one
    got = be.evaluate(y_true=Y3, y_pred=P3, measures=["prevalence_weighted_f1", "prevalence_weighted_recall",
                                                       "prevalence_weighted_precision"])  # fmt: skip
    for name, fn in (("f1", skm.f1_score), ("recall", skm.recall_score), ("precision", skm.precision_score)):
        want = fn(Y3, P3, average="weighted")
        assert got[f"prevalence_weighted_{name}"][0] == pytest.approx(want, abs=1e-12)


def test_the_other_weighting_of_a_bookmaker_measure_is_the_measure() -> None:
    # docs/measures.md: informedness = Σ prevalence_k·informedness_k, markedness = Σ bias_k·markedness_k,
    # and weighted_ weights by prevalence, as scikit-learn's average="weighted"
    per_class = np.array([_one_vs_rest(Y3, P3, k) for k in range(3)])
    prevalence = np.bincount(Y3, minlength=3) / len(Y3)
    bias = np.bincount(P3, minlength=3) / len(P3)
    for asked, same, expected in [
        ("prevalence_weighted_informedness", "informedness", prevalence @ per_class[:, 0]),
        ("weighted_informedness", "informedness", prevalence @ per_class[:, 0]),
        ("bias_weighted_markedness", "markedness", bias @ per_class[:, 1]),
        ("weighted_markedness", "prevalence_weighted_markedness", prevalence @ per_class[:, 1]),
    ]:
        out = be.evaluate(y_true=Y3, y_pred=P3, measures=[asked])
        assert out.columns == ["n", asked]
        assert out[asked][0] == pytest.approx(expected, abs=1e-12)
        assert out[asked][0] == be.evaluate(y_true=Y3, y_pred=P3, measures=[same])[same][0]


@pytest.mark.parametrize(
    ("asked", "hint"),
    [
        ("markedness_bias_weighted", "did you mean 'bias_weighted_markedness'?"),
        ("informedness_weighted", "did you mean 'weighted_informedness'?"),
        ("f1_macro", "did you mean 'macro_f1'?"),
        ("macro_informednes", "did you mean 'macro_informedness'?"),
        ("Macro-F1", "did you mean 'macro_f1'?"),
        ("macro_kappa", "batcheval has no macro average of 'kappa'"),
        ("micro_f1", "f1 is accuracy: ask for 'accuracy'; pool= pools the tables of folds"),
        ("micro_recall", "recall is accuracy: ask for 'accuracy'"),
        ("micro_informedness", "batcheval has no micro average over classes; pool= pools"),
    ],
)
def test_did_you_mean_keeps_the_average_and_the_measure(asked, hint) -> None:
    with pytest.raises(be.UnknownMeasureError) as err:
        be.evaluate(y_true=Y3, y_pred=P3, measures=[asked])
    assert hint in str(err.value)
    assert str(err.value).startswith(f"unknown measure {asked!r} (")


def test_measures_that_are_not_names() -> None:
    with pytest.raises(
        be.UnknownMeasureError, match=r"^measures= takes a measure name or a list of names, got 3$"
    ):
        be.evaluate(y_true=Y2, y_pred=P2, measures=3)
    with pytest.raises(be.UnknownMeasureError, match=r"got 3$"):
        be.ContingencyTable.from_frame(pl.DataFrame({"label": Y2, "prediction": P2})).measures(3)


_ONE_VS_REST = "use per_class=True for its one-vs-rest values"


@pytest.mark.parametrize(
    ("asked", "rest"),
    [
        ("specificity", _ONE_VS_REST),
        ("p_fisher", _ONE_VS_REST),  # no average of it exists, so none is offered
        ("sensitivity", f"{_ONE_VS_REST}, or its averages 'macro_recall', 'weighted_recall'"),
    ],
)
def test_a_binary_measure_of_more_classes_is_named_as_asked(asked, rest) -> None:
    with pytest.raises(be.UnknownMeasureError) as err:
        be.evaluate(y_true=Y3, y_pred=P3, measures=[asked])
    assert str(err.value) == f"{asked!r} is a binary measure and the table has 3 classes; {rest}"


def test_positive_on_multiclass_gives_one_vs_rest() -> None:
    df = pl.DataFrame({"label": Y3, "prediction": P3})
    out = be.evaluate(df, positive=2, measures=["recall", "precision", "informedness"])
    y, p = Y3 == 2, P3 == 2
    assert out["recall"][0] == pytest.approx(skm.recall_score(y, p), abs=1e-12)
    assert out["precision"][0] == pytest.approx(skm.precision_score(y, p), abs=1e-12)
    assert out["informedness"][0] == pytest.approx(
        skm.balanced_accuracy_score(y, p, adjusted=True), abs=1e-12
    )
    assert out.select("tp", "fp", "fn", "tn").row(0) == (
        int((y & p).sum()),
        int((~y & p).sum()),
        int((y & ~p).sum()),
        int((~y & ~p).sum()),
    )
    with pytest.raises(be.InvalidArgumentError, match=r"positive=2 and per_class=True"):
        be.evaluate(df, positive=2, per_class=True)
    with pytest.raises(be.InvalidLabelError, match=r"positive=7 is not one of the classes \[0, 1, 2\]"):
        be.evaluate(df, positive=7)


def test_ci_covers_every_measure_or_names_the_rest() -> None:
    df = pl.DataFrame({"label": Y3, "prediction": P3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = be.evaluate(df, measures=["mcc", "macro_f1", "informedness"], ci=0.95, seed=1, n_boot=400)
    for m in ("mcc", "macro_f1", "informedness"):
        low, mid, high = out[f"{m}_ci_low"][0], out[m][0], out[f"{m}_ci_high"][0]
        assert low < mid < high, m
    # the fallback is the library's smoothed bootstrap of the table (1/(K(K - 1)) per cell),
    # ci_method="bootstrap" the plain one, both from the same seed
    from batcheval.inference.intervals import bootstrap_pseudo_count, intervals

    table = skm.confusion_matrix(Y3, P3)[None]
    boot = be.evaluate(df, measures=["mcc"], ci=0.95, ci_method="bootstrap", seed=1, n_boot=400)
    smooth = be.evaluate(df, measures=["mcc"], ci=0.95, seed=1, n_boot=400)
    plain_ends = intervals(table, ["mcc"], 0.95, "bootstrap", n_boot=400, seed=1)["mcc"]
    smooth_ends = intervals(
        table, ["mcc"], 0.95, "bootstrap", n_boot=400, seed=1, pseudo=bootstrap_pseudo_count(3)
    )
    assert (boot["mcc_ci_low"][0], boot["mcc_ci_high"][0]) == (plain_ends[0][0], plain_ends[1][0])
    assert (smooth["mcc_ci_low"][0], smooth["mcc_ci_high"][0]) == (
        smooth_ends["mcc"][0][0],
        smooth_ends["mcc"][1][0],
    )
    with pytest.warns(be.BatchevalWarning, match=r"no interval for \['p_chi2'\]"):
        out = be.evaluate(df, measures=["accuracy", "p_chi2"], ci=0.9)
    assert "p_chi2_ci_low" not in out.columns and "accuracy_ci_low" in out.columns


def test_leaderboard_ranks_by_measures_without_closed_form() -> None:
    runs = pl.concat(
        [
            pl.DataFrame({"run": r, "label": Y3, "prediction": np.where(RNG.random(300) < s, Y3, P3)})
            for r, s in (("a", 0.9), ("b", 0.1))
        ]
    )
    for measure, ref in (
        ("mcc", skm.matthews_corrcoef),
        ("macro_f1", lambda y, p: skm.f1_score(y, p, average="macro")),
    ):
        board = be.leaderboard(runs, measure=measure, n_boot=100)
        assert board["run"].to_list() == ["a", "b"]
        for run, value in zip(board["run"], board[measure], strict=True):
            sub = runs.filter(pl.col("run") == run)
            assert value == pytest.approx(
                ref(sub["label"].to_numpy(), sub["prediction"].to_numpy()), abs=1e-12
            )
        assert (board[f"{measure}_ci_low"] < board[measure]).all()


def test_pool_keys_inside_or_outside() -> None:
    df = pl.DataFrame({"run": np.repeat([1, 2], 100), "fold": np.tile(np.repeat([0, 1], 50), 2),
                       "label": Y2, "prediction": P2})  # fmt: skip
    a = be.evaluate(df, by="run", pool="fold", measures="informedness")
    b = be.evaluate(df, by=["run", "fold"], pool="fold", measures="informedness")
    assert a.equals(b)
    c = be.leaderboard(df, run=["run", "fold"], pool="fold")
    d = be.leaderboard(df, run="run", pool="fold")
    assert c.equals(d)
    sub = df.filter(pl.col("run") == 1)
    assert a["informedness"][0] == pytest.approx(
        skm.balanced_accuracy_score(sub["label"], sub["prediction"], adjusted=True), abs=1e-12
    )


def test_auc_pool() -> None:
    score = RNG.random(200) + 0.3 * Y2
    df = pl.DataFrame({"fold": np.repeat([0, 1], 100), "label": Y2, "score": score})
    out = be.auc(df, pool="fold")
    assert out["roc_auc"][0] == pytest.approx(skm.roc_auc_score(Y2, score), abs=1e-12)
    per = [skm.roc_auc_score(Y2[i : i + 100], score[i : i + 100]) for i in (0, 100)]
    assert out["n_pooled"][0] == 2
    assert out["roc_auc_mean"][0] == pytest.approx(np.mean(per), abs=1e-12)
    assert out["roc_auc_std"][0] == pytest.approx(np.std(per, ddof=1), abs=1e-12)


def test_merge_takes_tables_or_an_iterable() -> None:
    a = be.ContingencyTable.from_frame(pl.DataFrame({"label": Y2[:50], "prediction": P2[:50]}))
    b = be.ContingencyTable.from_frame(pl.DataFrame({"label": Y2[50:], "prediction": P2[50:]}))
    whole = skm.confusion_matrix(Y2, P2)
    assert be.ContingencyTable.merge(a, b).counts[0].tolist() == whole.tolist()
    assert be.ContingencyTable.merge([a, b]).counts[0].tolist() == whole.tolist()
    # a raw TypeError before, which `except be.BatchevalError` did not catch
    with pytest.raises(
        be.InvalidArgumentError, match=re.escape("merge takes ContingencyTables, got an int (3) (item 1)")
    ):
        be.ContingencyTable.merge(a, 3)
    with pytest.raises(
        be.BatchevalError,
        match=re.escape("merge takes ContingencyTables, or one list of them, got a str ('x')"),
    ):
        be.ContingencyTable.merge("x")
    with pytest.raises(be.InvalidArgumentError, match=r"merge needs at least one table, got none"):
        be.ContingencyTable.merge([])


def test_nan_score_is_a_score_error() -> None:
    df = pl.DataFrame({"label": [0, 1, 1], "score": [0.1, float("nan"), 0.7]})
    with pytest.raises(be.InvalidScoreError, match=r"score column 'score' has 1 NaN or infinite value"):
        be.auc(df)
    assert not issubclass(be.InvalidScoreError, be.InvalidLabelError)


def test_dict_and_short_form() -> None:
    d = {"label": list(Y2), "prediction": P2}
    out = be.evaluate(d, measures="accuracy")
    assert out["accuracy"][0] == pytest.approx(skm.accuracy_score(Y2, P2), abs=1e-12)
    assert be.evaluate(y_true=Y2, y_pred=P2, measures="accuracy").equals(out)
    with pytest.raises(be.InvalidArgumentError, match=r"one length, got \{'label': 2, 'prediction': 1\}"):
        be.evaluate({"label": [0, 1], "prediction": [1]})
    with pytest.raises(be.InvalidArgumentError, match=r"y_true=None, y_pred=3 values"):
        be.evaluate(y_pred=[0, 1, 1])


def test_binary_leaderboard_and_ci_by_mcc():
    runs = pl.concat(
        [
            pl.DataFrame({"run": r, "label": Y2, "prediction": np.where(RNG.random(200) < s, Y2, 1 - Y2)})
            for r, s in (("a", 0.95), ("b", 0.6))
        ]
    )
    board = be.leaderboard(runs, measure="mcc", n_boot=100)
    for run, value in zip(board["run"], board["mcc"], strict=True):
        sub = runs.filter(pl.col("run") == run)
        assert value == pytest.approx(skm.matthews_corrcoef(sub["label"], sub["prediction"]), abs=1e-12)
    out = be.evaluate(
        y_true=Y2, y_pred=P2, measures=["mcc", "balanced_accuracy"], ci=0.95, seed=2, n_boot=300
    )
    assert out["mcc_ci_low"][0] < skm.matthews_corrcoef(Y2, P2) < out["mcc_ci_high"][0]
    assert (
        out["balanced_accuracy_ci_low"][0] < out["balanced_accuracy"][0] < out["balanced_accuracy_ci_high"][0]
    )


def test_the_public_namespace_holds_no_future_import() -> None:
    assert "annotations" not in dir(be)


@pytest.mark.parametrize("module", [be.intervals, be.measures], ids=["intervals", "measures"])
def test_the_exported_modules_list_their_api_only(module) -> None:
    # dir(be.intervals) listed np, pl, math, reprlib, warn and the helpers it imports beside its API
    listed = dir(module)
    assert listed == sorted(module.__all__)
    assert not {"np", "pl", "math", "annotations", "warn", "registry"} & set(listed)
    assert all(hasattr(module, name) for name in listed)
    # every function the module defines is in it, so what other modules import from it shows too
    own = {n for n, v in vars(module).items() if getattr(v, "__module__", "") == module.__name__}
    assert {n for n in own if not n.startswith("_")} <= set(listed)


def test_evaluate_says_which_named_class_is_positive_when_a_measure_depends_on_it():
    # "healthy" of "disease" and "healthy" was the positive class, silently: its recall and f1 read
    # as the disease's (scikit-learn refuses string labels without pos_label)
    y_true = ["disease", "healthy", "healthy", "disease", "disease"]
    y_pred = ["disease", "healthy", "disease", "disease", "healthy"]
    with pytest.warns(be.BatchevalWarning) as caught:
        got = be.evaluate(y_true=y_true, y_pred=y_pred, measures=["recall", "informedness"])
    assert [str(w.message) for w in caught] == [
        "recall takes 'healthy' as the positive class, the greater of ['disease', 'healthy']; "
        "pass positive='healthy' (or positive='disease') to say so"
    ]
    assert got["recall"][0] == skm.recall_score(y_true, y_pred, pos_label="healthy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # measures that do not depend on the choice, a positive= given, or labels with a usual positive
        symmetric = ["informedness", "markedness", "mcc", "kappa", "accuracy", "p_informedness", "chi2"]
        be.evaluate(y_true=y_true, y_pred=y_pred, measures=symmetric)
        disease = be.evaluate(y_true=y_true, y_pred=y_pred, positive="disease", measures=["recall"])
        be.evaluate(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], measures=["recall"])
        be.evaluate(y_true=y_true, y_pred=y_pred, per_class=True, measures=["recall"])
    assert disease["recall"][0] == skm.recall_score(y_true, y_pred, pos_label="disease")
