"""Free motions: the null space of the Jacobian at a pose, and poses along one of them that keep
every constraint (continuation in the tangent-space chart)."""

from __future__ import annotations

import numpy as np

from .._result import DEFAULT_MAX_ITERATIONS
from .._validation import as_count, as_float, as_values, as_vector
from ..joints._end_effectors import _log_rows
from ..linalg import min_norm_solve
from ..newton import newton as core_newton
from ..solver import NEAR_LAMBDA_MIN
from ..spatial._quat import quat_conjugate, quat_multiply
from ._named_motions import FreeMotions, named_free_motions
from .continuation import CORRECTOR_ITERATIONS
from .motion import Motion
from .rates import _check_assembled, point_velocity

__all__ = ["FreeMotion", "FreeMotions", "free_motions", "free_motion_path", "free_motion_amplitude",
           "wiggle_free_motions"]


def free_motions(mech) -> FreeMotions:
    """The instantaneous free motions at the current pose, named: a ``(k, n)`` array.

    The rows span the null space of the Jacobian of all equations (drivers included): the
    directions in which the mechanism can move to first order while every constraint and
    driver holds. Each row has unit length and keeps as many bodies still as it can (so the
    rows of an under-driven five-bar are "the first link held" and "the last link held", not
    an orthonormal mix of both); the rank is decided with lengths in the model's size, so the
    same motions come out in micrometres and kilometres. Empty (``k = 0``) when the drivers fix
    every degree of freedom.

    The result is a :class:`~mechsolve.analysis.FreeMotions`, an ``ndarray`` whose
    ``labels`` say in words which bodies move and how (``print()`` lists them) and whose
    ``motions`` hold the axes, points and bodies of each.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.five_bar()
    >>> mech = model.mechanism
    >>> mech.remove(model.driver)          # two free motions now
    >>> motions = mech.free_motions()
    >>> motions.shape
    (2, 12)
    >>> print(motions)
    2 free motions:
      1. b turns about (0, 1) at its joint with a; c turns about (3.09, 2);
         d turns about (3, 0) at its joint with ground
      2. a turns about (0, 0) at its joint with ground; b turns about (0, 1.99);
         c turns about (3.04, 0.999) at its joint with d
    >>> [b.name for b in motions.motions[1].bodies]
    ['a', 'b', 'c']
    """
    return named_free_motions(mech)


# -- following the free motions ----------------------------------------------------------------
# Default wiggle: the moving points travel this fraction of the mechanism's bounding-box
# diagonal, and no body turns by more than MAX_WIGGLE_ROTATION radians.
WIGGLE_FRACTION = 0.08
MAX_WIGGLE_ROTATION = 0.2


class FreeMotion(Motion):
    """Poses of a mechanism moved along its free motions (see :func:`free_motion_path`).

    A :class:`~mechsolve.Motion` whose :attr:`values` are the chart coordinates ``s`` of the
    poses: the component of ``difference(q, q0)`` (increment space) along the free-motion
    basis vector followed, the other components of the basis being held at zero. Every pose
    satisfies all constraints and drivers.

    Attributes
    ----------
    basis : FreeMotions, shape (k, n)
        The free-motion basis at the start pose ``q0`` (``mech.free_motions()``, its rows
        named in ``basis.labels``).
    start : ndarray
        The start state ``q0``.
    motion_index : ndarray of int, shape (N,)
        Which basis vector (0-based) each pose follows.
    requested : ndarray, shape (N,)
        The ``s`` asked for at each pose; where a limit stopped the motion, ``values`` holds
        the ``s`` of the limit pose instead.
    reached : dict
        ``index -> (s_min, s_max)``: the range of ``s`` reached along each followed motion.
    limited : dict
        ``index -> bool``: whether a limit (the motion cannot be followed further along its
        chart coordinate) cut the requested range short.
    labels : list of str
        ``"free motion 1 of 2: s = +0.125"`` for every pose (an animation's corner label).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> path = mech.free_motion_path(0, [0.0, 0.2, 5.0])   # 5.0 is past a limit
    >>> path.limited, path.labels[1]
    ({0: True}, 'free motion 1 of 1: s = +0.2')
    >>> path.labels[2].endswith("(limit)")
    True
    """

    def __init__(self, mechanism, values, states, iterations, residuals, *, basis, start,
                 motion_index, requested, reached, limited):
        super().__init__(mechanism, None, values, states, iterations, residuals)
        self.basis = basis
        self.start = start
        self.motion_index = motion_index
        self.requested = requested
        self.reached = reached
        self.limited = limited
        k = len(basis)
        self.labels = [
            f"free motion {int(i) + 1} of {k}: s = " + (f"{v:+.3g}" if v else "0")
            + (" (limit)" if abs(v - r) > 1e-12 * max(1.0, abs(r)) else "")
            for i, v, r in zip(motion_index, values, requested)
        ]

    def __repr__(self) -> str:
        which = sorted({int(i) + 1 for i in self.motion_index})
        return f"FreeMotion({len(self)} poses along free motion(s) {which} of {len(self.basis)})"

    def apply(self, i: int) -> None:
        """Put the mechanism in pose ``i`` (drivers and time are not touched)."""
        self.mechanism.state = self.states[i]


def _fully_driven(mech) -> ValueError:
    return ValueError(f"{mech.name or 'the mechanism'} is fully driven (0 free motions): its "
                      "drivers and joints fix every degree of freedom, so there is no free "
                      "motion to follow")


class _Chart:
    """Newton on ``Phi(q) = 0, B difference(q, q0) = s e_index`` (the tangent-space chart):
    a :class:`mechsolve.newton.Problem`."""

    sparse = False

    def __init__(self, mech, basis, index, tol, max_iterations):
        self.sys = mech.system()
        self.q0 = mech.state
        self.B = basis
        self.k = len(basis)
        self.e = np.zeros(self.k)
        self.e[index] = 1.0
        self.tol = tol
        self.max_iterations = max_iterations
        self.target = np.zeros(self.k)
        # the units of the problem (see mechsolve.newton): chart rows are increment components
        self.col_scale = self.sys.col_scale
        self.state_scale = self.sys.state_scale
        self.eq_scale = np.concatenate([self.sys.eq_scale, np.ones(self.k)])
        self.magnitude = self.sys.problem().magnitude

    def chart(self, q) -> np.ndarray:
        return self.B @ self.sys.difference(q, self.q0)

    def _stacked(self, q, vals) -> np.ndarray:
        """``[J; B D]`` with ``D = d difference(q, q0) / d increment``.

        For spatial bodies the rotation part of ``difference`` is ``log(q q0^-1)``, whose
        derivative under a left increment is the inverse left Jacobian of SO(3), the matrix
        the end effectors' rotation-vector rows use.
        """
        sys = self.sys
        BD = self.B.copy()
        if sys.spatial:
            rotations = sys.layout.rotations
            qr = quat_multiply(rotations(q), quat_conjugate(rotations(self.q0)))
            sign = np.where(qr[:, 0] < 0.0, -1.0, 1.0)   # the short way, as quat_log takes
            _, M = _log_rows(qr[:, 0] * sign, qr[:, 1:] * sign[:, None])    # (nb, 3, 3)
            rot = sys.layout.increments(self.B)[:, :, 3:]     # the rotation columns
            # (a view of the copy BD: written in place)
            sys.layout.increments(BD)[:, :, 3:] = np.einsum("kbi,bij->kbj", rot, M)
        return np.vstack([sys.jacobian_dense(vals), BD])

    def tangent(self, q) -> np.ndarray:
        _, vals = self.sys.evaluate(q)
        rhs = np.concatenate([np.zeros(self.sys.m), self.e])
        return min_norm_solve(self._stacked(q, vals), rhs)

    # -- the chart equations as a problem of the Newton core --------------------------------
    def evaluate(self, X, idx):
        F = np.empty((len(X), self.sys.m + self.k))
        M = np.empty((len(X), self.sys.m + self.k, self.sys.n))
        for i, q in enumerate(X):
            phi, vals = self.sys.evaluate(q)
            F[i] = np.concatenate([phi, self.chart(q) - self.target])
            M[i] = self._stacked(q, vals)
        return F, M

    def residual(self, X, idx):
        return np.array([np.concatenate([self.sys.phi(q), self.chart(q) - self.target])
                         for q in X])

    @staticmethod
    def matrix(D):
        return D

    def retract(self, X, dX):
        return self.sys.retract(X, dX)

    def newton(self, q, s):
        """``(q, iterations, residual, converged)`` from the start ``q`` at chart value ``s``
        (the Newton core on ``Phi = 0`` and the chart equations, minimum-norm steps where the
        stacked Jacobian is not square)."""
        self.target = s * self.e
        out = core_newton(self, q[None], tol=self.tol, max_iterations=self.max_iterations,
                          lambda_min=NEAR_LAMBDA_MIN)
        return out.x[0], int(out.iterations[0]), float(out.residual[0]), bool(out.success[0])

    def follow(self, targets, h_max):
        """Continuation from ``q0`` through ``targets`` (all of one sign, increasing in size).

        Returns the poses reached (``s -> (q, iterations, residual)``, including the last
        pose reached when a limit stops the continuation before a target) and the last ``s``.
        """
        sys = self.sys
        q, s = self.q0.copy(), 0.0
        t = self.tangent(q)
        out = {}
        its, res = 0, float(np.max(np.abs(sys.phi(q)), initial=0.0))
        for target in targets:
            while s != target:
                ds = float(np.clip(target - s, -h_max, h_max))
                while True:
                    pred = sys.retract(q, ds * t)
                    q1, its1, res1, ok = self.newton(pred, s + ds)
                    if ok:
                        t1 = self.tangent(q1)
                        step = abs(ds) * float(np.linalg.norm(t))
                        moved = float(np.linalg.norm(sys.difference(q1, pred)))
                        ok = moved <= 0.5 * step + 1e3 * self.tol and float(t1 @ t) > 0.0
                    if ok:
                        break
                    ds *= 0.5
                    if abs(ds) < 1e-6 * h_max:  # a limit: the chart coordinate stops here
                        out[s] = (q.copy(), its, res)
                        return out, s
                close = abs(s + ds - target) <= 1e-12 * max(1.0, abs(target))
                s = target if close else s + ds
                q, t, its, res = q1, t1, its1, res1
            out[target] = (q.copy(), its, res)
        return out, s


def free_motion_path(mech, index: int, amplitudes, *, basis=None, tol: float = 1e-10,
                     max_iterations: int = DEFAULT_MAX_ITERATIONS) -> FreeMotion:
    """Follow one free motion of a mechanism: poses that satisfy every constraint.

    Starting at the current (assembled) pose ``q0`` with free-motion basis ``B``
    (:func:`free_motions`), the pose at chart coordinate ``s`` solves
    ``Phi(q) = 0`` together with ``B difference(q, q0) = s e_index``: the increment from
    ``q0`` has the component ``s`` along basis vector ``index`` and none along the other free
    motions (the state is moved by the exponential map, so spatial rotations stay rotations).
    It is reached by predictor-corrector continuation from ``q0`` (tangent predictor,
    minimum-norm Newton corrector, halved steps), not by the linear extrapolation
    ``q0 (+) s b``, which breaks the joints for finite ``s``. To first order the displacement
    is ``s b``.

    Where the motion cannot be followed further (a limit: the mechanism reaches a toggle or
    its chart coordinate stops growing), the poses asked beyond it are the limit pose, and
    ``limited[index]`` is True. The mechanism's state is not changed.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism, assembled (``mech.solve()``), with fewer drivers than
        degrees of freedom.
    index : int
        Which basis vector to follow (0-based).
    amplitudes : array_like, shape (N,)
        The values of ``s`` wanted, in increment units (lengths and radians mixed, as in the
        basis), in any order.
    basis : ndarray, shape (k, n), optional
        The free-motion basis (default ``mech.free_motions()`` at the current pose).
    tol : float
        Residual tolerance of every pose (constraints and chart equations).
    max_iterations : int
        Newton iterations per pose: a step's corrector takes at most
        :data:`~mechsolve.analysis.continuation.CORRECTOR_ITERATIONS` of them before the step
        is halved.

    Returns
    -------
    FreeMotion
        ``values`` (the ``s`` reached), ``states`` and ``requested`` in the order of
        ``amplitudes``.

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions) or ``index`` is out of range.
    SolveError
        If the mechanism is not assembled.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)          # the crank is free now: one free motion
    >>> path = mech.free_motion_path(0, [0.0, 0.1, -0.1])
    >>> bool(np.max(np.abs(mech.system().phi(path.states))) < 1e-9)
    True
    """
    system = mech.system()
    q0 = mech.state
    _check_assembled(system, q0)
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    B = free_motions(mech) if basis is None else np.asarray(basis, dtype=float)
    if B.ndim != 2 or B.shape[1] != system.n:
        raise ValueError(f"basis must have shape (k, {system.n}), got {B.shape}")
    if len(B) == 0:
        raise _fully_driven(mech)
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an integer, got {type(index).__name__} {index!r}")
    if not 0 <= index < len(B):
        raise ValueError(f"index must be in 0..{len(B) - 1} (the mechanism has {len(B)} free "
                         f"motion{'s' if len(B) > 1 else ''}), got {index}")
    s_req = as_values(amplitudes, "amplitudes")
    top = float(np.max(np.abs(s_req)))
    h_max = top / 12.0 if top > 0 else 1.0
    chart = _Chart(mech, B, int(index), tol, min(max_iterations, CORRECTOR_ITERATIONS))
    table = {0.0: (q0.copy(), 0, float(np.max(np.abs(system.phi(q0)), initial=0.0)))}
    pos, hi = chart.follow(sorted({float(v) for v in s_req if v > 0}), h_max)
    neg, lo = chart.follow(sorted({float(v) for v in s_req if v < 0}, reverse=True), h_max)
    table.update(pos)
    table.update(neg)
    values = np.array([float(np.clip(v, lo, hi)) for v in s_req])
    states = np.empty((len(s_req), q0.size))
    iterations = np.zeros(len(s_req), dtype=int)
    residuals = np.zeros(len(s_req))
    for i, v in enumerate(values):
        states[i], iterations[i], residuals[i] = table[v]
    limited = bool(np.any(s_req > hi) or np.any(s_req < lo))
    return FreeMotion(mech, values, states, iterations, residuals, basis=B.copy(), start=q0,
                      motion_index=np.full(len(s_req), int(index)), requested=s_req.copy(),
                      reached={int(index): (lo, hi)}, limited={int(index): limited})


def _point_rates(mech, b, points):
    """Global positions of the points and their displacements per unit ``s`` along ``b``."""
    pos = np.array([body.to_global(p) for body, p in points], dtype=float)
    rate = np.array([point_velocity(mech, body, p, b) for body, p in points
                     if not body.is_ground]).reshape(-1, mech.dim)
    return pos, rate


def free_motion_amplitude(mech, direction, points=()) -> float:
    """A visible but modest amplitude ``s`` for moving a mechanism along ``direction``.

    The moving points (body origins and ``points``) travel at most ``WIGGLE_FRACTION`` (8 %)
    of the diagonal of the bounding box of all points, and no body turns by more than
    ``MAX_WIGGLE_ROTATION`` (0.2 rad), to first order.

    Parameters
    ----------
    mech : Mechanism
        The mechanism, at the pose the motion starts from.
    direction : array_like, shape (n,)
        An increment-space direction, e.g. a row of ``mech.free_motions()``.
    points : sequence of (Body, point)
        Body points (body coordinates) that describe the mechanism's extent, e.g. its joint
        points; ground points count for the extent.

    Returns
    -------
    float

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve.analysis import free_motion_amplitude
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> round(free_motion_amplitude(mech, mech.free_motions()[0]), 3)
    0.331
    """
    system = mech.system()
    b = as_vector(direction, "direction", system.n)
    pts = [(body, np.zeros(mech.dim)) for body in mech.bodies] + list(points)
    pts.append((mech.ground, np.zeros(mech.dim)))
    pos, rate = _point_rates(mech, b, pts)
    size = float(np.linalg.norm(pos.max(axis=0) - pos.min(axis=0)))
    size = size if size > 0.0 else 1.0
    speed = float(np.max(np.linalg.norm(rate, axis=1), initial=0.0))
    w = system.layout.increments(b)[:, mech.dim:]     # the bodies' rotation rates
    turn = float(np.max(np.linalg.norm(w, axis=1), initial=0.0))
    limits = [WIGGLE_FRACTION * size / speed if speed > 1e-12 else np.inf,
              MAX_WIGGLE_ROTATION / turn if turn > 1e-12 else np.inf]
    amplitude = min(limits)
    return float(amplitude) if np.isfinite(amplitude) else WIGGLE_FRACTION * size


def wiggle_free_motions(mech, *, amplitude=None, frames: int = 48, points=(),
                        tol: float = 1e-10,
                        max_iterations: int = DEFAULT_MAX_ITERATIONS) -> FreeMotion:
    """Wiggle every free motion of a mechanism in turn, as one :class:`FreeMotion`.

    Free motion ``k`` (a row of ``mech.free_motions()``) is followed through
    ``s = A_k sin(2 pi i / frames)`` for ``i = 0 .. frames - 1``: from the current pose out to
    ``+A_k``, back through it to ``-A_k`` and back (see :func:`free_motion_path`: the poses
    satisfy every constraint, they are not a linear extrapolation). Then the next free motion,
    from the same start pose. Where a limit stops a motion the wiggle waits at the limit pose
    until ``s`` comes back. The mechanism's state is not changed.

    Parameters
    ----------
    mech : Mechanism
        An assembled mechanism with fewer drivers than degrees of freedom.
    amplitude : float or sequence of float, optional
        ``A`` for all motions, or one per free motion (default
        :func:`free_motion_amplitude` of each basis vector).
    frames : int
        Poses per free motion.
    points : sequence of (Body, point)
        Extra body points for the default amplitude's size estimate.
    tol, max_iterations :
        As for :func:`free_motion_path`.

    Returns
    -------
    FreeMotion
        ``k * frames`` poses; ``motion_index`` tells the free motion of each.

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> wiggle = wiggle_free_motions(mech, frames=8)
    >>> len(wiggle), wiggle.labels[2]
    (8, 'free motion 1 of 1: s = +0.331')
    """
    system = mech.system()
    _check_assembled(system, mech.state_view)
    frames = as_count(frames, "frames")
    B = free_motions(mech)
    k = len(B)
    if k == 0:
        raise _fully_driven(mech)
    if amplitude is None:
        amps = np.array([free_motion_amplitude(mech, b, points) for b in B])
    else:
        amps = np.asarray(amplitude, dtype=float)
        if amps.ndim == 0:
            amps = np.full(k, float(as_float(amplitude, "amplitude", positive=True)))
        elif amps.shape != (k,) or not np.all(np.isfinite(amps)) or np.any(amps <= 0):
            raise ValueError(f"amplitude must be a positive number or {k} positive numbers "
                             f"(one per free motion), got {amplitude!r}")
    # Rounded so that the poses on the way out and back share their values (and solves).
    wave = np.round(np.sin(2.0 * np.pi * np.arange(frames) / frames), 13) + 0.0
    parts = [free_motion_path(mech, i, amps[i] * wave, basis=B, tol=tol,
                              max_iterations=max_iterations) for i in range(k)]
    reached = {i: p.reached[i] for i, p in enumerate(parts)}
    limited = {i: p.limited[i] for i, p in enumerate(parts)}
    return FreeMotion(mech, np.concatenate([p.values for p in parts]),
                      np.concatenate([p.states for p in parts]),
                      np.concatenate([p.iterations for p in parts]),
                      np.concatenate([p.residuals for p in parts]), basis=B,
                      start=mech.state, motion_index=np.repeat(np.arange(k), frames),
                      requested=np.concatenate([p.requested for p in parts]),
                      reached=reached, limited=limited)
