"""``arm.ik(targets, starts, backend="jax")``: inverse kinematics of serial arms on a GPU.

The algorithm of the NumPy path (``SerialArm._solve_ik``) for every target, traced once per
arm structure and batched with ``vmap``:

1. Newton (the core's one-item Newton, :func:`mechsolve._jax.newton.newton_one`, with the
   joint limits kept by projection) from the given start;
2. where that misses, Levenberg–Marquardt (:func:`~mechsolve._jax.newton.lm_one`) from the
   same start, then Newton from where it stopped unless it stalled;
3. where that misses too and the target is within reach, the same from the fixed restart
   vectors in their order, the first that meets the target winning, else the closest pose
   (by ``hypot(position error / L, angle)``).

The rows are those of ``robots._ik._FastChain``: the tool's position in goal axes and the
rotation vector of the orientation error, with the Jacobian's rotation rows through the
inverse of SO(3)'s left Jacobian (``joints._end_effectors._log_rows``). This module takes
plain arrays (the chain's constant parts, the targets folded into the bases) and returns
joint vectors; the arm (:meth:`mechsolve.robots.SerialArm.ik`) wraps the angles, measures the
errors and gives the targets the device missed or handed over to the NumPy path.
"""

from __future__ import annotations

import numpy as np

from .. import newton as core
from .._result import CONVERGED, MAX_ITERATIONS
from . import import_jax
from .newton import lm_one, newton_one, traced_ops
from .sweep import _x64

__all__ = ["solve"]

#: Targets per device call (the last call padded to it with copies of its first target).
CHUNK = 1 << 18

_COMPILED: dict = {}


def solve(chain, base, Q0, within, starts, *, col_scale, length, box, tol, max_iterations,
          max_step, lm_iterations, newton_lambda_min, dtype="float64", chunk=None):
    """Joint vectors for the targets folded into ``base (B, 4, 4)`` from ``Q0 (B, n)``.

    ``chain``: ``(K (n, 3, 16), PP (n, 4, 4), rev (n,) bool, tool (4, 4))`` of the arm's
    ``_FastChain``; ``within (B,)``: whether a target may be restarted (within reach);
    ``starts (R, n)`` the restart vectors; ``box`` ``(lower, upper)`` or None; ``chunk``
    targets per device call (default :data:`CHUNK`).

    Returns ``(Q (B, n), iterations (B,), met (B,), handed (B,))``: ``met`` whether the device
    met the target (by its own rows), ``handed`` the targets it did not decide."""
    jax, jnp = import_jax()
    K, PP, rev, tool = chain
    B, n = Q0.shape
    C = min(B, CHUNK if chunk is None else chunk)
    ftype = np.float64 if dtype == "float64" else np.float32
    key = (np.asarray(K).tobytes(), np.asarray(PP).tobytes(), tuple(np.asarray(rev).tolist()),
           np.asarray(tool).tobytes(), C, len(starts), box is not None, float(tol),
           int(max_iterations), float(max_step), int(lm_iterations), float(newton_lambda_min),
           dtype)
    with _x64(jax):
        fn = _COMPILED.get(key)
        if fn is None:
            fn = _COMPILED[key] = _build(jax, jnp, np.asarray(rev, dtype=bool), box is not None,
                                         len(starts), float(tol), int(max_iterations),
                                         float(max_step), int(lm_iterations),
                                         float(newton_lambda_min))
        lo, hi = (np.zeros(n), np.zeros(n)) if box is None else box
        eq = np.array([length, length, length, 1.0, 1.0, 1.0])
        consts = [np.asarray(a, dtype=ftype) for a in
                  (K, PP, tool, col_scale, 1.0 / eq, lo, hi, np.reshape(starts, (-1, n)),
                   length)]
        Q = np.empty((B, n))
        its = np.empty(B, dtype=int)
        met = np.empty(B, dtype=bool)
        handed = np.empty(B, dtype=bool)
        for a in range(0, B, C):
            b = min(a + C, B)
            got = jax.device_get(fn(_padded(base[a:b], C, ftype), _padded(Q0[a:b], C, ftype),
                                    _padded(within[a:b], C, bool), *consts))
            for out, x in zip((Q, its, met, handed), got):
                out[a:b] = x[: b - a]
    return Q, its, met, handed


def _padded(x, size, dtype):
    """``x`` with copies of its first row up to ``size`` rows, in ``dtype``."""
    x = np.asarray(x, dtype=dtype)
    if len(x) < size:
        x = np.concatenate([x, np.repeat(x[:1], size - len(x), axis=0)])
    return x


def _rows(jnp, q, base, K, PP, tool, rev, all_rev, jac=True):
    """The frame-goal rows ``F (6,)`` and ``J (6, n)`` of one joint vector (see
    ``robots._ik._FastChain.evaluate_one``)."""
    n = q.shape[0]
    W = jnp.stack([jnp.ones_like(q), jnp.cos(q), jnp.sin(q)], axis=-1)
    L = jnp.einsum("ij,ijk->ik", W, K).reshape(n, 4, 4)
    if not all_rev:
        L = L + q[:, None, None] * PP
    C = [base @ L[0]]
    for i in range(1, n):
        C.append(C[-1] @ L[i])
    tip = C[-1] @ tool
    R = tip[:3, :3]
    w, v = _quaternion(jnp, R)
    # the rotation vector of (w, v) and its derivative M (joints._end_effectors._log_rows)
    nv = jnp.sqrt(jnp.sum(v * v))
    pos = nv > 0.0
    safe = jnp.where(pos, nv, 1.0)
    f = jnp.where(pos, 2.0 * jnp.arctan2(nv, w) / safe, 2.0)
    F = jnp.concatenate([tip[:3, 3], f * v])
    if not jac:
        return F
    c = 0.5 * f * w
    k = v / safe
    a = 0.5 * f * v
    skew = jnp.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    M = c * jnp.eye(3, dtype=q.dtype) - skew + (1.0 - c) * k[:, None] * k[None, :]
    Cs = jnp.stack(C)
    z = Cs[:, :3, 2]
    r = tip[:3, 3][None, :] - Cs[:, :3, 3]
    Jv = jnp.cross(z, r)
    if not all_rev:
        Jv = jnp.where(rev[:, None], Jv, z)
        z = z * rev[:, None]
    return F, jnp.concatenate([Jv.T, M @ z.T], axis=0)


def _quaternion(jnp, R):
    """``(w >= 0, v)`` of a rotation matrix (``spatial._quat.quat_from_rotation``): the trace
    formula where ``w >= 0.2``, else Shepperd's method, in the sign of ``quat_canonical``."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    w = 0.5 * jnp.sqrt(jnp.maximum(1.0 + tr, 0.0))
    near = w < 0.2
    f = 0.25 / jnp.where(near, 1.0, w)
    s21, s02, s10 = R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]
    q_t = jnp.stack([w, s21 * f, s02 * f, s10 * f])
    d = jnp.stack([tr, R[0, 0], R[1, 1], R[2, 2]])
    kk = jnp.argmax(d)
    a = jnp.sqrt(jnp.maximum(1.0 + 2.0 * d[kk] - d[0], 0.0))
    p10, p02, p21 = R[1, 0] + R[0, 1], R[0, 2] + R[2, 0], R[2, 1] + R[1, 2]
    aa = a * a
    cases = jnp.stack([jnp.stack([aa, s21, s02, s10]), jnp.stack([s21, aa, p10, p02]),
                       jnp.stack([s02, p10, aa, p21]), jnp.stack([s10, p02, p21, aa])])
    q_s = cases[kk] / jnp.where(a > 0.0, 2.0 * a, 1.0)
    sign = jnp.ones((), R.dtype)
    decided = jnp.bool_(False)
    for i in range(4):
        sign = jnp.where(~decided & (q_s[i] < 0.0), -1.0, sign)
        decided = decided | (q_s[i] != 0.0)
    q = jnp.where(near, q_s * sign + 0.0, q_t)
    return q[0], q[1:]


def _build(jax, jnp, rev, boxed, n_starts, tol, max_iterations, max_step, lm_iterations,
           newton_lambda_min):
    """The jitted batch ``(base, Q0, within, K, PP, tool, c, inv_e, lo, hi, starts, L) ->
    (Q, iterations, met, handed)``."""
    lax = jax.lax
    ops = traced_ops(jnp)
    all_rev = bool(rev.all())
    rev_j = jnp.asarray(rev)

    def one(base, q0, within, K, PP, tool, c, inv_e, lo, hi, starts, L):
        eps = float(jnp.finfo(q0.dtype).eps)

        def evaluate(q):
            return _rows(jnp, q, base, K, PP, tool, rev_j, all_rev)

        def residual(q):
            return _rows(jnp, q, base, K, PP, tool, rev_j, all_rev, jac=False)

        project = (lambda x, dx: jnp.clip(x + dx, lo, hi) - x) if boxed else None
        inv_state = 1.0 / c

        def newton(x0, lambda_min):
            """The core's Newton from ``x0``, its bounds taken there."""
            tol_b = core.residual_tolerance(tol, x0, inv_state, xp=jnp, eps=eps)
            mag = jnp.maximum(1.0, jnp.max(jnp.abs(x0 * inv_state))) * jnp.ones_like(x0)
            tiny, quick = core._bounds_of(ops, mag, core.POSE_RTOL, 0.0)
            return newton_one(jax, jnp, evaluate, residual, x0, c=c, inv_e=inv_e,
                              tol_b=tol_b, error_tol=tol, tiny_b=tiny, quick_b=quick,
                              max_iterations=max_iterations, lambda_min=lambda_min,
                              max_step=max_step, transform=project, least_squares=True)

        def measure(F):
            pos = jnp.sqrt(jnp.sum(F[:3] * F[:3]))
            ang = jnp.sqrt(jnp.sum(F[3:] * F[3:]))
            return jnp.hypot(pos / L, ang), (pos <= tol * L) & (ang <= tol)

        # 1. Newton from the given start
        x, F, _, its, handed = newton(q0, newton_lambda_min)
        best, met = measure(F)

        # 2. and 3.: Levenberg-Marquardt then Newton from the start (k = -1), then from the
        # restart vectors within reach, the first that meets the target winning
        def r_cond(s):
            k = s["k"]
            return ~s["met"] & ~s["handed"] & ((k < 0) | (within & (k < n_starts)))

        def r_body(s):
            k = s["k"]
            x0 = jnp.where(k < 0, q0, starts[jnp.maximum(k, 0)]) if n_starts else q0
            xl, Fl, st, steps, h1 = lm_one(jax, jnp, evaluate, x0, c=c, W=inv_e,
                                           inv_state=inv_state, tol=tol,
                                           max_iterations=lm_iterations, project=project)
            go = (st == CONVERGED) | (st == MAX_ITERATIONS)

            def polish(_):
                return newton(xl, core.LAMBDA_MIN)

            def keep(_):
                return xl, Fl, st, jnp.int32(0), jnp.bool_(False)

            xn, Fn, _, sn, h2 = lax.cond(go & ~h1, polish, keep, None)
            score, hit = measure(Fn)
            better = hit | (score < s["best"])
            return dict(k=k + 1, x=jnp.where(better, xn, s["x"]),
                        best=jnp.where(better, score, s["best"]), met=hit,
                        its=s["its"] + steps + sn, handed=h1 | h2)

        s0 = dict(k=jnp.int32(-1), x=x, best=best, met=met, its=its, handed=handed)
        s = lax.while_loop(r_cond, r_body, s0)
        return s["x"], s["its"], s["met"], s["handed"]

    batched = jax.vmap(one, in_axes=(0, 0, 0) + (None,) * 9)
    return jax.jit(batched)
