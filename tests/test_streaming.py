"""Streamed sources give exactly the in-memory result, and fail loudly by file."""

from __future__ import annotations

import itertools
import os
import re
import warnings

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batcheval as be
from batcheval.errors import ColumnNotFoundError, SourceError
from batcheval.io.files import read_frame
from batcheval.io.frames import CSV_INFER_ROWS
from batcheval.io.sources import open_parts
from tests.cli_run import run_cli

from .test_sweep import scored_frame


def _frame(seed: int, n: int = 3000, classes: int = 3, runs: int = 40) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "run": rng.integers(0, runs, n),
            "fold": rng.integers(0, 5, n).astype(np.int8),
            "label": rng.integers(0, classes, n),
            "prediction": rng.integers(0, classes, n),
        }
    )


def _late_keys_and_classes() -> list[pl.DataFrame]:
    """Later pieces bring new runs and a class the first pieces never saw."""
    a = _frame(0, classes=2, runs=10)
    b = _frame(1, classes=3, runs=30).with_columns(pl.col("run") + 5)
    c = _frame(2, classes=4, runs=5).with_columns(pl.col("run") + 1000)
    return [a, b, c]


def _write(pieces: list[pl.DataFrame], tmp_path, fmt: str) -> list[str]:
    paths = []
    for i, piece in enumerate(pieces):
        path = tmp_path / f"part-{i}.{fmt}"
        getattr(piece, {"parquet": "write_parquet", "ipc": "write_ipc", "csv": "write_csv"}[fmt])(path)
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("fmt", ["parquet", "ipc", "csv"])
def test_file_formats_glob_directory_and_list(tmp_path, fmt):
    pieces = _late_keys_and_classes()
    paths = _write(pieces, tmp_path, fmt)
    whole = pl.concat(pieces)
    expected = be.evaluate(whole, by=["run", "fold"])
    for source in (paths, f"{tmp_path}/*.{fmt}", tmp_path, paths[0] if len(paths) == 1 else paths):
        got = be.evaluate(source, by=["run", "fold"], batch_rows=700)
        meta = got.metadata
        if fmt == "csv":  # csv has no int8: compare values, not the fold dtype
            got = got.with_columns(pl.col("fold").cast(pl.Int8))
        assert got.equals(expected), source
        assert meta["rows"] == whole.height
        assert meta["batches"] >= whole.height // 700


def test_dataset_reader_and_lazy_frame(tmp_path):
    pieces = _late_keys_and_classes()
    paths = _write(pieces, tmp_path, "parquet")
    whole = pl.concat(pieces)
    expected = be.evaluate(whole, by="run", pool=None)
    dataset = ds.dataset(paths, format="parquet")
    assert be.evaluate(dataset, by="run", batch_rows=500).equals(expected)
    reader = pa.RecordBatchReader.from_batches(
        whole.to_arrow().schema, whole.to_arrow().to_batches(max_chunksize=333)
    )
    assert be.evaluate(reader, by="run", batch_rows=1000).equals(expected)
    lazy = pl.scan_parquet(paths).filter(pl.col("fold") < 3)
    assert be.evaluate(lazy, by="run", batch_rows=400).equals(
        be.evaluate(whole.filter(pl.col("fold") < 3), by="run")
    )


def test_hive_partition_columns_are_read(tmp_path):
    """A key that lives only in the directory names (``run=3/part-0.parquet``) is
    a column of the dataset, not of any file: each file is read with the
    dataset's schema, so the key is filled in."""
    whole = _frame(4, runs=6)
    ds.write_dataset(whole.to_arrow(), tmp_path / "data", format="parquet", partitioning=["run"],
                     partitioning_flavor="hive")  # fmt: skip
    dataset = ds.dataset(tmp_path / "data", format="parquet", partitioning="hive")
    assert "run" not in dataset.get_fragments().__next__().physical_schema.names
    got = be.evaluate(dataset, by=["run", "fold"], batch_rows=300).sort("run", "fold")
    expected = be.evaluate(whole.with_columns(pl.col("run").cast(pl.Int32)), by=["run", "fold"])
    assert got.equals(expected.sort("run", "fold"))
    # a file that lacks a column is named, not filled with nulls from the dataset's schema
    whole.write_parquet(tmp_path / "full.parquet")
    whole.drop("prediction").write_parquet(tmp_path / "short.parquet")
    mixed = ds.dataset([str(tmp_path / "full.parquet"), str(tmp_path / "short.parquet")], format="parquet")
    with pytest.raises(ColumnNotFoundError, match=r"short\.parquet"):
        be.evaluate(mixed, by="run")


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cuts=st.lists(st.integers(1, 199), max_size=6, unique=True),
    batch_rows=st.integers(1, 120),
)
def test_any_batching_equals_one_pass(seed, cuts, batch_rows):
    # 200 rows, not 500: a batch of one row is as many passes as rows (18 s of CPU at 500)
    rng = np.random.default_rng(seed)
    n = 200
    whole = pl.DataFrame(
        {
            "run": rng.integers(0, 30, n),
            "label": rng.choice(["ant", "bee", "cat"], n),
            "prediction": rng.choice(["ant", "bee", "cat", "dog"], n),
        }
    )
    bounds = [0, *sorted(cuts), n]
    batches = [whole.slice(a, b - a).to_arrow() for a, b in itertools.pairwise(bounds) if b > a]
    reader = pa.RecordBatchReader.from_batches(
        batches[0].schema, [rb for t in batches for rb in t.to_batches()]
    )
    streamed = be.evaluate(reader, by="run", batch_rows=batch_rows, pool="run")
    assert streamed.equals(be.evaluate(whole, by="run", pool="run"))


def test_on_error_skip_and_raise(tmp_path):
    pieces = [_frame(s) for s in range(3)]
    paths = _write(pieces, tmp_path, "parquet")
    (tmp_path / "part-1.parquet").write_bytes(b"PAR1 this is not a parquet file")
    pieces[2].drop("prediction").write_parquet(tmp_path / "part-2.parquet")

    with pytest.raises(SourceError, match=r"file '.*part-1\.parquet'"):
        be.evaluate(paths, by="run")
    with pytest.raises(ColumnNotFoundError, match=r"part-2\.parquet'.*prediction column 'prediction'"):
        be.evaluate([paths[0], paths[2]], by="run")

    with pytest.warns(be.BatchevalWarning, match="skipped 2 of 3 parts"):
        out = be.evaluate(paths, by="run", on_error="skip")
    assert out.equals(be.evaluate(pieces[0], by="run"))
    skipped = [s["part"] for s in out.metadata["skipped"]]
    assert skipped == [f"file {paths[1]!r}", f"file {paths[2]!r}"]
    assert "not found" in out.metadata["skipped"][1]["error"]

    with pytest.raises(SourceError, match="every part of the source was skipped"):
        be.evaluate(paths[1:], by="run", on_error="skip")
    with pytest.raises(ValueError, match="on_error must be"):
        be.evaluate(paths, by="run", on_error="ignore")


def test_a_part_failing_half_way_contributes_nothing():
    good = _frame(5).to_arrow()

    def failing():
        yield from good.to_batches(max_chunksize=500)[:3]
        raise OSError("disk went away")

    reader = pa.RecordBatchReader.from_batches(good.schema, failing())
    with pytest.raises(SourceError, match="record batch reader: OSError: disk went away"):
        be.evaluate(reader, by="run", batch_rows=200)
    reader = pa.RecordBatchReader.from_batches(good.schema, failing())
    with pytest.raises(SourceError, match=r"every part .* skipped"):
        be.evaluate(reader, by="run", batch_rows=200, on_error="skip")


def test_key_type_change_between_files_is_named(tmp_path):
    a = _frame(0)
    b = _frame(1).with_columns(pl.col("run").cast(pl.String))
    a.write_parquet(tmp_path / "a.parquet")
    b.write_parquet(tmp_path / "b.parquet")
    with pytest.raises(SourceError, match=r"b\.parquet'.*'run' is String, not Int64"):
        be.evaluate(tmp_path, by="run")


def test_file_names_with_glob_characters_are_read_as_they_are(tmp_path):
    """polars reads a path as a pattern by default: "fold[1].parquet" would match
    fold1.parquet and read the wrong file."""
    mine, other = _frame(0, n=300), _frame(1, n=200)
    mine.write_parquet(tmp_path / "fold[1].parquet")
    other.write_parquet(tmp_path / "fold1.parquet")
    for source in (str(tmp_path / "fold[1].parquet"), tmp_path / "fold[1].parquet"):
        assert be.evaluate(source, by="run").equals(be.evaluate(mine, by="run"))
    both = be.evaluate(tmp_path, by="run")
    assert both.equals(be.evaluate(pl.concat([other, mine]), by="run"))
    assert read_frame(tmp_path / "fold[1].parquet").collect().equals(mine)


def test_an_empty_path_is_refused_not_read_as_the_working_directory(tmp_path, monkeypatch):
    """Path("") is ".": `batcheval evaluate ''` read every data file under the working directory."""
    _frame(0, n=50).write_parquet(tmp_path / "stray.parquet")
    monkeypatch.chdir(tmp_path)
    for source in ("", " ", ["", "stray.parquet"]):
        with pytest.raises(SourceError, match="empty path"):
            be.evaluate(source, by="run")


def test_read_frame_reads_a_directory_of_csv_files(tmp_path):
    """The CLI reads a directory through read_frame: one of csv files raised a raw AttributeError."""
    first, second = _frame(0, n=40), _frame(1, n=30)
    first.write_csv(tmp_path / "a.csv")
    second.write_csv(tmp_path / "b.csv")
    got = read_frame(tmp_path).collect()
    assert got.equals(pl.concat([first, second]).cast(dict(got.schema)))
    # beside a parquet file too, as be.evaluate reads a directory (it was refused: "several types")
    third = _frame(2, n=10)
    third.write_parquet(tmp_path / "c.parquet")
    got = read_frame(tmp_path).collect()
    assert got.equals(pl.concat([first, second, third.cast(first.schema)]).cast(dict(got.schema)))
    with pytest.raises(be.BatchevalError, match="empty path"):
        read_frame("")


def test_a_record_batch_reader_is_read_once_and_a_second_pass_is_refused():
    """A reader yields its rows once: a sweep that needs a first pass (the score range, the positive
    class) counted nothing on the second and returned an empty frame without a word."""
    df = scored_frame(n_runs=3, n_folds=1, rows=50)
    table = df.to_arrow()

    def reader() -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=40))

    for call in (be.sweep, be.curves):
        with pytest.raises(be.InvalidArgumentError, match=r"read only once.*score_range= and positive="):
            call(reader(), by="run", thresholds=3)
    with pytest.raises(be.InvalidArgumentError, match="what positive= would give"):
        be.sweep(reader(), by="run", thresholds=[0.0, 0.5])
    given = dict(by="run", thresholds=3, score_range=(df["score"].min(), df["score"].max()), positive=1)
    assert be.sweep(reader(), **given).equals(be.sweep(df, **given))
    # two classes named fix the positive class (the greater) without a first pass
    named = dict(by="run", thresholds=[0.0, 0.5], classes=[1, 0])
    assert be.sweep(reader(), **named).equals(be.sweep(df, **named))
    used = reader()
    be.sweep(used, by="run", thresholds=[0.0, 0.5], positive=1)
    with pytest.raises(SourceError, match="read already"):
        be.sweep(used, by="run", thresholds=[0.0, 0.5], positive=1)


def test_read_frame_checks_every_file_of_a_glob(tmp_path):
    """Every file of a glob is opened up front: a corrupt one, or one whose columns
    differ, is named before any data is read. Integer widths may differ."""
    a, b = _frame(0, n=300), _frame(1, n=200)
    a.write_parquet(tmp_path / "p0.parquet")
    b.with_columns(pl.col("run").cast(pl.Int32)).write_parquet(tmp_path / "p1.parquet")
    got = read_frame(tmp_path / "p*.parquet").collect()
    assert got.equals(pl.concat([a, b]))
    (tmp_path / "p2.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(be.BatchevalError, match=r"cannot read '.*p2\.parquet'"):
        read_frame(tmp_path / "p*.parquet")
    (tmp_path / "p2.parquet").unlink()
    b.with_columns(pl.col("label").cast(pl.String)).write_parquet(tmp_path / "p3.parquet")
    message = r"column 'label' is String in '.*p3\.parquet' but Int64 in '.*p0"
    with pytest.raises(be.BatchevalError, match=message):
        read_frame(tmp_path / "p*.parquet")
    b.with_columns(pl.col("run").cast(pl.UInt64)).write_parquet(tmp_path / "p3.parquet")
    with pytest.raises(be.BatchevalError, match=r"key column 'run' is UInt64 in"):  # + Int64: Int128
        read_frame(tmp_path / "p*.parquet", keys=["run"])
    b.drop("fold").write_parquet(tmp_path / "p3.parquet")
    with pytest.raises(be.BatchevalError, match=r"p3\.parquet' has columns \['run', 'label', 'prediction'\]"):
        read_frame(tmp_path / "p*.parquet")
    # the same columns in another order read as the first file's (stop 43: an error before)
    b.select(reversed(b.columns)).write_parquet(tmp_path / "p3.parquet")
    assert read_frame(tmp_path / "p*.parquet").collect().equals(pl.concat([a, b, b]))
    (tmp_path / "p3.parquet").unlink()
    a.write_csv(tmp_path / "c0.csv")
    (tmp_path / "c1.csv").write_text("run,fold,label,prediction\n")  # header only: every column String
    assert read_frame(tmp_path / "c*.csv").collect().equals(a)


def test_read_frame_checks_each_file_against_the_widened_type_as_the_api_does(tmp_path):
    # UInt32, then UInt64, then Int8: the third was checked against the first file's UInt32 and
    # passed, and the concat made the key Int128, where the API refuses it against UInt64
    paths = [str(tmp_path / f"{name}.parquet") for name in "abc"]
    runs = [
        pl.Series([1], dtype=pl.UInt32),
        pl.Series([2**63 + 7], dtype=pl.UInt64),
        pl.Series([-1], dtype=pl.Int8),
    ]
    for run, path in zip(runs, paths, strict=True):
        pl.DataFrame({"run": run, "label": [1], "prediction": [1]}).write_parquet(path)
    glob = f"{tmp_path}/*.parquet"
    message = (
        f"cannot read {glob!r}: key column 'run' is Int8 in {paths[2]!r} but UInt64 in {paths[1]!r}; a key "
        "column must have one type in every file (integers of any width combine), or its values would "
        "merge or split in a cast"
    )
    with pytest.raises(SourceError, match=f"^{re.escape(message)}$"):
        read_frame(glob, keys=["run"])
    api = f"file {paths[2]!r}: key column 'run' is Int8, not UInt64 as in the parts before it"
    with pytest.raises(SourceError, match=f"^{re.escape(api)}$"):
        be.evaluate(glob, by="run", measures=["accuracy"])
    # a label column is read as Int64 where its UInt64 values fit, as the API counts labels: not these
    for run, path in zip(runs, paths, strict=True):
        pl.DataFrame({"run": [0], "label": run, "prediction": [1]}).write_parquet(path)
    message = (
        f"cannot read {glob!r}: column 'label' is Int8 in {paths[2]!r} but UInt64 in {paths[1]!r}, which "
        f"combine as Int64 only where every UInt64 value fits in it, and {2**63 + 7} (in {paths[1]!r}) does "
        "not; cast the column to one type in every file"
    )
    with pytest.raises(be.BatchevalError, match=f"^{re.escape(message)}$"):
        read_frame(glob, keys=["run"])


def test_empty_parts_set_no_types(tmp_path):
    """A header-only csv reads every column as String; it adds no rows, so it must
    neither decide the types the other parts are held to nor break the merge."""
    pieces = [_frame(s, n=200) for s in range(3)]
    (tmp_path / "a_empty.csv").write_text("run,fold,label,prediction\n")
    for i, piece in enumerate(pieces):
        piece.write_csv(tmp_path / f"b{i}.csv")
    expected = be.evaluate(pl.concat(pieces), by="run")
    for by in ("run", []):
        out = be.evaluate(tmp_path, by=by)
        assert out.equals(be.evaluate(pl.concat(pieces), by=by))
        assert len(out.metadata["parts"]) == 4 and out.metadata["rows"] == 600
    assert be.evaluate(tmp_path, by="run", on_error="skip").equals(expected)


def test_parts_with_another_kind_of_label_are_named_and_skippable(tmp_path):
    a = _frame(0, n=300)
    b = _frame(1, n=300).with_columns(pl.col("label", "prediction").cast(pl.String))
    a.write_parquet(tmp_path / "a.parquet")
    b.write_parquet(tmp_path / "b.parquet")
    with pytest.raises(SourceError, match=r"b\.parquet': its label and prediction values are String, where "
                                          r"the parts before it had integer values"):  # fmt: skip
        be.evaluate(tmp_path, by="run")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2"):
        assert be.evaluate(tmp_path, by="run", on_error="skip").equals(be.evaluate(a, by="run"))
    # integers of another width are the same kind: they combine
    a.with_columns(pl.col("label", "prediction").cast(pl.Int8)).write_parquet(tmp_path / "b.parquet")
    assert be.evaluate(tmp_path, by="run").equals(be.evaluate(pl.concat([a, a]), by="run"))


def test_errors_inside_a_streamed_batch_name_the_part_and_its_rows(tmp_path):
    pieces = [_frame(s, n=1000, classes=2) for s in range(2)]
    pieces[1] = pieces[1].with_columns(
        pl.when(pl.int_range(pl.len()) == 750).then(None).otherwise(pl.col("label")).alias("label")
    )
    paths = _write(pieces, tmp_path, "parquet")
    where = r"part-1\.parquet', rows 700-800: label column 'label' has 1"
    with pytest.raises(be.NullValuesError, match=where):
        be.evaluate(paths, by="run", batch_rows=100)
    pieces[1] = pieces[1].with_columns(pl.col("label").fill_null(7))
    paths = _write(pieces, tmp_path, "parquet")
    with pytest.raises(be.InvalidLabelError, match=where):
        be.evaluate(paths, by="run", batch_rows=100, classes=[0, 1])


@pytest.mark.parametrize("batch_rows", [None, 4, 3])
@pytest.mark.parametrize("drop_nulls", [True, False])
def test_a_streamed_sweep_names_a_nonfinite_score_by_its_row_in_the_file(tmp_path, batch_rows, drop_nulls):
    # the row was counted in its batch after the nulls dropped: "rows 4-8: ... (row 1: inf)" for row 5
    labels = [None, None, 0, 1, 0, 1, 0, 1] if drop_nulls else [1, 0, 0, 1, 0, 1, 0, 1]
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, float("inf"), 0.7, 0.8]
    df = pl.DataFrame({"label": labels, "score": scores})
    df.write_parquet(tmp_path / "inf.parquet")
    (row,) = np.flatnonzero(~np.isfinite(np.array(scores)))
    kwargs = dict(label="label", score="score", thresholds=3, score_range=(0, 1), drop_nulls=drop_nulls)
    if batch_rows is not None:
        kwargs["batch_rows"] = batch_rows
    lo = 0 if batch_rows is None else row // batch_rows * batch_rows
    hi = len(df) if batch_rows is None else min(lo + batch_rows, len(df))
    for source, name in (
        (tmp_path / "inf.parquet", f"file {str(tmp_path / 'inf.parquet')!r}"),
        (df.lazy(), "lazy frame"),
    ):
        message = (
            f"{name}, rows {lo}-{hi}: score column 'score' has 1 NaN or infinite value (row {row}: inf); "
            "pass drop_nonfinite=True to skip those rows"
        )
        with pytest.raises(be.InvalidScoreError, match=f"^{re.escape(message)}$"):
            be.sweep(source, **kwargs)


def test_missing_paths_are_named(tmp_path):
    with pytest.raises(SourceError, match="no files match"):
        be.evaluate(f"{tmp_path}/*.parquet", by="run")
    with pytest.raises(SourceError, match="no such file"):
        be.evaluate(str(tmp_path / "nope.parquet"), by="run")
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(SourceError, match=r"unknown file type '\.txt'"):
        be.evaluate(str(tmp_path / "notes.txt"), by="run")
    with pytest.raises(SourceError, match="holds no parquet"):
        be.evaluate(tmp_path, by="run")


def test_drop_nulls_warns_once_with_the_total(tmp_path):
    pieces = [_frame(s, n=400) for s in range(3)]
    pieces = [p.with_columns(pl.when(pl.int_range(pl.len()) % 50 == 0).then(None).otherwise(pl.col("label"))
                             .alias("label")) for p in pieces]  # fmt: skip
    paths = _write(pieces, tmp_path, "parquet")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = be.evaluate(paths, by="run", drop_nulls=True, batch_rows=100)
    messages = [str(w.message) for w in caught if issubclass(w.category, be.BatchevalWarning)]
    assert messages == ["dropped 24 of 1200 rows with a null 'label' or 'prediction'"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert out.equals(be.evaluate(pl.concat(pieces), by="run", drop_nulls=True))


def _files_with_null_and_nan_scores(tmp_path) -> tuple[list[str], pl.DataFrame]:
    """Four files of 10 rows: 3 null scores, 1 null label and 2 NaN or infinite scores in each."""
    frames = []
    for i in range(4):
        score = [None, None, None, float("nan"), float("inf"), *(0.1 * j + 0.01 * i for j in range(5))]
        frames.append(pl.DataFrame({"run": [i % 2] * 10, "label": [0, 1] * 4 + [None, 1], "score": score}))
    paths = [str(tmp_path / f"p{i}.parquet") for i in range(4)]
    for frame, path in zip(frames, paths, strict=True):
        frame.write_parquet(path)
    return paths, pl.concat(frames)


def _batcheval_warnings(run):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run()
    return out, [str(w.message) for w in caught if issubclass(w.category, be.BatchevalWarning)]


@pytest.mark.parametrize("batch_rows", [None, 4])
def test_streamed_sweep_warns_once_of_the_rows_it_drops_over_all_parts(tmp_path, batch_rows):
    # each batch warned of its own rows ("dropped 3 of 10 rows", which python's filter shows once)
    paths, frame = _files_with_null_and_nan_scores(tmp_path)
    nulls = frame.filter(pl.col("score").is_null() | pl.col("label").is_null()).height
    nonfinite = frame.drop_nulls().filter(~pl.col("score").is_finite()).height
    assert (nulls, nonfinite) == (16, 8)
    kwargs = dict(by="run", thresholds=[0.0, 0.2], drop_nulls=True, drop_nonfinite=True)
    got, messages = _batcheval_warnings(lambda: be.sweep(paths, batch_rows=batch_rows, **kwargs))
    assert messages == [
        f"dropped {nulls} of 40 rows with a null 'score' or 'label'",
        f"dropped {nonfinite} of 40 rows with a NaN or infinite score in column 'score'",
    ]
    assert got.metadata["rows"] == 40 and got.metadata["dropped"] == nulls + nonfinite
    expected, _ = _batcheval_warnings(lambda: be.sweep(frame, **kwargs))
    assert got.equals(expected)
    # a NaN score is still refused without drop_nonfinite=, a null one without drop_nulls=
    with pytest.raises(be.errors.InvalidScoreError, match="NaN or infinite"):
        be.sweep(paths, by="run", thresholds=[0.5], drop_nulls=True)
    with pytest.raises(be.errors.NullValuesError, match="null value"):
        be.sweep(paths, by="run", thresholds=[0.5], drop_nonfinite=True)


def test_a_streamed_sweep_refuses_a_null_label_beside_a_nan_score_as_in_memory(tmp_path):
    # drop_nonfinite= dropped the row of a NaN score and a null label before the count could see
    # its label, so the file and the lazy frame swept 4 rows where the frame in memory refused the null
    df = pl.DataFrame({"label": [None, 1, 0, 1, 0], "score": [float("nan"), 0.9, 0.1, 0.8, 0.3]})
    df.write_parquet(tmp_path / "nan.parquet")
    kwargs = dict(label="label", score="score", thresholds=3, drop_nonfinite=True)
    message = "score column 'score' or label column 'label' has 1 null value(s); "
    message += "pass drop_nulls=True to skip those rows"
    with pytest.raises(be.NullValuesError, match=f"^{re.escape(message)}$"):
        be.sweep(df, **kwargs)
    path = tmp_path / "nan.parquet"
    for source, name in ((path, f"file {str(path)!r}"), (df.lazy(), "lazy frame")):
        with pytest.raises(be.NullValuesError, match=f"^{re.escape(f'{name}, rows 0-5: {message}')}$"):
            be.sweep(source, **kwargs)
    # with drop_nulls= too, the row goes as a null one, on every path
    kept = df.drop_nulls()
    expected = [int(((kept["score"] >= t) & (kept["label"] == 1)).sum()) for t in np.linspace(0.1, 0.9, 3)]
    for source in (df, path, df.lazy()):
        got, messages = _batcheval_warnings(lambda s=source: be.sweep(s, drop_nulls=True, **kwargs))
        assert got["tp"].to_list() == expected and got["n"].to_list() == [4] * 3
        assert messages == ["dropped 1 of 5 rows with a null 'score' or 'label'"]


def test_streamed_evaluate_records_the_rows_it_drops(tmp_path):
    paths, _ = _files_with_null_and_nan_scores(tmp_path)
    frames = [pl.read_parquet(p).with_columns(prediction=pl.col("score") > 0.2) for p in paths]
    for f, path in zip(frames, paths, strict=True):
        f.write_parquet(path)
    got, messages = _batcheval_warnings(lambda: be.evaluate(paths, by="run", drop_nulls=True))
    nulls = pl.concat(frames).filter(pl.any_horizontal(pl.col("label", "prediction").is_null())).height
    assert nulls == 16 and messages == [f"dropped {nulls} of 40 rows with a null 'label' or 'prediction'"]
    assert got.metadata["dropped"] == nulls and got["n"].sum() == 40 - nulls


_ALL_NULL_FOLD = pl.DataFrame({"run": [0, 1], "fold": [None, None], "label": [1, 1], "prediction": [1, 0]})


def _folds(dtype: pl.DataType) -> pl.DataFrame:
    return pl.DataFrame(
        {"run": [0, 1, 0, 1], "fold": [0, 0, 1, 1], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]}
    ).with_columns(pl.col("fold").cast(dtype), score=pl.Series([0.1, 0.9, 0.4, 0.3]))


@pytest.mark.parametrize("dtype", [pl.Int64, pl.String])
@pytest.mark.parametrize("order", [(0, 1), (1, 0), (1, 0, 1)])
def test_a_part_whose_key_is_all_null_counts_beside_parts_where_it_is_typed(tmp_path, dtype, order):
    # its key column reads as the Null dtype: refused, "key column 'fold' is Null, not Int64" (or,
    # the Null part first, the typed one was blamed); in memory its rows are a group of null folds
    frames = [_folds(dtype), _ALL_NULL_FOLD.with_columns(score=pl.Series([0.6, 0.2]))]
    assert frames[1].schema["fold"] == pl.Null
    ordered = [frames[i] for i in order]
    paths = [str(tmp_path / f"p{i}.parquet") for i in range(len(ordered))]
    for frame, path in zip(ordered, paths, strict=True):
        frame.write_parquet(path)
    memory = pl.concat(ordered, how="vertical_relaxed")
    by = ["run", "fold"]
    expected = be.evaluate(memory, by=by)
    assert expected.filter(pl.col("fold").is_null())["n"].to_list() == [order.count(1)] * 2
    assert be.evaluate(paths, by=by).equals(expected)
    for thresholds in (3, [0.5]):
        assert be.sweep(paths, by=by, thresholds=thresholds).equals(
            be.sweep(memory, by=by, thresholds=thresholds)
        )


@pytest.mark.parametrize("order", [(0, 1), (1, 0), (1, 0, 1)])
def test_a_csv_whose_key_has_no_value_counts_beside_files_where_it_is_typed(tmp_path, order):
    # polars reads a csv column with no value as String, not Null: "key column 'fold' is String, not
    # Int64 as in the parts before it", where one frame makes its rows a group of null folds
    frames = [_folds(pl.Int64), _ALL_NULL_FOLD.with_columns(score=pl.Series([0.6, 0.2]))]
    ordered = [frames[i] for i in order]
    paths = [str(tmp_path / f"p{i}.csv") for i in range(len(ordered))]
    for frame, path in zip(ordered, paths, strict=True):
        frame.write_csv(path)
    assert pl.read_csv(paths[order.index(1)]).schema["fold"] == pl.String
    memory = pl.concat(ordered, how="vertical_relaxed")
    by = ["run", "fold"]
    expected = be.evaluate(memory, by=by)
    assert expected.schema["fold"] == pl.Int64
    assert expected.filter(pl.col("fold").is_null())["n"].to_list() == [order.count(1)] * 2
    assert be.evaluate(paths, by=by).equals(expected)
    assert be.evaluate(paths, by=by, batch_rows=1).equals(expected)
    for thresholds in (3, [0.5]):
        assert be.sweep(paths, by=by, thresholds=thresholds).equals(
            be.sweep(memory, by=by, thresholds=thresholds)
        )
    # a csv whose key holds a string beside them is still refused
    frames[0].with_columns(pl.col("fold").cast(pl.String) + "x").write_csv(tmp_path / "z.csv")
    with pytest.raises(SourceError, match="key column 'fold' is String, not Int64"):
        be.evaluate([*paths, str(tmp_path / "z.csv")], by=by)


def test_a_part_of_another_key_type_after_an_all_null_one_is_named(tmp_path):
    paths = [str(tmp_path / f"p{i}.parquet") for i in range(3)]
    for frame, path in zip([_ALL_NULL_FOLD, _folds(pl.String), _folds(pl.Int64)], paths, strict=True):
        frame.with_columns(score=pl.lit(0.5)).write_parquet(path)
    message = f"file {paths[2]!r}: key column 'fold' is Int64, not String as in the parts before it"
    with pytest.raises(SourceError, match=f"^{re.escape(message)}$"):
        be.evaluate(paths, by=["run", "fold"])
    with pytest.raises(SourceError, match=f"^{re.escape(message)}$"):
        be.sweep(paths, by=["run", "fold"], thresholds=3)


def test_empty_files_add_nothing(tmp_path):
    full = _frame(3)
    full.write_parquet(tmp_path / "a.parquet")
    full.head(0).write_parquet(tmp_path / "b.parquet")
    assert be.evaluate(tmp_path, by="run").equals(be.evaluate(full, by="run"))
    empty = be.evaluate(str(tmp_path / "b.parquet"), by="run")
    assert empty.height == 0
    assert empty.columns == be.evaluate(full.head(0), by="run").columns


def test_progress_bar_goes_to_stderr(tmp_path, capsys):
    paths = _write([_frame(s) for s in range(2)], tmp_path, "parquet")
    be.evaluate(paths, by="run", progress=True, batch_rows=1000)
    err = capsys.readouterr().err
    assert "6.00k/6.00k" in err and "rows" in err and "batches=6" in err
    be.evaluate(paths, by="run", batch_rows=1000)  # not a terminal: off by default
    assert capsys.readouterr().err == ""


def test_streamed_sweep_equals_in_memory(tmp_path):
    pieces = [scored_frame(seed=s).with_columns(pl.col("run") + 3 * s) for s in range(3)]
    paths = _write(pieces, tmp_path, "parquet")
    whole = pl.concat(pieces)
    for thresholds in (17, [0.1, 0.5, 0.9]):
        expected = be.sweep(whole, by=["run", "fold"], thresholds=thresholds, pool="fold")
        got = be.sweep(paths, by=["run", "fold"], thresholds=thresholds, batch_rows=97, pool="fold")
        assert got.equals(expected)
    with pytest.raises(ValueError, match="thresholds='exact' needs every score"):
        be.sweep(paths, by="run", thresholds="exact")


@pytest.mark.parametrize("kwargs", [{"thresholds": 3}, {"thresholds": [0.2, 0.5], "positive": 1}])
@pytest.mark.parametrize("labels", [(0, 1), ("no", "yes")])
def test_streamed_sweep_with_a_batch_of_one_class(tmp_path, kwargs, labels):
    # a batch (or a file) of negatives only raised "positive=1 is not one of the classes [0]"
    # (stop 43): each batch is now told the source's classes
    neg, pos = labels
    kwargs = {**kwargs, "positive": pos} if "positive" in kwargs else kwargs
    df = pl.DataFrame(
        {"run": [0] * 6 + [1] * 4, "label": [neg] * 6 + [pos] * 4, "score": np.linspace(0, 1, 10)}
    )
    expected = be.sweep(df, by="run", **kwargs)
    assert be.sweep(df.lazy(), by="run", batch_rows=5, **kwargs).equals(expected)
    paths = _write([df.head(6), df.tail(4)], tmp_path, "parquet")  # a file of each class
    assert be.sweep(paths, by="run", **kwargs).equals(expected)


@pytest.mark.parametrize("batch_rows", [1, 1000])
def test_integer_keys_of_different_widths_across_files_combine(tmp_path, batch_rows):
    # a file's Int32 run and another's Int64 run raised "key column 'run' is Int64, not Int32"
    # (and on_error="skip" dropped the readable file); they combine as the widest, as a
    # concatenation of the two frames would (stop 43). Keys of another kind still stop.
    a = pl.DataFrame(
        {"run": pl.Series([1, 1, 2], dtype=pl.Int32), "label": [0, 1, 1], "prediction": [0, 1, 0]}
    )
    b = pl.DataFrame(
        {"run": pl.Series([2, 3, 3], dtype=pl.Int64), "label": [1, 0, 1], "prediction": [1, 0, 0]}
    )
    paths = _write([a, b], tmp_path, "parquet")
    expected = be.evaluate(pl.concat([a.cast({"run": pl.Int64}), b]), by="run")
    assert be.evaluate(paths, by="run", batch_rows=batch_rows).equals(expected)
    other = pl.DataFrame({"run": ["x"], "label": [1], "prediction": [1]})
    with pytest.raises(SourceError, match=r"key column 'run' is String, not Int"):
        (tmp_path / "more").mkdir()
        be.evaluate([*paths, *_write([other], tmp_path / "more", "parquet")], by="run")


def test_signed_and_uint64_keys_across_files_stay_a_named_error(tmp_path):
    # Int64 with UInt64 would widen to Int128, which nothing downstream reads: the widening of
    # integer keys above first made that a raw polars error, and skip no longer skipped
    a = pl.DataFrame({"run": pl.Series([1, 2], dtype=pl.Int64), "label": [0, 1], "prediction": [0, 1]})
    b = pl.DataFrame({"run": pl.Series([3, 4], dtype=pl.UInt64), "label": [1, 0], "prediction": [1, 1]})
    paths = _write([a, b], tmp_path, "parquet")
    with pytest.raises(SourceError, match=r"key column 'run' is UInt64, not Int64"):
        be.evaluate(paths, by="run")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2 parts"):
        got = be.evaluate(paths, by="run", on_error="skip")
    assert got.equals(be.evaluate(a, by="run"))


def test_a_streamed_sweep_with_its_positive_and_thresholds_reads_the_source_once(tmp_path, monkeypatch):
    # the fix for batches of one class first scanned every source (a second pass over 100M rows);
    # with positive= and a list of thresholds nothing needs the scan, and none is made
    from batcheval.scores import sweep as sweep_module

    scans = []
    original = sweep_module._Stream.scan
    monkeypatch.setattr(
        sweep_module._Stream, "scan", lambda self, data: scans.append(1) or original(self, data)
    )
    df = pl.DataFrame({"run": [0] * 6 + [1] * 4, "label": [0] * 6 + [1] * 4, "score": np.linspace(0, 1, 10)})
    got = be.sweep(df.lazy(), by="run", thresholds=[0.2, 0.5], positive=1, batch_rows=5)
    assert got.equals(be.sweep(df, by="run", thresholds=[0.2, 0.5], positive=1)) and scans == []


@pytest.mark.parametrize("positive", [7, "yes"])
def test_a_streamed_sweep_checks_a_named_positive_as_a_frame_in_memory_does(tmp_path, positive):
    # a positive the labels do not hold gave all-negative counts (recall NaN) from a file or a lazy
    # frame, and a text positive for integer labels a raw TypeError
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    df = pl.DataFrame({"run": np.arange(200) % 2, "label": y, "score": rng.random(200) + y})
    path = tmp_path / "p.parquet"
    df.write_parquet(path)
    with pytest.raises(
        be.InvalidLabelError, match=rf"positive={positive!r} is not one of the classes \[0, 1\]"
    ):
        be.sweep(df, by="run", positive=positive, thresholds=[0.5])
    # a text positive for integer labels is refused before the first batch is counted
    streamed = r" \[0, 1\]" if positive == 7 else ": label column 'label' holds Int64 values"
    for source in (str(path), df.lazy()):
        with pytest.raises(
            be.InvalidLabelError, match=rf"positive={positive!r} is not one of the classes{streamed}"
        ):
            be.sweep(source, by="run", positive=positive, thresholds=[0.5], batch_rows=64)
    expected = be.sweep(df, by="run", positive=1, thresholds=[0.5])
    assert be.sweep(str(path), by="run", positive=1, thresholds=[0.5], batch_rows=64).equals(expected)


def test_a_streamed_sweep_checks_positive_against_the_labels_of_the_parts_it_keeps_alone(tmp_path):
    # the labels of a file skipped half-way (its 2s in the batches before its unreadable score)
    # once let positive=2 through: the sweep of the other file alone counted no positive, recall NaN
    good = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.2, 0.8]})
    good.write_csv(tmp_path / "a.csv")
    # the score column is read as numbers from the rows polars infers its type from; the text beyond
    n = CSV_INFER_ROWS + 50
    scores = [str(x) for x in np.linspace(0, 1, n)]
    scores[n - 30] = "oops"
    pl.DataFrame({"label": [2] * 5 + [0] * (n - 5), "score": scores}).write_csv(tmp_path / "b.csv")
    kwargs = {"label": "label", "score": "score", "thresholds": [0.25, 0.5, 0.75], "positive": 2}
    message = r"^positive=2 is not one of the classes \[0, 1\]$"
    with pytest.raises(be.InvalidLabelError, match=message):
        be.sweep(good, **kwargs)
    paths = [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    with pytest.warns(be.BatchevalWarning, match=r"skipped 1 of 2 parts .*b\.csv'"):
        with pytest.raises(be.InvalidLabelError, match=message):
            be.sweep(paths, on_error="skip", batch_rows=1000, **kwargs)


def test_streamed_sweep_grid_leaves_out_the_rows_drop_nulls_drops(tmp_path):
    # the null-label row's score (5.0) once stretched the streamed grid to 0.2, 2.6, 5.0
    df = pl.DataFrame({"run": [1] * 5, "label": [0, 1, 0, 1, None], "score": [0.2, 0.8, 0.4, 0.6, 5.0]})
    df.write_parquet(tmp_path / "a.parquet")
    kept = df.drop_nulls()["score"].to_numpy()
    grid = np.linspace(kept.min(), kept.max(), 3)
    with pytest.warns(be.BatchevalWarning):
        expected = be.sweep(df, by="run", thresholds=3, drop_nulls=True)
    np.testing.assert_allclose(expected["threshold"].to_numpy(), grid)
    for source in (df.lazy(), tmp_path / "a.parquet"):
        with pytest.warns(be.BatchevalWarning):
            got = be.sweep(source, by="run", thresholds=3, drop_nulls=True)
        np.testing.assert_allclose(got["threshold"].to_numpy(), grid)
        assert got.equals(expected)


@pytest.mark.parametrize(
    "bad",
    [
        pl.DataFrame({"label": [0, 1, 2], "score": [-9.0, 7.0, 0.5]}),  # no key column; a third class
        pl.DataFrame({"run": ["x", "y", "z"], "label": [0, 1, 2], "score": [-9.0, 7.0, 0.5]}),  # key type
        pl.DataFrame({"run": [1, 2, 3], "label": [0, 1, 2], "score": ["a", "b", "c"]}),  # score type
        pl.DataFrame({"run": [3, 3], "label": ["0", "1"], "score": [-9.0, 7.0]}),  # text labels
    ],
)
def test_streamed_sweep_skips_a_file_in_the_scan_as_in_the_count(tmp_path, bad):
    # the file the count skips once set the grid (-9 to 7) and the classes (0, 1, 2: no default positive)
    good = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.3, 0.6]})
    good.write_parquet(tmp_path / "a.parquet")
    bad.write_parquet(tmp_path / "b.parquet")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2 parts"):
        got = be.sweep(str(tmp_path / "*.parquet"), by="run", thresholds=3, on_error="skip")
    np.testing.assert_allclose(got["threshold"].unique().sort().to_numpy(), np.linspace(0.1, 0.9, 3))
    assert got.drop("threshold").equals(be.sweep(good, by="run", thresholds=3).drop("threshold"))
    assert [s["part"] for s in got.metadata["skipped"]] == [f"file {str(tmp_path / 'b.parquet')!r}"]


@pytest.mark.parametrize(
    ("kwargs", "before"),
    [
        ({"thresholds": 3}, "the parts before it hold Int64 values"),  # the scan reads the labels
        ({"thresholds": [0.5]}, "the parts before it hold Int64 values"),  # for the default positive
        ({"thresholds": [0.5], "positive": 1}, None),  # no scan: the count checks
        ({"thresholds": [0.5], "classes": [0, 1]}, None),
    ],
)
def test_a_streamed_sweep_over_files_of_text_and_integer_labels_names_the_file(tmp_path, kwargs, before):
    # sorting 1 and "1" together raised a bare TypeError; skipping the file left the count failing
    good = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.3, 0.6]})
    good.write_parquet(tmp_path / "a.parquet")
    text = pl.DataFrame({"run": [3, 3], "label": ["0", "1"], "score": [0.2, 0.7]})
    text.write_parquet(tmp_path / "b.parquet")
    source = str(tmp_path / "*.parquet")
    if before is None:
        error, message = be.InvalidLabelError, "b.parquet'.*: positive=1 is not one of the classes: label "
        message += "column 'label' holds String values$"
    else:
        error = SourceError
        message = f"b.parquet': label column 'label' holds String values, where {before}; one source's labels"
    with pytest.raises(error, match=message):
        be.sweep(source, by="run", **kwargs)
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2 parts"):
        got = be.sweep(source, by="run", on_error="skip", **kwargs)
    assert got.drop("threshold").equals(be.sweep(good, by="run", **kwargs).drop("threshold"))


def _labels_of_three_kinds(tmp_path) -> tuple[list[str], list[pl.DataFrame]]:
    """Four files of one run: integer labels, then whole-valued floats (with scores thrice as
    large, so the grid is theirs), then booleans."""
    rng = np.random.default_rng(3)
    frames = []
    for _ in range(4):
        lab = rng.integers(0, 2, 40)
        frames.append(
            pl.DataFrame({"run": [0] * 40, "label": lab, "score": np.round(lab * 0.3 + rng.random(40), 2)})
        )
    frames[2] = frames[2].with_columns(pl.col("label").cast(pl.Boolean))
    frames[3] = frames[3].with_columns(pl.col("label").cast(pl.Float64), pl.col("score") * 3)
    paths = [str(tmp_path / f"p{i}.parquet") for i in range(4)]
    for frame, path in zip(frames, paths, strict=True):
        frame.write_parquet(path)
    return paths, frames


@pytest.mark.parametrize("on_error", ["raise", "skip"])
@pytest.mark.parametrize(
    "kwargs", [{"thresholds": 5}, {"thresholds": [0.5, 1.0]}, {"thresholds": 5, "positive": 1}]
)
def test_streamed_sweep_of_whole_float_and_boolean_labels_beside_integers_is_the_sweep_in_memory(
    tmp_path, on_error, kwargs
):
    # README: labels can be int, bool, string or whole-valued float. The scan skipped the float and
    # boolean files (kinds of their own) and the count counted them: the grid of two files with the
    # counts of four, skipped == [], no warning; with on_error="raise" they were refused
    paths, frames = _labels_of_three_kinds(tmp_path)
    expected = be.sweep(pl.concat(frames, how="vertical_relaxed"), by="run", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = be.sweep(paths, by="run", on_error=on_error, **kwargs)
    assert got.metadata["skipped"] == [] and got.metadata["rows"] == 160
    assert got.drop("threshold").equals(expected.drop("threshold"))
    np.testing.assert_allclose(got["threshold"].to_numpy(), expected["threshold"].to_numpy(), rtol=1e-15)


def test_streamed_evaluate_of_boolean_labels_beside_integers_is_evaluate_in_memory(tmp_path):
    paths, frames = _labels_of_three_kinds(tmp_path)
    frames = [f.with_columns(prediction=pl.col("score") > 0.5) for f in frames]
    for frame, path in zip(frames, paths, strict=True):
        frame.write_parquet(path)
    expected = be.evaluate(pl.concat(frames, how="vertical_relaxed"), by="run", measures=["accuracy"])
    assert be.evaluate(paths, by="run", measures=["accuracy"]).equals(expected)


def test_a_file_of_fractional_float_labels_is_refused_by_the_streamed_sweep_whatever_on_error(tmp_path):
    # the scan and the count refuse it alike: it is no class kind the count can read
    paths, _ = _labels_of_three_kinds(tmp_path)
    pl.DataFrame({"run": [0, 0], "label": [0.0, 0.5], "score": [0.1, 0.2]}).write_parquet(paths[3])
    message = (
        f"file {paths[3]!r}: label column 'label' is float and holds 1 non-integer value (first: 0.5); "
        "class labels must be integers, booleans or strings"
    )
    for on_error in ("raise", "skip"):
        with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
            be.sweep(paths, by="run", thresholds=5, on_error=on_error)


def test_a_file_of_whole_float_labels_beyond_int64_is_named_as_one_of_nan_labels_is(tmp_path):
    # a polars InvalidOperationError from a strict cast passed through without the file's name;
    # on_error="skip" skips neither (it skips files that cannot be read or lack a column)
    paths = [str(tmp_path / f"p{i}.parquet") for i in range(3)]
    nan = "is float and holds 1 non-integer value (first: nan); class labels must be integers, booleans or "
    nan += "strings"
    wide = "(Float64) holds 1e+19, which does not fit in int64; class labels must fit in int64, or be strings"
    for bad, what in ((float("nan"), nan), (1e19, wide)):
        for i, path in enumerate(paths):
            label = [0.0, bad if i == 1 else 1.0]
            pl.DataFrame({"run": [i, i], "label": label, "prediction": [0.0, 1.0]}).write_parquet(path)
        message = f"file {paths[1]!r}, rows 0-2: label column 'label' {what}"
        for on_error in ("raise", "skip"):
            with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
                be.evaluate(f"{tmp_path}/*.parquet", by="run", measures=["accuracy"], on_error=on_error)


def test_streamed_sweep_of_a_string_score_says_scores_must_be_numeric(tmp_path):
    df = pl.DataFrame({"run": [1, 1], "label": [0, 1], "score": ["0.2", "0.8"]})
    message = "score column 'score' has dtype String; scores must be numeric"
    with pytest.raises(be.errors.InvalidScoreError, match=f"^{message}$"):
        be.sweep(df, by="run", thresholds=3)
    with pytest.raises(be.errors.InvalidScoreError, match=f"^{message}$"):
        be.sweep(df.lazy(), by="run", thresholds=3)
    df.write_parquet(tmp_path / "a.parquet")
    for kwargs in ({"thresholds": 3}, {"thresholds": [0.5], "positive": 1}):  # with the scan and without
        with pytest.raises(be.errors.InvalidScoreError, match=f"a.parquet'.*{message}"):
            be.sweep(tmp_path / "a.parquet", by="run", **kwargs)


@pytest.mark.parametrize("kwargs", [{"thresholds": 3}, {"thresholds": [0.5], "positive": 1}])
def test_streamed_sweep_of_a_header_only_csv_adds_nothing(tmp_path, kwargs):
    # a header-only csv reads its score column as String: its first (empty) batch was refused as
    # "scores must be numeric", and skipped with on_error="skip", where evaluate reads it as no rows
    whole = scored_frame(seed=0)
    whole.write_parquet(tmp_path / "a.parquet")
    whole.head(0).write_csv(tmp_path / "b.csv")
    expected = be.sweep(whole, by="run", **kwargs)
    for on_error in ("raise", "skip"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = be.sweep(tmp_path, by="run", on_error=on_error, **kwargs)
        assert got.equals(expected)
        assert len(got.metadata["parts"]) == 2 and got.metadata["skipped"] == []
    # a source of header-only csvs alone gives the sweep's 0-row result, as evaluate gives its own;
    # a named positive is not one of its (no) labels: refused as for an empty frame in memory and a
    # streamed evaluate, where it gave 0 rows
    (tmp_path / "a.parquet").unlink()
    whole.head(0).write_csv(tmp_path / "c.csv")
    if "positive" in kwargs:
        message = re.escape("positive=1 is not one of the classes []")
        for source in (tmp_path, whole.head(0)):
            with pytest.raises(be.errors.InvalidLabelError, match=message):
                be.sweep(source, by="run", **kwargs)
        with pytest.raises(be.errors.InvalidLabelError, match=message):
            be.evaluate(tmp_path, by="run", prediction="score", positive=1)
        return
    got = be.sweep(tmp_path, by="run", **kwargs)
    assert got.height == 0 and got.columns == be.sweep(whole.head(0), by="run", thresholds=3).columns


@pytest.mark.parametrize("labels", [[0, 0], [1, 1], [False, False]])
def test_streamed_sweep_of_one_class_scores_as_in_memory(labels):
    df = pl.DataFrame({"run": [1, 1], "label": labels, "score": [0.1, 0.2]})
    got = be.sweep(df.lazy(), by="run", thresholds=3)
    assert got.equals(be.sweep(df, by="run", thresholds=3))
    # the positive class is 1 (True) whether or not a row holds it
    scores, truth = np.array([0.1, 0.2]), np.array(labels, dtype=bool)
    predicted = scores[None, :] >= np.linspace(0.1, 0.2, 3)[:, None]
    assert got["tp"].to_list() == (predicted & truth).sum(axis=1).tolist()
    assert got["fp"].to_list() == (predicted & ~truth).sum(axis=1).tolist()
    assert got["tn"].to_list() == (~predicted & ~truth).sum(axis=1).tolist()


def test_integer_key_widths_are_checked_against_what_the_files_before_combine_to(tmp_path):
    base = pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [0, 1]})
    paths = []
    for i, dtype in enumerate([pl.UInt32, pl.UInt64, pl.Int64]):
        paths.append(str(tmp_path / f"p{i}.parquet"))
        base.with_columns(pl.col("run").cast(dtype)).write_parquet(paths[-1])
    # UInt64 and Int64 combine only as Int128: the third file is named, as with those two alone
    for files in (paths, paths[1:]):
        with pytest.raises(SourceError, match=r"p2\.parquet': key column 'run' is Int64, not UInt64"):
            be.evaluate(files, by="run")
    got = be.evaluate([paths[0], paths[2]], by="run")  # UInt32 and Int64 combine as Int64
    assert got.schema["run"] == pl.Int64 and got["n"].to_list() == [2, 2]


@pytest.mark.parametrize("batch_rows", [-1, 0, 2.0, 1.5, True, "100"])
def test_batch_rows_must_be_a_count_of_rows(tmp_path, batch_rows):
    # 0 was read as the default (16M rows), -1 and 2.0 passed unchecked, 1.5 failed inside a reader
    df = scored_frame(seed=0).with_columns(prediction=(pl.col("score") > 0.5).cast(pl.Int64))
    df.write_parquet(tmp_path / "a.parquet")
    message = rf"^batch_rows= must be an integer of at least 1, got {batch_rows!r}$"
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.evaluate(tmp_path / "a.parquet", by="run", batch_rows=batch_rows)
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.sweep(tmp_path / "a.parquet", by="run", batch_rows=batch_rows)
    streamed = be.evaluate(tmp_path / "a.parquet", by="run", batch_rows=np.int64(7))
    assert streamed.equals(be.evaluate(df, by="run"))


@pytest.mark.parametrize("batch_rows", [2**64, np.uint64(2**64 - 1), 2**63])
def test_batch_rows_beyond_int64_is_refused_by_name_not_as_an_unreadable_file(tmp_path, batch_rows):
    # 2**64 passed the check, and every reader then failed: "SourceError file 'a.parquet':
    # OverflowError: int too big to convert", or with on_error="skip" every file skipped
    df = pl.DataFrame({"run": [1, 1, 2], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    df.write_parquet(tmp_path / "a.parquet")
    message = rf"^batch_rows= must be an integer of at most {2**63 - 1}, got {re.escape(repr(batch_rows))}$"
    for on_error in ("raise", "skip"):
        with pytest.raises(be.InvalidArgumentError, match=message):
            be.evaluate([tmp_path / "a.parquet"], by="run", batch_rows=batch_rows, on_error=on_error)
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.sweep(tmp_path / "a.parquet", by="run", batch_rows=batch_rows)
    out = be.evaluate(tmp_path / "a.parquet", by="run", batch_rows=2**63 - 1, measures=["accuracy"])
    assert out.select("run", "n", "accuracy").rows() == [(1, 2, 1.0), (2, 1, 0.0)]


def test_filtered_and_in_memory_pyarrow_datasets_count_as_their_rows(tmp_path):
    # a filtered dataset raised pyarrow's "Retrieving fragments of a filtered ... dataset is not
    # allowed", an in-memory one "this function needs a frame in memory, got a pyarrow dataset"
    df = _frame(seed=4, n=500)
    df.write_parquet(tmp_path / "a.parquet")
    filtered = ds.dataset(tmp_path / "a.parquet").filter(ds.field("fold") == 1)
    expected = be.evaluate(df.filter(pl.col("fold") == 1), by="run", batch_rows=64)
    assert be.evaluate(filtered, by="run", batch_rows=64).equals(expected)
    assert be.evaluate(ds.dataset(df.to_arrow()), by="run").equals(be.evaluate(df, by="run"))
    with pytest.raises(ColumnNotFoundError, match="filtered dataset: key column 'nope' not found"):
        be.evaluate(filtered, by="nope")


@pytest.mark.parametrize("kind", ["fragments", "filtered", "in-memory", "reader"])
def test_batch_rows_splits_pyarrow_datasets_and_readers(tmp_path, kind):
    # these read whole record batches and only gathered small ones: 10,000 rows in one row group
    # (or one record batch) came as one frame with batch_rows=1000
    n = 10_000
    df = pl.DataFrame(
        {"run": np.arange(n) % 7, "label": np.arange(n) % 2, "prediction": np.arange(n) % 3 % 2}
    )
    df.write_parquet(tmp_path / "a.parquet", row_group_size=n)
    table = df.to_arrow()
    source = {
        "fragments": lambda: ds.dataset(tmp_path / "a.parquet"),
        "filtered": lambda: ds.dataset(tmp_path / "a.parquet").filter(ds.field("run") >= 0),
        "in-memory": lambda: ds.dataset(table),
        "reader": lambda: pa.RecordBatchReader.from_batches(
            table.schema, table.combine_chunks().to_batches()
        ),
    }[kind]
    parts = open_parts(source(), ["run", "label", "prediction"], {"run": "key"})
    sizes = [frame.height for part in parts for frame in part.batches(1000)]
    assert sizes == [1000] * 10
    out = be.evaluate(source(), by="run", batch_rows=1000, measures=["accuracy"])
    assert (out.metadata["rows"], out.metadata["batches"]) == (n, 10)
    right = (
        df.group_by("run").agg(n=pl.len(), right=(pl.col("label") == pl.col("prediction")).sum()).sort("run")
    )
    assert out.select("run", "n").rows() == right.select("run", "n").rows()
    assert out["accuracy"].to_list() == (right["right"] / right["n"]).to_list()


def test_a_missing_file_in_a_list_is_skipped_with_on_error_skip(tmp_path):
    # it raised "cannot read ...: no such file or directory" while the parts were opened, before
    # on_error= was read, where a file that cannot be read is skipped, warned and listed
    df = _frame(seed=5, n=300).with_columns(
        pl.col("label").clip(0, 1), pl.col("prediction").clip(0, 1), score=pl.int_range(300) / 300
    )
    df.write_parquet(tmp_path / "a.parquet")
    paths = [str(tmp_path / "a.parquet"), str(tmp_path / "gone.parquet")]
    error = f"cannot read {paths[1]!r}: no such file or directory"
    with pytest.raises(SourceError, match=f"^{re.escape(error)}$"):
        be.evaluate(paths, by="run")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2 parts"):
        out = be.evaluate(paths, by="run", on_error="skip", measures=["accuracy"])
    assert out.metadata["skipped"] == [{"part": f"file {paths[1]!r}", "error": error}]
    assert out.metadata["parts"] == [f"file {paths[0]!r}"]
    right = (
        df.group_by("run").agg(n=pl.len(), right=(pl.col("label") == pl.col("prediction")).sum()).sort("run")
    )
    assert out.select("run", "n").rows() == right.select("run", "n").rows()
    assert out["accuracy"].to_list() == (right["right"] / right["n"]).to_list()
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 2 parts"):
        swept = be.sweep(paths, by="run", thresholds=[0.5], on_error="skip")
    assert swept.equals(be.sweep(df, by="run", thresholds=[0.5]))
    with pytest.raises(SourceError, match="no files match"):  # an empty glob is still an error
        be.evaluate([paths[0], str(tmp_path / "none*.parquet")], by="run", on_error="skip")


def test_classes_as_an_iterator_count_every_batch_with_them(tmp_path):
    # the first batch spent an iterator of classes and every later one was counted with
    # classes=[], a class the user never named: "file 'p1.parquet' ... outside classes=[]".
    # Each run's table here is scikit-learn's confusion matrix over the classes named.
    from sklearn.metrics import confusion_matrix

    df = _frame(5, n=400, classes=2, runs=3)
    for i in range(4):
        df[i * 100 : (i + 1) * 100].write_parquet(tmp_path / f"p{i}.parquet")
    table = be.ContingencyTable.from_frame(df, by="run", classes=[0, 1, 2])
    for run, counts in zip(table.keys["run"], table.counts, strict=True):
        rows = df.filter(pl.col("run") == run)
        np.testing.assert_array_equal(
            counts, confusion_matrix(rows["label"], rows["prediction"], labels=[0, 1, 2])
        )
    for source, kw in ((str(tmp_path / "p*.parquet"), {}), (df.lazy(), {"batch_rows": 50})):
        for spent in (iter([0, 1, 2]), (c for c in [0, 1, 2])):
            out = be.evaluate(source, by="run", classes=spent, measures=["accuracy"], **kw)
            assert out.equals(table.measures(["accuracy"]))
    scored = scored_frame(n_runs=2, seed=4)
    half = scored.height // 2
    scored[:half].write_parquet(tmp_path / "s0.parquet")
    scored[half:].write_parquet(tmp_path / "s1.parquet")
    for kw in ({}, {"positive": 1}, {"score_range": (0.0, 1.0)}):
        swept = be.sweep(str(tmp_path / "s*.parquet"), by="run", thresholds=4, classes=iter([0, 1]), **kw)
        assert swept.equals(be.sweep(scored, by="run", thresholds=4, classes=[0, 1], **kw))
    # pool= reads the classes twice, for the pooled areas and the per-fold ones
    assert be.auc(scored, by=["run", "fold"], pool="fold", classes=iter([0, 1])).equals(
        be.auc(scored, by=["run", "fold"], pool="fold", classes=[0, 1])
    )


def test_a_file_named_twice_is_refused_naming_both_entries(tmp_path):
    # a glob and a file it matches, a directory and a file in it, ./a and a, a link and its target:
    # each counted the file's rows twice (run 0 got n = 2 × its rows), the metadata listing it twice
    pieces = _late_keys_and_classes()
    folder = tmp_path / "parts"
    folder.mkdir()
    paths = _write(pieces, folder, "parquet")
    first = paths[0]
    glob = f"{folder}/*.parquet"
    link = tmp_path / "link.parquet"
    link.symlink_to(first)
    cases = [
        ([glob, first], f"{first!r} is named twice (by {glob!r} and by {first!r})"),
        ([str(folder), first], f"{first!r} is named twice (by {str(folder)!r} and by {first!r})"),
        ([first, first], f"{first!r} is named twice"),
        ([first, str(link)], f"{first!r} and {str(link)!r} are one file"),
    ]
    for source, what in cases:
        for call in (be.evaluate, lambda s, **kw: be.sweep(s, score="prediction", thresholds=3, **kw)):
            with pytest.raises(SourceError, match=f"^{re.escape(what)}; name each file once"):
                call(source, by="run")
    # a hard link is the same file too, and the command line's glob reads through the same check
    hard = tmp_path / "hard.parquet"
    os.link(first, hard)
    with pytest.raises(
        SourceError, match=f"^{re.escape(repr(first))} and {re.escape(repr(str(hard)))} are one file"
    ):
        be.evaluate([first, str(hard)], by="run")
    alias = folder / "zz_alias.parquet"
    os.symlink(first, alias)
    proc = run_cli("evaluate", glob, "--by", "run")
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"batcheval: error: {first!r} (from {glob!r}) and {str(alias)!r} (from {glob!r}) are one file; "
        "name each file once, or its rows are counted once for each time it is named"
    )
    alias.unlink()
    # each file once, in any spelling, is counted once: the frame's counts
    got = be.evaluate([f"{folder}/./part-0.parquet", *paths[1:]], by="run", measures=["accuracy"])
    assert got["n"].sum() == sum(p.height for p in pieces)
    assert got.equals(be.evaluate(pl.concat(pieces), by="run", measures=["accuracy"]))


def test_a_streamed_sweep_names_the_file_that_brings_a_third_class(tmp_path):
    # review: "label column 'label' has classes [0, 1, 2]; a score sweep needs two classes", naming no
    # file, where evaluate and sweep(classes=[0, 1]) name it
    first, second = tmp_path / "a0.parquet", tmp_path / "b1.parquet"
    pl.DataFrame({"run": [0] * 4, "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.2, 0.8]}).write_parquet(first)
    pl.DataFrame({"run": [1] * 4, "label": [0, 1, 2, 1], "score": [0.1, 0.9, 0.2, 0.8]}).write_parquet(second)
    message = (f"file {str(second)!r}: label column 'label' has classes [0, 1, 2]; a score sweep needs two "
               "classes, or name the class to score with positive=")  # fmt: skip
    for batch_rows in (3, 1000):
        with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
            be.sweep([first, second], by="run", thresholds=3, batch_rows=batch_rows)
    # with the class to score named, the same files sweep as the frame does
    got = be.sweep([first, second], by="run", thresholds=3, positive=1)
    frame = pl.concat([pl.read_parquet(first), pl.read_parquet(second)])
    assert got.equals(be.sweep(frame, by="run", thresholds=3, positive=1))
