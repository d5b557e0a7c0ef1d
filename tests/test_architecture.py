"""The package's import graph keeps the stages of docs/architecture.md: no cycles, no upward import.

Every ``import`` in the package is read from its syntax tree, including the ones inside
functions (a lazy import is still a dependency), and resolved to the module it names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "batcheval"

#: Rank of each top-level part of the package, lowest first. A module may import its own
#: subpackage and anything of a strictly lower rank; the table must match docs/architecture.md.
STAGES: dict[str, int] = {
    "errors": 0,
    "kernels": 0,
    "measures": 1,
    "io": 1,
    "core": 2,
    "labels": 3,
    "scores": 3,
    "inference": 4,
    "evaluate": 5,
    "plot": 6,
    "examples": 7,
    "cli": 8,
    "table": 9,  # the 0.1 pickle path, re-exporting core.table
    "__main__": 9,
    "": 9,  # batcheval/__init__.py: the public API
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package(name: str) -> bool:
    return (ROOT.parent / name.replace(".", "/") / "__init__.py").exists()


def is_module(name: str) -> bool:
    return is_package(name) or (ROOT.parent / (name.replace(".", "/") + ".py")).exists()


def imports_of(path: Path, source: str | None = None) -> set[str]:
    """The batcheval modules that ``path`` (or ``source`` read as if it were there) imports."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "batcheval")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "batcheval":
                continue
            for alias in node.names:  # ``from pkg import submodule`` imports the submodule
                sub = f"{target}.{alias.name}"
                found.add(sub if is_module(sub) else target)
    found.discard(name)
    return found


def stage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(ROOT.rglob("*.py"))}


def test_every_top_level_part_has_a_stage():
    parts = {stage(m) for m in graph()}
    assert parts <= set(STAGES), f"no stage for {sorted(parts - set(STAGES))}: add it here and to docs"


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    upward = []
    for name, targets in edges.items():
        for target in targets:
            mine, theirs = stage(name), stage(target)
            if theirs in ("", mine):
                continue
            if STAGES[theirs] >= STAGES[mine]:
                rank = f"rank {STAGES[theirs]}"
                upward.append(f"{name} ({mine}, rank {STAGES[mine]}) imports {target} ({rank})")
    return upward


def test_no_module_imports_a_higher_or_sibling_stage():
    upward = upward_imports(graph())
    assert not upward, "\n".join(upward)


def test_the_stage_check_finds_planted_upward_and_sibling_imports():
    edges = {
        "batcheval.core.table": {"batcheval.measures", "batcheval.plot.charts"},
        "batcheval.scores.auc": {"batcheval.labels.align", "batcheval.scores.exact"},
    }
    assert upward_imports(edges) == [
        "batcheval.core.table (core, rank 2) imports batcheval.plot.charts (rank 6)",
        "batcheval.scores.auc (scores, rank 3) imports batcheval.labels.align (rank 3)",
    ]


def test_only_the_kernels_import_numba():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if "kernels" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n.split(".")[0] == "numba" for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``edges`` as a list of modules, or None (iterative DFS, three colours)."""
    colour = dict.fromkeys(edges, 0)
    for start, children in edges.items():
        if colour[start]:
            continue
        stack = [(start, iter(sorted(children)))]
        path = [start]
        colour[start] = 1
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif child in edges and colour[child] == 1:
                return [*path[path.index(child) :], child]
            elif child in edges and colour[child] == 0:
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges[child]))))
    return None


def test_the_package_has_no_import_cycle():
    edges = graph()
    # a package imports what its __init__ names; a submodule does not import its parent package
    for name in edges:
        edges[name] = {t for t in edges[name] if not name.startswith(t + ".")}
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])


def test_the_cycle_finder_finds_a_planted_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(edges) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("from ..core.table import ContingencyTable", "batcheval/scores/sweep.py", {"batcheval.core.table"}),
        ("from .. import measures", "batcheval/scores/sweep.py", {"batcheval.measures"}),
        ("from . import exact", "batcheval/scores/sweep.py", {"batcheval.scores.exact"}),
        ("def f():\n    from ..plot import plot\n", "batcheval/inference/x.py", {"batcheval.plot"}),
    ],
)
def test_imports_are_resolved_as_python_resolves_them(source, module, expected):
    assert imports_of(ROOT.parent / module, source) == expected


def test_tables_pickled_by_0_1_still_load():
    """tests/data/table_v0.1.0.pkl was written by batcheval 0.1.0, where the class lived in
    batcheval.table; it must load as today's table with the counts of the same frame."""
    import pickle

    import polars as pl

    import batcheval as be

    with open(Path(__file__).parent / "data" / "table_v0.1.0.pkl", "rb") as fh:
        old = pickle.load(fh)
    df = pl.DataFrame(
        {
            "run": [1, 1, 1, 2, 2, 2, 2],
            "fold": ["a", "b", "a", "a", "b", "b", "a"],
            "label": [0, 1, 1, 0, 1, 0, 1],
            "prediction": [0, 1, 0, 1, 1, 0, 1],
        }
    )
    assert isinstance(old, be.ContingencyTable)
    assert old.equals(be.ContingencyTable.from_frame(df, by=["run", "fold"], classes=[0, 1]))
    assert b"batcheval.table" not in pickle.dumps(old)  # new pickles name the public path
    assert pickle.loads(pickle.dumps(old)).equals(old)
