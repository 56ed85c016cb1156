"""Benchmark the batched spatial kernels against per-object loops and SciPy's Rotation.

Run from the repository root::

    python benchmarks/bench_spatial.py [--repeats 7] [--quick]

Each timing is the median of ``--repeats`` runs. Per-object Python loops are timed on a
subset (``LOOP_SUBSET`` items) and scaled linearly to the full size; the table marks them.
Results are printed as a table and written to ``--out`` (default outside the source tree; see
``_output.py``).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np
import scipy
from _output import add_out_option, prepare
from scipy.spatial.transform import Rotation

from mechsolve.spatial import Frame, Orientation
from mechsolve.spatial._quat import (
    frame_compose,
    quat_exp,
    quat_multiply,
    quat_rotate,
    quat_to_matrix,
)

N_FRAMES = 100_000
N_VECTORS = 1_000_000
LOOP_SUBSET = 10_000


def median_time(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="10x smaller sizes (smoke test)")
    add_out_option(parser, "spatial.json", "--output")
    args = parser.parse_args(argv)
    n_frames, n_vectors, subset = N_FRAMES, N_VECTORS, LOOP_SUBSET
    if args.quick:
        n_frames, n_vectors, subset = n_frames // 10, n_vectors // 10, subset // 10
    repeats = args.repeats

    rng = np.random.default_rng(0)
    t1, t2 = rng.normal(size=(2, n_frames, 3))
    q1 = Rotation.random(n_frames, rng).as_quat(scalar_first=True)
    q2 = Rotation.random(n_frames, rng).as_quat(scalar_first=True)
    qv = Rotation.random(n_vectors, rng).as_quat(scalar_first=True)
    vecs = rng.normal(size=(n_vectors, 3))
    rotvecs = rng.normal(size=(n_vectors, 3))

    rows: list[dict] = []

    def add(task, method, n, seconds, scaled_from=None):
        rows.append(
            {
                "task": task,
                "method": method,
                "n": n,
                "seconds": seconds,
                "ns_per_item": seconds / n * 1e9,
                "scaled_from": scaled_from,
            }
        )

    # ------------------------------------------------------------ compose frame pairs
    task = f"compose {n_frames:.0e} frame pairs"
    add(
        task,
        "batch kernel frame_compose",
        n_frames,
        median_time(lambda: frame_compose(t1, q1, t2, q2), repeats),
    )
    A, B = Frame(t1, Orientation(q1)), Frame(t2, Orientation(q2))
    add(task, "batch Frame objects (A * B)", n_frames, median_time(lambda: A * B, repeats))
    fa = [Frame(t1[i], Orientation(q1[i])) for i in range(subset)]
    fb = [Frame(t2[i], Orientation(q2[i])) for i in range(subset)]
    loop = median_time(lambda: [a * b for a, b in zip(fa, fb, strict=True)], max(3, repeats // 2))
    add(task, "per-object Frame loop", n_frames, loop * n_frames / subset, scaled_from=subset)
    r1 = Rotation.from_quat(q1, scalar_first=True)
    r2 = Rotation.from_quat(q2, scalar_first=True)

    def scipy_compose():
        return t1 + r1.apply(t2), r1 * r2

    add(task, "SciPy Rotation (__mul__ + apply)", n_frames, median_time(scipy_compose, repeats))

    # ------------------------------------------------------------ rotate vectors
    task = f"rotate {n_vectors:.0e} vectors, one quaternion each"
    add(
        task,
        "batch kernel quat_rotate",
        n_vectors,
        median_time(lambda: quat_rotate(qv, vecs), repeats),
    )
    ov = Orientation(qv)
    add(task, "batch Orientation (q * v)", n_vectors, median_time(lambda: ov * vecs, repeats))
    singles = [Orientation(qv[i]) for i in range(subset)]
    loop = median_time(lambda: [o * vecs[i] for i, o in enumerate(singles)], max(3, repeats // 2))
    add(
        task,
        "per-object Orientation loop",
        n_vectors,
        loop * n_vectors / subset,
        scaled_from=subset,
    )
    rv = Rotation.from_quat(qv, scalar_first=True)
    add(
        task,
        "SciPy Rotation.apply (stacked)",
        n_vectors,
        median_time(lambda: rv.apply(vecs), repeats),
    )

    task = f"rotate {n_vectors:.0e} vectors by one quaternion"
    add(
        task,
        "batch kernel quat_rotate",
        n_vectors,
        median_time(lambda: quat_rotate(qv[0], vecs), repeats),
    )
    r0 = Rotation.from_quat(qv[0], scalar_first=True)
    add(
        task,
        "SciPy Rotation.apply (single)",
        n_vectors,
        median_time(lambda: r0.apply(vecs), repeats),
    )

    # ------------------------------------------------------------ conversions
    task = f"convert {n_vectors:.0e} quaternions"
    add(task, "quat_to_matrix", n_vectors, median_time(lambda: quat_to_matrix(qv), repeats))
    add(
        task,
        "SciPy as_matrix (incl. from_quat)",
        n_vectors,
        median_time(lambda: Rotation.from_quat(qv, scalar_first=True).as_matrix(), repeats),
    )
    add(
        task,
        "quat_exp (rotvec -> quaternion)",
        n_vectors,
        median_time(lambda: quat_exp(rotvecs), repeats),
    )
    add(
        task,
        "SciPy from_rotvec().as_quat",
        n_vectors,
        median_time(lambda: Rotation.from_rotvec(rotvecs).as_quat(scalar_first=True), repeats),
    )
    add(task, "quat_multiply", n_vectors, median_time(lambda: quat_multiply(qv, qv[::-1]), repeats))

    print_table(rows, repeats)
    prepare(args.out)
    payload = {
        "benchmark": "mechsolve.spatial",
        "repeats": repeats,
        "statistic": "median",
        "loop_subset": subset,
        "note": "per-object loop rows are timed on loop_subset items and scaled linearly",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "machine": platform.machine(),
        "rows": rows,
    }
    args.out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    return rows


def print_table(rows: list[dict], repeats: int) -> None:
    print(f"mechsolve.spatial benchmark (median of {repeats} repeats)")
    header = f"{'task':<44} {'method':<36} {'time [ms]':>10} {'ns/item':>9} {'vs best':>8}"
    print(header)
    print("-" * len(header))
    last = None
    best = {}
    for row in rows:
        best[row["task"]] = min(best.get(row["task"], np.inf), row["seconds"])
    for row in rows:
        task = row["task"] if row["task"] != last else ""
        last = row["task"]
        method = row["method"] + (" *" if row["scaled_from"] else "")
        print(
            f"{task:<44} {method:<36} {row['seconds'] * 1e3:>10.2f} "
            f"{row['ns_per_item']:>9.1f} {row['seconds'] / best[row['task']]:>7.1f}x"
        )
    subsets = {r["scaled_from"] for r in rows if r["scaled_from"]}
    if subsets:
        print(
            f"* timed on {', '.join(f'{s:,}' for s in sorted(subsets))} items and scaled "
            "linearly to the full size"
        )


if __name__ == "__main__":
    main()
