"""Exact sensitivities: how the solved pose moves when design parameters change.

At an assembled pose ``Phi(q, p) = 0``; differentiating gives ``Phi_q dq/dp = -Phi_p``
(implicit differentiation), solved with the system's own linear strategy (LU on the scaled
Jacobian while it is square and regular). ``Phi_p`` comes from each joint class's
``_phi_p`` kernel, one call per class: closed forms for every built-in joint, driver, end
effector and link joint (but :class:`~mechsolve.joints.SerialChain`, whose numbers have no
names), derived and generated for symbolic joints, central differences with Richardson
extrapolation (about 1e-11 relative) for user classes that write their own Phi (see
:meth:`mechsolve.joints.Joint._phi_p`).

``dq/dp`` is in the Newton increment's coordinates: per planar body ``(x, y, angle)``, per
spatial body the position and a global rotation vector, then the joints' own coordinates.

* A redundant or under-driven system (``Phi_q`` not square and regular) has no unique
  derivative: the minimum-norm least-squares solution (lengths in the model's size) is
  returned and :attr:`Sensitivity.minimum_norm` says so.
* A unit quaternion (a frame's orientation) or a unit direction (an axis) is normalized when
  it is set (:func:`~mechsolve.design.set_parameters`), so its columns are derivatives along
  the unit sphere: ``Phi_p (I - u u^T)``; a change along ``u`` itself does nothing.
* Along a sweep (:func:`motion_sensitivity`) the poses are solved in one batch of stacked
  dense solves (one at a time for large sparse systems), each with its own driver values; the
  velocities of a time sweep get theirs by differentiating ``Phi_q nu = -Phi_t``:
  ``Phi_q dnu/dp = -(d(Phi_q nu)/dq) dq/dp - d(Phi_q nu)/dp``, the first term exact from the
  joints' ``gamma`` (it is the polarization of the quadratic form ``-gamma``; spatial bodies
  add the commutator of their rotations), the second by central differences of ``Phi_p``
  along the motion (Richardson, about 1e-10 relative).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import as_vector
from .._warnings import MechsolveWarning
from ..body import Body
from ..linalg import LinearStrategy
from ..solver import SolveError, strategy_for
from ..spatial._quat import quat_rotate
from .parameters import _DIRECTIONS, _QUATERNIONS, _close, parameter_slices

__all__ = ["Sensitivity", "MotionSensitivity", "sensitivity", "motion_sensitivity",
           "parameter_columns"]

#: Largest residual (every equation in its unit) at which a pose counts as assembled.
ASSEMBLED_TOL = 1e-8


class ParameterColumns:
    """The columns of ``dq/dp`` for some named parameters: labels, ``(joint, column)`` of
    every one, and the unit vectors (quaternions, directions) whose columns are projected on
    the tangent of the unit sphere."""

    def __init__(self, mech, params) -> None:
        table = parameter_slices(mech)
        if params is None:
            names = list(table)
        elif isinstance(params, str):
            names = [params]
        else:
            names = list(params)
        self.names = []
        self.labels = []
        self.columns = []
        self.spans = {}
        self.units = []    # (first column, size, joint, slice)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"parameter names are strings such as 'O4.point2', got "
                                f"{name!r}")
            if name not in table:
                raise ValueError(f"no parameter named {name!r}{_close(name, table)} (see "
                                 "mech.parameters())")
            if name in self.spans:
                raise ValueError(f"parameter {name!r} is named twice")
            joint, sl = table[name]
            size = sl.stop - sl.start
            start = len(self.columns)
            self.spans[name] = slice(start, start + size)
            self.names.append(name)
            self.labels.extend([name] if size == 1 else [f"{name}[{i}]" for i in range(size)])
            self.columns.extend((joint, sl.start + i) for i in range(size))
            part = name.rsplit(".", 1)[1]
            if part in _QUATERNIONS or part in _DIRECTIONS:
                self.units.append((start, size, joint, sl))

    def __len__(self) -> int:
        return len(self.columns)

    def phi_p(self, system, Q, params=None) -> np.ndarray:
        """``Phi_p`` at states ``Q (..., n_state)``: ``(..., m, len(self))``, unit vectors'
        columns projected on their tangent spaces."""
        D = system.phi_p(Q, self.columns, params)
        for start, size, joint, sl in self.units:
            u = joint._p[sl]
            u = u / np.linalg.norm(u)
            block = D[..., start:start + size]
            D[..., start:start + size] = block - (block @ u)[..., None] * u
        return D


def parameter_columns(mech, params=None) -> ParameterColumns:
    """The columns of the sensitivities to ``params`` (names, or ``None`` for all of
    ``mech.parameters()``): ``.labels`` such as ``"O4.point2[0]"``, ``"motor.value"``."""
    return ParameterColumns(mech, params)


def increment_labels(mech) -> list[str]:
    """Names of the increment components, the rows of ``dq/dp``: ``"crank.x"``,
    ``"crank.angle"`` (planar), ``"link.rx"`` (spatial rotation vector), ``"track.s[0]"``."""
    parts = ("x", "y", "angle") if mech.dim == 2 else ("x", "y", "z", "rx", "ry", "rz")
    out = [f"{b.name}.{c}" for b in mech.bodies for c in parts]
    for j in mech.joints:
        if j.n_coordinates:
            out.extend(f"{j.label}.s[{i}]" for i in range(j.n_coordinates))
    return out


# -- solves ------------------------------------------------------------------------------------
def _check_assembled(system, Q, params=None, what="the pose") -> None:
    phi = system.phi(Q, params=params) / system.eq_scale
    worst = np.max(np.abs(phi), axis=-1, initial=0.0)
    if not np.all(worst <= ASSEMBLED_TOL):
        where = "" if np.ndim(worst) == 0 else f" (pose {int(np.argmax(worst))})"
        raise SolveError(f"sensitivities need an assembled mechanism: the largest residual of "
                         f"{what}{where} is {float(np.max(worst)):.3g} (in the model's units): "
                         "call mech.solve() first")


def _solve(system, vals: np.ndarray, R: np.ndarray):
    """``Phi_q X = R`` for stacks ``vals (B, nnz)``, ``R (B, m, r)`` with the system's linear
    strategy; returns ``(X (B, n, r), minimum_norm (B,))``."""
    B = len(vals)
    if system.dense:
        fac = LinearStrategy("auto").factor(system.jacobian_dense(vals), system.col_scale,
                                            np.zeros(B, dtype=bool))
        X = fac.solve_columns(R)
        return X, fac.lsq.copy()
    X = np.empty((B, system.n, R.shape[2]))
    lsq = np.zeros(B, dtype=bool)
    strategy = strategy_for(system)
    for i in range(B):
        J = system.problem().matrix(vals[i:i + 1])
        fac = strategy.factor(J, system.col_scale, np.zeros(1, dtype=bool))
        X[i] = fac.solve_columns(R[i:i + 1])[0]
        lsq[i] = bool(fac.lsq[0])
    return X, lsq


def _minimum_norm_warning(count: int, total: int) -> None:
    where = "the pose" if total == 1 else f"{count} of {total} poses"
    warnings.warn(f"sensitivities at {where}: the Jacobian is not square and regular "
                  "(redundant constraints, free degrees of freedom or a singular position), so "
                  "dq/dp is the minimum-norm least-squares solution, one of many",
                  MechsolveWarning, stacklevel=3)


# -- points ------------------------------------------------------------------------------------
def _own_body(mech, body) -> Body:
    if isinstance(body, str):
        body = mech.body(body)
    if not isinstance(body, Body):
        raise TypeError(f"body must be a Body or a body name, got {type(body).__name__}")
    if body.mechanism is not mech:
        raise ValueError(f"body {body.name!r} is not part of this mechanism")
    return body


def _local_point(mech, body, point) -> np.ndarray:
    if point is None:
        return np.zeros(mech.dim)
    if isinstance(point, str):
        point = body._point_for(point, "point")
    return as_vector(point, "point", mech.dim)


def _arm(mech, Q, body, p) -> np.ndarray:
    """``R p``, the body point relative to the body's origin in global axes: ``(..., dim)``."""
    rotation = Q[..., mech.layout.rotation_slice(body)]
    if mech.dim == 2:
        t = rotation[..., 0].copy()    # contiguous: see mechsolve._trig
        c, s = np.cos(t), np.sin(t)
        return np.stack([c * p[0] - s * p[1], s * p[0] + c * p[1]], axis=-1)
    return quat_rotate(rotation, np.broadcast_to(p, rotation.shape[:-1] + (3,)))


def _turn(mech, a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``a x r`` for rotation increments ``a (..., 1 or 3, k)`` and arms ``r (..., dim)``:
    ``(..., dim, k)`` (planar: ``a perp(r)``)."""
    if mech.dim == 2:
        return np.stack([-r[..., 1, None] * a[..., 0, :], r[..., 0, None] * a[..., 0, :]],
                        axis=-2)
    rr = r[..., :, None]
    return np.stack([a[..., 1, :] * rr[..., 2, :] - a[..., 2, :] * rr[..., 1, :],
                     a[..., 2, :] * rr[..., 0, :] - a[..., 0, :] * rr[..., 2, :],
                     a[..., 0, :] * rr[..., 1, :] - a[..., 1, :] * rr[..., 0, :]], axis=-2)


def _point_derivative(mech, Q, body, p, D) -> np.ndarray:
    """Derivative of a body point's global position for increments ``D (..., n, k)``."""
    dim = mech.dim
    if body.is_ground:
        return np.zeros(D.shape[:-2] + (dim, D.shape[-1]))
    rows = D[..., mech.layout.increment_slice(body), :]
    r = _arm(mech, Q, body, p)
    return rows[..., :dim, :] + _turn(mech, rows[..., dim:, :], r)


def _point_velocity_derivative(mech, Q, body, p, nu, dnu, D) -> np.ndarray:
    """Derivative of a (non-ground) body point's global velocity ``v + w x r``: ``(N, dim,
    c)`` from the velocities ``nu (N, n)``, their derivatives ``dnu (N, n, c)`` and those of
    the poses ``D (N, n, c)`` at states ``Q (N, n_state)``."""
    dim = mech.dim
    s = mech.layout.increment_slice(body)
    r = _arm(mech, Q, body, p)
    w = nu[:, s][:, dim:]                 # (N, 1 or 3)
    out = dnu[:, s][:, :dim] + _turn(mech, dnu[:, s][:, dim:], r)
    # the arm turns with the body: d(w x r) includes w x (dphi x r)
    turned = _turn(mech, D[:, s][:, dim:], r)      # dr/dp, (N, dim, c)
    if dim == 2:
        # w perp(dr): perp(perp(r)) dtheta = -r dtheta
        out += w[:, 0, None, None] * np.stack([-turned[:, 1], turned[:, 0]], axis=1)
    else:
        out += np.cross(w[:, None, :], np.moveaxis(turned, 1, 2)).transpose(0, 2, 1)
    return out


class _Columns:
    """Shared by the results: the parameters' columns and the rows of ``dq/dp``."""

    def _span(self, name: str) -> slice:
        try:
            return self._cols.spans[name]
        except KeyError:
            raise KeyError(f"{name!r} is not among the parameters of these sensitivities "
                           f"({', '.join(self.params)})") from None

    @property
    def params(self) -> list[str]:
        """The parameter names, in column order."""
        return list(self._cols.names)

    @property
    def columns(self) -> list[str]:
        """A label per column: ``"O4.point2[0]"``, ``"motor.value"``."""
        return list(self._cols.labels)


class Sensitivity(_Columns):
    """The derivative of a solved pose with respect to named parameters.

    A data object, not a :class:`~mechsolve.Result`: one linear solve at a pose already
    solved, with no iteration or outcome to report; ``sens[name]`` reads a parameter's
    columns, where a result's ``[]`` would read its fields.

    Attributes
    ----------
    dq_dp : ndarray, shape (n, c)
        Increments (:attr:`rows`) per parameter column (:attr:`columns`).
    rows : list of str
        Increment components: ``"crank.x"``, ``"crank.angle"``, ``"link.rx"``...
    minimum_norm : bool
        True when ``Phi_q`` is not square and regular (redundant constraints, free degrees of
        freedom, a singular position): ``dq_dp`` is then the minimum-norm least-squares
        solution (lengths measured in the model's size), one of many.
    state : ndarray
        The state it was computed at.
    """

    def __init__(self, mechanism, dq_dp, cols, minimum_norm, state) -> None:
        self.mechanism = mechanism
        self.dq_dp = dq_dp
        self._cols = cols
        self.rows = increment_labels(mechanism)
        self.minimum_norm = bool(minimum_norm)
        self.state = state

    def __getitem__(self, name: str) -> np.ndarray:
        """The columns of one parameter: ``(n, size)``."""
        return self.dq_dp[:, self._span(name)]

    def body_pose(self, body) -> np.ndarray:
        """Derivative of a body's pose increment: ``(3, c)`` planar ``(x, y, angle)``, ``(6, c)``
        spatial (position, global rotation vector); zeros for ground."""
        body = _own_body(self.mechanism, body)
        if body.is_ground:
            return np.zeros((3 if self.mechanism.dim == 2 else 6, len(self._cols)))
        return self.dq_dp[self.mechanism.layout.increment_slice(body)].copy()

    def point(self, body, point=None) -> np.ndarray:
        """Derivative of the global position of a body point (body coordinates, or a named
        point of the body): ``(dim, c)``."""
        mech = self.mechanism
        body = _own_body(mech, body)
        return _point_derivative(mech, self.state, body, _local_point(mech, body, point),
                                 self.dq_dp)

    def __repr__(self) -> str:
        how = ("minimum-norm (Phi_q not square and regular)" if self.minimum_norm
               else "exact")
        return (f"Sensitivity({self.dq_dp.shape[0]} increments x {len(self._cols)} columns of "
                f"{len(self._cols.names)} parameters, {how})")


def sensitivity(mech, params=None, *, state=None) -> Sensitivity:
    """``dq/dp`` at the current (solved) pose, or at ``state``, by implicit differentiation.

    Parameters
    ----------
    mech : Mechanism
    params : str or sequence of str, optional
        Parameter names (see ``mech.parameters()``); default all of them.
    state : array_like, optional
        An assembled state to use instead of the current one.

    Returns
    -------
    Sensitivity

    Raises :class:`~mechsolve.SolveError` when the pose is not assembled (largest residual
    above 1e-8 in the model's units). A pose whose Jacobian is not square and regular gets the
    minimum-norm solution, with a :class:`~mechsolve.MechsolveWarning`.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> s = mech.sensitivity(["O4.point2", "motor.value"])
    >>> s.columns
    ['O4.point2[0]', 'O4.point2[1]', 'motor.value']
    >>> s.point("coupler", (0.0, 1.0)).shape
    (2, 3)
    """
    system = mech.system()
    cols = ParameterColumns(mech, params)
    q = mech.state if state is None else mech.checked_states(
        np.asarray(state, dtype=float)[None], "state")[0]
    _check_assembled(system, q)
    _, vals = system.evaluate(q)
    R = -cols.phi_p(system, q)
    X, lsq = _solve(system, vals[None], R[None])
    if lsq[0]:
        _minimum_norm_warning(1, 1)
    return Sensitivity(mech, X[0], cols, lsq[0], q.copy())


# -- along a sweep -----------------------------------------------------------------------------
def pose_params(motion):
    """Stacked parameters ``{group index: (N, k, p)}`` of the drivers whose values change
    along ``motion`` (the swept driver; every driver with a profile in a time sweep), or None."""
    mech = motion.mechanism
    system = mech.system()
    N = len(motion)
    out = {}
    changes = []
    if motion.driver is not None:
        changes.append((motion.driver, np.asarray(motion.values, dtype=float)))
    else:
        for d in mech.drivers:
            if d.profile is not None:
                changes.append((d, np.array([float(d.profile.value(t)) for t in motion.values])))
    for driver, values in changes:
        gi, i, col = system.driver_slot(driver)
        P = out.get(gi)
        if P is None:
            P = out[gi] = np.repeat(system.groups[gi].P[None], N, axis=0)
        P[:, i, col] = values
    return out or None


class MotionSensitivity(_Columns):
    """``dq/dp`` at every pose of a sweep (:func:`motion_sensitivity`).

    Attributes
    ----------
    dq_dp : ndarray, shape (N, n, c)
    minimum_norm : ndarray of bool, shape (N,)
        The poses that took the minimum-norm solution (see :class:`Sensitivity`).
    """

    def __init__(self, motion, dq_dp, cols, minimum_norm, params) -> None:
        self.motion = motion
        self.mechanism = motion.mechanism
        self.dq_dp = dq_dp
        self._cols = cols
        self.rows = increment_labels(self.mechanism)
        self.minimum_norm = minimum_norm
        self._params = params
        self._dnu = None

    def __getitem__(self, name: str) -> np.ndarray:
        return self.dq_dp[..., self._span(name)]

    def point(self, body, point=None) -> np.ndarray:
        """Derivative of a body point's global path: ``(N, dim, c)``."""
        mech = self.mechanism
        body = _own_body(mech, body)
        return _point_derivative(mech, self.motion.states, body,
                                 _local_point(mech, body, point), self.dq_dp)

    def body_pose(self, body) -> np.ndarray:
        """Derivative of a body's pose increment at every pose: ``(N, 3 or 6, c)``."""
        body = _own_body(self.mechanism, body)
        if body.is_ground:
            return np.zeros((len(self.dq_dp), 3 if self.mechanism.dim == 2 else 6,
                             len(self._cols)))
        return self.dq_dp[:, self.mechanism.layout.increment_slice(body)].copy()

    # -- velocities ------------------------------------------------------------------------
    @property
    def dnu_dp(self) -> np.ndarray:
        """Derivative of the generalized velocities of a time sweep: ``(N, n, c)``."""
        if self._dnu is None:
            self._dnu = _velocity_sensitivity(self)
        return self._dnu

    def velocity(self, body, point=None) -> np.ndarray:
        """Derivative of a body point's global velocity along a time sweep: ``(N, dim, c)``."""
        mech = self.mechanism
        body = _own_body(mech, body)
        p = _local_point(mech, body, point)
        if body.is_ground:
            return np.zeros((len(self.dq_dp), mech.dim, len(self._cols)))
        nu = self.motion._rates("velocity")
        return _point_velocity_derivative(mech, self.motion.states, body, p, nu, self.dnu_dp,
                                          self.dq_dp)

    def __repr__(self) -> str:
        lsq = int(np.count_nonzero(self.minimum_norm))
        how = f", minimum-norm at {lsq} poses" if lsq else ""
        return (f"MotionSensitivity({len(self.dq_dp)} poses x {self.dq_dp.shape[1]} increments "
                f"x {len(self._cols)} columns{how})")


def motion_sensitivity(motion, params=None) -> MotionSensitivity:
    """``dq/dp`` at every pose of ``motion`` with the mechanism's current parameters (each pose
    with its own driver values), in one batch of stacked solves for dense systems.

    See :func:`sensitivity`; :meth:`MotionSensitivity.point` gives point paths' derivatives
    ``(N, dim, c)``, :meth:`MotionSensitivity.velocity` those of point velocities (time sweeps).
    """
    mech = motion.mechanism
    system = mech.system()
    cols = ParameterColumns(mech, params)
    Q = np.asarray(motion.states, dtype=float)
    params_ = pose_params(motion)
    _check_assembled(system, Q, params_, "the motion")
    _, vals = system.evaluate(Q, params=params_)
    R = -cols.phi_p(system, Q, params_)
    X, lsq = _solve(system, vals, R)
    if lsq.any():
        _minimum_norm_warning(int(lsq.sum()), len(lsq))
    return MotionSensitivity(motion, X, cols, lsq, params_)


def _velocity_sensitivity(ms_: MotionSensitivity) -> np.ndarray:
    """``dnu/dp`` from ``Phi_q dnu/dp = -B(nu, dq/dp) - d(Phi_q nu)/dp`` (module docstring)."""
    motion = ms_.motion
    system = ms_.mechanism.system()
    nu = np.asarray(motion._rates("velocity"), dtype=float)        # (N, n)
    Q = np.asarray(motion.states, dtype=float)
    params = ms_._params
    _, vals = system.evaluate(Q, params=params)
    J = system.jacobian_dense(vals) if system.dense else None
    R = velocity_rhs(ms_.mechanism, ms_._cols, Q, nu, ms_.dq_dp, params, vals, J)
    X, _ = _solve(system, vals, R)
    return X


def velocity_rhs(mech, cols, Q, nu, dq_dp, params, vals, J=None) -> np.ndarray:
    """The right-hand side ``R (N, m, c)`` of ``Phi_q dnu/dp = R`` at states ``Q (N,
    n_state)`` with velocities ``nu (N, n)`` and pose derivatives ``dq_dp (N, n, c)`` for the
    parameter columns ``cols``: ``-B(nu, dq/dp) - d(Phi_q nu)/dp`` (module docstring).
    ``vals``: the Jacobian data at ``Q``; ``J``: the dense Jacobians, where the system is
    dense."""
    system = mech.system()
    if any(getattr(j, "time_dependent", False) for j in mech.joints):
        raise NotImplementedError("velocity sensitivities of joints whose Phi depends on time "
                                  "explicitly are not implemented")
    W = np.moveaxis(dq_dp, 2, 1)                                     # (N, c, n)
    N, c = W.shape[:2]
    pp = None if params is None else {g: P[:, None] for g, P in params.items()}
    Qc = np.broadcast_to(Q[:, None], (N, c, Q.shape[1]))
    # B(nu, w) = (Q(nu + w) - Q(nu) - Q(w)) / 2 + J [nu, w] / 2 with Q(a) = -gamma(a)
    # Q(nu + w) and Q(w) in one batch
    pp2 = None if pp is None else {g: P[None] for g, P in pp.items()}
    g_sum, g_w = system.gamma(np.broadcast_to(Qc, (2,) + Qc.shape),
                              np.stack([nu[:, None] + W, W]), pp2)
    g_nu = system.gamma(Q, nu, params)[:, None]
    Bvw = -(g_sum - g_w - g_nu) / 2                                  # (N, c, m)
    if system.spatial:
        C = np.zeros((N, c, system.n))
        for b in range(system.nb):
            a = nu[:, 6 * b + 3:6 * b + 6][:, None]
            C[:, :, 6 * b + 3:6 * b + 6] = np.cross(a, W[:, :, 6 * b + 3:6 * b + 6])
        if J is not None:
            Bvw += np.einsum("nmk,nck->ncm", J, C) / 2
        else:
            for i in range(N):
                Bvw[i] += (system.jacobian_sparse(vals[i]) @ C[i].T).T / 2
    # d(Phi_q nu)/dp: the rate of Phi_p along the motion (central differences, Richardson)
    speed = np.max(np.abs(nu) / system.col_scale, axis=1)
    h = np.where(speed > 0, 2e-3 / np.where(speed > 0, speed, 1.0), 0.0)[:, None]

    # the four states (+-h/2, +-h) in one batch: one kernel call per class, not four
    steps = np.array([0.5, -0.5, 1.0, -1.0])[:, None, None] * h      # (4, N, 1)
    pp = None if params is None else {g: P[None] for g, P in params.items()}
    E = cols.phi_p(system, system.retract(Q[None], steps * nu[None]), pp)   # (4, N, m, c)
    div = np.where(h > 0, h, 1.0)[..., None]                         # (N, 1, 1)
    D = (4 * (E[0] - E[1]) - (E[2] - E[3]) / 2) / (3 * div)          # (N, m, c)
    return -(np.moveaxis(Bvw, 1, 2) + D)
