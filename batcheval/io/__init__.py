"""Stage 1, frames in and out: input frames and their column checks (:mod:`.frames`), streamed
sources of many files or batches (:mod:`.sources`), and the files the command line reads and writes
(:mod:`.files`). Imports nothing of batcheval but :mod:`batcheval.errors`."""
