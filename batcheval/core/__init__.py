"""Stage 2, frames into counts: key and class encoding (:mod:`.encode`), the counting strategies
(:mod:`.counting`), the accumulator :class:`~batcheval.core.table.ContingencyTable` (:mod:`.table`),
pooling (:mod:`.pooling`) and the engines that count streamed or distributed sources
(:mod:`.stream`, :mod:`.distributed`, :mod:`.engine`)."""
