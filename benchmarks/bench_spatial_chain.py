"""Spatial benchmark: a chain of N spatial loops (revolute, spherical and universal joints).

Run: python benchmarks/bench_spatial_chain.py [--quick]

Each loop of :func:`mechsolve.models_spatial.spatial_chain` adds a rocker on a ground revolute
and a coupler body with a spherical joint at one end and a universal joint at the other
(``2N + 1`` bodies, ``6 (2N + 1)`` unknowns, one driver). The driver is moved by 0.1 rad from
the assembled pose; the table gives the total solve time, the Newton iterations and the time of
the sparse LU factorizations alone on the same Jacobians, and the growth exponent of the total
from N = 1000 to N = 10000. Writes benchmarks/results/spatial_chain.json.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform

import numpy as np
import scipy
from bench_planar import bench_chain

from mechsolve.models_spatial import spatial_chain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, N up to 1000")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10000]
    rows = [bench_chain(n, repeats if n < 10000 else 3, build=spatial_chain) for n in sizes]
    print("Spatial chain of N loops (R, S, U joints), driver moved by 0.1 rad; median times")
    print(f"{'N':>6}{'unknowns':>10}{'iters':>6}{'total ms':>10}{'LU ms':>9}{'total/LU':>9}"
          f"{'solver':>14}")
    for c in rows:
        print(f"{c['N']:>6}{c['unknowns']:>10}{c['iterations']:>6}{c['total_ms']:>10.2f}"
              f"{c['factor_ms']:>9.2f}{c['ratio']:>9.2f}{c['linear_solver']:>14}")
    by_n = {c["N"]: c for c in rows}
    growth = None
    if 1000 in by_n and 10000 in by_n:
        growth = float(np.log(by_n[10000]["total_ms"] / by_n[1000]["total_ms"]) / np.log(10))
        print(f"growth exponent of total time from N=1000 to N=10000: {growth:.3f}")
    out = pathlib.Path(__file__).parent / "results" / "spatial_chain.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"machine": platform.platform(), "scipy": scipy.__version__,
                               "chain": rows, "growth_exponent_1000_10000": growth}, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
