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

* with ``--batch-sizes`` (default 10^4, 10^5, 10^6): ``mech.solve_batch(...,
  backend="jax")`` on that many items of the same family, each at its own random crank angle,
  from the nominal pose, and NumPy's ``solve_batch`` on ``--batch-numpy-size`` (10^4) items;
  pins against the closed form on the nominal pose's branch (items nearer the other branch
  counted as jumps);
* with ``--ik-sizes`` (default 10^3, 10^4, 10^5, 10^6): ``arm.ik(targets, starts,
  backend="jax")`` on the UR5 for targets of random joint vectors in ``[-pi, pi]``, from
  near starts (the joint vectors plus 0.05 rad noise) and from zero starts, and NumPy's
  ``arm.ik`` on ``--ik-numpy-size`` (10^3) targets; success in percent, the largest position
  (in units of the arm's length scale) and orientation errors of the targets met, and the
  targets handed to the NumPy path. ``--only sweep,batch,ik`` picks sections.

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


def batch_items(D: int, seed: int = 2):
    """The family's designs and a random crank angle per item (``solve_batch``'s params)."""
    designs = family(D, seed=seed)
    t = np.random.default_rng(seed + 1).uniform(0.0, 2.0 * np.pi, D)
    return designs, t


def _check_batch(designs, t, states):
    """Largest pin error against the closed form on the nominal pose's branch (the upper one:
    ``B = A + b (cos, sin)(atan2(O4 - A) + gamma)``) and the items nearer the other branch."""
    a = designs["A.point1"][:, 0] + 0.5
    b = designs["B.point1"][:, 0] + 1.5
    c = designs["O4.point1"][:, 0] + 1.75
    o4 = designs["O4.point2"]
    A = np.c_[a * np.cos(t), a * np.sin(t)]
    E = o4 - A
    e2 = np.einsum("ij,ij->i", E, E)
    base = np.arctan2(E[:, 1], E[:, 0])
    gamma = np.arccos(np.clip((b * b + e2 - c * c) / (2 * b * np.sqrt(e2)), -1.0, 1.0))
    cand = [A + b[:, None] * np.c_[np.cos(base + s * gamma), np.sin(base + s * gamma)]
            for s in (1.0, -1.0)]

    def pin(k, local):   # a body's point in global coordinates from the states
        x, y, th = states[:, 3 * k], states[:, 3 * k + 1], states[:, 3 * k + 2]
        return np.c_[x + np.cos(th) * local, y + np.sin(th) * local]

    pA, pB = pin(1, -1.5), pin(2, -1.75)
    dB = [np.hypot(*(pB - cB).T) for cB in cand]
    err = np.maximum(np.hypot(*(pA - A).T), dB[0])
    return float(np.nanmax(err, initial=0.0)), int(np.count_nonzero(dB[1] < dB[0]))


def run_batch_row(kind, D, dtype=None):
    """One ``solve_batch`` row (see the module's docstring)."""
    designs, t = batch_items(D)
    model = ms.models.fourbar()
    mech = model.mechanism
    params = dict(designs, **{"motor.value": t})
    kw = {"raise_on_failure": False}
    compile_s = warm_s = 0.0
    if kind == "jax":
        from mechsolve._jax.batch import CHUNK
        kw.update(backend="jax", dtype=dtype)
        warm = {k: v[: min(D, CHUNK)] for k, v in params.items()}
        t0 = time.perf_counter()
        mech.solve_batch(params=warm, **kw)
        warm_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        mech.solve_batch(params=warm, **kw)
        compile_s = warm_s - (time.perf_counter() - t0)   # the first call's extra: the jit
    t0 = time.perf_counter()
    res = mech.solve_batch(params=params, **kw)
    wall = time.perf_counter() - t0
    err, jumps = _check_batch(designs, t, res.states)
    row = {"section": "batch", "backend": kind, "dtype": dtype or "float64", "items": D,
           "wall_s": wall, "items_per_s": D / wall, "compile_s": compile_s,
           "success_pct": 100.0 * float(np.mean(res.success)),
           "largest_pin_error_rel": err / SIZE, "branch_jumps": jumps,
           "iterations_mean": float(np.mean(res.iterations))}
    if kind == "jax":
        row.update(warmup_s=warm_s, handed_over=int(len(res.handed_over)))
    return row


def ik_targets(D: int, start: str, seed: int = 4):
    """UR5 targets of random joint vectors in ``[-pi, pi]`` and starts ``near`` (plus 0.05
    rad noise) or ``zero``."""
    rng = np.random.default_rng(seed)
    Qt = rng.uniform(-np.pi, np.pi, (D, 6))
    Q0 = Qt + 0.05 * rng.standard_normal((D, 6)) if start == "near" else np.zeros((D, 6))
    return Qt, Q0


def run_ik_row(kind, D, start):
    """One ``arm.ik`` row (see the module's docstring)."""
    arm = ms.robots.ur5()
    Qt, Q0 = ik_targets(D, start)
    T = arm.forward(Qt).as_matrix()
    kw = {"raise_on_failure": False, "backend": kind}
    compile_s = warm_s = 0.0
    if kind == "jax":
        from mechsolve._jax.ik import CHUNK
        w = min(D, CHUNK)
        t0 = time.perf_counter()
        arm.ik(T[:w], Q0[:w], **kw)
        warm_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        arm.ik(T[:w], Q0[:w], **kw)
        compile_s = warm_s - (time.perf_counter() - t0)
    t0 = time.perf_counter()
    res = arm.ik(T, Q0, **kw)
    wall = time.perf_counter() - t0
    ok = np.asarray(res.success)
    row = {"section": "ik", "backend": kind, "dtype": "float64", "start": start, "targets": D,
           "wall_s": wall, "targets_per_s": D / wall, "compile_s": compile_s,
           "success_pct": 100.0 * float(np.mean(ok)),
           "largest_position_error_rel": float(np.max(res.position_error[ok], initial=0.0))
           / arm.length_scale,
           "largest_orientation_error": float(np.max(res.orientation_error[ok], initial=0.0))}
    if kind == "jax":
        row.update(warmup_s=warm_s, handed_over=int(len(res.handed_over)))
    return row


def batch_table(rows) -> str:
    out = ["| solve_batch | dtype | items | wall s | items/s | jit s | success % | "
           "largest pin error / size | branch jumps | handed over |", "|" + "---|" * 10]
    for r in rows:
        out.append(f"| {r['backend']} | {r['dtype']} | {r['items']:.0e} | {r['wall_s']:.3f} | "
                   f"{r['items_per_s']:.3g} | {r['compile_s']:.1f} | {r['success_pct']:.2f} | "
                   f"{r['largest_pin_error_rel']:.2g} | {r['branch_jumps']} | "
                   f"{r.get('handed_over', '-')} |")
    return "\n".join(out)


def ik_table(rows) -> str:
    out = ["| arm.ik (UR5) | starts | targets | wall s | targets/s | jit s | success % | "
           "largest position error / L | largest angle error | handed over |",
           "|" + "---|" * 10]
    for r in rows:
        out.append(f"| {r['backend']} | {r['start']} | {r['targets']:.0e} | {r['wall_s']:.3f} "
                   f"| {r['targets_per_s']:.3g} | {r['compile_s']:.1f} | "
                   f"{r['success_pct']:.2f} | {r['largest_position_error_rel']:.2g} | "
                   f"{r['largest_orientation_error']:.2g} | {r.get('handed_over', '-')} |")
    return "\n".join(out)


def table(rows) -> str:
    head = ("| backend | dtype | designs x angles | wall s | design-poses/s | jit s | device s | "
            "NumPy s (handed) | largest pin error / size | branch jumps | dropped |")
    out = [head, "|" + "---|" * 11]
    for r in rows:
        if r.get("section", "sweep") != "sweep":
            continue
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
    p.add_argument("--batch-sizes", default="1e4,1e5,1e6",
                   help="solve_batch sizes on JAX, comma-separated (default 1e4,1e5,1e6)")
    p.add_argument("--batch-numpy-size", type=float, default=1e4)
    p.add_argument("--ik-sizes", default="1e3,1e4,1e5,1e6",
                   help="arm.ik target counts on JAX, comma-separated")
    p.add_argument("--ik-numpy-size", type=float, default=1e3)
    p.add_argument("--only", default="sweep,batch,ik",
                   help="sections to run, comma-separated: sweep, batch, ik")
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

    only = set(args.only.split(","))
    plan = []
    if "sweep" in only:
        plan += [("numpy", numpy_size, None, 0.0)]
        plan += [("jax", D, "float64", args.mixed) for D in sizes if D <= f32]
        plan += [("jax", f32, "float32", args.mixed)]
        plan += [("jax", D, "float64", args.mixed) for D in sizes if D > f32]
    b_sizes = [int(float(x)) for x in args.batch_sizes.split(",") if x]
    ik_sizes = [int(float(x)) for x in args.ik_sizes.split(",") if x]
    if args.quick:
        b_sizes, ik_sizes = b_sizes[:1], ik_sizes[:1]
    if "batch" in only:
        plan += [("numpy", int(args.batch_numpy_size), None, "batch")]
        plan += [("jax", D, "float64", "batch") for D in b_sizes]
    if "ik" in only:
        plan += [("numpy", int(args.ik_numpy_size), start, "ik") for start in ("near", "zero")]
        plan += [("jax", D, start, "ik") for D in ik_sizes for start in ("near", "zero")]
    # per-second guesses before the first rows: design-poses, batch items, IK targets
    rate = {"numpy": 2e5, "jax": 5e5, ("batch", "numpy"): 2e4, ("batch", "jax"): 1e5,
            ("ik", "numpy"): 2e3, ("ik", "jax"): 1e4}
    last_compile = 60.0
    compiles = {"batch": 30.0, "ik": 60.0}   # jit seconds guessed before the first rows
    for kind, D, dtype, mixed in plan:
        if mixed in ("batch", "ik"):
            sec = mixed
            est = D / rate[(sec, kind)] * (2 if kind == "jax" else 1)
            if kind == "jax":
                est += compiles[sec]
            now = time.perf_counter()
            if now + est > deadline:
                skipped.append({"section": sec, "backend": kind, "size": D,
                                "estimated_s": est, "left_s": deadline - now})
                print(f"skipped {sec} {kind} {D:.0e}: about {est:.0f} s needed, "
                      f"{deadline - now:.0f} s left", flush=True)
                save()
                continue
            try:
                row = (run_batch_row(kind, D) if sec == "batch" else
                       run_ik_row(kind, D, dtype))
            except Exception as exc:   # reported, not fatal
                row = None
                skipped.append({"section": sec, "backend": kind, "size": D,
                                "error": f"{type(exc).__name__}: {exc}"})
                print(f"failed {sec} {kind} {D:.0e}: {type(exc).__name__}: {exc}", flush=True)
            if row is not None:
                rows.append(row)
                key = "items_per_s" if sec == "batch" else "targets_per_s"
                if sec == "batch" or dtype == "zero":
                    rate[(sec, kind)] = row[key]
                if kind == "jax":
                    compiles[sec] = max(row["compile_s"] * 1.5, 5.0)
                print((batch_table if sec == "batch" else ik_table)([row]).splitlines()[-1],
                      flush=True)
            save()
            continue
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
    for sec, tab in (("batch", batch_table), ("ik", ik_table)):
        got = [r for r in rows if r.get("section") == sec]
        if got:
            print()
            print(tab(got))
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
