"""Design sweeps on a GPU: four-bar families through ``ms.design.sweep(..., backend="jax")``.

Run (from the repository root, mechsolve not installed; numpy, scipy, sympy, matplotlib and
jax importable)::

    PYTHONPATH=. python benchmarks/gpu_design_sweep.py --budget 450

(about 2 to 8 minutes: give the command a 600 s limit; it prints each row as it finishes and
rewrites the JSON after each). A check on the CPU::

    PYTHONPATH=. python benchmarks/gpu_design_sweep.py --sizes 1000 --quick

Through the public API only. The family is the one of ``benchmarks/bench_design.py``: random
Grashof crank-rockers around ``ms.models.fourbar()`` (ground 4, crank 1, coupler 3, rocker
3.5), every pin and the rocker pivot moved by up to 0.1 (``A.point1``, ``B.point1``,
``O4.point1``, ``O4.point2``), over 36 crank angles (10-degree steps), the two coupler pins
kept (``outputs=[(coupler, A), (rocker, B)]``, both fixed in their bodies). ``--mixed F`` puts a
fraction ``F`` of long cranks among them, which stop at a limit position and drop out (the
JAX backend hands them to the NumPy path).

Rows, each printed as it finishes (the sizes that the time left allows, estimated from the
row before; the run stops before ``--budget`` seconds, default 450, and a watchdog ends the
process 60 s after that whatever it is doing):

* NumPy ``design.sweep`` on ``--numpy-size`` designs (default 10^4) on this machine's CPU;
* ``backend="jax"`` in float64 on each of ``--sizes`` (default 10^4, 10^5, 10^6, 10^7);
* one float32 row (``--float32-size``, default 10^6).

For each: the wall time of the call after a warm-up call of the same device batch (the jit
compile is excluded there and reported apart, from the warm-up's ``timings``), design-poses
per second, the time on the device and in the NumPy path (designs handed over), the largest
pin error against the closed form (the crank pin from the crank angle; the rocker pin where
the circles about the crank pin and the rocker pivot meet, on the branch of the design's
first pose), computed on the device with ``jax.numpy``, in units of the model's size
(ground 4) and absolute; the designs whose branch jumped (the sign of the cross product of
coupler and rocker, the sign of ``det J``, changing between kept poses) and the designs
dropped. Prints a markdown table; writes JSON to ``--out`` (default
``$OUT/gpu_design_sweep.json`` when ``OUT`` is set, else beside the other benchmarks'
results, see ``_output.py``), rewritten after every row.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import sys
import threading
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _output import DEFAULT_DIR, prepare  # noqa: E402

import mechsolve as ms  # noqa: E402

ANGLES = np.radians(np.arange(0.0, 360.0, 10.0))
SIZE = 4.0          # the model's size: the ground link


def family(n: int, seed: int = 0, mixed: float = 0.0) -> dict:
    """``n`` crank-rockers (``benchmarks/bench_design.py``'s family); a fraction ``mixed`` of
    them with cranks of 2.1 to 2.3 that reach a limit position."""
    rng = np.random.default_rng(seed)

    def u():
        return 0.1 * rng.uniform(-1, 1, n)

    z = np.zeros(n)
    crank = 0.5 + u()
    long = rng.uniform(size=n) < mixed
    crank[long] = rng.uniform(2.1, 2.3, int(long.sum()))
    return {"A.point1": np.c_[crank, z], "B.point1": np.c_[1.5 + u(), z],
            "O4.point1": np.c_[1.75 + u(), z], "O4.point2": np.c_[4.0 + u(), u()]}


def _check(jnp, a, b, c, o4, t, P, okd):
    """Largest pin error and designs whose branch jumped, for one slice of the family."""
    Ax, Ay = a[:, None] * jnp.cos(t), a[:, None] * jnp.sin(t)
    ex, ey = o4[:, 0:1] - Ax, o4[:, 1:2] - Ay
    e2 = ex * ex + ey * ey
    e = jnp.sqrt(e2)
    base = jnp.arctan2(ey, ex)
    gamma = jnp.arccos(jnp.clip((b[:, None] ** 2 + e2 - c[:, None] ** 2)
                                / (2 * b[:, None] * e), -1.0, 1.0))
    cand = [(Ax + b[:, None] * jnp.cos(base + s * gamma),
             Ay + b[:, None] * jnp.sin(base + s * gamma)) for s in (1.0, -1.0)]
    # the branch of each design: the candidate nearer its first solved pose
    Bx, By = P[..., 1, 0], P[..., 1, 1]
    d0 = [jnp.hypot(cx[:, 0] - Bx[:, 0], cy[:, 0] - By[:, 0]) for cx, cy in cand]
    first = (d0[0] <= d0[1])[:, None]
    Cx = jnp.where(first, cand[0][0], cand[1][0])
    Cy = jnp.where(first, cand[0][1], cand[1][1])
    errA = jnp.hypot(P[..., 0, 0] - Ax, P[..., 0, 1] - Ay)
    errB = jnp.hypot(Bx - Cx, By - Cy)
    err = jnp.where(okd, jnp.maximum(errA, errB), 0.0)
    # sign of det J: the cross product of the coupler (A -> B) and the rocker (B -> O4)
    cross = ((Bx - P[..., 0, 0]) * (o4[:, 1:2] - By) - (By - P[..., 0, 1]) * (o4[:, 0:1] - Bx))
    sgn = jnp.where(okd, jnp.sign(cross), 0.0)
    jumped = jnp.any(okd & (sgn != sgn[:, :1]), axis=1)
    return jnp.max(err), jnp.sum(jumped)


def check_on_device(jax, jnp, designs, points, ok, chunk=1 << 20):
    """Largest pin error against the closed form (NaN anywhere counts as infinite) and the
    number of designs whose branch jumped, computed on the device (``jax.jit``, slices of
    ``chunk`` designs). ``points (D, N, 2, 2)`` holds the coupler's pins A and B (NaN where not
    solved), ``ok (D, N)`` which poses were solved."""
    check = jax.jit(lambda *x: _check(jnp, *x))
    a = designs["A.point1"][:, 0] + 0.5      # crank: O2.point2 = (-0.5, 0)
    b = designs["B.point1"][:, 0] + 1.5      # coupler: A.point2 = (-1.5, 0)
    c = designs["O4.point1"][:, 0] + 1.75    # rocker: B.point2 = (-1.75, 0)
    o4 = designs["O4.point2"]
    t = jnp.asarray(ANGLES)[None, :]
    worst, jumps = 0.0, 0
    for s in range(0, len(a), chunk):
        sl = slice(s, s + chunk)
        err, jumped = check(*(jnp.asarray(x[sl]) for x in (a, b, c, o4)), t,
                            jnp.asarray(points[sl]), jnp.asarray(ok[sl]))
        err = float(err)
        worst = max(worst, err if np.isfinite(err) else np.inf)
        jumps += int(jumped)
    return worst, jumps


def run_row(jax, jnp, kind, D, args, dtype=None, mixed=0.0):
    designs = family(D, seed=1, mixed=mixed)
    model = ms.models.fourbar()
    mech = model.mechanism
    coupler, rocker = mech.body("coupler"), mech.body("rocker")
    outputs = [(coupler, (-1.5, 0.0)), (rocker, (-1.75, 0.0))]
    kw = dict(outputs=outputs)
    compile_s = 0.0
    if kind == "jax":
        from mechsolve._jax.sweep import CHUNK
        kw.update(backend="jax", dtype=dtype)
        warm = {k: v[: min(D, CHUNK)] for k, v in designs.items()}
        t0 = time.perf_counter()
        w = ms.design.sweep(mech, warm, model.driver, ANGLES, **kw)
        warm_s = time.perf_counter() - t0
        compile_s = w.timings["compile"]
    t0 = time.perf_counter()
    res = ms.design.sweep(mech, designs, model.driver, ANGLES, **kw)
    wall = time.perf_counter() - t0
    err, jumps = check_on_device(jax, jnp, designs, res.points, res.success)
    kept = res.failed_at < 0
    row = {"backend": kind, "dtype": dtype or "float64", "designs": D, "angles": len(ANGLES),
           "mixed": mixed, "wall_s": wall, "design_poses_per_s": D * len(ANGLES) / wall,
           "compile_s": compile_s, "largest_pin_error": err,
           "largest_pin_error_rel": err / SIZE, "branch_jumps": jumps,
           "dropped": int(np.count_nonzero(~kept)),
           "reasons": {r: int(np.count_nonzero(res.reason == r))
                       for r in np.unique(res.reason) if r}}
    if kind == "jax":
        row.update(warmup_s=warm_s, handed_over=int(len(res.handed_over)),
                   timings={k: float(v) for k, v in res.timings.items()})
    return row


def table(rows) -> str:
    head = ("| backend | dtype | designs x angles | wall s | design-poses/s | jit s | device s | "
            "NumPy s (handed) | largest pin error / size | branch jumps | dropped |")
    out = [head, "|" + "---|" * 11]
    for r in rows:
        t = r.get("timings", {})
        out.append(
            f"| {r['backend']} | {r['dtype']} | {r['designs']:.0e} x {r['angles']} | "
            f"{r['wall_s']:.3f} | {r['design_poses_per_s']:.3g} | {r['compile_s']:.1f} | "
            f"{t.get('device', float('nan')):.3f} | "
            f"{t.get('numpy', 0.0):.3f} ({r.get('handed_over', '-')}) | "
            f"{r['largest_pin_error_rel']:.2g} | {r['branch_jumps']} | {r['dropped']} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1e4,1e5,1e6,1e7",
                   help="float64 family sizes, comma-separated (default 1e4,1e5,1e6,1e7)")
    p.add_argument("--float32-size", type=float, default=1e6)
    p.add_argument("--numpy-size", type=float, default=1e4)
    p.add_argument("--mixed", type=float, default=0.0,
                   help="fraction of long cranks (limit positions) in the JAX families")
    p.add_argument("--unrolled", type=int, default=None,
                   help="Newton iterations written out before the device loop (default: "
                        "mechsolve._jax.sweep.UNROLLED)")
    p.add_argument("--budget", type=float, default=450.0,
                   help="seconds: no row is started that would end after this")
    p.add_argument("--quick", action="store_true",
                   help="the NumPy and float32 rows at the smallest size (a CPU check)")
    out_default = (pathlib.Path(os.environ["OUT"]) / "gpu_design_sweep.json"
                   if os.environ.get("OUT") else DEFAULT_DIR / "gpu_design_sweep.json")
    p.add_argument("--out", type=pathlib.Path, default=out_default)
    args = p.parse_args(argv)
    start = time.perf_counter()
    deadline = start + args.budget

    def watchdog():
        time.sleep(args.budget + 60.0)
        print(f"watchdog: {args.budget + 60:.0f} s passed, stopping", flush=True)
        os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()

    import mechsolve._jax.sweep as jax_sweep
    if args.unrolled is not None:
        jax_sweep.UNROLLED = args.unrolled

    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)   # the closed-form check in float64
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    numpy_size = int(min(args.numpy_size, min(sizes))) if args.quick else int(args.numpy_size)
    f32 = int(min(args.float32_size, min(sizes))) if args.quick else int(args.float32_size)
    info = {"device": str(jax.devices()[0]), "devices": [str(d) for d in jax.devices()],
            "jax": jax.__version__, "numpy": np.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "processor": platform.processor(),
            "cpu_count": os.cpu_count(), "mechsolve": ms.__version__,
            "argv": sys.argv[1:], "unrolled": getattr(jax_sweep, "UNROLLED", None)}
    print(f"device: {info['device']}, jax {info['jax']}, numpy {info['numpy']}", flush=True)
    rows, skipped = [], []
    path = prepare(args.out)

    def save():
        path.write_text(json.dumps({"info": info, "rows": rows, "skipped": skipped,
                                    "elapsed_s": time.perf_counter() - start}, indent=1))

    plan = [("numpy", numpy_size, None, 0.0)]
    plan += [("jax", D, "float64", args.mixed) for D in sizes if D <= f32]
    plan += [("jax", f32, "float32", args.mixed)]
    plan += [("jax", D, "float64", args.mixed) for D in sizes if D > f32]
    rate = {"numpy": 2e5, "jax": 5e5}   # design-poses/s guesses before the first rows
    last_compile = 60.0
    for kind, D, dtype, mixed in plan:
        poses = D * len(ANGLES)
        from mechsolve._jax.sweep import CHUNK
        est = poses / rate[kind]
        if kind == "jax":
            est += min(D, CHUNK) * len(ANGLES) / rate[kind] + last_compile
        now = time.perf_counter()
        if now + est > deadline:
            skipped.append({"backend": kind, "dtype": dtype, "designs": D,
                            "estimated_s": est, "left_s": deadline - now})
            print(f"skipped {kind} {dtype or ''} {D:.0e}: about {est:.0f} s needed, "
                  f"{deadline - now:.0f} s left", flush=True)
            save()
            continue
        try:
            row = run_row(jax, jnp, kind, D, args, dtype=dtype, mixed=mixed)
        except Exception as exc:   # a row that fails (out of memory) is reported, not fatal
            row = None
            skipped.append({"backend": kind, "dtype": dtype, "designs": D,
                            "error": f"{type(exc).__name__}: {exc}"})
            print(f"failed {kind} {dtype or ''} {D:.0e}: {type(exc).__name__}: {exc}",
                  flush=True)
        if row is not None:
            rows.append(row)
            rate[kind] = row["design_poses_per_s"] if dtype != "float32" else rate[kind]
            last_compile = max(row["compile_s"] * 1.5, 5.0) if kind == "jax" else last_compile
            print(table([row]).splitlines()[-1], flush=True)
        save()
    print()
    print(f"device: {info['device']}; 36 crank angles; errors in units of the model's size "
          f"({SIZE:g}); elapsed {time.perf_counter() - start:.0f} s")
    print(table(rows))
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
