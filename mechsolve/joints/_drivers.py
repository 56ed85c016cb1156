"""Drivers: constraints ``f(q) - value = 0`` whose value is set between solves.

``Driver`` fixes one coordinate of one body (George & Guenter's DRIVER); ``AngleDriver`` the
relative angle of a revolute joint; ``SlideDriver`` the slide of a prismatic joint;
``DistanceDriver`` the distance between two body points. None has mirrored solutions: each is
linear in a coordinate, an angle or a slide, or is a distance.
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ._geometry import Drive, Geometry, driven
from ._planar import (
    Distance,
    Prismatic,
    Revolute,
    _projection_gamma,
    _projection_p,
    _projection_terms,
    _shape,
    pivot_of,
)
from ._terms import evaluate_arrays, phi_array
from .base import DriverJoint, dimension_dispatch

__all__ = ["Driver", "AngleDriver", "SlideDriver", "DistanceDriver", "CoordinateDriver"]

_COORDINATES = ("x", "y", "angle")


class Driver(DriverJoint):
    """Fix one coordinate of a body: ``Phi = q_c - value`` with ``c`` in ``x``, ``y``, ``angle``.

    Parameters
    ----------
    body : Body
        A moving body of the mechanism.
    coordinate : {"x", "y", "angle"}
        The driven coordinate.
    value : float
        Its value (radians for ``"angle"``); settable between solves through ``.value``.
    name : str, optional

    Notes
    -----
    ``joints.Driver`` builds the driver of its body's mechanism, with the same arguments: this
    class in a planar one, a :class:`~mechsolve.joints.SpatialDriver` (``coordinate`` one of
    ``"x"``, ``"y"``, ``"z"``: a global coordinate of the body's origin) in a spatial one::

        Driver(body, coordinate, value=0.0, *, name=None)

    ``isinstance(driver, joints.Driver)`` holds for both.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank")
    >>> motor = mech.add(ms.joints.Driver(crank, "angle", 0.25, name="motor"))
    >>> motor.value = 0.5
    >>> motor.residual()
    array([-0.5])
    """

    design_parameters = ("value",)   # the weights select the coordinate
    n_equations = 1
    layout = (("weights", 3), ("value", 1))
    # No mirror: linear in the coordinate.

    def __init__(self, body: Body, coordinate: str, value: float = 0.0, *,
                 name: str | None = None) -> None:
        if not isinstance(coordinate, str):
            raise TypeError(f"coordinate must be one of {_COORDINATES}, got {coordinate!r}")
        if coordinate not in _COORDINATES:
            raise ValueError(f"coordinate must be one of {_COORDINATES}, got {coordinate!r}")
        if isinstance(body, Body) and body.is_ground:
            raise ValueError("Driver: body must be a moving body, got ground")
        weights = np.zeros(3)
        weights[_COORDINATES.index(coordinate)] = 1.0
        v = self._take_value(value)
        self.coordinate = coordinate
        super().__init__((body,), np.concatenate([weights, [v]]), name=name)

    __new__ = dimension_dispatch("body", call=__init__)

    @property
    def is_angle(self) -> bool:
        return self.coordinate == "angle"

    def geometry(self) -> Geometry:
        """An arc about the body's pivot for an angle, else a double arrow at its origin."""
        body = self._bodies[0]
        if self.coordinate == "angle":
            joints = self._mechanism.joints if self._mechanism is not None else ()
            at = pivot_of(body, joints)
            return Geometry(anchor=[at], drive=Drive("angle", at=at))
        at = (body, np.zeros(2))
        along = np.array([1.0, 0.0]) if self.coordinate == "x" else np.array([0.0, 1.0])
        return Geometry(anchor=[at], drive=Drive("coordinate", at=at, along=along))

    def _turn_index(self):
        if self.dim != 2 or not np.array_equal(self._p[self.sl.weights], (0.0, 0.0, 1.0)):
            return None
        return self._mechanism.layout.angle_index(self.bodies[0]), 1.0

    @property
    def equation_labels(self):
        return (self.coordinate,)

    @classmethod
    def _terms(cls, xp, P, X, jacobian=True):
        sl = cls.sl
        w = sl.weights.start   # the weights of x, y, angle (no view made)
        wx, wy, wt = P[..., w], P[..., w + 1], P[..., w + 2]
        phi = (X[..., 0] * wx + X[..., 1] * wy + X[..., 2] * wt - P[..., sl.value],)
        return phi, (((wx, wy, wt),),) if jacobian else None

    @classmethod
    def _phi(cls, P, X):
        return phi_array(cls._terms(np, P, X, False)[0])

    @classmethod
    def _evaluate(cls, P, X):
        phi = cls._phi(P, X)
        J = np.empty(phi.shape + (3,))
        J[...] = P[..., None, cls.sl.weights]   # the weights row of _terms, in one copy
        return phi, [J]

    @classmethod
    def _phi_p(cls, P, X):
        shape = np.broadcast_shapes(P.shape[:-1], X.shape[:-1])
        out = np.empty(shape + (1, P.shape[-1]))
        out[..., 0, cls.sl.weights] = X[..., :3]
        out[..., 0, cls.sl.value] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X, V):
        return np.zeros(cls._phi(P, X).shape)  # linear in the coordinates


class AngleDriver(DriverJoint):
    """Drive the relative angle of a revolute joint: ``Phi = t2 - t1 - value``.

    The angle is not wrapped: sweeping ``value`` through ``2 pi`` turns the joint a full turn.

    Parameters
    ----------
    joint : Revolute
        The driven revolute (its two bodies are constrained).
    value : float
        Relative angle ``t2 - t1`` in radians.
    name : str, optional

    Notes
    -----
    ``joints.AngleDriver`` builds the driver of its joint's mechanism, with the same
    arguments: this class for a planar :class:`Revolute`, a
    :class:`~mechsolve.joints.SpatialAngleDriver` for a spatial revolute or cylindrical joint
    (the angle of frame 2's x axis about frame 1's z axis)::

        AngleDriver(joint, value=0.0, *, name=None)

    ``isinstance(driver, joints.AngleDriver)`` holds for both.
    """

    n_equations = 1
    layout = (("value", 1),)
    equation_labels = ("angle",)
    # No mirror: linear in the angles.

    is_angle = True

    def __init__(self, joint: Revolute, value: float = 0.0, *, name: str | None = None) -> None:
        if not isinstance(joint, Revolute):
            raise TypeError(f"AngleDriver: joint must be a Revolute, got {type(joint).__name__}")
        super().__init__(joint.bodies, [self._take_value(value)], name=name)
        self.joint = joint

    __new__ = dimension_dispatch("joint", call=__init__)

    def geometry(self) -> Geometry:
        """An arc about the revolute's first point."""
        out = driven(self.joint)
        out.drive = Drive("angle", at=out.anchor[0])
        return out

    def _turn_index(self):
        if self.dim != 2:
            return None
        b1, b2 = self.bodies
        layout = self._mechanism.layout
        return (layout.angle_index(b2), 1.0) if not b2.is_ground else \
            (layout.angle_index(b1), -1.0)

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        phi = (X2[..., 2] - X1[..., 2] - P[..., cls.sl.value],)
        return phi, (((0.0, 0.0, -1.0),), ((0.0, 0.0, 1.0),)) if jacobian else None

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
        return np.full(shape + (1, 1), -1.0)

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return np.zeros(cls._phi(P, X1, X2).shape)  # linear in the coordinates


class SlideDriver(DriverJoint):
    """Drive the slide of a prismatic joint: ``Phi = dot(u, d) - value``.

    ``u`` is the joint's axis in global coordinates and ``d`` the vector from the joint's point
    on ``body1`` to its point on ``body2`` (see :class:`Prismatic`).

    Parameters
    ----------
    joint : Prismatic
    value : float
        Signed slide along the axis (a length).
    name : str, optional

    Notes
    -----
    ``joints.SlideDriver`` builds the driver of its joint's mechanism, with the same
    arguments: this class for a planar :class:`Prismatic`, a
    :class:`~mechsolve.joints.SpatialSlideDriver` for a spatial prismatic or cylindrical joint
    (the slide ``z_1 . d``)::

        SlideDriver(joint, value=0.0, *, name=None)

    ``isinstance(driver, joints.SlideDriver)`` holds for both.
    """

    design_parameters = ("value",)   # the rest copies the prismatic's parameters
    n_equations = 1
    _trig_columns = True
    layout = (("point1", 2), ("point2", 2), ("axis", 2), ("value", 1))
    equation_labels = ("slide",)
    # No mirror: a signed slide along the axis (no rotation row).

    def __init__(self, joint: Prismatic, value: float = 0.0, *, name: str | None = None) -> None:
        if not isinstance(joint, Prismatic):
            raise TypeError(f"SlideDriver: joint must be a Prismatic, got {type(joint).__name__}")
        params = np.concatenate([joint._p[joint.sl.point1], joint._p[joint.sl.point2],
                                 joint._p[joint.sl.axis], [self._take_value(value)]])
        super().__init__(joint.bodies, params, name=name)
        self.joint = joint

    __new__ = dimension_dispatch("joint", call=__init__)

    def geometry(self) -> Geometry:
        """A double arrow along the prismatic's rail, beside its slider."""
        out = driven(self.joint)
        out.drive = Drive("slide", rail=self.joint.geometry().rails[0])
        return out

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        s, r1, r2 = _projection_terms(xp, cls.sl, P, X1, X2, normal=False)
        return (s - P[..., cls.sl.value],), ((r1,), (r2,)) if jacobian else None

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        out = np.empty(_shape(P, X1, X2) + (1, P.shape[-1]))
        _projection_p(cls.sl, P, X1, X2, False, out[..., 0, :])
        out[..., 0, cls.sl.value] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _projection_gamma(cls.sl, P, X1, X2, V1, V2, normal=False)[..., None]


class _DrivenLength:
    """Mixin of the drivers of a rod's length (planar and spatial): the value is a positive
    length, measured from the rod's residual."""

    def _check_value(self, value: float) -> float:
        if value <= 0.0:
            raise ValueError(f"DistanceDriver value must be a positive length, got {value}")
        return value

    def measure(self) -> float:
        """The current distance between the two points."""
        L = self.value
        phi = float(self.residual()[0])
        return float(np.sqrt(L * L + 2 * L * phi))


class DistanceDriver(_DrivenLength, Distance, DriverJoint):
    """A :class:`Distance` whose length is a driven value (a linear actuator).

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like, shape (2,), or str
        The ends in local coordinates, or names of points of the bodies.
    value : float
        The distance (positive).
    name : str, optional

    Notes
    -----
    ``joints.DistanceDriver`` builds the driver of its bodies' mechanism:

    * planar, this class::

        DistanceDriver(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), value=1.0, *,
                       name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialDistanceDriver` (a spatial rod whose length
      is driven)::

        DistanceDriver(body1, body2, point1=None, point2=None, value=1.0, *, name=None)

    ``isinstance(driver, joints.DistanceDriver)`` holds for both.
    """

    # No mirror: a distance, as Distance.
    _trig_columns = True    # Distance's kernels
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0),
                 value: float = 1.0, *, name: str | None = None) -> None:
        length = self._take_value(value, positive=True)
        super().__init__(body1, body2, point1, point2, length=length, name=name)


class CoordinateDriver(DriverJoint):
    """Drive a joint's own coordinate (a track's arc length, a link's joint value).

    ``Phi = s - value`` with ``s`` coordinate ``index`` of ``joint``.

    Parameters
    ----------
    joint : Joint
        A joint with coordinates of its own (``joint.n_coordinates > 0``).
    value : float or Profile
    index : int
        Which of the joint's coordinates (default 0).
    name : str, optional
    """

    n_equations = 1
    layout = (("value", 1),)
    equation_labels = ("coordinate",)
    dims = (2, 3)
    _coordinate_slot = True
    # No mirror: linear in the coordinate.

    def __init__(self, joint, value: float = 0.0, index: int = 0, *, name=None) -> None:
        from .base import Joint

        if not isinstance(joint, Joint) or joint.n_coordinates == 0:
            raise TypeError("CoordinateDriver: joint must be a joint with coordinates of its "
                            f"own, got {type(joint).__name__}")
        if not isinstance(index, (int, np.integer)) or not 0 <= index < joint.n_coordinates:
            raise ValueError(f"index must be an integer in [0, {joint.n_coordinates}), got "
                             f"{index!r}")
        self.joint = joint
        self.index = int(index)
        super().__init__((), [self._take_value(value)], name=name)

    @property
    def is_angle(self) -> bool:
        return bool(self.joint._coordinate_angles[self.index])

    @property
    def _coord_refs(self):
        return ((self.joint, self.index),)

    def geometry(self) -> Geometry:
        """Where the joint is: an arc about its hinge or an arrow along its rail (spatial)."""
        return driven(self.joint)

    @property
    def dim(self) -> int:
        return self.joint.dim

    @classmethod
    def _phi(cls, P, S):
        return S - P[..., cls.sl.value, None]

    @classmethod
    def _evaluate(cls, P, S):
        phi = cls._phi(P, S)
        return phi, [np.ones(phi.shape + (1,))]

    @classmethod
    def _phi_p(cls, P, S):
        shape = np.broadcast_shapes(P.shape[:-1], S.shape[:-1])
        return np.full(shape + (1, 1), -1.0)

    @classmethod
    def _gamma(cls, P, S, Sdot):
        return np.zeros(cls._phi(P, S).shape)
