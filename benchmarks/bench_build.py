"""Building big models: the chain of N four-bar loops built, compiled and solved.

Run: python benchmarks/bench_build.py [--quick] [--sizes 1000 10000 100000]

Each size runs in a fresh Python process (so that its peak memory is its own) and reports:
the time to build the model (``ms.models.fourbar_chain(N)``: 2N+1 ``add_body`` and 3N+2
``add`` calls), the time of the first compile (``mech.system()``: groups, sparsity pattern,
scales), one solve with the driver moved by 0.1 rad from the assembled pose, the Newton
iterations, the peak resident memory of the process, and the worst pin separation of the
solved pose computed here from the bodies' poses (not the solver's residual). Medians of
repeats where the size allows. Writes JSON to ``--out`` (default outside the source tree; see
``_output.py``).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

import numpy as np
from _output import add_out_option, prepare


def _pin_error(mech) -> float:
    """Largest distance between the two points of any revolute, from the body poses."""
    worst = 0.0
    for j in mech.joints:
        if type(j).__name__ != "Revolute":
            continue
        pts = []
        for body, p in j.attachments():
            if body.is_ground:
                pts.append(np.asarray(p, float))
            else:
                c, s = np.cos(body.angle), np.sin(body.angle)
                pts.append(body.position + np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]]))
        worst = max(worst, float(np.linalg.norm(pts[0] - pts[1])))
    return worst


def one_size(n: int, repeats: int) -> dict:
    import mechsolve as ms

    builds, compiles, solves = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = ms.models.fourbar_chain(n)
        t1 = time.perf_counter()
        model.mechanism.system()
        t2 = time.perf_counter()
        builds.append(t1 - t0)
        compiles.append(t2 - t1)
    mech, drive = model.mechanism, model.driver
    mech.solve()
    q0 = mech.state
    drive.value = model.values[1]
    for _ in range(repeats):
        mech.state = q0
        t0 = time.perf_counter()
        result = mech.solve()
        solves.append(time.perf_counter() - t0)
    rocker = model.output            # A_1, driven through the first loop
    return {
        "loops": n, "unknowns": int(mech.state.size),
        "build_s": float(np.median(builds)), "compile_s": float(np.median(compiles)),
        "solve_s": float(np.median(solves)), "iterations": int(result.iterations),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "pin_error": _pin_error(mech), "rocker_1_angle": float(rocker.angle),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes 1000 and 10000, 1 repeat")
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=None, help=argparse.SUPPRESS)
    add_out_option(parser, "build.json")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_size(args.one, args.repeats)))
        return
    sizes = args.sizes or ([1000, 10000] if args.quick else [1000, 10000, 100000])
    rows = []
    for n in sizes:
        repeats = 1 if args.quick or n >= 100000 else (5 if n <= 1000 else 3)
        out = subprocess.run([sys.executable, __file__, "--one", str(n), "--repeats",
                              str(repeats)], check=True, capture_output=True, text=True)
        rows.append(json.loads(out.stdout))
    print(f"{'loops':>7} {'unknowns':>9} {'build ms':>9} {'compile ms':>11} {'solve ms':>9} "
          f"{'iters':>5} {'(b+c)/solve':>11} {'peak MB':>8} {'pin error':>10}")
    for r in rows:
        print(f"{r['loops']:>7} {r['unknowns']:>9} {1e3 * r['build_s']:>9.1f} "
              f"{1e3 * r['compile_s']:>11.1f} {1e3 * r['solve_s']:>9.1f} {r['iterations']:>5} "
              f"{(r['build_s'] + r['compile_s']) / r['solve_s']:>11.2f} "
              f"{r['peak_rss_mb']:>8.0f} {r['pin_error']:>10.1e}")
    growth = {}
    if len(rows) > 1:
        n = np.log([r["loops"] for r in rows])
        for key in ("build_s", "compile_s", "solve_s"):
            t = np.log([r[key] for r in rows])
            growth[key] = float(np.polyfit(n, t, 1)[0])
        print("growth exponents (log-log fit over the sizes): " +
              ", ".join(f"{k[:-2]} N^{v:.2f}" for k, v in growth.items()))
    out = prepare(args.out)
    out.write_text(json.dumps({"machine": platform.platform(), "python": platform.python_version(),
                               "rows": rows, "growth": growth}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
