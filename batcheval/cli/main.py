"""The ``batcheval`` command line.

batcheval evaluate FILE --by run,fold [--pool fold] [-o out.parquet]
batcheval sweep FILE --by run --thresholds 101 [-o sweep.parquet]
batcheval auc FILE --by run
batcheval plot FILE --by run --chart roc -o roc.png
batcheval demo [--synthetic]
batcheval compare FILE --run run --fold fold --repeat repeat --measure accuracy [--test bayes --rope 0.01]
batcheval ranks FILE --method method --dataset dataset --measure score [--plot cd.png]
batcheval measures

FILE is a parquet, csv or ipc file, a directory of them, or a glob of them. Without ``-o`` the result
prints as a table. Bad input exits with code 2 and a one-line message;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextvars
import difflib
import math
import re
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ..errors import BatchevalError, InvalidArgumentError
from ..scores.curves import CHARTS
from ..scores.sweep import SWEEP_MEASURES

if TYPE_CHECKING:  # numpy is imported where a command needs it, not when the CLI starts
    import numpy as np

_EVALUATE_EXAMPLES = """examples:
  batcheval evaluate preds.parquet --by run,fold
  batcheval evaluate preds.csv --by run,fold --pool fold -o scores.parquet
  batcheval evaluate 'sweep/*.parquet' --by run --measures informedness,markedness,p_informedness
  batcheval evaluate preds.parquet --by run --per-class --filter "fold < 3" -o per_class.csv

Without -o the result prints as a table of the key columns and the headline
measures; -o FILE writes every column (.parquet, .csv, .ipc or .json).
"""

_SWEEP_EXAMPLES = """examples:
  batcheval sweep scores.parquet --by run --thresholds 101
  batcheval sweep scores.parquet --by run,fold --pool fold --thresholds 0.1,0.5,0.9 -o sweep.csv
  batcheval sweep scores.parquet --by run --thresholds exact --measures informedness,f1 -o sweep.parquet

A row is predicted positive iff score >= threshold.
"""

_AUC_EXAMPLES = """examples:
  batcheval auc scores.parquet --by run,fold
  batcheval auc scores.parquet --by run --measure f1 -o auc.json
  batcheval auc digits.parquet --by run --score p0,p1,p2,p3,p4,p5,p6,p7,p8,p9   # one column per class
  batcheval auc digits.parquet --by run --score p0,p1,p2,p3,p4,p5,p6,p7,p8,p9 --per-class --measure f1
"""

_PLOT_EXAMPLES = """examples:
  batcheval plot scores.parquet --by run --chart roc -o roc.png
  batcheval plot scores.parquet --by run,fold --pool fold --chart bird --thresholds 101 -o bird.png
  batcheval plot scores.parquet --by run --chart pr --filter "run in (1, 2, 3)" -o pr.png

charts: roc, boc, lift, bift, bprd, bird, pr (see docs/measures.md). One line per
group, at most 40: use --filter to pick groups.
"""

_MEASURES_EXAMPLES = """examples:
  batcheval measures                   # every measure, its meaning, and its interval
  batcheval evaluate preds.csv --measures specificity,youden_j --ci 0.95

interval: "closed form" (Wilson or delta method), "bootstrap" (--ci falls back to it),
or "none" (p-values). Aliases are accepted wherever a measure is named.

classes "2": a measure of one positive class. With K classes, evaluate --per-class gives it
for every class against the rest, and the macro_ and weighted_ names average recall,
precision, f1, informedness and markedness over the classes (docs/averaging.md).
"""

_DEMO_EXAMPLES = """examples:
  batcheval demo                       # fit 102 scikit-learn runs (a few minutes), rank them, save charts
  batcheval demo --out /tmp/demo       # a rerun reads the cached predictions and takes seconds
  batcheval demo --synthetic --runs 500   # the simulated sweep: no scikit-learn needed
"""


_WARMUP_EXAMPLES = """examples:
  batcheval warmup                     # compile evaluate, sweep, auc and leaderboard's kernels
  RUN batcheval warmup                 # in a Dockerfile, so that containers start warm
  batcheval warmup --jobs 1            # one process (two by default, from both ends of the steps)

The compiled code goes to numba's cache (__pycache__ beside the kernels, or NUMBA_CACHE_DIR),
which every later process on this machine reads. Inputs of other column types compile their own
variants on first use.
"""


#: The FILE argument of every command that reads one (``_read`` takes each of these forms).
_FILE_HELP = "a parquet, csv or ipc file, a directory of them, or a quoted glob such as 'runs/*.parquet'"


#: ``_split`` trims every item, class names included (a class named with an edge space takes ``classes=``)
_CLASSES_HELP = "comma-separated class set, each name trimmed of spaces (default: the classes found)"


def _split(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


# a negative number, or a comma-separated list that starts with one ("-1,0,1", "-0.01,0.02", "-1e-3"):
# argparse reads only "-1" and "-0.5" as values and anything else after a dash as an option
_NEGATIVE_VALUE = re.compile(r"-\.?\d")


#: Where :class:`_StoreOnce` notes the options given so far; :func:`main` removes it from the result.
_GIVEN = "_batcheval_given"


class _StoreOnce(argparse._StoreAction):
    """An option of one value that refuses a second: argparse kept the last, so ``--by run --by fold``
    grouped by fold alone, without a word."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        # by repr, after type conversion: --ci 0.95 --ci .95 is one value, and so is nan twice
        if self.dest in given and repr(given[self.dest]) != repr(values):
            parser.error(
                f"argument {'/'.join(self.option_strings)}: given twice ({given[self.dest]!r}, then "
                f"{values!r}); give it once, as one comma-separated list where it takes several"
            )
        given[self.dest] = values
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    """argparse, reading every argument that starts with a negative number as a value (no option of
    batcheval starts with a dash and a digit), so that ``--thresholds -1,0,1``, ``--classes -1,1``
    and ``--rope -0.01,0.02`` need no ``=``, and refusing a one-value option given twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def _parse_optional(self, arg_string):
        if _NEGATIVE_VALUE.match(arg_string):
            return None
        return super()._parse_optional(arg_string)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="batcheval",
        description="Evaluate classifiers across whole sweeps. Run 'batcheval COMMAND --help' for examples.",
    )
    parser.add_argument("--debug", action="store_true", help="show full tracebacks")
    parser.add_argument("--version", action="version", version=f"batcheval {_version()}")
    # --debug is accepted after the subcommand too; SUPPRESS keeps the top-level value
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show full tracebacks"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, examples: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, epilog=examples, parents=[common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip

    def source(p: argparse.ArgumentParser) -> None:
        p.add_argument("file", help=_FILE_HELP)
        p.add_argument("--classes", help=_CLASSES_HELP)
        p.add_argument("--by", help="comma-separated key columns, e.g. run,fold")
        p.add_argument(
            "--filter", metavar="SQL", help='keep only rows matching a SQL expression, e.g. "fold < 3"'
        )

    def output(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "-o", "--output", help="write .parquet, .csv, .ipc or .json instead of printing a table"
        )

    ev = command("evaluate", "measures of every group of a prediction file", _EVALUATE_EXAMPLES)
    source(ev)
    ev.add_argument("--label", default="label", help="the real-class column (default: label)")
    ev.add_argument(
        "--prediction", default="prediction", help="the predicted-class column (default: prediction)"
    )
    ev.add_argument("--pool", help="comma-separated keys to pool over (micro average), e.g. fold")
    ev.add_argument("--measures", help="comma-separated measures (default: all that apply)")
    ev.add_argument("--per-class", action="store_true", help="one row per group and class")
    ev.add_argument("--positive", help="the positive class (binary)")
    ev.add_argument("--drop-nulls", action="store_true", help="skip rows with null label or prediction")
    ev.add_argument("--beta", type=float, help="β of an added f_beta column")
    ev.add_argument("--example", help="comma-separated example id column(s): an example repeated in pooled "
                    "groups (seeds) counts once in the intervals and p_informedness")  # fmt: skip
    ev.add_argument("--cluster", help="comma-separated cluster column(s): examples that come in groups "
                    "(questions about one passage) count as one")  # fmt: skip
    _interval_options(ev)
    output(ev)

    for name, help_text, examples in (
        ("sweep", "binary measures at every threshold of a score", _SWEEP_EXAMPLES),
        ("auc", "exact ROC/PR areas and the best threshold of every group", _AUC_EXAMPLES),
        ("plot", "draw a ROC, BIRD or other chart of a score file to a PNG", _PLOT_EXAMPLES),
    ):
        sc = command(name, help_text, examples)
        source(sc)
        sc.add_argument("--label", default="label", help="the real-class column (default: label)")
        sc.add_argument(
            "--score",
            default="score",
            help="the score column (default: score); multiclass: one per class, a,b,c",
        )
        sc.add_argument("--positive", help="the positive class")
        sc.add_argument("--drop-nonfinite", action="store_true", help="skip rows with NaN/inf scores")
        sc.add_argument("--drop-nulls", action="store_true", help="skip rows with a null score or label")
        if name == "sweep":
            sc.add_argument(
                "--thresholds",
                default="101",
                help="a count T of even steps (101), a list a,b,c, one value (0.5, or a signed integer "
                "such as -1), or 'exact'",
            )
            sc.add_argument("--pool", help="comma-separated keys to pool over")
            sc.add_argument(
                "--score-range", metavar="LOW,HIGH",
                help="the range the threshold count spans (default: the scores' own range)",
            )  # fmt: skip
            sc.add_argument("--measures", help="comma-separated measures, or 'all': every binary measure "
                            f"(default: {', '.join(SWEEP_MEASURES)})")  # fmt: skip
            sc.add_argument("--beta", type=float, help="β of an added f_beta column")
        elif name == "auc":
            sc.add_argument("--measure", default="informedness", help="measure for the best threshold")
            sc.add_argument("--pool", help="comma-separated keys whose rows are swept together, as one curve")
            sc.add_argument("--ci", type=float, help="add an interval of roc_auc at this level, e.g. 0.95")
            sc.add_argument("--beta", type=float, help="β of --measure f_beta")
            sc.add_argument(
                "--averages", help="multiclass scores: comma-separated averages (default: all six)"
            )
            sc.add_argument(
                "--per-class", action="store_true",
                help="multiclass scores: one row per group and class (each against the rest) instead of "
                "the averages, with its best threshold",
            )  # fmt: skip
        else:
            sc.add_argument(
                "--chart", default="roc", choices=sorted(CHARTS), help="which chart (default: roc)"
            )
            sc.add_argument(
                "--thresholds",
                default="exact",
                help="'exact' (default), a count T (101), a list a,b,c, or one value (0.5, -1)",
            )
            sc.add_argument("--pool", help="comma-separated keys whose rows are swept together, as one curve")
            sc.add_argument("--smoothing", type=float, default=1.0, help="Laplace count s of bprd and bird")
            sc.add_argument("--title", help="chart title")
            sc.add_argument("-o", "--output", help="the PNG to write (default: CHART.png)")
        if name != "plot":
            output(sc)

    lb = command("leaderboard", "rank runs with intervals, and test each against the leader",
                 _LEADERBOARD_EXAMPLES)  # fmt: skip
    lb.add_argument("file", help=_FILE_HELP)
    lb.add_argument(
        "--filter", metavar="SQL", help='keep only rows matching a SQL expression, e.g. "fold < 3"'
    )
    lb.add_argument("--run", default="run", help="comma-separated run column(s) (default: run)")
    lb.add_argument("--label", default="label", help="the real-class column (default: label)")
    lb.add_argument("--prediction", default="prediction", help="the predicted-class column")
    lb.add_argument("--pool", help="comma-separated columns each run is pooled over, e.g. fold")
    lb.add_argument("--measure", default="informedness", help="the ranking measure (default: informedness)")
    direction(lb, "run", columns=False)
    lb.add_argument("--example", help="comma-separated example id column(s): paired comparisons")
    lb.add_argument("--cluster", help="comma-separated cluster column(s): examples that come in groups "
                    "count as one (a clustered board)")  # fmt: skip
    lb.add_argument("--paired", default="bootstrap", choices=["bootstrap", "delta"],
                    help="paired test of the measure difference (default: bootstrap)")  # fmt: skip
    lb.add_argument("--adjacent", action="store_true", help="also test each run against the one above it")
    lb.add_argument("--ci", type=float, default=0.95, help="interval level (default: 0.95)")
    lb.add_argument("--ci-method", default="wilson_delta", help="wilson_delta (default) or bootstrap")
    lb.add_argument("--significance", default="informedness", help="chance test reported as p_<significance>")
    lb.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (default: 200)")
    lb.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    lb.add_argument("--positive", help="the positive class (binary)")
    lb.add_argument("--classes", help=_CLASSES_HELP)
    lb.add_argument("--drop-nulls", action="store_true", help="skip rows with null label or prediction")
    lb.add_argument("--top", type=_positive_int, help="keep only the top N rows")
    lb.add_argument("--plot", metavar="PNG", help="also draw a forest plot of the top runs (default 20)")
    output(lb)

    demo = command("demo", "fit a real sweep on scikit-learn's bundled data and rank it", _DEMO_EXAMPLES)
    # no defaults here: _demo refuses the options the other demo would ignore, so it tells them given
    demo.add_argument("--out", help="directory for the cached predictions, "
                      "the scores and the charts (default: ./batcheval_demo)")  # fmt: skip
    demo.add_argument(
        "--quick", action="store_true", help="40 runs and one seed: a smoke test, written to OUT/quick/"
    )
    demo.add_argument(
        "--n-jobs", type=int,
        help="processes for cross_val_predict (default -1: every core; 1 fits in this process)",
    )  # fmt: skip
    demo.add_argument("--synthetic", action="store_true",
                      help="the simulated sweep instead (no scikit-learn needed)")  # fmt: skip
    demo.add_argument("--runs", type=_positive_int,
                      help="runs in the synthetic sweep (default 200)")  # fmt: skip
    _comparison_commands(command, output)
    command("measures", "list every measure: its meaning and whether it has an interval", _MEASURES_EXAMPLES)
    warm = command("warmup", "compile the numba kernels now, once per machine (for CI and Docker builds)",
                   _WARMUP_EXAMPLES)  # fmt: skip
    warm.add_argument("--small-only", action="store_true",
                      help="only the kernels that inputs under 65,536 rows or groups use (mostly the serial "
                           "versions; many small groups also take some parallel ones)")  # fmt: skip
    warm.add_argument("--jobs", type=_positive_int, default=2,
                      help="processes that compile (default 2: a second one takes the steps from the other "
                           "end; 1 on a machine of one core)")  # fmt: skip
    warm.add_argument("--from-end", action="store_true", help=argparse.SUPPRESS)  # that second process
    parser.commands = sub.choices  # type: ignore[attr-defined]  # each command's parser, for its errors
    return parser


def _interval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ci", type=float, help="add intervals at this level, e.g. 0.95")
    p.add_argument("--ci-method", default="wilson_delta",
                   help="wilson_delta (default; else the bootstrap) or bootstrap")  # fmt: skip
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates (default: 1000)")
    p.add_argument("--seed", type=int, help="bootstrap seed (default: none, different each run)")


def _version() -> str:
    from .._version import __version__

    return __version__


def _classes(text: str | None, dtype: pl.DataType | None = None) -> list | None:
    return [_positive(v, dtype) for v in _split(text) or []] or None


_COMPARE_EXAMPLES = """examples:
  batcheval compare cv_scores.parquet --run model --fold fold --repeat repeat --measure accuracy
  batcheval compare preds.parquet --run model --fold fold --measure informedness --reference baseline
  batcheval compare cv_scores.csv --run model --measure accuracy --test bayes --rope 0.01 -o bayes.csv

FILE holds one measure per (run, repeat, fold), e.g. from 'batcheval evaluate --by run,repeat,fold',
or the predictions themselves (label and prediction columns), counted per fold first.
"""

_RANKS_EXAMPLES = """examples:
  batcheval ranks scores.parquet --method model --dataset dataset --measure roc_auc --plot cd.png
  batcheval ranks scores.csv --measure error --lower-is-better --control baseline -o ranks.csv
"""


def _comparison_commands(command, output) -> None:
    """The ``compare`` and ``ranks`` subcommands (be.compare and be.rank_methods)."""
    cp = command("compare", "compare runs over cross-validation folds (corrected t, Bayesian, 5x2cv)",
                 _COMPARE_EXAMPLES)  # fmt: skip
    cp.add_argument("file", help=_FILE_HELP)
    cp.add_argument("--filter", metavar="SQL", help="keep only rows matching a SQL expression")
    cp.add_argument("--run", default="run", help="comma-separated run column(s) (default: run)")
    cp.add_argument("--fold", default="fold", help="the fold column (default: fold)")
    cp.add_argument("--repeat", help="the repeat column of repeated cross-validation")
    cp.add_argument("--measure", default="informedness", help="the measure column (default: informedness)")
    cp.add_argument("--test", default="corrected_t", choices=["corrected_t", "bayes", "5x2cv", "t"],
                    help="the test (default: corrected_t)")  # fmt: skip
    cp.add_argument("--reference", help="the run compared against (default: the best mean); of several "
                    "--run columns, their values comma-separated")  # fmt: skip
    cp.add_argument("--all-pairs", action="store_true", help="compare every pair of runs")
    cp.add_argument(
        "--rope", default="0", help="ROPE of --test bayes: a half-width w, or low,high (-0.01,0.02)"
    )
    cp.add_argument("--test-fraction", type=float, help="share of the data in each test fold")
    direction(cp, "run")
    cp.add_argument("--label", default="label", help="label column, when FILE holds predictions")
    cp.add_argument("--prediction", default="prediction", help="prediction column, when FILE holds them")
    cp.add_argument("--drop-nulls", action="store_true", help="skip rows with a null label or prediction")
    output(cp)

    rk = command("ranks", "rank methods over datasets: Friedman, Nemenyi CD, Holm, Wilcoxon", _RANKS_EXAMPLES)
    rk.add_argument("file", help=_FILE_HELP)
    rk.add_argument("--filter", metavar="SQL", help="keep only rows matching a SQL expression")
    rk.add_argument("--method", default="method", help="the method column (default: method)")
    rk.add_argument("--dataset", default="dataset", help="the dataset column (default: dataset)")
    rk.add_argument("--measure", default="score", help="the score column (default: score)")
    direction(rk, "method")
    rk.add_argument("--control", help="compare every method with this one (Holm)")
    rk.add_argument("--alpha", type=float, default=0.05, help="level of the critical difference")
    rk.add_argument("--drop-incomplete", action="store_true", help="drop methods missing on some datasets")
    rk.add_argument("--pairwise", metavar="FILE", help="also write the pairwise table there")
    rk.add_argument("--plot", metavar="PNG", help="draw the critical-difference diagram there")
    output(rk)


def direction(parser: argparse.ArgumentParser, what: str, columns: bool = True) -> None:
    """``--lower-is-better`` and ``--higher-is-better``: which way the best comes first. Neither
    leaves it to the measure (``higher_is_better=None``). ``columns``: ``--measure`` names a column
    of the file (compare, ranks), which may hold p-values; else a measure that the command counts
    (leaderboard), which ranks by no p-value and reads no ``_mean`` column."""
    lower = ("fallout, miss_rate, lr_minus, conditional_entropy, the p-values and alpha_sbb are "
             "lower-is-better, in any case and as <measure>_mean, any other name higher" if columns
             else "fallout, miss_rate, lr_minus and conditional_entropy (or an alias of one) are "
             "lower-is-better, any other measure higher")  # fmt: skip
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--lower-is-better", dest="higher_is_better", action="store_false", default=None,
        help=f"the best {what} has the lowest value (default: the measure's own direction; {lower})",
    )  # fmt: skip
    group.add_argument("--higher-is-better", dest="higher_is_better", action="store_true", default=None,
                       help=f"the best {what} has the highest value")  # fmt: skip


def _numbers(text: str) -> list[float]:
    """The comma-separated numbers of an option such as ``--rope`` or ``--score-range``; none where
    any part is not a number (the caller names the form it takes)."""
    try:
        return [float(t) for t in text.split(",")]
    except ValueError:
        return []


def _rope(text: str):
    """``rope=`` of ``--rope``: a half-width, or (low, high) of ``low,high`` (three parts are neither)."""
    parts = _numbers(text)
    if len(parts) not in (1, 2):
        raise BatchevalError(f"--rope takes a half-width such as 0.01 or low,high; got {text!r}")
    return parts[0] if len(parts) == 1 else tuple(parts)


def _as_typed(exc: BatchevalError, value: object, text: str) -> BatchevalError:
    """``exc`` showing an option's value as it was typed where the library shows the tuple it was
    given: ``--rope -0.01,0.02``, not ``--rope (-0.01, 0.02)``."""
    if isinstance(value, tuple) and repr(value) in str(exc):
        return type(exc)(str(exc).replace(repr(value), text))
    return exc


def _compare(args: argparse.Namespace) -> None:
    from ..inference.cv import compare

    frame = _read(args)
    runs = _split(args.run) or []
    rope = _rope(args.rope)
    try:
        result = compare(
            frame.collect(), runs, args.fold, args.repeat, args.measure,
            reference=_run_value(args.reference, frame, runs, "--reference"),
            pairs="all" if args.all_pairs else "reference", test=args.test, rope=rope,
            test_fraction=args.test_fraction,
            higher_is_better=args.higher_is_better, label=args.label, prediction=args.prediction,
            drop_nulls=args.drop_nulls,
        )  # fmt: skip
    except InvalidArgumentError as exc:  # "rope=(-0.01, 0.02) applies to test='bayes' only, ..."
        raise _as_typed(exc, rope, args.rope) from exc
    _emit(result, args.output, chosen=True)


def _ranks(args: argparse.Namespace) -> None:
    from ..inference.ranks import rank_methods
    from ..io.files import check_output, write_frame

    if args.pairwise:
        check_output(args.pairwise, reads=args.file)
    if args.plot:
        _check_png(args.plot)
    frame = _read(args)
    res = rank_methods(
        frame.collect(), args.method, args.dataset, args.measure, higher_is_better=args.higher_is_better,
        control=_run_value(args.control, frame, [args.method], "--control"), alpha=args.alpha,
        drop_incomplete=args.drop_incomplete,
    )  # fmt: skip
    print(res.summary(), file=sys.stderr)
    if args.pairwise:
        write_frame(res.pairwise, args.pairwise)
        pairs = f"{res.pairwise.height} pair{'s' if res.pairwise.height != 1 else ''}"
        print(f"wrote {pairs} to {args.pairwise}", file=sys.stderr)
    if args.plot:
        from ..plot.cd import plot_cd

        plot_cd(res, top=None if res.n_methods <= 40 else 40, path=args.plot)
        print(f"wrote a critical-difference diagram to {args.plot}", file=sys.stderr)
    ranks = res.ranks
    if res.control is not None:  # one table, so that -o keeps the comparisons too
        ranks = ranks.join(res.control, on=args.method, how="left", maintain_order="left")
    _emit(ranks, args.output, chosen=True)


def _positive(value: str | None, dtype: pl.DataType | None = None):
    """A class named on the command line, as a value of the label column's ``dtype``: text
    for a string, categorical or enum column (so "1" and "007" stay text), else a number or
    a boolean where the text reads as one."""
    if value is None:
        return None
    if dtype is not None and (dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)):
        return value
    try:
        return int(value)
    except ValueError:
        pass
    # 1.0 names class 1: integral float and Decimal labels (1.00) count as integers
    if dtype is not None and (dtype.is_float() or isinstance(dtype, pl.Decimal)):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return {"true": True, "false": False}.get(value.lower(), value)


def _run_value(text: str | None, frame: pl.LazyFrame, columns: list[str], flag: str):
    """A run (or method) named on the command line: one value per column, comma-separated, each
    read in its column's dtype (so a string run "01" stays "01"). Where the commas give another
    count than the columns, a value holds commas ("logreg,C=1, class_weight=None" of model and
    params): the run whose values, joined by commas, read so."""
    if text is None:
        return None
    values = text.split(",") if len(columns) > 1 else [text]
    if len(values) != len(columns):
        return _joined_run(text, frame, columns, flag, len(values))
    parsed = []
    for v, c in zip(values, columns, strict=True):
        dtype = _label_dtype(frame, c)
        temporal = dtype is not None and dtype.is_temporal() and not isinstance(dtype, pl.Duration)
        parsed.append(_temporal(v, dtype, c, flag) if temporal else _positive(v, dtype))
    return parsed[0] if len(parsed) == 1 else tuple(parsed)


def _temporal(text: str, dtype: pl.DataType, column: str, flag: str):
    """A date, datetime or time named on the command line, read as ISO 8601 in ``dtype`` (a
    datetime column's time zone is the zone of the text when it has none), since text never
    equals a date value."""
    series = pl.Series([text.strip()])
    try:
        if dtype == pl.Date:
            value = series.str.to_date()
        elif dtype == pl.Time:
            value = series.str.to_time()
        else:
            value = series.str.to_datetime(time_unit=dtype.time_unit, time_zone=dtype.time_zone)
    except (pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError):
        value = pl.Series([None])
    if value.null_count():
        example = {pl.Date: "2020-01-31", pl.Time: "13:45:00"}.get(dtype, "2020-01-31 13:45:00")
        raise BatchevalError(
            f"{flag} {text!r} does not read as a value of {column!r} ({dtype}): "
            f"give it as ISO 8601, e.g. {example}"
        )
    return value[0]


def _joined_run(text: str, frame: pl.LazyFrame, columns: list[str], flag: str, count: int) -> tuple:
    """The one run of ``columns`` whose values, as text joined by commas, are ``text``."""
    runs = []
    if set(columns) <= set(frame.collect_schema()):  # else the count is what is wrong with it
        joined = pl.concat_str([pl.col(c).cast(pl.String) for c in columns], separator=",")
        runs = frame.select(columns).unique(maintain_order=True).filter(joined == text).collect().rows()
    if len(runs) > 1:
        raise BatchevalError(
            f"{flag} {text!r} names {len(runs)} runs of the columns {columns}: "
            f"{', '.join(map(repr, runs))}; pick one with --filter"
        )
    if not runs:
        raise BatchevalError(
            f"{flag} {text!r} names {count} value{'s' if count != 1 else ''} for the {len(columns)} "
            f"columns {columns}, and matches no run's values joined by commas; give one per column, "
            "comma-separated"
        )
    return runs[0]


def _label_dtype(frame: pl.LazyFrame | pl.DataFrame, column: str) -> pl.DataType | None:
    """The dtype of ``column`` (None if it is missing: the command names it)."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    return schema.get(column)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text}")
    return value


def _thresholds(text: str):
    try:
        if text == "exact":
            return text
        if "," in text:
            return [float(t) for t in text.split(",") if t.strip()]
        if text.strip().isdigit():  # a count is unsigned: -1 and +3 are one threshold each
            return int(text)
        return [float(text)]  # one threshold, such as 0.5
    except ValueError:
        raise BatchevalError(
            f"--thresholds must be a count such as 101, a list such as 0.2,0.5,0.8, or 'exact'; got {text!r}"
        ) from None


def _read(args: argparse.Namespace) -> pl.LazyFrame:
    """The input file as a LazyFrame, filtered; also checks ``-o`` before any work is done."""
    from ..io.files import check_output, read_frame

    if getattr(args, "output", None) and args.command != "plot":
        check_output(args.output, reads=args.file)
    frame = read_frame(args.file, _key_columns(args))
    if args.filter:
        try:
            frame = frame.filter(pl.sql_expr(args.filter))
            frame.collect_schema()  # a column the filter names but the file lacks: said here, not after
        except pl.exceptions.PolarsError as exc:
            raise BatchevalError(f"cannot parse --filter {args.filter!r}: {_first_line(exc)}") from exc
    return frame


# the options that name key columns (groups, pooled keys, runs, folds, example and cluster ids)
_KEY_OPTIONS = ("by", "pool", "example", "cluster", "run", "fold", "repeat", "method", "dataset")


def _key_columns(args: argparse.Namespace) -> list[str]:
    """The columns the command reads as keys: a glob's files must agree on their types."""
    named = (getattr(args, option, None) for option in _KEY_OPTIONS)
    return [c for text in named if isinstance(text, str) for c in _split(text) or []]


def _score_columns(text: str) -> str | list[str]:
    names = _split(text) or []
    return names[0] if len(names) == 1 else names


def _no_rows(args: argparse.Namespace, frame: pl.LazyFrame, classes: Sequence[str],
             scores: Sequence[str] = ()) -> tuple[pl.LazyFrame, bool]:  # fmt: skip
    """``frame``, and whether it has no rows (a header-only csv, or a --filter that keeps nothing).

    A header-only csv reads every column as text: its text score columns are cast to Float64
    and its text class columns (label, prediction) to Null, so that the default --positive 1
    is not refused for a label column of strings ("--positive 1 is not one of the classes:
    label column 'label' holds String values") and a score column is not refused as text. The
    rows are looked at only where that matters: a text column among these, or --positive or
    --classes given (no rows hold no class for them to name: the caller leaves them out).
    """
    schema = frame.collect_schema()
    text = [c for c in (*classes, *scores) if schema.get(c) == pl.String]
    if not text and args.positive is None and args.classes is None:
        return frame, False
    if frame.head(1).collect().height:
        return frame, False
    return frame.with_columns(
        *(pl.col(c).cast(pl.Float64) for c in text if c in scores),
        *(pl.col(c).cast(pl.Null) for c in text if c not in scores),
    ), True


def _scores(args: argparse.Namespace) -> None:
    from ..scores.auc import auc
    from ..scores.sweep import sweep

    frame = _read(args)
    score = _score_columns(args.score)
    names = [score] if isinstance(score, str) else score
    frame, empty = _no_rows(args, frame, [args.label], names)
    dtype = _label_dtype(frame, args.label)
    # no rows hold no class for --positive and --classes to name: an empty result, not their refusal
    common = dict(positive=None if empty else _positive(args.positive, dtype),
                  classes=None if empty else _classes(args.classes, dtype),
                  drop_nonfinite=args.drop_nonfinite, drop_nulls=args.drop_nulls)  # fmt: skip
    if args.command == "sweep":
        thresholds = _thresholds(args.thresholds)
        if thresholds == "exact":  # every score of a group at once: read the whole file
            frame = frame.collect()
        result = sweep(frame, _split(args.by), args.label, score, thresholds=thresholds,
                       score_range=_score_range(args.score_range), pool=_split(args.pool),
                       measures=_sweep_measures(args.measures), beta=args.beta, **common)  # fmt: skip
        _emit(result, args.output, keys=_split(args.by) or [], chosen=args.measures is not None)
        return
    result = auc(frame, _split(args.by), args.label, score, measure=args.measure, beta=args.beta,
                 averages=_split(args.averages), per_class=args.per_class, pool=_split(args.pool),
                 ci=args.ci, **common)  # fmt: skip
    # auc has no --measures: --averages picks the columns of averaged multiclass areas, and nothing
    # picks those of binary or --per-class areas
    averaged = not isinstance(score, str) and not args.per_class
    _emit(result, args.output, keys=_split(args.by) or [], chosen=args.averages is not None,
          choose="--averages" if averaged else None)  # fmt: skip


def _score_range(text: str | None) -> tuple[float, float] | None:
    """``score_range=`` of ``--score-range low,high`` (the library checks the order and finiteness)."""
    if text is None:
        return None
    parts = _numbers(text)
    if len(parts) != 2:
        raise BatchevalError(f"--score-range takes low,high such as 0,1; got {text!r}")
    return parts[0], parts[1]


def _sweep_measures(text: str | None) -> list[str] | str | None:
    """``sweep --measures``: ``all`` alone is the library's ``measures="all"``, every binary measure."""
    names = _split(text)
    return "all" if names == ["all"] else names


def _check_png(output: str) -> None:
    """Checked before the input is read, as the other commands' -o is (check_output knows no .png)."""
    if not output.lower().endswith(".png"):
        raise BatchevalError(f"cannot write {output!r}: a chart is written as a .png file")
    parent = Path(output).parent
    if not parent.is_dir():
        raise BatchevalError(f"cannot write {output!r}: no directory {str(parent)!r}")
    if Path(output).is_dir():  # found by savefig only after the work, as "[Errno 21] Is a directory"
        raise BatchevalError(f"cannot write {output!r}: it is a directory")


def _plot(args: argparse.Namespace) -> None:
    from ..plot import plot
    from ..scores.curves import POINT_COLUMNS, curves

    output = args.output or f"{args.chart}.png"
    _check_png(output)
    frame = _read(args)
    score = _score_columns(args.score)
    frame, empty = _no_rows(args, frame, [args.label], [score] if isinstance(score, str) else score)
    dtype = _label_dtype(frame, args.label)
    cv = curves(frame.collect(), _split(args.by), args.label, score, kind=args.chart,
                thresholds=_thresholds(args.thresholds), smoothing=args.smoothing,
                positive=None if empty else _positive(args.positive, dtype), pool=_split(args.pool),
                drop_nonfinite=args.drop_nonfinite, drop_nulls=args.drop_nulls,
                classes=None if empty else _classes(args.classes, dtype))  # fmt: skip
    if cv.height == 0:
        raise BatchevalError("nothing to plot: no rows left")
    plot(cv, chart=args.chart, path=output, title=args.title)
    keys = [c for c in cv.columns if c not in POINT_COLUMNS]
    lines = cv.select(keys).n_unique() if keys else 1
    print(f"wrote {output} ({args.chart}, {lines} line{'s' if lines != 1 else ''})", file=sys.stderr)


# columns a printed table shows first when the result is too wide to show whole; the averaged areas of
# multiclass scores are all that `auc` gives besides n, so they are headline columns too (macro first,
# so that a narrow terminal shows both areas)
_HEADLINE = tuple(
    """class threshold n n_pooled abstained positives negatives informedness informedness_std markedness
    correlation mcc kappa_cohen f1 macro_f1 accuracy p_informedness roc_auc roc_auch pr_auc best_threshold
    macro_roc_auc macro_pr_auc prevalence_weighted_roc_auc prevalence_weighted_pr_auc bias_weighted_roc_auc
    bias_weighted_pr_auc tp fp fn tn""".split()
)
_MAX_COLUMNS = 14


def _table_width(columns: Sequence[str]) -> int:
    """Roughly how wide polars prints these columns (4-decimal floats, 3 characters of borders)."""
    return 1 + sum(max(len(c), 8) + 3 for c in columns)


def _emit(result: pl.DataFrame, output: str | None, keys: Sequence[str] = (), chosen: bool = False,
          choose: str | None = "--measures") -> None:  # fmt: skip
    """Write ``result`` to ``output``, or print it as a table (the headline columns if it is wide).

    ``chosen`` says the user picked the columns (they print whole); ``choose`` is the flag that picks
    them, named in the note on a trimmed table (None: the command has none, only ``-o``).
    """
    from ..io.files import write_frame

    if output:
        write_frame(result, output)
        rows = f"{result.height} row{'s' if result.height != 1 else ''}"
        print(f"wrote {rows} × {result.width} columns to {output}", file=sys.stderr)
        return
    if result.height == 0:
        print("0 rows: the input has no rows (or none left after --filter)", file=sys.stderr)
    shown = result
    # the headline columns are picked to fit the terminal (or COLUMNS); what is printed to a pipe or
    # a file is never squeezed further, since a program or a pager reads it
    width = max(60, shutil.get_terminal_size((160, 40)).columns)
    squeeze = width if sys.stdout.isatty() else 1 << 15
    if not chosen and (result.width > _MAX_COLUMNS or _table_width(result.columns) > width):
        lead = [c for c in result.columns if c in keys]
        rest = [c for c in result.columns if c not in lead and (c in _HEADLINE or c.startswith("best_"))]
        rest.sort(key=lambda c: _HEADLINE.index(c) if c in _HEADLINE else len(_HEADLINE))
        columns = [*lead, *rest][: max(_MAX_COLUMNS, len(lead) + 3)]
        while len(columns) > len(lead) + 2 and _table_width(columns) > width:  # fit the terminal
            columns.pop()
        shown = result.select(columns)
        if shown.width < result.width:
            pick = f"pick them with {choose}, or " if choose else ""
            print(f"showing {shown.width} of {result.width} columns: {pick}write them all with -o FILE",
                  file=sys.stderr)  # fmt: skip
    shown = _format_p_values(shown)
    with pl.Config(tbl_rows=40, tbl_cols=-1, float_precision=4, tbl_width_chars=squeeze,
                   tbl_hide_column_data_types=True, fmt_str_lengths=40):  # fmt: skip
        print(shown)


def format_p(value: float | None) -> str:
    """A p-value as printed: 4 decimals down to 0.001, then scientific notation (never 0.0000).

    Examples
    --------
    >>> [format_p(v) for v in (0.5, 0.0123, 2.04e-47, 0.0, float("nan"), None)]
    ['0.5000', '0.0123', '2.0e-47', '0', 'NaN', 'null']
    """
    if value is None:
        return "null"
    if math.isnan(value):
        return "NaN"
    if value == 0.0:
        return "0"
    return f"{value:.4f}" if value >= 1e-3 else f"{value:.1e}"


def _format_p_values(frame: pl.DataFrame) -> pl.DataFrame:
    p_columns = [c for c in frame.columns if (c.startswith("p_") or c == "alpha_sbb")
                 and frame.schema[c].is_float()]  # fmt: skip
    if not p_columns or frame.height > 100_000:  # a printed table shows 40 rows; formatting all is waste
        return frame
    return frame.with_columns(
        pl.Series(c, [format_p(v) for v in frame.get_column(c).to_list()], dtype=pl.String) for c in p_columns
    )


def _evaluate(args: argparse.Namespace) -> None:
    from ..evaluate import evaluate

    frame, empty = _no_rows(args, _read(args), [args.label, args.prediction])
    dtype = _label_dtype(frame, args.label)
    result = evaluate(
        frame,
        _split(args.by),
        args.label,
        args.prediction,
        pool=_split(args.pool),
        measures=_split(args.measures),
        per_class=args.per_class,
        positive=None if empty else _positive(args.positive, dtype),
        drop_nulls=args.drop_nulls,
        classes=None if empty else _classes(args.classes, dtype),
        beta=args.beta,
        ci=args.ci,
        ci_method=args.ci_method,
        n_boot=args.n_boot,
        seed=args.seed,
        example=_split(args.example),
        cluster=_split(args.cluster),
    )
    _emit(result, args.output, keys=_split(args.by) or [], chosen=args.measures is not None)


_LEADERBOARD_EXAMPLES = """examples:
  batcheval leaderboard preds.parquet --run run --pool fold
  batcheval leaderboard preds.parquet --run run --pool fold --example example_id -o board.parquet
  batcheval leaderboard preds.parquet --run model,seed --measure kappa_cohen --top 20 --plot board.png
"""


def _leaderboard(args: argparse.Namespace) -> None:
    from ..inference.leaderboard import leaderboard
    from ..plot.forest import plot_leaderboard

    if args.plot:
        _check_png(args.plot)
    frame = _read(args).collect()
    dtype = _label_dtype(frame, args.label)
    board = leaderboard(
        frame,
        _split(args.run) or [],
        args.label,
        args.prediction,
        pool=_split(args.pool),
        measure=args.measure,
        example=_split(args.example),
        cluster=_split(args.cluster),
        ci=args.ci,
        ci_method=args.ci_method,
        significance=args.significance,
        n_boot=args.n_boot,
        seed=args.seed,
        paired=args.paired,
        adjacent=args.adjacent,
        classes=_classes(args.classes, dtype),
        positive=_positive(args.positive, dtype),
        drop_nulls=args.drop_nulls,
        higher_is_better=args.higher_is_better,
    )
    if args.plot:
        if board.height == 0:  # plot_leaderboard named its Python keyword: "board= is empty"
            raise BatchevalError(f"--plot {args.plot!r}: nothing to plot: no rows left")
        plot_leaderboard(board, top=args.top or 20, path=args.plot)
        print(f"wrote a forest plot to {args.plot}", file=sys.stderr)
    if args.top:
        board = board.head(min(args.top, board.height))  # --top 10**23 overflowed head
    if not args.output:  # a terminal table: the ranking columns; -o writes every column
        m = args.measure
        # the set that could hold the best run and the rank intervals, valid under the leader's
        # selection; p_vs_leader_holm and tied_with_leader (its alias) are in -o's output
        head = [*(_split(args.run) or []), "rank", m, f"{m}_ci_low", f"{m}_ci_high", "p_vs_leader",
                "could_be_best", "rank_ci_low", "rank_ci_high"]  # fmt: skip
        shown = board.select([c for c in head if c in board.columns])
        print(f"showing {shown.width} of {board.width} columns: write them all with -o FILE", file=sys.stderr)
        board = shown
    _emit(board, args.output, chosen=True)


def _demo(args: argparse.Namespace) -> None:
    """The scikit-learn demo, or with ``--synthetic`` the simulated one; an option that the chosen
    demo would ignore is refused."""
    if args.synthetic:
        named = [f"--out {args.out!r}"] * (args.out is not None) + ["--quick"] * args.quick
        named += [f"--n-jobs {args.n_jobs}"] * (args.n_jobs is not None)
        if named:
            one = len(named) == 1
            raise InvalidArgumentError(
                f"{', '.join(named)} {'applies' if one else 'apply'} to the scikit-learn demo, not to "
                f"--synthetic, which fits no model and writes no file; leave {'it' if one else 'them'} out"
            )
        from ..examples.synthetic import main as synthetic_demo

        synthetic_demo(n_runs=200 if args.runs is None else args.runs)
        return
    if args.runs is not None:
        raise InvalidArgumentError(
            f"--runs {args.runs} applies to --synthetic only: the scikit-learn demo fits its own grid of "
            "runs; leave it out or add --synthetic"
        )
    from ..examples.sklearn_sweep import SEEDS, run

    out = "batcheval_demo" if args.out is None else args.out
    n_jobs = -1 if args.n_jobs is None else args.n_jobs
    # the full demo compiles its kernels in a second process while its models fit (the quick grid,
    # a smoke test, does not)
    run(out, seeds=[0] if args.quick else SEEDS, quick=args.quick, n_jobs=n_jobs, warm=not args.quick)


def _measures_list(args: argparse.Namespace) -> None:
    from ..inference.intervals import BINARY_CLOSED_FORMS, interval_measures, interval_twin
    from ..measures import BINARY_MEASURES, MULTICLASS_MEASURES
    from ..measures.catalog import meaning
    from ..measures.names import ALIASES

    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    # a measure equal to one with a closed form takes its interval (interval_twin)
    own = {2: {*interval_measures(2), *BINARY_CLOSED_FORMS}, 3: set(interval_measures(3))}
    every = [*BINARY_MEASURES, *MULTICLASS_MEASURES]
    closed = {k: own[k] | {m for m in every if interval_twin(m, k) in own[k]} for k in own}
    boot = {2: set(interval_measures(2, "bootstrap")), 3: set(interval_measures(3, "bootstrap"))}

    def kind(name: str, k: int) -> str:
        return "closed form" if name in closed[k] else "bootstrap" if name in boot[k] else "none"

    rows = [("measure", "classes", "interval", "meaning")]
    for name in dict.fromkeys([*BINARY_MEASURES, *MULTICLASS_MEASURES]):
        # a multiclass measure applies to two classes too; a binary one only to two
        where = "2 and K" if name in MULTICLASS_MEASURES else "2"
        interval = kind(name, 3 if name in MULTICLASS_MEASURES else 2)
        if name in MULTICLASS_MEASURES and kind(name, 2) != interval:
            interval = f"{kind(name, 2)} (2), {interval} (K)"
        text = meaning(name)
        if name in aliases:
            text += f" [also: {', '.join(aliases[name])}]"
        rows.append((name, where, interval, text))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True)) + "  " + r[3])


def _crowded(n: int) -> pl.Series:
    """``n`` scores that crowd one step of the exact AUC's radix sort (one far above the rest), so
    that it declines and the bucket sort sorts them."""
    import numpy as np

    return pl.Series("score", np.append(np.linspace(1.0, 0.0, n - 1) * 1e-9, 1e300))


def warmup_tables(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random 2×2 tables of up to 199 a cell, which seldom repeat: ``batcheval warmup``
    measures them so that the per-group measure and test kernels compile, not only the pass
    over the distinct tables that repeated tables take.

    Examples
    --------
    >>> import numpy as np
    >>> warmup_tables(3, np.random.default_rng(0)).shape
    (3, 2, 2)
    """
    return rng.integers(0, 200, (n, 2, 2))


def _quickstart_call(board: pl.DataFrame) -> pl.DataFrame:
    """The README Quickstart's ``evaluate`` on a paired board, in the column types of the demo's
    predictions (kernels compile once per type), for ``batcheval warmup``."""
    from ..evaluate import evaluate

    keyed = board.with_columns(
        model=(pl.col("run") % 3).cast(pl.String),
        params=(pl.col("run") % 7).cast(pl.String),
        seed=(pl.col("run") % 3).cast(pl.Int16),
        fold=pl.col("fold").cast(pl.Int8),
        example=pl.col("example").cast(pl.Int32),
        label=pl.col("label").cast(pl.Int8),
        prediction=pl.col("prediction").cast(pl.Int8),
    )
    return evaluate(
        keyed, by=["model", "params", "seed", "fold"], pool=["seed", "fold"], ci=0.95, example="example"
    )


def paired_board(n: int, runs: int, rng: np.random.Generator) -> pl.DataFrame:
    """``runs`` runs that each predict the same ``n // runs`` examples (two folds, one label
    an example): the frame of ``batcheval warmup``'s paired leaderboards.

    Examples
    --------
    >>> import numpy as np
    >>> board = paired_board(400, 50, np.random.default_rng(0))
    >>> labels = board.group_by("example").agg(pl.col("label").n_unique())["label"]
    >>> board.height, board["run"].n_unique(), labels.max()
    (400, 50, 1)
    """
    import numpy as np

    i = np.arange(runs * (n // runs))
    example = i // runs
    label = rng.integers(0, 2, example[-1] + 1)[example]
    prediction = np.where(rng.random(len(i)) < 0.8, label, 1 - label)
    return pl.DataFrame(
        {"run": i % runs, "fold": example % 2, "example": example, "label": label, "prediction": prediction}
    )


def _warmup(args: argparse.Namespace) -> None:
    """Call evaluate, sweep, auc and leaderboard on made-up frames: small ones compile the serial
    kernels (and the parallel ones that many small groups take), and frames with more than
    :data:`SERIAL_BELOW` rows and groups the parallel ones. Each twin is reached on purpose, by the
    groups' number and size (see ``jit_parallel``), not by what a machine's thread count makes."""
    import os
    import time

    import numpy as np

    from ..evaluate import evaluate
    from ..examples.background import start_python, stop
    from ..inference.leaderboard import leaderboard
    from ..kernels.jit import SERIAL_BELOW, cache_dir
    from ..measures import compute
    from ..scores.auc import auc
    from ..scores.sweep import sweep

    os.environ.setdefault("BATCHEVAL_QUIET_COMPILE", "1")  # this command's own lines say it
    rng = np.random.default_rng(0)
    sizes = [400] if args.small_only else [400, 2 * SERIAL_BELOW + 2]
    start = time.perf_counter()
    plan: list[tuple[int, str, Any]] = []
    for n in sizes:
        label = rng.integers(0, 2, n)
        frame = pl.DataFrame({
            "run": np.arange(n) // 2, "fold": np.arange(n) % 2, "label": label,
            "prediction": np.where(rng.random(n) < 0.8, label, 1 - label), "score": rng.random(n) + label,
            "class3": rng.integers(0, 3, n), "pred3": rng.integers(0, 3, n),
        })  # fmt: skip
        boards = frame.with_columns(pl.col("run") % 50)
        # the same rows in two groups: a sweep's per-thread tables of few groups stay under
        # SERIAL_BELOW cells (two hundred groups' do not), so its serial kernels compile at 400 rows
        few = frame.with_columns(run=np.arange(n) * 2 // n)
        # groups of 10 examples: their 3-class tables take the permutation tests (and a few the
        # exact Bookmaker sums), which tables of 2 rows never do: serially for 40 groups, in
        # parallel for 13,108
        tens = frame.with_columns(run=np.arange(n) // 10)
        # rows of one group scattered over the frame: the radix-partitioned sweep of large inputs
        scattered = frame.with_columns(run=rng.integers(0, n // 8, n))
        paired = paired_board(n, 50 if n == 400 else 8192, rng)
        steps = (
            ("evaluate", lambda f=frame: evaluate(f, by="run")),
            ("evaluate, 3 classes", lambda f=frame: evaluate(f, "run", label="class3", prediction="pred3")),
            # the README Quickstart's intervals: the closed forms, and with example= (or cluster=, the
            # same kernels) the cluster-robust intervals and chance tests (15 s of compiles before)
            ("evaluate, intervals", lambda f=frame: evaluate(f, by=["run", "fold"], pool="fold", ci=0.95)),
            (
                "evaluate, 3 classes, intervals",
                lambda f=frame: evaluate(f, "run", label="class3", prediction="pred3", ci=0.95),
            ),
            # keyed as the Quickstart keys its runs: two text columns, and a seed pooled with the fold
            ("evaluate, clustered intervals", lambda f=paired: _quickstart_call(f)),
            # tables of more than 32,768 examples at the large size: the chance tests' saddle terms
            ("evaluate, 2 groups", lambda f=few: evaluate(f, by="run")),
            (
                "evaluate, 3 classes, 2 groups",
                lambda f=few: evaluate(f, "run", label="class3", prediction="pred3"),
            ),
            (
                "evaluate, 3 classes, groups of 10",
                lambda f=tens: evaluate(f, "run", label="class3", prediction="pred3"),
            ),
            ("sweep", lambda f=frame: sweep(f, by="run")),
            ("sweep, 2 groups", lambda f=few: sweep(f, by="run")),
            ("auc", lambda f=frame: auc(f, by="run")),
            ("auc, 2 groups", lambda f=few: auc(f, by="run")),
            # one group the radix sort declines (its scores crowd one step): the bucket sort and
            # the 128-bit walk, which auc compiles only for such groups
            (
                "auc, bucket sort",
                lambda f=frame, m=n: auc(f.with_columns(pl.lit(0).alias("run"), _crowded(m)), by="run"),
            ),
            ("leaderboard", lambda f=boards: leaderboard(f, pool="fold")),
            # the many-class delta kernels of its floors and centres (5 s of compiles on the first
            # 3-class board after a warmup without them)
            (
                "leaderboard, 3 classes",
                lambda f=boards: leaderboard(f, label="class3", prediction="pred3", pool="fold"),
            ),
            # the paired kernels (joint tables, the paired bootstrap, the sign-flip test): 38 s
            # of compiles on the first paired board of 8,192 runs after a warmup without them
            ("leaderboard, paired", lambda f=paired: leaderboard(f, pool="fold", example="example")),
            (
                "leaderboard, paired delta, adjacent",
                lambda f=paired: leaderboard(
                    f, pool="fold", example="example", paired="delta", adjacent=True
                ),
            ),
        )
        if n == 400:
            # 400 groups: a sweep's histogram of more than SERIAL_BELOW cells on any number of
            # threads; a board of 200 runs, whose studentized bootstrap takes parallel kernels, and
            # one of 400, past the bootstrap's budget (the Gaussian max-t and its Welch weights)
            one = frame.with_columns(run=np.arange(n))
            steps += (
                ("sweep, 400 groups", lambda f=one: sweep(f, by="run")),
                ("leaderboard, 200 runs", lambda f=frame: leaderboard(f, pool="fold")),
                ("leaderboard, 400 runs", lambda f=one: leaderboard(f, pool="fold")),
            )
        else:
            steps += (("sweep, scattered groups", lambda f=scattered: sweep(f, by="run")),)
            # boards of FEW_TABLES runs or more take the score interval's parallel kernel, and of
            # 16,384 or more (65,536 cells) the selection's parallel kernels
            for runs in (5000, 20000):
                wide = frame.with_columns(pl.col("run") % runs)
                steps += ((f"leaderboard, {runs:,} runs", lambda f=wide: leaderboard(f, pool="fold")),)
            # groups of many rows, whose tables seldom repeat, take the per-group measure and
            # test kernels rather than the distinct tables' pass (about 10 s of compiles)
            tables = warmup_tables(n, rng)
            steps += (("evaluate, unrepeated tables", lambda c=tables: compute(c)),)
        plan += [(n, name, call) for name, call in steps]
    # numba compiles on one core: a second process (--from-end, silent) takes the steps from the
    # other end, and each loads from the cache what the other has compiled
    small = ", '--small-only'" * args.small_only
    helper = (
        start_python(f"from batcheval.cli.main import main; main(['warmup', '--from-end'{small}])")
        if args.jobs > 1 and not args.from_end
        else None
    )
    try:
        for n, name, call in reversed(plan) if args.from_end else plan:
            t0 = time.perf_counter()
            with warnings.catch_warnings():  # made-up frames: their warnings (8,192 runs have no
                warnings.simplefilter("ignore")  # rank intervals) say nothing about the user's data
                call()
            if not args.from_end:
                print(f"warmup: {name} ({n:,} rows): {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        stop(helper)
    if args.from_end:
        return
    total = time.perf_counter() - start
    print(f"warmup: done in {total:.1f} s; compiled kernels are cached in {cache_dir()}")


def _first_line(exc: BaseException, file: str | None = None, filter: str | None = None) -> str:
    text = str(exc).strip()
    text = text.splitlines()[0] if text else type(exc).__name__
    if file is not None and text.startswith("lazy frame: "):
        # a failure of the scanned file (or glob) the command was given, not of a "lazy frame";
        # with --filter, the filter runs in the same scan and may be what failed
        what = f"cannot read {str(file)!r}" + (f" or apply --filter {filter!r} to it" if filter else "")
        text = f"{what}: {text.removeprefix('lazy frame: ')}"
    return cli_message(text)


_KEYWORDS = ("positive", "classes", "measures", "measure", "beta", "ci_method", "ci", "n_boot", "seed",
             "thresholds", "pool", "by", "example", "cluster", "significance", "label", "prediction",
             "score", "smoothing", "paired", "averages", "rope", "reference", "test_fraction", "alpha",
             "control", "score_range")  # fmt: skip
# keywords that messages also use to show a value ("fold=0"): turned into flags only where named
# without a value ("give repeat=") or at the start of a message ("test='t' needs ...")
_NAMED = ("run", "repeat", "fold", "method", "dataset", "test")
_FLAGS = ("drop_nulls", "drop_nonfinite", "per_class", "adjacent", "drop_incomplete")


#: the running command's key columns named like options it lacks (``--fold seed`` of compare): a
#: message's ``seed=3`` shows a key's value there, which "run=1 lacks --seed 3" made an option of
_message_keys: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "message_keys", default=frozenset()
)


def cli_message(text: str, keys: frozenset[str] | None = None) -> str:
    """A library message in the command line's words: flags for keywords, no stream jargon.

    ``keys``: the key columns the command names (by default, those of the running command), whose
    ``name=value`` shows a group and stays as it is.

    Examples
    --------
    >>> cli_message("lazy frame, rows 0-534: label has 2 nulls; pass drop_nulls=True to skip them")
    'label has 2 nulls; pass --drop-nulls to skip them'
    >>> cli_message("positive=7 is not one of the classes [0, 1]")
    '--positive 7 is not one of the classes [0, 1]'
    >>> cli_message("Pass example= (the column that identifies an example) to count it once")
    'Pass --example (the column that identifies an example) to count it once'
    >>> cli_message("test_fraction= applies to test='corrected_t' and test='bayes' only, not test='t'")
    '--test-fraction applies to --test corrected_t and --test bayes only, not --test t'
    >>> cli_message("pool=['seed', 'fold'] pools groups")
    '--pool seed,fold pools groups'
    >>> cli_message("column 'run' is named twice in run=['run', 'run']")
    "column 'run' is named twice in --run run,run"
    >>> cli_message("run=1 lacks seed=3", keys=frozenset({"run", "seed"}))
    'run=1 lacks seed=3'
    """
    keys = _message_keys.get() if keys is None else keys
    keywords = [k for k in _KEYWORDS if k not in keys]
    named = [k for k in _NAMED if k not in keys]
    text = re.sub(r"^lazy frame, rows [\d,]+-[\d,]+: ", "", text)
    # "named twice in run=['run', 'run']": a run, example or cluster list, which the flag takes too
    text = re.sub(
        r"named twice in (run|example|cluster)=\[", lambda m: f"named twice in --{m.group(1)} [", text
    )
    text = re.sub(rf"\b({'|'.join(_FLAGS)})=True\b", lambda m: "--" + m.group(1).replace("_", "-"), text)
    text = text.replace("pairs='all'", "--all-pairs").replace("leave it None", "leave it out")
    text = text.replace("take be.sweep or be.auc", "take batcheval sweep or batcheval auc")
    flag = lambda m: f"--{m.group(1).replace('_', '-')}"  # noqa: E731
    text = re.sub(rf"(?<![\w-])({'|'.join(keywords)})=(?=[^\s),;])", lambda m: flag(m) + " ", text)
    # "pass example= (the column ...)", "(give repeat=)": an option named without its value
    text = re.sub(rf"(?<![\w-])({'|'.join([*keywords, *named])})=(?=[\s),;]|$)", flag, text)
    if named:
        text = re.sub(rf"^({'|'.join(named)})=(?=\S)", lambda m: flag(m) + " ", text)
    # "test='t'" anywhere: a test's name, never a key's value as "fold=0" is
    text = re.sub(r"(?<![\w-])test='(\w+)'", r"--test \1", text)
    # "--pool ['seed', 'fold']": a list of names as the flag takes it
    text = re.sub(
        r"(--[\w-]+) \[('[^',]*'(?:, '[^',]*')*)\]",
        lambda m: f"{m.group(1)} {','.join(v.strip()[1:-1] for v in m.group(2).split(','))}",
        text,
    )
    # "ci must be ...", "unknown ci_method ...": an option named as a word
    text = re.sub(rf"^({'|'.join(_KEYWORDS)}) (?=must|is )", lambda m: flag(m) + " ", text)
    return re.sub(r"^unknown (ci_method|significance|paired) ", lambda m: f"unknown {flag(m)} ", text)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line in the command line's words, without the library's source line."""
    print(f"batcheval: warning: {cli_message(str(message))}", file=sys.stderr)


# errors that mean the input or the options are wrong (exit 2); anything else is a bug (exit 1)
_INPUT_ERRORS = (BatchevalError, pl.exceptions.PolarsError, OSError, ValueError, KeyError, ImportError)


def _refuse_unknown(command: argparse.ArgumentParser, unknown: list[str]) -> None:
    """Exit 2 naming the arguments ``command`` does not take and, for the first option among them,
    the nearest option it does take."""
    options = [o for action in command._actions for o in action.option_strings if o.startswith("--")]
    asked = next((u.split("=", 1)[0] for u in unknown if u.startswith("--")), None)
    near = difflib.get_close_matches(asked, options, n=1, cutoff=0.6) if asked else []
    hint = f"; did you mean {near[0]}?" if near else f"; see batcheval {command.prog.split()[-1]} --help"
    command.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")


#: Options that take a comma-separated list of column or measure names.
_NAME_LISTS = ("by", "pool", "measures", "example", "cluster", "run", "averages")


def _refuse_empty_names(command: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit 2 for a list option with an empty name (``--by ""``, ``--by run,``, ``--measures ,``):
    dropped, ``--by ""`` pooled every row into one group and ``--measures ""`` gave every measure,
    where ``by=""`` is a missing column."""
    for action in command._actions:
        value = getattr(args, action.dest, None)
        if (
            action.dest in _NAME_LISTS
            and isinstance(value, str)
            and not all(t.strip() for t in value.split(","))
        ):
            option = max(action.option_strings, key=len)
            command.error(
                f"argument {option}: {value!r} holds an empty name; give names separated by commas, "
                f"such as {option} a,b, or leave {option} out"
            )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input, 1 internal error)."""
    parser = _parser()
    if not list(sys.argv[1:] if argv is None else argv):  # a first try with no command: what there is
        parser.print_help(sys.stderr)
        return 2
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse named these under the top-level usage; the command's own, with the option meant
        # (leaderboard --measures kappa: leaderboard takes one --measure)
        _refuse_unknown(parser.commands[args.command], unknown)  # type: ignore[attr-defined]
    _refuse_empty_names(parser.commands[args.command], args)  # type: ignore[attr-defined]
    vars(args).pop(_GIVEN, None)
    # a key column named like an option the command lacks ("--fold seed" of compare) shows a key's
    # value in "seed=3"; one named like an option it has ("--by seed" beside "--seed 3") the option
    options = {a.dest for a in parser.commands[args.command]._actions}  # type: ignore[attr-defined]
    token = _message_keys.set(frozenset(c for c in _key_columns(args) if c not in options))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return _run(args)
    finally:  # main() called in one process again (tests) starts from no keys
        _message_keys.reset(token)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "measures":
            _measures_list(args)
        elif args.command == "evaluate":
            _evaluate(args)
        elif args.command in ("sweep", "auc"):
            _scores(args)
        elif args.command == "plot":
            _plot(args)
        elif args.command == "leaderboard":
            _leaderboard(args)
        elif args.command == "demo":
            _demo(args)
        elif args.command == "compare":
            _compare(args)
        elif args.command == "ranks":
            _ranks(args)
        elif args.command == "warmup":
            _warmup(args)
    except KeyboardInterrupt:
        print("batcheval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `batcheval ... | head`: the reader left, which is not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if args.debug:  # the traceback, with the exit code it would have had: 2 is bad input, not a bug
            import traceback

            traceback.print_exc()
            return 2 if isinstance(exc, _INPUT_ERRORS) else 1
        if isinstance(exc, _INPUT_ERRORS):
            line = _first_line(exc, getattr(args, "file", None), getattr(args, "filter", None))
            print(f"batcheval: error: {line}", file=sys.stderr)
            return 2
        print(f"batcheval: internal error: {type(exc).__name__}: {_first_line(exc)} "
              "(rerun with --debug for the traceback)", file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
