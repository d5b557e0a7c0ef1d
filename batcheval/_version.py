"""The package's version, in a module of its own: ``batcheval.__version__`` and the ``batcheval``
command both import it from here (the command may not import the package root), and the build
reads it statically (``pyproject.toml``, ``[tool.setuptools.dynamic]``)."""

__version__ = "0.1.0"
