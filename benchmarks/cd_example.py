"""The synthetic benchmark of docs/comparing.md's "How to read a CD diagram", and its figure
docs/cd_example.png.

Eight methods on 30 datasets. A method's accuracy on a dataset is its fixed skill (:data:`SKILLS`),
plus the dataset's effect, N(0, 0.03²), which every method of that dataset shares, plus noise,
N(0, 0.02²), of each (dataset, method). ``numpy.random.default_rng(3)`` draws the 30 effects first,
then the 30 × 8 noises, dataset after dataset in the methods' order of :data:`SKILLS`.
``be.rank_methods`` ranks them with ``logreg`` as the control; the script prints every figure the
page quotes and draws the diagram.

    python benchmarks/cd_example.py                      # print, and write docs/cd_example.png
    python benchmarks/cd_example.py --out /tmp/cd.png    # the diagram elsewhere
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

import batcheval as be
from batcheval.plot.cd import cliques

#: Each method's accuracy before the dataset effect and the noise.
SKILLS = {"boosting": 0.845, "forest": 0.84, "svm_rbf": 0.83, "mlp": 0.825, "logreg": 0.80, "knn": 0.78,
          "naive_bayes": 0.74, "tree": 0.72}  # fmt: skip
PNG = Path(__file__).resolve().parent.parent / "docs" / "cd_example.png"


def scores(seed: int = 3, datasets: int = 30) -> pl.DataFrame:
    """One accuracy per (method, dataset), drawn as the module docstring says."""
    rng = np.random.default_rng(seed)
    effect = rng.normal(0.0, 0.03, datasets)
    noise = rng.normal(0.0, 0.02, (datasets, len(SKILLS)))
    accuracy = np.array(list(SKILLS.values()))[None, :] + effect[:, None] + noise
    return pl.DataFrame({
        "method": np.tile(list(SKILLS), datasets),
        "dataset": np.repeat(np.arange(datasets), len(SKILLS)),
        "accuracy": accuracy.ravel(),
    })  # fmt: skip


def ranked(frame: pl.DataFrame) -> be.RankResult:
    return be.rank_methods(frame, method="method", dataset="dataset", measure="accuracy", control="logreg")


def figures(res: be.RankResult) -> list[str]:
    """The lines the script prints: the figures docs/comparing.md quotes, in its words."""
    ranks = res.ranks
    mean = ranks["mean_rank"].to_numpy()
    names = ranks["method"].to_list()
    groups = [", ".join(names[i : j + 1]) for i, j in cliques(mean, res.cd)]
    holm = res.control.select("method", "p_holm").rows()
    return [
        f"CD {res.cd:.2f}",
        "average ranks: " + ", ".join(f"{m} {r:.2f}" for m, r in zip(names, mean, strict=True)),
        "joined (within one CD): " + "; ".join(groups),
        f"Friedman chi2 = {res.friedman_chi2:.1f} (p = {res.friedman_p:.1e}), "
        f"Iman-Davenport F = {res.iman_davenport_f:.1f}",
        "Holm against logreg: " + ", ".join(f"{m} {p:.3g}" for m, p in holm),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=PNG, help="the PNG (default: docs/cd_example.png)")
    args = parser.parse_args(argv)
    res = ranked(scores())
    print("\n".join(figures(res)))
    be.plot(res, chart="cd", path=args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
