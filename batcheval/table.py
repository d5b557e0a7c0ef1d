"""Where :class:`~batcheval.ContingencyTable` lived before the stage subpackages (0.1.x).

Kept only so that tables pickled by batcheval 0.1 still load: their pickles name
``batcheval.table.ContingencyTable``. Tables pickled now name
``batcheval.ContingencyTable``, which does not move. New code imports
``batcheval.ContingencyTable``.
"""

from .core.table import ContingencyTable

__all__ = ["ContingencyTable"]
