"""The documentation: every measure documented by name, links that resolve, and the README checker."""

from __future__ import annotations

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


@pytest.mark.parametrize("page", ["README.md", "docs/measures.md", "docs/averaging.md", "docs/cli.md",
                                  "docs/performance.md", "docs/comparing.md",
                                  "docs/references.md"])  # fmt: skip
def test_relative_links_and_images_resolve(page):
    path = ROOT / page
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if not target.startswith(("http://", "https://")):
            assert (path.parent / target).exists(), f"{page} links to a missing {target}"


def test_the_readme_quickstart_is_short_and_shows_its_output():
    blocks = _checker().parse((ROOT / "README.md").read_text())
    quick = next(b for b in blocks if b.lang == "python" and "batcheval_demo/predictions" in b.body)
    code = [line for line in quick.body.splitlines() if line.strip()]
    assert len(code) <= 10
    assert quick.expected is not None and "informedness" in quick.expected


def test_the_readme_checker():
    failures, tried = doctest.testmod(_checker())
    assert tried > 0 and failures == 0
