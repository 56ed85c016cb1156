"""Old against new in one process, interleaved: the kernels whose cosines and sines now read
the angles from an array of their own (``mechsolve/_trig.py``, issue 27).

Run: python benchmarks/trig_interleave.py [--base REV] [--rounds 15]

The package at ``--base`` (default ``main``) is imported beside this checkout's ``mechsolve``
as ``mechsolve_base`` (see ``layout_interleave.py``); every round times old then new
(alternating which goes first), each time the fastest of a few repeats of a short loop (the
machine is shared: the least disturbed repeat), and the
table gives each side's median and the median of the per-round ratios new/old. Measures, in
microseconds per call: ``System.phi`` and ``System.evaluate`` of the four-bar (one pose and a
batch of 360), of the slider-crank (a prismatic joint: the projection kernels), the four-bar's
``System.phi_p`` (the pin's parameter derivative), ``StateLayout.point`` (a body point, as
``Body.to_global`` takes it) over 360 states, and the four-bar's batched sweep over 360 poses
(per pose). About a minute.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
import tempfile
import time

import numpy as np
from layout_interleave import ROOT, _export


def _per_call(fn, calls: int, repeats: int = 5) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t0) / calls)
    return min(out) * 1e6


def _cases(ms):
    """``{name: (run, calls per timing)}`` for the package ``ms``."""
    rng = np.random.default_rng(0)
    cases = {}
    for label, build in (("four-bar", ms.models.fourbar), ("slider-crank", ms.models.slider_crank)):
        model = build()
        mech = model.mechanism
        mech.solve()
        sys_ = mech.system()
        q = mech.state.copy()
        Q = q + rng.normal(scale=1e-3, size=(360, q.size))
        cases[f"{label} phi, one pose"] = (lambda s=sys_, q=q: s.phi(q), 400)
        cases[f"{label} evaluate, one pose"] = (lambda s=sys_, q=q: s.evaluate(q), 400)
        cases[f"{label} evaluate, 360 poses"] = (lambda s=sys_, Q=Q: s.evaluate(Q), 40)
        if label == "four-bar":
            pin = mech.joints[1]
            cols = [(pin, c) for c in range(4)]
            cases["four-bar phi_p, one pose"] = (lambda s=sys_, q=q, c=cols: s.phi_p(q, c), 400)
            body = mech.body("coupler")
            lay = mech.layout
            cases["layout.point, 360 states"] = (
                lambda lay=lay, Q=Q, b=body: lay.point(Q, b, (1.5, 0.0)), 200)
            values = np.radians(np.arange(360.0))
            q0 = mech.state.copy()

            def sweep(mech=mech, d=model.driver, q0=q0, v=values):
                mech.state = q0
                mech.sweep(d, v, batch=True)
            cases["four-bar sweep 360, batched (per pose)"] = (sweep, 1)
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _export(args.base, pathlib.Path(tmp))
        sys.path.insert(0, tmp)
        sys.path.insert(0, str(ROOT))
        sides = {"old": _cases(importlib.import_module("mechsolve_base")),
                 "new": _cases(importlib.import_module("mechsolve"))}
        for side in sides.values():       # warm up
            for run, _ in side.values():
                run()
        times = {name: {"old": [], "new": []} for name in sides["new"]}
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for name in times:
                for side in order:
                    run, calls = sides[side][name]
                    t = _per_call(run, calls)
                    times[name][side].append(t / 360 if "per pose" in name else t)
    print(f"numpy {np.__version__}, {args.rounds} rounds")
    print(f"{'measure (us)':44s}{'old':>10s}{'new':>10s}{'new/old':>10s}  (range)")
    for name, t in times.items():
        old, new = np.array(t["old"]), np.array(t["new"])
        ratio = new / old
        print(f"{name:44s}{np.median(old):10.2f}{np.median(new):10.2f}"
              f"{np.median(ratio):10.3f}  ({ratio.min():.3f}-{ratio.max():.3f})")


if __name__ == "__main__":
    main()
