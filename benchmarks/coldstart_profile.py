"""Which numba functions a public call compiles, and how long each takes (empty cache).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/coldstart_profile.py evaluate [--top 40]

Cases as in ``bench_coldstart.py`` (evaluate, sweep, auc, leaderboard) on the same 400-row
frame. numba's ``numba:compile`` events are recorded around the call; each compile's time is
given exclusive of the compiles nested in it (a caller's typing compiles its callees first),
so the column adds up to the call's compile time. Functions compiled more than once (``×2``)
are type specialisations worth a look: a literal argument, a read-only array, another dtype.
Run it with an empty ``NUMBA_CACHE_DIR``, or it only times cache loads.

Times are the process's CPU time (``time.process_time``), not wall time: on a shared machine
wall time also counts the waits for a core, which made the column add up to twice the call.
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np
import polars as pl
from numba.core import event


class _CpuRecorder(event.Listener):
    """numba's ``RecordingListener`` with CPU time stamps instead of ``time.time()``."""

    def __init__(self) -> None:
        self.buffer: list[tuple[float, event.Event]] = []

    def on_start(self, ev: event.Event) -> None:
        self.buffer.append((time.process_time(), ev))

    def on_end(self, ev: event.Event) -> None:
        self.buffer.append((time.process_time(), ev))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("case", choices=["evaluate", "sweep", "auc", "leaderboard"])
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()

    recorder = _CpuRecorder()
    event.register("numba:compile", recorder)
    import batcheval as be

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    df = pl.DataFrame({
        "run": np.repeat([1, 2], 200), "fold": np.tile([0, 1], 200), "label": y,
        "prediction": np.where(rng.random(400) < 0.8, y, 1 - y), "score": rng.random(400) + y,
    })  # fmt: skip
    calls = {
        "evaluate": lambda: be.evaluate(df, by="run"),
        "sweep": lambda: be.sweep(df, by="run"),
        "auc": lambda: be.auc(df, by="run"),
        "leaderboard": lambda: be.leaderboard(df, pool="fold"),
    }
    start = time.process_time()
    calls[args.case]()
    cpu = time.process_time() - start

    stack: list[list] = []
    own: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for stamp, ev in recorder.buffer:
        func = ev.data["dispatcher"].py_func
        name = f"{func.__module__}.{func.__qualname__}"
        if ev.is_start:
            stack.append([name, stamp, 0.0])
            continue
        name, begun, nested = stack.pop()
        spent = stamp - begun
        own[name] += spent - nested
        count[name] += 1
        if stack:
            stack[-1][2] += spent
    print(
        f"first {args.case}: {cpu:.2f} s of CPU; {sum(count.values())} compiles of {len(count)} functions, "
        f"{sum(own.values()):.2f} s of CPU in them"
    )
    print(f"{'own s':>7}  {'times':>5}  function")
    for name, seconds in own.most_common(args.top):
        print(f"{seconds:7.2f}  {'×' + str(count[name]):>5}  {name}")


if __name__ == "__main__":
    main()
