"""The calibration suite: every level the library claims, checked by simulation.

Runs the five studies one after another and writes their tables to ``docs/``:

- chance: the p-values a user is told to read hold their size (``calibration_chance.py``,
  ``docs/calibration_chance.md``);
- intervals: 95 % intervals cover 95 %, at small n too, and are no wider than a bootstrap's
  (``calibration_intervals.py``, ``docs/calibration_intervals.md``);
- leader: the best set and the rank intervals keep their family-wise error under selection
  (``calibration_leader.py``, ``docs/calibration_leader.md``);
- cluster: intervals stay valid when examples repeat or come in clusters
  (``calibration_cluster.py``, ``docs/calibration_cluster.md``);
- board: the size of a leaderboard's per-run ``p_vs_leader``, ``p_mcnemar`` and ``p_vs_above``
  (``calibration_board.py``, ``docs/calibration_leader.md``, "The board's p-value columns").

Usage::

    python benchmarks/calibration.py                # all five as the docs show them (~30 min, 2 cores)
    python benchmarks/calibration.py --quick        # fewer replicates: a smoke run of every study
    python benchmarks/calibration.py chance leader  # some of them

Each study is its own script with its own options (``--help``); this one runs them with the
settings the docs were made with. The tests (``tests/test_calibration_*.py``,
``tests/test_selection.py``, ``tests/test_clustered.py``) check a seeded subset of each grid
with tolerances from the binomial error of the simulated rate.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent / "docs"

#: study -> (full arguments, quick arguments); the full ones made the tables in docs/.
STUDIES: dict[str, tuple[list[str], list[str]]] = {
    "chance": (["--output", str(DOCS / "calibration_chance.md")], ["--reps", "2000"]),
    "intervals": (
        ["--reps", "2000", "--boot-tables", "200", "--out", str(DOCS / "calibration_intervals.md")],
        ["--reps", "300", "--boot-tables", "5", "--n-boot", "400"],
    ),
    "leader": (
        [
            "--boards",
            "100",
            "--seed",
            "20",
            "--max-runs",
            "1000",
            "--out",
            str(DOCS / "calibration_leader_run.md"),
        ],
        ["--quick"],
    ),
    "cluster": (["--out", str(DOCS / "calibration_cluster_run.md")], ["--quick"]),
    "board": (
        [
            "--boards",
            "2000",
            "--seed",
            "20",
            "--designs",
            "leader,above",
            "--out",
            str(DOCS / "calibration_board_run.md"),
        ],
        ["--quick"],
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("studies", nargs="*", help=f"some of {list(STUDIES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer replicates; writes nothing to docs/")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.studies) - set(STUDIES))
    if unknown:
        parser.error(f"unknown studies {unknown}; choose from {list(STUDIES)}")
    failed = []
    for name in args.studies or list(STUDIES):
        full, quick = STUDIES[name]
        command = [sys.executable, str(HERE / f"calibration_{name}.py"), *(quick if args.quick else full)]
        print(f"== {name}: {' '.join(command[1:])}", flush=True)
        start = time.perf_counter()
        if subprocess.run(command, check=False).returncode:
            failed.append(name)
        print(f"== {name}: {time.perf_counter() - start:.0f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
