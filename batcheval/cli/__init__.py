"""The ``batcheval`` command line: every subcommand reads files, calls the Python API and writes
or prints frames (:mod:`.main`)."""

from .main import main

__all__ = ["main"]
