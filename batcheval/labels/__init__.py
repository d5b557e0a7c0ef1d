"""Predictions rewritten before counting (spec §7): abstentions left out (:mod:`.abstain`) and
cluster ids matched to classes (:mod:`.align`)."""
