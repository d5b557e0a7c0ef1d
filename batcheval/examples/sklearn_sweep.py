"""A real hyperparameter sweep on scikit-learn's bundled datasets, evaluated with batcheval.

This is what ``batcheval demo`` runs. Nothing is downloaded: the eight data sets
are built from the four classification sets that ship inside scikit-learn.

- ``breast_cancer``: 569 tumours, binary. The positive class is *malignant*
  (prevalence 0.37). scikit-learn codes malignant as 0, so the label is flipped.
- ``breast_cancer_rare``: the same tumours with a fixed random 20 % of the
  malignant ones kept (prevalence 0.10). This is the imbalanced setting where
  accuracy and F1 reward a classifier for rarely naming the rare class.
- ``digits``: 1,797 handwritten digits, 10 classes.
- ``iris`` (150 flowers, 3 classes) and ``wine`` (178 wines, 3 classes).
- ``iris_versicolor``: the 100 versicolor and virginica irises, binary (1 = virginica).
- ``digits_3v8`` and ``digits_4v9``: the digits most often confused, binary
  (1 = the second digit).

Five model families (logistic regression, Gaussian naive Bayes, a decision
tree, k-nearest neighbours and a small random forest), with several settings
each on the first three data sets and one fixed setting each (:data:`BENCHMARK`)
on every data set, make 102 runs. ``cross_val_predict`` cross-validates every
run over 5 stratified folds for each of 3 seeds: 1,530 fits in all. The per-example
predictions go to ``predictions.parquet`` in the output directory (the quick grid's
to ``quick/predictions_quick.parquet``, beside every other file of the quick run, so
a smoke test keeps the full sweep's cache and results). If that file already holds
the same grid, the fitting is skipped.

batcheval then pools each run over its seeds and folds, ranks the runs by F1
(macro F1 for digits), by accuracy and by informedness, and prints where the
rankings disagree. It builds a leaderboard with 95 % intervals and paired tests
against the leader, sweeps the decision threshold of the binary runs, and saves
ROC, BIRD and forest charts and a summary figure. Last, it ranks the five
families, each at its :data:`BENCHMARK` setting, by informedness on all eight
data sets: average ranks, the Friedman test and a critical-difference diagram
(:func:`batcheval.rank_methods`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..errors import BatchevalWarning, InvalidArgumentError
from ..evaluate import evaluate
from ..inference.leaderboard import leaderboard
from ..inference.ranks import RankResult, rank_methods
from ..kernels.jit import call_on_first_compile
from ..plot import plot
from ..scores.auc import auc
from ..scores.curves import curves
from ..scores.sweep import sweep
from .background import start_python, stop

__all__ = [
    "BENCHMARK",
    "DATASETS",
    "N_CLASSES",
    "SEEDS",
    "Setting",
    "benchmark_scores",
    "compare_rankings",
    "load",
    "predictions",
    "run",
    "settings",
]  # fmt: skip

DATASETS = (
    "breast_cancer", "breast_cancer_rare", "digits", "iris", "wine", "iris_versicolor", "digits_3v8",
    "digits_4v9",
)  # fmt: skip
N_CLASSES = {"breast_cancer": 2, "breast_cancer_rare": 2, "digits": 10, "iris": 3, "wine": 3,
             "iris_versicolor": 2, "digits_3v8": 2, "digits_4v9": 2}  # fmt: skip
# the data sets with a full grid and a per-data-set report; the others only feed the ranks
_DETAILED = ("breast_cancer", "breast_cancer_rare", "digits")
# One fixed setting per family, run on every data set: the Friedman test needs every method on
# every data set, and one cheap setting keeps the five small data sets from slowing the demo.
BENCHMARK: dict[str, dict[str, Any]] = {
    "logreg": {"C": 1.0},
    "naive_bayes": {},
    "tree": {"max_depth": 4},
    "knn": {"n_neighbors": 5},
    "forest": {"max_depth": None},
}
# parameter values that are scikit-learn's defaults, so that e.g. "C=1, class_weight=None" on
# breast_cancer counts as the benchmark setting "C=1"
_DEFAULTS = {"class_weight": None, "priors": None, "var_smoothing": 1e-9}
SEEDS = (0, 1, 2)
N_FOLDS = 5
_RARE_KEEP = 0.2  # share of malignant tumours kept in breast_cancer_rare
_DOWNWEIGHT = ((0, 1.0), (1, 0.3))  # class_weight that makes the positive class count 0.3
_FAMILIES = ("logreg", "naive_bayes", "tree", "knn", "forest")
_BINARY_MEASURES = ["informedness", "markedness", "f1", "accuracy", "kappa_cohen", "recall",
                    "precision", "bias", "prevalence", "p_informedness"]  # fmt: skip
_MULTICLASS_MEASURES = ["informedness", "markedness", "macro_f1", "accuracy", "kappa_cohen", "mcc"]
_THRESHOLDS = np.linspace(0.0, 1.0, 101)


def _sklearn():
    try:
        import sklearn
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the demo needs scikit-learn and matplotlib: pip install 'batcheval[demo]'"
        ) from exc
    return sklearn


def _text(value: Any) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ", ".join(f"{k}: {v:g}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(f"{v:g}" for v in value) + ")"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Setting:
    """One run of the sweep: a data set, a model family and its parameters.

    Examples
    --------
    >>> s = Setting("digits", "knn", (("n_neighbors", 5),))
    >>> s.params_text, s.name
    ('n_neighbors=5', 'knn n_neighbors=5')
    """

    dataset: str
    model: str
    params: tuple[tuple[str, Any], ...]

    @property
    def params_text(self) -> str:
        """The parameters as ``name=value`` pairs."""
        return ", ".join(f"{k}={_text(v)}" for k, v in self.params)

    @property
    def name(self) -> str:
        """The model family and its parameters, e.g. ``'tree max_depth=2'``."""
        return f"{self.model} {self.params_text}"

    @property
    def benchmark(self) -> bool:
        """Whether this is its family's :data:`BENCHMARK` setting (scikit-learn defaults aside).

        Examples
        --------
        >>> Setting("wine", "tree", (("max_depth", 4), ("class_weight", None))).benchmark
        True
        """
        given = {k: v for k, v in self.params if not (k in _DEFAULTS and v == _DEFAULTS[k])}
        return BENCHMARK.get(self.model) == given

    def estimator(self, seed: int):
        """A fresh scikit-learn estimator for this setting (``seed`` seeds trees and forests)."""
        _sklearn()
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.naive_bayes import GaussianNB
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.tree import DecisionTreeClassifier

        p = {k: (dict(v) if k == "class_weight" and isinstance(v, tuple) else v) for k, v in self.params}
        if "priors" in p and p["priors"] is not None:
            p["priors"] = list(p["priors"])
        if self.model == "logreg":
            return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, **p))
        if self.model == "naive_bayes":
            return GaussianNB(**p)
        if self.model == "tree":
            return DecisionTreeClassifier(random_state=seed, **p)
        if self.model == "knn":
            return make_pipeline(StandardScaler(), KNeighborsClassifier(**p))
        if self.model == "forest":
            return RandomForestClassifier(n_estimators=30, random_state=seed, n_jobs=1, **p)
        raise InvalidArgumentError(f"unknown model family {self.model!r}; choose one of {list(BENCHMARK)}")


def _grid(dataset: str) -> dict[str, list[dict[str, Any]]]:
    if dataset not in _DETAILED:
        return {model: [dict(params)] for model, params in BENCHMARK.items()}
    if dataset == "digits":
        return {
            "logreg": [{"C": c} for c in (0.001, 0.01, 0.1, 1.0)],
            "naive_bayes": [{"var_smoothing": v} for v in (1e-9, 1e-3, 1e-1)],
            "tree": [{"max_depth": d} for d in (4, 8, None)],
            "knn": [{"n_neighbors": k} for k in (1, 5, 25)],
            "forest": [{"max_depth": d} for d in (4, None)],
        }
    return {  # binary: class weights and priors that shift how often "malignant" is said
        "logreg": [
            {"C": c, "class_weight": w}
            for c in (0.001, 0.01, 0.1, 1.0)
            for w in (None, "balanced", _DOWNWEIGHT)
        ],
        "naive_bayes": [{"priors": p} for p in (None, (0.5, 0.5), (0.2, 0.8))],
        "tree": [{"max_depth": d, "class_weight": w} for d in (1, 2, 4, None) for w in (None, "balanced")],
        "knn": [{"n_neighbors": k} for k in (1, 5, 25, 75)],
        "forest": [
            {"max_depth": d, "class_weight": w} for d in (2, None) for w in (None, "balanced_subsample")
        ],
    }


def settings(quick: bool = False) -> list[Setting]:
    """Every run of the sweep, in run order.

    ``quick`` keeps two settings per family on ``breast_cancer_rare``, one on
    ``digits`` and the :data:`BENCHMARK` ones on the five small data sets (40
    runs), for tests.

    Examples
    --------
    >>> grid = settings()
    >>> len(grid), sorted({s.model for s in grid})
    (102, ['forest', 'knn', 'logreg', 'naive_bayes', 'tree'])
    >>> grid[2].name
    'logreg C=0.001, class_weight={0: 1, 1: 0.3}'
    """
    out = []
    small = DATASETS[len(_DETAILED) :]
    for dataset in ("breast_cancer_rare", "digits", *small) if quick else DATASETS:
        for model, params in _grid(dataset).items():
            keep = params if not quick else params[: 2 if dataset != "digits" else 1]
            out.extend(Setting(dataset, model, tuple(p.items())) for p in keep)
    return out


def load(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of one of :data:`DATASETS`.

    Label 1 is malignant for the breast cancer sets, virginica for ``iris_versicolor`` and the
    second digit for ``digits_3v8`` and ``digits_4v9``; the multiclass sets keep scikit-learn's
    labels.

    Examples
    --------
    >>> X, y = load("breast_cancer_rare")
    >>> X.shape, int(y.sum())
    ((398, 30), 41)
    >>> X, y = load("iris_versicolor")
    >>> X.shape, int(y.sum())
    ((100, 4), 50)
    """
    _sklearn()
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

    if dataset not in DATASETS:
        raise InvalidArgumentError(f"unknown dataset {dataset!r}; choose one of {DATASETS}")
    if dataset.startswith("digits"):
        X, y = load_digits(return_X_y=True)
        if dataset != "digits":
            neg, pos = int(dataset[-3]), int(dataset[-1])
            keep = (y == neg) | (y == pos)
            X, y = X[keep], (y[keep] == pos)
        return X, y.astype(np.int8)
    if dataset.startswith("iris") or dataset == "wine":
        X, y = (load_wine if dataset == "wine" else load_iris)(return_X_y=True)
        if dataset == "iris_versicolor":
            X, y = X[y > 0], (y[y > 0] == 2)
        return X, y.astype(np.int8)
    X, y = load_breast_cancer(return_X_y=True)
    y = (1 - y).astype(np.int8)  # 1 = malignant, the finding a screen looks for
    if dataset == "breast_cancer_rare":
        keep = (y == 0) | (np.random.default_rng(0).uniform(size=y.size) < _RARE_KEEP)
        X, y = X[keep], y[keep]
    return X, y


def _signature(frame: pl.DataFrame) -> list[tuple]:
    return sorted(frame.select("dataset", "run", "model", "params", "seed").unique().rows())


def predictions(
    path: str | Path, *, seeds: Sequence[int] = SEEDS, quick: bool = False, n_jobs: int = 1,
    progress: bool = True,
) -> pl.DataFrame:  # fmt: skip
    """Cross-validated predictions of every run, fitted once and cached at ``path``.

    Columns: ``dataset, run, model, params, seed, fold, example, label,
    prediction, score`` (the probability of class 1, binary data sets) and
    ``scores`` (every class's probability, multiclass data sets). ``prediction`` is the
    class of highest probability, which is what each model's ``predict``
    returns. If ``path`` already holds the same runs and seeds it is read
    back and nothing is fitted.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "predictions.parquet"
    >>> df = predictions(path, seeds=[0], quick=True, progress=False)
    >>> df.columns
    ['dataset', 'run', 'model', 'params', 'seed', 'fold', 'example', 'label', 'prediction', 'score', 'scores']
    >>> df.height == predictions(path, seeds=[0], quick=True, progress=False).height  # from the cache
    True
    """
    _sklearn()
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    path = Path(path)
    grid = settings(quick)
    cached = _cached(path, seeds, quick)
    if cached is not None:
        return cached
    if progress and path.exists():
        print(f"{path} holds a different sweep; fitting again", file=sys.stderr)
    data = {name: load(name) for name in dict.fromkeys(s.dataset for s in grid)}
    frames = []
    start = time.perf_counter()
    for run, setting in enumerate(grid):
        X, y = data[setting.dataset]
        for seed in seeds:
            cv = StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed)
            fold = np.empty(y.size, np.int8)
            for k, (_, test) in enumerate(cv.split(X, y)):
                fold[test] = k
            proba = cross_val_predict(
                setting.estimator(seed), X, y, cv=cv, method="predict_proba", n_jobs=n_jobs
            )
            frames.append(_run_frame(setting, run, seed, fold, y, proba))
        if progress and ((run + 1) % 10 == 0 or run + 1 == len(grid)):
            print(
                f"  fitted {run + 1}/{len(grid)} runs × {_count(len(seeds), 'seed')} × {N_FOLDS} folds "
                f"({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
            )
    frame = pl.concat(frames, how="vertical")
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(path)
    return frame


def _cached(path: Path, seeds: Sequence[int], quick: bool) -> pl.DataFrame | None:
    """The predictions cached at ``path`` if they hold this grid's runs and seeds, else None."""
    if not path.exists():
        return None
    want = sorted(
        (s.dataset, run, s.model, s.params_text, seed)
        for run, s in enumerate(settings(quick))
        for seed in seeds
    )
    cached = pl.read_parquet(path)
    if set(cached.columns) >= {"dataset", "run", "model", "params", "seed"} and _signature(cached) == want:
        return cached
    return None


def _run_frame(
    setting: Setting, run: int, seed: int, fold: np.ndarray, y: np.ndarray, proba: np.ndarray
) -> pl.DataFrame:
    """One run's cross-validated predictions under one seed, in the columns and types of
    :func:`predictions` (the stand-in of :func:`warm_kernels` shares them, so that it compiles the
    kernels of the same input types)."""
    binary = N_CLASSES[setting.dataset] == 2
    return pl.DataFrame(
        {
            "dataset": setting.dataset,
            "run": np.full(y.size, run, np.int32),
            "model": setting.model,
            "params": setting.params_text,
            "seed": np.full(y.size, seed, np.int16),
            "fold": fold,
            "example": np.arange(y.size, dtype=np.int32),
            "label": y,
            "prediction": proba.argmax(axis=1).astype(np.int8),
            "score": pl.Series(proba[:, 1] if binary else [None] * y.size, dtype=pl.Float64),
            "scores": pl.Series([None] * y.size if binary else proba).cast(pl.List(pl.Float64)),
        }
    )


def stand_in_predictions(seeds: Sequence[int] = SEEDS, quick: bool = False) -> pl.DataFrame:
    """Predictions in the shape, types and labels of :func:`predictions`' but fitted by nothing:
    each probability leans to the true class by a random amount. :func:`warm_kernels` evaluates
    them while the real models fit.

    Examples
    --------
    >>> fake = stand_in_predictions(seeds=[0], quick=True)
    >>> fake.columns
    ['dataset', 'run', 'model', 'params', 'seed', 'fold', 'example', 'label', 'prediction', 'score', 'scores']
    >>> fake.height == sum(load(s.dataset)[1].size for s in settings(quick=True))
    True
    """
    rng = np.random.default_rng(0)
    grid = settings(quick)
    labels = {name: load(name)[1] for name in dict.fromkeys(s.dataset for s in grid)}
    frames = []
    for run, setting in enumerate(grid):
        y = labels[setting.dataset]
        k = N_CLASSES[setting.dataset]
        for seed in seeds:
            fold = rng.permutation(np.arange(y.size) % N_FOLDS).astype(np.int8)
            lean = rng.uniform(0.0, 1.0, (y.size, 1))
            proba = lean * np.eye(k)[y] + (1 - lean) * rng.dirichlet(np.ones(k), y.size)
            frames.append(_run_frame(setting, run, seed, fold, y, proba))
    return pl.concat(frames, how="vertical")


def warm_kernels(seeds: Sequence[int] = SEEDS, quick: bool = False) -> None:
    """Evaluate :func:`stand_in_predictions` as the demo evaluates its predictions, data sets in
    reverse order, without charts and with its files in a temporary folder, so that numba compiles
    and caches the demo's kernels.

    :func:`run` starts this in a second process while its models fit (or at its first compile, when
    the predictions are cached), on a machine with more than one core: numba compiles on one core,
    so the demo's first run spent about 84 s compiling with the other one idle. The two processes
    start at opposite ends of the data sets and meet in the middle; a kernel one has cached, the
    other loads.
    """
    import contextlib
    import io
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        _analyse(
            stand_in_predictions(seeds, quick), Path(tmp), list(seeds), quick, 5, reverse=True, charts=False
        )


def _start_warm_up(seeds: Sequence[int], quick: bool) -> subprocess.Popen | None:
    """:func:`warm_kernels` in a second process (:func:`~batcheval.examples.background.start_python`)."""
    return start_python(
        f"from batcheval.examples.sklearn_sweep import warm_kernels; warm_kernels({list(seeds)!r}, {quick!r})"
    )


def compare_rankings(scores: pl.DataFrame, measure: str, reference: str = "informedness") -> dict[str, Any]:
    """How the ranking of runs by ``measure`` differs from the ranking by ``reference``.

    Parameters
    ----------
    scores
        One row per run, with columns ``measure`` and ``reference`` (higher is
        better for both).
    measure, reference
        The two measures to rank by.

    Returns
    -------
    dict
        ``ranked``: ``scores`` with ``rank_<measure>`` and ``rank_<reference>``
        (1 = best, ties share the best rank, NaN ranks last); ``spearman``: the
        rank correlation of the two columns; ``pair``: the two runs ordered
        most clearly the opposite way. That is the discordant pair whose
        smaller gap (in ``measure`` or ``reference``) is the largest, as
        ``(row preferred by measure, row preferred by reference)``, or None.

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.DataFrame({"run": [1, 2, 3], "f1": [0.9, 0.8, 0.5], "informedness": [0.6, 0.7, 0.2]})
    >>> out = compare_rankings(s, "f1")
    >>> out["ranked"]["rank_f1"].to_list(), out["ranked"]["rank_informedness"].to_list()
    ([1, 2, 3], [2, 1, 3])
    >>> round(out["spearman"], 3), out["pair"][0]["run"], out["pair"][1]["run"]
    (0.5, 1, 2)
    """
    from scipy.stats import spearmanr

    ranked = scores.with_columns(
        pl.col(c).fill_nan(None).rank("min", descending=True).fill_null(scores.height).alias(f"rank_{c}")
        for c in (measure, reference)
    )
    m = ranked.get_column(measure).fill_nan(None).to_numpy().astype(float)
    r = ranked.get_column(reference).fill_nan(None).to_numpy().astype(float)
    ok = np.isfinite(m) & np.isfinite(r)
    rho = float(spearmanr(m[ok], r[ok]).statistic) if ok.sum() > 2 else float("nan")
    dm = m[:, None] - m[None, :]
    dr = r[:, None] - r[None, :]
    strength = np.where((dm > 0) & (dr < 0), np.minimum(np.abs(dm), np.abs(dr)), -np.inf)
    pair = None
    if np.isfinite(strength).any():
        i, j = np.unravel_index(np.argmax(strength), strength.shape)
        pair = (ranked.row(int(i), named=True), ranked.row(int(j), named=True))
    return {"ranked": ranked, "spearman": rho, "pair": pair}


def _table(frame: pl.DataFrame) -> str:
    with pl.Config(
        tbl_formatting="ASCII_MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
        tbl_rows=50, tbl_cols=20, tbl_width_chars=200, float_precision=3, fmt_str_lengths=60,
    ):  # fmt: skip
        return str(frame)


def _describe(row: dict[str, Any], measure: str, binary: bool) -> str:
    said = f", says malignant for {row['bias']:.1%} of cases, recall {row['recall']:.2f}" if binary else ""
    return (
        f"{row['setting']} ({measure} {row[measure]:.3f}, informedness {row['informedness']:.3f}, "
        f"accuracy {row['accuracy']:.3f}{said})"
    )


def _report_ranking(dataset: str, scores: pl.DataFrame, measure: str, top: int) -> dict[str, Any]:
    binary = measure == "f1"
    out = compare_rankings(scores, measure)
    acc = compare_rankings(scores, "accuracy")
    ranked = out["ranked"].join(acc["ranked"].select("run", "rank_accuracy"), on="run")
    columns = ["setting", "informedness", measure, "accuracy", *(["bias"] if binary else [])]
    for by, other in (("informedness", measure), (measure, "informedness")):
        print(f"top {top} by {by}:")
        shown = ranked.sort(f"rank_{by}", "run").head(top)
        print(_table(shown.select(pl.col(f"rank_{by}").alias("rank"), *columns, f"rank_{other}")))
    print(
        f"Spearman rank correlation with informedness, over {scores.height} runs: "
        f"{measure} {out['spearman']:.3f}, accuracy {acc['spearman']:.3f}"
    )
    if out["pair"] is not None:
        a, b = out["pair"]
        print(f"biggest disagreement: {measure} prefers\n  {_describe(a, measure, binary)}\nover\n"
              f"  {_describe(b, measure, binary)},\nwhich informedness ranks {a['rank_informedness']} "
              f"and {b['rank_informedness']}.")  # fmt: skip
    winner = ranked.sort("rank_accuracy", "run").row(0, named=True)
    if winner["rank_informedness"] != 1:
        print(
            f"the accuracy winner, {winner['setting']}, ranks {winner['rank_informedness']} by informedness."
        )
    if out["spearman"] > 0.99 and acc["spearman"] > 0.99:
        print(f"with balanced classes and unbiased predictions, {measure}, accuracy and informedness agree.")
    return {**out, "ranked": ranked}


def _best_thresholds(sw: pl.DataFrame, run_id: int) -> pl.DataFrame:
    part = sw.filter(pl.col("run") == run_id)
    rows = []
    for m in ("informedness", "f1", "accuracy"):
        best = part.filter(pl.col(m).fill_nan(None) == pl.col(m).fill_nan(None).max()).sort("threshold")
        rows.append(best.head(1).with_columns(pl.lit(m).alias("maximise")))
    cols = ["maximise", "threshold", "recall", "fallout", "bias", "informedness", "f1", "accuracy"]
    return pl.concat(rows).select(cols)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _summary_figure(dataset: str, comparison: dict[str, Any], sw: pl.DataFrame, path: Path) -> None:
    """Three panels: F1 and accuracy against informedness per run, and a threshold sweep of run A."""
    from ..plot.backend import pyplot

    plt = pyplot()
    ranked = comparison["ranked"]
    a, b = comparison["pair"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 5.0))
    colours = dict(zip(_FAMILIES, plt.get_cmap("tab10").colors, strict=False))
    for ax, measure in zip(axes[:2], ("f1", "accuracy"), strict=True):
        for family in _FAMILIES:
            part = ranked.filter(pl.col("model") == family)
            ax.scatter(part["informedness"], part[measure], s=30, color=colours[family], label=family,
                       edgecolor="white", linewidth=0.5)  # fmt: skip
        ax.plot([a["informedness"], b["informedness"]], [a[measure], b[measure]], color="0.3",
                linewidth=1.0, linestyle=":")  # fmt: skip
        for row, text in ((a, "A"), (b, "B")):
            ax.annotate(text, (row["informedness"], row[measure]), xytext=(6, -12),
                        textcoords="offset points", fontsize=12, weight="bold")  # fmt: skip
        ax.set_xlabel("informedness")
        ax.set_ylabel(measure)
        ax.set_xlim(-0.03, 1.02)
        ax.set_title(f"{measure} against informedness, one dot per run")
        ax.grid(True, color="0.92")
    axes[0].legend(fontsize="small", loc="upper left")
    pct = "{:.0%}".format
    both = a["accuracy"] > b["accuracy"]
    who = "F1 and accuracy" if both else "F1"
    note = (
        f"A = {a['setting']}: says malignant for {pct(a['bias'])} of cases, finds {pct(a['recall'])} "
        f"of malignant tumours\nB = {b['setting']}: says malignant for {pct(b['bias'])}, "
        f"finds {pct(b['recall'])}.   {who} prefer{'' if both else 's'} A; informedness prefers B."
    )
    curve = sw.filter(pl.col("run") == a["run"]).sort("threshold")
    ax = axes[2]
    x = curve["threshold"].to_numpy()
    ax.axvline(0.5, color="0.6", linewidth=0.9, label="A's threshold, 0.5")
    for measure, style in (("informedness", "-"), ("f1", "--"), ("accuracy", "-.")):
        y = curve[measure].fill_nan(None).to_numpy().astype(float)
        best = int(np.nanargmax(y))
        (line,) = ax.plot(x, y, style, linewidth=1.8, label=f"{measure} (highest at {x[best]:.2f})")
        ax.plot([x[best]], [y[best]], "o", color=line.get_color(), markersize=7)
    ax.set_xlabel("threshold on P(malignant)")
    ax.set_ylabel("value")
    ax.set_ylim(0, 1.02)
    ax.set_title("run A at every threshold")
    ax.legend(fontsize="small", loc="lower left")
    ax.grid(True, color="0.92")
    seeds = int(ranked["n_pooled"].max()) // N_FOLDS  # --quick fits one seed
    fig.suptitle(f"{dataset} (prevalence {ranked['prevalence'][0]:.2f}): {ranked.height} runs, "
                 f"each pooled over {_count(seeds, 'seed')} × {N_FOLDS} folds", fontsize=12)  # fmt: skip
    fig.text(0.01, 0.01, note, fontsize=9.5, va="bottom")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def cache_name(quick: bool = False) -> str:
    """The file in the output directory that caches the predictions of the full or the quick grid.

    The quick grid has its own file, in its own folder (``quick/``, as :func:`run` writes it): a
    smoke test in the default directory would otherwise replace the full sweep's predictions, and
    the next full demo would fit all 1,530 models again.

    Examples
    --------
    >>> cache_name(), cache_name(quick=True)
    ('predictions.parquet', 'predictions_quick.parquet')
    """
    return "predictions_quick.parquet" if quick else "predictions.parquet"


def run(
    out_dir: str | Path = "batcheval_demo", *, seeds: Sequence[int] = SEEDS, quick: bool = False,
    n_jobs: int = 1, top: int = 5, verbose: bool = True, warm: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Fit (or load) the sweep, evaluate it with batcheval, print the rankings and save plots.

    Parameters
    ----------
    out_dir
        Where ``predictions.parquet`` (the cache), ``scores.parquet``,
        ``sweep.parquet``, ``auc.parquet``, ``leaderboard.parquet`` (one board per
        data set, stacked, with a ``dataset`` column: filter one to plot it) and
        the PNG charts go. With ``quick``, every file goes to ``out_dir/quick/``
        (the cache as ``predictions_quick.parquet``), so that a smoke test never
        replaces the full sweep's files.
    seeds
        Seeds of the 5-fold splits (and of the trees and forests).
    quick
        A 40-run grid: 15 runs on ``breast_cancer_rare`` and ``digits`` and the
        :data:`BENCHMARK` settings on the five small data sets, for tests.
    n_jobs
        Passed to ``cross_val_predict``.
    top
        How many runs each top list shows.
    verbose
        Print the report; otherwise only return it.
    warm
        Compile the kernels the evaluation needs in a second process too (:func:`warm_kernels`),
        on a machine with more than one core: while the models fit, or, with the predictions
        cached, from the first kernel that compiles (none does on a warm cache, and then nothing
        starts). ``batcheval demo`` sets it.

    Returns
    -------
    dict
        ``predictions``; ``scores``, ``sweep``, ``auc`` and ``leaderboard``
        (polars frames, one row per run, or per run × threshold for ``sweep``);
        ``rankings``: per data set with a full grid, the :func:`compare_rankings`
        result; ``ranks``: the :func:`batcheval.rank_methods` result of the
        :data:`BENCHMARK` settings over every data set that has all of them;
        ``plots``: the PNG paths written.

    Examples
    --------
    >>> import tempfile
    >>> out = run(tempfile.mkdtemp(), seeds=[0], quick=True, verbose=False)
    >>> sorted(out["rankings"]), out["scores"].height, out["ranks"].n_datasets
    (['breast_cancer_rare', 'digits'], 40, 5)
    >>> out["plots"][0].parent.name
    'quick'
    """
    import contextlib
    import io

    out_dir = Path(out_dir) / "quick" if quick else Path(out_dir)  # beside the full sweep's files
    out_dir.mkdir(parents=True, exist_ok=True)
    sink = contextlib.nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO())
    with sink:
        return _run(out_dir, list(seeds), quick, n_jobs, top, verbose, warm)


def _run(
    out_dir: Path, seeds: list[int], quick: bool, n_jobs: int, top: int, verbose: bool, warm: bool
) -> dict[str, Any]:
    start = time.perf_counter()
    path = out_dir / cache_name(quick)
    stamp = path.stat().st_mtime_ns if path.exists() else None
    preds = _cached(path, seeds, quick)
    helpers: list[subprocess.Popen | None] = []
    cancel = None
    if warm and preds is None:  # the models fit first: overlap them
        helpers.append(_start_warm_up(seeds, quick))
    elif warm:  # predictions cached: a compile says the kernels are not (a first run, an upgrade)
        cancel = call_on_first_compile(lambda: helpers.append(_start_warm_up(seeds, quick)))
    try:
        if preds is None:
            preds = predictions(path, seeds=seeds, quick=quick, n_jobs=n_jobs, progress=verbose)
        fitted = "read from the cache" if stamp == path.stat().st_mtime_ns else "fitted"
        n_runs = preds["run"].n_unique()
        print(
            f"{n_runs} runs ({len(_FAMILIES)} model families) × {_count(len(seeds), 'seed')} × {N_FOLDS} "
            f"folds: {preds.height:,} cross-validated predictions, {fitted} in "
            f"{time.perf_counter() - start:.1f} s ({path})"
        )
        result = _analyse(preds, out_dir, seeds, quick, top)
    finally:
        if cancel is not None:
            cancel()
        for helper in helpers:
            stop(helper)
    if verbose:
        print(f"demo finished in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return result


def _analyse(
    preds: pl.DataFrame, out_dir: Path, seeds: list[int], quick: bool, top: int, *, reverse: bool = False,
    charts: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """Evaluate, rank, sweep and chart the predictions of every data set (in reverse order for the
    warm-up, which draws no chart)."""
    preds = preds.with_columns(pl.concat_str("model", pl.lit(" "), "params").alias("setting"))
    keys = ["run", "setting", "model", "params", "seed", "fold"]
    scores, rankings, sweeps, aucs, boards, plots = [], {}, [], [], [], []
    parts = list(preds.partition_by("dataset", as_dict=True, maintain_order=True).items())
    for (dataset,), part in reversed(parts) if reverse else parts:
        binary = N_CLASSES[dataset] == 2
        # pooled: each run's 3 seeds × 5 folds summed into one table, then measured (micro average);
        # the seeds score the same examples, so p_informedness counts each example once (example=)
        scored = evaluate(part, by=keys, pool=["seed", "fold"], example="example",
                          measures=_BINARY_MEASURES if binary else _MULTICLASS_MEASURES)  # fmt: skip
        scored = scored.with_columns(pl.lit(dataset).alias("dataset"))
        if dataset not in _DETAILED:  # the small data sets only feed the ranks across data sets
            scores.append(scored)
            continue
        n_examples = part.filter((pl.col("run") == part["run"][0]) & (pl.col("seed") == seeds[0])).height
        kind = "binary, positive = malignant" if binary else "10 classes"
        prevalence = f", prevalence {part['label'].mean():.2f}" if binary else ""
        print(f"\n== {dataset}: {n_examples} examples, {kind}{prevalence} ==")
        measure = "f1" if binary else "macro_f1"
        rankings[dataset] = _report_ranking(dataset, scored, measure, top)
        scores.append(scored)
        # ---- leaderboard: 95% intervals, and which runs the leader does not clearly beat ----
        # one seed, so that each example counts once: repeats of the same examples under other
        # seeds are not new evidence, and would narrow the intervals
        one_seed = part.filter(pl.col("seed") == seeds[0])
        with warnings.catch_warnings():  # _report_board says why a board has no rank intervals
            warnings.filterwarnings("ignore", "rank_ci_low and rank_ci_high are null", BatchevalWarning)
            board = leaderboard(one_seed, run="setting", pool="fold", example="example")
        _report_board(board, top, seeds[0])
        boards.append(board.with_columns(pl.lit(dataset).alias("dataset")))
        if dataset == "breast_cancer_rare" and charts:
            png = out_dir / f"{dataset}_leaderboard.png"
            _forest(board, png, f"{dataset}, seed {seeds[0]}: informedness with 95% intervals")
            plots.append(png)
        if binary:
            # ---- thresholds: every binary measure at 101 thresholds of P(malignant), pooled ----
            sw = sweep(part, by=keys, score="score", thresholds=list(_THRESHOLDS), pool=["seed", "fold"],
                       measures=["informedness", "f1", "accuracy", "recall", "fallout", "bias"])  # fmt: skip
            ranked = rankings[dataset]["ranked"]
            shown = [ranked.sort("rank_informedness", "run").row(0, named=True)]
            if rankings[dataset]["pair"] is not None:
                shown.append(rankings[dataset]["pair"][0])
            for row, who in zip(shown, ("the informedness winner", f"{measure}'s pick in that pair"),
                                strict=False):  # fmt: skip
                print(f"thresholds that maximise each measure for {who}, {row['setting']} (pooled):")
                print(_table(_best_thresholds(sw, row["run"])))
            sweeps.append(sw.with_columns(pl.lit(dataset).alias("dataset")))
            aucs.append(
                auc(part, by=["run", "setting"], score="score").with_columns(pl.lit(dataset).alias("dataset"))
            )
            # ---- charts: ROC and BIRD of each model family's best run by informedness ----
            chosen = ranked.sort("rank_informedness", "run").unique("model", keep="first").get_column("run")
            # every score a threshold: the legend's area is the exact AUC (a grid gives its own sum)
            cv = curves(part.filter(pl.col("run").is_in(chosen.implode())), by=["setting", "seed", "fold"],
                        score="score", kind=["roc", "bird"], thresholds="exact",
                        pool=["seed", "fold"])  # fmt: skip
            for chart in ("roc", "bird") if charts else ():
                png = out_dir / f"{dataset}_{chart}.png"
                _save_chart(cv, chart, png, f"{dataset}: {chart.upper()}, each family's most informed run")
                plots.append(png)
            if dataset == "breast_cancer_rare" and rankings[dataset]["pair"] is not None and charts:
                png = out_dir / "f1_vs_informedness.png"
                _summary_figure(dataset, rankings[dataset], sw, png)
                plots.append(png)
        else:
            mc = auc(part, by=["run", "setting"], score="scores")
            aucs.append(mc.with_columns(pl.lit(dataset).alias("dataset")))

    all_scores = pl.concat(scores, how="diagonal_relaxed")
    ranks = _report_ranks(all_scores, settings(quick), out_dir, plots if charts else None)
    result = {
        "predictions": preds,
        "scores": all_scores,
        "sweep": pl.concat(sweeps, how="diagonal_relaxed") if sweeps else pl.DataFrame(),
        "auc": pl.concat(aucs, how="diagonal_relaxed"),
        "leaderboard": pl.concat(boards, how="diagonal_relaxed"),
        "rankings": rankings,
        "ranks": ranks,
        "plots": plots,
    }
    for name in ("scores", "sweep", "auc", "leaderboard"):
        result[name].write_parquet(out_dir / f"{name}.parquet")
    print(f"\nwrote scores, sweep, auc and leaderboard .parquet and {len(plots)} charts to {out_dir}/")
    if plots:  # a newcomer was left to find them, and the next step
        print("charts: " + ", ".join(sorted(p.name for p in plots)))
    print(f"next: README's Quickstart reads {out_dir}/{cache_name(quick)}, the predictions of every run, "
          "with intervals and a leaderboard")  # fmt: skip
    return result


def benchmark_scores(scores: pl.DataFrame, grid: Sequence[Setting]) -> pl.DataFrame:
    """The :data:`BENCHMARK` runs of ``scores`` on the data sets that have every family's.

    ``scores`` has one row per run (columns ``run``, ``dataset``, ``model`` and the measures),
    ``grid`` is the :func:`settings` list the run numbers index. A column ``method`` (the
    family) is added; data sets that lack some family's benchmark setting are left out, since
    the Friedman test needs every method on every data set.

    Examples
    --------
    >>> import polars as pl
    >>> grid = settings(quick=True)
    >>> runs = pl.DataFrame({"run": range(len(grid)), "dataset": [s.dataset for s in grid],
    ...                      "model": [s.model for s in grid]})
    >>> out = benchmark_scores(runs, grid)
    >>> out.height, out["dataset"].n_unique(), sorted(out["method"].unique())
    (25, 5, ['forest', 'knn', 'logreg', 'naive_bayes', 'tree'])
    """
    runs = [run for run, s in enumerate(grid) if s.benchmark]
    bench = scores.filter(pl.col("run").is_in(runs)).with_columns(pl.col("model").alias("method"))
    complete = bench.group_by("dataset").agg(pl.col("method").n_unique().alias("_k"))
    keep = complete.filter(pl.col("_k") == len(BENCHMARK)).get_column("dataset")
    order = {d: i for i, d in enumerate(DATASETS)}
    return bench.filter(pl.col("dataset").is_in(keep.implode())).sort(
        pl.col("dataset").replace_strict(order, return_dtype=pl.Int32), "run"
    )


def _report_ranks(
    scores: pl.DataFrame, grid: Sequence[Setting], out_dir: Path, plots: list[Path] | None
) -> RankResult | None:
    """Rank the families over the data sets; draw the CD diagram into ``plots`` (None: no chart)."""
    bench = benchmark_scores(scores, grid)
    n = bench["dataset"].n_unique()
    if n < 2:
        return None
    fixed = " · ".join(
        f"{m} {', '.join(f'{k}={_text(v)}' for k, v in p.items()) or 'defaults'}"
        for m, p in BENCHMARK.items()
    )
    print(
        f"\n== across data sets: {len(BENCHMARK)} model families ranked by informedness on {n} data sets =="
    )
    print(f"each family at one setting on every data set: {fixed}")
    print("informedness (pooled over seeds and folds):")
    wide = bench.pivot(on="dataset", index="method", values="informedness", maintain_order=True)
    print(_table(wide))
    res = rank_methods(bench, method="method", dataset="dataset", measure="informedness")
    print(f"average ranks over {n} datasets (1 = best; the Friedman test and the CD diagram use these):")
    print(_table(res.ranks))
    print(res.summary())
    apart = res.pairwise.filter(pl.col("nemenyi_different"))
    if apart.height:
        said = ", ".join(f"{a} over {b} ({d:.2f})" for a, b, d in apart.select(
            "method_a", "method_b", "rank_diff").rows())  # fmt: skip
        print(
            f"Nemenyi separates {apart.height} of {res.pairwise.height} pairs (rank difference ≥ CD): {said}"
        )
    else:
        print(
            f"Nemenyi separates none of the {res.pairwise.height} pairs: "
            "every rank difference is below the CD"
        )
    if plots is None:
        return res
    from ..plot.backend import pyplot

    plt = pyplot()
    png = out_dir / "cd.png"
    fig, ax = plt.subplots(figsize=(8, 3.2))
    plot(res, chart="cd", ax=ax, title=f"{res.n_methods} model families on {n} datasets, informedness; "
         f"Nemenyi CD at α = {res.alpha:g}")  # fmt: skip
    fig.savefig(png, dpi=100, bbox_inches="tight")
    plt.close(fig)
    plots.append(png)
    return res


def _report_board(board: pl.DataFrame, top: int, seed: int) -> None:
    tied = int(board["could_be_best"].fill_null(False).sum())
    print(
        f"leaderboard by informedness, seed {seed} (each example once): 95% intervals, the paired "
        "test against the leader on the same examples, the best set and the ranks it could have:"
    )
    shown = board.head(top).select(
        "rank", "setting", "informedness", "informedness_ci_low", "informedness_ci_high",
        "p_vs_leader", "could_be_best", "rank_ci_low", "rank_ci_high",
    )  # fmt: skip
    # a p-value below 0.001 in scientific notation: three decimals printed them as 0.000
    p_text = [
        "" if p is None or np.isnan(p) else f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"  # the leader: none
        for p in shown["p_vs_leader"]
    ]
    shown = shown.with_columns(pl.Series("p_vs_leader", p_text, dtype=pl.String))
    ranked = shown["rank_ci_low"].null_count() < shown.height
    if not ranked:  # a paired board of more than five classes: compared with the leader only
        shown = shown.drop("rank_ci_low", "rank_ci_high")
    print(_table(shown.rename({"informedness_ci_low": "ci_low", "informedness_ci_high": "ci_high"})))
    print(f"{tied} of {board.height} runs could be the best (a simultaneous 95% set, valid under selection).")
    # a run with p_vs_leader 0.008 and could_be_best true read as a contradiction to a newcomer
    print("p_vs_leader tests one run against the leader, unadjusted; could_be_best accounts for every "
          "run and for the leader being chosen from the same data, so a small p_vs_leader can sit in "
          "the set.")  # fmt: skip
    if not ranked:
        print(
            "no rank intervals: with more than five classes each run is compared with the leader only "
            "(docs/calibration_leader.md, Stop 51)"
        )


def _forest(board: pl.DataFrame, path: Path, title: str) -> None:
    from ..plot.backend import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 6.4))
    plot(board, top=15, title=title, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _save_chart(cv: pl.DataFrame, chart: str, path: Path, title: str) -> None:
    from ..plot.backend import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 6.4))
    plot(cv, chart=chart, by="setting", title=title, ax=ax)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """``python examples/sklearn_sweep.py [OUT_DIR] [--quick]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default="batcheval_demo")
    parser.add_argument("--quick", action="store_true", help="a 40-run grid with one seed")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    run(args.out_dir, quick=args.quick, seeds=[0] if args.quick else SEEDS, n_jobs=args.n_jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
