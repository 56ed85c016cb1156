"""End effectors (Actin's table of end-effector goals) as constraints of the ordinary solver.

An end effector constrains a frame ``E`` on a body (the *link*) relative to a *goal frame*
``G``. The goal is a target placement ``T`` expressed in a reference frame ``F`` on a reference
body (ground by default, or another body: Actin's "relative link"): ``G = pose(ref) * F * T``
and ``E = pose(link) * F_e``. The target can be changed between solves like a driver value
(``ee.target = ...`` writes into the stacked parameters, no recompilation), and per batch item
through :func:`mechsolve.analysis.solve_batch` (``params={ee: ee.params_for(targets)}``).

Notation used in every docstring: ``o_G, o_E`` the origins, ``g_x, g_y, g_z`` and
``e_x, e_y, e_z`` the axes (global), ``d = o_E - o_G``, ``R_G = [g_x g_y g_z]``, and
``(s, v) = sgn(w) * conj(q_G) q_E`` the relative quaternion with its scalar part made
non-negative (``s = cos(theta/2)``, ``v = sin(theta/2) k`` for the relative rotation by
``0 <= theta <= pi`` about the unit axis ``k``, ``k`` in goal coordinates). Equation rows
(``equation_labels``):

======  ==========================================================  ============================
label   value                                                       meaning
======  ==========================================================  ============================
x y z   ``g_x . d``, ``g_y . d``, ``g_z . d``                        position of E in goal axes
rx..rz  ``theta k = 2 atan2(|v|, s) v / |v|``                       orientation error: the
                                                                    rotation vector (radians)
                                                                    about the goal axes
angle   ``atan2(g_y . e_x, g_x . e_x)``                              rotation of E about g_z
zx zy   ``2 (g_x . e_z) / (1 + g_z . e_z)``, same with ``g_y``         direction of e_z vs g_z
======  ==========================================================  ============================

The orientation rows are the rotation vector (the log map of the relative rotation), taken the
short way (``s >= 0``). They vanish only when the two frames have the same orientation (no
spurious roots at a half turn, unlike ``-y_G . e_z``-type rows), and their Jacobian,
``(c I - [theta k]x / 2 + (1 - c) k k^T) R_G^T`` with ``c = (theta/2) cot(theta/2)``, is
regular for every ``theta <= pi``: at exactly a half turn (``s = 0``) it is
``-(pi/2) [k]x + k k^T``, so the Newton step is defined there too (for a free body it is the
exact half turn back (:meth:`mechsolve.robots.SerialArm.ik` uses these rows too). ``2 v``
(``|2 v| = 2 sin(theta/2)``), which the link joints and :class:`~mechsolve.joints.SerialChain`
use, has the
same zero set but a singular Jacobian at a half turn: ``|v| = 1`` is its maximum, so no
first-order step reduces it. No three-number error that vanishes only at the goal, with a
regular Jacobian there, is continuous on the whole rotation group; these rows jump (from
``pi k`` to ``-pi k``) where the relative rotation passes a half turn, the rotations farthest
from the goal. ``zx, zy`` have magnitude ``2 tan(phi/2)`` for an angle ``phi``
between ``e_z`` and ``g_z`` and vanish only when they coincide (not when opposite). Jacobians
are analytic for every kind; the tests check all of them against finite differences.

No kind has mirrored solutions (:meth:`~mechsolve.joints.Joint._mirrored` keeps its default;
each class says why): the rotation-vector rows vanish only at the goal orientation, ``angle``
is an atan2 (``pi``, not 0, half a turn away), ``zx, zy`` and the look-at rows divide by
``1 + cos`` (no root pointing away), and :class:`RcmEndEffector`'s line through a point has no
direction to reverse.

Quaternions given by hand (``(B, 7)`` target arrays for :meth:`EndEffector.params_for`, a
4-vector orientation target) must have norm 1 within ``1e-6`` (a :class:`ValueError` names
the argument and the norm found); they are then normalized.

Kinds from Actin's table that are not position-level goals: ``spatialMomentum`` is a velocity
goal (momentum is not the derivative of a configuration function, angular momentum is not
integrable): :class:`~mechsolve.joints.SpatialMomentumEndEffector`, solved by
``Mechanism.velocity(goals=...)``; the meaning of ``sag`` is not given and it is not
implemented.
``accelerometer`` is the orientation goal the guide's table gives it (placement element
``orientation``, 3 degrees of constraint; see :class:`AccelerometerEndEffector`).

Over 700 lines because Actin's 23 position-level kinds live here as one class each, a few
lines on the shared row kernels above them.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._validation import as_float, as_vector
from ..body import Body
from ..spatial._quat import (
    cross,
    frame_compose,
    quat_conjugate,
    quat_multiply,
    quat_rotate,
    quat_to_matrix,
    quat_to_matrix_derivative,
)
from ..spatial._validation import UNIT_TOLERANCE
from ..spatial._validation import unit_quaternions_checked as _unit_quaternions
from ._geometry import Geometry
from ._phi_p import compose, contract, on_body, rows_p, seed, vecmat
from ._spatial import _require_spatial, placement
from .base import Joint

__all__ = [
    "EndEffector", "PointEndEffector", "FrameEndEffector", "DirectionalFrameEndEffector",
    "OrientationEndEffector", "AccelerometerEndEffector", "XEndEffector", "XYEndEffector",
    "LinearConstraintEndEffector", "PointDistanceEndEffector", "AxisRotateEndEffector",
    "LookAtEndEffector", "FreeSpinInZEndEffector", "SlidingEndEffector",
    "SlideXSpinZEndEffector", "PointRotateEndEffector", "PlanarEndEffector",
    "GeneralSpatialEndEffector", "RcmEndEffector", "CenterOfMassEndEffector",
    "ProjectedCenterOfMassEndEffector", "SewAngleEndEffector", "CoordinatedJointEndEffector",
    "OneDofGripperEndEffector", "END_EFFECTOR_KINDS",
]

_I3 = np.eye(3)
_IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])


# -- array kernels ----------------------------------------------------------------------------
def _skew(v):
    """``[v]x`` for stacked vectors, ``(..., 3) -> (..., 3, 3)``."""
    out = np.zeros(v.shape + (3,))
    out[..., 0, 1] = -v[..., 2]
    out[..., 0, 2] = v[..., 1]
    out[..., 1, 0] = v[..., 2]
    out[..., 1, 2] = -v[..., 0]
    out[..., 2, 0] = -v[..., 1]
    out[..., 2, 1] = v[..., 0]
    return out


def _frame_on(X, p, f):
    """Origin, quaternion, axes (columns) and lever ``o - r`` of a frame ``(p, f)`` on bodies."""
    qb = X[..., 3:]
    a = quat_rotate(qb, p)
    q = quat_multiply(qb, f)
    return X[..., :3] + a, q, quat_to_matrix(q), a


def _lift(Do, Dth, a):
    """Jacobian block ``(..., m, 6)`` w.r.t. a body increment ``(dr, dphi)`` from derivatives
    w.r.t. the global displacement ``Do`` and rotation ``Dth`` of a frame with lever ``a``
    (``d o = dr + dphi x a``)."""
    shape = np.broadcast_shapes(Do.shape, Dth.shape)
    J = np.empty(shape[:-1] + (6,))
    J[..., :3] = Do
    J[..., 3:] = Dth + cross(a[..., None, :], Do)
    return J


def _relative_quat(qA, qB):
    """``(s, v)`` of ``sgn(w) conj(qA) qB`` (scalar part made non-negative)."""
    qr = quat_multiply(quat_conjugate(qA), qB)
    sgn = np.where(qr[..., 0] < 0.0, -1.0, 1.0)
    return qr[..., 0] * sgn, qr[..., 1:] * sgn[..., None]


def _log_rows(s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation vector ``theta k`` of the unit quaternion ``(s >= 0, v)`` and its Jacobian.

    Returns ``phi (..., 3)`` and ``M (..., 3, 3)`` with ``d phi = M eps`` for a rotation
    increment ``eps`` applied on the left of the quaternion (``q <- exp(eps) q``):
    ``M = c I - [phi]x / 2 + (1 - c) k k^T``, ``c = (theta/2) cot(theta/2)`` (the inverse of
    SO(3)'s left Jacobian). ``M`` is regular up to and including ``theta = pi``.
    """
    n = np.sqrt(np.sum(v * v, axis=-1))
    pos = n > 0.0
    safe = np.where(pos, n, 1.0)
    f = np.where(pos, 2.0 * np.arctan2(n, s) / safe, 2.0)   # theta / |v|, 2 at theta = 0
    c = 0.5 * f * s
    k = v / safe[..., None]
    M = (c[..., None, None] * _I3 - _skew(0.5 * f[..., None] * v)
         + (1.0 - c)[..., None, None] * k[..., :, None] * k[..., None, :])
    return f[..., None] * v, M


def _rows(rows, oA, qA, RA, oB, qB, RB, *, log_map=False):
    """Rows of the table above for goal frame A and end-effector frame B.

    Returns ``phi (..., m)`` and the derivatives ``(..., m, 3)`` w.r.t. the global
    displacement and rotation of A and of B. The orientation rows are the rotation vector
    with ``log_map=True`` (end effectors) and ``2 v`` otherwise (link joints).
    """
    d = oB - oA
    shape = d.shape[:-1]
    m = len(rows)
    phi = np.empty(shape + (m,))
    DoA = np.zeros(shape + (m, 3))
    DthA = np.zeros(shape + (m, 3))
    DoB = np.zeros(shape + (m, 3))
    DthB = np.zeros(shape + (m, 3))
    M = None
    for i, r in enumerate(rows):
        if r in ("x", "y", "z"):
            g = RA[..., :, "xyz".index(r)]
            phi[..., i] = np.sum(g * d, axis=-1)
            DoB[..., i, :] = g
            DoA[..., i, :] = -g
            DthA[..., i, :] = cross(g, d)
        elif r in ("rx", "ry", "rz"):
            if M is None:
                s, v = _relative_quat(qA, qB)
                if log_map:
                    rot, M = _log_rows(s, v)
                else:
                    rot, M = 2.0 * v, s[..., None, None] * _I3 - _skew(v)
                M = M @ np.swapaxes(RA, -1, -2)
            k = "xyz".index(r[1])
            phi[..., i] = rot[..., k]
            DthB[..., i, :] = M[..., k, :]
            DthA[..., i, :] = -M[..., k, :]
        elif r == "angle":
            gx, gy, ex = RA[..., :, 0], RA[..., :, 1], RB[..., :, 0]
            sn = np.sum(gy * ex, axis=-1)
            cs = np.sum(gx * ex, axis=-1)
            phi[..., i] = np.arctan2(sn, cs)
            r2 = (sn * sn + cs * cs)[..., None]
            w = (cs[..., None] * cross(gy, ex) - sn[..., None] * cross(gx, ex)) / r2
            DthA[..., i, :] = w
            DthB[..., i, :] = -w
        elif r in ("zx", "zy"):
            gk, gz, ez = RA[..., :, "xy".index(r[1])], RA[..., :, 2], RB[..., :, 2]
            a = np.sum(gk * ez, axis=-1)[..., None]
            den = 1.0 + np.sum(gz * ez, axis=-1)[..., None]
            phi[..., i] = 2.0 * a[..., 0] / den[..., 0]
            w = 2.0 * (cross(gk, ez) * den - a * cross(gz, ez)) / (den * den)
            DthA[..., i, :] = w
            DthB[..., i, :] = -w
        else:  # pragma: no cover - guarded by the class definitions
            raise ValueError(f"unknown end-effector row {r!r}")
    return phi, DoA, DthA, DoB, DthB


#: Largest accepted deviation of a hand-given quaternion's norm from 1 (as for Orientation).
QUATERNION_TOLERANCE = UNIT_TOLERANCE   # one tolerance for every hand-given quaternion


def _as_frame_parts(value, name):
    """``(translation, quaternion)`` of a Frame, or of a point (identity orientation)."""
    from ..spatial import Frame, Orientation

    if isinstance(value, Orientation):
        q = np.asarray(value.quaternion, dtype=float)
        if q.shape != (4,):
            raise ValueError(f"{name} must be a single Orientation, got a stack of shape "
                             f"{q.shape[:-1]}")
        return np.zeros(3), q
    if isinstance(value, Frame):
        return placement(value, name)
    return as_vector(value, name, 3), _IDENTITY_Q.copy()


def _frame_target_rows(targets, name: str) -> np.ndarray:
    """Target rows ``(B, 3)`` (points) or ``(B, 7)`` (translation, unit quaternion) checked."""
    arr = np.asarray(targets, dtype=float)
    if arr.ndim != 2 or arr.shape[1] not in (3, 7):
        raise ValueError(f"{name} must be an array (B, 3) of points or (B, 7) of "
                         f"(translation, quaternion), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    if arr.shape[1] == 7:
        arr = arr.copy()
        arr[:, 3:] = _unit_quaternions(arr[:, 3:], name)
    return arr


def _frame_text(t, q) -> str:
    """``(x, y, z) turned A deg`` for a translation and a quaternion (any norm)."""
    pos = "(" + ", ".join(f"{x:.4g}" for x in t) + ")"
    q = np.asarray(q, dtype=float)
    if np.allclose(q, _IDENTITY_Q):
        return pos
    # 2 atan2(|v|, |w|) is the rotation angle for any non-zero norm (arccos(|w|) is not)
    angle = 2.0 * np.degrees(np.arctan2(np.linalg.norm(q[1:]), abs(q[0])))
    return f"{pos} turned {angle:.3g} deg"


# -- base classes -------------------------------------------------------------------------------
class EndEffector(Joint):
    """Base of the end effectors: a goal on a frame of a body, with a settable ``target``.

    The parameters below are common to the subclasses with a link frame.

    Parameters
    ----------
    link : SpatialBody
        The body carrying the end-effector frame.
    frame : Frame or array_like (3,), optional
        The end-effector frame on ``link`` (body coordinates; a point gives the body's axes).
    target
        The goal placement (a Frame, a point or a number, by kind), in the reference frame.
    relative_to : SpatialBody, optional
        The reference body (Actin's relative link); default ground.
    reference : Frame or array_like (3,), optional
        The reference frame on ``relative_to`` in which the target is expressed (default: the
        body's own frame).
    name : str, optional
        The end effector's name, for messages and reports.
    """

    is_goal = True

    dims = (3,)
    #: Kind name in Actin's table.
    actin_kind: ClassVar[str] = ""

    @property
    def equation_labels(self):
        return getattr(type(self), "_rows_spec", None)

    @property
    def _kind(self) -> str:
        """The class name, for messages (``GeneralSpatialEndEffector`` for its row subsets)."""
        cls = type(self)
        return "GeneralSpatialEndEffector" if cls.__name__.startswith(
            "GeneralSpatialEndEffector") else cls.__name__

    def _target_text(self) -> str:
        return repr(self.target)

    def describe(self) -> str:
        bodies = [b for b in self._bodies if not b.is_ground]
        text = f"{self.label} on {', '.join(b.name for b in bodies) or 'ground'}"
        ref = self._bodies[0] if self._bodies else None
        if ref is not None and not ref.is_ground and len(self._bodies) == 2:
            text += f" relative to {ref.name}"
        return f"{text} (target {self._target_text()})"

    def params_for(self, targets) -> np.ndarray:
        """Parameter rows ``(B, p)`` for :func:`~mechsolve.analysis.solve_batch`, one per target.

        ``targets`` is a sequence of targets (anything :attr:`target` accepts), or for frame
        and point kinds an array ``(B, 7)`` (translation, quaternion of norm 1 within
        ``1e-6``, then normalized) or ``(B, 3)`` (points).
        """
        if (isinstance(targets, np.ndarray) and targets.ndim == 2
                and hasattr(self.sl, "target_translation") and targets.shape[1] in (3, 7)):
            arr = _frame_target_rows(targets, f"{self._kind}.params_for targets")
            out = np.repeat(self._p[None], len(arr), axis=0)
            start = self.sl.target_translation.start   # the target quaternion follows
            out[:, start:start + arr.shape[1]] = arr
            return out
        saved = self._p.copy()
        rows = []
        try:
            for i, t in enumerate(targets):
                try:
                    self.target = t
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"{self._kind}.params_for targets, item {i}: "
                                    f"{exc}") from None
                rows.append(self._p.copy())
        finally:
            self._p[:] = saved
        return np.array(rows)


class _LinkEndEffector(EndEffector):
    """Two slots (reference body, link); parameters ``[F (7), F_e (7), T (7), extra]``."""

    _rows_spec: ClassVar[tuple[str, ...]] = ()
    _target_kind: ClassVar[str] = "frame"   # "frame", "point", "orientation" or "scalar"
    layout = (("reference_point", 3), ("reference_frame", 4), ("point", 3), ("frame", 4),
              ("target_translation", 3), ("target_quaternion", 4))

    def __init__(self, link, frame=None, target=None, *, relative_to=None, reference=None,
                 name=None, extra=()) -> None:
        kind = self._kind
        if isinstance(link, Body) and link.is_ground:
            raise ValueError(f"{kind}: the end-effector link must be a moving body, got ground")
        if relative_to is None:
            if not isinstance(link, Body):
                raise TypeError(f"{kind}: link must be a mechsolve Body, got "
                                f"{type(link).__name__}")
            relative_to = link.mechanism.ground
        _require_spatial(self, relative_to, link)
        pr, fr = _as_frame_parts(np.zeros(3) if reference is None else reference,
                                 f"{kind} reference")
        pe, fe = _as_frame_parts(np.zeros(3) if frame is None else frame, f"{kind} frame")
        params = np.concatenate([pr, fr, pe, fe, np.zeros(3), _IDENTITY_Q, extra])
        Joint.__init__(self, (relative_to, link), params, name=name)
        if target is not None:
            self.target = target

    @property
    def link(self) -> Body:
        return self._bodies[1]

    def geometry(self) -> Geometry:
        """The end-effector point on the link (a pin mark) and, for a goal point or frame,
        the target point on the reference body."""
        sl = self.sl
        end = (self._bodies[1], self.param("point"))
        out = Geometry(points=[end], pins=[end])
        if self._target_kind in ("frame", "point") or isinstance(self, PointDistanceEndEffector):
            goal, _ = frame_compose(self._p[sl.reference_point], self._p[sl.reference_frame],
                                    self._p[sl.target_translation],
                                    self._p[sl.target_quaternion])
            out.target = (end, (self._bodies[0], goal))
        return out

    @property
    def relative_to(self) -> Body:
        return self._bodies[0]

    # -- target ---------------------------------------------------------------------------------
    @property
    def target(self):
        """The goal placement in the reference frame (a Frame, a point or a number by kind)."""
        from ..spatial import Frame, Orientation

        t = self._p[self.sl.target_translation].copy()
        q = self._p[self.sl.target_quaternion].copy()
        if self._target_kind == "point":
            return t
        if self._target_kind == "orientation":
            return Orientation(q, normalize=True)
        return Frame(t, Orientation(q, normalize=True))

    @target.setter
    def target(self, value) -> None:
        from ..spatial import Frame, Orientation

        name = f"{self._kind} target"
        if self._target_kind == "orientation" and not isinstance(value, (Orientation, Frame)):
            t, q = np.zeros(3), _unit_quaternions(as_vector(value, name, 4), name)
        else:
            t, q = _as_frame_parts(value, name)
        if self._target_kind == "orientation":
            t = np.zeros(3)
        self._p[self.sl.target_translation] = t
        self._p[self.sl.target_quaternion] = q

    @property
    def target_frame(self):
        """The full target placement (translation and orientation) as a Frame."""
        from ..spatial import Frame, Orientation

        return Frame(self._p[self.sl.target_translation].copy(),
                     Orientation(self._p[self.sl.target_quaternion].copy(), normalize=True))

    def _target_text(self) -> str:
        return _frame_text(self._p[self.sl.target_translation],
                           self._p[self.sl.target_quaternion])

    # -- kernels --------------------------------------------------------------------------------
    @classmethod
    def _frames(cls, P, X1, X2):
        sl = cls.sl
        pg, fg = frame_compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                               P[..., sl.target_translation], P[..., sl.target_quaternion])
        G = _frame_on(X1, pg, fg)
        E = _frame_on(X2, P[..., sl.point], P[..., sl.frame])
        return G, E

    @classmethod
    def _frames_p(cls, P, X1, X2):
        """The frames of :meth:`_frames` and their derivatives in the parameter columns:
        ``(G, E, (do_G, dq_G), (do_E, dq_E))``, each ``do (..., 3, p)``, ``dq (..., 4, p)``."""
        sl = cls.sl
        n = P.shape[-1]
        pg, fg, dpg, dfg = compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                                   seed(n, sl.reference_point), seed(n, sl.reference_frame),
                                   P[..., sl.target_translation], P[..., sl.target_quaternion],
                                   seed(n, sl.target_translation), seed(n, sl.target_quaternion))
        G, dG = on_body(X1, pg, fg, dpg, dfg)
        E, dE = on_body(X2, P[..., sl.point], P[..., sl.frame], seed(n, sl.point),
                        seed(n, sl.frame))
        return G, E, dG, dE

    @classmethod
    def _end_frame_p(cls, P, X2):
        """The end-effector frame on the link and its derivatives in the parameter columns."""
        sl = cls.sl
        n = P.shape[-1]
        return on_body(X2, P[..., sl.point], P[..., sl.frame], seed(n, sl.point),
                       seed(n, sl.frame))

    @classmethod
    def _error(cls, P, G, E):
        return _rows(cls._rows_spec, G[0], G[1], G[2], E[0], E[1], E[2], log_map=True)

    @classmethod
    def _error_p(cls, P, G, E):
        """Derivatives of :meth:`_error`'s rows in the frames' origins and raw quaternions,
        ``(DoG (..., m, 3), DqG (..., m, 4), DoE, DqE)``, and in the parameters directly
        (``(..., m, p)``, or ``None``)."""
        return (*rows_p(cls._rows_spec, G[0], G[1], G[2], E[0], E[1], E[2], log_map=True),
                None)

    @classmethod
    def _evaluate(cls, P, X1, X2):
        G, E = cls._frames(P, X1, X2)
        phi, DoG, DthG, DoE, DthE = cls._error(P, G, E)
        return phi, [_lift(DoG, DthG, G[3]), _lift(DoE, DthE, E[3])]

    @classmethod
    def _phi(cls, P, X1, X2):
        return cls._evaluate(P, X1, X2)[0]

    @classmethod
    def _phi_p(cls, P, X1, X2):
        G, E, dG, dE = cls._frames_p(P, X1, X2)
        DoG, DqG, DoE, DqE, extra = cls._error_p(P, G, E)
        return contract([(DoG, dG[0]), (DqG, dG[1]), (DoE, dE[0]), (DqE, dE[1])], extra)


class _ScalarTarget:
    """Mixin: the target is a number, the parameter ``target_value`` of the layout."""

    _target_kind = "scalar"

    @property
    def target(self) -> float:
        return float(self._p[self.sl.target_value])

    @target.setter
    def target(self, value) -> None:
        self._p[self.sl.target_value] = self._check_target(as_float(value,
                                                                    f"{self._kind} target"))

    def _check_target(self, value: float | np.ndarray) -> float | np.ndarray:
        """Hook: validate a target value (a float, or an array of them); return it."""
        return value

    def _target_text(self) -> str:
        return f"{self.target:.6g}"

    def params_for(self, targets) -> np.ndarray:
        vals = np.asarray(targets, dtype=float).reshape(-1)
        if not np.all(np.isfinite(vals)):
            raise ValueError(f"{self._kind}.params_for targets must be finite numbers")
        out = np.repeat(self._p[None], len(vals), axis=0)
        out[:, self.sl.target_value] = self._check_target(vals)
        return out


# -- the kinds ----------------------------------------------------------------------------------
class PointEndEffector(_LinkEndEffector):
    """Position of a body point (Actin ``pointEndEffector``, 3 equations).

    ``Phi = R_G^T (o_E - o_G)``: the end-effector point ``o_E`` coincides with the target
    point. The target is a point in the reference frame (or a Frame, whose axes then orient
    the three components).

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> link = mech.add_body("link", position=(0, 0, 1))
    >>> ee = ms.joints.PointEndEffector(link, (0, 0, 0.5), target=(0, 0, 1.5))
    >>> ee.residual()
    array([0., 0., 0.])
    """

    actin_kind = "pointEndEffector"
    # No mirror: position rows only.
    n_equations = 3
    _rows_spec = ("x", "y", "z")
    _target_kind = "point"


class FrameEndEffector(_LinkEndEffector):
    """Position and orientation of a body frame (Actin ``frameEndEffector``, 6 equations).

    ``Phi = (R_G^T (o_E - o_G), theta k)`` with ``theta k`` the rotation vector of
    ``(s, v) = sgn(w) conj(q_G) q_E`` (``theta = 2 atan2(|v|, s)``, ``k = v / |v|``, see the
    module notes): zero exactly when the end-effector frame coincides with the target frame;
    the orientation rows are the remaining rotation in radians about the goal axes, taken the
    short way, and the Newton step is defined even exactly a half turn away. Target: a Frame in
    the reference frame.
    """

    actin_kind = "frameEndEffector"
    # No mirror: the rotation vector vanishes only at the goal orientation.
    n_equations = 6
    _rows_spec = ("x", "y", "z", "rx", "ry", "rz")


class DirectionalFrameEndEffector(_LinkEndEffector):
    """Frame goal with the error expressed in the end-effector's own axes (6 equations).

    ``Phi = (R_E^T (o_G - o_E), theta k')`` with ``theta k'`` the rotation vector of
    ``(s', v') = sgn(w) conj(q_E) q_G``: the goal seen
    from the tool (Actin ``directionalFrameEndEffector``; its documentation gives no
    formula, so mechsolve takes "directional" to mean tool-frame directions). The solution set
    is that of :class:`FrameEndEffector`; the rows differ, which matters for velocity-level
    use and weighting.
    """

    actin_kind = "directionalFrameEndEffector"
    # No mirror: the rotation vector vanishes only at the goal orientation.
    n_equations = 6
    _rows_spec = ("x", "y", "z", "rx", "ry", "rz")

    @classmethod
    def _error(cls, P, G, E):
        phi, DoE, DthE, DoG, DthG = _rows(cls._rows_spec, E[0], E[1], E[2], G[0], G[1], G[2],
                                          log_map=True)
        return phi, DoG, DthG, DoE, DthE

    @classmethod
    def _error_p(cls, P, G, E):
        DoE, DqE, DoG, DqG = rows_p(cls._rows_spec, E[0], E[1], E[2], G[0], G[1], G[2],
                                    log_map=True)
        return DoG, DqG, DoE, DqE, None


class OrientationEndEffector(_LinkEndEffector):
    """Orientation of a body frame (Actin ``orientationEndEffector``, 3 equations).

    ``Phi = theta k``, the rotation vector of ``(s, v) = sgn(w) conj(q_G) q_E`` (the rotation
    still to go, in radians about the goal axes, the short way). Target: an Orientation, a
    Frame (whose orientation is used) or a quaternion ``(w, x, y, z)`` of norm 1 within
    ``1e-6`` (normalized; any other norm is a ValueError).
    """

    actin_kind = "orientationEndEffector"
    # No mirror: the rotation vector vanishes only at the goal orientation.
    n_equations = 3
    _rows_spec = ("rx", "ry", "rz")
    _target_kind = "orientation"


class AccelerometerEndEffector(OrientationEndEffector):
    """Accelerometer goal as a full orientation (Actin ``accelerometerEndEffector``, 3).

    ``Phi = theta k``, the equations of :class:`OrientationEndEffector`: the sensor frame takes
    the target orientation. Why three equations and not two: an accelerometer at rest
    measures only gravity in its own frame, a direction (two numbers; the spin about gravity
    is unobservable), so a gravity-direction goal would have two equations. But the Actin
    guide's end-effector table (``seeds/000``) gives ``accelerometerEndEffector`` the
    placement element ``placement.coordSysXForm.orientation`` and **3** degrees of
    constraint, the same as ``orientationEndEffector``: in Actin the goal is a whole
    orientation of the sensor frame, and mechsolve follows the guide. For the two-equation
    gravity-direction goal (sensor z axis along the target z axis, spin about it free) use
    ``GeneralSpatialEndEffector(link, frame, target, axes=("rx", "ry"))``: its rows vanish
    exactly when the relative rotation is about the goal z axis, and their Jacobian has rank
    2 there. The dynamic part of a reading (the frame's own acceleration) needs
    accelerations, which a position solver does not have.
    """

    actin_kind = "accelerometerEndEffector"
    # No mirror: the rows of OrientationEndEffector.


class XEndEffector(_LinkEndEffector):
    """One coordinate of a body point (Actin ``xEndEffector``, 1 equation).

    ``Phi = g_x . (o_E - o_G)``: the point's x coordinate in the reference frame equals the
    target's (target: a point; only its x matters unless it is a Frame).
    """

    actin_kind = "xEndEffector"
    # No mirror: a position row only.
    n_equations = 1
    _rows_spec = ("x",)
    _target_kind = "point"


class XYEndEffector(_LinkEndEffector):
    """Two coordinates of a body point (Actin ``xyEndEffector``, 2 equations).

    ``Phi = (g_x . d, g_y . d)`` with ``d = o_E - o_G``: the point's x and y in the reference
    frame equal the target's; z is free.
    """

    actin_kind = "xyEndEffector"
    # No mirror: position rows only.
    n_equations = 2
    _rows_spec = ("x", "y")
    _target_kind = "point"


class LinearConstraintEndEffector(_ScalarTarget, _LinkEndEffector):
    """Coordinate of a body point along the reference z axis (``linearConstraint``, 1).

    ``Phi = g_z . (o_E - o_F) - target`` with ``F`` the reference frame (origin ``o_F``,
    axis ``g_z``): the point stays in the plane ``z = target`` of the reference frame.
    Target: a number (Actin's ``translation.z``).
    """

    actin_kind = "linearConstraintEndEffector"
    # No mirror: a position row only.
    n_equations = 1
    layout = _LinkEndEffector.layout + (("target_value", 1),)
    _rows_spec = ("z",)

    def __init__(self, link, frame=None, target=0.0, *, relative_to=None, reference=None,
                 name=None) -> None:
        super().__init__(link, frame, target, relative_to=relative_to, reference=reference,
                         name=name, extra=[0.0])

    @classmethod
    def _frames(cls, P, X1, X2):
        sl = cls.sl
        t = np.zeros(P.shape[:-1] + (3,))
        t[..., 2] = P[..., sl.target_value]
        pg = P[..., sl.reference_point] + quat_rotate(P[..., sl.reference_frame], t)
        G = _frame_on(X1, pg, P[..., sl.reference_frame])
        return G, _frame_on(X2, P[..., sl.point], P[..., sl.frame])

    @classmethod
    def _frames_p(cls, P, X1, X2):
        # G = F * (0, 0, target): the target translation and quaternion are not read
        sl = cls.sl
        n = P.shape[-1]
        t = np.zeros(P.shape[:-1] + (3,))
        t[..., 2] = P[..., sl.target_value]
        dt = np.zeros((3, n))
        dt[2, sl.target_value] = 1.0
        pg, fg, dpg, dfg = compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                                   seed(n, sl.reference_point), seed(n, sl.reference_frame),
                                   t, _IDENTITY_Q, dt, np.zeros((4, n)))
        G, dG = on_body(X1, pg, fg, dpg, dfg)
        E, dE = cls._end_frame_p(P, X2)
        return G, E, dG, dE


class AxisRotateEndEffector(_ScalarTarget, _LinkEndEffector):
    """Rotation of a body frame about the reference z axis (``axisRotate``, 1 equation).

    ``Phi = wrap(atan2(g_y . e_x, g_x . e_x) - target)`` to ``(-pi, pi]``, with ``g`` the
    reference frame's axes: the angle of the end-effector x axis about ``g_z``, measured from
    ``g_x``. Target: an angle in radians. Undefined when ``e_x`` is parallel to ``g_z``.
    """

    actin_kind = "axisRotateEndEffector"
    # No mirror: atan2 vanishes only with e_x towards +g_x (pi, not 0, half a turn away); turning
    # e_z over is a tilt, which the goal leaves free, reached through solutions.
    n_equations = 1
    layout = _LinkEndEffector.layout + (("target_value", 1),)
    _rows_spec = ("angle",)

    def __init__(self, link, frame=None, target=0.0, *, relative_to=None, reference=None,
                 name=None) -> None:
        super().__init__(link, frame, target, relative_to=relative_to, reference=reference,
                         name=name, extra=[0.0])

    @classmethod
    def _frames(cls, P, X1, X2):
        sl = cls.sl
        half = 0.5 * P[..., sl.target_value]
        qz = np.zeros(P.shape[:-1] + (4,))
        qz[..., 0] = np.cos(half)
        qz[..., 3] = np.sin(half)
        G = _frame_on(X1, P[..., sl.reference_point],
                      quat_multiply(P[..., sl.reference_frame], qz))
        return G, _frame_on(X2, P[..., sl.point], P[..., sl.frame])

    @classmethod
    def _frames_p(cls, P, X1, X2):
        # G = F * Rz(target): dqz/dtarget = (-sin, 0, 0, cos)(target / 2) / 2
        sl = cls.sl
        n = P.shape[-1]
        half = 0.5 * P[..., sl.target_value]
        qz = np.zeros(P.shape[:-1] + (4,))
        qz[..., 0] = np.cos(half)
        qz[..., 3] = np.sin(half)
        dqz = np.zeros(P.shape[:-1] + (4, n))
        dqz[..., 0, sl.target_value] = -0.5 * qz[..., 3]
        dqz[..., 3, sl.target_value] = 0.5 * qz[..., 0]
        pg, fg, dpg, dfg = compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                                   seed(n, sl.reference_point), seed(n, sl.reference_frame),
                                   np.zeros(3), qz, np.zeros((3, n)), dqz)
        G, dG = on_body(X1, pg, fg, dpg, dfg)
        E, dE = cls._end_frame_p(P, X2)
        return G, E, dG, dE


class PointDistanceEndEffector(_ScalarTarget, _LinkEndEffector):
    """Distance of a body point from a fixed point (``pointDistance``, 1 equation).

    ``Phi = |o_E - c| - target`` with ``c`` the ``center`` point (reference-frame
    coordinates). Target: the distance (Actin's ``translation.z``), non-negative (a negative
    distance is a ValueError: no pose could reach it).
    """

    actin_kind = "pointDistanceEndEffector"
    # No mirror: a distance, from any direction.
    n_equations = 1
    layout = _LinkEndEffector.layout + (("target_value", 1),)
    _rows_spec = ("distance",)

    def __init__(self, link, frame=None, target=1.0, *, center=(0.0, 0.0, 0.0),
                 relative_to=None, reference=None, name=None) -> None:
        super().__init__(link, frame, None, relative_to=relative_to, reference=reference,
                         name=name, extra=[0.0])
        self.center = center
        self.target = target

    @property
    def center(self) -> np.ndarray:
        """The fixed point, reference-frame coordinates."""
        return self._p[self.sl.target_translation].copy()

    @center.setter
    def center(self, value) -> None:
        self._p[self.sl.target_translation] = as_vector(value, f"{self._kind} center", 3)

    def _check_target(self, value: float | np.ndarray) -> float | np.ndarray:
        bad = np.asarray(value) < 0.0
        if np.any(bad):
            raise ValueError(f"{self._kind} target is a distance and must be non-negative, "
                             f"got {float(np.asarray(value)[bad].flat[0]):g}")
        return value

    @classmethod
    def _error(cls, P, G, E):
        d = E[0] - G[0]
        L = np.linalg.norm(d, axis=-1)
        u = d / np.where(L > 0.0, L, 1.0)[..., None]
        phi = (L - P[..., cls.sl.target_value])[..., None]
        z = np.zeros(u.shape[:-1] + (1, 3))
        return phi, -u[..., None, :], z, u[..., None, :], z

    @classmethod
    def _error_p(cls, P, G, E):
        _, DoG, _, DoE, _ = cls._error(P, G, E)
        z = np.zeros(DoG.shape[:-1] + (4,))
        extra = np.zeros(DoG.shape[:-1] + (P.shape[-1],))
        extra[..., 0, cls.sl.target_value] = -1.0
        return DoG, z, DoE, z, extra


class LookAtEndEffector(_LinkEndEffector):
    """A body axis points at a target point (Actin ``lookAtEndEffector``, 2 equations).

    With ``u = (o_G - o_E) / |o_G - o_E|`` the unit direction from the end-effector origin to
    the target point, ``Phi = 2 (e_x . u, e_y . u) / (1 + e_z . u)``: zero exactly when the
    end-effector z axis points at the target (magnitude ``2 tan(phi/2)`` for a pointing error
    ``phi``; looking directly away is not a solution). Target: a point.
    """

    actin_kind = "lookAtEndEffector"
    # No mirror: the rows vanish only with e_z towards the target; looking away gives 0/0 (NaN), not
    # a root.
    n_equations = 2
    # angles computed from positions: not lengths, whatever the Jacobian suggests
    equation_lengths = (False, False)
    _rows_spec = ("look x", "look y")
    _target_kind = "point"

    @classmethod
    def _error(cls, P, G, E):
        dvec = G[0] - E[0]
        L = np.linalg.norm(dvec, axis=-1)[..., None]
        u = dvec / L
        ex, ey, ez = E[2][..., :, 0], E[2][..., :, 1], E[2][..., :, 2]
        c = np.sum(ez * u, axis=-1)[..., None]
        den = 1.0 + c
        shape = u.shape[:-1]
        phi = np.empty(shape + (2,))
        DoG = np.empty(shape + (2, 3))
        DthE = np.empty(shape + (2, 3))

        def grad_dir(e):  # d(e . u)/d(o_G) = (I - u u^T) e / L
            return (e - np.sum(e * u, axis=-1)[..., None] * u) / L

        gc_o = grad_dir(ez)
        gc_th = cross(ez, u)
        for i, e in enumerate((ex, ey)):
            a = np.sum(e * u, axis=-1)[..., None]
            phi[..., i] = 2.0 * a[..., 0] / den[..., 0]
            DoG[..., i, :] = 2.0 * (grad_dir(e) * den - a * gc_o) / (den * den)
            DthE[..., i, :] = 2.0 * (cross(e, u) * den - a * gc_th) / (den * den)
        return phi, DoG, np.zeros_like(DoG), -DoG, DthE

    @classmethod
    def _error_p(cls, P, G, E):
        # the axes e_x, e_y, e_z of E through its raw quaternion: d(e . u) = u . de
        _, DoG, _, DoE, _ = cls._error(P, G, E)
        dvec = G[0] - E[0]
        u = dvec / np.linalg.norm(dvec, axis=-1)[..., None]
        dR = quat_to_matrix_derivative(E[1])
        c = np.sum(E[2][..., :, 2] * u, axis=-1)[..., None]
        den = 1.0 + c
        dc = vecmat(u, dR[..., :, 2, :])
        DqE = np.empty(DoG.shape[:-1] + (4,))
        for i in range(2):
            a = np.sum(E[2][..., :, i] * u, axis=-1)[..., None]
            DqE[..., i, :] = 2.0 * (vecmat(u, dR[..., :, i, :]) * den - a * dc) / (den * den)
        return DoG, np.zeros_like(DqE), DoE, DqE, None


class FreeSpinInZEndEffector(_LinkEndEffector):
    """Position and z direction, spin about z free (``freeSpinInZEndEffector``, 5 equations).

    ``Phi = (R_G^T (o_E - o_G), zx, zy)`` with ``zx = 2 (g_x . e_z) / (1 + g_z . e_z)`` and
    ``zy`` likewise: the origins coincide and ``e_z = g_z``; rotation about ``g_z`` is free.
    """

    actin_kind = "freeSpinInZEndEffector"
    # No mirror: zx, zy vanish only at e_z = g_z (NaN at e_z = -g_z).
    n_equations = 5
    _rows_spec = ("x", "y", "z", "zx", "zy")


class SlidingEndEffector(_LinkEndEffector):
    """Orientation fixed, sliding along the target x axis (``slidingEndEffector``, 5).

    ``Phi = (g_y . d, g_z . d, theta k)``: the end-effector origin stays on the line through
    ``o_G`` along ``g_x`` and the frames have the same orientation.
    """

    actin_kind = "slidingEndEffector"
    # No mirror: the rotation vector vanishes only at the goal orientation.
    n_equations = 5
    _rows_spec = ("y", "z", "rx", "ry", "rz")


class SlideXSpinZEndEffector(_LinkEndEffector):
    """Slide along the target x axis and spin about z (``slideXSpinZEndEffector``, 4).

    ``Phi = (g_y . d, g_z . d, zx, zy)``: the origin stays on the line ``o_G + t g_x`` and
    ``e_z = g_z``; sliding along ``g_x`` and spinning about ``g_z`` are free.
    """

    actin_kind = "slideXSpinZEndEffector"
    # No mirror: zx, zy vanish only at e_z = g_z (NaN at e_z = -g_z).
    n_equations = 4
    _rows_spec = ("y", "z", "zx", "zy")


class PointRotateEndEffector(_LinkEndEffector):
    """Position and rotation about the target z axis (``pointRotateEndEffector``, 4).

    ``Phi = (R_G^T (o_E - o_G), atan2(g_y . e_x, g_x . e_x))``: the origins coincide and the
    end-effector x axis, projected on the target xy plane, lies along ``g_x``. Tilts of
    ``e_z`` are free.
    """

    actin_kind = "pointRotateEndEffector"
    # No mirror: the angle row as AxisRotateEndEffector's.
    n_equations = 4
    _rows_spec = ("x", "y", "z", "angle")


class PlanarEndEffector(_LinkEndEffector):
    """x, y and rotation about z in the target frame (``planarEndEffector``, 3 equations).

    ``Phi = (g_x . d, g_y . d, atan2(g_y . e_x, g_x . e_x))``: a planar pose goal in the
    target's xy plane (height and tilts free).
    """

    actin_kind = "planarEndEffector"
    # No mirror: the angle row as AxisRotateEndEffector's.
    n_equations = 3
    _rows_spec = ("x", "y", "angle")


_GENERAL_CLASSES: dict = {}
_FRAME_ROWS = ("x", "y", "z", "rx", "ry", "rz")


class GeneralSpatialEndEffector(_LinkEndEffector):
    """Any subset of a frame goal's six rows (``generalSpatialEndEffector``, 1 to 6).

    The rows are those of :class:`FrameEndEffector` (``x, y, z`` position in goal axes,
    ``rx, ry, rz`` = the rotation vector ``theta k``), active where ``mask`` is true
    (6 booleans in that order) or named in ``axes``. ``axes=("rx", "ry")`` is a direction
    goal: zero exactly when ``e_z = g_z``, spin about ``g_z`` free.
    """

    actin_kind = "generalSpatialEndEffector"
    # No mirror: rotation-vector components vanish only where the relative rotation is about the
    # free axes (a half turn about g_z for rx, ry is a free spin).

    def __new__(cls, link=None, frame=None, target=None, mask=None, **kw):
        if cls is not GeneralSpatialEndEffector:
            return object.__new__(cls)
        rows = _mask_rows(mask if mask is not None else kw.get("axes"))
        sub = _GENERAL_CLASSES.get(rows)
        if sub is None:
            sub = type(f"GeneralSpatialEndEffector[{','.join(rows)}]", (cls,),
                       {"_rows_spec": rows, "n_equations": len(rows), "__doc__": cls.__doc__})
            _GENERAL_CLASSES[rows] = sub
        return object.__new__(sub)

    def __init__(self, link, frame=None, target=None, mask=None, *, axes=None,
                 relative_to=None, reference=None, name=None) -> None:
        super().__init__(link, frame, target, relative_to=relative_to, reference=reference,
                         name=name)

    @property
    def mask(self) -> np.ndarray:
        return np.array([r in self._rows_spec for r in _FRAME_ROWS])

    def __reduce_ex__(self, protocol):
        """Pickle by the rows: the class of a mask is made at run time and cannot be found by
        name, so it is made again when unpickled."""
        return (_unpickle_general, (type(self)._rows_spec, self.__dict__.copy()))


def _unpickle_general(rows, state):
    """A :class:`GeneralSpatialEndEffector` of the rows ``rows`` with ``state`` (pickling)."""
    joint = GeneralSpatialEndEffector.__new__(GeneralSpatialEndEffector, mask=list(rows))
    joint.__dict__.update(state)
    return joint


def _mask_rows(mask) -> tuple[str, ...]:
    if mask is None:
        raise TypeError("GeneralSpatialEndEffector needs mask= (6 booleans for x, y, z, rx, ry, "
                        "rz) or axes= (names)")
    if isinstance(mask, str):
        raise TypeError(f"axes must be a sequence of names such as ('x', 'rz'), got {mask!r}")
    items = list(mask)
    if all(isinstance(a, str) for a in items):
        bad = [a for a in items if a not in _FRAME_ROWS]
        if bad or not items or len(set(items)) != len(items):
            raise ValueError(f"axes must be 1 to 6 distinct names from {_FRAME_ROWS}, got "
                             f"{tuple(items)!r}")
        return tuple(r for r in _FRAME_ROWS if r in items)
    if len(items) != 6:
        raise ValueError(f"mask must have 6 entries (x, y, z, rx, ry, rz), got {len(items)}")
    rows = tuple(r for r, on in zip(_FRAME_ROWS, items) if on)
    if not rows:
        raise ValueError("mask activates no axis; an end effector needs at least one")
    return rows


class RcmEndEffector(_LinkEndEffector):
    """Remote centre of motion: the tool axis passes through a fixed point (``rcm``, 2).

    With ``d = o_G - o_E`` (the fixed point, e.g. a trocar, relative to the tool frame origin)
    ``Phi = (e_x . d, e_y . d)``: the line ``o_E + t e_z`` passes through the target point.
    Target: a point in the reference frame.
    """

    actin_kind = "rcmEndEffector"
    # No mirror: the goal is a line through a point, which has no direction; e_z pointing towards or
    # away from the point are joined by solutions (Actin's table gives the goal as a translation, 2
    # constraints).
    n_equations = 2
    _rows_spec = ("rcm x", "rcm y")
    _target_kind = "point"

    @classmethod
    def _error(cls, P, G, E):
        d = G[0] - E[0]
        ex, ey = E[2][..., :, 0], E[2][..., :, 1]
        phi = np.stack([np.sum(ex * d, axis=-1), np.sum(ey * d, axis=-1)], axis=-1)
        DoG = np.stack([ex, ey], axis=-2)
        DthE = np.stack([cross(ex, d), cross(ey, d)], axis=-2)
        return phi, DoG, np.zeros_like(DoG), -DoG, DthE

    @classmethod
    def _error_p(cls, P, G, E):
        d = G[0] - E[0]
        dR = quat_to_matrix_derivative(E[1])
        DoG = np.stack([E[2][..., :, 0], E[2][..., :, 1]], axis=-2)
        DqE = np.stack([vecmat(d, dR[..., :, 0, :]), vecmat(d, dR[..., :, 1, :])], axis=-2)
        return DoG, np.zeros_like(DqE), -DoG, DqE, None


# -- centre of mass -----------------------------------------------------------------------------
class CenterOfMassEndEffector(EndEffector):
    """Centre of mass of a set of bodies (Actin ``centerOfMassEndEffector``, 3 equations).

    ``c = sum_i m_i (r_i + R_i c_i) / sum_i m_i`` over the bodies (``c_i`` the centre of mass
    in body coordinates) and ``Phi = R_G^T (c - o_G)``; ``G = pose(relative_to) * F * T``.

    Parameters
    ----------
    bodies : sequence of SpatialBody or (SpatialBody, MassProperties)
        The bodies; mass properties are taken from the pairs or from ``masses``
        (mechsolve bodies carry no mass).
    target : array_like (3,) or Frame
    masses : sequence of MassProperties or float, optional
        One per body (a float is a point mass at the body origin).
    relative_to, reference, name : as for the other end effectors.
    """

    actin_kind = "centerOfMassEndEffector"
    # No mirror: position rows only.
    n_equations = 3
    _rows_spec: ClassVar[tuple[str, ...]] = ("x", "y", "z")
    #: ``body_masses``: four numbers per body, its mass then its centre of mass (body
    #: coordinates).
    layout = (("reference_point", 3), ("reference_frame", 4), ("target_translation", 3),
              ("target_quaternion", 4), ("body_masses", None))
    design_parameters = ()   # (the targets are goals, the masses are given as objects)

    def __init__(self, bodies, target=(0.0, 0.0, 0.0), *, masses=None, relative_to=None,
                 reference=None, name=None) -> None:
        from ..spatial import MassProperties

        kind = self._kind
        items = list(bodies)
        if not items:
            raise ValueError(f"{kind}: give at least one body")
        mass_list = None if masses is None else list(masses)
        if mass_list is not None and len(mass_list) != len(items):
            raise ValueError(f"{kind}: masses must have one entry per body ({len(items)} "
                             f"bodies; None for a body given as a (body, MassProperties) "
                             f"pair), got {len(mass_list)}")
        pairs = []
        for i, it in enumerate(items):
            if isinstance(it, tuple):
                if len(it) != 2:
                    raise ValueError(f"{kind}: body {i} must be a body or a (body, "
                                     f"MassProperties) pair, got a tuple of {len(it)} items")
                body, mp = it
                if mass_list is not None and mass_list[i] is not None:
                    raise ValueError(f"{kind}: body {getattr(body, 'name', i)!r} has mass "
                                     "properties both in its pair and in masses=")
            else:
                body, mp = it, None if mass_list is None else mass_list[i]
            if mp is None:
                raise ValueError(f"{kind}: body {getattr(body, 'name', i)!r} has no mass "
                                 "properties; pass (body, MassProperties) pairs or masses=")
            if not isinstance(mp, MassProperties):
                mp = MassProperties.from_point_mass(
                    as_float(mp, f"{kind} mass of body {getattr(body, 'name', i)!r}",
                             positive=True))
            pairs.append((body, mp))
        total = sum(mp.mass for _, mp in pairs)
        if not total > 0.0:
            raise ValueError(f"{kind}: the total mass must be positive, got {total}")
        ref = relative_to if relative_to is not None else pairs[0][0].mechanism.ground
        _require_spatial(self, ref, *[b for b, _ in pairs])
        pr, fr = _as_frame_parts(np.zeros(3) if reference is None else reference,
                                 f"{kind} reference")
        mass = [np.concatenate([[mp.mass], mp.center_of_mass]) for _, mp in pairs]
        params = np.concatenate([pr, fr, np.zeros(3), _IDENTITY_Q, *mass])
        Joint.__init__(self, (ref, *[b for b, _ in pairs]), params, name=name)
        self.masses = tuple(mp for _, mp in pairs)
        self.target = target

    @property
    def target(self) -> np.ndarray:
        """The target point (reference-frame coordinates)."""
        return self._p[self.sl.target_translation].copy()

    @target.setter
    def target(self, value) -> None:
        t, q = _as_frame_parts(value, f"{self._kind} target")
        self._p[self.sl.target_translation] = t
        self._p[self.sl.target_quaternion] = q

    def _target_text(self) -> str:
        return _frame_text(self._p[self.sl.target_translation],
                           self._p[self.sl.target_quaternion])

    def describe(self) -> str:
        names = ", ".join(b.name for b in self._bodies[1:])
        return f"{self.label} of {names} (target {self._target_text()})"

    def center_of_mass(self) -> np.ndarray:
        """The current centre of mass of the bodies, global coordinates."""
        X = [b.pose for b in self._bodies[1:]]
        c = sum(mp.mass * (x[:3] + quat_rotate(x[3:], mp.center_of_mass))
                for x, mp in zip(X, self.masses))
        return c / sum(mp.mass for mp in self.masses)

    @classmethod
    def _evaluate(cls, P, X0, *Xs):
        sl = cls.sl
        pg, fg = frame_compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                               P[..., sl.target_translation], P[..., sl.target_quaternion])
        oG, _, RG, aG = _frame_on(X0, pg, fg)
        n = len(Xs)
        mass = P[..., sl.body_masses]
        M = sum(mass[..., 4 * i] for i in range(n))
        c = 0.0
        levers = []
        for i, X in enumerate(Xs):
            a = quat_rotate(X[..., 3:], mass[..., 4 * i + 1:4 * i + 4])
            levers.append(a)
            c = c + mass[..., 4 * i, None] * (X[..., :3] + a)
        c = c / M[..., None]
        d = c - oG
        m = len(cls._rows_spec)
        G = np.swapaxes(RG, -1, -2)[..., :m, :]       # rows g_k
        phi = np.einsum("...kj,...j->...k", G, d)
        J0 = _lift(-G, cross(G, d[..., None, :]), aG)
        blocks = [J0]
        zero = np.zeros_like(G)
        for i, a in enumerate(levers):
            w = (mass[..., 4 * i] / M)[..., None, None]
            blocks.append(_lift(w * G, zero, a))
        return phi, blocks

    @classmethod
    def _phi(cls, P, X0, *Xs):
        return cls._evaluate(P, X0, *Xs)[0]

    @classmethod
    def _phi_p(cls, P, X0, *Xs):
        # the goal frame's rows x, y(, z) with the centre of mass c as the end-effector
        # origin: dc/dm_i = (r_i + R_i c_i - c) / M, dc/dc_i = (m_i / M) R_i
        sl = cls.sl
        n = P.shape[-1]
        pg, fg, dpg, dfg = compose(P[..., sl.reference_point], P[..., sl.reference_frame],
                                   seed(n, sl.reference_point), seed(n, sl.reference_frame),
                                   P[..., sl.target_translation], P[..., sl.target_quaternion],
                                   seed(n, sl.target_translation), seed(n, sl.target_quaternion))
        (oG, qG, RG, _), (doG, dqG) = on_body(X0, pg, fg, dpg, dfg)
        mass = P[..., sl.body_masses]
        M = sum(mass[..., 4 * i] for i in range(len(Xs)))[..., None]
        points = [X[..., :3] + quat_rotate(X[..., 3:], mass[..., 4 * i + 1:4 * i + 4])
                  for i, X in enumerate(Xs)]
        c = sum(mass[..., 4 * i, None] * pt for i, pt in enumerate(points)) / M
        dc = np.zeros(c.shape + (n,))
        dmass = dc[..., sl.body_masses]
        for i, (X, pt) in enumerate(zip(Xs, points)):
            dmass[..., 4 * i] = (pt - c) / M
            dmass[..., 4 * i + 1:4 * i + 4] = (mass[..., 4 * i, None, None] / M[..., None]
                                               * quat_to_matrix(X[..., 3:]))
        DoG, DqG, Dc, _ = rows_p(cls._rows_spec, oG, qG, RG, c, qG, RG)
        return contract([(DoG, doG), (DqG, dqG), (Dc, dc)])

    def params_for(self, targets) -> np.ndarray:
        """Parameter rows ``(B, p)``: targets ``(B, 3)`` (points) or ``(B, 7)`` (translation,
        unit quaternion) as for the other end effectors, or a sequence of targets."""
        if isinstance(targets, np.ndarray):
            arr = _frame_target_rows(targets, f"{self._kind}.params_for targets")
        else:
            rows = [np.concatenate(_as_frame_parts(t, f"{self._kind} target"))
                    for t in targets]
            arr = np.array(rows).reshape(len(rows), 7)
        out = np.repeat(self._p[None], len(arr), axis=0)
        start = self.sl.target_translation.start   # the target quaternion follows
        out[:, start:start + arr.shape[1]] = arr
        return out


class ProjectedCenterOfMassEndEffector(CenterOfMassEndEffector):
    """Centre of mass projected along the target z axis (``projectedCenterOfMass``, 2).

    ``Phi = (g_x . (c - o_G), g_y . (c - o_G))`` with ``c`` as in
    :class:`CenterOfMassEndEffector`: e.g. the centre of mass over a support point, with
    ``g_z`` vertical.
    """

    actin_kind = "projectedCenterOfMassEndEffector"
    # No mirror: position rows only.
    n_equations = 2
    _rows_spec = ("x", "y")


# -- arm angle ----------------------------------------------------------------------------------
class SewAngleEndEffector(EndEffector):
    """Shoulder-elbow-wrist plane angle of an arm (Actin ``sewAngleEndEffector``, 1).

    With shoulder, elbow and wrist points ``S, E, W`` (one point on each of three bodies),
    ``D = W - S``, ``w = D / |D|``, the reference direction ``r0`` (``reference``, in the
    shoulder body's coordinates, default its z axis) made perpendicular to ``w``:
    ``r = r0 - (r0 . w) w``, and the elbow offset ``e = (E - S) - ((E - S) . w) w``,
    the arm angle ``psi`` is the rotation of the arm plane about the shoulder-wrist line,
    measured from the plane containing ``r0``: ``psi = atan2(Y, X)`` with
    ``X = r . e`` and ``Y = w . (r x e) = w . (r0 x (E - S))``. The equation is the signed
    angle from the target ``t`` to ``psi``,

    ``Phi = atan2(Y cos t - X sin t, X cos t + Y sin t)``,

    that is ``psi - t`` reduced to ``(-pi, pi]`` (the atan2 of ``(X, Y)`` turned by ``-t``, so
    there is no separate branch cut of ``psi``). It vanishes exactly when ``psi = t`` (mod
    ``2 pi``), has slope 1 in ``psi`` everywhere and is analytic everywhere except at the
    antipode ``psi = t + pi``, where it jumps from ``pi`` to ``-pi``. That jump cannot be
    avoided: a continuous function of the angle that vanishes only at ``t`` with a non-zero
    slope there would have to change sign once round the circle, so it would vanish a second
    time (a false root, as ``sin(psi - t)`` has at ``t + pi``). The jump is therefore put as
    far from the solution as it can be, and the slope is kept at 1 so that a Newton step from
    anywhere is the angle still to go (``2 sin((psi - t) / 2)`` has the same jump, with height
    4, and a slope that vanishes at the antipode, where its Newton steps blow up). Near the
    antipode a finite-difference Jacobian straddles the jump; the analytic one does not.

    The Jacobian is analytic: ``d psi = (X dY - Y dX) / (X^2 + Y^2)`` with, for ``P = I - w
    w^T`` and ``c = E - S``, ``dY = (P (r0 x c) / |D|) . dD + (c x w) . dr0 + (w x r0) .
    dc`` and ``dX = -(P ((c . w) r0 + (r0 . w) c) / |D|) . dD + e . dr0 + r . dc``, where
    ``dD = dW - dS``, ``dc = dE - dS`` and ``dr0 = dphi_S x r0``. It fixes the self-motion of a
    7-joint arm. Undefined when ``r0`` is parallel to ``w`` or the elbow lies on the
    shoulder-wrist line (``X = Y = 0``).

    Parameters
    ----------
    shoulder, elbow, wrist : SpatialBody
        The bodies carrying ``S``, ``E`` and ``W`` (the shoulder may be ground).
    target : float
        The arm angle in radians.
    points : sequence of three array_like (3,), optional
        ``S, E, W`` in their bodies' coordinates (default: the body origins).
    reference : array_like (3,), optional
        ``r0`` in the shoulder body's coordinates (default ``(0, 0, 1)``).
    name : str, optional
    """

    actin_kind = "sewAngleEndEffector"
    # No mirror: the atan2 error vanishes only at psi = target (mod 2 pi).
    n_equations = 1
    equation_lengths = (False,)   # an angle computed from positions
    _rows_spec = ("sew angle",)
    layout = (("shoulder_point", 3), ("elbow_point", 3), ("wrist_point", 3), ("reference", 3),
              ("target_value", 1))
    design_parameters = ()   # not among the design parameters (as before it had a layout)

    def __init__(self, shoulder, elbow, wrist, target=0.0, *, points=None, reference=None,
                 name=None) -> None:
        kind = self._kind
        _require_spatial(self, shoulder, elbow, wrist)
        if points is None:
            pts = [np.zeros(3)] * 3
        else:
            pts = list(points)
            if len(pts) != 3:
                raise ValueError(f"{kind}: points must be three points (shoulder, elbow, "
                                 f"wrist), got {len(pts)}")
            pts = [as_vector(p, f"{kind} {which} point", 3)
                   for p, which in zip(pts, ("shoulder", "elbow", "wrist"))]
        r0 = as_vector((0.0, 0.0, 1.0) if reference is None else reference,
                       f"{kind} reference", 3)
        if not np.linalg.norm(r0) > 0.0:
            raise ValueError(f"{kind} reference must be a non-zero direction, got "
                             f"{r0.tolist()}")
        Joint.__init__(self, (shoulder, elbow, wrist),
                       np.concatenate([*pts, r0, [as_float(target, f"{kind} target")]]),
                       name=name)

    @property
    def target(self) -> float:
        return float(self._p[self.sl.target_value])

    @target.setter
    def target(self, value) -> None:
        self._p[self.sl.target_value] = as_float(value, f"{self._kind} target")

    def _target_text(self) -> str:
        return f"{self.target:.6g} rad"

    def describe(self) -> str:
        s, e, w = (b.name for b in self._bodies)
        return (f"{self.label} of shoulder {s}, elbow {e}, wrist {w} "
                f"(target {self._target_text()})")

    def angle(self) -> float:
        """The current arm angle ``psi`` (radians, in ``(-pi, pi]``)."""
        P = self._p[None].copy()
        P[:, self.sl.target_value] = 0.0
        return float(self._phi(P, *[b.pose[None] for b in self._bodies])[0, 0])

    def params_for(self, targets) -> np.ndarray:
        vals = np.asarray(targets, dtype=float).reshape(-1)
        if not np.all(np.isfinite(vals)):
            raise ValueError(f"{self._kind}.params_for targets must be finite numbers")
        out = np.repeat(self._p[None], len(vals), axis=0)
        out[:, self.sl.target_value] = vals
        return out

    @classmethod
    def _points(cls, P: np.ndarray, XS: np.ndarray, XE: np.ndarray, XW: np.ndarray) -> tuple:
        sl = cls.sl
        aS = quat_rotate(XS[..., 3:], P[..., sl.shoulder_point])
        aE = quat_rotate(XE[..., 3:], P[..., sl.elbow_point])
        aW = quat_rotate(XW[..., 3:], P[..., sl.wrist_point])
        r0 = quat_rotate(XS[..., 3:], P[..., sl.reference])
        return XS[..., :3] + aS, XE[..., :3] + aE, XW[..., :3] + aW, r0, aS, aE, aW

    @staticmethod
    def _error(X: np.ndarray, Y: np.ndarray, t: np.ndarray) -> np.ndarray:
        # a column of P read from an array of its own: NumPy 1.24's cos/sin then take the
        # same loop wherever the arrays lie (see mechsolve._trig)
        t = np.ascontiguousarray(t)
        ct, st = np.cos(t), np.sin(t)
        return np.arctan2(Y * ct - X * st, X * ct + Y * st)[..., None]

    @classmethod
    def _phi(cls, P, XS, XE, XW):
        S, E, W, r0, *_ = cls._points(P, XS, XE, XW)
        D = W - S
        w = D / np.linalg.norm(D, axis=-1, keepdims=True)
        c = E - S
        X = np.sum(r0 * c, axis=-1) - np.sum(r0 * w, axis=-1) * np.sum(c * w, axis=-1)
        Y = np.sum(w * cross(r0, c), axis=-1)
        return cls._error(X, Y, P[..., cls.sl.target_value])

    @classmethod
    def _gradients(cls, P, XS, XE, XW):
        """``X, Y`` (``(..., 1)``) and the gradients of ``psi`` in ``D``, ``c`` and ``r0``
        (global), with the levers ``aS, aE, aW``: shared by :meth:`_evaluate` and
        :meth:`_phi_p`."""
        S, E, W, r0, aS, aE, aW = cls._points(P, XS, XE, XW)
        D = W - S
        L = np.linalg.norm(D, axis=-1, keepdims=True)
        w = D / L
        c = E - S
        cw = np.sum(c * w, axis=-1, keepdims=True)
        rw = np.sum(r0 * w, axis=-1, keepdims=True)
        r = r0 - rw * w
        e = c - cw * w
        r0xc = cross(r0, c)
        X = np.sum(r * e, axis=-1, keepdims=True)
        Y = np.sum(w * r0xc, axis=-1, keepdims=True)

        def project(a):   # P a / |D|: the derivative of w along dD
            return (a - np.sum(a * w, axis=-1, keepdims=True) * w) / L

        h = X * X + Y * Y
        g_D = (X * project(r0xc) + Y * project(cw * r0 + rw * c)) / h
        g_c = (X * cross(w, r0) - Y * r) / h
        g_r0 = (X * cross(c, w) - Y * e) / h
        return X, Y, g_D, g_c, g_r0, r0, aS, aE, aW

    @classmethod
    def _evaluate(cls, P, XS, XE, XW):
        X, Y, g_D, g_c, g_r0, r0, aS, aE, aW = cls._gradients(P, XS, XE, XW)
        zero = np.zeros(g_D.shape[:-1] + (1, 3))
        blocks = [_lift(-(g_D + g_c)[..., None, :], cross(r0, g_r0)[..., None, :], aS),
                  _lift(g_c[..., None, :], zero, aE),
                  _lift(g_D[..., None, :], zero, aW)]
        return cls._error(X[..., 0], Y[..., 0], P[..., cls.sl.target_value]), blocks

    @classmethod
    def _phi_p(cls, P, XS, XE, XW):
        # Phi = psi - target (wrapped): the point S enters D = W - S and c = E - S, r0 is
        # turned by the shoulder body (every point and r0 through its body's rotation)
        _, _, g_D, g_c, g_r0, *_ = cls._gradients(P, XS, XE, XW)
        BS = quat_to_matrix(XS[..., 3:])
        sl = cls.sl
        out = np.empty(g_D.shape[:-1] + (1, P.shape[-1]))
        out[..., 0, sl.shoulder_point] = -vecmat(g_D + g_c, BS)
        out[..., 0, sl.elbow_point] = vecmat(g_c, quat_to_matrix(XE[..., 3:]))
        out[..., 0, sl.wrist_point] = vecmat(g_D, quat_to_matrix(XW[..., 3:]))
        out[..., 0, sl.reference] = vecmat(g_r0, BS)
        out[..., 0, sl.target_value] = -1.0
        return out


# -- joint-space goals --------------------------------------------------------------------------
def _coordinate_refs(items, kind):
    refs = []
    for it in items:
        joint, index = it if isinstance(it, tuple) else (it, 0)
        if not isinstance(joint, Joint) or joint.n_coordinates == 0:
            raise TypeError(f"{kind}: joints must have coordinates of their own (link joints, "
                            f"serial chains), got {type(joint).__name__}")
        if not isinstance(index, (int, np.integer)) or not 0 <= index < joint.n_coordinates:
            raise ValueError(f"{kind}: coordinate index {index!r} out of range for "
                             f"{joint.label}")
        refs.append((joint, int(index)))
    if not refs:
        raise ValueError(f"{kind}: give at least one joint")
    return tuple(refs)


class _CoordinateEndEffector(EndEffector):
    """End effectors on joint coordinates (no bodies)."""

    dims = (2, 3)
    _coordinate_slot = True

    @property
    def _coord_refs(self):
        return self._refs

    def _names(self) -> str:
        return ", ".join(j.name or f"{type(j).__name__}" if j.n_coordinates == 1
                         else f"{j.name or type(j).__name__}[{c}]" for j, c in self._refs)

    def equation_label(self, i: int) -> str:
        j, c = self._refs[i]
        base = j.name or type(j).__name__
        return base if j.n_coordinates == 1 else f"{base}[{c}]"


class CoordinatedJointEndEffector(_CoordinateEndEffector):
    """Chosen joint values (Actin ``coordinatedJointEndEffector``, one equation per joint).

    ``Phi_i = s_i - target_i`` for the coordinates ``s_i`` of link joints (or serial chains).

    Parameters
    ----------
    joints : sequence of Joint or (Joint, index)
        Joints with coordinates of their own (a joint alone means its coordinate 0).
    target : array_like (n,)
    name : str, optional
    """

    actin_kind = "coordinatedJointEndEffector"
    # No mirror: linear in the coordinates.
    layout = (("target", None),)   # one value per coordinate
    design_parameters = ()   # the targets are goals

    def __init__(self, joints, target=None, *, name=None) -> None:
        self._refs = _coordinate_refs(joints, type(self).__name__)
        self.n_equations = len(self._refs)
        Joint.__init__(self, (), np.zeros(self.n_equations), name=name)
        self.target = np.zeros(self.n_equations) if target is None else target

    @property
    def target(self) -> np.ndarray:
        return self._p.copy()

    @target.setter
    def target(self, value) -> None:
        self._p[:] = as_vector(np.atleast_1d(np.asarray(value, dtype=float)),
                               f"{self._kind} target", self.n_equations)

    def _target_text(self) -> str:
        return "(" + ", ".join(f"{x:.4g}" for x in self._p) + ")"

    def describe(self) -> str:
        return f"{self.label} on {self._names()} (target {self._target_text()})"

    def params_for(self, targets) -> np.ndarray:
        return np.asarray(targets, dtype=float).reshape(-1, self.n_equations).copy()

    @classmethod
    def _phi(cls, P, S):
        return S - P

    @classmethod
    def _evaluate(cls, P, S):
        phi = S - P
        J = np.broadcast_to(np.eye(S.shape[-1]), phi.shape + (S.shape[-1],)).copy()
        return phi, [J]

    @classmethod
    def _phi_p(cls, P, S):
        shape = np.broadcast_shapes(P.shape, S.shape)
        return np.broadcast_to(-np.eye(shape[-1]), shape + (shape[-1],)).copy()

    @classmethod
    def _gamma(cls, P, S, Sdot):
        return np.zeros(np.broadcast_shapes(P.shape, S.shape))


class OneDofGripperEndEffector(_CoordinateEndEffector):
    """One-DOF gripper: a master joint value and slaves following it (``oneDofGripper``).

    ``Phi_0 = s_m - target`` and ``Phi_i = s_i - (k_i s_m + c_i)`` for each slave ``i``
    (``1 + number of slaves`` equations): the gripper opening is the target and the slave
    fingers follow with ratios ``k_i`` and offsets ``c_i``.

    Parameters
    ----------
    master : Joint or (Joint, index)
    slaves : sequence of Joint or (Joint, index)
    target : float
    ratios, offsets : array_like, optional
        Default 1 and 0 for every slave.
    """

    actin_kind = "oneDofGripperEndEffector"
    # No mirror: linear in the coordinates.
    #: the target, then the slaves' ratios, then their offsets
    layout = (("target", 1), ("ratios_offsets", None))
    design_parameters = ()   # (as before it had a layout)

    def __init__(self, master, slaves=(), target=0.0, *, ratios=None, offsets=None,
                 name=None) -> None:
        self._refs = _coordinate_refs([master, *slaves], type(self).__name__)
        ns = len(self._refs) - 1
        kind = self._kind
        k = np.ones(ns) if ratios is None else as_vector(ratios, f"{kind} ratios", ns)
        c = np.zeros(ns) if offsets is None else as_vector(offsets, f"{kind} offsets", ns)
        self.n_equations = ns + 1
        Joint.__init__(self, (), np.concatenate([[as_float(target, f"{kind} target")], k, c]),
                       name=name)

    @property
    def target(self) -> float:
        return float(self._p[self.sl.target])

    @target.setter
    def target(self, value) -> None:
        self._p[self.sl.target] = as_float(value, f"{self._kind} target")

    def _target_text(self) -> str:
        return f"{self.target:.6g}"

    def describe(self) -> str:
        return f"{self.label} on {self._names()} (target {self._target_text()})"

    def params_for(self, targets) -> np.ndarray:
        vals = np.asarray(targets, dtype=float).reshape(-1)
        out = np.repeat(self._p[None], len(vals), axis=0)
        out[:, self.sl.target] = vals
        return out

    @classmethod
    def _phi(cls, P, S):
        return cls._evaluate(P, S)[0]

    @classmethod
    def _evaluate(cls, P, S):
        ns = S.shape[-1] - 1
        kc = P[..., cls.sl.ratios_offsets]
        k = kc[..., :ns]
        c = kc[..., ns:]
        sm = S[..., :1]
        phi = np.concatenate([sm - P[..., cls.sl.target, None], S[..., 1:] - (k * sm + c)],
                             axis=-1)
        J = np.broadcast_to(np.eye(ns + 1), phi.shape + (ns + 1,)).copy()
        J[..., 1:, 0] = -k
        return phi, [J]

    @classmethod
    def _phi_p(cls, P, S):
        # Phi_0 = s_m - target, Phi_i = s_i - (k_i s_m + c_i)
        ns = S.shape[-1] - 1
        shape = np.broadcast_shapes(P.shape[:-1], S.shape[:-1])
        out = np.zeros(shape + (ns + 1, P.shape[-1]))
        out[..., 0, cls.sl.target] = -1.0
        rows = np.arange(1, ns + 1)
        kc = out[..., cls.sl.ratios_offsets]
        kc[..., rows, rows - 1] = -S[..., :1]
        kc[..., rows, ns + rows - 1] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, S, Sdot):
        return np.zeros(S.shape)


#: Actin kind name -> class (``None`` for the kinds that are not position-level goals).
END_EFFECTOR_KINDS = {
    c.actin_kind: c for c in (
        AccelerometerEndEffector, AxisRotateEndEffector, CenterOfMassEndEffector,
        CoordinatedJointEndEffector, DirectionalFrameEndEffector, FrameEndEffector,
        FreeSpinInZEndEffector, GeneralSpatialEndEffector, LinearConstraintEndEffector,
        LookAtEndEffector, OneDofGripperEndEffector, OrientationEndEffector,
        PlanarEndEffector, PointDistanceEndEffector, PointEndEffector, PointRotateEndEffector,
        ProjectedCenterOfMassEndEffector, RcmEndEffector, SewAngleEndEffector,
        SlideXSpinZEndEffector, SlidingEndEffector, XEndEffector, XYEndEffector)
}
END_EFFECTOR_KINDS["sagEndEffector"] = None
# a velocity-level goal (mechsolve.joints.SpatialMomentumEndEffector, given to
# Mechanism.velocity), registered in mechsolve.joints
