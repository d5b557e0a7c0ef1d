"""Size of the leaderboard's per-run p-value columns under the null (issue 20, item 5).

Boards of runs with *equal* true informedness ``B`` (paper 002's
informed-plus-chance model of ``benchmarks/calibration_leader.py``, whose
generator this script imports: a run copies the label with probability ``B``,
else flips a fair coin; ``max(1, round(prevalence · n))`` positives), paired
(every run scores one shared test set, ``example=``) and unpaired (each run
its own test set). Every p-value column of ``be.leaderboard`` is two-sided
(``2·Φ(−|z|)``, the sign-flip test's ``P(|D| > |d|) + ½·P(|D| = |d|)``, McNemar's
``2·P(X ≤ min(b, c))``), and with two runs of equal skill each is symmetric in
the two runs, so which one leads does not matter: its size is P(p ≤ α).

``--designs leader`` (R = 2): ``p_vs_leader`` and ``p_mcnemar`` of the second run.

- unpaired, ``measure="informedness"`` (the default) and ``"markedness"``: the score test of
  equal values (``comparisons.equal_difference_p``, the variance at the four binomial rates of
  most likelihood under the null) where both tables' margins hold 10 examples, else the z-test
  of the adjusted (pseudo-count) estimates with the adjusted delta-method standard errors
  (``comparisons.unpaired_versus``); and that z-test alone (``z-test (before)``), which
  ``p_vs_leader`` was everywhere before the score test;
- paired, informedness: the mid-p sign-flip test (``paired_se.sign_flip_p(mid_p=True)``),
  which ``p_vs_leader`` is under ``paired="bootstrap"`` (the default) and ``paired="delta"``
  alike for the measures of ``SIGN_FLIP_MEASURES``, and the exact one it was before
  (``exact sign-flip (before)``); ``p_mcnemar``, the exact McNemar test; other measures
  (markedness): the larger of the mid-p swap test (``paired_se.swap_p(mid_p=True)``, where its
  enumeration fits: ``swap enumerated`` gives the share of tables) and ``2·Φ(−|diff|/se)`` with
  the paired Poisson bootstrap's (``p bootstrap``, the default) or the delta method's (``p
  delta``) standard error; the same with the exact swap test, as it was before the mid-p one
  (``exact swap or normal ... (before)``, leader design); the exact and the mid-p swap tests
  alone; and, as it was before the swap test, the normal p-value alone (``normal p bootstrap
  (before swap)``, ``normal p delta (before swap)``).

``--designs above`` (R = 3, ``adjacent=True``): ``p_vs_above`` (and paired,
``p_mcnemar_vs_above``) of the runs ranked 2 and 3, each against the run
ranked just above it: a pair picked by the ranking, tested as if it were not.

The boards are simulated in bulk: every board's runs are stacked and each run
is compared with its own board's leader (or run above) through the functions
``be.leaderboard`` calls (``inference.comparisons.unpaired_versus`` / ``unpaired_se`` /
``unpaired_centre`` and ``paired_columns``), since one big board would compare
every run with the one global leader. The first ``--check`` boards of each
point are also run through ``be.leaderboard`` itself and must give the same
p-values bit for bit, the paired bootstrap's too (its replicates depend on a run's
joint table and the seed, not on its position); the run stops on any mismatch.

Columns: the size at α = 0.01 and 0.05 ± its Monte-Carlo standard error
``sqrt(p(1 − p)/boards)``; a NaN p-value (an undefined measure) counts as not
rejected, and ``nan`` is their share; ``margin`` is the expected smallest
margin of a run's table, ``min(positives, negatives, E[predicted positives],
E[predicted negatives])``.

    python benchmarks/calibration_board.py --boards 2000 --designs leader --out leader.md
    python benchmarks/calibration_board.py --quick
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl

import batcheval as be
from batcheval.inference import comparisons as _cmp
from batcheval.inference.paired_se import SIGN_FLIP_MEASURES, normal_paired_p, sign_flip_p, swap_p
from batcheval.measures import compute

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration_leader import labels

ALPHAS = (0.01, 0.05)
POS = 1  # the leaderboard's positive class for labels {0, 1}: the greater one
N_BOOT = 200  # the leaderboard's default
NS = (10, 20, 40, 100, 400)
PREVALENCES = (0.1, 0.5)
SKILLS = (0.0, 0.5, 0.9)
# p_vs_leader is the exact sign-flip test for these under either paired= method
_SIGN_FLIP = SIGN_FLIP_MEASURES[2]


def simulate(
    boards: int, runs: int, n: int, prevalence: float, skill: float, paired: bool, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and predictions ``[boards, runs, n]`` of boards whose runs all have informedness ``skill``."""
    if paired:
        y = np.stack([labels(n, prevalence, rng) for _ in range(boards)])[:, None, :].repeat(runs, axis=1)
    else:
        y = np.stack([labels(n, prevalence, rng) for _ in range(boards * runs)]).reshape(boards, runs, n)
    informed = rng.random(y.shape) < skill
    guess = (rng.random(y.shape) < 0.5).astype(np.int8)
    return y, np.where(informed, y, guess).astype(np.int8)


def frame(y: np.ndarray, pred: np.ndarray) -> pl.DataFrame:
    """One board (``[runs, n]`` arrays) as the rows ``be.leaderboard`` reads."""
    r, n = y.shape
    return pl.DataFrame({
        "run": np.repeat(np.arange(r, dtype=np.int32), n),
        "example_id": np.tile(np.arange(n, dtype=np.int32), r),
        "label": y.ravel(),
        "prediction": pred.ravel(),
    })  # fmt: skip


def tables(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Each run's table ``[boards · runs, real, predicted]``."""
    code = (y.astype(np.int64) * 2 + pred).reshape(-1, y.shape[-1])
    return np.stack([(code == c).sum(axis=1) for c in range(4)], axis=1).reshape(-1, 2, 2)


def joints(y: np.ndarray, pred: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Each run's joint table with run ``ref[b, r]`` of its board, ``[boards · runs, real, ref's, run's]``."""
    other = np.take_along_axis(pred, ref[:, :, None], axis=1)
    code = (y.astype(np.int64) * 4 + other * 2 + pred).reshape(-1, y.shape[-1])
    return np.stack([(code == c).sum(axis=1) for c in range(8)], axis=1).reshape(-1, 2, 2, 2)


def ranking(value: np.ndarray) -> np.ndarray:
    """``order[b]``: board b's runs best first, as the leaderboard ranks them (NaN last, ties by position)."""
    return np.argsort(-np.nan_to_num(value, nan=-np.inf), axis=1, kind="stable")


def references(value: np.ndarray, design: str) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the run it is compared with (its board's leader, or the run ranked just above it;
    −1 for the leader), and its rank (1 = leader)."""
    order = ranking(value)
    b, r = value.shape
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(1, r + 1)[None, :].repeat(b, axis=0), axis=1)
    if design == "leader":
        ref = np.repeat(order[:, :1], r, axis=1)
    else:
        ref = np.full((b, r), -1)
        np.put_along_axis(ref, order[:, 1:], order[:, :-1], axis=1)
    return np.where(rank == 1, -1, ref), rank


def columns(
    y: np.ndarray, pred: np.ndarray, paired: bool, measure: str, design: str, seed: int
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The p-value columns of every run (``[boards, runs]``, NaN for the leader) and the runs' ranks."""
    b, r, _ = y.shape
    counts = tables(y, pred)
    value = compute(counts, [measure], positive=POS)[measure].reshape(b, r)
    ref, rank = references(value, design)
    safe = np.maximum(ref, 0)
    flat_ref = (safe + np.arange(b)[:, None] * r).ravel()
    out: dict[str, np.ndarray] = {}
    if paired:
        joint = joints(y, pred, safe)
        methods = ("bootstrap", "delta") if measure not in _SIGN_FLIP else ("bootstrap",)
        normal = {}
        for method in methods:
            if method == "bootstrap" and measure not in _SIGN_FLIP:
                got = _per_board(joint, b, measure, seed)
            else:  # the same p-values whatever the seed
                got = _cmp.paired_columns(joint, measure, POS, N_BOOT, seed, method)
            tag = "p" if len(methods) == 1 else f"p {method}"
            out[tag] = got["p_vs_leader"].reshape(b, r)
            out["p_mcnemar"] = got["p_mcnemar"].reshape(b, r)
            if len(methods) > 1:  # what p_vs_leader was before the swap test: normal with the method's se
                normal[method] = normal_paired_p(
                    joint, measure, POS, got["diff_vs_leader"], got["se_vs_leader"], method
                )
                out[f"normal p {method} (before swap)"] = normal[method].reshape(b, r)
        if len(methods) > 1:
            swap, enumerated = swap_p(joint, measure, POS)
            if design == "leader":  # what p_vs_leader was before the mid-p swap test: the exact one
                for method in methods:
                    both = np.where(enumerated, np.maximum(swap, normal[method]), normal[method])
                    out[f"exact swap or normal {method} (before)"] = both.reshape(b, r)
            out["swap test alone"] = swap.reshape(b, r)
            out["mid-p swap alone"] = swap_p(joint, measure, POS, mid_p=True)[0].reshape(b, r)
            out["swap enumerated"] = enumerated.reshape(b, r).astype(np.float64)
        else:  # the exact sign-flip test, which p_vs_leader was before its mid-p version
            out["exact sign-flip (before)"] = sign_flip_p(joint, measure, POS).reshape(b, r)
    else:
        se = _cmp.unpaired_se(counts, measure, "wilson_delta", N_BOOT, seed, POS)
        centre = _cmp.unpaired_centre(counts, measure, "wilson_delta", value.ravel())
        got = _cmp.unpaired_versus(
            counts, measure, "wilson_delta", POS, value.ravel(), se, flat_ref, "x", centre
        )
        out["p"] = got["p_vs_x"].reshape(b, r)
        # the z-test of the adjusted estimates alone, which p_vs_leader was before the score test
        before = _cmp.versus(value.ravel(), se, flat_ref, "x", centre)["p_vs_x"]
        out["z-test (before)"] = before.reshape(b, r)
    for v in out.values():
        v[ref < 0] = np.nan
    return out, rank


def _per_board(joint: np.ndarray, boards: int, measure: str, seed: int) -> dict[str, np.ndarray]:
    """``paired_columns`` with the paired bootstrap, board b under seed ``seed + b``: a board's
    standard errors depend on its joint tables and its seed, and boards of one seed would share
    them (equal tables get equal ones; all draw from the same pools of shared draws)."""
    parts = [
        _cmp.paired_columns(part, measure, POS, N_BOOT, seed + i, "bootstrap")
        for i, part in enumerate(np.split(joint, boards))
    ]
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def check(
    y: np.ndarray, pred: np.ndarray, paired: bool, measure: str, design: str, got: dict, seed: int
) -> None:
    """Run the first boards through ``be.leaderboard`` and compare, bit for bit; raises on a mismatch."""
    name = "p_vs_leader" if design == "leader" else "p_vs_above"
    mc = "p_mcnemar" if design == "leader" else "p_mcnemar_vs_above"
    for i in range(y.shape[0]):
        for method in ("bootstrap", "delta") if paired else ("bootstrap",):
            # the paired bootstrap's board i ran under seed + i (_per_board)
            board_seed = seed + i if paired and method == "bootstrap" else seed
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                board = be.leaderboard(
                    frame(y[i], pred[i]), run="run", example="example_id" if paired else None,
                    measure=measure, paired=method, adjacent=design == "above", seed=board_seed,
                ).sort("run")  # fmt: skip
            pairs = [(name, "p" if "p" in got else f"p {method}")]
            pairs += [(mc, "p_mcnemar")] if paired else []
            for col, key in pairs:
                lib, ours = board[col].to_numpy(), got[key][i]
                if not np.array_equal(lib, ours, equal_nan=True):
                    raise AssertionError(f"board {i} {col} ({key}): leaderboard {lib} != simulated {ours}")


def margin(n: int, prevalence: float, skill: float) -> float:
    pos = max(1, round(prevalence * n))
    neg = n - pos
    pred_pos = pos * (skill + (1 - skill) / 2) + neg * (1 - skill) / 2
    return min(pos, neg, pred_pos, n - pred_pos)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=2000, help="boards per grid point")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--designs", default="leader,above")
    parser.add_argument("--pairings", default="unpaired,paired")
    parser.add_argument("--measures", default="informedness,markedness")
    parser.add_argument("--check", type=int, default=20, help="boards per point also run through leaderboard")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--points", default=None, help="only these grid points, as n:prevalence:B,... (e.g. 100:0.5:0.5)"
    )
    parser.add_argument("--out", default=None, help="write the markdown tables here")
    args = parser.parse_args()
    boards = 200 if args.quick else args.boards
    grid = [(n, p, s) for n in ((10, 100) if args.quick else NS) for p in PREVALENCES for s in SKILLS]
    if args.points:
        grid = [(int(n), float(p), float(s)) for n, p, s in (pt.split(":") for pt in args.points.split(","))]
    rows = []
    t0 = time.perf_counter()
    for design in args.designs.split(","):
        runs = 2 if design == "leader" else 3
        for pairing in args.pairings.split(","):
            paired = pairing == "paired"
            for n, prev, skill in grid:
                rng = np.random.default_rng([args.seed, runs, n, int(prev * 1000), int(skill * 100), paired])
                y, pred = simulate(boards, runs, n, prev, skill, paired, rng)
                row = {"design": design, "pairing": pairing, "n": n, "prevalence": prev, "B": skill,
                       "margin": margin(n, prev, skill), "boards": boards}  # fmt: skip
                for measure in args.measures.split(","):
                    got, rank = columns(y, pred, paired, measure, design, args.seed)
                    enumerated = got.pop("swap enumerated", None)
                    if enumerated is not None:  # runs below the leader whose swap test was enumerated
                        row[f"{measure} swap enumerated"] = float(enumerated[rank >= 2].mean())
                    k = min(args.check, boards)
                    first = {c: v[:k] for c, v in got.items()}
                    check(y[:k], pred[:k], paired, measure, design, first, args.seed)
                    for key, p in got.items():
                        if key == "p_mcnemar" and measure != args.measures.split(",")[0]:
                            continue  # McNemar does not depend on the measure
                        label = key if key == "p_mcnemar" else f"{measure} {key}"
                        for rk in (2, 3)[: runs - 1]:
                            pk = p[rank == rk]
                            col = label if runs == 2 else f"{label} rank {rk}"
                            row[f"{col} nan"] = float(np.isnan(pk).mean())
                            for a in ALPHAS:
                                rate = float(np.mean(pk <= a))  # NaN compares False: not rejected
                                row[f"{col} @{a}"] = rate
                                row[f"{col} se@{a}"] = math.sqrt(rate * (1 - rate) / len(pk))
                rows.append(row)
                print(
                    f"{design} {pairing:8} n={n:3} prev={prev} B={skill}: "
                    + " ".join(f"{c[:-6]}={v:.3f}" for c, v in row.items() if c.endswith(" @0.05")),
                    flush=True,
                )
    print(f"total {time.perf_counter() - t0:.0f} s")
    if args.out:
        write(pl.DataFrame(rows, infer_schema_length=None), args)


def write(table: pl.DataFrame, args: argparse.Namespace) -> None:
    cmd = (
        f"python benchmarks/calibration_board.py --boards {args.boards} --seed {args.seed} --designs "
        f"{args.designs} --pairings {args.pairings} --measures {args.measures} --check {args.check}"
        + (f" --points {args.points}" if args.points else "")
    )
    lines = ["Made by", "", "```", cmd, "```", ""]
    for (design, pairing), part in table.group_by(["design", "pairing"], maintain_order=True):
        cols = [c[: -len(" @0.05")] for c in part.columns if c.endswith(" @0.05")]
        cols = [c for c in cols if part[f"{c} @0.05"].null_count() < part.height]
        lines += [f"### {design}, {pairing}", ""]
        lines += ["| n | prev | B | margin | " + " | ".join(f"{c} (0.01 / 0.05)" for c in cols) + " |"]
        lines += ["|" + "---|" * (4 + len(cols))]
        for row in part.iter_rows(named=True):
            cells = [
                f"{row[f'{c} @0.01']:.3f} ± {row[f'{c} se@0.01']:.3f} / {row[f'{c} @0.05']:.3f} ± "
                f"{row[f'{c} se@0.05']:.3f}"
                + (f" (nan {row[f'{c} nan']:.2f})" if row[f"{c} nan"] > 0 else "")
                for c in cols
            ]
            lines.append(
                f"| {row['n']} | {row['prevalence']} | {row['B']} | {row['margin']:.1f} | "
                + " | ".join(cells)
                + " |"
            )
        for c in part.columns:
            if c.endswith("swap enumerated") and part[c].null_count() < part.height:
                lines.append(
                    f"{c}: the share of tables is {part[c].min():.4f} at least ({part[c].max():.4f} at most)"
                )
        lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
