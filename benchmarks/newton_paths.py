"""The Newton core's one-item and batch paths, old against new, interleaved.

Run: python benchmarks/newton_paths.py OLD_TREE NEW_TREE [--rounds 5] [--only ...] [--out FILE]

``OLD_TREE`` and ``NEW_TREE`` are two checkouts of mechsolve (a ``git archive`` or worktree of
each revision). Every measure runs in a fresh process with that tree first on ``sys.path``,
old and new alternating, round after round; the table gives the medians over rounds and the
median of the per-round ratios new/old (the machine is noisy and shared). The measures are
the calls whose cost is the core's own bookkeeping (small systems, microseconds):

* ``fourbar sketch``: the README four-bar solved from its rough sketch, ``mech.solve()``;
* ``fourbar step``: the assembled four-bar, driver moved by one degree, ``mech.solve()``;
* ``chain10 step``: ``models.fourbar_chain(10)``, driver moved by 0.1 rad, ``mech.solve()``;
* ``held``: the README four-bar without driver, its rocker held at a stop (``HeldProblem``);
* ``ik near``/``ik far``: UR5 ``arm.ik`` one target at a time from starts within 0.2 rad
  (Newton) and from unrelated starts (Levenberg–Marquardt and restarts), per target;
* ``chart``: ``free_motion_path`` of the four-bar without its driver (``_Chart``);
* ``sweep batched``: the four-bar over 360 poses through the batch path, per pose.

* ``core ...``: the core alone (``mechsolve.newton``) on the four-bar step, one UR5 target
  by Newton and by Levenberg–Marquardt, and 40 perturbed four-bar poses as one batch.

Each prints microseconds per call: the 10th percentile over many calls in that process (on a
shared machine the slower calls are those another process interrupted).
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

def per_call(fn, n, reset=None):
    # the 10th percentile of the calls: on a shared machine the slower calls are the ones
    # another process interrupted
    out = []
    for _ in range(n):
        if reset is not None:
            reset()
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return float(np.percentile(out, 10)) * 1e6

def readme(driven=True):
    mech = ms.Mechanism()
    g = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(g, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    o4 = mech.add(joints.Revolute(rocker, g, (1.75, 0.0), (4.0, 0.0), name="O4"))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor")) if driven else None
    return mech, o4, drive

what = sys.argv[1]
res = {}
if what == "fourbar":
    mech, _, drive = readme()
    q0 = mech.state
    def reset():
        mech.state = q0
    mech.solve()
    res["fourbar sketch us"] = per_call(mech.solve, 400, reset)
    mech.solve()
    q1 = mech.state
    def reset1():
        mech.state = q1
        drive.value = np.radians(1.0)
    res["fourbar step us"] = per_call(mech.solve, 400, reset1)
elif what == "chain":
    model = ms.models.fourbar_chain(10)
    mech = model.mechanism
    mech.solve()
    q0 = mech.state
    v0 = model.driver.value
    def reset():
        mech.state = q0
        model.driver.value = v0 + 0.1
    res["chain10 step us"] = per_call(mech.solve, 300, reset)
elif what == "held":
    mech, o4, _ = readme(driven=False)
    mech.solve()
    q0 = mech.state
    o4.limits = (o4.limit_measure() + 0.2, None)
    def reset():
        mech.state = q0
    res["held us"] = per_call(mech.solve, 200, reset)
elif what == "ik":
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    Q = rng.uniform(-np.pi, np.pi, size=(60, 6))
    S = Q + rng.uniform(-0.2, 0.2, size=Q.shape)
    far = rng.uniform(-np.pi, np.pi, size=Q.shape)
    F = arm.forward(Q)
    T7 = np.concatenate([F.translation, F.quaternion], axis=1)
    for i in range(5):
        arm.ik(T7[i], S[i], raise_on_failure=False)
    def near():
        for i in range(60):
            arm.ik(T7[i], S[i], raise_on_failure=False)
    def farr():
        for i in range(20):
            arm.ik(T7[i], far[i], raise_on_failure=False)
    res["ik near us/target"] = per_call(near, 15) / 60
    res["ik far us/target"] = per_call(farr, 7) / 20
elif what == "chart":
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    amps = [0.1, -0.1, 0.3]
    mech.free_motion_path(0, amps)
    res["chart us"] = per_call(lambda: mech.free_motion_path(0, amps), 30)
elif what == "core":
    from mechsolve.newton import levenberg_marquardt, newton
    from mechsolve.robots._ik import _IKProblem
    mech, _, drive = readme()
    mech.solve()
    q1 = mech.state
    drive.value = np.radians(1.0)
    p = mech.system().problem()
    res["core fourbar step us"] = per_call(lambda: newton(p, q1[None]), 2000)
    X = q1[None] + np.random.default_rng(3).normal(scale=0.05, size=(40, len(q1)))
    res["core batch 40 us/item"] = per_call(lambda: newton(p, X), 200) / 40
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    q = rng.uniform(-np.pi, np.pi, size=(1, 6))
    fr = arm.forward(q)
    base = arm._fast.start(np.concatenate([fr.translation, fr.quaternion], axis=1))
    ik = _IKProblem(arm._fast, base, arm._col_scale, arm._length)
    near = q + rng.uniform(-0.2, 0.2, size=q.shape)
    far = rng.uniform(-np.pi, np.pi, size=q.shape)
    res["core ik newton us"] = per_call(lambda: newton(ik, near, max_step=1.0), 2000)
    res["core ik lm us"] = per_call(lambda: levenberg_marquardt(ik, far, max_iterations=50), 300)
elif what == "sweep":
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    values = np.radians(np.arange(360.0))
    q0 = mech.state
    mech.sweep(drive, values, batch=True)
    def reset():
        mech.state = q0
    res["sweep batched us/pose"] = per_call(
        lambda: mech.sweep(drive, values, batch=True), 15, reset) / 360
print(json.dumps(res))
'''

ALL = ["core", "fourbar", "chain", "held", "ik", "chart", "sweep"]
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=pathlib.Path)
    parser.add_argument("new", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=ALL)
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir())
                                             / "mechsolve_newton_paths.json"))
    args = parser.parse_args()
    # which goes first alternates, so that a drift in the machine's load does not favour one
    rounds = interleaved({"old": args.old.resolve(), "new": args.new.resolve()}, args.only,
                         args.rounds, script=MEASURE, env=SINGLE_THREAD)
    table = compare(rounds)
    print_table(table, style="bars", width=24, value_width=12, value_format=".4g",
                ratio_header="median new/old", ratio_width=14, ratio_format=".3f")
    pathlib.Path(args.out).write_text(json.dumps({"rounds": rounds, "table": table},
                                                 indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
