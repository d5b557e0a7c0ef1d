"""The documentation: every measure documented by name, links that resolve, and the README checker."""

from __future__ import annotations

import builtins
import doctest
import importlib.util
import re
import sys
from pathlib import Path

import pytest

import batcheval as be

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("readme_check", ROOT / ".ci" / "readme_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_measure_is_documented_under_its_name():
    text = (ROOT / "docs" / "measures.md").read_text()
    documented = set(re.findall(r"`([a-z0-9_]+)`", text))
    missing = [m for m in (*be.BINARY_MEASURES, *be.MULTICLASS_MEASURES) if m not in documented]
    assert missing == []


@pytest.mark.parametrize("page", ["README.md", "docs/api.md", "docs/measures.md", "docs/averaging.md",
                                  "docs/cli.md", "docs/performance.md", "docs/comparing.md",
                                  "docs/references.md"])  # fmt: skip
def test_relative_links_and_images_resolve(page):
    path = ROOT / page
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if not target.startswith(("http://", "https://")):
            assert (path.parent / target).exists(), f"{page} links to a missing {target}"


def test_every_public_name_is_documented():
    # be.CHARTS, be.RankResult, five of the errors (DuplicateColumnError, InvalidArgumentError,
    # InvalidScoreError, NullValuesError, UnknownMeasureError) and the modules be.intervals and
    # be.measures were exported but named as `be.<name>` on no page
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    named = set(re.findall(r"`be\.(\w+)", text))
    assert sorted(set(be.__all__) - named) == []


def test_the_documented_error_hierarchy_is_the_package_s():
    """docs/api.md's tree: each class under its first base, with the built-in class it also is."""
    page = (ROOT / "docs" / "api.md").read_text()
    tree = re.search(r"```text\n(Exception\n.*?)```", page, re.S).group(1)
    above: list[tuple[int, type]] = []  # the classes of the lines above, by indentation
    shown = set()
    for line in tree.splitlines():
        found = re.search(r"(be\.)?(\w+)(?:\s+\(also (\w+)\))?\s*$", line)
        depth = found.start()
        cls = getattr(be if found.group(1) else builtins, found.group(2))
        while above and above[-1][0] >= depth:
            above.pop()
        if above:
            assert cls.__bases__[0] is above[-1][1], line
            shown.add(cls.__name__)
        if found.group(3):
            assert found.group(3) in [base.__name__ for base in cls.__bases__], line
        above.append((depth, cls))
    classes = {n for n in be.__all__ if isinstance(getattr(be, n), type)}
    assert shown == {n for n in classes if issubclass(getattr(be, n), Exception)}  # warnings too


def test_the_readme_quickstart_is_short_and_shows_its_output():
    blocks = _checker().parse((ROOT / "README.md").read_text())
    quick = next(b for b in blocks if b.lang == "python" and "batcheval_demo/predictions" in b.body)
    code = [line for line in quick.body.splitlines() if line.strip()]
    assert len(code) <= 10
    assert quick.expected is not None and "informedness" in quick.expected


def test_the_readme_checker():
    failures, tried = doctest.testmod(_checker())
    assert tried > 0 and failures == 0


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_calibration_intervals_is_documented_with_the_arguments_that_made_its_page():
    """benchmarks/README.md's command, the script's usage line and defaults and calibration.py's full
    run give the --boot-tables of docs/calibration_intervals.md's "Made by" line: the README's command
    with 40 would have written the page again with width ratios from 40 tables, not its 200."""
    page = (ROOT / "docs" / "calibration_intervals.md").read_text()
    made_by = re.search(r"Made by `(python benchmarks/calibration_intervals\.py [^`]*)`", page).group(1)
    boot_tables = int(re.search(r"--boot-tables (\d+)", made_by).group(1))
    assert boot_tables == 200
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    assert re.findall(r"^python benchmarks/calibration_intervals\.py .*$", readme, re.M) == [made_by]
    script = _script("calibration_intervals")
    assert f"[--boot-tables {boot_tables}]" in script.__doc__
    defaults = script.parser().parse_args([])
    assert (defaults.reps, defaults.boot_tables) == (2000, boot_tables)
    full = _script("calibration").STUDIES["intervals"][0]
    assert full[full.index("--boot-tables") + 1] == str(boot_tables)


def test_the_cd_example_quotes_what_its_script_makes():
    # comparing.md's CD example (chi2 = 170.1, ranks 2.23 ... 5.67) had no script, and no reading of
    # its recipe gave its figures; benchmarks/cd_example.py makes them, and scipy checks the ranks
    from scipy import stats

    script = _script("cd_example")
    frame = script.scores()
    res = script.ranked(frame)
    accuracy = frame.pivot(on="method", index="dataset", values="accuracy").select(list(script.SKILLS))
    mean_ranks = stats.rankdata(-accuracy.to_numpy(), axis=1).mean(axis=0)
    chi2 = stats.friedmanchisquare(*accuracy.to_numpy().T).statistic
    assert res.friedman_chi2 == pytest.approx(chi2, rel=1e-12)
    page = " ".join((ROOT / "docs" / "comparing.md").read_text().split())
    section = page[page.index("Eight methods on 30 datasets") : page.index("The demo (`batcheval demo`)")]
    for method, rank in zip(script.SKILLS, mean_ranks, strict=True):
        assert f"({rank:.2f})" in section, method
    assert f"χ² = {chi2:.1f} (p = {res.friedman_p:.1e})" in section
    assert f"F = {res.iman_davenport_f:.1f}" in section and f"({res.cd:.2f} here)" in section
    holm = dict(res.control.select("method", "p_holm").rows())
    assert f"p_holm = {holm['knn']:.3g} each" in section and holm["mlp"] == holm["knn"]
