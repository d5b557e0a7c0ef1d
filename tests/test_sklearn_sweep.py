"""The scikit-learn demo sweep: its grid, its predictions, and every figure it prints, checked
against scikit-learn and scipy computed here from the stored predictions."""

from __future__ import annotations

import itertools
import re
import subprocess

import numpy as np
import polars as pl
import pytest
from scipy.stats import rankdata
from sklearn import metrics
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from batcheval.errors import InvalidArgumentError
from batcheval.examples import sklearn_sweep as demo

SEEDS = [0, 1]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return out, demo.run(out, seeds=SEEDS, quick=True, verbose=False)


def test_the_full_grid_is_a_real_sweep():
    grid = demo.settings()
    assert len(grid) >= 50
    assert len({s.model for s in grid}) >= 3
    assert {s.dataset for s in grid} == set(demo.DATASETS) and len(demo.DATASETS) >= 6
    assert all(sum(s.dataset == d and s.model == m for s in grid) >= 2
               for d in ("breast_cancer", "digits") for m in {s.model for s in grid})  # fmt: skip
    assert len(demo.SEEDS) >= 3 and demo.N_FOLDS == 5
    assert len({s.name for s in grid if s.dataset == "digits"}) == sum(s.dataset == "digits" for s in grid)


def test_an_unknown_dataset_or_model_family_is_a_batcheval_error():
    # raw ValueErrors before, which except BatchevalError did not catch
    message = f"unknown dataset 'wines'; choose one of {demo.DATASETS}"
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        demo.load("wines")
    message = "unknown model family 'svm'; choose one of ['logreg', 'naive_bayes', 'tree', 'knn', 'forest']"
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        demo.Setting("wine", "svm", ()).estimator(0)


def test_datasets_are_sklearns():
    from sklearn.datasets import load_breast_cancer, load_digits

    X, y = demo.load("breast_cancer")
    raw = load_breast_cancer()
    assert X.shape == raw.data.shape and (y == (raw.target == 0)).all()  # 1 = malignant = sklearn's 0
    _, yr = demo.load("breast_cancer_rare")
    assert (yr == 0).sum() == (y == 0).sum() and 0.08 < yr.mean() < 0.13
    _, yd = demo.load("digits")
    assert (yd == load_digits().target).all() and len(np.unique(yd)) == 10


def test_the_small_datasets_are_sklearns():
    from sklearn.datasets import load_digits, load_iris, load_wine

    for name, raw in (("iris", load_iris()), ("wine", load_wine())):
        X, y = demo.load(name)
        assert X.shape == raw.data.shape and (X == raw.data).all() and (y == raw.target).all()
        assert len(np.unique(y)) == demo.N_CLASSES[name] == 3
    iris = load_iris()
    X, y = demo.load("iris_versicolor")
    keep = np.isin(iris.target, [1, 2])  # versicolor, virginica
    assert X.shape == (100, 4) and (X == iris.data[keep]).all()
    assert (y == (iris.target[keep] == 2)).all() and int(y.sum()) == 50
    digits = load_digits()
    for name, (neg, pos) in (("digits_3v8", (3, 8)), ("digits_4v9", (4, 9))):
        X, y = demo.load(name)
        keep = np.isin(digits.target, [neg, pos])
        assert X.shape == (int(keep.sum()), 64) and (X == digits.data[keep]).all()
        assert (y == (digits.target[keep] == pos)).all() and int(y.sum()) == int((digits.target == pos).sum())
    for name in demo.DATASETS:
        assert len(np.unique(demo.load(name)[1])) == demo.N_CLASSES[name]


@pytest.mark.parametrize("quick", [False, True])
def test_every_family_has_its_benchmark_setting_on_every_ranked_dataset(quick):
    grid = demo.settings(quick)
    bench = [s for s in grid if s.benchmark]
    datasets = (
        demo.DATASETS
        if not quick
        else [d for d in demo.DATASETS if d not in ("breast_cancer", "breast_cancer_rare", "digits")]
    )
    # exactly one benchmark run per (family, dataset), with the BENCHMARK parameters up to sklearn's defaults
    # (quick keeps some on breast_cancer_rare too, not all five: that data set is left out of the ranks)
    pairs = [(s.dataset, s.model) for s in bench]
    want = set(itertools.product(datasets, demo.BENCHMARK))
    assert len(pairs) == len(set(pairs)) and set(pairs) >= want
    assert quick or set(pairs) == want
    for s in bench:
        fixed = s.estimator(0)
        est = fixed.steps[-1][1] if hasattr(fixed, "steps") else fixed
        default = type(est)().get_params()
        for k, v in est.get_params().items():
            if k in ("random_state", "n_estimators", "max_iter", "n_jobs"):
                continue
            assert v == demo.BENCHMARK[s.model].get(k, default[k]), (s, k, v)
    frame = pl.DataFrame({"run": range(len(grid)), "dataset": [s.dataset for s in grid],
                          "model": [s.model for s in grid]})  # fmt: skip
    ranked = demo.benchmark_scores(frame, grid)
    assert ranked.height == len(want) and set(ranked["dataset"]) == set(datasets)


def test_predictions_are_cross_validated_and_complete(result):
    _, out = result
    preds = out["predictions"]
    grid = demo.settings(quick=True)
    assert preds["run"].n_unique() == len(grid)
    # every (run, seed) predicts every example exactly once, in 5 stratified folds
    per = preds.group_by("run", "seed").agg(
        pl.len(), pl.col("example").n_unique().alias("u"), pl.col("fold").max()
    )
    assert (per["len"] == per["u"]).all() and (per["fold"] == 4).all()
    assert set(per["seed"]) == set(SEEDS)
    # one run recomputed with scikit-learn's own predict()
    run = next(i for i, s in enumerate(grid) if s.model == "logreg" and s.dataset == "breast_cancer_rare")
    X, y = demo.load("breast_cancer_rare")
    cv = StratifiedKFold(5, shuffle=True, random_state=1)
    want = cross_val_predict(grid[run].estimator(1), X, y, cv=cv)
    got = preds.filter((pl.col("run") == run) & (pl.col("seed") == 1)).sort("example")
    assert (got["prediction"].to_numpy() == want).all()
    assert (got["label"].to_numpy() == y).all()
    for k, (_, test) in enumerate(cv.split(X, y)):
        assert (got["fold"].to_numpy()[test] == k).all()


def _pooled(preds: pl.DataFrame, run: int):
    part = preds.filter(pl.col("run") == run)
    return part["label"].to_numpy(), part["prediction"].to_numpy(), part


def test_pooled_scores_match_sklearn(result):
    _, out = result
    preds, scores = out["predictions"], out["scores"]
    for row in scores.iter_rows(named=True):
        y, p, part = _pooled(preds, row["run"])
        assert row["n"] == len(y) == len(SEEDS) * part["example"].n_unique()
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(y, p), abs=1e-12)
        if demo.N_CLASSES[row["dataset"]] > 2:
            k = demo.N_CLASSES[row["dataset"]]
            assert row["macro_f1"] == pytest.approx(metrics.f1_score(y, p, average="macro"), abs=1e-12)
            cm = metrics.confusion_matrix(y, p, labels=range(k)).astype(float)
            tpr = np.diag(cm) / cm.sum(1)
            fpr = (cm.sum(0) - np.diag(cm)) / (cm.sum() - cm.sum(1))
            bookmaker = float(np.sum(cm.sum(1) / cm.sum() * (tpr - fpr)))  # Σ prevalence_k · informedness_k
            assert row["informedness"] == pytest.approx(bookmaker, abs=1e-12)
        else:
            assert row["informedness"] == pytest.approx(
                2 * metrics.balanced_accuracy_score(y, p) - 1, abs=1e-12
            )
            assert row["f1"] == pytest.approx(metrics.f1_score(y, p, zero_division=0), abs=1e-12)


def test_rankings_and_the_biggest_disagreement(result):
    _, out = result
    for dataset, comparison in out["rankings"].items():
        ranked = comparison["ranked"]
        measure = "macro_f1" if dataset == "digits" else "f1"
        m, r = ranked[measure].to_numpy(), ranked["informedness"].to_numpy()
        # ranks: 1 = best, ties share the best rank
        assert (ranked[f"rank_{measure}"].to_numpy() == rankdata(-m, method="min")).all()
        # Spearman's rho = Pearson correlation of the average ranks
        rho = np.corrcoef(rankdata(m), rankdata(r))[0, 1]
        assert comparison["spearman"] == pytest.approx(rho, abs=1e-12)
        # the pair: ordered oppositely, and no other such pair has a larger smaller-gap
        best, best_pair = -np.inf, None
        for i, j in itertools.permutations(range(len(m)), 2):
            if m[i] > m[j] and r[i] < r[j] and min(m[i] - m[j], r[j] - r[i]) > best:
                best, best_pair = min(m[i] - m[j], r[j] - r[i]), (i, j)
        if best_pair is None:
            assert comparison["pair"] is None
        else:
            a, b = comparison["pair"]
            assert (a["run"], b["run"]) == (ranked["run"][best_pair[0]], ranked["run"][best_pair[1]])
            assert a[measure] > b[measure] and a["informedness"] < b["informedness"]


def test_threshold_sweep_and_auc_match_numpy_and_sklearn(result):
    _, out = result
    preds, sw, auc = out["predictions"], out["sweep"], out["auc"]
    assert sw["threshold"].n_unique() == 101
    for run in sw["run"].unique().to_list()[:4]:
        y, _, part = _pooled(preds, run)
        s = part["score"].to_numpy()
        for thr in (0.2, 0.5, 0.9):
            row = sw.filter((pl.col("run") == run) & ((pl.col("threshold") - thr).abs() < 1e-9)).row(
                0, named=True
            )
            hit = s >= row["threshold"]
            assert (row["tp"], row["fp"]) == (int((hit & (y == 1)).sum()), int((hit & (y == 0)).sum()))
            assert row["recall"] == pytest.approx(metrics.recall_score(y, hit), abs=1e-12)
        got = auc.filter(pl.col("run") == run)["roc_auc"].item()
        assert got == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
    digits = auc.filter(pl.col("dataset") == "digits")
    for run in digits["run"].to_list()[:2]:
        y, _, part = _pooled(preds, run)
        proba = np.vstack(part["scores"].to_list())
        got = digits.filter(pl.col("run") == run)["macro_roc_auc"].item()
        assert got == pytest.approx(
            metrics.roc_auc_score(y, proba, multi_class="ovr", average="macro"), abs=1e-9
        )


def test_the_ranks_across_datasets_match_scipy(result):
    from scipy.stats import friedmanchisquare

    _, out = result
    preds, res = out["predictions"], out["ranks"]
    grid = demo.settings(quick=True)
    small = [d for d in demo.DATASETS if d not in ("breast_cancer", "breast_cancer_rare", "digits")]
    assert res.n_datasets == len(small) and res.n_methods == len(demo.BENCHMARK)
    # informedness of each benchmark run from scikit-learn: binary 2·balanced accuracy − 1,
    # multiclass Σ prevalence_k · (tpr_k − fpr_k)
    table = np.empty((len(demo.BENCHMARK), len(small)))
    for j, d in enumerate(small):
        for i, m in enumerate(demo.BENCHMARK):
            run = next(r for r, s in enumerate(grid) if s.dataset == d and s.model == m and s.benchmark)
            y, p, _ = _pooled(preds, run)
            cm = metrics.confusion_matrix(y, p, labels=range(demo.N_CLASSES[d])).astype(float)
            tpr = np.diag(cm) / cm.sum(1)
            fpr = (cm.sum(0) - np.diag(cm)) / (cm.sum() - cm.sum(1))
            table[i, j] = np.sum(cm.sum(1) / cm.sum() * (tpr - fpr))
            if demo.N_CLASSES[d] == 2:
                assert table[i, j] == pytest.approx(2 * metrics.balanced_accuracy_score(y, p) - 1, abs=1e-12)
    mean_rank = rankdata(-table, axis=0).mean(axis=1)
    got = dict(res.ranks.select("method", "mean_rank").rows())
    for i, m in enumerate(demo.BENCHMARK):
        assert got[m] == pytest.approx(mean_rank[i], abs=1e-12)
    assert res.friedman_chi2 == pytest.approx(friedmanchisquare(*table).statistic, rel=1e-10)
    assert (out["plots"][-1].name, out["plots"][-1].read_bytes()[:4]) == ("cd.png", b"\x89PNG")


def test_the_leaderboard_uses_one_seed_and_ranks_by_informedness(result):
    _, out = result
    preds, board = out["predictions"], out["leaderboard"]
    grid = demo.settings(quick=True)
    for row in board.filter(pl.col("dataset") == "breast_cancer_rare").iter_rows(named=True):
        run = next(i for i, s in enumerate(grid) if s.name == row["setting"] and s.dataset == row["dataset"])
        part = preds.filter((pl.col("run") == run) & (pl.col("seed") == SEEDS[0]))
        want = 2 * metrics.balanced_accuracy_score(part["label"], part["prediction"]) - 1
        assert row["n"] == part.height
        assert row["informedness"] == pytest.approx(want, abs=1e-12)
        assert row["informedness_ci_low"] <= row["informedness"] <= row["informedness_ci_high"]
    for _, part in board.group_by("dataset"):
        ranked = part.sort("rank")
        assert (ranked["informedness"].diff().drop_nulls() <= 0).all()


def test_files_and_charts_are_written(result):
    out_dir, out = result
    out_dir = out_dir / "quick"  # a quick run's files: never over the full sweep's
    for name in ("predictions_quick", "scores", "sweep", "auc", "leaderboard"):
        assert pl.read_parquet(out_dir / f"{name}.parquet").height > 0
    assert out["plots"]
    for png in out["plots"]:
        assert png.read_bytes()[:4] == b"\x89PNG"
    assert (out_dir / "f1_vs_informedness.png") in out["plots"]


def test_a_rerun_reads_the_cache_and_a_new_grid_refits(result, monkeypatch):
    out_dir, _ = result

    def refuse(*args, **kwargs):
        raise AssertionError("fitted again although the predictions are cached")

    import sklearn.model_selection

    monkeypatch.setattr(sklearn.model_selection, "cross_val_predict", refuse)
    cache = out_dir / "quick" / demo.cache_name(quick=True)
    again = demo.predictions(cache, seeds=SEEDS, quick=True, progress=False)
    assert again.equals(pl.read_parquet(cache))
    with pytest.raises(AssertionError, match="fitted again"):  # other seeds: not the cached sweep
        demo.predictions(cache, seeds=[5], quick=True, progress=False)


def test_the_report_prints_both_top_lists(result, capsys):
    out_dir, _ = result
    demo.run(out_dir, seeds=SEEDS, quick=True)
    text = capsys.readouterr().out
    for line in ("top 5 by informedness:", "top 5 by f1:", "top 5 by macro_f1:", "Spearman rank correlation",
                 "read from the cache", "average ranks over 5 datasets",
                 "5 methods on 5 datasets"):  # fmt: skip
        assert line in text


def test_the_stand_in_has_the_real_predictions_shape_types_and_labels(result):
    # the warm-up compiles kernels for the stand-in's input types: they must be the real ones
    out_dir, _ = result
    real = pl.read_parquet(out_dir / "quick" / demo.cache_name(quick=True))
    fake = demo.stand_in_predictions(seeds=SEEDS, quick=True)
    assert fake.schema == real.schema
    keys = ["dataset", "run", "model", "params", "seed", "example", "label"]
    assert fake.select(keys).equals(real.select(keys))
    # every fold of every run holds a fifth of its examples, and the probabilities are probabilities
    sizes = (
        fake.group_by("dataset", "run", "seed", "fold")
        .len()
        .join(
            fake.group_by("dataset", "run", "seed").len().rename({"len": "all"}),
            on=["dataset", "run", "seed"],
        )
    )
    assert ((sizes["len"] - sizes["all"] / 5).abs() <= 1).all()
    binary = fake.filter(pl.col("score").is_not_null())
    assert binary["score"].is_between(0, 1).all()
    assert ((binary["score"] >= 0.5) == (binary["prediction"] == 1)).all()
    multi = fake.filter(pl.col("scores").is_not_null())
    assert np.allclose(multi["scores"].list.sum().to_numpy(), 1.0)
    assert multi["prediction"].equals(multi["scores"].list.arg_max().cast(pl.Int8), check_names=False)


def test_the_warm_up_starts_only_while_models_fit_and_is_stopped(result, tmp_path, monkeypatch):
    out_dir, _ = result
    cached = pl.read_parquet(out_dir / "quick" / demo.cache_name(quick=True))
    started = []

    class Helper:
        stopped = False

        def poll(self):
            return 0 if self.stopped else None

        def terminate(self):
            self.stopped = True

        def wait(self, timeout=None):
            return 0

    def start(seeds, quick):
        started.append((list(seeds), quick))
        return Helper()

    monkeypatch.setattr(demo, "_start_warm_up", start)
    armed, cancelled = [], []

    def arm(hook):
        armed.append(hook)
        return lambda: cancelled.append(hook)

    monkeypatch.setattr(demo, "call_on_first_compile", arm)
    # predictions cached: no fitting to overlap, so the warm-up waits for a compile (none here)
    demo.run(out_dir, seeds=SEEDS, quick=True, verbose=False, warm=True)
    assert started == [] and len(armed) == 1 and cancelled == armed
    armed[0]()  # what a compile would do
    assert started == [(SEEDS, True)]
    started.clear()

    # a new folder: the predictions must be fitted (here: handed back), so the warm-up starts first
    def fitted(path, **kwargs):
        path.parent.mkdir(parents=True, exist_ok=True)
        cached.write_parquet(path)
        return cached

    monkeypatch.setattr(demo, "predictions", fitted)
    helpers = []
    monkeypatch.setattr(demo, "stop", lambda helper: helpers.append(helper) or helper.terminate())
    demo.run(tmp_path, seeds=SEEDS, quick=True, verbose=False, warm=True)
    assert started == [(SEEDS, True)] and len(helpers) == 1 and helpers[0].stopped
    assert len(armed) == 1  # fitting: started at once, nothing armed
    demo.run(tmp_path / "other", seeds=SEEDS, quick=True, verbose=False)  # warm=False: none
    assert len(started) == 1 and len(armed) == 1


def test_the_warm_up_process_is_stopped_and_writes_nothing(tmp_path, monkeypatch):
    import sys

    from batcheval.examples import background

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    background.stop(sleeper)
    assert sleeper.poll() is not None
    # no second process on one core, nor where none can be started: the demo compiles alone
    monkeypatch.setattr(background.os, "cpu_count", lambda: 1)
    assert demo._start_warm_up([0], True) is None
    monkeypatch.setattr(background.os, "cpu_count", lambda: 2)

    def refuse(*args, **kwargs):
        raise FileNotFoundError("no such interpreter")

    monkeypatch.setattr(background.subprocess, "Popen", refuse)
    assert demo._start_warm_up([0], True) is None
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    demo.warm_kernels(seeds=[0], quick=True)  # its files go to a temporary folder, then away
    assert list(tmp_path.iterdir()) == []
