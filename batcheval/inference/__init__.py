"""Uncertainty and comparison: intervals (:mod:`.intervals`), paired standard errors
(:mod:`.paired_se`), run-against-run comparisons (:mod:`.comparisons`), the leaderboard
(:mod:`.leaderboard`) and multiple-testing adjustment (:mod:`.adjust`)."""
