"""The examples that ``help()`` shows for the public API run when pasted as they are.

``--doctest-modules`` runs each module's examples with that module's globals, where a bare
``ContingencyTable`` or ``alpha_sbb`` resolves; pasted into a session after ``import batcheval as be``
it does not. And ``ContingencyTable.__module__`` is ``"batcheval"`` (pickles name the public
path), so the doctest finder of ``batcheval/core/table.py`` skipped every example of the class: one
of them printed a wrong table. Here each public name's examples run in a namespace of builtins only.
"""

from __future__ import annotations

import doctest
import inspect

import pytest

import batcheval as be

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _public_docstrings() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: list[doctest.DocTest] = []
    for name in be.__all__:
        obj = getattr(be, name)
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
            continue
        # module=False: look into the class's methods whatever module they claim
        found += finder.find(obj, f"be.{name}", module=False, globs={})
    return [t for t in found if t.examples]


DOCTESTS = _public_docstrings()


def test_the_public_examples_are_found():
    names = {t.name for t in DOCTESTS}
    # the class's methods were skipped by --doctest-modules
    assert {"be.ContingencyTable.versus_rest", "be.ContingencyTable.from_long", "be.evaluate"} <= names
    assert len(DOCTESTS) >= 25


@pytest.mark.parametrize("test", DOCTESTS, ids=lambda t: t.name)
def test_a_public_example_runs_as_pasted(test: doctest.DocTest):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    test.globs = {}
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def test_measure_arrays_takes_the_defaults_of_measures_as_its_docstring_says():
    # "as in measures", whose keywords have defaults; here they were required
    import numpy as np
    import polars as pl

    t = be.ContingencyTable(pl.DataFrame({"run": [1, 2]}), [0, 1], [[[2, 0], [1, 3]], [[1, 4], [2, 2]]])
    head, arrays = t.measure_arrays(["informedness", "f1"])
    frame = t.measures(["informedness", "f1"])
    assert head["tp"].to_list() == [3, 2] and list(arrays) == ["informedness", "f1"]
    assert np.allclose(arrays["informedness"], [3 / 4 - 0, 2 / 4 - 4 / 5])
    for name, values in arrays.items():
        assert values.tolist() == frame[name].to_list()
