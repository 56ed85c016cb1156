"""Many variants of one mechanism solved at once through the batch axis of the Newton core."""

from __future__ import annotations

import numpy as np

from .._limits import unreachable_message
from .._names import _DIRECTIONS, _POSITIVE, _QUATERNIONS, _close, parameter_slices
from .._result import (
    AT_LIMIT,
    CONVERGED,
    DEFAULT_MAX_ITERATIONS,
    NOT_SOLVED,
    Result,
    status_message,
)
from .._validation import as_count, as_float
from ..joints.base import DriverJoint, Joint
from ..linalg import det_sign, det_signs
from ..newton import LAMBDA_MIN, LinearStrategy, residual_tolerance
from ..newton import newton as core_newton
from ..solver import NEAR_LAMBDA_MIN, SolveError, SolveResult

__all__ = ["BatchResult", "batch_newton", "det_signs", "solve_batch"]


def batch_newton(sys, Q0, params, *, tol, max_iterations=8, square=True, signs=False,
                 reference=None, residual=False, lambda_min=LAMBDA_MIN):
    """Newton on many poses at once through the batch axis (dense systems), by the Newton core.

    ``Q0`` is ``(B, n_state)``; ``params`` maps group indices to stacked parameters
    ``(B, k, p)``. Returns ``(Q, ok, iterations, det_signs)``; the signs of ``det J`` (at the
    last Jacobian of each converged item) when ``signs``, else zeros. ``reference`` is
    optional ``(K, sign, which)``: inverses ``K (R, n, n)`` of regular scaled Jacobians, the
    signs ``(R,)`` of their determinants and, for every item, the index of one near it
    (-1 for none; items that share one are best consecutive), see :func:`det_signs`. With
    ``residual`` the residual vectors ``(B, m)`` at the returned states come fifth.
    ``lambda_min``: the smallest damping factor before an item gives up (see
    :func:`mechsolve.newton.newton`).
    """
    out = core_newton(sys.problem(params=params), Q0, tol=tol, max_iterations=max_iterations,
                      strategy=LinearStrategy("auto" if square else "lsq"),
                      lambda_min=lambda_min)
    sign = np.zeros(len(Q0))
    ok = out.success
    if signs and ok.any():
        J = sys.jacobian_dense(out.jacobian[ok])
        J *= sys.col_scale
        sign[ok] = det_signs(J) if reference is None else det_signs(
            J, reference[0], reference[1], reference[2][ok])
    if residual:
        return out.x, ok, out.iterations, sign, out.F
    return out.x, ok, out.iterations, sign


def solve_batch(mech, states=None, *, values=None, params=None, tol: float = 1e-10,
                max_iterations: int = DEFAULT_MAX_ITERATIONS, raise_on_failure: bool = True,
                newton_step=None):
    """Solve many variants of one mechanism at once through the batch axis.

    Each batch item has its own start state and its own driver values or joint parameters
    (IK targets, design variants); all are refined together by Newton on stacked arrays.

    Parameters
    ----------
    mech : Mechanism
    states : array_like, shape (B, n_state), optional
        Start states (default: the current state for every item).
    values : dict, optional
        ``{driver: array (B,)}``: driver values per item.
    params : dict, optional
        Per-item parameters, by name or by joint: ``{"O4.point2": array (B, 2), "motor.value":
        array (B,)}`` sets a named part of a joint's parameter vector (the names of
        ``mech.parameters()``, see :mod:`mechsolve.design.parameters`), ``{joint: array (B,
        p)}`` (a joint or its name) a joint's full parameter vector (e.g. an end effector's
        target). Both forms may be mixed.
    tol, max_iterations : as in :meth:`Mechanism.solve`.
    raise_on_failure : bool
        Raise :class:`~mechsolve.SolveError` if any item fails (default), naming them.
    newton_step : callable, optional
        Another executor of the batch Newton (a backend's: ``mech.solve_batch(...,
        backend="jax")``), called as ``newton_step(sys, Q0, stacked, tol=, max_iterations=,
        lambda_min=)`` and returning ``(Q, ok, iterations, handed)``: the items ``handed``
        (indices) are solved by the NumPy path's batch Newton from their start, and the
        result says which (``handed_over``) and which executor ran (``backend``).

    Joint limits are checked on every item's pose: an item whose pose breaks one fails, with
    the limit and its excess in ``reasons`` (no active set here: the items of a batch are
    posed by their drivers).

    Returns
    -------
    BatchResult
        ``states (B, n_state)``, ``success (B,)``, ``status (B,)``, ``iterations (B,)``,
        ``residual (B,)`` (each item's largest residual in its unit, as ``tol``),
        ``residual_abs (B,)``.

    Notes
    -----
    Every item lands where :meth:`Mechanism.solve` lands from the same start: the batch runs
    Newton on all items at once, and the items solve() would treat beyond Newton (one that
    failed, one at a mirror image of a joint, one whose ``det J`` changed sign on the way:
    Newton crossed a singular configuration) are then solved one at a time by solve()'s
    pipeline.
    """
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    sys = mech.system()
    if not sys.dense:
        raise ValueError(f"solve_batch works on dense systems (up to {sys.n} unknowns is too "
                         "many); solve large mechanisms one at a time")
    entries = per_item_entries(mech, values, params)
    sizes = {label: len(a) for label, _, _, a in entries}
    if states is not None:
        states = _finite_array(states, "states")
        if states.ndim != 2 or states.shape[1] != sys.n_state or not len(states):
            raise ValueError(f"states must have shape (B, {sys.n_state}), got {states.shape}")
        states = mech.checked_states(states)
        sizes["states"] = len(states)
    if not sizes:
        raise ValueError("solve_batch needs the batch: states=, values= or params=")
    if len(set(sizes.values())) != 1:
        raise ValueError("batch sizes disagree: " + ", ".join(f"{k} has {v}"
                                                             for k, v in sizes.items()))
    B = next(iter(sizes.values()))
    Q0 = np.repeat(mech.state[None], B, axis=0) if states is None else states
    stacked = stack_entries(sys, entries, B)
    square = sys.m == sys.n and sys.verdict in (None, "regular")
    # Newton as solve() starts it: an item that needs heavier damping than NEAR_LAMBDA_MIN
    # has left Newton's domain of convergence (it could wander to a far assembly) and goes
    # solve()'s way below
    if newton_step is None:
        Q, ok, its, _ = batch_newton(sys, Q0, stacked, tol=tol, max_iterations=max_iterations,
                                     square=square, lambda_min=NEAR_LAMBDA_MIN)
        handed = None
    else:
        Q, ok, its, handed = newton_step(sys, Q0, stacked, tol=tol,
                                         max_iterations=max_iterations,
                                         lambda_min=NEAR_LAMBDA_MIN)
        if len(handed):   # the items the other executor did not decide: NumPy's Newton
            Q[handed], ok[handed], its[handed], _ = batch_newton(
                sys, Q0[handed], _items(stacked, handed), tol=tol,
                max_iterations=max_iterations, square=square, lambda_min=NEAR_LAMBDA_MIN)
    # every item where solve() would go beyond plain Newton goes the way solve() goes
    for b in _beyond_newton(sys, Q0, Q, ok, stacked, square).tolist():
        Q[b], ok[b], its[b] = _solved_alone(mech, sys, Q0[b], stacked, b, tol, max_iterations)
    # each equation in its unit (lengths in the model's size), as Newton and solve() judge it
    phi = np.abs(sys.phi(Q, params=stacked))
    res = np.max(phi / sys.eq_scale, axis=1, initial=0.0)
    ok &= res <= residual_tolerance(tol, Q, 1.0 / sys.state_scale)   # tol plus round-off
    status = np.where(ok, CONVERGED, NOT_SOLVED)
    out = BatchResult(states=Q, success=ok, status=status, iterations=its, residual=res,
                      residual_abs=np.max(phi, axis=1, initial=0.0))
    if handed is not None:
        out.backend = getattr(newton_step, "backend", "other")
        out.handed_over = np.asarray(handed, dtype=np.intp)
    limits = sys.limits
    if limits is not None:
        # the items' poses are fixed by their drivers: one beyond a joint limit fails

        M = limits.measure(Q, params=stacked)
        broken = ok & (limits.excess(M)[0] > tol).any(axis=1)
        out.reasons = [unreachable_message(limits.violated(M[b], tol), f"item {b}")
                       if broken[b] else None for b in range(B)]
        ok &= ~broken
        status[broken] = AT_LIMIT
        out.active_limits = [limits.active(M[b]) if ok[b] else [] for b in range(B)]
    out.message = status_message(status)
    if raise_on_failure and not ok.all():
        bad = np.flatnonzero(~ok)
        reason = out.get("reasons", [None] * B)[bad[0]]
        if reason is not None:
            err = SolveError(f"{len(bad)} of {B} batch items failed (items "
                             f"{bad[:10].tolist()}{'...' if len(bad) > 10 else ''}); {reason}")
            err.batch = out
            raise err
        phi = sys.phi(Q[bad[0]], params={g: P[bad[0]] for g, P in stacked.items()})
        first = SolveResult(success=False, status=NOT_SOLVED, iterations=int(its[bad[0]]),
                            residual=float(res[bad[0]]),
                            residual_abs=float(np.max(np.abs(phi), initial=0.0)),
                            message="batch item did not converge", rank_status="unknown",
                            joint_residuals=sys.joint_residuals(phi), history=[],
                            redundant=[], free_dof=0, rank=None)
        worst = first.joint_residuals.largest(3)
        saved = {g: sys.groups[g].P.copy() for g in stacked}
        try:  # describe the joints with the failing item's own parameters (e.g. its target)
            for g, P in stacked.items():
                sys.groups[g].P[...] = P[bad[0]]
            names = "; ".join(f"{j.describe()}: {np.max(np.abs(r)):.3g}" for j, r in worst)
        finally:
            for g, P in saved.items():
                sys.groups[g].P[...] = P
        err = SolveError(f"{len(bad)} of {B} batch items did not converge (items "
                         f"{bad[:10].tolist()}{'...' if len(bad) > 10 else ''}); item "
                         f"{bad[0]} has residual {res[bad[0]]:.3g}, largest at {names}", first)
        err.batch = out
        raise err
    return out


def _beyond_newton(sys, Q0, Q, ok, stacked, square: bool) -> np.ndarray:
    """The items of a batch Newton run that :meth:`Mechanism.solve` would not have returned as
    Newton left them: those that failed (solve() assembles the joints first), those at a mirror
    image of a joint, and, for square systems, those whose ``det J`` has the other sign than
    at their start (Newton crossed a singular configuration: solve() looks for the assembly
    on the start's circuit)."""
    if not len(Q):
        return np.zeros(0, dtype=np.intp)
    odd = ~ok
    if ok.any():
        odd[ok] |= sys.mirrored(Q[ok], params=_items(stacked, ok)).any(axis=-1)
    if square and sys.n and ok.any():
        params = _items(stacked, ok)
        with np.errstate(all="ignore"):
            start, end = (det_sign(sys.jacobian_dense(sys.evaluate(X, params)[1]))
                          for X in (Q0[ok], Q[ok]))
        odd[ok] |= start * end < 0
    return np.flatnonzero(odd)


def _items(stacked: dict, which) -> dict:
    """The stacked parameters of the items ``which`` (a mask or indices)."""
    return {g: P[which] for g, P in stacked.items()}


def _solved_alone(mech, sys, q0, stacked, b: int, tol: float, max_iterations: int):
    """Item ``b`` from ``q0`` through :meth:`Mechanism.solve`'s pipeline (its assembly, circuit
    and mirror decisions) with the item's parameters: ``(q, success, iterations)``. The
    mechanism's state and parameters are as they were afterwards."""
    saved = {g: sys.groups[g].P.copy() for g in stacked}
    last = mech.last_result
    try:
        for g, P in stacked.items():
            sys.groups[g].P[...] = P[b]
        with mech.trying_state(q0):
            try:
                result = mech.solve(tol=tol, max_iterations=max_iterations)
            except SolveError as exc:
                return q0, False, int(exc.result.iterations) if exc.result is not None else 0
            return mech.state, bool(result.success), int(result.iterations)
    finally:
        for g, P in saved.items():
            sys.groups[g].P[...] = P
        mech.last_result = last


def per_item_entries(mech, values=None, params=None, what: str = "params") -> list:
    """Every per-item entry of ``values=`` (``{driver: (B,)}``) and ``params=`` (named parts
    ``{"O4.point2": (B, 2)}``, or full vectors ``{joint: (B, p)}``), checked: a list of
    ``(label, joint, columns, array (B, width))``, ``columns`` the slice of the joint's
    parameter vector the array fills. Raises ValueError or TypeError naming the entry."""
    out = []
    for joint, arr in _keyed(mech, values, "values").items():
        if not isinstance(joint, DriverJoint):
            raise TypeError(f"values: {joint.label} is not a driver; values= takes drivers (or "
                            "their names), params= a joint's parameter vectors")
        label = f"values[{joint.label}]"
        a = _finite_array(arr, label)
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"{label} must be a non-empty 1-D array of driver values, got "
                             f"shape {a.shape}")
        col = joint._value_index % joint._p.size
        out.append((label, joint, slice(col, col + 1), a[:, None]))
    if params is None:
        return out
    if not isinstance(params, dict):
        raise TypeError(f"{what} must be a dict {{name or joint: array}}, got "
                        f"{type(params).__name__}")
    table = None
    joints = {}
    for key, arr in params.items():
        if isinstance(key, str) and "." in key:
            if table is None:
                table = parameter_slices(mech)
            if key in table:
                joint, sl = table[key]
                size = sl.stop - sl.start
                label = f"{what}[{key!r}]"
                a = _finite_array(arr, label)
                if size == 1 and a.ndim == 1:
                    a = a[:, None]
                if a.ndim != 2 or a.shape[1] != size or not len(a):
                    want = "(B,) or (B, 1)" if size == 1 else f"(B, {size})"
                    raise ValueError(f"{label} must have shape {want} (one {key} per item), "
                                     f"got {np.shape(arr)}")
                part = key.rsplit(".", 1)[1]
                if part in _POSITIVE and not np.all(a > 0.0):
                    raise ValueError(f"{label} must be positive, got {float(a.min()):g} at "
                                     f"item {int(np.argmin(a.min(axis=1)))}")
                if part in _QUATERNIONS or part in _DIRECTIONS:
                    n = np.linalg.norm(a, axis=1)
                    if part in _QUATERNIONS and np.any(np.abs(n - 1.0) > 1e-6):
                        k = int(np.argmax(np.abs(n - 1.0)))
                        raise ValueError(f"{label} must hold unit quaternions, item {k} has "
                                         f"norm {n[k]:.6g}")
                    if not np.all(n > 0.0):
                        raise ValueError(f"{label} must hold non-zero directions")
                    a = a / n[:, None]
                out.append((label, joint, sl, a))
                continue
        joints[key] = arr
    if joints:
        try:
            keyed = _keyed(mech, joints, what)
        except KeyError as exc:
            key = next(k for k in joints if isinstance(k, str) and k not in mech.joint_names)
            names = list(parameter_slices(mech)) + list(mech.joint_names)
            raise ValueError(f"{what}: no parameter or joint named {key!r}"
                             f"{_close(key, names)} (see mech.parameters())") from exc
        for joint, arr in keyed.items():
            label = f"{what}[{joint.label}]"
            a = _finite_array(arr, label)
            if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] != joint._p.size:
                raise ValueError(f"{label} must have shape (B, {joint._p.size}), got {a.shape}")
            out.append((label, joint, slice(0, joint._p.size), a))
    return out


def stack_entries(sys, entries, B: int, base: dict | None = None) -> dict:
    """The stacked per-item parameters ``{group index: (B, k, p)}`` that the entries of
    :func:`per_item_entries` (all of ``B`` items) give, every other parameter as the joint
    has it."""
    stacked = {} if base is None else base
    for _, joint, sl, arr in entries:
        gi, ii = sys.group_of[id(joint)]
        P = stacked.get(gi)
        if P is None:
            P = stacked[gi] = np.repeat(sys.groups[gi].P[None], B, axis=0)
        P[:, ii, sl] = arr
    return stacked


def _keyed(mech, mapping, name: str) -> dict:
    """``mapping`` with joint names resolved to this mechanism's joints, checked."""
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise TypeError(f"{name} must be a dict {{joint: array}}, got {type(mapping).__name__}")
    out = {}
    for key, arr in mapping.items():
        if isinstance(key, str):
            key = mech.joint(key)
        elif not isinstance(key, Joint):
            raise TypeError(f"{name}: keys must be joints or joint names, got "
                            f"{type(key).__name__} {key!r}")
        if key.mechanism is not mech:
            raise ValueError(f"{name}: {key.label} is not part of this mechanism")
        out[key] = arr
    return out


def _finite_array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers, got {type(value).__name__}") \
            from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    return arr


class BatchResult(Result):
    """Result of :func:`solve_batch` (a :class:`~mechsolve.Result`), one entry per item.

    Attributes
    ----------
    states : ndarray (B, n_state)
        Every item's pose.
    success : ndarray of bool (B,)
    status : ndarray of int (B,)
        Codes of :class:`mechsolve.Status`: ``0`` converged, ``5`` (``NOT_SOLVED``)
        where neither the batch's Newton nor the item's own solve met its equations, ``6``
        (``AT_LIMIT``) where its pose breaks a joint limit.
    message : str
        The items' status codes in words.
    iterations : ndarray of int (B,)
    residual : ndarray (B,)
        Each item's largest residual, a length equation's divided by the model's size, an
        angle's in radians (what ``tol`` bounds; ``residuals`` before 0.2, kept until 0.3).
    residual_abs : ndarray (B,)
        The same in the equations' own units.

    With joint limits also ``reasons`` (per item: why it failed on a limit, else ``None``)
    and ``active_limits`` (per item: the limits its pose sits at). From another executor
    (``backend="jax"``) also ``backend``, ``dtype`` and ``handed_over`` (the indices of the
    items it handed to the NumPy path)."""

    _renamed = {"residuals": "residual"}

    def __repr__(self) -> str:
        return (f"BatchResult({len(self['success'])} items, {int(self['success'].sum())} "
                f"converged, largest residual {np.max(self['residual'], initial=0.0):.3g}; "
                f"{self['message']})")
