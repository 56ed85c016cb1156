"""Old against new in one process, interleaved: the paths bound by ``System.evaluate``.

Run: python benchmarks/layout_interleave.py [--base REV] [--rounds 7] [--out FILE] [--only TEXT]

The package at ``--base`` (default ``main``) is exported with ``git archive`` into a temporary
folder as ``mechsolve_base`` (every import inside the package is relative) and imported beside
this checkout's ``mechsolve``; every round measures old then new (alternating which goes
first), and the table gives each side's median and the median of the per-round ratios
new/old. Measures, through the public API only:

* the README four-bar: ``mech.solve()`` from its rough placement, microseconds;
* the four-bar over 360 poses at 1 degree (``models.fourbar``): ``mech.sweep`` batched and
  sequential, microseconds per pose;
* ``models.fourbar_chain(1000)``: driver moved to its second value from the assembled pose,
  one ``mech.solve()``, milliseconds;
* the accessors that now ask the layout: ``Body.pose`` and ``Body.to_global``, microseconds;
  and building ``models.fourbar_chain(1000)``, milliseconds.

Keep it short (about a minute at the default rounds).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _export(rev: str, into: pathlib.Path) -> None:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "mechsolve"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "mechsolve").rename(into / "mechsolve_base")


def _median_time(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


def _readme_fourbar(ms):
    j = ms.joints
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(j.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(j.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(j.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    mech.add(j.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0)))
    mech.add(j.Driver(crank, "angle", 0.0, name="motor"))
    return mech


def _cases(ms):
    """``{name: (run, unit factor, per)}`` for the package ``ms``."""
    readme = _readme_fourbar(ms)
    q_rough = readme.state

    def solve_readme():
        readme.state = q_rough
        readme.solve()

    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    values = np.radians(np.arange(360.0))
    q0 = mech.state

    def sweep(batch):
        def run():
            mech.state = q0
            mech.sweep(drive, values, batch=batch)
        return run

    chain = ms.models.fourbar_chain(1000)
    cm = chain.mechanism
    cm.solve()
    cq0 = cm.state
    chain.driver.value = chain.values[1]

    def solve_chain():
        cm.state = cq0
        cm.solve()

    coupler = mech.body("coupler")

    def poses():
        for _ in range(1000):
            _ = coupler.pose

    def to_global():
        for _ in range(200):
            coupler.to_global((1.5, 0.0))

    def build_chain():
        ms.models.fourbar_chain(1000)

    return {"Body.pose (us)": (poses, 1e6, 1000, 5),
            "fourbar_chain(1000) build (ms)": (build_chain, 1e3, 1, 3),
            "Body.to_global (us)": (to_global, 1e6, 200, 5),
            "README four-bar solve (us)": (solve_readme, 1e6, 1, 41),
            "four-bar sweep 360, batched (us/pose)": (sweep(True), 1e6, 360, 5),
            "four-bar sweep 360, sequential (us/pose)": (sweep(False), 1e6, 360, 3),
            "fourbar_chain(1000) solve (ms)": (solve_chain, 1e3, 1, 5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default="", help="the measures whose name holds this text")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _export(args.base, pathlib.Path(tmp))
        sys.path.insert(0, tmp)
        sys.path.insert(0, str(ROOT))
        old = importlib.import_module("mechsolve_base")
        new = importlib.import_module("mechsolve")
        cases = {"old": _cases(old), "new": _cases(new)}
        for side in cases.values():        # warm up (first calls build systems, caches)
            for name, (run, _, _, _) in side.items():
                if args.only in name:
                    run()
        times: dict = {name: {"old": [], "new": []} for name in cases["new"]
                       if args.only in name}
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for name in times:
                for side in order:
                    run, factor, per, repeats = cases[side][name]
                    times[name][side].append(_median_time(run, repeats) * factor / per)
    rows = []
    for name, t in times.items():
        ratios = np.array(t["new"]) / np.array(t["old"])
        rows.append({"measure": name, "old": float(np.median(t["old"])),
                     "new": float(np.median(t["new"])), "ratio": float(np.median(ratios)),
                     "ratio_min": float(ratios.min()), "ratio_max": float(ratios.max())})
    width = max(len(r["measure"]) for r in rows)
    print(f"{'measure':<{width}}  {'old':>10}  {'new':>10}  {'new/old':>8}  (range)")
    for r in rows:
        print(f"{r['measure']:<{width}}  {r['old']:10.2f}  {r['new']:10.2f}  "
              f"{r['ratio']:8.3f}  ({r['ratio_min']:.3f}-{r['ratio_max']:.3f})")
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps({"base": args.base, "rounds": args.rounds,
                                                      "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
