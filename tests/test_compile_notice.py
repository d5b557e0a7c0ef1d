"""The one-time notice when batcheval's kernels compile (issue 23 §1)."""

from __future__ import annotations

import numba
import pytest

from batcheval.kernels import jit as _jit


def _fresh_kernel(module: str):
    def add_one(x):
        return x + 1

    add_one.__module__ = module
    return numba.njit(cache=False)(add_one)


def test_notice_once_for_batcheval_kernels_only(capsys, monkeypatch):
    monkeypatch.setattr(_jit, "_told", [])
    monkeypatch.delenv("BATCHEVAL_QUIET_COMPILE", raising=False)
    assert _fresh_kernel("someone.else")(1) == 2  # a compile that is not batcheval's says nothing
    assert capsys.readouterr().err == ""
    assert _fresh_kernel("batcheval.kernels.fake")(1) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "batcheval: compiling numba kernels for this machine (first: batcheval.kernels.fake.add_one)"
    )
    assert "once per machine" in err and "cached in" in err
    assert _fresh_kernel("batcheval.kernels.fake")(2.0) == pytest.approx(
        3.0
    )  # compiles again: no second notice
    assert capsys.readouterr().err == ""


def test_notice_can_be_silenced(capsys, monkeypatch):
    monkeypatch.setattr(_jit, "_told", [])
    monkeypatch.setenv("BATCHEVAL_QUIET_COMPILE", "1")
    assert _fresh_kernel("batcheval.kernels.fake")(1) == 2
    assert capsys.readouterr().err == ""
