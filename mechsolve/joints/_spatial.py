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
"""

from __future__ import annotations

import numpy as np

from .._validation import as_direction, as_float, as_vector
from ..body import Body, SpatialBody
from ..spatial._quat import cross, quat_multiply, quat_rotate, quat_to_matrix
from ._drivers import AngleDriver, DistanceDriver, Driver, SlideDriver
from ._planar import Distance, Fixed, PointOnLine, Prismatic, Revolute
from .base import DriverJoint, Joint

__all__ = [
    "Spherical", "Cylindrical", "Universal", "Planar", "PointOnPlane", "ParallelAxes",
    "PerpendicularAxes", "GenericJoint", "SpatialRevolute", "SpatialPrismatic", "SpatialFixed",
    "SpatialDistance", "SpatialPointOnLine", "SpatialDriver", "SpatialAngleDriver",
    "SpatialSlideDriver", "SpatialDistanceDriver", "AngleCoupler",
]

_COMPONENTS = ("gx", "gy", "gz", "x", "y", "z", "rx", "ry", "rz", "perp")


def placement(value, name: str, axis=None):
    """``(point, quaternion)`` of a joint frame given as a Frame, or a point (+ axis).

    A point alone gives a frame at that point with the body's orientation; with ``axis`` the
    frame's z axis is turned onto that direction by the smallest rotation.
    """
    from ..spatial import Frame, Orientation

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
    raise TypeError(f"{name} must be a mechsolve Frame or a point (3 numbers), got "
                    f"{type(value).__name__}")


def _axes(X, F):
    """Global axes (columns) of the joint frames: ``R(q) R(f)``, shape ``(..., 3, 3)``."""
    return quat_to_matrix(quat_multiply(X[..., 3:], F))


def _components(rows, P, X1, X2):
    """Values and Jacobian blocks of the listed components for stacked frame joints."""
    a1 = quat_rotate(X1[..., 3:], P[..., 0:3])
    a2 = quat_rotate(X2[..., 3:], P[..., 7:10])
    d = X2[..., :3] + a2 - X1[..., :3] - a1
    shape = d.shape[:-1]
    m = len(rows)
    phi = np.empty(shape + (m,))
    J1 = np.zeros(shape + (m, 6))
    J2 = np.zeros(shape + (m, 6))
    need_axes = any(r not in ("gx", "gy", "gz") for r in rows)
    if need_axes:
        A1 = _axes(X1, P[..., 3:7])
        A2 = _axes(X2, P[..., 10:14])
    for i, r in enumerate(rows):
        if r[0] == "g":  # origins coincide: o1 - o2
            c = "xyz".index(r[1])
            phi[..., i] = -d[..., c]
            J1[..., i, c] = 1.0
            J2[..., i, c] = -1.0
            e = np.zeros(3)
            e[c] = 1.0
            # d(o1)_c / dphi1 = (a1 x e_c) ; d(o2)_c / dphi2 = (a2 x e_c)
            J1[..., i, 3:] = cross(a1, e)
            J2[..., i, 3:] = -cross(a2, e)
        elif r in ("x", "y", "z"):
            u = A1[..., :, "xyz".index(r)]
            phi[..., i] = np.sum(u * d, axis=-1)
            J1[..., i, :3] = -u
            J1[..., i, 3:] = cross(u, d + a1)
            J2[..., i, :3] = u
            J2[..., i, 3:] = cross(a2, u)
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
            phi[..., i] = sign * np.sum(u * v, axis=-1)
            w = sign * cross(u, v)
            J1[..., i, 3:] = w
            J2[..., i, 3:] = -w
    return phi, [J1, J2], d, a1, a2


class _FrameJoint(Joint):
    """A spatial joint defined by a tuple of components between two joint frames."""

    dims = (3,)
    _rows: tuple[str, ...] = ()

    def __init__(self, body1: Body, body2: Body, frame1=None, frame2=None, *, axis=None,
                 name: str | None = None, extra=()) -> None:
        _require_spatial(self, body1, body2)
        if frame1 is None:
            frame1 = np.zeros(3)
        if frame2 is None:
            frame2 = np.zeros(3)
        p1, f1 = placement(frame1, "frame1", axis)
        p2, f2 = placement(frame2, "frame2", axis)
        # Joint.__init__ directly: the planar twin (e.g. Revolute) follows in the MRO.
        Joint.__init__(self, (body1, body2), np.concatenate([p1, f1, p2, f2, extra]), name=name)

    # The planar twin's closed-form gamma does not apply: use the base class's.
    _gamma = classmethod(Joint._gamma.__func__)

    @property
    def equation_labels(self):
        return self._rows

    @property
    def point1(self) -> np.ndarray:
        """Origin of the joint frame on body 1, body coordinates."""
        return self._p[0:3].copy()

    @property
    def point2(self) -> np.ndarray:
        """Origin of the joint frame on body 2, body coordinates."""
        return self._p[7:10].copy()

    @classmethod
    def _phi(cls, P, X1, X2):
        return _components(cls._rows, P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        phi, blocks, *_ = _components(cls._rows, P, X1, X2)
        return phi, blocks


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


class SpatialRevolute(_FrameJoint, Revolute):
    """Spatial revolute: origins coincide and the z axes stay parallel (5 equations)."""

    _rows = ("gx", "gy", "gz", "rx", "ry")
    n_equations = 5

    def angle(self) -> float:
        """Current relative angle of frame 2's x axis about frame 1's z axis (radians)."""
        P = self._p[None]
        X = [b.pose[None] for b in self._bodies]
        return float(_relative_angle(P, *X)[0][0])


class SpatialPrismatic(_FrameJoint, Prismatic):
    """Spatial prismatic: frame 2's origin on frame 1's z axis, orientation locked (5)."""

    _rows = ("x", "y", "rx", "ry", "rz")
    n_equations = 5


class Cylindrical(_FrameJoint):
    """Cylindrical joint: frame 2's origin on frame 1's z axis, z axes parallel (4 equations).

    Rotation about and sliding along the common axis are free.
    """

    _rows = ("x", "y", "rx", "ry")
    n_equations = 4


class Universal(_FrameJoint):
    """Universal (Hooke) joint: origins coincide and the two z axes stay perpendicular (4).

    The cross's two pins are the z axis of ``frame1`` (on body 1) and the z axis of ``frame2``
    (on body 2); place them perpendicular when assembling.
    """

    _rows = ("gx", "gy", "gz", "perp")
    n_equations = 4


class Planar(_FrameJoint):
    """Planar joint: frame 2's origin in frame 1's xy plane, z axes parallel (3 equations)."""

    _rows = ("z", "rx", "ry")
    n_equations = 3


class SpatialFixed(_FrameJoint, Fixed):
    """Spatial weld: the two joint frames coincide (6 equations)."""

    _rows = ("gx", "gy", "gz", "rx", "ry", "rz")
    n_equations = 6


class SpatialPointOnLine(_FrameJoint, PointOnLine):
    """Frame 2's origin stays on frame 1's z axis (2 equations)."""

    _rows = ("x", "y")
    n_equations = 2


class PointOnPlane(_FrameJoint):
    """Frame 2's origin stays in frame 1's xy plane (1 equation)."""

    _rows = ("z",)
    n_equations = 1


class ParallelAxes(_FrameJoint):
    """The z axes of the two frames stay parallel (2 equations)."""

    _rows = ("rx", "ry")
    n_equations = 2


class PerpendicularAxes(_FrameJoint):
    """The z axes of the two frames stay perpendicular (1 equation)."""

    _rows = ("perp",)
    n_equations = 1


_GENERIC_CLASSES: dict = {}


class GenericJoint(_FrameJoint):
    """Constrain a chosen subset of the six relative components of two frames.

    The components are frame 2's origin in frame 1 (``"x"``, ``"y"``, ``"z"``) and the small
    relative rotation about frame 1's axes (``"rx" = -y1 . z2``, ``"ry" = x1 . z2``,
    ``"rz" = y1 . x2``), so a loop can be closed with 1 to 5 equations (6 is a weld).

    Parameters
    ----------
    body1, body2 : SpatialBody
    frame1, frame2 : Frame or array_like (3,)
    components : sequence of str
        Which of ``"x", "y", "z", "rx", "ry", "rz"`` to constrain (1 to 6, no repeats).
    name : str, optional
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

    def __init__(self, body1, body2, frame1=None, frame2=None, components=(), *,
                 name: str | None = None) -> None:
        _FrameJoint.__init__(self, body1, body2, frame1, frame2, name=name)


class SpatialDistance(_FrameJoint, Distance):
    """Spatial rod: the frame origins stay ``length`` apart; ``Phi = (d.d - L^2) / (2L)``."""

    _rows = ("length",)
    n_equations = 1
    _L = 14

    def __init__(self, body1, body2, point1=None, point2=None, length: float = 1.0, *,
                 name: str | None = None) -> None:
        L = as_float(length, "length", positive=True)
        _FrameJoint.__init__(self, body1, body2, point1, point2, name=name, extra=[L])

    @classmethod
    def _phi(cls, P, X1, X2):
        return cls._evaluate(P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        _, _, d, a1, a2 = _components((), P, X1, X2)
        L = P[..., 14]
        phi = ((np.sum(d * d, axis=-1) - L * L) / (2 * L))[..., None]
        g = d / L[..., None]
        shape = phi.shape
        J1 = np.empty(shape + (6,))
        J2 = np.empty(shape + (6,))
        J1[..., 0, :3] = -g
        J1[..., 0, 3:] = cross(g, a1)
        J2[..., 0, :3] = g
        J2[..., 0, 3:] = cross(a2, g)
        return phi, [J1, J2]


# -- drivers ---------------------------------------------------------------------------------
def _relative_angle(P, X1, X2):
    """Angle of x_2 about z_1 measured from x_1: ``atan2(y1.x2, x1.x2)``, and its gradient."""
    A1 = _axes(X1, P[..., 3:7])
    A2 = _axes(X2, P[..., 10:14])
    x1, y1, x2 = A1[..., :, 0], A1[..., :, 1], A2[..., :, 0]
    s = np.sum(y1 * x2, axis=-1)
    c = np.sum(x1 * x2, axis=-1)
    theta = np.arctan2(s, c)
    r2 = (s * s + c * c)[..., None]
    # d(theta) = (c ds - s dc) / (s^2 + c^2); ds, dc from d(u . v) on dphi1 / dphi2.
    g1 = (c[..., None] * cross(y1, x2) - s[..., None] * cross(x1, x2)) / r2
    return theta, g1


class SpatialDriver(Driver):
    """Fix one global coordinate of a spatial body's origin: ``x``, ``y`` or ``z``."""

    dims = (3,)
    _value_index = 3

    def __init__(self, body, coordinate: str, value: float = 0.0, *, name=None) -> None:
        coords = ("x", "y", "z")
        if not isinstance(coordinate, str) or coordinate not in coords:
            raise ValueError(f"coordinate of a spatial body must be one of {coords}, got "
                             f"{coordinate!r}")
        if isinstance(body, Body) and body.is_ground:
            raise ValueError("Driver: body must be a moving body, got ground")
        weights = np.zeros(3)
        weights[coords.index(coordinate)] = 1.0
        DriverJoint.__init__(self, (body,), np.concatenate([weights, [self._take_value(value)]]),
                             name=name)
        self.coordinate = coordinate

    @classmethod
    def _phi(cls, P, X):
        return (X[..., 0] * P[..., 0] + X[..., 1] * P[..., 1] + X[..., 2] * P[..., 2]
                - P[..., 3])[..., None]

    @classmethod
    def _evaluate(cls, P, X):
        phi = cls._phi(P, X)
        J = np.zeros(phi.shape + (6,))
        J[..., 0, :3] = P[..., :3]
        return phi, [J]

    @classmethod
    def _gamma(cls, P, X, V):
        return np.zeros(cls._phi(P, X).shape)  # linear in the position


class SpatialAngleDriver(AngleDriver):
    """Drive a spatial revolute's (or cylindrical's) relative angle.

    The angle of frame 2's x axis about frame 1's z axis; ``Phi = wrap(theta - value)`` to
    ``(-pi, pi]``, so the value is continuous through ``+-pi`` and may take any real value.
    """

    dims = (3,)
    _value_index = 14
    _gamma = classmethod(Joint._gamma.__func__)

    def __init__(self, joint, value: float = 0.0, *, name=None) -> None:
        if not isinstance(joint, (SpatialRevolute, Cylindrical)):
            raise TypeError("AngleDriver: joint must be a Revolute or Cylindrical, got "
                            f"{type(joint).__name__}")
        DriverJoint.__init__(self, joint.bodies,
                             np.concatenate([joint._p[:14], [self._take_value(value)]]),
                             name=name)
        self.joint = joint

    def measure(self) -> float:
        th = float(_relative_angle(self._p[None], *[b.pose[None] for b in self._bodies])[0][0])
        return self.value + float(np.remainder(th - self.value + np.pi, 2 * np.pi) - np.pi)

    @classmethod
    def _phi(cls, P, X1, X2):
        theta, _ = _relative_angle(P, X1, X2)
        return (np.remainder(theta - P[..., 14] + np.pi, 2 * np.pi) - np.pi)[..., None]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        theta, g1 = _relative_angle(P, X1, X2)
        phi = (np.remainder(theta - P[..., 14] + np.pi, 2 * np.pi) - np.pi)[..., None]
        J1 = np.zeros(phi.shape + (6,))
        J2 = np.zeros(phi.shape + (6,))
        J1[..., 0, 3:] = g1
        J2[..., 0, 3:] = -g1
        return phi, [J1, J2]


class SpatialSlideDriver(SlideDriver):
    """Drive a spatial prismatic's (or cylindrical's) slide ``z_1 . d``."""

    dims = (3,)
    _value_index = 14

    def __init__(self, joint, value: float = 0.0, *, name=None) -> None:
        if not isinstance(joint, (SpatialPrismatic, Cylindrical)):
            raise TypeError("SlideDriver: joint must be a Prismatic or Cylindrical, got "
                            f"{type(joint).__name__}")
        DriverJoint.__init__(self, joint.bodies,
                             np.concatenate([joint._p[:14], [self._take_value(value)]]),
                             name=name)
        self.joint = joint

    @classmethod
    def _phi(cls, P, X1, X2):
        return cls._evaluate(P, X1, X2)[0]

    @classmethod
    def _evaluate(cls, P, X1, X2):
        phi, blocks, *_ = _components(("z",), P, X1, X2)
        return phi - P[..., 14:15], blocks


class SpatialDistanceDriver(SpatialDistance, DistanceDriver):
    """A spatial distance whose length is a driven value (a linear actuator, a Stewart leg)."""

    _value_index = 14

    def __init__(self, body1, body2, point1=None, point2=None, value: float = 1.0, *,
                 name=None) -> None:
        SpatialDistance.__init__(self, body1, body2, point1, point2,
                                 length=self._take_value(value, positive=True), name=name)


for _planar, _spatial in ((Revolute, SpatialRevolute), (Prismatic, SpatialPrismatic),
                          (Fixed, SpatialFixed), (Distance, SpatialDistance),
                          (PointOnLine, SpatialPointOnLine), (Driver, SpatialDriver),
                          (AngleDriver, SpatialAngleDriver), (SlideDriver, SpatialSlideDriver),
                          (DistanceDriver, SpatialDistanceDriver)):
    _planar._spatial_variant = _spatial


def _wrap(a):
    return np.remainder(a + np.pi, 2 * np.pi) - np.pi


class AngleCoupler(Joint):
    """Gear/coupler between the angles of two spatial revolutes: ``theta2 = ratio theta1 + c``.

    The joint carries the two angles as coordinates of its own, ``S = (s1, s2)``, so they are
    continuous over any number of turns; its three equations tie them to the revolutes' measured
    relative angles (compared modulo ``2 pi``) and to each other::

        Phi = (wrap(theta1 - s1), wrap(theta2 - s2), s2 - ratio s1 - offset)

    Parameters
    ----------
    revolute1, revolute2 : Revolute
        Spatial revolute (or cylindrical) joints; angles as measured by ``AngleDriver``.
    ratio : float
        ``d theta2 / d theta1`` (negative for an external gear mesh).
    offset : float, optional
        The constant ``c``; by default the one that makes the current pose mesh.
    name : str, optional

    Notes
    -----
    The two revolutes may share their first body (a gear pair on one carrier); otherwise they
    must not share a moving body.
    """

    n_equations = 3
    n_coordinates = 2
    dims = (3,)
    equation_labels = ("angle1", "angle2", "mesh")

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
        params = np.concatenate([revolute1._p[:14], revolute2._p[:14], [ratio, off]])
        super().__init__(self._slots(revolute1, revolute2), params, name=name)

    @staticmethod
    def _slots(r1, r2):
        return (*r1.bodies, *r2.bodies)

    @property
    def ratio(self) -> float:
        return float(self._p[28])

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
        th1, g1 = _relative_angle(P[..., 0:14], i1, o1)
        th2, g2 = _relative_angle(P[..., 14:28], i2, o2)
        shape = th1.shape
        phi = np.stack([_wrap(th1 - S[..., 0]), _wrap(th2 - S[..., 1]),
                        S[..., 1] - P[..., 28] * S[..., 0] - P[..., 29]], axis=-1)
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
        JS[..., 2, 0] = -P[..., 28]
        JS[..., 2, 1] = 1.0
        return phi, cls._merge([Ji1, Jo1, Ji2, Jo2]) + [JS]

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
