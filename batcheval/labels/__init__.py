"""Predictions rewritten before counting (Powers 2003; docs/references.md): abstentions left out
(:mod:`.abstain`) and cluster ids matched to classes (:mod:`.align`)."""
