"""Design sweeps: families of four-bars over 36 crank angles through the batch axis.

Run: python benchmarks/bench_design.py [--quick] [--repeats R] [--no-dask]

Prints a table and writes JSON to ``--out`` (default outside the source tree; see
``_output.py``). The family: random Grashof crank-rockers around the four-bar of
``ms.models.fourbar()`` (ground 4, crank 1, coupler 3, rocker 3.5), every pin and the rocker
pivot moved by up to 0.1 (``A.point1``, ``B.point1``, ``O4.point1``, ``O4.point2``), swept
over 36 crank angles (10-degree steps) with ``ms.design.sweep`` keeping one coupler point
(``outputs=``). For each size: the median time of the repeats (single process), poses per
second, and the peak memory that Python's allocator saw during one more run (tracemalloc:
the NumPy arrays included). With dask installed: a ``LocalCluster(n_workers=2,
threads_per_worker=1)`` on the largest family, its runs interleaved with single-process runs
of the same family, medians of both and their ratio (the cluster started once, outside the
times).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import tracemalloc

import numpy as np
from _output import add_out_option, prepare

import mechsolve as ms

ANGLES = np.radians(np.arange(0.0, 360.0, 10.0))


def family(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    u = lambda: 0.1 * rng.uniform(-1, 1, n)   # noqa: E731
    z = np.zeros(n)
    return {"A.point1": np.c_[0.5 + u(), z], "B.point1": np.c_[1.5 + u(), z],
            "O4.point1": np.c_[1.75 + u(), z], "O4.point2": np.c_[4.0 + u(), u()]}


def run(model, designs, client=None):
    return ms.design.sweep(model.mechanism, designs, model.driver, ANGLES, client=client,
                           outputs=[(model.output, (0.0, 1.0))])


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="families of 10^3 and 10^4 only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    add_out_option(parser, "design.json")
    args = parser.parse_args()
    model = ms.models.fourbar()
    sizes = [1000, 10000] if args.quick else [1000, 10000, 100000]
    rows = []
    for n in sizes:
        designs = family(n)
        res = run(model, designs)    # warm-up, and the check
        complete = int(np.count_nonzero(res.failed_at < 0))
        reps = args.repeats if n < 100000 else max(2, args.repeats - 1)
        times = [timed(lambda d=designs: run(model, d)) for _ in range(reps)]
        tracemalloc.start()
        run(model, designs)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t = float(np.median(times))
        poses = n * len(ANGLES)
        rows.append({"designs": n, "poses": poses, "complete": complete, "seconds": t,
                     "times": times, "poses_per_s": poses / t, "us_per_pose": t / poses * 1e6,
                     "peak_MB": peak / 1e6, "mean_iterations": float(res.iterations[
                         res.success].mean())})
    cluster_row = None
    if not args.no_dask:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            print("dask[distributed] not installed: no cluster timing")
        else:
            n = sizes[-1]
            designs = family(n)
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                run(model, family(2000), client)        # workers warmed up
                single, remote = [], []
                for _ in range(args.repeats):
                    remote.append(timed(lambda: run(model, designs, client)))
                    single.append(timed(lambda: run(model, designs)))
                same = run(model, designs, client)
                ref = run(model, designs)
                identical = bool(np.array_equal(same.points, ref.points, equal_nan=True))
            cluster_row = {"designs": n, "single_s": float(np.median(single)),
                           "cluster_s": float(np.median(remote)), "single_times": single,
                           "cluster_times": remote, "identical": identical}
            cluster_row["ratio"] = cluster_row["cluster_s"] / cluster_row["single_s"]
    print(f"{'designs':>8} {'poses':>9} {'complete':>8} {'time s':>7} {'poses/s':>10} "
          f"{'us/pose':>8} {'its':>5} {'peak MB':>8}")
    for r in rows:
        print(f"{r['designs']:>8} {r['poses']:>9} {r['complete']:>8} {r['seconds']:>7.2f} "
              f"{r['poses_per_s']:>10.3g} {r['us_per_pose']:>8.2f} {r['mean_iterations']:>5.2f} "
              f"{r['peak_MB']:>8.1f}")
    if cluster_row is not None:
        print(f"LocalCluster(n_workers=2, threads_per_worker=1), {cluster_row['designs']} "
              f"designs: {cluster_row['cluster_s']:.2f} s against {cluster_row['single_s']:.2f} s "
              f"in one process (interleaved medians): ratio {cluster_row['ratio']:.2f}, "
              f"identical results: {cluster_row['identical']}")
    out = {"machine": platform.platform(), "python": platform.python_version(),
           "numpy": np.__version__, "angles": len(ANGLES), "single": rows,
           "cluster": cluster_row}
    path = prepare(args.out)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
