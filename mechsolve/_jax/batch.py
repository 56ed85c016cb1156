"""``mech.solve_batch(..., backend="jax")``: many variants of a mechanism on a GPU.

:func:`mechsolve.analysis.solve_batch` with its batch Newton run on JAX's default device: the
Newton core's algorithm for every item (:func:`mechsolve._jax.newton.newton_one`, the core's
rules traced), ``vmap`` over the items, each item iterating until its own stop and then
keeping its pose while the others go on. Everything around the Newton run is the NumPy
path's: the arguments and their checks, the items that :meth:`Mechanism.solve` would treat
beyond Newton (a mirrored joint, ``det J`` of the other sign than at the start), joint limits,
the result and its messages.

An item the device does not decide (the core would switch to least squares, a damping that
fails, out of iterations) is solved by the NumPy path's batch Newton from its start, as
without ``backend="jax"``; the result's ``handed_over`` lists them, ``backend`` is ``"jax"``.

``dtype="float64"`` (default) runs in double precision (``jax.enable_x64``, scoped to the
call): the poses are those of the NumPy path to round-off. ``dtype="float32"`` runs in single
precision with ``tol`` raised to at least ``64 eps`` (7.6e-6) and the pose's error bound to
``64 eps`` of each coordinate's size: poses to about 1e-6 of the model's size, judged (and
finished, for the items handed over) against that ``tol``.
"""

from __future__ import annotations

import numpy as np

from .. import newton as core
from .._validation import as_count, as_float
from ..analysis import batch as numpy_batch
from . import import_jax
from .newton import newton_one
from .sweep import _x64
from .system import TracedSystem

__all__ = ["solve_batch"]

#: Items per device call (the last call padded to it with copies of its first item): one
#: compile per structure and call size, the memory of a call bounded.
CHUNK = 1 << 18

_COMPILED: dict = {}


def solve_batch(mech, states=None, *, dtype=None, chunk=None, **options):
    """:func:`mechsolve.analysis.solve_batch` with the batch Newton on JAX's default device
    (same arguments, same :class:`~mechsolve.analysis.BatchResult`, plus ``backend``,
    ``dtype`` and ``handed_over``). ``chunk``: items per device call (default
    :data:`CHUNK`)."""
    dtype = "float64" if dtype is None else dtype
    if dtype not in ("float64", "float32"):
        raise ValueError(f'dtype must be "float64" or "float32", got {dtype!r}')
    sys = mech.system()
    traced = TracedSystem(sys)    # a TypeError naming the joint the backend cannot trace
    if dtype == "float32":
        eps = float(np.finfo(np.float32).eps)
        tol = as_float(options.get("tol", 1e-10), "tol", positive=True)
        options["tol"] = max(tol, 64 * eps)
    if chunk is not None:
        chunk = as_count(chunk, "chunk", minimum=1)
    # a system that is not square and regular (Bricard's redundant loop, an under-driven
    # one) takes the minimum-norm least-squares step at every iteration, as NumPy's batch
    square = sys.m == sys.n and sys.verdict in (None, "regular")
    out = numpy_batch.solve_batch(mech, states,
                                  newton_step=_Runner(traced, dtype, chunk, not square),
                                  **options)
    out.dtype = dtype
    return out


class _Runner:
    """The device's batch Newton in the shape of :func:`mechsolve.analysis.batch.batch_newton`
    (the ``newton_step`` hook of :func:`~mechsolve.analysis.solve_batch`)."""

    backend = "jax"

    def __init__(self, traced, dtype, chunk=None, only_lsq=False):
        self.traced = traced
        self.dtype = dtype
        self.chunk = CHUNK if chunk is None else chunk
        self.only_lsq = only_lsq

    def __call__(self, sys, Q0, stacked, *, tol, max_iterations, lambda_min):
        """``(Q, ok, iterations, handed)``: the items the device converged (``ok``) and the
        indices of those it hands to the NumPy path."""
        jax, jnp = import_jax()
        f64 = self.dtype == "float64"
        ftype = np.float64 if f64 else np.float32
        eps = float(np.finfo(ftype).eps)
        inv_state = 1.0 / sys.state_scale
        problem = sys.problem(params=stacked)
        pose_rtol = core.POSE_RTOL if f64 else 64 * eps
        tol_b = core.residual_tolerance(tol, Q0, inv_state, eps=eps)
        tiny, quick = core._round_off_bounds(problem, Q0, inv_state, pose_rtol, 0.0)
        B = len(Q0)
        C = min(B, self.chunk)
        batched = tuple(g in stacked for g in range(len(sys.groups)))
        key = (self.traced.key, C, self.dtype, batched, int(max_iterations),
               float(lambda_min), self.only_lsq)
        Q = np.empty(Q0.shape)
        status = np.empty(B, dtype=int)
        its = np.empty(B, dtype=int)
        handed = np.empty(B, dtype=bool)
        with _x64(jax):
            fn = _COMPILED.get(key)
            if fn is None:
                fn = _COMPILED[key] = _build(jax, jnp, self.traced, batched,
                                             int(max_iterations), float(lambda_min),
                                             self.only_lsq)
            consts = [np.asarray(a, dtype=ftype) for a in
                      (sys.col_scale, 1.0 / sys.eq_scale, tol)]
            for a in range(0, B, C):
                b = min(a + C, B)
                part = [_padded(x[a:b], C, ftype) for x in (Q0, tol_b, tiny, quick)]
                Ps = [_padded(stacked[g][a:b], C, ftype) if on else
                      np.asarray(sys.groups[g].P, dtype=ftype) for g, on in enumerate(batched)]
                got = jax.device_get(fn(part[0], Ps, *part[1:], *consts))
                for out, x in zip((Q, status, its, handed), got):
                    out[a:b] = x[: b - a]
        ok = (status == core.CONVERGED) & ~handed
        return Q, ok, its, np.flatnonzero(~ok)


def _padded(x, size, ftype):
    """``x`` with copies of its first row up to ``size`` rows, in ``ftype``."""
    x = np.asarray(x, dtype=ftype)
    if len(x) < size:
        x = np.concatenate([x, np.repeat(x[:1], size - len(x), axis=0)])
    return x


def _build(jax, jnp, traced, batched, max_iterations, lambda_min, only_lsq=False):
    """The jitted batch: ``(Q0 (B, n), Ps, tol_b (B,), tiny (B, n), quick (B, n), c (n,),
    inv_e (m,), tol) -> (Q, status, iterations, handed)``."""

    def one(x0, Ps, tol_b, tiny, quick, c, inv_e, tol):
        def evaluate(x):
            return traced.evaluate(jnp, x, Ps)

        def residual(x):
            return traced.evaluate(jnp, x, Ps, jacobian=False)

        def retract(x, dx):
            return traced.retract(jnp, x, dx)

        x, _, status, its, handed = newton_one(
            jax, jnp, evaluate, residual, x0, c=c, inv_e=inv_e, tol_b=tol_b, error_tol=tol,
            tiny_b=tiny, quick_b=quick, max_iterations=max_iterations, lambda_min=lambda_min,
            retract=retract, only_lsq=only_lsq)
        return x, status, its, handed

    in_axes = (0, [0 if b else None for b in batched], 0, 0, 0, None, None, None)
    return jax.jit(jax.vmap(one, in_axes=in_axes))
