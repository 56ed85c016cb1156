"""What building the results costs: the calls whose results changed, old against new,
interleaved.

Run: python benchmarks/results_overhead.py OLD_TREE NEW_TREE [--rounds 5]

``OLD_TREE`` and ``NEW_TREE`` are two checkouts of mechsolve (``git archive`` of each
revision). Every measure runs in a fresh process with that tree first on ``sys.path``, old and
new alternating, round after round; the table gives the medians over rounds and the median of
the per-round ratios new/old. Each measure is the 10th percentile of many calls in microseconds
(on a shared machine the slower calls are those another process interrupted):

* ``solve step``: the README four-bar, driver moved by one degree, ``mech.solve()``
  (a ``SolveResult`` read as the tests read it: ``success``, ``status``, ``residual``);
* ``solve_batch 100``: 100 driver values of the four-bar (``BatchResult``), per call;
* ``ik one``: UR5 ``arm.ik`` of one target from a start 0.1 rad off (``IKResult``);
* ``ik 100``: 100 targets as one batch, per call;
* ``core newton``: ``mechsolve.newton.newton`` on the four-bar step (``NewtonResult``);
* ``sweep 360``: ``mech.sweep`` of the four-bar over 360 values, per call;
* ``design 64x36``: ``ms.design.sweep`` of 64 designs over 36 values, per call.
"""

from __future__ import annotations

import argparse
import pathlib

from interleave import compare, interleaved, print_table

MEASURE = r'''
import json, sys, time
import numpy as np
import mechsolve as ms
from mechsolve.newton import newton as core_newton

def per_call(fn, n, reset=None):
    out = []
    for _ in range(n):
        if reset is not None:
            reset()
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return float(np.percentile(out, 10)) * 1e6

res = {}
model = ms.models.fourbar()
mech, drive = model.mechanism, model.driver
mech.solve()
q1 = mech.state
def reset():
    mech.state = q1
    drive.value = 0.0
def step():
    drive.value = np.radians(1.0)
    r = mech.solve()
    r.success, r.status, r.residual
res["solve step"] = per_call(step, 400, reset)
reset()
values = np.radians(np.arange(100.0))
res["solve_batch 100"] = per_call(lambda: mech.solve_batch(values={drive: values}), 60)
prob = mech.system().problem()
drive.value = np.radians(1.0)
res["core newton"] = per_call(lambda: core_newton(prob, q1[None]), 400)
reset()
sweep_values = np.radians(np.arange(360.0))
res["sweep 360"] = per_call(lambda: mech.sweep(drive, sweep_values), 12, reset)
reset()
arm = ms.robots.ur5()
rng = np.random.default_rng(0)
Q = rng.uniform(-2.0, 2.0, (100, 6))
T = np.stack([arm.forward(q).as_matrix() for q in Q])
res["ik one"] = per_call(lambda: arm.ik(T[0], Q[0] + 0.1), 300)
res["ik 100"] = per_call(lambda: arm.ik(T, Q + 0.1, raise_on_failure=False), 20)
pivots = np.c_[4.0 + 0.05 * rng.uniform(-1, 1, 64), 0.05 * rng.uniform(-1, 1, 64)]
dv = np.radians(np.arange(5.0, 360.0, 10.0))
res["design 64x36"] = per_call(lambda: ms.design.sweep(mech, {"O4.point2": pivots}, drive, dv),
                               10, reset)
print(json.dumps(res))
'''


#: the environment of every measure: one BLAS thread, no bytecode written into the trees
ENV = {"PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
       "MKL_NUM_THREADS": "1"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees = {"old": pathlib.Path(args.old).resolve(), "new": pathlib.Path(args.new).resolve()}
    rounds = interleaved(trees, [None], args.rounds, script=MEASURE, env=ENV, alternate=False,
                         log=False)
    print_table(compare(rounds), style="markdown", name_header="measure (us per call)",
                value_header=("old", "new"), value_format=".1f", ratio_format=".3f",
                ratio_header=f"new/old (median of {args.rounds} rounds)")

if __name__ == "__main__":
    main()
