"""Worked examples that ship with batcheval (``batcheval demo`` runs :mod:`.sklearn_sweep`).

They need the ``demo`` extra (scikit-learn and matplotlib); ``import batcheval``
never imports them.
"""
