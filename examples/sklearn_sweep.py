"""A real sweep on scikit-learn's bundled datasets, evaluated with batcheval.

    python examples/sklearn_sweep.py [OUT_DIR] [--quick] [--n-jobs N]

The same as ``batcheval demo``. The code lives in the package, in
``batcheval/examples/sklearn_sweep.py``, so that the command works from an
installed copy; import it as a function with::

    from batcheval.examples.sklearn_sweep import run
    result = run("batcheval_demo")   # frames: predictions, scores, sweep, auc; rankings; plots
"""

import sys

from batcheval.examples.sklearn_sweep import main

if __name__ == "__main__":
    sys.exit(main())
