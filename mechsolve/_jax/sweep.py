"""``ms.design.sweep(..., backend="jax")``: a family of designs over a driver's values on a GPU.

The algorithm of NumPy's :func:`mechsolve.design.sweep` for each design, traced once per
mechanism structure (``jit``), ``vmap`` over designs and ``lax.scan`` over the values:

* the first pose: full Newton steps from the nominal pose, each within a quarter of the one
  before (:data:`~mechsolve.design.sweep.START_CONTRACTION`);
* every next value: the predictor (the tangent step at the first, then cubic Hermite from the
  last two poses and their tangents ``dq/dv``) and Newton corrections until one is below
  :data:`~mechsolve.design.sweep.STEP_DONE` in the model's units (columns scaled by the
  model's length scale), at most ``max_iterations`` (the pose after that correction is exact to
  about its square); the step is accepted as NumPy's is: the residual of every equation, in
  its unit, within ``tol`` plus the round-off of the coordinates (the Newton core's bound,
  :func:`mechsolve.newton.residual_tolerance`: ``tol`` where the model lies within some
  10^5 sizes of the origin), the correction within a quarter of the predicted motion,
  the sign of ``det J`` the one the design started with, the tangent turned by less than 60
  degrees;
* ``J`` factorized per item by Gaussian elimination with partial pivoting written out
  (:func:`~mechsolve._jax.system.solve_with_sign`): corrections, tangents and the sign of
  ``det J`` from one elimination.

A design whose first pose needs the damped Newton core, or whose step to some value is
refused (where NumPy's path retries with shorter steps, and decides between "limit position"
and "branch change"), is not decided on the device: it is handed to NumPy's path
(:func:`mechsolve.design.sweep` with ``backend="numpy"``) for those designs alone, which
gives its poses and, if it drops out, its reason, exactly as without ``backend="jax"``. The
result's ``handed_over`` lists them. The designs of a well-posed family (crank-rockers kept
on their branch) all stay on the device.

With ``client=`` (a ``dask.distributed`` client) the designs go to the cluster's workers in
whole chunks, one part per worker, each on its worker's JAX device; where workers declare a
``GPU`` resource (``dask worker ... --resources GPU=1``, each seeing one GPU, as dask-cuda's
``LocalCUDACluster`` starts them) one part per such worker, asking for ``resources={"GPU":
1}``. The designs handed over are solved here afterwards, together: the result is that of one
process, bit for bit.

``dtype="float64"`` (default) runs in double precision whatever JAX's default (inside
``jax.enable_x64(True)``, scoped to the call); ``dtype="float32"`` in single precision, with
the correction stop at ``sqrt(eps)`` and the residual tolerance raised to ``64 eps`` (about
7.6e-6) of the model's size: poses to about 1e-6 of the model's size.
"""

from __future__ import annotations

import contextlib
import pickle
import time

import numpy as np

from ..newton import residual_tolerance
from . import import_jax
from .system import TracedSystem, solve_with_sign

__all__ = ["design_sweep"]

#: Designs per device call (the last call padded to it): the memory of a call is about 3 kB a
#: design for a four-bar over 36 values.
CHUNK = 1 << 20

#: Newton iterations of a step written out before the loop that takes the rest (a step of a
#: well-posed family takes 2 or 3, the last correction below the stop; on JAX's CPU, 2
#: written out ran the four-bar family in 0.88 of the time of the loop alone, 3 in 1.28)
UNROLLED = 2

_COMPILED: dict = {}


def design_sweep(numpy_path, mech, designs, driver, values, *, chunk=None, tol=1e-10,
                 max_iterations=8, outputs=None, progress=None, dtype=None, client=None):
    """The JAX backend of :func:`mechsolve.design.sweep` (same arguments, same result, with
    ``dtype`` ``"float64"`` or ``"float32"``). ``numpy_path`` is the module
    :mod:`mechsolve.design.sweep` (its constants, its start and its path for the designs handed
    over; given by it, so that this layer imports nothing above it)."""
    dtype = "float64" if dtype is None else dtype
    if dtype not in ("float64", "float32"):
        raise ValueError(f'dtype must be "float64" or "float32", got {dtype!r}')
    fam = numpy_path._checked(mech, designs, driver, values, tol, max_iterations, chunk,
                              progress, outputs)
    driver, values, tol, max_iterations = fam.driver, fam.values, fam.tol, fam.max_iterations
    if fam.system.spatial:   # the predictor and the output points here are planar poses
        raise TypeError('backend="jax" design sweeps support planar mechanisms (dim=2) for '
                        'now; this one is spatial (mech.solve_batch(..., backend="jax") solves '
                        'spatial mechanisms; use backend="numpy" for the sweep)')
    chunk = CHUNK if fam.chunk is None else fam.chunk
    D = fam.D
    B = min(chunk, D)
    if client is None:
        poses, iterations, decided, timings = _on_device(
            numpy_path, mech, fam, driver, values, tol, max_iterations, dtype, B, progress)
    else:
        poses, iterations, decided, timings = _on_cluster(
            numpy_path, client, mech, designs, driver, values, tol, max_iterations, outputs,
            dtype, B, progress)
    keep_states = fam.out_spec is None
    N = len(values)
    success = np.repeat(decided[:, None], N, axis=1)
    failed_at = np.full(D, -1, dtype=np.int64)
    reason = np.full(D, "")
    reached = np.full(D, np.nan)
    handed = np.flatnonzero(~decided)
    if handed.size:
        t0 = time.perf_counter()
        sub = {k: np.asarray(v)[handed] for k, v in designs.items()}
        ref = numpy_path.sweep(mech, sub, driver, values, tol=tol,
                               max_iterations=max_iterations, outputs=outputs,
                               backend="numpy")
        got = ref.states if keep_states else ref.points
        poses[handed] = got
        iterations[handed] = ref.iterations
        success[handed] = ref.success
        failed_at[handed] = ref.failed_at
        reason = reason.astype(ref.reason.dtype)
        reason[handed] = ref.reason
        reached[handed] = ref.reached
        timings["numpy"] = time.perf_counter() - t0
        poses[~success] = np.nan
    return numpy_path.DesignSweep(
        values=values, designs=designs, states=poses if keep_states else None,
        points=None if keep_states else poses, success=success, iterations=iterations,
        failed_at=failed_at, reason=reason, reached=reached, backend="jax",
        dtype=dtype, handed_over=handed, timings=timings)



def _on_device(numpy_path, mech, fam, driver, values, tol, max_iterations, dtype, B,
               progress):
    """The family ``fam`` on this process's JAX device, ``B`` designs a call (the last call
    padded to it): ``(poses, iterations, decided, timings)``."""
    sys, entries, out_spec = fam.system, fam.entries, fam.out_spec
    traced = TracedSystem(sys)
    gd, idd, col = sys.driver_slot(driver)
    D = fam.D
    N = len(values)
    jax, jnp = import_jax()
    timings = {"compile": 0.0, "device": 0.0, "transfer": 0.0, "numpy": 0.0}
    work = pickle.loads(pickle.dumps(mech))   # the nominal start, leaving mech as it is
    index = {id(j): i for i, j in enumerate(mech.joints)}
    q0 = numpy_path._start_pose(work, work.joints[index[id(driver)]], float(values[0]))

    # the family's parameters: the design columns alone (D, W) on the host; each group's
    # (k, p) array is put together on the device from them, the nominal parameters and the
    # driver's value, by static index arithmetic (_param_map)
    f64 = dtype == "float64"
    ftype = np.float64 if f64 else np.float32
    width = sum(sl.stop - sl.start for _, _, sl, _ in entries)
    columns = np.empty((D, width), dtype=ftype)
    where = {}
    w = 0
    for _, joint, sl, arr in entries:
        gi, ii = sys.group_of[id(joint)]
        columns[:, w: w + sl.stop - sl.start] = arr
        for c in range(sl.start, sl.stop):
            where[(gi, ii, c)] = w + c - sl.start   # a later entry wins, as assignments did
        w += sl.stop - sl.start
    param_map = _param_map(sys, where, (gd, idd, col))
    eps = np.finfo(ftype).eps
    step_done = numpy_path.STEP_DONE if f64 else float(np.sqrt(eps))
    tol_used = tol if f64 else max(tol, 64 * eps)
    consts = dict(inv_c=1.0 / sys.col_scale, inv_eq=1.0 / sys.eq_scale,
                  inv_state=1.0 / sys.state_scale, e=_unit(sys, driver), step_done=step_done,
                  tol=tol_used)
    keep_states = out_spec is None
    # a step's correction takes at most the NumPy path's budget (STEP_ITERATIONS, within
    # max_iterations); a design handed over gets the whole max_iterations there
    steps = min(max_iterations, getattr(numpy_path, "STEP_ITERATIONS", max_iterations))
    out_bodies = None if keep_states else tuple(bi for bi, _ in out_spec)
    key = (traced.key, B, N, steps, dtype, (gd, idd, col), param_map, out_bodies, UNROLLED)
    with _x64(jax):
        fn = _COMPILED.get(key)
        if fn is None:
            fn = _COMPILED[key] = _build(jax, jnp, traced, steps, param_map, out_bodies,
                                         jnp.float64 if f64 else jnp.float32, numpy_path)
        shape = (sys.n_state,) if keep_states else (len(out_spec), 2)
        poses = np.empty((D, N) + shape, dtype=ftype)
        iterations = np.empty((D, N), dtype=np.int32)
        decided = np.empty(D, dtype=bool)
        local = (np.zeros((0, 2)) if keep_states else np.array([p for _, p in out_spec]))
        args_c = [jnp.asarray(np.asarray(v, dtype=ftype)) for v in
                  (consts["inv_c"], consts["inv_eq"], consts["inv_state"], consts["e"],
                   consts["step_done"], consts["tol"], q0, values, local)]
        args_c.append([jnp.asarray(np.asarray(g.P, dtype=ftype)) for g in sys.groups])

        def collect(a, b, out):
            """Wait for a chunk's device work, then copy what the result keeps."""
            t0 = time.perf_counter()
            out = jax.block_until_ready(out)
            t1 = time.perf_counter()
            timings["device"] += t1 - t0
            Q, its, ok = jax.device_get(out)
            poses[a:b] = Q[: b - a]
            iterations[a:b] = its[: b - a]
            decided[a:b] = ok[: b - a]
            timings["transfer"] += time.perf_counter() - t1
            if progress is not None:
                progress(b, D)

        pending = None
        for a in range(0, D, B):
            b = min(a + B, D)
            cols = columns[a:b]
            if b - a < B:   # the last chunk padded with its first design (results dropped)
                cols = np.concatenate([cols, np.repeat(cols[:1], B - (b - a), axis=0)])
            cols = jnp.asarray(cols)
            if not fn.compiled:
                t0 = time.perf_counter()
                fn.lower_compile(*args_c, cols)
                timings["compile"] += time.perf_counter() - t0
            out = fn(*args_c, cols)   # dispatched: runs while the chunk before is copied
            if pending is not None:
                collect(*pending)
            pending = (a, b, out)
        collect(*pending)
    return poses, iterations, decided, timings


def _on_cluster(numpy_path, client, mech, designs, driver, values, tol, max_iterations,
                outputs, dtype, B, progress):
    """The family's device part on a dask cluster: whole chunks of ``B`` designs in one part
    per worker, each part on its worker's JAX device; with workers that declare a ``GPU``
    resource (``dask worker ... --resources GPU=1``, one GPU visible to each, as dask-cuda's
    ``LocalCUDACluster`` starts them), one part per such worker, each task asking for
    ``resources={"GPU": 1}``, so that no two run on one GPU. Every design is the same
    computation, in a call of the same shape, as in one process: the results are those of
    one process bit for bit (the designs handed over are solved here, together, afterwards).
    Returns what :func:`_on_device` returns."""
    D = len(next(iter(designs.values())))
    workers = client.scheduler_info().get("workers", {})
    gpus = [w for w, info in workers.items()
            if (info.get("resources") or {}).get("GPU", 0) >= 1]
    parts = max(1, len(gpus) if gpus else len(workers))
    chunks = -(-D // B)
    per = -(-chunks // parts)
    bounds = [(a * B, min((a + per) * B, D)) for a in range(0, chunks, per)]
    index = [i for i, j in enumerate(mech.joints) if j is driver][0]
    remote = client.scatter(mech, broadcast=True, hash=False)
    extra = {"resources": {"GPU": 1}} if gpus else {}
    places = gpus or list(workers)
    # part i on worker i (another where that one is gone: allow_other_workers)
    futures = [client.submit(_part, numpy_path, remote,
                             {k: np.asarray(v)[a:b] for k, v in designs.items()}, index,
                             values, tol, max_iterations, outputs, dtype, B, pure=False,
                             workers=[places[i]] if places else None,
                             allow_other_workers=True, **extra)
               for i, (a, b) in enumerate(bounds)]
    got = []
    for (_, b), fut in zip(bounds, futures):
        got.append(fut.result())
        if progress is not None:
            progress(b, D)
    poses = np.concatenate([g[0] for g in got])
    iterations = np.concatenate([g[1] for g in got])
    decided = np.concatenate([g[2] for g in got])
    timings = {k: sum(g[3][k] for g in got) for k in got[0][3]}
    return poses, iterations, decided, timings


def _part(numpy_path, mech, designs, driver_index, values, tol, max_iterations, outputs,
          dtype, B):
    """One part of :func:`_on_cluster` on a worker (``mech`` its copy)."""
    driver = mech.joints[driver_index]
    fam = numpy_path._checked(mech, designs, driver, values, tol, max_iterations, B, None,
                              outputs)
    return _on_device(numpy_path, mech, fam, fam.driver, fam.values, fam.tol,
                      fam.max_iterations, dtype, B, None)

def _x64(jax):
    """A context in which JAX's arrays may be float64 (``jax.enable_x64(True)``; the
    experimental form of older JAX)."""
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    try:   # pragma: no cover - older JAX
        from jax.experimental import enable_x64  # JAX: imported only when asked for
        return enable_x64()
    except ImportError:   # pragma: no cover - neither: the global switch
        jax.config.update("jax_enable_x64", True)
        return contextlib.nullcontext()


def _unit(sys, driver) -> np.ndarray:
    e = np.zeros(sys.m)
    e[sys.row_of(driver)] = 1.0
    return e


class _Compiled:
    """A jitted family sweep and whether it has been compiled for its shapes."""

    def __init__(self, jitted):
        self.jitted = jitted
        self.compiled = False
        self._exe = None

    def lower_compile(self, *args):
        self._exe = self.jitted.lower(*args).compile()
        self.compiled = True

    def __call__(self, *args):
        return self._exe(*args)


def _param_map(sys, where, slot) -> tuple:
    """Where each entry of each group's ``(k, p)`` parameters comes from on the device: a
    design column's index (>= 0), the nominal value (``-1``) or the driver's value (``-2``)."""
    gd, idd, col = slot
    out = []
    for gi, g in enumerate(sys.groups):
        k, p = np.shape(g.P)
        out.append(tuple(tuple(-2 if (gi, ii, c) == (gd, idd, col) else where.get((gi, ii, c), -1)
                               for c in range(p)) for ii in range(k)))
    return tuple(out)


def _build(jax, jnp, traced, max_iterations, param_map, out_bodies, ftype, numpy_path):
    """The jitted function ``(inv_c, inv_eq, inv_state, e, step_done, tol, q0,
    values, local, base, columns) -> (out (B, N, ...), iterations (B, N), decided (B,))``:
    ``base`` the groups' nominal parameters, ``columns (B, W)`` the designs' columns (placed
    by ``param_map``), ``out`` the states ``(B, N, n_state)``, or with ``out_bodies`` the
    global positions ``(B, N, K, 2)`` of the points ``local (K, 2)`` of those bodies.

    One ``lax.scan`` over the values, the first pose its step 0, and in it the Newton
    corrections: the first :data:`UNROLLED` written out (straight-line code that XLA fuses),
    the rest, where a design needs more, in a ``lax.while_loop``; every iteration masked by
    the design's own state, so that the answers are those of one loop. XLA compiles the
    kernels and the elimination once."""
    # NumPy's path's constants
    correction, start_contraction = numpy_path.CORRECTION, numpy_path.START_CONTRACTION
    turn_cos = numpy_path.TURN_COS
    lax = jax.lax
    n = traced.n
    pi = np.pi
    head = min(UNROLLED, max_iterations)
    eps = float(jnp.finfo(ftype).eps)   # the round-off of the coordinates' precision

    def params(base, cols):
        """The groups' ``(k, p)`` parameters of one design, the driver's entry 0."""
        return [jnp.stack([jnp.stack([cols[w] if w >= 0 else
                                      (jnp.zeros((), ftype) if w == -2 else b[ii, c])
                                      for c, w in enumerate(row)])
                           for ii, row in enumerate(rows)])
                for rows, b in zip(param_map, base)]

    driver_at = [(gi, ii, c) for gi, rows in enumerate(param_map)
                 for ii, row in enumerate(rows) for c, w in enumerate(row) if w == -2]
    (gd, idd, col), = driver_at

    def with_value(Ps, v):
        return [p.at[idd, col].set(v) if gi == gd else p for gi, p in enumerate(Ps)]

    def points(Q, local):
        pts = []
        for k, bi in enumerate(out_bodies):
            X = Q[..., traced.pose_slices[bi]]      # the body's pose (the mechanism's layout)
            x, y, th = X[..., 0], X[..., 1], X[..., 2]
            c, s = jnp.cos(th), jnp.sin(th)
            px, py = local[k, 0], local[k, 1]
            pts.append(jnp.stack([x + c * px - s * py, y + s * px + c * py], axis=-1))
        return jnp.stack(pts, axis=-2)

    def one(inv_c, inv_eq, inv_state, e, step_done, tol, q0, values, local, base,
            cols):
        Ps = params(base, cols)

        def residual_ok(q, Pk):
            """The Newton core's acceptance: every equation in its unit within ``tol`` plus
            the round-off of the coordinates (:func:`mechsolve.newton.residual_tolerance`)."""
            F = traced.evaluate(jnp, q, Pk, jacobian=False)
            return jnp.max(jnp.abs(F) * inv_eq) <= residual_tolerance(tol, q, inv_state,
                                                                      xp=jnp, eps=eps)

        def newton(Qp, Pk, start):
            """Newton from ``Qp``; at the first pose (``start``) only full steps each within
            a quarter of the one before (NumPy's ``_Stepper.assemble``), else as
            ``_Stepper.correct``. Returns the pose, tangent, sign of det J, iterations and
            whether it converged within the tolerance."""
            def body(c):
                it, q, live, done, T, S, last, its = c
                F, J = traced.evaluate(jnp, q, Pk)
                X, sign = solve_with_sign(jnp, J, jnp.stack([-F, e], axis=1))
                dx, t = X[:, 0], X[:, 1]
                size = jnp.max(jnp.abs(dx) * inv_c)
                take = live & (~start | (size <= last * jnp.where(it > 0, start_contraction,
                                                                   1.0)))
                q = jnp.where(take, q + dx, q)
                its = its + take.astype(jnp.int32)
                last = jnp.where(live, size, last)
                fin = take & (size <= step_done)
                T = jnp.where(fin, t, T)
                S = jnp.where(fin, sign, S)
                return it + 1, q, take & ~fin & (size <= pi), done | fin, T, S, last, its

            c = (0, Qp, jnp.bool_(True), jnp.bool_(False), jnp.zeros(n, dtype=ftype),
                 jnp.zeros((), ftype), jnp.asarray(pi, ftype), jnp.int32(0))
            for _ in range(head):   # written out: no loop, fused with what follows
                c = body(c)
            c = lax.while_loop(lambda c: (c[0] < max_iterations) & c[2], body, c)
            _, q, _, done, T, S, _, its = c
            return q, T, S, its, done & residual_ok(q, Pk)

        def scan_body(carry, x):
            Q1, T1, Q2, T2, S0, alive = carry
            v2, v1, v, kind = x        # kind: 0 the first pose, 1 the first step, 2 the rest
            h = v1 - v2
            tau = (v - v2) / h
            t2 = tau * tau
            t3 = t2 * tau
            hermite = Q2 + (h * (t3 - 2 * t2 + tau) * T2 + (3 * t2 - 2 * t3) * (Q1 - Q2)
                            + h * (t3 - t2) * T1)
            Qp = jnp.where(kind == 0, q0, jnp.where(kind == 1, Q1 + (v - v1) * T1, hermite))
            start = kind == 0
            Q, T, S, its, done = newton(Qp, with_value(Ps, v), start)
            pred = jnp.max(jnp.abs(Qp - Q1) * inv_c)
            corr = jnp.max(jnp.abs(Q - Qp) * inv_c)
            ta, tb = T1 * inv_c, T * inv_c
            turn = jnp.dot(ta, tb) >= turn_cos * jnp.sqrt(jnp.dot(ta, ta) * jnp.dot(tb, tb))
            S0 = jnp.where(start, S, S0)
            good = jnp.where(start, done & (S != 0.0),
                             done & (corr <= correction * pred + 10 * tol) & (S == S0) & turn)
            good = good & alive
            new = (jnp.where(good, Q, Q1), jnp.where(good, T, T1),
                   jnp.where(good & ~start, Q1, Q2), jnp.where(good & ~start, T1, T2), S0,
                   good)
            return new, (Q, its)

        N = values.shape[0]
        v1 = jnp.concatenate([values[:1], values[:-1]])
        v2 = jnp.concatenate([values[:1] - 1.0, values[:1] - 1.0, values[:-2]])[:N]
        kind = jnp.minimum(jnp.arange(N), 2)
        carry = (q0, jnp.zeros(n, ftype), q0, jnp.zeros(n, ftype), jnp.zeros((), ftype),
                 jnp.bool_(True))
        carry, (Qs, its) = lax.scan(scan_body, carry, (v2, v1, values, kind))
        return (Qs if out_bodies is None else points(Qs, local)), its, carry[5]

    batched = jax.vmap(one, in_axes=(None,) * 10 + (0,))
    return _Compiled(jax.jit(batched))
