"""Old against new, interleaved: the same measures on two revisions, alternating, in one run.

Run: python benchmarks/interleave.py [--base REV] [--rounds 5] [--out FILE]

The machine is noisy, so the two revisions are measured in alternation (old, new, old, new,
...), each measure in a fresh process with the revision's package first on ``sys.path``, and
the table gives the medians and the median of the per-round ratios new/old. ``--base``
(default ``HEAD~1``) is checked out into a temporary git worktree, removed at the end. The
measures use only the public API, so they run on any revision:

* four-bar, 360 poses at 1 degree: ``mech.sweep`` batched and sequential, microseconds per pose,
  and the largest error of the coupler pin against the closed form;
* chain of 10^4 four-bar loops (``models.fourbar_chain``), driver moved by 0.1 rad from the
  assembled pose: one ``mech.solve()``, milliseconds and iterations;
* UR5 inverse kinematics, 100 random reachable targets, starts within 0.2 rad: ``arm.ik`` as a
  batch and one target at a time, microseconds per target, and targets met (the tool within
  1e-9 of the target by forward kinematics).

Writes JSON to ``--out`` (default: a file in the system's temporary directory).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

MEASURE = r'''
import json, sys, time
import numpy as np
import mechsolve as ms

def median_time(fn, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return float(np.median(out))

what = sys.argv[1]
res = {}
if what == "fourbar":
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    values = np.radians(np.arange(360.0))
    q0 = mech.state
    a, b, c, d = 1.0, 3.0, 3.5, 4.0
    t = values
    A = np.stack([a * np.cos(t), a * np.sin(t)], 1)
    D = np.array([d, 0.0]) - A
    e = np.linalg.norm(D, axis=1)
    phi = np.arctan2(D[:, 1], D[:, 0]) + np.arccos((b**2 + e**2 - c**2) / (2 * b * e))
    B = A + b * np.stack([np.cos(phi), np.sin(phi)], 1)
    for name, batch in (("sweep batched", True), ("sweep sequential", False)):
        def run():
            mech.state = q0
            return mech.sweep(drive, values, batch=batch)
        motion = run()
        res[name + " us/pose"] = median_time(run, 9) / len(values) * 1e6
        res[name + " error"] = float(np.max(np.abs(motion.point(mech.body("coupler"),
                                                               (1.5, 0.0)) - B)))
elif what == "chain":
    model = ms.models.fourbar_chain(10000)
    mech = model.mechanism
    mech.solve()
    q0 = mech.state
    model.driver.value = model.values[1]
    times, its = [], []
    for _ in range(5):
        mech.state = q0
        t0 = time.perf_counter(); r = mech.solve(); times.append(time.perf_counter() - t0)
        its.append(r.iterations)
    res["chain 1e4 ms"] = float(np.median(times)) * 1e3
    res["chain 1e4 iterations"] = int(np.median(its))
elif what == "ik":
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    Q = rng.uniform(-np.pi, np.pi, size=(100, 6))
    S = Q + rng.uniform(-0.2, 0.2, size=Q.shape)
    F = arm.forward(Q)
    T7 = np.concatenate([F.translation, F.quaternion], axis=1)
    M = arm.forward_matrix(Q)
    def met(Qs):
        return int(np.sum(np.max(np.abs(arm.forward_matrix(Qs) - M), axis=(1, 2)) < 1e-9))
    out = arm.ik(T7, S, raise_on_failure=False)
    res["ik batch us/target"] = median_time(
        lambda: arm.ik(T7, S, raise_on_failure=False), 9) / 100 * 1e6
    res["ik batch met"] = met(out.q)
    singles = [arm.ik(T7[i], S[i], raise_on_failure=False).q for i in range(100)]
    res["ik single us/target"] = median_time(
        lambda: [arm.ik(T7[i], S[i], raise_on_failure=False) for i in range(100)], 5) / 100 * 1e6
    res["ik single met"] = met(np.array(singles))
print(json.dumps(res))
'''


def measure(tree: pathlib.Path, what: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", MEASURE, what], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD~1", help="the old revision (default HEAD~1)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=["fourbar", "chain", "ik"])
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir())
                                             / "mechsolve_interleave.json"))
    args = parser.parse_args()
    here = pathlib.Path(__file__).resolve().parent.parent
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mechsolve-base-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(tmp / "base"), args.base],
                   cwd=here, check=True, capture_output=True)
    old_tree = tmp / "base"
    rounds = {"old": [], "new": []}
    try:
        for r in range(args.rounds):
            for label, tree in (("old", old_tree), ("new", here)):
                row = {}
                for what in args.only:
                    row.update(measure(tree, what))
                rounds[label].append(row)
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=here,
                       check=False, capture_output=True)
    keys = list(rounds["new"][0])
    print(f"{'measure':<30}{'old (median)':>14}{'new (median)':>14}{'new/old':>10}")
    table = {}
    for k in keys:
        old = np.array([row[k] for row in rounds["old"]], dtype=float)
        new = np.array([row[k] for row in rounds["new"]], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = float(np.median(new / old))
        table[k] = {"old": float(np.median(old)), "new": float(np.median(new)),
                    "median_ratio": ratio}
        print(f"{k:<30}{np.median(old):>14.4g}{np.median(new):>14.4g}{ratio:>10.3g}")
    base = subprocess.run(["git", "rev-parse", args.base], cwd=here, capture_output=True,
                          text=True).stdout.strip()
    pathlib.Path(args.out).write_text(json.dumps({"base": base, "rounds": rounds,
                                                  "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
