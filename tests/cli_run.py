"""The command line as the tests run it: in this process by default, or as a fresh interpreter.

A fresh ``python -m batcheval`` costs about 2.5 s of imports and kernel loads before it reads
its first row, and the CLI tests made about a hundred such calls: minutes of the suite. In this
process ``main`` parses the same arguments, prints to the same streams and returns the same exit
code, so only a few tests (the entry point, an import that must fail) need the real process.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

from batcheval.cli.main import main


def run_cli(*args: str, columns: int = 200) -> subprocess.CompletedProcess:
    """``batcheval ARGS`` in this process, at a terminal of ``columns`` characters.

    The environment is restored afterwards (the demo sets a variable for its own run), and an
    exit through ``SystemExit`` (argparse's errors and ``--help``) gives its code as a process's
    would.
    """
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ["COLUMNS"] = str(columns)  # the width a printed table fits
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(["batcheval", *args], code, out.getvalue(), err.getvalue())


def run_cli_process(*args: str, columns: int = 200) -> subprocess.CompletedProcess:
    """``python -m batcheval ARGS`` in a fresh interpreter, as a user runs it."""
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-m", "batcheval", *args], check=False, capture_output=True, text=True, timeout=300,
        env=env,
    )  # fmt: skip
