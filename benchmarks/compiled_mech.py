"""Planar mechanisms on the NumPy path and the compiled path (numba), interleaved.

Run: python benchmarks/compiled_mech.py [--rounds 7] [--out PATH] [--cold]

Rows (each round times ``backend="numpy"`` and ``backend="numba"`` one after the other,
alternating which goes first; the table gives the medians and the median of the per-round
ratios numba/numpy, below 1 faster):

1. the README four-bar, one ``mech.solve()`` after a 0.3 rad driver move from its assembled
   pose (the median of 50 solves per round); also the compiled Newton call alone (its tables
   and arguments ready), which shows what ``Mechanism.solve``'s Python costs around it;
2. ``ms.models.fourbar()``, 360 poses at 1 degree (``mech.sweep(driver, values)``), in us per
   pose, beside pylinkage's ``Linkage.step_fast`` (numba, closed-form circle intersections) on
   the same four-bar where pylinkage is installed. Check: the crank pin and the coupler-rocker
   pin against the closed form (``benchmarks/peers.py``'s ``fourbar_pins``), largest error;
3. the crossover: ``ms.models.fourbar_chain(n)`` (``6 n + 3`` unknowns), one solve after a 0.1
   rad move, for growing ``n``; the compiled path's size limit is raised for this row only, so
   that the dense compiled Newton meets NumPy's sparse LU above 120 unknowns too.

``--cold`` also times, in new processes with an empty cache, ``ms.compile()`` (numba's cold
compile of the solve and sweep entry points), and with that cache warm the start of an
interpreter to its first compiled solve (``import mechsolve`` included).

Writes JSON to ``--out`` (default ``compiled_mech.json`` under the system's temporary directory;
the tracked copy is ``benchmarks/results/compiled_mech.json``). About two minutes on the
2-core machine without ``--cold``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from _output import add_out_option, prepare  # noqa: E402
from peers import fourbar_pins, installed, pylinkage_fourbar  # noqa: E402

import mechsolve as ms  # noqa: E402
from mechsolve import joints  # noqa: E402
from mechsolve._compiled import _runtime  # noqa: E402
from mechsolve._compiled import _system as compiled_tables  # noqa: E402
from mechsolve._compiled._system import compiled_system  # noqa: E402

FIRST_SOLVE = r"""
import time; t0 = time.perf_counter()
import mechsolve as ms
model = ms.models.fourbar(); mech = model.mechanism
mech.solve(backend="numpy"); model.driver.value = 0.3
assert mech.solve(backend="numba").success
print(time.perf_counter() - t0)
"""


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
    return mech, drive


def interleaved(runners: dict, rounds: int) -> dict:
    """``{name: per-round times}``, each runner called once per round, the order flipped
    every round (each runner already warmed up by the caller)."""
    names = list(runners)
    out = {n: [] for n in names}
    for r in range(rounds):
        for n in (names if r % 2 == 0 else names[::-1]):
            out[n].append(runners[n]())
    return {n: np.array(v) for n, v in out.items()}


def solve_after_move(mech, drive, q0, v0, move, backend, count):
    """Median seconds of ``count`` solves, each after a move of the driver by ``move``
    from the assembled pose ``q0`` (reset untimed)."""
    times = []
    for _ in range(count):
        mech.put_state(q0)
        drive.value = v0 + move
        t0 = time.perf_counter()
        mech.solve(backend=backend)
        times.append(time.perf_counter() - t0)
        drive.value = v0
    return float(np.median(times))


def raw_newton(mech, drive, q0, v0, move, count):
    """Median seconds of the compiled Newton call alone (tables and arguments ready)."""
    sys_ = mech.system()
    t = compiled_system(sys_)
    fn = _runtime.entry("newton")
    drive.value = v0 + move
    P = np.array(t.params())
    drive.value = v0
    args = (q0, P, t.ints, t.packed(0.25, np.pi), 1e-10, 50, np.empty(2 * t.n + 53))
    fn(*args)
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def row(name, unit, numpy_t, numba_t, scale, extra=None):
    ratio = numba_t / numpy_t
    out = {"problem": name, "unit": unit,
           "numpy": float(np.median(numpy_t) * scale), "numba": float(np.median(numba_t) * scale),
           "ratio_median": float(np.median(ratio)),
           "ratio_range": [float(ratio.min()), float(ratio.max())]}
    out.update(extra or {})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cold", action="store_true")
    add_out_option(parser, "compiled_mech.json")
    args = parser.parse_args(argv)
    t_first = time.perf_counter()
    ms.compile()
    first = time.perf_counter() - t_first
    rows = []

    # 1. one solve after a 0.3 rad move
    mech, drive = readme_fourbar()
    mech.solve(backend="numpy")
    q0, v0 = mech.state, drive.value
    runners = {b: (lambda b=b: solve_after_move(mech, drive, q0, v0, 0.3, b, 50))
               for b in ("numpy", "numba")}
    runners["kernel"] = lambda: raw_newton(mech, drive, q0, v0, 0.3, 50)
    for r in runners.values():
        r()
    t = interleaved(runners, args.rounds)
    rows.append(row("README four-bar, one solve after a 0.3 rad move", "us", t["numpy"],
                    t["numba"], 1e6, {"compiled call alone": float(np.median(t["kernel"]) * 1e6)}))

    # 2. the 360-pose sweep
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    coupler = mech.body("coupler")
    values = np.radians(np.arange(360.0))
    mech.solve(backend="numpy")
    q0 = mech.state
    A_ref, B_ref = fourbar_pins(values)
    answers = {}

    def sweep(backend):
        mech.put_state(q0)
        t0 = time.perf_counter()
        motion = mech.sweep(drive, values, backend=backend)
        dt = time.perf_counter() - t0
        answers[backend] = (motion.point(coupler, (-1.5, 0.0)), motion.point(coupler, (1.5, 0.0)))
        return dt

    runners = {b: (lambda b=b: sweep(b)) for b in ("numpy", "numba")}
    pl_version = installed("pylinkage")
    if pl_version:
        run_linkage = pylinkage_fourbar(values)

        def run_pl():
            t0 = time.perf_counter()
            answers["pylinkage"] = run_linkage()
            return time.perf_counter() - t0
        runners["pylinkage"] = run_pl
    for r in runners.values():
        r()
    t = interleaved(runners, args.rounds)
    errors = {k: float(max(np.max(np.abs(a - A_ref)), np.max(np.abs(b - B_ref))))
              for k, (a, b) in answers.items()}
    extra = {"pin error vs closed form": errors}
    if pl_version:
        pl_ratio = t["numba"] / t["pylinkage"]
        extra.update({f"pylinkage {pl_version} step_fast": float(
            np.median(t["pylinkage"]) * 1e6 / 360), "ratio numba / pylinkage": float(
            np.median(pl_ratio)), "ratio numba / pylinkage range": [float(pl_ratio.min()),
                                                                    float(pl_ratio.max())]})
    rows.append(row("four-bar, 360-pose sweep", "us/pose", t["numpy"], t["numba"], 1e6 / 360,
                    extra))

    # 3. the crossover (the compiled path's limit raised for this row)
    old = compiled_tables.COMPILED_LIMIT
    compiled_tables.COMPILED_LIMIT = 10_000
    try:
        for n in (1, 3, 7, 12, 19, 26, 33):
            model = ms.models.fourbar_chain(n)
            mech, drive = model.mechanism, model.driver
            mech.solve(backend="numpy")
            q0, v0 = mech.state, drive.value
            runners = {b: (lambda b=b, m=mech, d=drive, q=q0, v=v0:
                           solve_after_move(m, d, q, v, 0.1, b, 7))
                       for b in ("numpy", "numba")}
            for r in runners.values():
                r()
            t = interleaved(runners, max(3, args.rounds // 2))
            rows.append(row(f"fourbar_chain({n}), {mech.system().n} unknowns, one solve after "
                            "0.1 rad", "us", t["numpy"], t["numba"], 1e6,
                            {"numpy linear algebra": "dense LU" if mech.system().dense
                             else "sparse LU"}))
    finally:
        compiled_tables.COMPILED_LIMIT = old

    cold = {}
    if args.cold:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, MECHSOLVE_CACHE_DIR=tmp)
            env.pop("NUMBA_CACHE_DIR", None)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import mechsolve as ms; ms.compile()"],
                           env=env, check=True, capture_output=True)
            cold["cold compile, new process (s)"] = time.perf_counter() - t0
            out = subprocess.run([sys.executable, "-c", FIRST_SOLVE], env=env, check=True,
                                 capture_output=True, text=True)
            cold["warm cache: interpreter start to first compiled solve (s)"] = float(
                out.stdout.strip().splitlines()[-1])

    print(f"{'problem':62s} {'unit':8s} {'numpy':>10s} {'numba':>10s} {'ratio':>7s}  range")
    for r in rows:
        print(f"{r['problem']:62s} {r['unit']:8s} {r['numpy']:10.2f} {r['numba']:10.2f} "
              f"{r['ratio_median']:7.3f}  {r['ratio_range'][0]:.3f}-{r['ratio_range'][1]:.3f}")
        for k, v in r.items():
            if k not in ("problem", "unit", "numpy", "numba", "ratio_median", "ratio_range"):
                print(f"    {k}: {v}")
    print(f"ms.compile() in this process: {first:.2f} s")
    for k, v in cold.items():
        print(f"{k}: {v:.2f}")
    path = prepare(args.out)
    path.write_text(json.dumps({
        "rows": rows, "compile_in_process_s": first, "cold": cold,
        "machine": platform.platform(), "python": platform.python_version(),
        "numpy": np.__version__, "mechsolve": ms.__version__,
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None},
        indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
