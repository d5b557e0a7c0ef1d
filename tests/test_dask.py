"""The Dask engine on a real LocalCluster: identical results, survives a killed worker."""

from __future__ import annotations

import functools
import os
import re
import threading
import time

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.core.distributed import tree_reduce
from batcheval.errors import ColumnNotFoundError, SourceError

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="session")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as c:
        yield c


def _pieces(n_files: int, rows: int, seed: int = 0) -> list[pl.DataFrame]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_files):
        out.append(
            pl.DataFrame(
                {
                    "run": rng.integers(0, 50, rows) + 10 * i,  # later files bring new runs
                    "fold": rng.integers(0, 5, rows),
                    "label": rng.integers(0, 3 if i else 2, rows),  # and a new class
                    "prediction": rng.integers(0, 3, rows),
                    "score": rng.random(rows),
                }
            )
        )
    return out


def _write(pieces: list[pl.DataFrame], directory) -> list[str]:
    paths = []
    for i, piece in enumerate(pieces):
        path = directory / f"part-{i:03d}.parquet"
        piece.write_parquet(path)
        paths.append(str(path))
    return paths


def test_paths_and_dask_frames_equal_one_process(client, tmp_path):
    pieces = _pieces(11, 2000)
    _write(pieces, tmp_path)
    whole = pl.concat(pieces)
    expected = be.evaluate(whole, by=["run", "fold"], pool="fold")
    got = be.evaluate(f"{tmp_path}/*.parquet", by=["run", "fold"], pool="fold", engine="dask", client=client)
    assert got.equals(expected)
    assert got.metadata["rows"] == whole.height and len(got.metadata["parts"]) == 11

    frame = dd.read_parquet(str(tmp_path), columns=["run", "fold", "label", "prediction"])
    via_frame = be.evaluate(frame, by=["run", "fold"], pool="fold", engine="dask", client=client)
    assert via_frame.equals(expected)


def test_sweep_on_the_cluster(client, tmp_path):
    pieces = [p.with_columns((pl.col("label") == 1).alias("label")) for p in _pieces(5, 1500, seed=1)]
    paths = _write(pieces, tmp_path)
    expected = be.sweep(pl.concat(pieces), by="run", thresholds=21)
    assert be.sweep(paths, by="run", thresholds=21, engine="dask", client=client).equals(expected)


def test_unreadable_fragment_same_error_as_one_machine(client, tmp_path):
    paths = _write(_pieces(3, 500), tmp_path)
    with open(paths[1], "wb") as f:
        f.write(b"PAR1 garbage")
    with pytest.raises(SourceError) as local:
        be.evaluate(paths, by="run")
    with pytest.raises(SourceError) as remote:
        be.evaluate(paths, by="run", engine="dask", client=client)
    assert str(remote.value) == str(local.value)
    assert "part-001.parquet" in str(remote.value)

    pl.DataFrame({"run": [1]}).write_parquet(paths[2])
    with pytest.raises(ColumnNotFoundError, match=r"part-002\.parquet'.*label column 'label' not found"):
        be.evaluate(paths[2:], by="run", engine="dask", client=client)

    with pytest.warns(be.BatchevalWarning, match="skipped 2 of 3"):
        out = be.evaluate(paths, by="run", engine="dask", client=client, on_error="skip")
    assert out.equals(be.evaluate(paths[0], by="run"))
    assert len(out.metadata["skipped"]) == 2


def test_killed_worker_job_still_completes(client, tmp_path):
    pieces = _pieces(12, 8000, seed=2)
    paths = _write(pieces, tmp_path)
    expected = be.evaluate(pl.concat(pieces), by=["run", "fold"])
    killed: list[str] = []

    def kill_one_worker_mid_job() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until tasks are running, then kill one worker
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                killed.append(busy[0])
                try:
                    client.run(os._exit, 1, workers=[busy[0]], wait=False)
                except Exception:
                    pass
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one_worker_mid_job)
    killer.start()
    # small batches make each file a few hundred milliseconds of work
    got = be.evaluate(paths, by=["run", "fold"], engine="dask", client=client, batch_rows=400)
    killer.join()
    assert killed, "no worker was busy, so none was killed"
    assert got.equals(expected)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the other tests


def test_sweep_without_a_client_starts_one_cluster_for_both_passes(tmp_path, monkeypatch):
    pieces = [p.with_columns((pl.col("label") == 1).alias("label")) for p in _pieces(3, 500, seed=2)]
    paths = _write(pieces, tmp_path)
    started = []

    def no_default() -> None:
        raise ValueError("no default client")

    def threaded_cluster(**kwargs):
        started.append(kwargs)
        # a thread cluster starts in well under a second; the test is about how many start
        return real_cluster(n_workers=1, processes=False, dashboard_address=None)

    real_cluster = distributed.LocalCluster
    monkeypatch.setattr(distributed, "default_client", no_default)
    monkeypatch.setattr(distributed, "LocalCluster", threaded_cluster)
    # an int T needs the score range first: a scan pass, then the counting pass
    got = be.sweep(paths, by="run", thresholds=11, engine="dask")
    assert got.equals(be.sweep(pl.concat(pieces), by="run", thresholds=11))
    assert len(started) == 1


def test_missing_dask_client_errors_are_clear():
    with pytest.raises(ValueError, match="engine must be 'local' or 'dask'"):
        be.evaluate(pl.DataFrame({"label": [1], "prediction": [1]}), engine="spark")


def test_key_type_change_between_files_is_named_on_the_cluster(client, tmp_path):
    paths = _write(_pieces(2, 300), tmp_path)
    pl.read_parquet(paths[1]).with_columns(pl.col("run").cast(pl.String)).write_parquet(paths[1])
    with pytest.raises(SourceError, match=r"part-001\.parquet': key column 'run' is String, not Int64"):
        be.evaluate(paths, by="run", engine="dask", client=client)
    with pytest.raises(be.InvalidArgumentError, match="split_every must be at least 2, got 1"):
        tree_reduce(client, [1, 2], split_every=1)


def test_a_reduction_of_no_leaves_is_a_batcheval_error():
    # a raw ValueError("nothing to reduce: the source has no parts") before
    with pytest.raises(
        be.InvalidArgumentError, match=r"^leaves must hold at least one partial to reduce, got none$"
    ):
        tree_reduce(None, [])


@pytest.mark.parametrize("kind", ["polars", "pandas", "lazy", "arrow", "dict"])
def test_a_frame_in_memory_on_the_dask_engine_is_refused_by_name(kind):
    # such a frame used to be iterated as a list of paths: "cannot read 'run'" or a TypeError
    df = pl.DataFrame({"run": [1, 1, 2], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    data = {"polars": df, "pandas": df.to_pandas(), "lazy": df.lazy(), "arrow": df.to_arrow(),
            "dict": df.to_dict(as_series=False)}[kind]  # fmt: skip
    with pytest.raises(be.InvalidArgumentError, match=r"engine='dask' reads paths.*engine='local'"):
        be.evaluate(data, by="run", engine="dask")
    with pytest.raises(be.InvalidArgumentError, match=r"engine='dask' reads paths"):
        be.sweep(data.with_columns(score=pl.lit(0.5)) if kind == "polars" else data, by="run", engine="dask")


def test_a_named_positive_the_labels_lack_is_refused_on_the_cluster(client, tmp_path):
    paths = _write(_pieces(3, 200)[:1], tmp_path)  # the first piece holds classes 0 and 1 only
    with pytest.raises(be.InvalidLabelError, match=r"positive=7 is not one of the classes \[0, 1\]"):
        be.sweep(paths, by="run", positive=7, thresholds=[0.5], engine="dask", client=client)


def test_a_file_fixed_after_an_error_is_read_again_on_the_cluster(client, tmp_path):
    # the task's key was the path alone, so the cluster gave back the first call's error
    good = pl.DataFrame({"run": [1, 1, 2], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    good.write_parquet(tmp_path / "a.parquet")
    good.drop("run").write_parquet(tmp_path / "b.parquet")
    glob = str(tmp_path / "*.parquet")
    with pytest.raises(ColumnNotFoundError, match=r"b\.parquet': key column 'run' not found"):
        be.evaluate(glob, by="run", measures=["accuracy"], engine="dask", client=client)
    good.write_parquet(tmp_path / "b.parquet")
    got = be.evaluate(glob, by="run", measures=["accuracy"], engine="dask", client=client)
    # both files: run 1 has 4 of 4 right, run 2 0 of 2
    assert got.select("run", "n", "accuracy").rows() == [(1, 4, 1.0), (2, 2, 0.0)]


def test_dask_skips_a_file_of_another_key_type_as_one_process_does(client, tmp_path):
    paths = _write(_pieces(3, 300), tmp_path)
    pl.read_parquet(paths[1]).with_columns(pl.col("run").cast(pl.String)).write_parquet(paths[1])
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 3 parts"):
        local = be.evaluate(paths, by="run", on_error="skip")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 3 parts"):
        got = be.evaluate(paths, by="run", on_error="skip", engine="dask", client=client)
    expected = be.evaluate(pl.concat([pl.read_parquet(paths[0]), pl.read_parquet(paths[2])]), by="run")
    assert got.equals(expected) and local.equals(expected)
    assert [s["part"] for s in got.metadata["skipped"]] == [f"file {paths[1]!r}"]
    assert "key column 'run' is String, not Int64" in got.metadata["skipped"][0]["error"]


def test_dask_frame_partitions_are_numbered(client):
    pdf = pl.concat(_pieces(3, 100)).to_pandas()
    out = be.evaluate(dd.from_pandas(pdf, npartitions=3, sort=False), by="run", engine="dask", client=client)
    assert out.metadata["parts"] == ["partition 0", "partition 1", "partition 2"]
    bad = dd.from_pandas(pdf.drop(columns="fold"), npartitions=2, sort=False)
    with pytest.raises(ColumnNotFoundError, match=r"^partition [01]: key column 'fold' not found"):
        be.evaluate(bad, by="fold", engine="dask", client=client)


@pytest.mark.parametrize("api", ["evaluate", "sweep"])
def test_dask_skips_only_the_bad_file_when_it_leads_a_merge_group(client, tmp_path, api):
    # 10 files merge 8 at a time; file 8 led the second group, and its group was checked against
    # it, so file 9 was skipped too
    pieces = [p.with_columns((pl.col("label") == 1).alias("label")) for p in _pieces(10, 200, seed=2)]
    paths = _write(pieces, tmp_path)
    pl.read_parquet(paths[8]).with_columns(pl.col("run").cast(pl.String)).write_parquet(paths[8])
    run = be.evaluate if api == "evaluate" else functools.partial(be.sweep, thresholds=[0.25, 0.5])
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 10 parts"):
        local = run(paths, by="run", on_error="skip")
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 10 parts"):
        got = run(paths, by="run", on_error="skip", engine="dask", client=client)
    assert got.equals(local)
    assert {k: got.metadata[k] for k in ("parts", "rows", "skipped")} == {
        k: local.metadata[k] for k in ("parts", "rows", "skipped")
    }
    assert [s["part"] for s in got.metadata["skipped"]] == [f"file {paths[8]!r}"]
    assert "key column 'run' is String, not Int64" in got.metadata["skipped"][0]["error"]
    good = pl.concat(pieces[:8] + pieces[9:])
    n = good.group_by("run").len().sort("run")
    counted = got.filter(pl.col("threshold") == 0.5) if api == "sweep" else got
    assert counted.sort("run").select("run", "n").rows() == n.rows()


def test_dask_blames_the_file_the_local_engine_blames_when_it_leads_a_merge_group(client, tmp_path):
    # 10 files merge 8 at a time; file 8 (String runs) led the second group, whose check then
    # blamed file 9 ("is Int64, not String"), where one process names file 8
    paths = _write(_pieces(10, 50, seed=3), tmp_path)
    pl.read_parquet(paths[8]).with_columns(pl.col("run").cast(pl.String)).write_parquet(paths[8])
    expected = f"file {paths[8]!r}: key column 'run' is String, not Int64 as in the parts before it"
    with pytest.raises(SourceError) as local:
        be.evaluate(paths, by="run")
    with pytest.raises(SourceError) as got:
        be.evaluate(paths, by="run", engine="dask", client=client)
    assert str(got.value) == str(local.value) == expected


def test_dask_skips_a_missing_file_in_a_list_as_one_process_does(client, tmp_path):
    # the list was resolved before any task ran, raising "no such file or directory" even with skip
    paths = _write(_pieces(2, 100, seed=4), tmp_path)
    paths.insert(1, str(tmp_path / "gone.parquet"))
    error = f"cannot read {paths[1]!r}: no such file or directory"
    with pytest.raises(SourceError, match=f"^{re.escape(error)}$"):
        be.evaluate(paths, by="run", engine="dask", client=client)
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 3 parts"):
        got = be.evaluate(paths, by="run", on_error="skip", engine="dask", client=client)
    assert got.metadata["skipped"] == [{"part": f"file {paths[1]!r}", "error": error}]
    expected = be.evaluate(pl.concat([pl.read_parquet(paths[0]), pl.read_parquet(paths[2])]), by="run")
    assert got.equals(expected)


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_dask_sweep_of_whole_float_and_boolean_labels_beside_integers_is_the_sweep_in_memory(
    client, tmp_path, on_error
):
    # the scan skipped the float and boolean files, the count counted them (one grid, other counts)
    pieces = [p.select("run", "label", "score") for p in _pieces(3, 200, seed=4)]
    pieces = [p.with_columns(pl.col("label").clip(0, 1)) for p in pieces]
    pieces[1] = pieces[1].with_columns(pl.col("label").cast(pl.Boolean))
    pieces[2] = pieces[2].with_columns(pl.col("label").cast(pl.Float64), pl.col("score") * 3)
    paths = _write(pieces, tmp_path)
    expected = be.sweep(pl.concat(pieces, how="vertical_relaxed"), by="run", thresholds=5)
    got = be.sweep(paths, by="run", thresholds=5, on_error=on_error, engine="dask", client=client)
    assert got.metadata["skipped"] == []
    assert got.drop("threshold").equals(expected.drop("threshold"))
    np.testing.assert_allclose(got["threshold"].to_numpy(), expected["threshold"].to_numpy(), rtol=1e-15)


@pytest.mark.parametrize("api", ["evaluate", "sweep"])
def test_dask_warns_once_of_the_rows_dropped_over_all_files_and_records_them(client, tmp_path, api):
    # a streamed sweep warned per batch on the workers: the client saw no warning, the metadata no count
    fold0 = pl.col("fold") == 0
    pieces = [
        p.with_columns(
            pl.col("label").clip(0, 1),  # two classes, for the sweep's default positive
            score=pl.when(fold0).then(None).otherwise("score"),
            prediction=pl.when(fold0).then(None).otherwise("prediction"),
        )
        for p in _pieces(3, 200)
    ]
    paths = _write(pieces, tmp_path)
    nulls = pl.concat(pieces).get_column("score").null_count()
    run = be.evaluate if api == "evaluate" else functools.partial(be.sweep, thresholds=[0.5])
    what = "'label' or 'prediction'" if api == "evaluate" else "'score' or 'label'"
    with pytest.warns(be.BatchevalWarning) as caught:
        got = run(paths, by="run", drop_nulls=True, engine="dask", client=client)
    assert [str(w.message) for w in caught] == [f"dropped {nulls} of 600 rows with a null {what}"]
    assert got.metadata["dropped"] == nulls and got.metadata["rows"] == 600
    with pytest.warns(be.BatchevalWarning):
        assert got.equals(run(paths, by="run", drop_nulls=True))


@pytest.mark.parametrize("api", ["evaluate", "sweep"])
def test_dask_counts_a_file_whose_key_is_all_null_beside_typed_ones(client, tmp_path, api):
    typed = pl.DataFrame({"run": [0, 1, 0, 1], "fold": [0, 0, 1, 1], "label": [0, 1, 1, 0]})
    typed = typed.with_columns(prediction=pl.Series([0, 1, 0, 0]), score=pl.Series([0.1, 0.9, 0.4, 0.3]))
    nulls = pl.DataFrame(
        {"run": [0, 1], "fold": [None, None], "label": [1, 1], "prediction": [1, 0], "score": [0.6, 0.2]}
    )
    pieces = [nulls, typed, nulls]
    paths = _write(pieces, tmp_path)
    run = be.evaluate if api == "evaluate" else functools.partial(be.sweep, thresholds=3)
    expected = run(pl.concat(pieces, how="vertical_relaxed"), by=["run", "fold"])
    assert run(paths, by=["run", "fold"], engine="dask", client=client).equals(expected)
    # as csv files, whose empty fold polars reads as String, not Null
    csvs = [str(tmp_path / f"part-{i}.csv") for i in range(len(pieces))]
    for piece, path in zip(pieces, csvs, strict=True):
        piece.write_csv(path)
    assert run(csvs, by=["run", "fold"], engine="dask", client=client).equals(expected)


def test_classes_as_an_iterator_or_a_generator_count_every_part_on_the_cluster(client, tmp_path):
    # the leaves shared one iterator, which the first spent ("outside classes=[]", blaming a good
    # file), and a generator could not be sent to the workers at all (a raw TypeError)
    pieces = _pieces(3, 300, seed=2)
    _write(pieces, tmp_path)
    whole = pl.concat(pieces)
    expected = be.evaluate(whole, by="run", classes=[0, 1, 2, 3], measures=["accuracy"])
    assert expected["n"].sum() == whole.height
    for spent in (iter([0, 1, 2, 3]), (c for c in [0, 1, 2, 3])):
        got = be.evaluate(f"{tmp_path}/*.parquet", by="run", classes=spent, measures=["accuracy"],
                          engine="dask", client=client)  # fmt: skip
        assert got.equals(expected)
    table = be.ContingencyTable.from_frame(whole, classes=[0, 1, 2, 3])
    assert table.classes.to_list() == [0, 1, 2, 3] and table.counts[0, 3].sum() == 0


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_dask_sweep_of_a_header_only_csv_adds_nothing(client, tmp_path, on_error):
    # its score column reads as String: the scan refused it ("scores must be numeric"), or skipped it
    piece = _pieces(1, 300, seed=5)[0].with_columns(pl.col("label").clip(0, 1))
    piece.write_parquet(tmp_path / "a.parquet")
    piece.head(0).write_csv(tmp_path / "b.csv")
    expected = be.sweep(piece, by="run", thresholds=5)
    got = be.sweep(str(tmp_path), by="run", thresholds=5, on_error=on_error, engine="dask", client=client)
    assert got.equals(expected) and got.metadata["skipped"] == []


_ADDRESS = "; connect to a scheduler's address with distributed.Client(address)"


@pytest.mark.parametrize("api", ["evaluate", "sweep"])
@pytest.mark.parametrize(
    ("given", "shown"),
    [("tcp://127.0.0.1:8786", "a str ('tcp://127.0.0.1:8786')" + _ADDRESS), (42, "an int (42)")],
    ids=["address", "number"],
)
def test_a_client_that_is_not_a_dask_client_is_refused_by_name(client, tmp_path, api, given, shown):
    # a scheduler's address or a number raised "'str' object has no attribute 'compute'" (or
    # 'gather', in the sweep's scan), and engine="local" ignored any client silently
    paths = _write(_pieces(2, 50), tmp_path)
    run = be.evaluate if api == "evaluate" else functools.partial(be.sweep, thresholds=3, positive=1)
    message = f"client= must be a distributed.Client or None, got {shown}"
    with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        run(paths, by="run", engine="dask", client=given)
    local = "with engine='local'; pass engine='dask' to count on its cluster, or leave out client="
    message = f"client= is for engine='dask', got {shown.removesuffix(_ADDRESS)} {local}"
    with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        run(paths, by="run", client=given)
    pattern = rf"^client= is for engine='dask', got a Client \(<Client: .*\) {re.escape(local)}$"
    with pytest.raises(be.InvalidArgumentError, match=pattern):  # a client, but not for this engine
        run(paths, by="run", client=client)
