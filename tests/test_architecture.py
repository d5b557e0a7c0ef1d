"""The package's import graph keeps the stages of docs/architecture.md: no cycles, no upward import.

Every ``import`` in the package is read from its syntax tree, including the ones inside
functions (a lazy import is still a dependency), and resolved to the module it names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "batcheval"

#: Rank of each top-level part of the package, lowest first. A module may import its own
#: subpackage and anything of a strictly lower rank; the table must match docs/architecture.md.
STAGES: dict[str, int] = {
    "errors": 0,
    "_version": 0,  # __version__, for the root and the cli alike
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


def shadowed(package: str) -> set[str]:
    """Names that ``package``'s ``__init__`` binds to something other than its submodule of that
    name: ``from .evaluate import evaluate`` makes ``from batcheval import evaluate`` the root's
    function, not the module ``batcheval.evaluate``."""
    init = ROOT.parent / package.replace(".", "/") / "__init__.py"
    if not init.exists():
        return set()
    names: set[str] = set()
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name
                # ``from . import x`` binds the submodule x itself
                if not (node.level == 1 and node.module is None and alias.name == bound):
                    names.add(bound)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def resolve(name: str, package: str) -> str:
    """``name`` as ``importlib.import_module(name, package)`` reads it (leading dots: relative)."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    base = package.split(".")[: len(package.split(".")) - (level - 1)]
    return ".".join(base + ([name[level:]] if name[level:] else []))


def dynamic_import(node: ast.AST, package: str) -> str | None:
    """The module that a call ``importlib.import_module("m")``, ``import_module("m", pkg)`` or
    ``__import__("m")`` imports, when ``m`` (and ``pkg``) are constant strings; else None."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    first = node.args[0]
    if called not in ("import_module", "__import__") or not isinstance(first, ast.Constant):
        return None
    if not isinstance(first.value, str):
        return None
    if called == "import_module" and len(node.args) > 1:
        given = node.args[1]
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            package = given.value
    return resolve(first.value, package)


def imported(path: Path, source: str | None = None) -> list[tuple[str, list[str]]]:
    """Every import in ``path`` (or ``source``), lazy ones too, as ``(module, names)``:
    ``import a.b`` and ``importlib.import_module("a.b")`` give ``("a.b", [])``, and
    ``from a import x, y`` gives ``("a", ["x", "y"])``; relative names resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = resolve("." * node.level + (node.module or ""), package)
            found.append((target, [a.name for a in node.names]))
        elif (target := dynamic_import(node, package)) is not None:
            found.append((target, []))
    return found


def imports_of(path: Path, source: str | None = None) -> set[str]:
    """The batcheval modules that ``path`` (or ``source`` read as if it were there) imports."""
    found: set[str] = set()
    for target, names in imported(path, source):
        if target.split(".")[0] != "batcheval":
            continue
        if not names:
            found.add(target)
        for alias in names:  # ``from pkg import submodule`` imports the submodule
            sub = f"{target}.{alias}"
            found.add(sub if is_module(sub) and alias not in shadowed(target) else target)
    found.discard(module_name(path))
    return found


def stage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(ROOT.rglob("*.py"))}


def test_every_top_level_part_has_a_stage():
    parts = {stage(m) for m in graph()}
    assert parts <= set(STAGES), f"no stage for {sorted(parts - set(STAGES))}: add it here and to docs"


def documented_modules(text: str) -> dict[str, set[str]]:
    """The module files that docs/architecture.md gives each part, by the part's name (``kernels``;
    ``""`` for the package's top level): the ``x.py`` of a part's row of the stages table (or the
    files of its part column, at the top level), and those of a section whose heading names the part
    (``## The kernels (`kernels/`)``)."""
    named: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = line.strip().strip("|").split("|")
        if not line.startswith("|") or len(cells) < 4:
            continue
        for part in re.findall(r"`(\w+)/`", cells[1]):
            named.setdefault(part, set()).update(re.findall(r"`(\w+\.py)`", cells[2]))
        named.setdefault("", set()).update(re.findall(r"`(\w+\.py)`", cells[1]))
    pieces = re.split(r"^(#+ .*)$", text, flags=re.MULTILINE)
    for heading, body in zip(pieces[1::2], pieces[2::2], strict=True):
        for part in re.findall(r"`(\w+)/`", heading):
            named.setdefault(part, set()).update(re.findall(r"`(\w+\.py)`", body))
    return named


def test_docs_name_every_module_of_the_package():
    # the kernels row named most modules only by their topic ("exact AUC", "sweeps"), gave DeLong's
    # components to ranks.py, and left out assign, delong, leaderboard, ranges, score_diff and selection
    named = documented_modules((ROOT.parent / "docs" / "architecture.md").read_text())
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        inner = path.relative_to(ROOT).parts
        part = inner[0] if len(inner) > 1 else ""
        if path.name != "__init__.py" or not part:
            if path.name not in named.get(part, set()):
                missing.append(str(path.relative_to(ROOT.parent)))
    assert not missing, f"docs/architecture.md does not name {missing} in its part's row or section"


def test_the_docs_check_reads_rows_and_sections():
    text = """| 0 | `errors.py` | the errors | nothing |
| 0 | `kernels/` | counting (`count.py`) | numba |
| 3 | `scores/` | areas (`auc.py`) | ranks 0-2 |

## The kernels (`kernels/`)

- `delong.py`: DeLong's components

## Where new work goes

- `sweep.py`
"""
    named = documented_modules(text)
    assert named == {"": {"errors.py"}, "kernels": {"count.py", "delong.py"}, "scores": {"auc.py"}}


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    upward = []
    for name, targets in edges.items():
        for target in targets:
            mine, theirs = stage(name), stage(target)
            if theirs == mine:  # its own part; for the root (""), the root itself
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
        "batcheval.cli.main": {"batcheval", "batcheval.scores.auc"},  # the root, rank 9
        "batcheval.table": {"batcheval", "batcheval.core.table"},
        "batcheval": {"batcheval.cli.main", "batcheval.evaluate"},
    }
    assert sorted(upward_imports(edges)) == [
        "batcheval.cli.main (cli, rank 8) imports batcheval (rank 9)",
        "batcheval.core.table (core, rank 2) imports batcheval.plot.charts (rank 6)",
        "batcheval.scores.auc (scores, rank 3) imports batcheval.labels.align (rank 3)",
        "batcheval.table (table, rank 9) imports batcheval (rank 9)",
    ]


def test_the_stage_check_finds_root_and_dynamic_imports_planted_in_a_module():
    """A lazy import of the root (by ``from``, ``import`` or importlib), or of a module through
    importlib or ``__import__``, is an upward import like any other."""
    path = ROOT / "core" / "table.py"
    planted = {  # source planted in core/table.py: the modules it imports
        "def f():\n    from batcheval import leaderboard\n": {"batcheval"},
        "def f():\n    import batcheval as be\n": {"batcheval"},
        "def f():\n    from .. import sweep\n": {"batcheval"},
        # evaluate is a module too, but the root binds the name to its function
        "def f():\n    from batcheval import evaluate\n": {"batcheval"},
        "import importlib\nimportlib.import_module('batcheval.plot')\n": {"batcheval.plot"},
        "from importlib import import_module\nimport_module('..plot', 'batcheval.core')": {"batcheval.plot"},
        "def f():\n    return __import__('batcheval')\n": {"batcheval"},
    }
    for source, expected in planted.items():
        assert imports_of(path, source) == expected, source
        (target,) = expected
        rank = 9 if target == "batcheval" else 6
        assert upward_imports({"batcheval.core.table": expected}) == [
            f"batcheval.core.table (core, rank 2) imports {target} (rank {rank})"
        ]
    # a lower stage, through the root's name for it, and an import of no constant name pass
    assert imports_of(path, "from batcheval import measures") == {"batcheval.measures"}
    assert imports_of(path, "import importlib\nimportlib.import_module(name)\n") == set()
    assert upward_imports({"batcheval.core.table": {"batcheval.measures", "batcheval.core.memory"}}) == []


def numba_imports(path: Path, source: str | None = None) -> list[str]:
    """The imports of numba (or llvmlite) in ``path``: statements, importlib calls, ``__import__``."""
    found = [target for target, _ in imported(path, source)]
    return [t for t in found if t.split(".")[0] in ("numba", "llvmlite")]


def test_only_the_kernels_import_numba():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if "kernels" in path.relative_to(ROOT).parts:
            continue
        if numba_imports(path):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


@pytest.mark.parametrize(
    "source",
    [
        "import numba",
        "from numba import njit",
        "def f():\n    import numba.typed\n",
        "import importlib\nimportlib.import_module('numba')\n",
        "from importlib import import_module\nimport_module('numba.core')\n",
        "numba = __import__('numba')",
        "import llvmlite.binding",
    ],
)
def test_the_numba_check_finds_planted_imports(source):
    assert numba_imports(ROOT / "core" / "table.py", source)


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


def slice_copies(source: str) -> list[str]:
    """Assignments to a slice whose value is not a number: ``a[:] = b`` and ``a[i:j] += b``.

    In a jitted kernel such a statement compiles numba's broadcast shape-error message (string
    formatting, about 1.9 s of CPU on a first call with an empty cache, measured with
    benchmarks/coldstart_profile.py), so kernels copy arrays with a loop. Filling with a number does
    not compile it.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AugAssign):
            targets, value = [node.target], node.value
        else:
            continue
        number = isinstance(value, ast.Constant) or (
            isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)
        )
        for target in targets:
            sliced = isinstance(target, ast.Subscript) and any(
                isinstance(n, ast.Slice) for n in ast.walk(target.slice)
            )
            if sliced and (isinstance(node, ast.AugAssign) or not number):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_kernels_copy_arrays_with_loops_not_slices():
    offenders = {
        str(path.relative_to(ROOT)): slice_copies(path.read_text())
        for path in (ROOT / "kernels").glob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a[:] = b", 1),
        ("a[:] = b[g]", 1),
        ("a[1:n] = b", 1),
        ("a[g, :] = b", 1),
        ("a[:] += 1", 1),
        ("a[:] = 0", 0),
        ("a[:] = -1.0", 0),
        ("a[i] = b[i]", 0),
    ],
)
def test_the_slice_copy_check_finds_planted_copies(source, expected):
    assert len(slice_copies(source)) == expected
