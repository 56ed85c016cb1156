"""Old against new, interleaved, on the paths the linear-algebra layer serves.

Run: python benchmarks/linalg_paths.py OLD_TREE [--rounds 5] [--out FILE]

``OLD_TREE`` is a source tree of the old revision (for instance
``git archive main | tar -x -C /tmp/old``); the new one is this checkout. Every measure runs in
a fresh process with its tree first on ``sys.path``, old and new alternating round by round, and
the table gives the medians and the median of the per-round ratios new/old (below 1: faster);
the rows marked ``(p10)`` compare the 10th percentiles of each process's timings instead,
which the load of a shared machine moves less.
The measures use only the public API:

* the README four-bar: one ``mech.solve()`` after a 0.3 rad driver move, microseconds;
* the same four-bar: ``mech.sweep`` over 360 poses (one degree apart), milliseconds;
* the same four-bar: ``mech.velocity()`` and ``mech.acceleration()`` at a solved pose, us;
* ``ms.design.sweep`` of 1000 four-bar designs (the rocker's ground pivot) x 36 angles, ms;
* ``ms.models.fourbar_chain(1000)``: one ``mech.solve()`` after the model's driver move, ms.

Writes JSON to ``--out`` (default: a file in the system's temporary directory).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile

from interleave import compare, interleaved, print_table

MEASURE = r'''
import json, sys, time
import numpy as np
import mechsolve as ms
from mechsolve import joints

def times(fn, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return np.array(out)

def record(name, fn, repeats, unit):
    # the median (what the table compares) and the 10th percentile (less moved by the load
    # of a shared machine)
    t = times(fn, repeats) * unit
    res[name] = float(np.median(t))
    res[name + " (p10)"] = float(np.percentile(t, 10))

def readme_fourbar():
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0)))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    mech.solve()
    return mech, drive

what = sys.argv[1]
res = {}
if what == "fourbar":
    mech, drive = readme_fourbar()
    q0 = mech.state
    def solve():
        mech.state = q0
        drive.value = 0.3
        mech.solve()
        drive.value = 0.0
    solve()
    record("four-bar solve after 0.3 rad, us", solve, 301, 1e6)
    mech.state = q0
    values = np.radians(np.arange(360.0))
    def sweep():
        mech.state = q0
        mech.sweep(drive, values)
    sweep()
    record("four-bar sweep 360 poses, ms", sweep, 15, 1e3)
    mech.state = q0
    drive.value = 0.3
    mech.solve()
    def rates():
        mech.velocity()
        mech.acceleration()
    rates()
    record("four-bar velocity+acceleration, us", rates, 301, 1e6)
elif what == "design":
    model = ms.models.fourbar()
    pivots = np.c_[4.0 + np.linspace(-0.2, 0.2, 1000), np.zeros(1000)]
    angles = np.radians(np.arange(0.0, 360.0, 10.0))
    def run():
        return ms.design.sweep(model.mechanism, {"O4.point2": pivots}, model.driver, angles)
    out = run()
    record("design sweep 1000 x 36, ms", run, 5, 1e3)
    res["design sweep success"] = int(np.count_nonzero(out.success))
elif what == "chain":
    model = ms.models.fourbar_chain(1000)
    mech = model.mechanism
    mech.solve()
    q0 = mech.state
    v0 = model.driver.value
    def solve():
        mech.state = q0
        model.driver.value = model.values[1]
        mech.solve()
        model.driver.value = v0
    solve()
    record("chain 1000 one solve, ms", solve, 15, 1e3)
print(json.dumps(res))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="source tree of the old revision")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=["fourbar", "design", "chain"])
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir())
                                             / "mechsolve_linalg_paths.json"))
    args = parser.parse_args()
    trees = {"old": pathlib.Path(args.old).resolve(),
             "new": pathlib.Path(__file__).resolve().parent.parent}
    # old and new measure by measure, which goes first alternating round by round (so that
    # neither always runs on a warmer machine)
    rounds = interleaved(trees, args.only, args.rounds, script=MEASURE, by_measure=True)
    table = compare(rounds)
    print_table(table, style="bars", width=38, value_width=12, value_format=".4g",
                ratio_header="new/old (median of rounds)", ratio_width=26, ratio_format=".3f")
    pathlib.Path(args.out).write_text(json.dumps({"old": str(trees["old"]), "rounds": rounds,
                                                  "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
