"""Spatial benchmark: a chain of N spatial loops (revolute, spherical and universal joints).

Run: python benchmarks/bench_spatial_chain.py [--quick]

Each loop of :func:`mechsolve.models.spatial.spatial_chain` adds a rocker on a ground revolute
and a coupler body with a spherical joint at one end and a universal joint at the other
(``2N + 1`` bodies, ``6 (2N + 1)`` unknowns, one driver). The driver is moved by 0.1 rad from
the assembled pose; the table gives the total solve time, the Newton iterations, the time of
the sparse LU factorizations (inside the solve, and alone on the same Jacobians) and the growth
exponent of the total from N = 1000 to N = 10000. Writes JSON to ``--out`` (default outside the
source tree; see ``_output.py``).
"""

from __future__ import annotations

import argparse
import json
import platform

import scipy
from _output import add_out_option, prepare
from bench_planar import bench_chain, print_chain_table

from mechsolve.models.spatial import spatial_chain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, N up to 1000")
    add_out_option(parser, "spatial_chain.json")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10000]
    rows = [bench_chain(n, repeats if n < 10000 else 5, build=spatial_chain) for n in sizes]
    growth = print_chain_table("Spatial chain of N loops (R, S, U joints), driver moved by 0.1 "
                               "rad; median times (total/LU: median of total / LU in solve)", rows)
    out = prepare(args.out)
    out.write_text(json.dumps({"machine": platform.platform(), "scipy": scipy.__version__,
                               "chain": rows, "growth_exponent_1000_10000": growth}, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
