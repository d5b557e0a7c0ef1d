"""The Dask engine: workers count their fragments, partials merge in a tree.

Each file (or partition of a ``dask.dataframe.DataFrame``) is one task that
reads its rows with polars and counts them with the same numba kernels as
the single-process path, returning a partial :class:`ContingencyTable`.
Partials are merged ``split_every`` at a time up a tree, and the measures are
computed once, on the client, from the final table. Because a task is a function
of its fragment alone, Dask can rerun it on another worker when one dies.

Dask is an optional extra (``pip install 'batcheval[dask]'``), imported only
when ``engine="dask"`` is asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..errors import InvalidArgumentError, SourceError
from ..io.frames import shown_value
from ..io.sources import NamedFrame, is_path_spec, resolve_paths
from .stream import PartTypes, SourceReport, check_part_types, check_types, combine, count_source
from .table import ContingencyTable

__all__ = [
    "check_client",
    "check_dask_input",
    "count_dask",
    "leaves_for",
    "reduce_on_cluster",
    "tree_reduce",
    "with_client",
]

Partial = tuple[ContingencyTable | None, SourceReport]
_SPLIT_EVERY = 8


def _dask() -> Any:
    try:
        import dask
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "engine='dask' needs Dask's distributed scheduler: pip install 'batcheval[dask]'"
        ) from exc
    return dask, distributed


def _merge_partials(*partials: Partial) -> Partial:
    """One partial of several, raising on a partial whose key types disagree with the ones before
    it (with ``on_error="skip"`` such leaves were already left out, in part order)."""
    reports = [r for _, r in partials]
    # an empty part's types (a header-only csv reads as String) say nothing about the rest
    full = [(t, r) for t, r in partials if t is not None and len(t)]
    full = full or [(t, r) for t, r in partials if t is not None][:1]
    types = None
    for t, r in full:
        types = check_types(", ".join(r.parts), t, types)
    report = functools.reduce(lambda a, b: a + b, reports)
    return (combine([t for t, _ in full]) if full else None), report


def tree_reduce(
    client: Any,
    leaves: list[Any],
    split_every: int = _SPLIT_EVERY,
    on_error: Literal["raise", "skip"] = "raise",
) -> Partial:
    """Merge delayed partials ``split_every`` at a time, on the cluster, and fetch the root. The
    leaves' key types are first checked in part order, as the local engine reads its files: with
    ``on_error="skip"`` a leaf that disagrees with the ones before it is left out, otherwise the
    first such leaf's error is raised (a merge group alone would blame a good neighbour of a bad
    part that leads it)."""
    dask, _ = _dask()
    if split_every < 2:
        raise InvalidArgumentError(f"split_every must be at least 2, got {split_every!r}")
    if not leaves:
        raise InvalidArgumentError("leaves must hold at least one partial to reduce, got none")
    if len(leaves) > 1:
        # the merges then raise: the leaves left agree in order, as the local engine found, so a
        # merge that still fails is a defect to show, not a part to drop
        leaves = _skip_disagreeing(client, leaves, on_error)
    merge = dask.delayed(_merge_partials, pure=True)
    level = leaves
    while len(level) > 1:
        level = [merge(*level[i : i + split_every]) for i in range(0, len(level), split_every)]
    return client.compute(level[0]).result()


Signature = tuple[tuple[PartTypes, str] | None, SourceReport]


def _signature(partial: Partial) -> Signature:
    """A leaf's key schema, class kind and class dtype (None for no rows), with its report: all
    the driver needs to check it against the leaves before it, without fetching its table."""
    table, report = partial
    if table is None or not len(table):
        return None, report
    return (check_types("", table, None), str(table.classes.dtype)), report


def _skip_disagreeing(
    client: Any, leaves: list[Any], on_error: Literal["raise", "skip"] = "skip"
) -> list[Any]:
    """``leaves`` with each one whose key types disagree with what the leaves before it combine
    to replaced by its report, its parts skipped, as the local engine checks its files in order;
    with ``on_error="raise"`` the first such leaf's error is raised instead.

    A merge group alone cannot decide this: a bad part first in its group would make its good
    neighbours look bad. So the leaves are kept on the cluster and only their types fetched.
    """
    dask, _ = _dask()
    leaves = client.persist(leaves)
    signature = dask.delayed(_signature, pure=True)
    signatures = client.gather(client.compute([signature(leaf) for leaf in leaves]))
    types: PartTypes | None = None
    out = []
    for leaf, (mine, report) in zip(leaves, signatures, strict=True):
        if mine is not None:
            try:
                types = check_part_types(", ".join(report.parts), mine[0], types, mine[1])
            except SourceError as exc:
                if on_error == "raise":
                    raise
                error = str(exc)
                skipped = report.skipped + [{"part": p, "error": error} for p in report.parts]
                out.append(dask.delayed((None, SourceReport(skipped=skipped)), pure=True))
                continue
        out.append(leaf)
    return out


def _count_part(part: Any, **kwargs: Any) -> Partial:
    return count_source(part, progress=False, warn=False, **kwargs)


def with_client(client: Any, work: Callable[[Any], Any]) -> Any:
    """Run ``work(client)`` on the given client, the default one, or a new LocalCluster."""
    _, distributed = _dask()
    if client is None:
        try:
            client = distributed.default_client()
        except ValueError:
            with distributed.LocalCluster(processes=True) as cluster, distributed.Client(cluster) as own:
                return work(own)
    return work(client)


def check_client(client: Any, engine: str) -> None:
    """Refuse a ``client=`` that is not a ``distributed.Client``, or one given to ``engine="local"``,
    which does not use it; ``distributed`` is imported only when a client is given.

    Examples
    --------
    >>> check_client(None, "dask")
    >>> check_client(42, "local")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: client= is for engine='dask', got an int (42) with engine=...
    """
    if client is None:
        return
    if engine != "dask":
        raise InvalidArgumentError(
            f"client= is for engine='dask', got {shown_value(client)} with engine={engine!r}; pass "
            "engine='dask' to count on its cluster, or leave out client="
        )
    try:
        import distributed
    except ImportError:  # no Client exists without it: whatever was given is not one
        distributed = None
    if distributed is None or not isinstance(client, distributed.Client):
        address = isinstance(client, str)
        hint = "; connect to a scheduler's address with distributed.Client(address)" if address else ""
        raise InvalidArgumentError(
            f"client= must be a distributed.Client or None, got {shown_value(client)}{hint}"
        )


def check_dask_input(data: Any) -> None:
    """Refuse a source the Dask engine cannot read: called before a cluster is started for it,
    whose spawned processes re-run the caller's script.

    Examples
    --------
    >>> check_dask_input(["a.parquet"])
    >>> check_dask_input({"label": [1]})
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: engine='dask' reads paths, a glob or a dask.dataframe.DataFrame...
    """
    if _is_dask_frame(data):
        return
    if isinstance(data, list | tuple) and not data:
        raise InvalidArgumentError("engine='dask' got an empty list of paths: name at least one file or glob")
    if not is_path_spec(data):
        # a frame in memory would otherwise be read as a list of paths, one per column name
        kind = f"{type(data).__module__.split('.')[0]}.{type(data).__name__}"
        raise InvalidArgumentError(
            f"engine='dask' reads paths, a glob or a dask.dataframe.DataFrame, got a {kind}; "
            "count a frame in memory with engine='local'"
        )


def leaves_for(data: Any, leaf: Callable[[Any], Any]) -> list[Any]:
    """One delayed ``leaf(part)`` per file of a path spec, or per partition of a Dask DataFrame."""
    check_dask_input(data)
    dask, _ = _dask()
    if _is_dask_frame(data):
        # numbered: "partition" alone, in an error or metadata["skipped"], would not say which
        return [
            dask.delayed(_on_partition, pure=False)(leaf, f"partition {i}", p)
            for i, p in enumerate(data.to_delayed())
        ]
    # pure=False: a key of the path alone would be one the cluster already holds the result of,
    # and a file the user has fixed since would still give its old error
    # keep_missing: a named file that is absent fails in its task, where on_error="skip" leaves it out
    return [dask.delayed(leaf, pure=False)(str(p)) for p in resolve_paths(data, keep_missing=True)]


def _is_dask_frame(data: Any) -> bool:
    return hasattr(data, "to_delayed") and hasattr(data, "npartitions")


def _on_partition(leaf: Callable[[Any], Any], name: str, frame: Any) -> Any:
    return leaf(NamedFrame(name, frame))


def count_dask(
    data: Any,
    by: Sequence[str],
    label: str,
    prediction: str,
    *,
    classes: Sequence[Any] | None,
    drop_nulls: bool,
    on_error: Literal["raise", "skip"],
    batch_rows: int | None,
    client: Any,
    split_every: int = _SPLIT_EVERY,
) -> tuple[ContingencyTable, SourceReport]:
    """Count ``data`` (paths, a glob, or a ``dask.dataframe.DataFrame``) on a Dask cluster."""
    by = list(by)
    leaf = functools.partial(_count_part, by=by, label=label, prediction=prediction, classes=classes,
                             drop_nulls=drop_nulls, on_error=on_error, batch_rows=batch_rows)  # fmt: skip
    return reduce_on_cluster(data, leaf, client, split_every, on_error=on_error)


def reduce_on_cluster(
    data: Any,
    leaf: Callable[[Any], Partial],
    client: Any,
    split_every: int = _SPLIT_EVERY,
    *,
    on_error: Literal["raise", "skip"] = "raise",
) -> tuple[ContingencyTable, SourceReport]:
    """``leaf`` on every part as a task, partials merged in a tree, warnings raised here."""
    leaves = leaves_for(data, leaf)
    table, report = with_client(client, lambda c: tree_reduce(c, leaves, split_every, on_error))
    report.check_not_empty()
    report.warn()
    assert table is not None
    return table, report
