"""Spatial joints and drivers, placed by a Frame on each body (the joint axis is frame z).

Notation used in every kernel: body ``i`` has position ``r_i`` and quaternion ``q_i``; the joint
frame on it has origin ``p_i`` and orientation ``f_i`` (body coordinates). In global
coordinates the frame origin is ``o_i = r_i + a_i`` with ``a_i = R(q_i) p_i`` and its axes are the
columns ``x_i, y_i, z_i`` of ``R(q_i) R(f_i)``; ``d = o_2 - o_1``. Jacobian blocks are taken with
respect to each body's increment ``(dr, dphi)`` (6 columns, ``dphi`` a global rotation vector
applied as ``q <- exp(dphi) q``), using

* ``d(o_i) = dr_i - [a_i]x dphi_i``,
* ``d(u . d) = -u . dr_1 + (u x (d + a_1)) . dphi_1 + u . dr_2 + (a_2 x u) . dphi_2`` for an axis
  ``u`` of frame 1,
* ``d(u . v) = (u x v) . dphi_1 + (v x u) . dphi_2`` for ``u`` on frame 1 and ``v`` on frame 2.

Each joint is a list of *components* (rows) of these kinds:

====  ============================  ==========================================
id    component                     meaning
====  ============================  ==========================================
gx    (o_1 - o_2) . e_x             global coincidence of the two origins
gy    (o_1 - o_2) . e_y
gz    (o_1 - o_2) . e_z
x     x_1 . d                       relative position in frame 1
y     y_1 . d
z     z_1 . d
rx    -y_1 . z_2                    small relative rotation about x_1
ry    x_1 . z_2                     ... about y_1
rz    y_1 . x_2                     ... about z_1
perp  z_1 . z_2                     the two z axes perpendicular
====  ============================  ==========================================

The rotation components are dot products, and they also vanish at *mirrored* poses: ``rx``
and ``ry`` at ``z_2 = -z_1`` as well as at ``z_2 = z_1``, and ``rx, ry, rz`` together at frame 2
turned a half turn about ``x_1``, ``y_1`` or ``z_1`` as well as at the identity. Newton can
converge to those, so a joint whose rotation rows have such roots overrides
:meth:`~mechsolve.joints.Joint._mirrored` (see :data:`_MIRROR_AXES`): the axes that must point
the same way are checked after convergence.

Every joint's acceleration right-hand side ``gamma`` is analytic. With body velocities
``(v_i, w_i)`` (``w_i`` global) and accelerations ``(acc_i, alpha_i)``, a frame origin has
``o_i'' = acc_i + alpha_i x a_i + w_i x (w_i x a_i)`` and an axis ``u`` of frame ``i`` has
``u'' = alpha_i x u + w_i x (w_i x u)``; ``gamma`` is minus the part of ``Phi''`` that does not
multiply accelerations (so ``Phi'' = J nudot - gamma``).

Over 700 lines because the component kernels, their gamma and every joint built from them
(ten joints, four drivers, the coupler) read best side by side: each joint is a few lines
on the shared kernels.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_direction, as_float, as_vector
from ..body import Body, SpatialBody
from ..spatial._quat import (
    _stacked,
    cross,
    namespace,
    quat_conjugate,
    quat_multiply,
    quat_rotate,
    quat_to_matrix,
)
from ._drivers import AngleDriver, DistanceDriver, Driver, SlideDriver, _DrivenLength
from ._geometry import Axis, Drive, Geometry, Rail, Rod, driven
from ._phi_p import FRAME_LAYOUT, FRAMES, components_p, distance_p, relative_angle_p
from ._planar import (
    Distance,
    Fixed,
    PointOnLine,
    Prismatic,
    Revolute,
    _rod_at,
    angle_limits_wrap,
)
from .base import DriverJoint, Joint

_EX, _EZ = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])

__all__ = [
    "Spherical", "Cylindrical", "Universal", "Planar", "PointOnPlane", "ParallelAxes",
    "PerpendicularAxes", "GenericJoint", "SpatialRevolute", "SpatialPrismatic", "SpatialFixed",
    "SpatialDistance", "SpatialPointOnLine", "SpatialDriver", "SpatialAngleDriver",
    "SpatialSlideDriver", "SpatialDistanceDriver", "AngleCoupler",
]

_COMPONENTS = ("gx", "gy", "gz", "x", "y", "z", "rx", "ry", "rz", "perp")


def placement(value, name: str, axis=None, body=None):
    """``(point, quaternion)`` of a joint frame given as a Frame, or a point (+ axis).

    A point alone gives a frame at that point with the body's orientation; with ``axis`` the
    frame's z axis is turned onto that direction by the smallest rotation. A string names a
    point of ``body`` (:meth:`Body.add_point`) and is read as that point.
    """
    from ..spatial import Frame, Orientation

    if isinstance(value, str) and isinstance(body, Body):
        value = body._point_for(value, name)

    if isinstance(value, Frame):
        if axis is not None:
            raise TypeError(f"{name} is a Frame, which already fixes the joint axis; do not also "
                            "pass an axis")
        q = np.asarray(value.quaternion, dtype=float)
        t = np.asarray(value.translation, dtype=float)
        if q.shape != (4,):
            raise ValueError(f"{name} must be a single Frame, got a stack of shape "
                             f"{q.shape[:-1]}")
        return t, q
    if isinstance(value, (list, tuple, np.ndarray)):
        p = as_vector(value, name, 3)
        if axis is None:
            return p, np.array([1.0, 0.0, 0.0, 0.0])
        u = as_direction(axis, f"axis of {name}", 3)
        q = Orientation.identity().align_z(u).quaternion
        return p, np.asarray(q, dtype=float)
    raise TypeError(f"{name} must be a mechsolve Frame or a point (3 numbers), or the name of "
                    f"a point of the body, got {type(value).__name__}")


def _check_pair(cls, body1, body2) -> None:
    """Check the bodies of an ``at`` constructor before their poses are read."""
    for i, body in enumerate((body1, body2)):
        if not isinstance(body, SpatialBody):
            what = (f"a body of a planar mechanism ({body.name!r})" if isinstance(body, Body)
                    else type(body).__name__)
            raise TypeError(f"{cls.__name__}.at: body{i + 1} must be a body of a spatial "
                            f"mechanism (Mechanism(dim=3)), got {what}")


def _frames_at(body1, body2, point, quaternion) -> tuple:
    """The joint frames on ``body1`` and ``body2`` (body coordinates, as Frames) that both sit
    at the global frame ``(point, quaternion)`` at the current placement."""
    from ..spatial import Frame, Orientation

    out = []
    for body in (body1, body2):
        q = quat_multiply(quat_conjugate(body.quaternion), quaternion)
        out.append(Frame(body.to_local(point), Orientation(q, normalize=True)))
    return tuple(out)


def _z_along(axis, name: str = "axis") -> np.ndarray:
    """Quaternion of the global frame whose z axis is ``axis``: global z turned onto it by the
    smallest rotation (its x axis is global x turned likewise)."""
    from ..spatial import Orientation

    u = as_direction(axis, name, 3)
    return np.asarray(Orientation.identity().align_z(u).quaternion, dtype=float)


def _axis_at(cls, body1, body2, point, axis, name):
    """``at`` of a joint placed by a point and an axis (both frames' z along ``axis``)."""
    _check_pair(cls, body1, body2)
    p = as_vector(point, "point", 3)
    frame1, frame2 = _frames_at(body1, body2, p, _z_along(axis))
    return cls(body1, body2, frame1, frame2, name=name)




def _axes(X, F, xp=None):
    """Global axes (columns) of the joint frames: ``R(q) R(f)``, shape ``(..., 3, 3)``
    (``xp``: the arrays' namespace, where the caller knows it)."""
    if xp is None:
        return quat_to_matrix(quat_multiply(X[..., 3:], F))
    return quat_to_matrix(quat_multiply(X[..., 3:], F, xp), xp)


#: Rotation components of a joint -> the frame axes (0, 1, 2 for x, y, z) that must point the
#: same way on both frames, where the equations alone also allow them to point opposite ways.
#: With ``R`` the relative rotation (frame 2's axes in frame 1), ``rx = -R[1, 2]``,
#: ``ry = R[0, 2]``, ``rz = R[1, 0]``:
#:
#: * ``rx, ry``: column 2 of R is ``(0, 0, +-1)``, so ``z_2 = +-z_1`` (two separate sets);
#: * ``rx, rz``: row 1 of R is ``(0, +-1, 0)``, so ``y_2 = +-y_1``;
#: * ``ry, rz``: ``R = Rx(a)`` (the meant rotation about ``x_1``) or ``Rz(pi) Rx(a)``
#:   (``x_2 = -x_1``), joined by singular branches with ``z_2 = +-y_1``; ``x_2 = -x_1`` flagged;
#: * ``rx, ry, rz``: ``R = I`` or a half turn ``Rx(pi)``, ``Ry(pi)``, ``Rz(pi)``. Each half turn
#:   keeps one axis and reverses the other two (``Rz(pi)`` keeps ``z``, so ``z_1 . z_2`` alone
#:   misses it): all three axes are checked;
#: * one rotation component (``u_1 . v_2 = 0`` for two axes): the solutions, ``v_2`` anywhere on
#:   the great circle perpendicular to ``u_1``, form one connected set, so nothing is mirrored.
_MIRROR_AXES = {
    frozenset(("rx", "ry")): (2,),
    frozenset(("rx", "rz")): (1,),
    frozenset(("ry", "rz")): (0,),
    frozenset(("rx", "ry", "rz")): (0, 1, 2),
}

#: The dot product of two unit axes below which they count as pointing opposite ways. A correct
#: assembly has +1 to round-off and a mirrored one -1; -0.5 (more than 120 degrees apart) stays
#: silent on a correct pose that is off by tens of degrees and still fires on a mirror that is.
#: (An axis of frame 2 more than 120 degrees from its twin means a relative rotation of more
#: than 120 degrees, so the weld check never fires within 120 degrees of the identity.)
_OPPOSITE = -0.5

_MIRROR_TEXT = {
    (0,): "its two x axes point opposite ways (a mirrored assembly)",
    (1,): "its two y axes point opposite ways (a mirrored assembly)",
    (2,): "its two z axes point opposite ways (a mirrored assembly)",
    (0, 1, 2): ("its two frames are turned a half turn apart about one of their axes instead "
                "of aligned (a mirrored assembly)"),
}


def _opposite_axes(P, X1, X2, axes) -> np.ndarray:
    """Where any listed axis of frame 2 points against the same axis of frame 1, ``(...)``.

    ``P`` has the frame-joint layout (:data:`~mechsolve.joints._phi_p.FRAMES`); ``axes``
    indexes x, y, z.
    """
    A1 = _axes(X1, P[..., FRAMES.frame1])[..., :, axes]
    A2 = _axes(X2, P[..., FRAMES.frame2])[..., :, axes]
    return np.any(np.sum(A1 * A2, axis=-2) < _OPPOSITE, axis=-1)


def _frame_mirrored(cls, P, X1, X2):
    """:meth:`Joint._mirrored` of a frame joint whose rotation rows have mirrored roots."""
    return _opposite_axes(P, X1, X2, list(cls._mirror_axes))


def _components(rows, P, X1, X2):
    """Values and Jacobian blocks of the listed components for stacked frame joints.

    Written once over the array namespace of the poses (:func:`~mechsolve.spatial._quat.
    namespace`): NumPy poses give NumPy arrays, JAX arrays or tracers give JAX arrays."""
    xp = namespace(X1, X2, P)
    a1 = quat_rotate(X1[..., 3:], P[..., FRAMES.point1], xp)
    a2 = quat_rotate(X2[..., 3:], P[..., FRAMES.point2], xp)
    d = X2[..., :3] + a2 - X1[..., :3] - a1
    shape = d.shape[:-1]
    m = len(rows)
    phi = []
    J1 = []    # (index, value) entries of the blocks, the others zero
    J2 = []
    need_axes = any(r not in ("gx", "gy", "gz") for r in rows)
    if need_axes:
        A1 = _axes(X1, P[..., FRAMES.frame1], xp)
        A2 = _axes(X2, P[..., FRAMES.frame2], xp)
    for i, r in enumerate(rows):
        if r[0] == "g":  # origins coincide: o1 - o2
            c = "xyz".index(r[1])
            phi.append(-d[..., c])
            # d(o1)_c / dphi1 = (a1 x e_c) ; d(o2)_c / dphi2 = (a2 x e_c)
            e = _unit(xp, c, d)
            J1 += [((..., i, c), 1.0), ((..., i, _ROT), cross(a1, e, xp))]
            J2 += [((..., i, c), -1.0), ((..., i, _ROT), -cross(a2, e, xp))]
        elif r in ("x", "y", "z"):
            u = A1[..., :, "xyz".index(r)]
            phi.append(xp.sum(u * d, axis=-1))
            J1 += [((..., i, _POS), -u), ((..., i, _ROT), cross(u, d + a1, xp))]
            J2 += [((..., i, _POS), u), ((..., i, _ROT), cross(a2, u, xp))]
        else:
            sign = 1.0
            if r == "rx":
                u, v, sign = A1[..., :, 1], A2[..., :, 2], -1.0
            elif r == "ry":
                u, v = A1[..., :, 0], A2[..., :, 2]
            elif r == "rz":
                u, v = A1[..., :, 1], A2[..., :, 0]
            else:  # perp
                u, v = A1[..., :, 2], A2[..., :, 2]
            phi.append(sign * xp.sum(u * v, axis=-1))
            w = sign * cross(u, v, xp)
            J1.append(((..., i, _ROT), w))
            J2.append(((..., i, _ROT), -w))
    phi = _stacked(xp, phi, shape) if m else xp.zeros(shape + (0,), dtype=d.dtype)
    return (phi, [_filled(xp, shape + (m, 6), J1, d), _filled(xp, shape + (m, 6), J2, d)],
            d, a1, a2)


#: the columns of a body's position and of its rotation increment in a Jacobian block
_POS = slice(0, 3)
_ROT = slice(3, 6)
#: the global unit vectors, rows (see :func:`_unit`)
_UNIT = np.eye(3)
_UNIT.flags.writeable = False


def _unit(xp, c, like):
    """The global unit vector ``e_c`` in ``like``'s namespace (and dtype, for JAX: a float64
    constant would promote a float32 trace)."""
    return _UNIT[c] if xp is np else xp.asarray(_UNIT[c], dtype=like.dtype)


def _filled(xp, shape, entries, like):
    """An array of zeros of ``shape`` with ``entries`` ``[(index, value), ...]`` written (in
    place for NumPy; ``.at[index].set`` for JAX, in ``like``'s dtype)."""
    if xp is np:
        out = np.zeros(shape)
        for idx, v in entries:
            out[idx] = v
        return out
    out = xp.zeros(shape, dtype=like.dtype)
    for idx, v in entries:
        out = out.at[idx].set(v)
    return out


def _dot(a, b):
    """Dot product of stacked 3-vectors, ``(..., 3) . (..., 3) -> (...)``."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _motion(P, X1, X2, V1, V2):
    """Velocity terms of the frame origins for acceleration right-hand sides.

    With ``o_i' = v_i + w_i x a_i`` and ``o_i'' = acc_i + alpha_i x a_i + w_i x (w_i x a_i)``
    returns ``(d, d', c)``: the separation ``d = o_2 - o_1``, its rate and the part of ``d''``
    that does not multiply accelerations, ``c = w_2 x (w_2 x a_2) - w_1 x (w_1 x a_1)``.
    """
    a1 = quat_rotate(X1[..., 3:], P[..., FRAMES.point1])
    a2 = quat_rotate(X2[..., 3:], P[..., FRAMES.point2])
    w1 = V1[..., 3:]
    w2 = V2[..., 3:]
    wa1 = cross(w1, a1)
    wa2 = cross(w2, a2)
    d = X2[..., :3] + a2 - X1[..., :3] - a1
    dd = V2[..., :3] + wa2 - V1[..., :3] - wa1
    c = cross(w2, wa2) - cross(w1, wa1)
    return d, dd, c


def _quadratic(u, v, w1, w2):
    """Velocity-only part of ``(u . v)''`` for ``u`` turning with ``w1`` and ``v`` with ``w2``:
    ``(w1 x (w1 x u)) . v + 2 (w1 x u) . (w2 x v) + u . (w2 x (w2 x v))``."""
    wu = cross(w1, u)
    wv = cross(w2, v)
    return _dot(cross(w1, wu), v) + 2 * _dot(wu, wv) + _dot(u, cross(w2, wv))


def _components_gamma(rows, P, X1, X2, V1, V2):
    """``gamma`` (minus the velocity-only part of ``Phi''``) of the listed components.

    * ``g*``: ``Phi = -d_c`` so ``gamma = c_c`` (see :func:`_motion`);
    * ``x, y, z``: ``Phi = u . d`` with ``u' = w_1 x u``, so
      ``gamma = -[(w_1 x (w_1 x u)) . d + 2 (w_1 x u) . d' + u . c]``;
    * ``rx, ry, rz, perp``: ``Phi = +-u . v``, ``gamma = -+`` :func:`_quadratic`.
    """
    shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1], V1.shape[:-1],
                                V2.shape[:-1])
    out = np.empty(shape + (len(rows),))
    w1 = V1[..., 3:]
    w2 = V2[..., 3:]
    if any(r[0] == "g" or r in ("x", "y", "z") for r in rows):
        d, dd, c = _motion(P, X1, X2, V1, V2)
    if any(r[0] != "g" for r in rows):
        A1 = _axes(X1, P[..., FRAMES.frame1])
    if any(r[0] == "r" or r == "perp" for r in rows):
        A2 = _axes(X2, P[..., FRAMES.frame2])
    for i, r in enumerate(rows):
        if r[0] == "g":
            out[..., i] = c[..., "xyz".index(r[1])]
        elif r in ("x", "y", "z"):
            u = A1[..., :, "xyz".index(r)]
            wu = cross(w1, u)
            out[..., i] = -(_dot(cross(w1, wu), d) + 2 * _dot(wu, dd) + _dot(u, c))
        else:
            sign = -1.0
            if r == "rx":
                u, v, sign = A1[..., :, 1], A2[..., :, 2], 1.0
            elif r == "ry":
                u, v = A1[..., :, 0], A2[..., :, 2]
            elif r == "rz":
                u, v = A1[..., :, 1], A2[..., :, 0]
            else:  # perp
                u, v = A1[..., :, 2], A2[..., :, 2]
            out[..., i] = sign * _quadratic(u, v, w1, w2)
    return out


class _FrameJoint(Joint):
    """A spatial joint defined by a tuple of components between two joint frames."""

    dims = (3,)
    _rows: tuple[str, ...] = ()
    layout = FRAME_LAYOUT
    #: The frame axes checked by :meth:`_mirrored` (from :data:`_MIRROR_AXES`; empty: none).
    _mirror_axes: tuple[int, ...] = ()
    _generic_kernels = True    # _components is written over the arrays' namespace

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # The mirror check follows from the rotation rows (this also covers every
        # GenericJoint subset); only a class with mirrored roots overrides Joint._mirrored, and
        # a subclass whose rows have none drops the check it would inherit.
        axes = _MIRROR_AXES.get(frozenset(cls._rows) & {"rx", "ry", "rz"}, ())
        cls._mirror_axes = axes
        if "_mirrored" not in cls.__dict__:
            if axes:
                cls._mirrored = classmethod(_frame_mirrored)
            elif getattr(cls._mirrored, "__func__", None) is _frame_mirrored:
                cls._mirrored = Joint.__dict__["_mirrored"]
        if "mirror_description" not in cls.__dict__:
            if axes:
                cls.mirror_description = _MIRROR_TEXT[axes]
            elif cls.mirror_description in _MIRROR_TEXT.values():
                cls.mirror_description = Joint.mirror_description

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, axis=None,
                 name: str | None = None) -> None:
        self._place(body1, body2, frame1, frame2, axis, name)

    def _place(self, body1, body2, frame1, frame2, axis, name, extra=()) -> None:
        """Constructor body: the two frames (then ``extra`` parameters a class appends)."""
        _require_spatial(self, body1, body2)
        if frame1 is None:
            frame1 = np.zeros(3)
        if frame2 is None:
            frame2 = np.zeros(3)
        p1, f1 = placement(frame1, "frame1", axis, body1)
        p2, f2 = placement(frame2, "frame2", axis, body2)
        Joint.__init__(self, (body1, body2), np.concatenate([p1, f1, p2, f2, extra]), name=name)

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _components_gamma(cls._rows, P, X1, X2, V1, V2)

    @property
    def equation_labels(self):
        return self._rows

    def _frames(self) -> list:
        """``[(body, origin, quaternion), ...]`` of the two joint frames (body coordinates)."""
        sl = self.sl
        return [(self._bodies[0], self._p[sl.point1].copy(), self._p[sl.frame1].copy()),
                (self._bodies[1], self._p[sl.point2].copy(), self._p[sl.frame2].copy())]

    def _z_axes(self) -> list:
        """The frames' z axes on their bodies, ``[Axis, Axis]`` (x: the frames' x axes)."""
        return [Axis(b, c, quat_rotate(f, _EZ), quat_rotate(f, _EX)) for b, c, f in self._frames()]

    def geometry(self) -> Geometry:
        """Where the frames' origins meet (or the point that slides on a line, a plane), a pin
        mark there, the rail of a joint that slides along frame 1's z axis (with the leg
        between the origins); the frames' origins locate a joint of axes only."""
        rows = set(self._rows)
        ends = [(b, c) for b, c, _ in self._frames()]
        slides = {"x", "y", "rx"} <= rows
        if {"gx", "gy", "gz"} <= rows or {"x", "y", "z"} <= rows:
            points = ends
        elif rows & {"x", "y", "z"} and not slides and not {"rx", "ry"} <= rows:
            points = [ends[1]]
        else:
            points = []
        out = Geometry(points=points, anchor=[] if points else ends)
        if points:
            out.pins = [points[-1] if not points[-1][0].is_ground else points[0]]
        if slides:
            self._slide(out)
        return out

    def _slide(self, out: Geometry, leg: bool = True) -> None:
        """Give ``out`` the rail along frame 1's z axis on which frame 2's origin slides (and
        the leg between the origins)."""
        z1 = self._z_axes()[0]
        ends = [(b, c) for b, c, _ in self._frames()]
        out.rails.append(Rail(z1.body, z1.point, z1.direction, ends[1]))
        if leg:
            out.legs.append(tuple(ends))

    attachment_points = ((0, "point1"), (1, "point2"))

    @property
    def axis(self) -> np.ndarray:
        """The joint axis: the z axis of the joint frame on body 1, in body 1's coordinates."""
        return quat_to_matrix(self._p[self.sl.frame1])[:, 2].copy()

    def _hinge_lines(self) -> list:
        """``[(body, global point, global unit axis), ...]``: the lines about which a moving
        body of this joint turns without breaking it (a hinge's axis, for the joints whose
        rotation rows leave only the z axes' turn free); empty for the others."""
        if self._mirror_axes != (2,):
            return []
        out = []
        for b, o, f in zip(self.bodies, (self._p[self.sl.point1], self._p[self.sl.point2]),
                           (self._p[self.sl.frame1], self._p[self.sl.frame2])):
            if not b.is_ground:
                out.append((b, b.to_global(o), _axes(b.pose, f)[:, 2].copy()))
        return out

    def _half_turns(self) -> list:
        out = []
        for b, f in zip(self.bodies, (self._p[self.sl.frame1], self._p[self.sl.frame2])):
            if not b.is_ground:
                A = _axes(b.pose, f)
                out += [(b, A[:, k].copy()) for k in range(3)]
        return out

    @property
    def point1(self) -> np.ndarray:
        """Origin of the joint frame on body 1, body coordinates."""
        return self._p[self.sl.point1].copy()

    @property
    def point2(self) -> np.ndarray:
        """Origin of the joint frame on body 2, body coordinates."""
        return self._p[self.sl.point2].copy()

    @classmethod
    def _phi(cls, P, X1, X2):
        return _components(cls._rows, P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        phi, blocks, *_ = _components(cls._rows, P, X1, X2)
        return phi, blocks

    @classmethod
    def _phi_p(cls, P, X1, X2):
        return components_p(cls._rows, P, X1, X2)


def _frame_parameters(joint) -> np.ndarray:
    """The parameters of a frame joint's two frames (:data:`~mechsolve.joints._phi_p.FRAMES`,
    the start of its layout), which its drivers and couplers copy."""
    return joint._p[:len(FRAMES)]


def _require_spatial(joint, *bodies) -> None:
    for i, b in enumerate(bodies):
        if isinstance(b, Body) and not isinstance(b, SpatialBody):
            raise TypeError(f"{type(joint).__name__} is a spatial joint: body {i + 1} "
                            f"({b.name!r}) belongs to a planar mechanism")


class Spherical(_FrameJoint):
    """Ball joint: the origins of the two joint frames coincide (3 equations).

    Parameters
    ----------
    body1, body2 : SpatialBody
    frame1, frame2 : Frame or array_like (3,)
        The joint centre on each body (a point, or a Frame whose origin is used).
    name : str, optional

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> link = mech.add_body("link", position=(0, 0, 1))
    >>> ball = mech.add(ms.joints.Spherical(mech.ground, link, (0, 0, 0), (0, 0, -1)))
    >>> ball.residual()
    array([0., 0., 0.])
    """

    _rows = ("gx", "gy", "gz")
    n_equations = 3
    #: ``limits=(None, max)``: a cone limit, on the angle of frame 2's rotation from frame 1
    #: (``2 atan2(|v|, |w|)`` of the relative quaternion, in ``[0, pi]``), as MuJoCo's ball
    #: ``range`` limits it.
    limit_quantity = "cone"

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, axis=None,
                 name: str | None = None, limits=None) -> None:
        self._place(body1, body2, frame1, frame2, axis, name)
        self._set_limits(limits)

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        q1 = quat_multiply(X1[..., 3:7], P[..., cls.sl.frame1])
        q2 = quat_multiply(X2[..., 3:7], P[..., cls.sl.frame2])
        rel = quat_multiply(quat_conjugate(q1), q2)
        w, v = rel[..., 0], rel[..., 1:]
        nv = np.sqrt(np.sum(v * v, axis=-1))
        angle = 2.0 * np.arctan2(nv, np.abs(w))
        # d angle = k . dphi2 - k . dphi1, k the relative rotation's axis in global axes
        k = np.where(w[..., None] < 0, -v, v) / np.maximum(nv, 1e-300)[..., None]
        k = quat_rotate(q1, k)
        zero = np.zeros(k.shape)
        return angle, [np.concatenate([zero, -k], axis=-1), np.concatenate([zero, k], axis=-1)]

    @classmethod
    def at(cls, body1: Body, body2: Body, point, *, name: str | None = None):
        """A ball joint centred at the global point ``point`` of the current placement.

        The frames sit at ``point`` with ``body2``'s orientation (frame 2 is the identity
        rotation on ``body2``); the residual is 0 now. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            The ball's centre, in global coordinates.
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> link = mech.add_body("link", position=(0, 0, 1))
        >>> ball = ms.joints.Spherical.at(mech.ground, link, (0.0, 0.0, 0.5))
        >>> ball.point2, ball.residual() + 0.0
        (array([ 0. ,  0. , -0.5]), array([0., 0., 0.]))
        """
        _check_pair(cls, body1, body2)
        p = as_vector(point, "point", 3)
        frame1, frame2 = _frames_at(body1, body2, p, body2.quaternion)
        return cls(body1, body2, frame1, frame2, name=name)
    # No mirror: only the origins are constrained (no rotation rows).


class SpatialRevolute(_FrameJoint, variant_of=Revolute):
    """Spatial revolute (hinge): origins coincide, the z axes stay parallel (5 equations).

    With ``o_i`` the frame origins and ``x_i, y_i, z_i`` the frame axes in global coordinates
    (see the module notes)::

        Phi = (o_1 - o_2,  -y_1 . z_2,  x_1 . z_2)

    Rotation about the common z axis is free; :meth:`angle` measures it and
    :class:`~mechsolve.joints.AngleDriver` drives it. What ``joints.Revolute`` builds from the
    bodies of a spatial mechanism (``isinstance(hinge, joints.Revolute)`` holds; see
    :class:`~mechsolve.joints.Revolute`). Phi also vanishes with ``z_2 = -z_1`` (the hinge upside
    down), which :meth:`is_mirrored` reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.
    limits : (float or None, float or None), optional
        Bounds of the relative angle (radians; read continuously within the turn centred on
        the limits), kept by solves and sweeps (see :attr:`Joint.limits`).

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> door = mech.add_body("door", position=(0, 0, 1))
    >>> hinge = mech.add(ms.joints.Revolute(mech.ground, door, (0, 0, 1), (0, 0, 0),
    ...                                     axis=(0, 0, 1)))
    >>> type(hinge).__name__, mech.dof().dof
    ('SpatialRevolute', 1)
    >>> door.orientation = ms.Orientation.from_angle_axis(0.5, (0, 0, 1))
    >>> hinge.residual().round(12) + 0.0
    array([0., 0., 0., 0., 0.])
    >>> round(hinge.angle(), 12)
    0.5
    """

    _rows = ("gx", "gy", "gz", "rx", "ry")
    n_equations = 5
    limit_quantity = "angle"

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """A hinge through the global point ``point`` along the global direction ``axis``.

        What ``joints.Revolute.at`` builds from spatial bodies. The joint frames on the two
        bodies are the same global frame now: origin at ``point``, z axis along ``axis``, x
        axis global x turned onto it by the smallest rotation that takes global z onto
        ``axis``. So every residual, the joint's angle and its slide are 0 at the current
        placement. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            A point of the hinge axis, in global coordinates.
        axis : array_like, shape (3,)
            The hinge axis (the frames' z), in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> door = mech.add_body("door", position=(0.5, 0.0, 1.0))
        >>> hinge = ms.joints.Revolute.at(mech.ground, door, (0, 0, 1), (0, 0, 1))
        >>> type(hinge).__name__, hinge.point2, hinge.angle()
        ('SpatialRevolute', array([-0.5,  0. ,  0. ]), 0.0)
        """
        return _axis_at(cls, body1, body2, point, axis, name)
    # Mirror: rx, ry also vanish at z_2 = -z_1 (a hinge upside down); z_1 . z_2 must be > 0.

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, axis=None,
                 limits=None, name: str | None = None) -> None:
        self._place(body1, body2, frame1, frame2, axis, name)
        self._set_limits(limits)

    @property
    def limit_wraps(self) -> bool:
        return angle_limits_wrap(self._limits)

    def geometry(self) -> Geometry:
        """The pin at the origins, each body's hinge axis, the hinge (frame 1's z) and its
        housing."""
        out = super().geometry()
        axes = self._z_axes()
        out.axes, out.hinge, out.housings = axes, axes[0], [axes[0]]
        return out

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        # the angle of x_2 about z_1 from x_1 (as AngleDriver measures it), in (-pi, pi]:
        # the limit set reads it in the turn centred on the limits
        theta, g1 = _relative_angle(P, X1, X2)
        J1 = np.zeros(theta.shape + (6,))
        J2 = np.zeros(theta.shape + (6,))
        J1[..., 3:] = g1
        J2[..., 3:] = -g1
        return theta, [J1, J2]

    def angle(self) -> float:
        """Current relative angle of frame 2's x axis about frame 1's z axis (radians)."""
        P = self._p[None]
        X = [b.pose[None] for b in self._bodies]
        return float(_relative_angle(P, *X)[0][0])


class SpatialPrismatic(_FrameJoint, variant_of=Prismatic):
    """Spatial prismatic (slider): frame 2's origin on frame 1's z axis, rotation locked.

    With ``d = o_2 - o_1`` (5 equations)::

        Phi = (x_1 . d,  y_1 . d,  -y_1 . z_2,  x_1 . z_2,  y_1 . x_2)

    Sliding along the z axis is free; the slide ``z_1 . d`` is what
    :class:`~mechsolve.joints.SlideDriver` drives. What ``joints.Prismatic`` builds from the
    bodies of a spatial mechanism (``isinstance(slider, joints.Prismatic)`` holds; see
    :class:`~mechsolve.joints.Prismatic`). The rotation rows also vanish with frame 2 turned a
    half turn about an axis of frame 1, which :meth:`is_mirrored` reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.
    limits : (float or None, float or None), optional
        Bounds of the slide ``z_1 . d`` (lengths), kept by solves and sweeps (see
        :attr:`Joint.limits`).

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> slider = mech.add_body("slider", position=(0, 0, 0.3))
    >>> guide = mech.add(ms.joints.Prismatic(mech.ground, slider, axis=(0, 0, 1)))
    >>> type(guide).__name__, mech.dof().dof
    ('SpatialPrismatic', 1)
    >>> slider.position = (0.25, 0, 0.7)  # 0.25 off the axis along x
    >>> guide.residual().round(12) + 0.0
    array([0.25, 0.  , 0.  , 0.  , 0.  ])
    """

    _rows = ("x", "y", "rx", "ry", "rz")
    n_equations = 5
    limit_quantity = "slide"

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """A slider through the global point ``point`` along the global direction ``axis``.

        What ``joints.Prismatic.at`` builds from spatial bodies. The joint frames on the two
        bodies are the same global frame now: origin at ``point``, z axis along ``axis``, x
        axis global x turned onto it by the smallest rotation that takes global z onto
        ``axis``. So every residual, the joint's angle and its slide are 0 at the current
        placement. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            A point of the sliding axis, in global coordinates.
        axis : array_like, shape (3,)
            The sliding direction (the frames' z), in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> slider = mech.add_body("slider", position=(0, 0, 0.3))
        >>> guide = ms.joints.Prismatic.at(mech.ground, slider, (0, 0, 0.3), (0, 1, 1))
        >>> type(guide).__name__, guide.residual().round(12) + 0.0
        ('SpatialPrismatic', array([0., 0., 0., 0., 0.]))
        """
        return _axis_at(cls, body1, body2, point, axis, name)

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, axis=None,
                 limits=None, name: str | None = None) -> None:
        self._place(body1, body2, frame1, frame2, axis, name)
        self._set_limits(limits)

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        # the slide z_1 . d, as SlideDriver measures it
        phi, blocks, *_ = _components(("z",), P, X1, X2)
        return phi[..., 0], [b[..., 0, :] for b in blocks]
    # Mirror: rx, ry, rz also vanish at a half turn about x_1, y_1 or z_1; all three axes are
    # checked (x_1 . x_2, y_1 . y_2, z_1 . z_2 > 0).


class Cylindrical(_FrameJoint):
    """Cylindrical joint: frame 2's origin on frame 1's z axis, z axes parallel (4 equations).

    With ``d = o_2 - o_1``::

        Phi = (x_1 . d,  y_1 . d,  -y_1 . z_2,  x_1 . z_2)

    Rotation about and sliding along the common axis are free; drive them with
    :class:`~mechsolve.joints.AngleDriver` and :class:`~mechsolve.joints.SlideDriver`. Phi also
    vanishes with ``z_2 = -z_1``, which :meth:`is_mirrored` reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> sleeve = mech.add_body("sleeve", position=(0, 0, 0.4))
    >>> cyl = mech.add(ms.joints.Cylindrical(mech.ground, sleeve, axis=(0, 0, 1)))
    >>> mech.dof().dof
    2
    >>> sleeve.position = (0, -0.5, 0.4)
    >>> cyl.residual().round(12) + 0.0
    array([ 0. , -0.5,  0. ,  0. ])
    """

    _rows = ("x", "y", "rx", "ry")
    n_equations = 4

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """A cylindrical joint through the global point ``point`` along the global direction
        ``axis``.

        The joint frames on the two bodies are the same global frame now: origin at ``point``,
        z axis along ``axis``, x axis global x turned onto it by the smallest rotation that
        takes global z onto ``axis``. So every residual, the joint's angle and its slide are 0
        at the current placement. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            A point of the common axis, in global coordinates.
        axis : array_like, shape (3,)
            The common axis (the frames' z), in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> sleeve = mech.add_body("sleeve", position=(1, 0, 0.4))
        >>> cyl = ms.joints.Cylindrical.at(mech.ground, sleeve, (1, 0, 0), (0, 0, 1))
        >>> cyl.point1, cyl.residual().round(12) + 0.0
        (array([1., 0., 0.]), array([0., 0., 0., 0.]))
        """
        return _axis_at(cls, body1, body2, point, axis, name)
    # Mirror: rx, ry also vanish at z_2 = -z_1; z_1 . z_2 must be > 0.

    def geometry(self) -> Geometry:
        """The rail (frame 1's z axis, its own housing), each body's axis and the hinge."""
        out = super().geometry()
        axes = self._z_axes()
        out.axes, out.hinge = axes, axes[0]
        return out


class Universal(_FrameJoint):
    """Universal (Hooke) joint: origins coincide, the two z axes stay perpendicular (4).

    ::

        Phi = (o_1 - o_2,  z_1 . z_2)

    The cross's two pins are the z axis of ``frame1`` (on body 1) and the z axis of ``frame2``
    (on body 2); place them perpendicular when assembling, normally with Frames (the ``axis=``
    shorthand gives both pins the same direction, each in its own body's coordinates).

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,), optional
        The joint frame on each body, in that body's coordinates; its z axis is that body's
        pin. A point gives a frame with the body's own orientation. Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements, in **each body's own coordinates** (both pins then have
        the same body-coordinate direction, so the bodies must be turned to make them
        perpendicular). Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> shaft = mech.add_body("shaft", position=(0, 0, 1))
    >>> pin2 = ms.Frame((0, 0, -1), ms.Orientation.from_angle_axis(np.pi / 2, (0, 1, 0)))
    >>> hooke = mech.add(ms.joints.Universal(mech.ground, shaft, ms.Frame(), pin2))
    >>> mech.dof().dof
    2
    >>> hooke.residual().round(12) + 0.0
    array([0., 0., 0., 0.])
    """

    _rows = ("gx", "gy", "gz", "perp")
    n_equations = 4

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis1, axis2, *, name: str | None = None):
        """A Hooke joint at the global point ``point`` with pin ``axis1`` on ``body1`` and pin
        ``axis2`` on ``body2`` (global directions at the current placement).

        As in the constructor, each body's pin is the z axis of its joint frame: frame 1 has
        z along ``axis1`` and x along ``axis2``, frame 2 has z along ``axis2`` and x along
        ``axis1`` (both right-handed, origins at ``point``). The pins must be perpendicular now
        (within 1e-6 rad; ``axis2`` is then made exactly perpendicular to ``axis1``), so the
        residual is 0. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            The cross's centre, in global coordinates.
        axis1, axis2 : array_like, shape (3,)
            The pins on ``body1`` and on ``body2``, global directions (non-zero, perpendicular).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> shaft = mech.add_body("shaft", position=(0, 0, 1))
        >>> hooke = ms.joints.Universal.at(mech.ground, shaft, (0, 0, 0), (1, 0, 0), (0, 1, 0))
        >>> hooke.axis, hooke.residual().round(12) + 0.0
        (array([1., 0., 0.]), array([0., 0., 0., 0.]))
        """
        from ..spatial import Orientation

        _check_pair(cls, body1, body2)
        p = as_vector(point, "point", 3)
        u1 = as_direction(axis1, "axis1", 3)
        u2 = as_direction(axis2, "axis2", 3)
        c = float(u1 @ u2)
        if abs(c) > 1e-6:
            raise ValueError(f"{cls.__name__}.at: axis1 and axis2 must be perpendicular (the "
                             f"pins of the cross), got cos(angle) = {c:.3g}")
        u2 = u2 - c * u1
        u2 = u2 / np.linalg.norm(u2)
        q1 = Orientation.from_dcm_columns(u2, np.cross(u1, u2), u1).quaternion
        q2 = Orientation.from_dcm_columns(u1, np.cross(u2, u1), u2).quaternion
        frame1, _ = _frames_at(body1, body2, p, np.asarray(q1, dtype=float))
        _, frame2 = _frames_at(body1, body2, p, np.asarray(q2, dtype=float))
        return cls(body1, body2, frame1, frame2, name=name)
    # No mirror: z_2 may be anywhere on the circle perpendicular to z_1, one connected set
    # (z_2 = y_1 and z_2 = -y_1 are joined by turning about pin 1, a motion of the joint).

    def geometry(self) -> Geometry:
        """The cross at the origins: each body's pin (frame z axis), both housed."""
        out = super().geometry()
        out.axes = self._z_axes()
        out.housings = list(out.axes)
        return out


class Planar(_FrameJoint):
    """Planar joint: frame 2's origin in frame 1's xy plane, z axes parallel (3 equations).

    With ``d = o_2 - o_1``::

        Phi = (z_1 . d,  -y_1 . z_2,  x_1 . z_2)

    Translation in the plane and rotation about its normal are free. Phi also vanishes with
    the normals opposite (``z_2 = -z_1``, the body upside down), which :meth:`is_mirrored`
    reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> puck = mech.add_body("puck", position=(0.2, 0.3, 0.0))
    >>> table = mech.add(ms.joints.Planar(mech.ground, puck))
    >>> mech.dof().dof
    3
    >>> puck.position = (0.2, 0.3, 0.125)  # lifted off the table
    >>> table.residual().round(12) + 0.0
    array([0.125, 0.   , 0.   ])
    """

    _rows = ("z", "rx", "ry")
    n_equations = 3
    # Mirror: rx, ry also vanish with the normals opposite (the body upside down on the plane).
    mirror_description = ("its two plane normals (z axes) point opposite ways (a mirrored "
                          "assembly)")


class SpatialFixed(_FrameJoint, variant_of=Fixed):
    """Spatial weld: the two joint frames coincide (6 equations).

    ::

        Phi = (o_1 - o_2,  -y_1 . z_2,  x_1 . z_2,  y_1 . x_2)

    With ``body1`` ground this places ``body2`` at a fixed global pose. What ``joints.Fixed``
    builds from the bodies of a spatial mechanism (``isinstance(weld, joints.Fixed)`` holds; see
    :class:`~mechsolve.joints.Fixed`). The rotation rows also vanish with frame 2 turned a half
    turn about an axis of frame 1, which :meth:`is_mirrored` reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> base = mech.add_body("base", position=(0, 0, 1.5))
    >>> weld = mech.add(ms.joints.Fixed(mech.ground, base, (0, 0, 1), (0, 0, 0)))
    >>> type(weld).__name__, mech.dof().dof
    ('SpatialFixed', 0)
    >>> weld.residual().round(12) + 0.0
    array([ 0. ,  0. , -0.5,  0. ,  0. ,  0. ])
    """

    _rows = ("gx", "gy", "gz", "rx", "ry", "rz")
    n_equations = 6

    @classmethod
    def at(cls, body1: Body, body2: Body, point=None, *, name: str | None = None):
        """A weld that keeps the bodies' current relative placement.

        What ``joints.Fixed.at`` builds from spatial bodies. Both frames sit at the global
        ``point`` (default: ``body2``'s origin) with ``body2``'s orientation, so frame 2 is
        the identity rotation on ``body2`` and the residual is 0 now. The joint is not added to
        the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,), optional
            The weld point, in global coordinates (default: ``body2``'s origin).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> base = mech.add_body("base", position=(0, 0, 1.5))
        >>> weld = ms.joints.Fixed.at(mech.ground, base)
        >>> type(weld).__name__, weld.point1, weld.residual() + 0.0
        ('SpatialFixed', array([0. , 0. , 1.5]), array([0., 0., 0., 0., 0., 0.]))
        """
        _check_pair(cls, body1, body2)
        p = body2.position if point is None else as_vector(point, "point", 3)
        frame1, frame2 = _frames_at(body1, body2, p, body2.quaternion)
        return cls(body1, body2, frame1, frame2, name=name)
    # Mirror: rx, ry, rz also vanish at a half turn about x_1, y_1 or z_1; all three axes are
    # checked (x_1 . x_2, y_1 . y_2, z_1 . z_2 > 0).

    def geometry(self) -> Geometry:
        """A weld mark at the origins (on the moving body)."""
        out = super().geometry()
        out.welds, out.pins = out.pins, []
        return out


class SpatialPointOnLine(_FrameJoint, variant_of=PointOnLine):
    """Point on line: frame 2's origin stays on frame 1's z axis (2 equations).

    With ``d = o_2 - o_1``::

        Phi = (x_1 . d,  y_1 . d)

    Sliding along the line and every rotation are free. What ``joints.PointOnLine`` builds from
    the bodies of a spatial mechanism (``isinstance(joint, joints.PointOnLine)`` holds; see
    :class:`~mechsolve.joints.PointOnLine`).

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> bead = mech.add_body("bead", position=(0.5, -0.25, 2.0))
    >>> wire = mech.add(ms.joints.PointOnLine(mech.ground, bead, axis=(0, 0, 1)))
    >>> type(wire).__name__, mech.dof().dof
    ('SpatialPointOnLine', 4)
    >>> wire.residual().round(12) + 0.0
    array([ 0.5 , -0.25])
    """

    _rows = ("x", "y")
    n_equations = 2

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """The point of ``body2`` at the global ``point`` held on the line of ``body1`` through
        it along the global direction ``axis``.

        What ``joints.PointOnLine.at`` builds from spatial bodies. The joint frames on the
        two bodies are the same global frame now: origin at ``point``, z axis along
        ``axis``, x axis global x turned onto it by the smallest rotation that takes global
        z onto ``axis``. So every residual, the joint's angle and its slide are 0 at the
        current placement. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point : array_like, shape (3,)
            The point, in global coordinates.
        axis : array_like, shape (3,)
            The line's direction (the frames' z), in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> bead = mech.add_body("bead", position=(0.5, -0.25, 2.0))
        >>> wire = ms.joints.PointOnLine.at(mech.ground, bead, (0.5, -0.25, 2.0), (0, 0, 1))
        >>> type(wire).__name__, wire.residual() + 0.0
        ('SpatialPointOnLine', array([0., 0.]))
        """
        return _axis_at(cls, body1, body2, point, axis, name)

    def geometry(self) -> Geometry:
        """The point on the line and the line (frame 1's z axis)."""
        out = super().geometry()
        self._slide(out, leg=False)
        return out
    # No mirror: no rotation rows; a line has no direction to reverse.


class PointOnPlane(_FrameJoint):
    """Point on plane: frame 2's origin stays in frame 1's xy plane (1 equation).

    With ``d = o_2 - o_1``::

        Phi = z_1 . d

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> foot = mech.add_body("foot", position=(0.3, -0.2, 0.25))
    >>> floor = mech.add(ms.joints.PointOnPlane(mech.ground, foot))
    >>> mech.dof().dof
    5
    >>> floor.residual().round(12) + 0.0
    array([0.25])
    """

    _rows = ("z",)
    n_equations = 1
    # No mirror: no rotation rows (z_1 . d = 0 is the plane itself, from either side).


class ParallelAxes(_FrameJoint):
    """The z axes of the two frames stay parallel (2 equations).

    ::

        Phi = (-y_1 . z_2,  x_1 . z_2)

    Only the orientation is constrained: every translation and the rotation about the common
    axis are free.

    Parallel means pointing the same way. The rows are the revolute's orientation rows, small
    rotations about ``x_1`` and ``y_1`` away from ``z_2 = z_1``, and they vanish at
    ``z_2 = -z_1`` too; that antiparallel pose is a separate set of solutions (no motion through
    solutions reaches it) and :meth:`is_mirrored` reports it. To hold two axes antiparallel,
    turn ``frame2`` a half turn about its x axis.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> tilted = ms.Orientation.from_angle_axis(np.pi / 6, (1, 0, 0))
    >>> b = mech.add_body("b", position=(1, 2, 3), orientation=tilted)
    >>> par = mech.add(ms.joints.ParallelAxes(mech.ground, b, axis=(0, 0, 1)))
    >>> mech.dof().dof
    4
    >>> par.residual().round(12) + 0.0  # sin(30 deg) about x_1
    array([0.5, 0. ])
    """

    _rows = ("rx", "ry")
    n_equations = 2
    # Mirror: "parallel" means the same direction (see the docstring); z_1 . z_2 must be > 0.


class PerpendicularAxes(_FrameJoint):
    """The z axes of the two frames stay perpendicular (1 equation).

    ::

        Phi = z_1 . z_2

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,) or str, optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        a point, or the name of a point of that body (a frame at that point with the body's
        own orientation). Default: the body's origin.
    axis : array_like, shape (3,), optional
        Shorthand for point placements: the joint axis, given in **each body's own
        coordinates** (the same three numbers are read in body 1's frame for ``frame1`` and in
        body 2's frame for ``frame2``); each frame's z axis is turned onto it by the smallest
        rotation. Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> b = mech.add_body("b")
    >>> perp = mech.add(ms.joints.PerpendicularAxes(mech.ground, b))
    >>> perp.residual()  # both z axes along global z
    array([1.])
    >>> b.orientation = ms.Orientation.from_angle_axis(np.pi / 2, (1, 0, 0))
    >>> perp.residual().round(12) + 0.0
    array([0.])
    """

    _rows = ("perp",)
    n_equations = 1
    # No mirror: the perpendicular directions z_2 form one connected circle.


_GENERIC_CLASSES: dict = {}


def _unpickle_generic(rows, state):
    """A :class:`GenericJoint` of the components ``rows`` with ``state`` (pickling)."""
    joint = GenericJoint.__new__(GenericJoint, components=rows)
    joint.__dict__.update(state)
    return joint


class GenericJoint(_FrameJoint):
    """Constrain a chosen subset of the six relative components of two frames.

    The components are frame 2's origin in frame 1 and the small relative rotation about frame
    1's axes; with ``d = o_2 - o_1``::

        "x" = x_1 . d    "y" = y_1 . d    "z" = z_1 . d
        "rx" = -y_1 . z_2    "ry" = x_1 . z_2    "rz" = y_1 . x_2

    so a loop can be closed with 1 to 5 equations (6 is a weld). Each distinct subset is its
    own class (named ``GenericJoint[...]``, the components in the order above), so joints with
    the same subset are evaluated together. A subset with two or three rotation components
    also has mirrored solutions (``rx, ry``: ``z_2 = -z_1``; ``rx, rz``: ``y_2 = -y_1``;
    ``ry, rz``: ``x_2 = -x_1``; all three: a half turn), which :meth:`is_mirrored` reports.

    Parameters
    ----------
    body1, body2 : SpatialBody
        The joined bodies (either may be ground).
    frame1, frame2 : Frame or array_like, shape (3,), optional
        The joint frame on each body, in that body's coordinates: a :class:`~mechsolve.Frame`,
        or a point (a frame at that point with the body's own orientation). Default: the
        body's origin.
    components : sequence of str
        Which of ``"x", "y", "z", "rx", "ry", "rz"`` to constrain (1 to 6, no repeats).
    axis : array_like, shape (3,), optional
        Shorthand for point placements: frame z axis, given in **each body's own coordinates**
        (the same three numbers for both bodies). Not allowed with Frames.
    name : str, optional
        Name used in reports and messages.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> b = mech.add_body("b", position=(0, 0, 0.5))
    >>> hinge = mech.add(ms.joints.GenericJoint(mech.ground, b,
    ...                                         components=("x", "y", "rx", "ry", "z")))
    >>> type(hinge).__name__, hinge.equation_labels
    ('GenericJoint[x,y,z,rx,ry]', ('x', 'y', 'z', 'rx', 'ry'))
    >>> mech.dof().dof
    1
    >>> hinge.residual().round(12) + 0.0
    array([0. , 0. , 0.5, 0. , 0. ])
    """

    def __new__(cls, body1=None, body2=None, frame1=None, frame2=None, components=(), **kw):
        if cls is not GenericJoint:
            return object.__new__(cls)
        if isinstance(components, str) or not isinstance(components, (list, tuple)):
            raise TypeError("components must be a sequence such as ('x', 'y', 'rz'), got "
                            f"{components!r}")
        allowed = ("x", "y", "z", "rx", "ry", "rz")
        bad = [c for c in components if c not in allowed]
        if bad or not components or len(set(components)) != len(components):
            raise ValueError(f"components must be 1 to 6 distinct names from {allowed}, "
                             f"got {tuple(components)!r}")
        rows = tuple(c for c in allowed if c in components)
        sub = _GENERIC_CLASSES.get(rows)
        if sub is None:
            sub = type(f"GenericJoint[{','.join(rows)}]", (GenericJoint,),
                       {"_rows": rows, "n_equations": len(rows), "__doc__": cls.__doc__})
            _GENERIC_CLASSES[rows] = sub
        return object.__new__(sub)

    def __init__(self, body1, body2, frame1=None, frame2=None, components=(), *, axis=None,
                 name: str | None = None) -> None:
        self._place(body1, body2, frame1, frame2, axis, name)

    def __reduce_ex__(self, protocol):
        """Pickle by the components: the class of a set of components is made at run time and
        cannot be found by name, so it is made again when unpickled."""
        return (_unpickle_generic, (type(self)._rows, self.__dict__.copy()))


class SpatialDistance(_FrameJoint, variant_of=Distance):
    """Spatial rod: the frame origins stay ``length`` apart; ``Phi = (d.d - L^2) / (2L)``.

    What ``joints.Distance`` builds from the bodies of a spatial mechanism
    (``isinstance(rod, joints.Distance)`` holds; see :class:`~mechsolve.joints.Distance`).

    Parameters
    ----------
    body1, body2 : SpatialBody
    point1, point2 : array_like, shape (3,), or Frame, or str, optional
        The rod's ends in their bodies' coordinates (default: the origins).
    length : float
        Positive rod length.
    name : str, optional
    """

    _rows = ("length",)
    n_equations = 1
    layout = FRAME_LAYOUT + (("length", 1),)
    # No mirror: |d| = L from any direction is what a rod means (no rotation rows).
    _generic_kernels = True

    def __init__(self, body1, body2, point1=None, point2=None, length: float = 1.0, *,
                 name: str | None = None) -> None:
        L = as_float(length, "length", positive=True)
        self._place(body1, body2, point1, point2, None, name, extra=[L])

    def length_hint(self) -> float:
        return abs(float(self._p[self.sl.length]))

    def geometry(self) -> Geometry:
        """The rod between the two points and pins at its ends (a driven rod: its driver's
        arrow)."""
        ends = [(b, c) for b, c, _ in self._frames()]
        driven_rod = isinstance(self, DriverJoint)
        return Geometry(points=ends, pins=ends, rods=[Rod(*ends, driven=driven_rod)],
                        drive=Drive("length", ends=tuple(ends)) if driven_rod else None)

    @classmethod
    def at(cls, body1: Body, body2: Body, point1, point2, length: float | None = None, *,
           name: str | None = None):
        """A rod between the global points ``point1`` (on ``body1``) and ``point2`` (on
        ``body2``) of the current placement.

        What ``joints.Distance.at`` builds from spatial bodies (``DistanceDriver.at``: the
        driver, whose value is the length). ``length`` defaults to the points' current
        distance. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : SpatialBody
        point1, point2 : array_like, shape (3,)
            The rod's ends, in global coordinates.
        length : float, optional
            The rod's length (default: ``|point2 - point1|``).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism(dim=3)
        >>> b = mech.add_body("b", position=(0, 0, 1))
        >>> rod = ms.joints.Distance.at(mech.ground, b, (0, 0, 0), (2, 0, 1))
        >>> type(rod).__name__, round(rod.length_hint(), 12), rod.point2
        ('SpatialDistance', 2.236067977499, array([2., 0., 0.]))
        """
        _check_pair(cls, body1, body2)
        return _rod_at(cls, body1, body2, point1, point2, length, name, 3)

    @classmethod
    def _phi(cls, P, X1, X2):
        return cls._evaluate(P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        _, _, d, a1, a2 = _components((), P, X1, X2)
        xp = namespace(d)
        L = P[..., cls.sl.length]
        phi = ((xp.sum(d * d, axis=-1) - L * L) / (2 * L))[..., None]
        g = d / L[..., None]
        shape = phi.shape + (6,)
        J1 = _filled(xp, shape, [((..., 0, _POS), -g), ((..., 0, _ROT), cross(g, a1, xp))], d)
        J2 = _filled(xp, shape, [((..., 0, _POS), g), ((..., 0, _ROT), cross(a2, g, xp))], d)
        return phi, [J1, J2]

    @classmethod
    def _phi_p(cls, P, X1, X2):
        return distance_p(P, X1, X2, cls.sl.length)

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        # Phi' = d . d' / L, Phi'' = (d' . d' + d . d'') / L; d'' = (accelerations) + c.
        d, dd, c = _motion(P, X1, X2, V1, V2)
        return (-(_dot(dd, dd) + _dot(d, c)) / P[..., cls.sl.length])[..., None]


# -- drivers ---------------------------------------------------------------------------------
def _relative_angle(P, X1, X2):
    """Angle of x_2 about z_1 measured from x_1: ``atan2(y1.x2, x1.x2)``, and its gradient
    (``P`` with the frame layout :data:`~mechsolve.joints._phi_p.FRAMES` first)."""
    xp = namespace(X1, X2, P)
    A1 = _axes(X1, P[..., FRAMES.frame1], xp)
    A2 = _axes(X2, P[..., FRAMES.frame2], xp)
    x1, y1, x2 = A1[..., :, 0], A1[..., :, 1], A2[..., :, 0]
    s = xp.sum(y1 * x2, axis=-1)
    c = xp.sum(x1 * x2, axis=-1)
    theta = xp.arctan2(s, c)
    r2 = (s * s + c * c)[..., None]
    # d(theta) = (c ds - s dc) / (s^2 + c^2); ds, dc from d(u . v) on dphi1 / dphi2.
    g1 = (c[..., None] * cross(y1, x2, xp) - s[..., None] * cross(x1, x2, xp)) / r2
    return theta, g1


def _angle_gamma(P, X1, X2, V1, V2):
    """``gamma`` of the relative angle ``theta = atan2(s, c)`` (``s = y1.x2``, ``c = x1.x2``).

    ``theta' = (c s' - s c') / r2`` with ``r2 = s^2 + c^2``, so
    ``theta'' = (c s'' - s c'') / r2 - 2 (c s' - s c') (s s' + c c') / r2^2``; ``gamma`` is
    minus its velocity-only part (``s''`` and ``c''`` through :func:`_quadratic`). Shape ``(...)``.
    """
    A1 = _axes(X1, P[..., FRAMES.frame1])
    A2 = _axes(X2, P[..., FRAMES.frame2])
    x1, y1, x2 = A1[..., :, 0], A1[..., :, 1], A2[..., :, 0]
    w1 = V1[..., 3:]
    w2 = V2[..., 3:]
    s = _dot(y1, x2)
    c = _dot(x1, x2)
    wx2 = cross(w2, x2)
    sd = _dot(cross(w1, y1), x2) + _dot(y1, wx2)
    cd = _dot(cross(w1, x1), x2) + _dot(x1, wx2)
    r2 = s * s + c * c
    quad = (c * _quadratic(y1, x2, w1, w2) - s * _quadratic(x1, x2, w1, w2)) / r2
    return 2 * (c * sd - s * cd) * (s * sd + c * cd) / (r2 * r2) - quad


class SpatialDriver(DriverJoint, variant_of=Driver):
    """Fix one global coordinate of a spatial body's origin: ``x``, ``y`` or ``z``.

    ``Phi = r_c - value``. What ``joints.Driver`` builds for a body of a spatial mechanism
    (``isinstance(driver, joints.Driver)`` holds; see :class:`~mechsolve.joints.Driver`).

    Parameters
    ----------
    body : SpatialBody
        A moving body.
    coordinate : {"x", "y", "z"}
    value : float
        The coordinate's value (a length), settable between solves.
    name : str, optional
    """

    dims = (3,)
    n_equations = 1
    layout = (("weights", 3), ("value", 1))
    design_parameters = ("value",)   # the weights select the coordinate
    # No mirror: linear in the position.
    _generic_kernels = True

    def __init__(self, body, coordinate: str, value: float = 0.0, *, name=None) -> None:
        coords = ("x", "y", "z")
        if not isinstance(coordinate, str) or coordinate not in coords:
            raise ValueError(f"coordinate of a spatial body must be one of {coords}, got "
                             f"{coordinate!r}")
        if isinstance(body, Body) and body.is_ground:
            raise ValueError("Driver: body must be a moving body, got ground")
        weights = np.zeros(3)
        weights[coords.index(coordinate)] = 1.0
        self.coordinate = coordinate
        DriverJoint.__init__(self, (body,), np.concatenate([weights, [self._take_value(value)]]),
                             name=name)

    @property
    def equation_labels(self):
        return (self.coordinate,)

    def geometry(self) -> Geometry:
        """A double arrow at the body's origin along the driven global axis."""
        at = (self._bodies[0], np.zeros(3))
        along = self._p[self.sl.weights].copy()
        return Geometry(anchor=[at], drive=Drive("coordinate", at=at, along=along))

    @classmethod
    def _phi(cls, P, X):
        sl = cls.sl
        w = sl.weights.start   # the weights of x, y, z (no view made)
        return (X[..., 0] * P[..., w] + X[..., 1] * P[..., w + 1] + X[..., 2] * P[..., w + 2]
                - P[..., sl.value])[..., None]

    @classmethod
    def _evaluate(cls, P, X):
        phi = cls._phi(P, X)
        return phi, [_filled(namespace(X, P), phi.shape + (6,),
                             [((..., 0, _POS), P[..., cls.sl.weights])], phi)]

    # Phi = n . r - value in the position's components: the planar driver's closed form
    _phi_p = Driver.__dict__["_phi_p"]

    @classmethod
    def _gamma(cls, P, X, V):
        return np.zeros(cls._phi(P, X).shape)  # linear in the position


def _drive_frame_joint(driver, joint, kinds, kind: str, allowed: str, value, name) -> None:
    """Constructor of a driver of a frame joint's free motion: the joint's frames, then the
    value (``driver.joint`` is the driven joint)."""
    if not isinstance(joint, kinds):
        raise TypeError(f"{kind}: joint must be {allowed}, got {type(joint).__name__}")
    DriverJoint.__init__(driver, joint.bodies,
                         np.concatenate([_frame_parameters(joint), [driver._take_value(value)]]),
                         name=name)
    driver.joint = joint


class SpatialAngleDriver(DriverJoint, variant_of=AngleDriver):
    """Drive a spatial revolute's (or cylindrical's) relative angle.

    The angle of frame 2's x axis about frame 1's z axis; ``Phi = wrap(theta - value)`` to
    ``(-pi, pi]``, so the value is continuous through ``+-pi`` and may take any real value.
    What ``joints.AngleDriver`` builds for a spatial joint (``isinstance(driver,
    joints.AngleDriver)`` holds; see :class:`~mechsolve.joints.AngleDriver`).

    Parameters
    ----------
    joint : SpatialRevolute or Cylindrical
    value : float
        The angle in radians.
    name : str, optional
    """

    design_parameters = ("value",)   # the rest copies the revolute's frames
    n_equations = 1
    equation_labels = ("angle",)
    is_angle = True
    dims = (3,)
    layout = FRAME_LAYOUT + (("value", 1),)
    # No mirror: wrap(atan2(y_1 . x_2, x_1 . x_2) - value) vanishes only at the angle itself
    # (atan2 tells x_2 from -x_2); a mirrored revolute is reported by the revolute.
    _generic_kernels = True

    def __init__(self, joint, value: float = 0.0, *, name=None) -> None:
        _drive_frame_joint(self, joint, (SpatialRevolute, Cylindrical), "AngleDriver",
                           "a Revolute or Cylindrical", value, name)

    def geometry(self) -> Geometry:
        """An arc about the joint's hinge."""
        return driven(self.joint)

    def measure(self) -> float:
        th = float(_relative_angle(self._p[None], *[b.pose[None] for b in self._bodies])[0][0])
        return self.value + float(np.remainder(th - self.value + np.pi, 2 * np.pi) - np.pi)

    @classmethod
    def _phi(cls, P, X1, X2):
        theta, _ = _relative_angle(P, X1, X2)
        xp = namespace(theta)
        return (xp.remainder(theta - P[..., cls.sl.value] + np.pi, 2 * np.pi) - np.pi)[..., None]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        theta, g1 = _relative_angle(P, X1, X2)
        xp = namespace(theta)
        phi = (xp.remainder(theta - P[..., cls.sl.value] + np.pi, 2 * np.pi) - np.pi)[..., None]
        shape = phi.shape + (6,)
        return phi, [_filled(xp, shape, [((..., 0, _ROT), g1)], phi),
                     _filled(xp, shape, [((..., 0, _ROT), -g1)], phi)]

    @classmethod
    def _phi_p(cls, P, X1, X2):
        # the wrap is locally the identity: d theta in the frames, -1 in the value
        d = relative_angle_p(P, X1, X2)
        out = np.zeros(d.shape[:-1] + (1, P.shape[-1]))
        out[..., 0, :len(FRAMES)] = d
        out[..., 0, cls.sl.value] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _angle_gamma(P, X1, X2, V1, V2)[..., None]


class SpatialSlideDriver(DriverJoint, variant_of=SlideDriver):
    """Drive a spatial prismatic's (or cylindrical's) slide along frame 1's z axis.

    ``Phi = z_1 . d - value`` with ``d`` the offset of frame 2's origin from frame 1's.

    What ``joints.SlideDriver`` builds for a spatial joint (``isinstance(driver,
    joints.SlideDriver)`` holds; see :class:`~mechsolve.joints.SlideDriver`).

    Parameters
    ----------
    joint : SpatialPrismatic or Cylindrical
    value : float
        The signed slide (a length).
    name : str, optional
    """

    design_parameters = ("value",)   # the rest copies the prismatic's frames
    n_equations = 1
    equation_labels = ("slide",)
    dims = (3,)
    layout = FRAME_LAYOUT + (("value", 1),)
    # No mirror: z_1 . d - value is a signed length along z_1 (no rotation row).
    _generic_kernels = True

    def __init__(self, joint, value: float = 0.0, *, name=None) -> None:
        _drive_frame_joint(self, joint, (SpatialPrismatic, Cylindrical), "SlideDriver",
                           "a Prismatic or Cylindrical", value, name)

    def geometry(self) -> Geometry:
        """A double arrow along the joint's rail, beside its slider."""
        return driven(self.joint, "slide")

    @classmethod
    def _phi(cls, P, X1, X2):
        return cls._evaluate(P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        phi, blocks, *_ = _components(("z",), P, X1, X2)
        return phi - P[..., cls.sl.value, None], blocks

    @classmethod
    def _phi_p(cls, P, X1, X2):
        out = components_p(("z",), P, X1, X2)
        out[..., 0, cls.sl.value] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _components_gamma(("z",), P, X1, X2, V1, V2)


class SpatialDistanceDriver(_DrivenLength, SpatialDistance, DriverJoint,
                            variant_of=DistanceDriver):
    """A spatial distance whose length is a driven value (a linear actuator, a Stewart leg).

    What ``joints.DistanceDriver`` builds from the bodies of a spatial mechanism
    (``isinstance(leg, joints.DistanceDriver)`` holds; see
    :class:`~mechsolve.joints.DistanceDriver`).

    Parameters
    ----------
    body1, body2 : SpatialBody
    point1, point2 : array_like, shape (3,), or Frame, or str, optional
        The ends in their bodies' coordinates (default: the origins).
    value : float
        The distance (positive).
    name : str, optional
    """

    # No mirror: a distance, as SpatialDistance.

    def __init__(self, body1, body2, point1=None, point2=None, value: float = 1.0, *,
                 name=None) -> None:
        SpatialDistance.__init__(self, body1, body2, point1, point2,
                                 length=self._take_value(value, positive=True), name=name)


def _wrap(a):
    return np.remainder(a + np.pi, 2 * np.pi) - np.pi


class AngleCoupler(Joint):
    """Gear/coupler between the angles of two spatial revolutes: ``theta2 = ratio theta1 + c``.

    The spatial counterpart of the planar :class:`~mechsolve.joints.Gear` (which only joins
    planar bodies). The joint carries the two angles as coordinates of its own,
    ``S = (s1, s2)``, so they are continuous over any number of turns; its three equations tie
    them to the revolutes' measured relative angles (compared modulo ``2 pi``) and to each
    other::

        Phi = (wrap(theta1 - s1), wrap(theta2 - s2), s2 - ratio s1 - offset)

    where ``theta = atan2(y_1 . x_2, x_1 . x_2)`` is the angle of frame 2's x axis about frame
    1's z axis, as :class:`~mechsolve.joints.AngleDriver` measures it.

    Parameters
    ----------
    revolute1, revolute2 : Revolute or Cylindrical
        Spatial revolute (or cylindrical) joints whose angles are coupled.
    ratio : float
        ``d theta2 / d theta1`` (negative for an external gear mesh).
    offset : float, optional
        The constant ``c``; by default the one that makes the current pose mesh.
    name : str, optional
        Name used in reports and messages.

    Notes
    -----
    The two revolutes may share their first body (a gear pair on one carrier); otherwise they
    must not share a moving body.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> a = mech.add_body("a")
    >>> b = mech.add_body("b", position=(3, 0, 0))
    >>> ra = mech.add(ms.joints.Revolute(mech.ground, a, axis=(0, 0, 1)))
    >>> rb = mech.add(ms.joints.Revolute(mech.ground, b, (3, 0, 0), (0, 0, 0), axis=(0, 0, 1)))
    >>> mesh = mech.add(ms.joints.AngleCoupler(ra, rb, ratio=-2.0, name="mesh"))
    >>> mech.dof().dof
    1
    >>> motor = mech.add(ms.joints.AngleDriver(ra, 0.25))
    >>> mech.solve().success
    True
    >>> round(rb.angle(), 9)
    -0.5
    """

    design_parameters = ("ratio", "offset")   # the rest copies the revolutes' frames
    n_equations = 3
    layout = (("revolute1", 14), ("revolute2", 14), ("ratio", 1), ("offset", 1))
    n_coordinates = 2

    @property
    def _coordinate_angles(self) -> np.ndarray:
        return np.ones(2, dtype=bool)   # the two revolutes' angles
    dims = (3,)
    equation_labels = ("angle1", "angle2", "mesh")
    # No mirror: the angle rows wrap(atan2(y_1 . x_2, x_1 . x_2) - s) vanish only at s (mod
    # 2 pi; atan2 is not fooled by x_2 = -x_1) and the mesh row is linear. The revolutes
    # themselves report a mirrored assembly (_SharedCarrierCoupler: the same rows).

    def __new__(cls, revolute1=None, revolute2=None, *args, **kwargs):
        if cls is AngleCoupler and isinstance(revolute1, Joint) and \
                isinstance(revolute2, Joint) and revolute1.bodies[0] is revolute2.bodies[0] \
                and not revolute1.bodies[0].is_ground:
            return object.__new__(_SharedCarrierCoupler)
        return object.__new__(cls)

    def __init__(self, revolute1, revolute2, ratio: float, offset: float | None = None, *,
                 name: str | None = None) -> None:
        for i, r in enumerate((revolute1, revolute2)):
            if not isinstance(r, (SpatialRevolute, Cylindrical)):
                raise TypeError(f"AngleCoupler: revolute{i + 1} must be a spatial Revolute or "
                                f"Cylindrical, got {type(r).__name__}")
        ratio = as_float(ratio, "ratio")
        a1 = revolute1.angle() if isinstance(revolute1, SpatialRevolute) else \
            float(_relative_angle(revolute1._p[None], *[b.pose[None] for b in
                                                       revolute1.bodies])[0][0])
        a2 = revolute2.angle() if isinstance(revolute2, SpatialRevolute) else \
            float(_relative_angle(revolute2._p[None], *[b.pose[None] for b in
                                                       revolute2.bodies])[0][0])
        off = a2 - ratio * a1 if offset is None else as_float(offset, "offset")
        self._coord_init = np.array([a1, a2])
        self.revolutes = (revolute1, revolute2)
        params = np.concatenate([_frame_parameters(revolute1), _frame_parameters(revolute2),
                                 [ratio, off]])
        super().__init__(self._slots(revolute1, revolute2), params, name=name)

    @staticmethod
    def _slots(r1, r2):
        return (*r1.bodies, *r2.bodies)

    def geometry(self) -> Geometry:
        """Marked where its two revolutes are."""
        return Geometry(anchor=[p for r in self.revolutes for p in r.anchor()])

    @property
    def ratio(self) -> float:
        return float(self._p[self.sl.ratio])

    @classmethod
    def _split(cls, X):
        return X  # (in1, out1, in2, out2)

    @classmethod
    def _phi(cls, P, *XS):
        return cls._evaluate(P, *XS)[0]

    @classmethod
    def _evaluate(cls, P, *XS):
        *X, S = XS
        i1, o1, i2, o2 = cls._split(X)
        sl = cls.sl
        th1, g1 = _relative_angle(P[..., sl.revolute1], i1, o1)
        th2, g2 = _relative_angle(P[..., sl.revolute2], i2, o2)
        shape = th1.shape
        phi = np.stack([_wrap(th1 - S[..., 0]), _wrap(th2 - S[..., 1]),
                        S[..., 1] - P[..., sl.ratio] * S[..., 0] - P[..., sl.offset]], axis=-1)
        Ji1 = np.zeros(shape + (3, 6))
        Jo1 = np.zeros(shape + (3, 6))
        Ji2 = np.zeros(shape + (3, 6))
        Jo2 = np.zeros(shape + (3, 6))
        Ji1[..., 0, 3:] = g1
        Jo1[..., 0, 3:] = -g1
        Ji2[..., 1, 3:] = g2
        Jo2[..., 1, 3:] = -g2
        JS = np.zeros(shape + (3, 2))
        JS[..., 0, 0] = -1.0
        JS[..., 1, 1] = -1.0
        JS[..., 2, 0] = -P[..., sl.ratio]
        JS[..., 2, 1] = 1.0
        return phi, cls._merge([Ji1, Jo1, Ji2, Jo2]) + [JS]

    @classmethod
    def _phi_p(cls, P, *XS):
        # the angle rows in their revolute's frames; the mesh row s2 - ratio s1 - offset
        *X, S = XS
        i1, o1, i2, o2 = cls._split(X)
        sl = cls.sl
        d1 = relative_angle_p(P[..., sl.revolute1], i1, o1)
        d2 = relative_angle_p(P[..., sl.revolute2], i2, o2)
        shape = np.broadcast_shapes(d1.shape[:-1], d2.shape[:-1], S.shape[:-1])
        out = np.zeros(shape + (3, P.shape[-1]))
        out[..., 0, sl.revolute1] = d1
        out[..., 1, sl.revolute2] = d2
        out[..., 2, sl.ratio] = -S[..., 0]
        out[..., 2, sl.offset] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, *XV):
        # XV = (body poses..., S, body velocities..., S'); the mesh row and the S terms are
        # linear, the two angle rows are those of the angle driver.
        n = len(XV) // 2
        i1, o1, i2, o2 = cls._split(XV[:n - 1])
        vi1, vo1, vi2, vo2 = cls._split(XV[n:2 * n - 1])
        g1 = _angle_gamma(P[..., cls.sl.revolute1], i1, o1, vi1, vo1)
        g2 = _angle_gamma(P[..., cls.sl.revolute2], i2, o2, vi2, vo2)
        g1, g2 = np.broadcast_arrays(g1, g2)
        return np.stack([g1, g2, np.zeros(g1.shape)], axis=-1)

    @classmethod
    def _merge(cls, blocks):
        return blocks


class _SharedCarrierCoupler(AngleCoupler):
    """AngleCoupler of two revolutes on one moving carrier: slots (carrier, out1, out2)."""

    @staticmethod
    def _slots(r1, r2):
        return (r1.bodies[0], r1.bodies[1], r2.bodies[1])

    @classmethod
    def _split(cls, X):
        carrier, o1, o2 = X
        return carrier, o1, carrier, o2

    @classmethod
    def _merge(cls, blocks):
        Ji1, Jo1, Ji2, Jo2 = blocks
        return [Ji1 + Ji2, Jo1, Jo2]
