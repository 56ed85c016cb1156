"""Symbolic joints: class creation with a cold and a warm code cache, and kernel speed.

Run: python benchmarks/bench_symbolic.py [--quick]

Prints a table and writes JSON to ``--out`` (default outside the source tree; see
``_output.py``). All times are medians of repeats.

1. Class creation (``mechsolve.symbolic.catalog``: SymRevolute, SymPointOnLine, CircleJoint,
   CamFollower, and the spatial SymSpherical, SymSpatialRevolute and SpatialCircleJoint), each
   in a new Python process: *cold* with an empty cache directory (SymPy differentiates, runs
   cse, prints the code and writes it), *warm* with the cache filled by the cold run (the code
   is read and ``exec``-ed). The import of ``mechsolve.symbolic`` (SymPy's own import, mostly)
   is reported separately. Also in-process: re-creating the class after
   ``clear_memory_cache()`` (disk hit) and with the in-memory cache (memory hit).
2. ``_evaluate`` over 10^4 stacked instances (random parameters and poses, unit quaternions):
   the generated kernels against the hand-written ones of the same joint (target: within 2x),
   planar (Revolute, PointOnLine) and spatial (Spherical, Revolute, CircleJoint), and the
   generated ``_gamma`` against the hand-written one.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from _output import add_out_option, prepare

HERE = pathlib.Path(__file__).resolve().parent
CLASSES = ["revolute", "point_on_line", "circle_joint", "cam_follower", "spherical",
           "revolute:3", "circle_joint:3"]

CHILD = """
import json, sys, time
t0 = time.perf_counter()
from mechsolve.symbolic import catalog
t1 = time.perf_counter()
out = {"import": t1 - t0}
for name in sys.argv[1:]:
    fn, _, dim = name.partition(":")
    t = time.perf_counter()
    getattr(catalog, fn)(*([int(dim)] if dim else []))
    out[name] = time.perf_counter() - t
print(json.dumps(out))
"""


def child_run(cache: str) -> dict:
    env = dict(os.environ, MECHSOLVE_CACHE_DIR=cache)
    res = subprocess.run([sys.executable, "-c", CHILD, *CLASSES], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(res.stdout)


def creation(repeats: int) -> dict:
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(child_run(cache))
            warm.append(child_run(cache))
    keys = ["import", *CLASSES]
    return {
        "cold": {k: float(np.median([r[k] for r in cold])) for k in keys},
        "warm": {k: float(np.median([r[k] for r in warm])) for k in keys},
    }


def in_process(repeats: int) -> dict:
    from mechsolve.symbolic import catalog, clear_memory_cache, symbolic_joint

    with tempfile.TemporaryDirectory() as cache:
        os.environ["MECHSOLVE_CACHE_DIR"] = cache
        d = catalog.circle_joint().definition
        kwargs = dict(bodies=d.bodies, params=d.params, coordinates=d.coordinates,
                      phi=list(d.phi), labels=d.labels)
        disk, memory = [], []
        for _ in range(repeats):
            clear_memory_cache()
            t = time.perf_counter()
            symbolic_joint("CircleJoint", **kwargs)
            disk.append(time.perf_counter() - t)
            t = time.perf_counter()
            symbolic_joint("CircleJoint", **kwargs)
            memory.append(time.perf_counter() - t)
        del os.environ["MECHSOLVE_CACHE_DIR"]
    return {"circle_joint_disk_hit": float(np.median(disk)),
            "circle_joint_memory_hit": float(np.median(memory))}


def _unit_quaternions(rng, k):
    q = rng.normal(size=(k, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _spatial_inputs(rng, k):
    """Poses, velocities and parameter rows of the hand-written spatial joints' layouts."""
    def frame():
        return np.concatenate([rng.normal(size=(k, 3)), _unit_quaternions(rng, k)], axis=1)

    X1, X2 = frame(), frame()
    V1, V2 = rng.normal(size=(k, 6)), rng.normal(size=(k, 6))
    P14 = np.concatenate([frame(), frame()], axis=1)                 # p1, f1, p2, f2
    P22 = np.concatenate([frame(), frame(), frame(), rng.uniform(1, 3, (k, 1))], axis=1)
    S, U = rng.normal(size=(k, 1)), rng.normal(size=(k, 1))
    return X1, X2, V1, V2, P14, P22, S, U


def kernels(k: int, repeats: int, number: int) -> dict:
    import mechsolve as ms
    from mechsolve import joints
    from mechsolve.symbolic import catalog

    rng = np.random.default_rng(0)
    P4 = rng.normal(size=(k, 4))
    P6 = np.concatenate([P4, rng.normal(size=(k, 2))], axis=1)
    X1, X2, V1, V2 = (rng.normal(size=(k, 3)) for _ in range(4))
    rev, pol = catalog.revolute(), catalog.point_on_line()
    Y1, Y2, W1, W2, P14, P22, S, U = _spatial_inputs(rng, k)
    Pb = P14[:, [0, 1, 2, 7, 8, 9]]                                   # the ball's two points
    sph, rev3, circ = catalog.spherical(), catalog.revolute(dim=3), catalog.circle_joint(dim=3)
    m3 = ms.Mechanism(dim=3)
    hrev3 = type(joints.Revolute(m3.ground, m3.add_body("b")))        # spatial Revolute class
    hcirc = joints.CircleJoint
    cases = {
        "Revolute._evaluate (hand-written)": lambda: joints.Revolute._evaluate(P4, X1, X2),
        "SymRevolute._evaluate (generated)": lambda: rev._evaluate(P4, X1, X2),
        "PointOnLine._evaluate (hand-written)": lambda: joints.PointOnLine._evaluate(P6, X1, X2),
        "SymPointOnLine._evaluate (generated)": lambda: pol._evaluate(P6, X1, X2),
        "SymRevolute._gamma (generated)": lambda: rev._gamma(P4, X1, X2, V1, V2),
        "Spherical._evaluate (hand-written)": lambda: joints.Spherical._evaluate(P14, Y1, Y2),
        "SymSpherical._evaluate (generated)": lambda: sph._evaluate(Pb, Y1, Y2),
        "Spherical._gamma (hand-written)": lambda: joints.Spherical._gamma(P14, Y1, Y2, W1, W2),
        "SymSpherical._gamma (generated)": lambda: sph._gamma(Pb, Y1, Y2, W1, W2),
        "Revolute 3D._evaluate (hand-written)": lambda: hrev3._evaluate(P14, Y1, Y2),
        "SymSpatialRevolute._evaluate (generated)": lambda: rev3._evaluate(P14, Y1, Y2),
        "Revolute 3D._gamma (hand-written)": lambda: hrev3._gamma(P14, Y1, Y2, W1, W2),
        "SymSpatialRevolute._gamma (generated)": lambda: rev3._gamma(P14, Y1, Y2, W1, W2),
        "CircleJoint._evaluate (hand-written)": lambda: hcirc._evaluate(P22, Y1, Y2, S),
        "SpatialCircleJoint._evaluate (generated)": lambda: circ._evaluate(P22, Y1, Y2, S),
        "CircleJoint._gamma (hand-written)": lambda: hcirc._gamma(P22, Y1, Y2, S, W1, W2, U),
        "SpatialCircleJoint._gamma (generated)": lambda: circ._gamma(P22, Y1, Y2, S, W1, W2, U),
    }
    for fn in cases.values():
        fn()
    times = {name: [] for name in cases}
    for _ in range(repeats):  # interleaved, so that machine noise hits every case alike
        for name, fn in cases.items():
            t = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - t) / number)
    return {name: float(np.median(v)) for name, v in times.items()}


#: (label, generated case, hand-written case) of the ratios reported.
RATIOS = [
    ("Revolute", "SymRevolute._evaluate (generated)", "Revolute._evaluate (hand-written)"),
    ("PointOnLine", "SymPointOnLine._evaluate (generated)",
     "PointOnLine._evaluate (hand-written)"),
    ("Spherical", "SymSpherical._evaluate (generated)", "Spherical._evaluate (hand-written)"),
    ("Revolute 3D", "SymSpatialRevolute._evaluate (generated)",
     "Revolute 3D._evaluate (hand-written)"),
    ("CircleJoint 3D", "SpatialCircleJoint._evaluate (generated)",
     "CircleJoint._evaluate (hand-written)"),
    ("Spherical gamma", "SymSpherical._gamma (generated)", "Spherical._gamma (hand-written)"),
    ("Revolute 3D gamma", "SymSpatialRevolute._gamma (generated)",
     "Revolute 3D._gamma (hand-written)"),
    ("CircleJoint 3D gamma", "SpatialCircleJoint._gamma (generated)",
     "CircleJoint._gamma (hand-written)"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    add_out_option(parser, "symbolic.json")
    args = parser.parse_args()
    rep_proc = 2 if args.quick else 5
    rep_kern = 7 if args.quick else 31
    k = 10_000

    create = creation(rep_proc)
    inproc = in_process(rep_proc * 4)
    with tempfile.TemporaryDirectory() as cache:  # leave the user's cache alone
        os.environ["MECHSOLVE_CACHE_DIR"] = cache
        kern = kernels(k, rep_kern, 10)
        del os.environ["MECHSOLVE_CACHE_DIR"]

    print("Symbolic joint class creation (new process each; median of "
          f"{rep_proc}), milliseconds")
    print(f"{'':30s}{'cold cache':>12s}{'warm cache':>12s}{'speed-up':>10s}")
    for name in ["import", *CLASSES]:
        c, w = create["cold"][name] * 1e3, create["warm"][name] * 1e3
        fn, _, dim = name.partition(":")
        label = ("import mechsolve.symbolic" if name == "import"
                 else f"catalog.{fn}({'dim=' + dim if dim else ''})")
        print(f"{label:30s}{c:12.1f}{w:12.1f}{c / w:9.1f}x")
    total_c = sum(create["cold"][n] for n in CLASSES) * 1e3
    total_w = sum(create["warm"][n] for n in CLASSES) * 1e3
    print(f"{'all seven classes':30s}{total_c:12.1f}{total_w:12.1f}{total_c / total_w:9.1f}x")
    print(f"in process, CircleJoint again: disk hit {inproc['circle_joint_disk_hit'] * 1e3:.2f} "
          f"ms, memory hit {inproc['circle_joint_memory_hit'] * 1e3:.2f} ms")
    print()
    print(f"Kernels over {k} stacked instances (median of {rep_kern} x 10 calls), microseconds")
    for name, t in kern.items():
        print(f"{name:44s}{t * 1e6:10.0f}")
    ratios = {label: kern[gen] / kern[hand] for label, gen, hand in RATIOS}
    print()
    print("generated / hand-written (target: within 2x)")
    for label, r in ratios.items():
        print(f"{label:24s}{r:8.2f}x")

    import sympy

    import mechsolve

    results = {
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "sympy": sympy.__version__, "mechsolve": mechsolve.__version__,
                    "platform": platform.platform()},
        "creation_seconds": create,
        "in_process_seconds": inproc,
        "kernel_instances": k,
        "kernel_seconds": kern,
        "ratio_generated_over_hand": ratios,
    }
    out = prepare(args.out)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
