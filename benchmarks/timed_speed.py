"""Time sweeps at sweep speed, and the large build: old tree against new, interleaved.

Run: python benchmarks/timed_speed.py OLD_TREE NEW_TREE [--rounds 2] [--chain 100000]
     [--only fourbar slider rssr build] [--out FILE]

``OLD_TREE`` and ``NEW_TREE`` are two checkouts of mechsolve (``git archive`` or a worktree of
each revision). Every measure runs in a fresh process with that tree first on ``sys.path``, old
and new alternating (and which goes first alternating), round after round; the table gives the
medians over rounds and the median of the per-round ratios new/old. Measures:

* ``<model> sweep us/pose``: ``mech.sweep(driver, values)`` over 360 values of a full turn of
  the crank (the default path: batched for these small models), per pose;
* ``<model> sweep_time us/pose``: the same turn as a time sweep, the driver given
  ``ConstantSpeed(2 pi)`` and ``mech.sweep_time`` over 360 times in one second, per pose;
* ``<model> time/sweep``: their ratio in that process (the goal of issue 28 item 5: <= 2);

for the README four-bar (``models.fourbar``), the offset slider-crank (``models.slider_crank``)
and the spatial RSSR (``models.spatial.rssr``), each call on a freshly built model (the build
is not timed), the 10th percentile of 3 to 7 calls (as many as 1.5 s allows; on a shared
machine the slower calls are those another process interrupted); and for ``build``:
``models.fourbar_chain(N)`` built, compiled (``mech.system()``) and solved once with its
driver moved by 0.1 rad from the assembled pose, ``build+compile / solve`` their ratio (goal:
<= 2). The build is measured in the first round only (one build of 10^5 loops takes seconds)
so that the whole run stays under two minutes.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile

from interleave import compare, interleaved, print_table

MEASURE = r'''
import json, sys, time, warnings
import numpy as np
import mechsolve as ms
from mechsolve.profiles import ConstantSpeed

what, *rest = sys.argv[1].split()
N = 360

def make(name):
    return {"fourbar": ms.models.fourbar, "slider": ms.models.slider_crank,
            "rssr": ms.models.spatial.rssr}[name]()

def per_pose(run, calls, budget=1.5):
    # at least 3 calls, at most ``calls``, fewer once ``budget`` seconds are spent
    out = []
    while len(out) < calls and (len(out) < 3 or sum(out) < budget):
        model = make(what)
        t0 = time.perf_counter(); run(model); out.append(time.perf_counter() - t0)
    return float(np.percentile(out, 10)) * 1e6 / N

def sweep(model):
    model.mechanism.sweep(model.driver, np.linspace(0.0, 2 * np.pi, N))

def sweep_time(model):
    model.driver.value = ConstantSpeed(2 * np.pi, start=model.driver.value)
    model.mechanism.sweep_time(np.linspace(0.0, 1.0, N))

res = {}
if what == "build":
    n = int(rest[0])
    t0 = time.perf_counter()
    model = ms.models.fourbar_chain(n)
    t1 = time.perf_counter()
    model.mechanism.system()
    t2 = time.perf_counter()
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.values[1]
    t3 = time.perf_counter()
    mech.solve()
    t4 = time.perf_counter()
    res = {"build s": t1 - t0, "compile s": t2 - t1, "solve s": t4 - t3,
           "build+compile / solve": (t2 - t0) / (t4 - t3)}
else:
    sweep(make(what)); sweep_time(make(what))   # warm
    s = per_pose(sweep, 7)
    t = per_pose(sweep_time, 7)
    res = {f"{what} sweep us/pose": s, f"{what} sweep_time us/pose": t,
           f"{what} time/sweep": t / s}
print(json.dumps(res))
'''

ALL = ["fourbar", "slider", "rssr", "build"]
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=pathlib.Path)
    parser.add_argument("new", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--chain", type=int, default=100000, help="loops of the built chain")
    parser.add_argument("--only", nargs="*", default=ALL)
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir())
                                             / "mechsolve_timed_speed.json"))
    args = parser.parse_args()
    # which goes first alternates; the build (seconds at 10^5 loops) in the first round only
    whats = [f"build {args.chain}" if w == "build" else w for w in args.only]
    rounds = interleaved({"old": args.old.resolve(), "new": args.new.resolve()}, whats,
                         args.rounds, script=MEASURE, env=SINGLE_THREAD,
                         skip=lambda r, what: r > 0 and what.startswith("build"))
    table = compare(rounds)
    print_table(table, style="bars", width=28, value_width=12, value_format=".3g",
                ratio_header="median new/old", ratio_width=14, ratio_format=".3f")
    pathlib.Path(args.out).write_text(json.dumps({"rounds": rounds, "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
