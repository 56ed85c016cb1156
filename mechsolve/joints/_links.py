"""Link kinematics (Actin's ``EcLinkKinematics``): a joint whose relative transform is T(s).

A link joint carries one coordinate ``s`` of its own (the joint value). Its inboard frame ``A``
sits on the inboard body (``frame1``, then a constant *precursor* frame); the outboard frame
``B`` sits on the outboard body (``frame2``). The joint holds ``B = A * T(s)``: six equations,
the rows of :class:`~mechsolve.joints.FrameEndEffector` with the goal frame ``C = A * T(s)``::

    Phi = (R_C^T (o_B - o_C), 2 v),   (s_q, v) = sgn(w) conj(q_C) q_B

A subclass gives the closed form of ``T(s)`` and of its rates ``t'(s)`` and ``omega(s)`` (in
``A`` coordinates, ``dT/ds`` as a twist: ``d(translation)/ds = t'``,
``d(rotation)/ds = [omega]x R``) in :meth:`LinkJoint._transform`; the Jacobian, including the
column of ``s``, is analytic. Drive the joint value with
:class:`~mechsolve.joints.CoordinateDriver` (or sweep it); read it with ``joint.value``.

:class:`SerialChain` collapses a whole serial arm into one joint whose coordinates are the
joint values and whose equations are a frame goal at the tip (compact IK, see
:mod:`mechsolve.robots`).

None of these joints has mirrored solutions (:meth:`~mechsolve.joints.Joint._mirrored` keeps
its default): ``2 v`` vanishes only at the identity rotation (a half turn has ``|2 v| = 2``,
its largest value), and the position rows are coordinates of ``o_B - o_C``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._validation import as_direction, as_float
from ..body import Body
from ..spatial._quat import (
    cross,
    frame_compose,
    quat_from_rotation,
    quat_log,
    quat_multiply,
    quat_rotate,
    quat_to_matrix,
)
from ._end_effectors import (
    _IDENTITY_Q,
    _as_frame_parts,
    _frame_on,
    _frame_target_rows,
    _lift,
    _rows,
)
from ._geometry import Axis, Geometry, Rail, perpendicular
from ._phi_p import compose, contract, on_body, rows_p, seed
from ._spatial import _require_spatial
from .base import Joint, ParameterSlices, _richardson_columns

__all__ = ["LinkJoint", "RevoluteLink", "PrismaticLink", "DHLink", "CircleJoint", "SerialChain"]

_FRAME_ROWS = ("x", "y", "z", "rx", "ry", "rz")

#: The parameters every link joint starts with: its inboard frame on body 1, the precursor
#: frame, its outboard frame on body 2 (each an origin, then a unit quaternion).
_LINK_LAYOUT = (("point1", 3), ("frame1", 4), ("precursor_point", 3), ("precursor_frame", 4),
                ("point2", 3), ("frame2", 4))
#: The link parameters ``L`` that :meth:`LinkJoint._transform` reads: the rest of the layout.
_LINK_PARAMETERS = slice(len(ParameterSlices(_LINK_LAYOUT)), None)


def _axis_quat(axis, angle):
    """Quaternions of rotations by ``angle (...)`` about unit ``axis (..., 3)``."""
    half = 0.5 * angle
    out = np.empty(np.broadcast_shapes(np.shape(axis)[:-1], np.shape(angle)) + (4,))
    out[..., 0] = np.cos(half)
    out[..., 1:] = np.sin(half)[..., None] * axis
    return out


class LinkJoint(Joint):
    """Base of link-kinematics joints: ``B = A * T(s)`` with ``s`` the joint's coordinate.

    Parameters
    ----------
    body1, body2 : SpatialBody
        Inboard and outboard bodies.
    frame1 : Frame or array_like (3,), optional
        Inboard frame on body 1 (default: its origin and axes).
    frame2 : Frame or array_like (3,), optional
        Outboard frame on body 2.
    precursor : Frame, optional
        Constant transform applied after ``frame1`` and before ``T(s)`` (Actin's precursor).
    s0 : float
        Initial joint value.
    limits : (float or None, float or None), optional
        Bounds of the joint value ``s`` (radians or lengths), kept by solves, sweeps and
        :meth:`SerialArm.ik <mechsolve.robots.SerialArm.ik>`-built models (see
        :attr:`Joint.limits`).
    name : str, optional

    Subclasses set ``_n_link_params``, append their link parameters to :attr:`layout` and
    implement :meth:`_transform`, which reads them as ``L (..., p)`` (the parameters after the
    frames: ``L[..., cls.link_sl.axis]``).
    """

    dims = (3,)
    n_equations = 6
    layout = _LINK_LAYOUT
    #: Where each link parameter sits in ``L`` (the layout's parts after the frames).
    link_sl: ClassVar[ParameterSlices] = ParameterSlices()
    n_coordinates = 1
    equation_labels = _FRAME_ROWS
    equation_lengths = (True, True, True, False, False, False)
    _n_link_params: ClassVar[int] = 0
    limit_quantity = "coordinate"
    # No mirror (every subclass): 2 v is zero only at the identity, 2 at a half turn.

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "layout" in cls.__dict__:
            cls.link_sl = ParameterSlices(cls.layout[len(_LINK_LAYOUT):])

    @property
    def limit_is_length(self) -> bool:
        return bool(self.coordinate_lengths[0])

    @classmethod
    def _limit_measure(cls, P, X1, X2, S):
        s = S[..., 0]
        zero = np.zeros(s.shape + (6,))
        return s, [zero, zero, np.ones(s.shape + (1,))]

    @property
    def _coordinate_angles(self) -> np.ndarray:
        return ~np.asarray(self.coordinate_lengths, dtype=bool)   # a rotation's angle

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, precursor=None,
                 s0: float = 0.0, limits=None, name: str | None = None,
                 link_params=()) -> None:
        _require_spatial(self, body1, body2)
        p1, f1 = _as_frame_parts(np.zeros(3) if frame1 is None else frame1, "frame1")
        pp, fp = _as_frame_parts(np.zeros(3) if precursor is None else precursor, "precursor")
        p2, f2 = _as_frame_parts(np.zeros(3) if frame2 is None else frame2, "frame2")
        self._coord_init = np.array([as_float(s0, "s0")])
        Joint.__init__(self, (body1, body2),
                       np.concatenate([p1, f1, pp, fp, p2, f2, np.asarray(link_params, float)]),
                       name=name)
        self._set_limits(limits)

    attachment_points = ((0, "point1"), (1, "point2"))

    def length_hint(self) -> float:
        # the precursor's offset (a DH link's a and d are in its link parameters too)
        return float(np.linalg.norm(self._p[self.sl.precursor_point]))

    #: The joint's motion for its drawing: ``"turn"`` (about ``_motion_axis`` of frame A, a
    #: hinge) or ``"slide"`` (along it, a rail), else ``None`` (a circle track).
    _motion: ClassVar[str | None] = None

    def _motion_axis(self) -> np.ndarray:
        """The joint's axis in frame A's coordinates (default z)."""
        return np.array([0.0, 0.0, 1.0])

    def _frames(self) -> list:
        """``[(body, origin, quaternion), ...]``: frame A (frame1, then the precursor) on body 1
        and frame B on body 2, in their bodies' coordinates."""
        p, sl = self._p, self.sl
        pa, fa = frame_compose(p[sl.point1], p[sl.frame1], p[sl.precursor_point],
                               p[sl.precursor_frame])
        return [(self._bodies[0], pa, fa), (self._bodies[1], p[sl.point2].copy(),
                                            p[sl.frame2].copy())]

    def geometry(self) -> Geometry:
        """Frames A and B (a pin mark on B's), the hinge or the rail of the joint's motion, and
        where it is mounted on body 1."""
        (b1, pa, fa), (b2, pb, fb) = frames = self._frames()
        points = [(b1, pa), (b2, pb)]
        out = Geometry(points=points, pins=[points[-1] if not b2.is_ground else points[0]],
                       mount=(b1, pa, b2))
        motion = self._motion
        if motion == "turn":
            u = quat_rotate(fa, self._motion_axis())
            out.hinge = Axis(b1, pa, u, perpendicular(u))
            out.housings = [out.hinge]
        elif motion == "slide":
            out.rails = [Rail(b1, pa, quat_rotate(fa, self._motion_axis()), (b2, pb))]
            out.legs = [tuple(points)]
        if type(self)._pivots:
            out.axes = [Axis(b, c, quat_rotate(f, self._motion_axis())) for b, c, f in frames]
        return out

    #: Whether each body's axis of the joint is drawn (the links of spherical linkages).
    _pivots: ClassVar[bool] = False

    # -- user-facing ----------------------------------------------------------------------------
    @property
    def value(self) -> float:
        """The joint value ``s`` (an angle, a length, an arc length)."""
        return float(self.coordinates[0])

    @value.setter
    def value(self, s) -> None:
        self.coordinates = [as_float(s, "value")]

    def relative_transform(self, s=None):
        """``T(s)`` as a Frame (default: at the current joint value)."""
        from ..spatial import Frame, Orientation

        s = self.value if s is None else as_float(s, "s")
        t, q, _, _ = type(self)._transform(self._p[None, _LINK_PARAMETERS], np.array([s]))
        return Frame(t[0], Orientation(q[0], normalize=True))

    def relative_velocity(self, sdot: float, s=None):
        """Velocity of frame B relative to frame A, in A coordinates: ``(t' sdot, omega sdot)``.

        Returns a :class:`~mechsolve.GeneralVelocity` (linear velocity of B's origin).
        """
        from ..spatial import GeneralVelocity

        s = self.value if s is None else as_float(s, "s")
        _, _, tp, w = type(self)._transform(self._p[None, _LINK_PARAMETERS], np.array([s]))
        return GeneralVelocity(tp[0] * sdot, w[0] * sdot)

    def describe(self) -> str:
        return f"{self.label} between {self._bodies[0].name} and {self._bodies[1].name}"

    # -- kernels --------------------------------------------------------------------------------
    @classmethod
    def _transform(cls, L, s):
        """``(t, q, t', omega)`` of ``T(s)`` for link parameters ``L (..., p)`` and ``s (...)``.

        The default differentiates :meth:`_transform_only` numerically.
        """
        h = 1e-6
        t, q = cls._transform_only(L, s)
        tp, qp = cls._transform_only(L, s + h)
        tm, qm = cls._transform_only(L, s - h)
        w = quat_log(quat_multiply(qp, qm * np.array([1.0, -1.0, -1.0, -1.0]))) / (2 * h)
        return t, q, (tp - tm) / (2 * h), w

    @classmethod
    def _transform_only(cls, L, s):  # pragma: no cover - subclasses give one of the two
        raise NotImplementedError

    @classmethod
    def _transform_p(cls, L, s):
        """Derivatives of ``T(s)``'s translation and quaternion in the link parameters
        ``L (..., p)``: ``(dt (..., 3, p), dq (..., 4, p))``.

        The default differentiates :meth:`_transform` by central differences with Richardson
        extrapolation (the steps of :meth:`Joint._numeric_phi_p`); the built-in links give
        the closed form.
        """
        L = np.asarray(L, dtype=float)
        shape = np.broadcast_shapes(L.shape[:-1], np.shape(s))
        dt = np.zeros(shape + (3, L.shape[-1]))
        dq = np.zeros(shape + (4, L.shape[-1]))
        for c, (t, q) in enumerate(_richardson_columns(L, lambda M: cls._transform(M, s)[:2])):
            dt[..., c], dq[..., c] = t, q
        return dt, dq

    @classmethod
    def _evaluate(cls, P, X1, X2, S):
        sl = cls.sl
        s = S[..., 0]
        t, q, tp, w = cls._transform(P[..., _LINK_PARAMETERS], s)
        pa, fa = frame_compose(P[..., sl.point1], P[..., sl.frame1], P[..., sl.precursor_point],
                               P[..., sl.precursor_frame])
        pc, fc = frame_compose(pa, fa, t, q)
        oC, qC, RC, aC = _frame_on(X1, pc, fc)
        oB, qB, RB, aB = _frame_on(X2, P[..., sl.point2], P[..., sl.frame2])
        phi, DoC, DthC, DoB, DthB = _rows(_FRAME_ROWS, oC, qC, RC, oB, qB, RB)
        qA = quat_multiply(X1[..., 3:], fa)
        vel = quat_rotate(qA, tp)
        ang = quat_rotate(qA, w)
        Js = (np.einsum("...ij,...j->...i", DoC, vel)
              + np.einsum("...ij,...j->...i", DthC, ang))[..., None]
        return phi, [_lift(DoC, DthC, aC), _lift(DoB, DthB, aB), Js]

    @classmethod
    def _phi(cls, P, X1, X2, S):
        return cls._evaluate(P, X1, X2, S)[0]

    @classmethod
    def _phi_p(cls, P, X1, X2, S):
        # C = frame1 * precursor * T(s) on body 1 against frame2 on body 2 (the rows 2 v);
        # T(s) depends on the link parameters L (:meth:`_transform_p`)
        sl, L = cls.sl, _LINK_PARAMETERS
        n = P.shape[-1]
        s = S[..., 0]
        t, q, _, _ = cls._transform(P[..., L], s)
        dtL, dqL = cls._transform_p(P[..., L], s)
        dt = np.zeros(dtL.shape[:-1] + (n,))
        dq = np.zeros(dqL.shape[:-1] + (n,))
        dt[..., L] = dtL
        dq[..., L] = dqL
        pa, fa, dpa, dfa = compose(P[..., sl.point1], P[..., sl.frame1], seed(n, sl.point1),
                                   seed(n, sl.frame1), P[..., sl.precursor_point],
                                   P[..., sl.precursor_frame], seed(n, sl.precursor_point),
                                   seed(n, sl.precursor_frame))
        pc, fc, dpc, dfc = compose(pa, fa, dpa, dfa, t, q, dt, dq)
        C, dC = on_body(X1, pc, fc, dpc, dfc)
        B, dB = on_body(X2, P[..., sl.point2], P[..., sl.frame2], seed(n, sl.point2),
                        seed(n, sl.frame2))
        DoC, DqC, DoB, DqB = rows_p(_FRAME_ROWS, *C[:3], *B[:3])
        return contract([(DoC, dC[0]), (DqC, dC[1]), (DoB, dB[0]), (DqB, dB[1])])


class RevoluteLink(LinkJoint):
    """Revolute link: ``T(s)`` is a rotation by ``s`` about ``axis`` (default z of frame A).

    ``t = 0``, ``q = (cos(s/2), sin(s/2) axis)``, ``t' = 0``, ``omega = axis``.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> arm = mech.add_body("arm", position=(0.5, 0.2, 0.0))
    >>> hinge = mech.add(ms.joints.RevoluteLink(mech.ground, arm, frame2=(-0.5, 0, 0)))
    >>> drive = mech.add(ms.joints.CoordinateDriver(hinge, np.pi / 2))
    >>> _ = mech.solve()
    >>> arm.position.round(9) + 0.0
    array([0. , 0.5, 0. ])
    """

    _n_link_params = 3
    layout = LinkJoint.layout + (("axis", 3),)
    _motion = "turn"
    _pivots = True
    # No mirror: LinkJoint's rows.

    def __init__(self, body1, body2, frame1=None, frame2=None, *, axis=(0.0, 0.0, 1.0),
                 precursor=None, s0=0.0, limits=None, name=None) -> None:
        super().__init__(body1, body2, frame1, frame2, precursor=precursor, s0=s0,
                         limits=limits, name=name, link_params=as_direction(axis, "axis", 3))

    def _motion_axis(self) -> np.ndarray:
        return self.param("axis")

    @classmethod
    def _transform(cls, L, s):
        axis = L[..., cls.link_sl.axis]
        q = _axis_quat(axis, s)
        zero = np.zeros(q.shape[:-1] + (3,))
        return zero, q, zero, np.broadcast_to(axis, zero.shape)

    @classmethod
    def _transform_p(cls, L, s):
        # q = (cos(s/2), sin(s/2) axis), t = 0
        shape = np.broadcast_shapes(L.shape[:-1], np.shape(s))
        dq = np.zeros(shape + (4, 3))
        dq[..., 1:, :] = np.sin(0.5 * np.asarray(s))[..., None, None] * np.eye(3)
        return np.zeros(shape + (3, 3)), dq


class PrismaticLink(LinkJoint):
    """Prismatic link: ``T(s)`` is a translation by ``s`` along ``axis`` (default z of A).

    ``t = s axis``, ``q = 1``, ``t' = axis``, ``omega = 0``.
    """

    _n_link_params = 3
    layout = LinkJoint.layout + (("axis", 3),)
    # No mirror: LinkJoint's rows.

    _motion = "slide"

    @property
    def coordinate_lengths(self) -> np.ndarray:
        return np.ones(1, dtype=bool)

    def _motion_axis(self) -> np.ndarray:
        return self.param("axis")

    def __init__(self, body1, body2, frame1=None, frame2=None, *, axis=(0.0, 0.0, 1.0),
                 precursor=None, s0=0.0, limits=None, name=None) -> None:
        super().__init__(body1, body2, frame1, frame2, precursor=precursor, s0=s0,
                         limits=limits, name=name, link_params=as_direction(axis, "axis", 3))

    @classmethod
    def _transform(cls, L, s):
        shape = np.broadcast_shapes(L.shape[:-1], np.shape(s))  # parameters may be batched
        axis = np.broadcast_to(L[..., cls.link_sl.axis], shape + (3,))
        q = np.zeros(shape + (4,))
        q[..., 0] = 1.0
        return s[..., None] * axis, q, axis, np.zeros(axis.shape)

    @classmethod
    def _transform_p(cls, L, s):
        # t = s axis, q = 1
        shape = np.broadcast_shapes(L.shape[:-1], np.shape(s))
        dt = np.asarray(s)[..., None, None] * np.eye(3)
        return np.broadcast_to(dt, shape + (3, 3)).copy(), np.zeros(shape + (4, 3))


class DHLink(LinkJoint):
    """Standard Denavit–Hartenberg link: ``T = Rz(theta) Tz(d) Tx(a) Rx(alpha)``.

    For a revolute link ``theta = theta0 + s``; for a prismatic one (``prismatic=True``)
    ``d = d0 + s``. Frame A is DH frame ``i-1`` (on body 1), frame B is DH frame ``i``
    (on body 2). ``t = (a cos theta, a sin theta, d)``, ``q = qz(theta) qx(alpha)``; revolute:
    ``t' = (-a sin theta, a cos theta, 0)``, ``omega = (0, 0, 1)``; prismatic: ``t' = (0, 0,
    1)``, ``omega = 0``.
    """

    _n_link_params = 5
    design_parameters = ("point1", "frame1", "precursor_point", "precursor_frame", "point2",
                         "frame2", "theta", "d", "a", "alpha")   # not the kind flag
    layout = LinkJoint.layout + (("theta", 1), ("d", 1), ("a", 1), ("alpha", 1),
                                 ("prismatic", 1))
    # No mirror: LinkJoint's rows.

    @property
    def coordinate_lengths(self) -> np.ndarray:
        return np.array([self._p[self.sl.prismatic] == 1.0])

    @property
    def _motion(self) -> str | None:
        kind = self.param("prismatic")
        return "turn" if kind == 0.0 else "slide" if kind == 1.0 else None

    def length_hint(self) -> float:
        sl = self.sl
        return float(np.hypot(self._p[sl.d], self._p[sl.a])
                     + np.linalg.norm(self._p[sl.precursor_point]))

    def __init__(self, body1, body2, d=0.0, a=0.0, alpha=0.0, theta=0.0, *, prismatic=False,
                 frame1=None, frame2=None, precursor=None, s0=0.0, limits=None,
                 name=None) -> None:
        vals = [as_float(v, n) for v, n in ((theta, "theta"), (d, "d"), (a, "a"),
                                           (alpha, "alpha"))]
        super().__init__(body1, body2, frame1, frame2, precursor=precursor, s0=s0,
                         limits=limits, name=name, link_params=[*vals, 1.0 if prismatic else 0.0])

    @classmethod
    def _transform(cls, L, s):
        k = cls.link_sl
        pris = L[..., k.prismatic]
        theta = L[..., k.theta] + (1.0 - pris) * s
        d = L[..., k.d] + pris * s
        a, alpha = L[..., k.a], L[..., k.alpha]
        c, sn = np.cos(theta), np.sin(theta)
        shape = np.shape(theta)
        t = np.stack(np.broadcast_arrays(a * c, a * sn, d), axis=-1)
        ca, sa = np.cos(0.5 * alpha), np.sin(0.5 * alpha)
        ch, sh = np.cos(0.5 * theta), np.sin(0.5 * theta)
        q = np.stack(np.broadcast_arrays(ch * ca, ch * sa, sh * sa, sh * ca), axis=-1)
        rev = (1.0 - pris)
        tp = np.stack(np.broadcast_arrays(-a * sn * rev, a * c * rev, pris + 0.0 * c), axis=-1)
        w = np.zeros(shape + (3,))
        w[..., 2] = rev
        return t, q, tp, w

    @classmethod
    def _transform_p(cls, L, s):
        # theta = theta0 + (1 - prismatic) s and d = d0 + prismatic s: the kind flag enters
        # as d/dprismatic = s (d/dd - d/dtheta)
        k = cls.link_sl
        pris = L[..., k.prismatic]
        theta = L[..., k.theta] + (1.0 - pris) * s
        a, alpha = L[..., k.a], L[..., k.alpha]
        c, sn = np.cos(theta), np.sin(theta)
        ca, sa = np.cos(0.5 * alpha), np.sin(0.5 * alpha)
        ch, sh = np.cos(0.5 * theta), np.sin(0.5 * theta)
        shape = np.shape(theta)
        dt = np.zeros(shape + (3, L.shape[-1]))
        dq = np.zeros(shape + (4, L.shape[-1]))
        dt[..., 0, k.theta] = -a * sn
        dt[..., 1, k.theta] = a * c
        dq[..., :, k.theta] = 0.5 * np.stack([-sh * ca, -sh * sa, ch * sa, ch * ca], axis=-1)
        dt[..., 2, k.d] = 1.0
        dt[..., 0, k.a] = c
        dt[..., 1, k.a] = sn
        dq[..., :, k.alpha] = 0.5 * np.stack([-ch * sa, ch * ca, sh * ca, -sh * sa], axis=-1)
        s_ = np.asarray(s, dtype=float)[..., None]
        dt[..., :, k.prismatic] = s_ * (dt[..., :, k.d] - dt[..., :, k.theta])
        dq[..., :, k.prismatic] = -s_ * dq[..., :, k.theta]
        return dt, dq


class CircleJoint(LinkJoint):
    """The seed's circle track joint: frame B travels round a circle of radius R in A's xy plane.

    ``s`` is the arc length. ``T(s)``: ``t = (R cos(s/R), R sin(s/R), 0)`` and a rotation by
    ``s/R`` about z (so B's x axis points radially outward, as the seed's code does; its text
    says inward). ``t' = (-sin(s/R), cos(s/R), 0)``, ``omega = (0, 0, 1/R)``. A precursor
    turns the circle's plane (e.g. 90 degrees about x to rotate about y).

    :meth:`calculate_velocity` and :meth:`calculate_acceleration` are the seed's closed forms.

    A symbolic twin exists: ``mechsolve.symbolic.catalog.circle_joint(dim=3)`` writes the same
    six equations in about ten lines of SymPy, with the same parameter layout and own
    coordinate ``s``, and derives its Jacobian and gamma. ``tests/test_symbolic.py`` checks it
    against this class: Phi and the Jacobian blocks on random states, and, in a mechanism with
    ``s`` driven in time, the relative transform, velocity and acceleration (also against the
    seed's formulas).
    """

    _n_link_params = 1
    layout = LinkJoint.layout + (("radius", 1),)
    # No mirror: LinkJoint's rows.

    @property
    def coordinate_lengths(self) -> np.ndarray:
        return np.ones(1, dtype=bool)     # the arc length

    def length_hint(self) -> float:
        return 2.0 * abs(float(self._p[self.sl.radius]))

    def __init__(self, body1, body2, radius: float = 1.0, frame1=None, frame2=None, *,
                 precursor=None, s0=0.0, name=None) -> None:
        super().__init__(body1, body2, frame1, frame2, precursor=precursor, s0=s0, name=name,
                         link_params=[as_float(radius, "radius", positive=True)])

    @classmethod
    def _transform(cls, L, s):
        R = L[..., cls.link_sl.radius]
        ang = s / R
        c, sn = np.cos(ang), np.sin(ang)
        zero = np.zeros(np.shape(ang))
        t = np.stack([R * c, R * sn, zero], axis=-1)
        q = np.stack([np.cos(0.5 * ang), zero, zero, np.sin(0.5 * ang)], axis=-1)
        tp = np.stack([-sn, c, zero], axis=-1)
        w = np.stack([zero, zero, 1.0 / R + zero], axis=-1)
        return t, q, tp, w

    @classmethod
    def _transform_p(cls, L, s):
        # t = R (cos a, sin a, 0), q = (cos(a/2), 0, 0, sin(a/2)), a = s / R: da/dR = -a / R
        R = L[..., cls.link_sl.radius]
        ang = s / R
        c, sn = np.cos(ang), np.sin(ang)
        zero = np.zeros(np.shape(ang))
        dt = np.stack([c + ang * sn, sn - ang * c, zero], axis=-1)[..., None]
        da = -ang / R
        dq = np.stack([-0.5 * np.sin(0.5 * ang) * da, zero, zero,
                       0.5 * np.cos(0.5 * ang) * da], axis=-1)[..., None]
        return dt, dq

    def calculate_velocity(self, s: float, sdot: float):
        """Frame velocity of B relative to A in A coordinates (the seed's closed form)."""
        from ..spatial import GeneralVelocity

        R = self.radius
        return GeneralVelocity((-sdot * np.sin(s / R), sdot * np.cos(s / R), 0.0),
                               (0.0, 0.0, sdot / R))

    def calculate_acceleration(self, s: float, sdot: float, sddot: float):
        """Frame acceleration of B relative to A in A coordinates (the seed's closed form)."""
        from ..spatial import GeneralAcceleration

        R = self.radius
        c, sn = np.cos(s / R), np.sin(s / R)
        return GeneralAcceleration((-sddot * sn - sdot ** 2 / R * c,
                                    sddot * c - sdot ** 2 / R * sn, 0.0),
                                   (0.0, 0.0, sddot / R))


# -- compact serial chain -----------------------------------------------------------------------
def chain_forward(geom, kinds, Q):
    """Forward kinematics of serial chains.

    ``geom (..., n + 2, 3, 4)``: the base transform, the ``n`` joint origins (each followed by
    a motion about / along its z axis) and the tool, as the top rows of 4x4 matrices;
    ``kinds (..., n)`` 1 for prismatic, 0 for revolute; ``Q (..., n)``. Returns the cumulative
    frames after each joint ``C (..., n, 4, 4)`` and the tip ``(..., 4, 4)``.
    """
    n = Q.shape[-1]
    batch = np.broadcast_shapes(geom.shape[:-3], Q.shape[:-1])
    G = np.zeros(batch + (n + 2, 4, 4))
    G[..., :3, :] = geom
    G[..., 3, 3] = 1.0
    c, s = np.cos(Q * (1.0 - kinds)), np.sin(Q * (1.0 - kinds))
    M = np.zeros(batch + (n, 4, 4))
    M[..., 0, 0] = c
    M[..., 0, 1] = -s
    M[..., 1, 0] = s
    M[..., 1, 1] = c
    M[..., 2, 2] = 1.0
    M[..., 3, 3] = 1.0
    M[..., 2, 3] = Q * kinds
    local = G[..., 1:n + 1, :, :] @ M
    C = np.empty(batch + (n, 4, 4))
    T = G[..., 0, :, :]
    for i in range(n):
        T = T @ local[..., i, :, :]
        C[..., i, :, :] = T
    return C, T @ G[..., n + 1, :, :]


def chain_error(geom, kinds, Q, target, with_jacobian=True):
    """Frame-goal rows ``(..., 6)`` of chain tips against ``target (..., 7)`` and ``dPhi/dQ``.

    The rows are those of :class:`~mechsolve.joints.FrameEndEffector` (tip frame vs target
    frame, both in the chain's base-body coordinates).
    """
    C, tip = chain_forward(geom, kinds, Q)
    oG = target[..., 0:3]
    RG = quat_to_matrix(target[..., 3:7])
    RGt = np.swapaxes(RG, -1, -2)
    oE = tip[..., :3, 3]
    Rrel = RGt @ tip[..., :3, :3]
    qr = quat_from_rotation(Rrel)
    d = oE - oG
    phi = np.concatenate([np.einsum("...ij,...j->...i", RGt, d), 2.0 * qr[..., 1:]], axis=-1)
    if not with_jacobian:
        return phi, None
    z = C[..., :3, 2]
    p = C[..., :3, 3]
    rev = (1.0 - kinds)[..., None]
    Jv = cross(z, oE[..., None, :] - p) * rev + z * (1.0 - rev)     # (..., n, 3)
    Jw = z * rev
    s, v = qr[..., 0], qr[..., 1:]
    # d(2v) = (s I - [v]x) R_G^T dtheta   (see the end-effector module)
    Jw_g = np.einsum("...ij,...nj->...ni", RGt, Jw)
    Jq = np.empty(phi.shape + (Q.shape[-1],))
    Jq[..., :3, :] = np.swapaxes(np.einsum("...ij,...nj->...ni", RGt, Jv), -1, -2)
    rot = s[..., None, None] * Jw_g - cross(v[..., None, :], Jw_g)
    Jq[..., 3:, :] = np.swapaxes(rot, -1, -2)
    return phi, Jq


class SerialChain(Joint):
    """A serial arm collapsed into one joint: coordinates = joint values, Phi = tip frame goal.

    ``Phi = (R_G^T (o_E - o_G), 2 v)`` (the rows of
    :class:`~mechsolve.joints.FrameEndEffector`) with ``E`` the tool frame computed by
    vectorized forward kinematics of the joint values and ``G`` the ``target``, both in the
    coordinates of the ``base`` body (ground by default), so the pose of the base does not
    enter. The Jacobian with respect to the joint values is the analytic geometric Jacobian.
    An IK problem with it is ``6 x n`` per target and is solved for many targets at once by
    :func:`~mechsolve.analysis.solve_batch` (``params={chain: chain.params_for(targets)}``).
    Build one with :meth:`mechsolve.robots.SerialArm.chain_mechanism`.

    Parameters
    ----------
    base : SpatialBody
    geometry : array_like (n + 2, 3, 4)
        Base transform, joint origins (motion about / along each z axis follows) and tool.
    kinds : array_like (n,)
        1 for a prismatic joint, 0 for a revolute one.
    target : Frame, optional
    q0 : array_like (n,), optional
        Initial joint values.
    """

    dims = (3,)
    n_equations = 6
    #: The chain (its ``(n + 2) * 12`` geometry numbers, then its ``n`` joint kinds), then the
    #: tip's target (translation, unit quaternion).
    layout = (("chain", None), ("target_translation", 3), ("target_quaternion", 4))
    design_parameters = ()   # the chain's numbers have no names (see Joint._phi_p)
    n_coordinates = 1      # per class; instances set their own count
    equation_labels = _FRAME_ROWS
    equation_lengths = (True, True, True, False, False, False)
    is_goal = True   # the tip's target
    # No mirror: 2 v of the tip error is zero only at the target orientation.

    def __init__(self, base, geometry, kinds, target=None, *, q0=None, name=None) -> None:
        geom = np.asarray(geometry, dtype=float)
        n = geom.shape[0] - 2
        if geom.ndim != 3 or geom.shape[1:] != (3, 4) or n < 1:
            raise ValueError(f"geometry must have shape (n + 2, 3, 4), got {geom.shape}")
        kinds = np.asarray(kinds, dtype=float).reshape(n)
        self.n_coordinates = n
        self._coord_init = np.zeros(n) if q0 is None else np.asarray(q0, float).reshape(n)
        _require_spatial(self, base)
        Joint.__init__(self, (base,), np.concatenate([geom.ravel(), kinds, np.zeros(3),
                                                      _IDENTITY_Q]), name=name)
        self._n = n
        if target is not None:
            self.target = target

    @property
    def coordinate_lengths(self) -> np.ndarray:
        n = self._n
        return self._p[self.sl.chain][(n + 2) * 12:] == 1.0

    @property
    def _coordinate_angles(self) -> np.ndarray:
        return ~self.coordinate_lengths   # the revolute joints' values

    def length_hint(self) -> float:
        # the arm's reach: the sum of its link offsets and the tool's, not the base's placement
        geom = self._p[self.sl.chain][:(self._n + 2) * 12].reshape(-1, 3, 4)
        return float(np.sum(np.linalg.norm(geom[1:, :, 3], axis=1)))

    @property
    def n_joints(self) -> int:
        return self._n

    def geometry(self) -> Geometry:
        """The chain: base, joints and tool on the base body, from the joint values."""
        geom, kinds, _ = SerialChain._split(self._p, self._n)

        def points(Q):
            C, tip = chain_forward(geom, kinds, Q)
            return np.concatenate([np.broadcast_to(geom[0, :, 3], (len(Q), 1, 3)),
                                   C[:, :, :3, 3], tip[:, None, :3, 3]], axis=1)

        return Geometry(chain=(self._bodies[0], points))

    @property
    def target(self):
        from ..spatial import Frame, Orientation

        sl = self.sl
        return Frame(self._p[sl.target_translation].copy(),
                     Orientation(self._p[sl.target_quaternion].copy(), normalize=True))

    @target.setter
    def target(self, value) -> None:
        t, q = _as_frame_parts(value, "SerialChain target")
        self._p[self.sl.target_translation] = t
        self._p[self.sl.target_quaternion] = q

    def params_for(self, targets) -> np.ndarray:
        """Parameter rows ``(B, p)`` for targets ``(B, 7)`` (translation, quaternion) or Frames.

        Quaternions in a ``(B, 7)`` array must have norm 1 within ``1e-6`` (a ValueError names
        the norm found otherwise) and are normalized.
        """
        if isinstance(targets, np.ndarray) and targets.ndim == 2 and targets.shape[1] == 7:
            arr = _frame_target_rows(targets, "SerialChain.params_for targets")
        else:
            arr = np.array([np.concatenate(_as_frame_parts(t, "SerialChain target"))
                            for t in targets]).reshape(-1, 7)
        out = np.repeat(self._p[None], len(arr), axis=0)
        out[:, self.sl.target_translation.start:] = arr
        return out

    def describe(self) -> str:
        from ._end_effectors import _frame_text

        target = _frame_text(self._p[self.sl.target_translation],
                             self._p[self.sl.target_quaternion])
        return f"{self.label} on {self._bodies[0].name} (tip target {target})"

    @classmethod
    def _split(cls, P, n):
        """``(geometry (..., n + 2, 3, 4), kinds (..., n), target (..., 7))`` of stacked
        parameters of chains of ``n`` joints."""
        chain = P[..., cls.sl.chain]
        geom = chain[..., :(n + 2) * 12].reshape(P.shape[:-1] + (n + 2, 3, 4))
        kinds = chain[..., (n + 2) * 12:]
        return geom, kinds, P[..., cls.sl.target_translation.start:]

    @classmethod
    def _evaluate(cls, P, Xb, S):
        n = S.shape[-1]
        geom, kinds, target = cls._split(P, n)
        phi, Jq = chain_error(geom, kinds, S, target)
        return phi, [np.zeros(phi.shape + (6,)), Jq]

    @classmethod
    def _phi(cls, P, Xb, S):
        n = S.shape[-1]
        geom, kinds, target = cls._split(P, n)
        return chain_error(geom, kinds, S, target, with_jacobian=False)[0]
