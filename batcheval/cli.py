"""The ``batcheval`` command line.

batcheval evaluate FILE --by run,fold [--pool fold] [-o out.parquet]
batcheval demo
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import polars as pl

from .errors import BatchevalError

_EVALUATE_EXAMPLES = """examples:
  batcheval evaluate preds.parquet --by run,fold
  batcheval evaluate preds.csv --by run,fold --pool fold -o scores.parquet
  batcheval evaluate 'sweep/*.parquet' --by run --measures informedness,markedness,p_chi2_kb
"""


def _split(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="batcheval", description="Evaluate classifiers across whole sweeps."
    )
    parser.add_argument("--debug", action="store_true", help="show full tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser(
        "evaluate",
        help="measures per group of a prediction file",
        epilog=_EVALUATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("file", help="parquet, csv or ipc file (or a glob)")
    ev.add_argument("--by", default="", help="comma-separated key columns, e.g. run,fold")
    ev.add_argument("--label", default="label")
    ev.add_argument("--prediction", default="prediction")
    ev.add_argument("--pool", help="comma-separated keys to pool over (micro average), e.g. fold")
    ev.add_argument("--measures", help="comma-separated measures (default: all that apply)")
    ev.add_argument("--per-class", action="store_true", help="one row per group and class")
    ev.add_argument("--positive", help="the positive class (binary)")
    ev.add_argument("--drop-nulls", action="store_true", help="skip rows with null label or prediction")
    ev.add_argument("-o", "--output", help="write parquet, csv, ipc or json instead of printing")

    for name, help_text, example in (
        (
            "sweep",
            "measures at every threshold of a score",
            "batcheval sweep preds.parquet --by run --thresholds 101",
        ),
        (
            "auc",
            "exact ROC/PR areas and the best threshold per group",
            "batcheval auc preds.parquet --by run,fold",
        ),
    ):
        sc = sub.add_parser(name, help=help_text, epilog=f"example:\n  {example}",
                            formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        sc.add_argument("file", help="parquet, csv or ipc file (or a glob)")
        sc.add_argument("--by", default="", help="comma-separated key columns")
        sc.add_argument("--label", default="label")
        sc.add_argument("--score", default="score")
        sc.add_argument("--positive", help="the positive class")
        sc.add_argument("--drop-nonfinite", action="store_true", help="skip rows with NaN/inf scores")
        sc.add_argument("-o", "--output", help="write parquet, csv, ipc or json instead of printing")
        if name == "sweep":
            sc.add_argument("--thresholds", default="101", help="T evenly spaced, a,b,c list, or 'exact'")
            sc.add_argument("--pool", help="comma-separated keys to pool over")
            sc.add_argument("--measures", help="comma-separated measures (default: all binary)")
        else:
            sc.add_argument("--measure", default="informedness", help="measure for the best threshold")

    demo = sub.add_parser("demo", help="evaluate a built-in synthetic sweep and rank it")
    demo.add_argument("--runs", type=int, default=200)
    return parser


def _positive(value: str | None):
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return {"true": True, "false": False}.get(value.lower(), value)


def _thresholds(text: str):
    if text == "exact":
        return text
    if "," in text:
        return [float(t) for t in text.split(",") if t.strip()]
    return int(text)


def _scores(args: argparse.Namespace) -> None:
    from .io import read_frame
    from .sweep import auc, sweep

    frame = read_frame(args.file)
    common = dict(positive=_positive(args.positive), drop_nonfinite=args.drop_nonfinite)
    if args.command == "sweep":
        thresholds = _thresholds(args.thresholds)
        result = sweep(frame, _split(args.by), args.label, args.score, thresholds=thresholds,
                       pool=_split(args.pool), measures=_split(args.measures), **common)  # fmt: skip
    else:
        result = auc(frame, _split(args.by), args.label, args.score, measure=args.measure, **common)
    _emit(result, args.output)


def _emit(result: pl.DataFrame, output: str | None) -> None:
    from .io import write_frame

    if output:
        write_frame(result, output)
        print(f"wrote {result.height} rows to {output}", file=sys.stderr)
    else:
        with pl.Config(tbl_rows=40, tbl_cols=14, float_precision=4):
            print(result)


def _evaluate(args: argparse.Namespace) -> None:
    from .evaluate import evaluate
    from .io import read_frame

    frame = read_frame(args.file)
    result = evaluate(
        frame,
        _split(args.by),
        args.label,
        args.prediction,
        pool=_split(args.pool),
        measures=_split(args.measures),
        per_class=args.per_class,
        positive=_positive(args.positive),
        drop_nulls=args.drop_nulls,
    )
    _emit(result, args.output)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "evaluate":
            _evaluate(args)
        elif args.command in ("sweep", "auc"):
            _scores(args)
        elif args.command == "demo":
            from .demo import main as demo_main

            demo_main(n_runs=args.runs)
    except (BatchevalError, pl.exceptions.PolarsError, OSError, ValueError) as exc:
        if args.debug:
            raise
        print(f"batcheval: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
