"""Scores instead of labels: threshold sweeps (:mod:`.sweep`), exact ROC and PR areas (:mod:`.auc`),
curve frames (:mod:`.curves`) and one-vs-rest handling of multiclass scores (:mod:`.multiclass`).
:mod:`.prepare` checks and encodes score frames; :mod:`.exact` groups and sorts every group's scores,
for both exact sweeps and exact areas."""
