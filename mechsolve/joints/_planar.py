"""Planar joints: Revolute, Prismatic, Fixed, Distance, PointOnLine, Gear, RackPinion.

Notation used in every kernel: a body's pose is ``(x, y, t)``, its rotation ``R(t)``; a local
point ``p`` sits at ``r + R p`` in global coordinates and ``d(R p)/dt = perp(R p)`` with
``perp(v) = (-v_y, v_x)``. Each kernel evaluates all instances of its class at once over stacked
parameters ``P (..., k, p)`` and poses ``X (..., k, 3)``.

None of these joints has mirrored solutions (:meth:`~mechsolve.joints.Joint._mirrored` keeps
its default): a planar pose cannot be turned over, and the angle rows are linear in the angles
(``t2 - t1 - angle`` vanishes at that one relative angle, not also half a turn away).
"""

from __future__ import annotations

import numpy as np

from .._trig import angle_cos_sin
from .._validation import as_direction, as_float, as_vector
from ..body import Body
from ._geometry import Circle, Drive, Geometry, Rack, Rail, Rod
from ._terms import evaluate_arrays, phi_array
from .base import DriverJoint, Joint, _is_spatial, dimension_dispatch, spatial_form

__all__ = ["Revolute", "Prismatic", "Fixed", "Distance", "PointOnLine", "Gear", "RackPinion"]


# -- array helpers ---------------------------------------------------------------------------------
def _rotate(X: np.ndarray, px: np.ndarray, py: np.ndarray, xp=np):
    """Global components of local vectors ``(px, py)`` rotated by the poses ``X`` (``xp`` the
    array namespace: NumPy, or ``jax.numpy`` for a tracer). Poses of five columns carry the
    angle's cosine and sine after it (see :attr:`Joint._trig_columns`), read here."""
    if X.shape[-1] == 5:
        c = X[..., 3]
        s = X[..., 4]
    else:
        c, s = angle_cos_sin(X, xp)
    return c * px - s * py, s * px + c * py


def _shape(P: np.ndarray, *X: np.ndarray) -> tuple[int, ...]:
    return np.broadcast_shapes(P.shape[:-1], *(x.shape[:-1] for x in X))


def _separation(sl, P: np.ndarray, X1: np.ndarray, X2: np.ndarray, xp=np):
    """``d = r2 + R2 p2 - r1 - R1 p1`` with ``p1 = P[..., sl.point1]``, ``p2 = P[..., sl.point2]``
    (``sl`` the class's :class:`~mechsolve.joints.base.ParameterSlices`).

    Returns ``(dx, dy, a1x, a1y, a2x, a2y)`` where ``a = R p``.
    """
    i, k = sl.point1.start, sl.point2.start   # the points' x; y follows (no views made)
    a1x, a1y = _rotate(X1, P[..., i], P[..., i + 1], xp)
    a2x, a2y = _rotate(X2, P[..., k], P[..., k + 1], xp)
    dx = X2[..., 0] + a2x - X1[..., 0] - a1x
    dy = X2[..., 1] + a2y - X1[..., 1] - a1y
    return dx, dy, a1x, a1y, a2x, a2y


def _projection_terms(xp, sl, P, X1, X2, normal: bool):
    """Component of ``d`` along the body-1 direction ``u = P[..., sl.axis]`` (or its normal
    ``perp(u)``), written once (see :mod:`._terms`).

    Returns the value and the Jacobian rows with respect to bodies 1 and 2, as 3-tuples.
    """
    dx, dy, a1x, a1y, a2x, a2y = _separation(sl, P, X1, X2, xp)
    u = sl.axis.start
    wx, wy = _rotate(X1, P[..., u], P[..., u + 1], xp)
    if normal:
        wx, wy = -wy, wx
    value = wx * dx + wy * dy
    # d(w)/dt1 = perp(w); d(d)/dt1 = -perp(a1)
    return (value, (-wx, -wy, (-wy * dx + wx * dy) - (wx * -a1y + wy * a1x)),
            (wx, wy, wx * -a2y + wy * a2x))


def _projection(sl, P: np.ndarray, X1: np.ndarray, X2: np.ndarray, normal: bool):
    """:func:`_projection_terms` as arrays: the value and the Jacobian rows with respect to
    bodies 1 and 2, shape ``(..., 3)``."""
    value, r1, r2 = _projection_terms(np, sl, P, X1, X2, normal)
    J1 = np.empty(value.shape + (3,))
    J2 = np.empty(value.shape + (3,))
    for j in range(3):
        J1[..., j] = r1[j]
        J2[..., j] = r2[j]
    return value, J1, J2


def _separation_rates(sl, P: np.ndarray, X1, X2, V1, V2):
    """Motion terms of ``d`` for acceleration right-hand sides.

    Returns ``(dx, dy, ddx, ddy, cx, cy, a1x, a1y)``: the separation ``d``, its rate
    ``d' = v2 + w2 perp(a2) - v1 - w1 perp(a1)`` and the part of ``d''`` that does not
    multiply accelerations, ``c = w1**2 a1 - w2**2 a2``.
    """
    dx, dy, a1x, a1y, a2x, a2y = _separation(sl, P, X1, X2)
    w1 = V1[..., 2]
    w2 = V2[..., 2]
    ddx = V2[..., 0] - w2 * a2y - V1[..., 0] + w1 * a1y
    ddy = V2[..., 1] + w2 * a2x - V1[..., 1] - w1 * a1x
    w1s = w1 * w1
    w2s = w2 * w2
    cx = w1s * a1x - w2s * a2x
    cy = w1s * a1y - w2s * a2y
    return dx, dy, ddx, ddy, cx, cy, a1x, a1y


def _projection_gamma(sl, P, X1, X2, V1, V2, normal: bool):
    """``gamma`` of the projection ``w . d`` of :func:`_projection`.

    With ``w = R1 u`` (or ``perp(R1 u)``), ``w' = w1 perp(w)`` and
    ``w'' = alpha1 perp(w) - w1**2 w``, so the velocity-only part of
    ``(w . d)''`` is ``-w1**2 (w . d) + 2 w1 perp(w) . d' + w . c`` and ``gamma`` is minus it.
    Returns shape ``(...,)``.
    """
    dx, dy, ddx, ddy, cx, cy, _, _ = _separation_rates(sl, P, X1, X2, V1, V2)
    u = sl.axis.start
    wx, wy = _rotate(X1, P[..., u], P[..., u + 1])
    if normal:
        wx, wy = -wy, wx
    w1 = V1[..., 2]
    return (w1 * w1 * (wx * dx + wy * dy) - 2 * w1 * (-wy * ddx + wx * ddy)
            - (wx * cx + wy * cy))


def _point_rows(X: np.ndarray, wx, wy) -> np.ndarray:
    """``w^T R``: the derivative of ``w . (R p)`` with respect to the local point ``p``,
    ``(..., 2)`` (``R`` the rotation of the poses ``X``)."""
    c, s = angle_cos_sin(X)
    return np.stack([wx * c + wy * s, -wx * s + wy * c], axis=-1)


def _projection_p(sl, P: np.ndarray, X1: np.ndarray, X2: np.ndarray, normal: bool,
                  out: np.ndarray, sign: float = 1.0) -> None:
    """Derivative of the projection ``w . d`` of :func:`_projection` (times ``sign``) with
    respect to ``point1``, ``point2`` and ``axis``: written into those columns of ``out``
    ``(..., p)``."""
    dx, dy, *_ = _separation(sl, P, X1, X2)
    u = P[..., sl.axis]
    ux, uy = u[..., 0], u[..., 1]
    wx, wy = _rotate(X1, ux, uy)
    if normal:
        wx, wy = -wy, wx
    c, s = angle_cos_sin(X1)
    ex, ey = c * dx + s * dy, -s * dx + c * dy      # d in body 1's coordinates
    if sign < 0.0:
        wx, wy, ex, ey = -wx, -wy, -ex, -ey
    out[..., sl.point1] = -_point_rows(X1, wx, wy)
    out[..., sl.point2] = _point_rows(X2, wx, wy)
    axis = out[..., sl.axis]
    if normal:       # w . d = perp(u) . e
        axis[..., 0] = ey
        axis[..., 1] = -ex
    else:            # w . d = u . e
        axis[..., 0] = ex
        axis[..., 1] = ey


def _pin_p(sl, P: np.ndarray, X1: np.ndarray, X2: np.ndarray, rows: int) -> np.ndarray:
    """Derivative of the pin rows ``-d`` with respect to ``point1`` and ``point2`` (``R1`` and
    ``-R2``) in the first two of ``rows`` rows of ``(..., rows, p)``, the rest zero."""
    c1, s1 = angle_cos_sin(X1)
    c2, s2 = angle_cos_sin(X2)
    shape = np.broadcast_shapes(P.shape[:-1], c1.shape, c2.shape)
    out = np.zeros(shape + (rows, P.shape[-1]))
    p1, p2 = out[..., sl.point1], out[..., sl.point2]
    p1[..., 0, 0] = c1
    p1[..., 0, 1] = -s1
    p1[..., 1, 0] = s1
    p1[..., 1, 1] = c1
    p2[..., 0, 0] = -c2
    p2[..., 0, 1] = s2
    p2[..., 1, 0] = -s2
    p2[..., 1, 1] = -c2
    return out


def _point(value, name: str, body=None) -> np.ndarray:
    """A joint's point on ``body``: local coordinates, or the name of a point of ``body``."""
    if isinstance(value, str) and isinstance(body, Body):
        return as_vector(body._point_for(value, name), name, 2)
    return as_vector(value, name, 2)


def _pair(cls, body1, body2) -> None:
    """Check the bodies of an ``at`` constructor before their poses are read."""
    for i, body in enumerate((body1, body2)):
        if not isinstance(body, Body):
            raise TypeError(f"{cls.__name__}.at: body{i + 1} must be a mechsolve Body (from "
                            f"Mechanism.add_body or Mechanism.ground), got "
                            f"{type(body).__name__}")


def _rod_at(cls, body1, body2, point1, point2, length, name, dim: int):
    """A rod (``cls``: a Distance or DistanceDriver, planar or spatial) between the global
    points ``point1`` on ``body1`` and ``point2`` on ``body2`` of the current placement; its
    length the points' distance unless given. The bodies are checked by the caller."""
    g1 = as_vector(point1, "point1", dim)
    g2 = as_vector(point2, "point2", dim)
    if length is None:
        length = float(np.linalg.norm(g2 - g1))
        if length == 0.0:
            raise ValueError(f"{cls.__name__}.at: point1 and point2 coincide; give a "
                             "positive length")
    # positional: the length is DistanceDriver's value
    return cls(body1, body2, body1.to_local(g1), body2.to_local(g2), length, name=name)


def angle_limits_wrap(limits) -> bool:
    """Whether limits on a relative angle read it in the turn centred on them: limits within a
    turn (or one-sided), whatever whole turns the bodies took on the way; wider ones read it
    continuously (:attr:`Joint.limit_wraps`)."""
    return limits is not None and (None in limits or limits[1] - limits[0] <= 2 * np.pi)


def _relative_angle(body1: Body, body2: Body) -> float:
    """``t2 - t1`` at the current placement (ground's angle is 0), not reduced."""
    return float(body2.pose[2] - body1.pose[2])


# -- joints ----------------------------------------------------------------------------------------
class _TwoPointJoint:
    """Mixin of planar joints with a point on each of their two bodies (``point1`` on body 1,
    ``point2`` on body 2, named in their layouts), where they attach."""

    attachment_points = ((0, "point1"), (1, "point2"))

    def _ends(self) -> list:
        """``[(body1, point1), (body2, point2)]``."""
        return [(self._bodies[0], self.param("point1")), (self._bodies[1], self.param("point2"))]


def _ground_side(ends) -> list:
    """The ground point of a joint between ground and a moving body (where a planar drawing
    hatches a pivot), else nothing."""
    (b1, p1), (b2, p2) = ends
    if b1.is_ground and not b2.is_ground:
        return [p1]
    if b2.is_ground and not b1.is_ground:
        return [p2]
    return []


def _moving_end(ends):
    """The end of a two-point joint on a moving body (body 2's when body 1 is ground)."""
    return ends[1] if ends[0][0].is_ground else ends[0]


def centre_on(body: Body, carrier: Body, joints) -> np.ndarray:
    """Where ``body`` turns on ``carrier``: its point of a :class:`Revolute` to the carrier, else
    of any revolute, else its origin (a gear's centre)."""
    for j in joints:
        if isinstance(j, Revolute) and set(map(id, j.bodies)) == {id(body), id(carrier)}:
            return j._ends()[0 if j.bodies[0] is body else 1][1]
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            return j._ends()[0 if j.bodies[0] is body else 1][1]
    return np.zeros(2)


def pivot_of(body: Body, joints) -> tuple:
    """Where a driven angle of ``body`` is marked: its pin to ground, else any pin, else its
    origin, as ``(body, point)``."""
    fallback = None
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            first, second = j._ends()
            mine, other = (first, second) if first[0] is body else (second, first)
            if other[0].is_ground:
                return other
            fallback = fallback or mine
    return fallback or (body, np.zeros(2))


class Revolute(_TwoPointJoint, Joint):
    """Pin joint: point ``point1`` of ``body1`` coincides with point ``point2`` of ``body2``.

    ``Phi = r1 + R1 p1 - r2 - R2 p2`` (2 equations, the seed's REVOLUTE).

    Parameters
    ----------
    body1, body2 : Body
        The joined bodies (either may be ground).
    point1, point2 : array_like, shape (2,), or str
        The pin's position in each body's local coordinates, or the name of a point of that
        body (:meth:`Body.add_point`, :meth:`Mechanism.add_link`).
    limits : (float or None, float or None), optional
        Bounds of the relative angle ``t2 - t1`` (radians), either side ``None`` for open;
        kept by solves and sweeps (see :attr:`Joint.limits`). Limits at most a turn apart
        (or one-sided: the turn from the bound) read the angle within the turn centred on
        them, whatever whole turns the bodies took; limits more than a turn apart read it
        continuously, counting whole turns, as :class:`AngleDriver` does.
    name : str, optional
        Name used in reports and messages.

    Notes
    -----
    ``joints.Revolute`` builds the joint of its bodies' mechanism:

    * planar, this class::

        Revolute(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), *, limits=None, name=None)

    * spatial (``ms.Mechanism(dim=3)``), a :class:`~mechsolve.joints.SpatialRevolute` (a
      hinge placed by a frame on each body, the frames' z axes its axis)::

        Revolute(body1, body2, frame1=None, frame2=None, *, axis=None, limits=None, name=None)

    ``isinstance(joint, joints.Revolute)`` holds for both.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank", position=(0.5, 0.0))
    >>> pin = mech.add(ms.joints.Revolute(mech.ground, crank, (0, 0), (-0.5, 0), name="O"))
    >>> pin.residual()
    array([0., 0.])
    """

    n_equations = 2
    layout = (("point1", 2), ("point2", 2))
    equation_labels = ("x", "y")
    equation_lengths = (True, True)
    limit_quantity = "angle"
    _many_fast = True
    _trig_columns = True
    # No mirror: only points coincide (no rotation row).
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0), *,
                 limits=None, name: str | None = None) -> None:
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        super().__init__((body1, body2), np.concatenate([p1, p2]), name=name)
        self._set_limits(limits)

    @property
    def limit_wraps(self) -> bool:
        return angle_limits_wrap(self._limits)

    def geometry(self) -> Geometry:
        """A pin: the two points, a pin mark on the moving one, a pivot on ground."""
        ends = self._ends()
        return Geometry(points=ends, pins=[_moving_end(ends)], pivots=_ground_side(ends))

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        # the relative angle t2 - t1, as AngleDriver measures it
        theta = X2[..., 2] - X1[..., 2]
        J1 = np.zeros(theta.shape + (3,))
        J2 = np.zeros(theta.shape + (3,))
        J1[..., 2] = -1.0
        J2[..., 2] = 1.0
        return theta, [J1, J2]

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis=None, *, name: str | None = None):
        """A pin at the global point ``point`` of the current placement.

        Each body's pin is the body point that sits at ``point`` now. With spatial bodies
        this is :meth:`SpatialRevolute.at <mechsolve.joints.SpatialRevolute.at>`, which needs
        the hinge's ``axis`` too. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : Body
        point : array_like, shape (2,) or (3,)
            The pin, in global coordinates.
        axis : array_like, shape (3,)
            The hinge's direction, for spatial bodies only (a planar pin turns about the
            plane's normal).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> crank = mech.add_body("crank", position=(0.5, 0.0))
        >>> pin = mech.add(ms.joints.Revolute.at(mech.ground, crank, (0.0, 0.0)))
        >>> pin.point2, pin.residual() + 0.0
        (array([-0.5,  0. ]), array([0., 0.]))
        """
        spatial = spatial_form(cls, body1)
        if spatial is not None:
            if axis is None:
                raise TypeError(f"{cls.__name__}.at() missing 1 required positional argument: "
                                "'axis' (the hinge's direction, with the bodies of a spatial "
                                "mechanism)")
            return spatial.at(body1, body2, point, axis, name=name)
        _pair(cls, body1, body2)
        if axis is not None:
            raise TypeError(f"{cls.__name__}.at: axis is for the bodies of a spatial mechanism; "
                            "a planar pin turns about the plane's normal")
        p = as_vector(point, "point", 2)
        return cls(body1, body2, body1.to_local(p), body2.to_local(p), name=name)

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        return _pin_terms(xp, cls.sl, P, X1, X2, jacobian)

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(_pin_terms(np, cls.sl, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *_pin_terms(np, cls.sl, P, X1, X2, True))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        return _pin_p(cls.sl, P, X1, X2, 2)

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _pin_gamma(cls.sl, P, X1, X2, V1, V2)


def _pin_terms(xp, sl, P, X1, X2, jacobian=True):
    """Phi and the Jacobian blocks of the pin rows ``-d`` (:class:`Revolute`), written once."""
    dx, dy, a1x, a1y, a2x, a2y = _separation(sl, P, X1, X2, xp)
    phi = (-dx, -dy)
    if not jacobian:
        return phi, None
    return phi, (((1.0, 0.0, -a1y), (0.0, 1.0, a1x)),
                 ((-1.0, 0.0, a2y), (0.0, -1.0, -a2x)))


def _pin_gamma(sl, P, X1, X2, V1, V2):
    """gamma of the pin rows (:class:`Revolute`)."""
    # Phi'' = J q'' - a1 w1^2 + a2 w2^2, so gamma = a1 w1^2 - a2 w2^2.
    i, k = sl.point1.start, sl.point2.start
    a1x, a1y = _rotate(X1, P[..., i], P[..., i + 1])
    a2x, a2y = _rotate(X2, P[..., k], P[..., k + 1])
    w1 = V1[..., 2] ** 2
    w2 = V2[..., 2] ** 2
    return np.stack([a1x * w1 - a2x * w2, a1y * w1 - a2y * w2], axis=-1)


class Fixed(_TwoPointJoint, Joint):
    """Weld: ``point1`` of ``body1`` on ``point2`` of ``body2`` and the relative angle locked.

    ``Phi = (r1 + R1 p1 - r2 - R2 p2, t2 - t1 - angle)`` (3 equations). With ``body1`` ground
    this is George & Guenter's ABSOLUTE: it places ``body2`` at a fixed global pose.

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like, shape (2,), or str
        Coincident points in local coordinates, or names of points of the bodies (default:
        the origins).
    angle : float
        Relative angle ``t2 - t1`` held by the weld (default 0).
    name : str, optional

    Notes
    -----
    ``joints.Fixed`` builds the joint of its bodies' mechanism:

    * planar, this class::

        Fixed(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), angle=0.0, *, name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialFixed` (the two joint frames coincide)::

        Fixed(body1, body2, frame1=None, frame2=None, *, axis=None, name=None)

    ``isinstance(joint, joints.Fixed)`` holds for both.
    """

    n_equations = 3
    layout = (("point1", 2), ("point2", 2), ("angle", 1))
    equation_labels = ("x", "y", "angle")
    _many_fast = True
    _trig_columns = True
    # No mirror: the angle row t2 - t1 - angle is linear, one root.
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0),
                 angle: float = 0.0, *, name: str | None = None) -> None:
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        a = as_float(angle, "angle")
        super().__init__((body1, body2), np.concatenate([p1, p2, [a]]), name=name)

    @classmethod
    def at(cls, body1: Body, body2: Body, point=None, *, name: str | None = None):
        """A weld that keeps the bodies' current relative placement.

        The coincident points are the body points at the global ``point`` (default: the
        origin of ``body2``) and the welded angle is the current relative angle ``t2 - t1``
        (not reduced modulo a turn, so the residual is zero now). With spatial bodies this is
        :meth:`SpatialFixed.at <mechsolve.joints.SpatialFixed.at>`. The joint is not added to
        the mechanism.

        Parameters
        ----------
        body1, body2 : Body
        point : array_like, shape (2,), optional
            The weld point in global coordinates (default: ``body2``'s origin).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> arm = mech.add_body("arm", position=(1.0, 2.0), angle=0.5)
        >>> weld = ms.joints.Fixed.at(mech.ground, arm)
        >>> weld.point1, weld.angle
        (array([1., 2.]), 0.5)
        """
        spatial = spatial_form(cls, body1)
        if spatial is not None:
            return spatial.at(body1, body2, point, name=name)
        _pair(cls, body1, body2)
        if point is None:
            p1, p2 = body1.to_local(body2.position), np.zeros(2)
        else:
            p = as_vector(point, "point", 2)
            p1, p2 = body1.to_local(p), body2.to_local(p)
        return cls(body1, body2, p1, p2, _relative_angle(body1, body2), name=name)

    def geometry(self) -> Geometry:
        """A weld: the two points, a weld mark on the moving one, a pivot on ground."""
        ends = self._ends()
        return Geometry(points=ends, welds=[_moving_end(ends)], pivots=_ground_side(ends))

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        (px, py), pin = _pin_terms(xp, cls.sl, P, X1, X2, jacobian)
        phi = (px, py, X2[..., 2] - X1[..., 2] - P[..., cls.sl.angle])
        if not jacobian:
            return phi, None
        return phi, (pin[0] + ((0.0, 0.0, -1.0),), pin[1] + ((0.0, 0.0, 1.0),))

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        out = _pin_p(cls.sl, P, X1, X2, 3)
        out[..., 2, cls.sl.angle] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        # the pin rows as Revolute's; the angle row is linear.
        g = _pin_gamma(cls.sl, P, X1, X2, V1, V2)
        out = np.zeros(g.shape[:-1] + (3,))
        out[..., :2] = g
        return out


class Prismatic(_TwoPointJoint, Joint):
    """Translational joint: a point of ``body2`` slides on a line of ``body1``, rotation locked.

    The line passes through ``point1`` of ``body1`` with direction ``axis`` (body-1
    coordinates). With ``u = R1 axis`` and ``d = r2 + R2 p2 - r1 - R1 p1``::

        Phi = (perp(u) . d,  t2 - t1 - (angle(axis) - angle(axis2)))

    so that ``axis2`` of ``body2`` stays aligned with ``axis`` of ``body1`` (2 equations, the
    seed's TRANSLATIONAL). The slide ``s = u . d`` is what :class:`SlideDriver` drives.

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like, shape (2,), or str
        Points in local coordinates, or names of points of the bodies.
    axis : array_like, shape (2,)
        Direction of the line in body-1 coordinates (normalised; must be non-zero).
    axis2 : array_like, shape (2,), optional
        The direction of ``body2`` kept parallel to ``axis`` (default: the same components).
    limits : (float or None, float or None), optional
        Bounds of the slide ``s = u . d`` (lengths), either side ``None`` for open; kept by
        solves and sweeps (see :attr:`Joint.limits`).
    name : str, optional

    Notes
    -----
    ``joints.Prismatic`` builds the joint of its bodies' mechanism:

    * planar, this class::

        Prismatic(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), axis=(1.0, 0.0), axis2=None,
                  *, limits=None, name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialPrismatic` (frame 2's origin slides on
      frame 1's z axis, rotation locked)::

        Prismatic(body1, body2, frame1=None, frame2=None, *, axis=None, limits=None, name=None)

    ``isinstance(joint, joints.Prismatic)`` holds for both.
    """

    n_equations = 2
    _trig_columns = True
    layout = (("point1", 2), ("point2", 2), ("axis", 2), ("offset", 1))
    equation_labels = ("normal", "angle")
    limit_quantity = "slide"
    # No mirror: the angle row is linear, one root; a line has no direction to reverse.
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0),
                 axis=(1.0, 0.0), axis2=None, *, limits=None, name: str | None = None) -> None:
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        u1 = as_direction(axis, "axis", 2)
        u2 = u1 if axis2 is None else as_direction(axis2, "axis2", 2)
        offset = np.arctan2(u1[1], u1[0]) - np.arctan2(u2[1], u2[0])
        super().__init__((body1, body2), np.concatenate([p1, p2, u1, [offset]]), name=name)
        self._set_limits(limits)
        # the direction given, which a model file writes back while it still gives the
        # offset: cos and sin of the offset need not read back to the same offset
        self._axis2 = None if axis2 is None else u2

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        # the slide u . d, as SlideDriver measures it
        s, J1, J2 = _projection(cls.sl, P, X1, X2, normal=False)
        return s, [J1, J2]

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """A slider through the global point ``point`` along the global direction ``axis``,
        at the current placement.

        The line is the one of ``body1`` through ``point`` along ``axis`` now; the point of
        ``body2`` at ``point`` slides on it (its slide, what
        :class:`~mechsolve.joints.SlideDriver` drives, is 0 now) and the relative angle is
        locked at its current value ``t2 - t1``. With spatial bodies this is
        :meth:`SpatialPrismatic.at <mechsolve.joints.SpatialPrismatic.at>`. The joint is not
        added to the mechanism.

        Parameters
        ----------
        body1, body2 : Body
        point : array_like, shape (2,)
            A point of the line, in global coordinates.
        axis : array_like, shape (2,)
            The line's direction, in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> slider = mech.add_body("slider", position=(2.0, 1.0), angle=0.3)
        >>> rail = ms.joints.Prismatic.at(mech.ground, slider, (2.0, 1.0), (1.0, 1.0))
        >>> rail.axis.round(6), rail.residual().round(12) + 0.0
        (array([0.707107, 0.707107]), array([0., 0.]))
        """
        spatial = spatial_form(cls, body1)
        if spatial is not None:
            return spatial.at(body1, body2, point, axis, name=name)
        _pair(cls, body1, body2)
        p = as_vector(point, "point", 2)
        u = as_direction(axis, "axis", 2)
        joint = cls(body1, body2, body1.to_local(p), body2.to_local(p),
                    body1.vector_to_local(u), body2.vector_to_local(u), name=name)
        joint._p[cls.sl.offset] = _relative_angle(body1, body2)   # not reduced modulo a turn
        return joint

    def geometry(self) -> Geometry:
        """A slider: the two points, the rail of body 1 along ``axis``, a block on body 2."""
        ends = self._ends()
        u1 = self.param("axis")
        a2 = np.arctan2(u1[1], u1[0]) - self.param("offset")
        block = np.array([np.cos(a2), np.sin(a2)])
        return Geometry(points=ends, rails=[Rail(ends[0][0], ends[0][1], u1, ends[1], block)])

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        n, r1, r2 = _projection_terms(xp, cls.sl, P, X1, X2, normal=True)
        phi = (n, X2[..., 2] - X1[..., 2] - P[..., cls.sl.offset])
        if not jacobian:
            return phi, None
        return phi, ((r1, (0.0, 0.0, -1.0)), (r2, (0.0, 0.0, 1.0)))

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        out = np.zeros(_shape(P, X1, X2) + (2, P.shape[-1]))
        _projection_p(cls.sl, P, X1, X2, True, out[..., 0, :])
        out[..., 1, cls.sl.offset] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        g = _projection_gamma(cls.sl, P, X1, X2, V1, V2, normal=True)
        out = np.zeros(g.shape + (2,))
        out[..., 0] = g  # the angle row is linear
        return out


class PointOnLine(_TwoPointJoint, Joint):
    """Pin in slot: ``point2`` of ``body2`` stays on the line of ``body1`` through ``point1``.

    ``Phi = perp(R1 axis) . (r2 + R2 p2 - r1 - R1 p1)`` (1 equation); the relative rotation is
    free.

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like, shape (2,), or str
        Points in local coordinates, or names of points of the bodies.
    axis : array_like, shape (2,)
        Direction of the slot in body-1 coordinates (non-zero).
    name : str, optional

    Notes
    -----
    ``joints.PointOnLine`` builds the joint of its bodies' mechanism:

    * planar, this class::

        PointOnLine(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), axis=(1.0, 0.0), *,
                    name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialPointOnLine` (frame 2's origin stays on
      frame 1's z axis)::

        PointOnLine(body1, body2, frame1=None, frame2=None, *, axis=None, name=None)

    ``isinstance(joint, joints.PointOnLine)`` holds for both.
    """

    n_equations = 1
    _trig_columns = True
    layout = (("point1", 2), ("point2", 2), ("axis", 2))
    equation_labels = ("normal",)
    # No mirror: a point on a line (no rotation row).
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0),
                 axis=(1.0, 0.0), *, name: str | None = None) -> None:
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        u = as_direction(axis, "axis", 2)
        super().__init__((body1, body2), np.concatenate([p1, p2, u]), name=name)

    @classmethod
    def at(cls, body1: Body, body2: Body, point, axis, *, name: str | None = None):
        """A pin in a slot through the global point ``point`` along the global direction
        ``axis``, at the current placement.

        The slot is the line of ``body1`` through ``point`` along ``axis`` now, and the pin the
        point of ``body2`` at ``point``. With spatial bodies this is
        :meth:`SpatialPointOnLine.at <mechsolve.joints.SpatialPointOnLine.at>`. The joint is
        not added to the mechanism.

        Parameters
        ----------
        body1, body2 : Body
        point : array_like, shape (2,)
            The pin, in global coordinates.
        axis : array_like, shape (2,)
            The slot's direction, in global coordinates (non-zero).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> lever = mech.add_body("lever", angle=0.5)
        >>> block = mech.add_body("block", position=(1.0, 0.5))
        >>> slot = ms.joints.PointOnLine.at(lever, block, (1.0, 0.5), (2.0, 1.0))
        >>> slot.residual().round(12) + 0.0
        array([0.])
        """
        spatial = spatial_form(cls, body1)
        if spatial is not None:
            return spatial.at(body1, body2, point, axis, name=name)
        _pair(cls, body1, body2)
        p = as_vector(point, "point", 2)
        u = as_direction(axis, "axis", 2)
        return cls(body1, body2, body1.to_local(p), body2.to_local(p),
                   body1.vector_to_local(u), name=name)

    def geometry(self) -> Geometry:
        """A pin in a slot: the two points, the slot of body 1 along ``axis``, the pin."""
        ends = self._ends()
        return Geometry(points=ends, pins=[ends[1]],
                        rails=[Rail(ends[0][0], ends[0][1], self.param("axis"), ends[1])])

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        n, r1, r2 = _projection_terms(xp, cls.sl, P, X1, X2, normal=True)
        return (n,), ((r1,), (r2,)) if jacobian else None

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        out = np.empty(_shape(P, X1, X2) + (1, P.shape[-1]))
        _projection_p(cls.sl, P, X1, X2, True, out[..., 0, :])
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return _projection_gamma(cls.sl, P, X1, X2, V1, V2, normal=True)[..., None]


class Distance(_TwoPointJoint, Joint):
    """Massless rod: ``point1`` of ``body1`` and ``point2`` of ``body2`` at distance ``length``.

    ``Phi = (d . d - L**2) / (2 L)`` with ``d = r2 + R2 p2 - r1 - R1 p1`` (1 equation). The
    scaling makes ``Phi`` equal ``|d| - L`` to first order, so its residual is a length.

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like, shape (2,), or str
        The rod's ends in local coordinates, or names of points of the bodies.
    length : float
        Positive rod length.
    name : str, optional

    Notes
    -----
    ``joints.Distance`` builds the joint of its bodies' mechanism:

    * planar, this class::

        Distance(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), length=1.0, *, name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialDistance` (a rod between two body points in
      space)::

        Distance(body1, body2, point1=None, point2=None, length=1.0, *, name=None)

    ``isinstance(joint, joints.Distance)`` holds for both.
    """

    n_equations = 1
    _trig_columns = True
    layout = (("point1", 2), ("point2", 2), ("length", 1))
    equation_labels = ("length",)
    # No mirror: |d| = L from either side is what a rod means (no rotation row).
    __new__ = dimension_dispatch("body1", "body2")
    def length_hint(self) -> float:
        return abs(float(self._p[self.sl.length]))

    def geometry(self) -> Geometry:
        """A rod between the two points, pins at its ends, a pivot on ground; a driven rod
        (:class:`DistanceDriver`) carries its driver's arrow instead of the pivot."""
        ends = self._ends()
        if isinstance(self, DriverJoint):
            return Geometry(points=ends, pins=ends, rods=[Rod(*ends, driven=True)],
                            drive=Drive("length", ends=tuple(ends)))
        return Geometry(points=ends, pins=ends, rods=[Rod(*ends)], pivots=_ground_side(ends))

    def __init__(self, body1: Body, body2: Body, point1=(0.0, 0.0), point2=(0.0, 0.0),
                 length: float = 1.0, *, name: str | None = None) -> None:
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        L = as_float(length, "length", positive=True)
        super().__init__((body1, body2), np.concatenate([p1, p2, [L]]), name=name)

    @classmethod
    def at(cls, body1: Body, body2: Body, point1, point2, length: float | None = None, *,
           name: str | None = None):
        """A rod between the global points ``point1`` (on ``body1``) and ``point2`` (on
        ``body2``) of the current placement.

        ``length`` defaults to their current distance (so the residual is zero now). With
        spatial bodies this is :meth:`SpatialDistance.at
        <mechsolve.joints.SpatialDistance.at>`; ``DistanceDriver.at`` gives the driver, whose
        value is the length. The joint is not added to the mechanism.

        Parameters
        ----------
        body1, body2 : Body
        point1, point2 : array_like, shape (2,)
            The rod's ends in global coordinates (distinct unless ``length`` is given).
        length : float, optional
            The rod's length (default: ``|point2 - point1|``).
        name : str, optional

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> arm = mech.add_body("arm", position=(1.0, 0.0))
        >>> rod = ms.joints.Distance.at(mech.ground, arm, (0.0, 3.0), (3.0, -1.0))
        >>> rod.length, rod.point2
        (5.0, array([ 2., -1.]))
        """
        spatial = spatial_form(cls, body1)
        if spatial is not None:
            return spatial.at(body1, body2, point1, point2, length, name=name)
        _pair(cls, body1, body2)
        return _rod_at(cls, body1, body2, point1, point2, length, name, 2)

    @classmethod
    def _terms(cls, xp, P, X1, X2, jacobian=True):
        dx, dy, a1x, a1y, a2x, a2y = _separation(cls.sl, P, X1, X2, xp)
        L = P[..., cls.sl.length]
        phi = ((dx * dx + dy * dy - L * L) / (2 * L),)
        if not jacobian:
            return phi, None
        gx, gy = dx / L, dy / L
        return phi, (((-gx, -gy, -(gx * -a1y + gy * a1x)),),
                     ((gx, gy, gx * -a2y + gy * a2x),))

    @classmethod
    def _phi(cls, P, X1, X2):
        return phi_array(cls._terms(np, P, X1, X2, False)[0])

    @classmethod
    def _evaluate(cls, P, X1, X2):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2))

    @classmethod
    def _phi_p(cls, P, X1, X2):
        # Phi = (d . d - L^2) / (2 L): dPhi/dd = d / L, dd/dp1 = -R1, dd/dp2 = R2, and
        # dPhi/dL = -(d . d + L^2) / (2 L^2).
        sl = cls.sl
        dx, dy, *_ = _separation(sl, P, X1, X2)
        L = P[..., sl.length]
        gx, gy = dx / L, dy / L
        out = np.empty(dx.shape + (1, P.shape[-1]))
        out[..., 0, sl.point1] = -_point_rows(X1, gx, gy)
        out[..., 0, sl.point2] = _point_rows(X2, gx, gy)
        out[..., 0, sl.length] = -(dx * dx + dy * dy + L * L) / (2 * L * L)
        return out

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        # Phi' = d . d' / L, Phi'' = (d' . d' + d . d'') / L; d'' = (accelerations) + c.
        dx, dy, ddx, ddy, cx, cy, _, _ = _separation_rates(cls.sl, P, X1, X2, V1, V2)
        return (-(ddx * ddx + ddy * ddy + dx * cx + dy * cy) / P[..., cls.sl.length])[..., None]


class Gear(Joint):
    """Gear pair: the rotations of two bodies relative to a carrier coupled by their radii.

    ``Phi = r1 (t1 - tc) + s r2 (t2 - tc) - phase`` with ``s = +1`` for an external mesh
    (the gears turn in opposite senses, ``w2 = -(r1/r2) w1``) and ``s = -1`` for an internal
    mesh (a ring gear ``body2`` around ``body1``: same sense, ``w2 = (r1/r2) w1``). Rotations are
    measured relative to the ``carrier`` (the body holding both axles, ground by default; the arm
    of a planetary train). The gear does not place the axles: pin each gear to the carrier with a
    :class:`Revolute`.

    For spatial bodies use :class:`~mechsolve.joints.AngleCoupler`, which couples the angles
    of two spatial revolutes.

    Parameters
    ----------
    body1, body2 : Body
        The two gears.
    radius1, radius2 : float
        Pitch radii (positive). The speed ratio is ``radius1 / radius2``.
    internal : bool
        True for an internal mesh (``body2`` is the ring gear).
    carrier : Body, optional
        Body carrying both axles (default: ground).
    phase : float
        Constant of the mesh (arc length), 0 when the gears mesh at zero relative angles.
    name : str, optional
    """

    n_equations = 1
    layout = (("radius1", 1), ("signed_radius2", 1), ("phase", 1))
    equation_labels = ("mesh",)
    # No mirror: linear in the angles.

    def __init__(self, body1: Body, body2: Body, radius1: float, radius2: float, *,
                 internal: bool = False, carrier: Body | None = None, phase: float = 0.0,
                 name: str | None = None) -> None:
        if _is_spatial(body1) or _is_spatial(body2):
            raise TypeError("Gear is a planar joint; its bodies belong to a spatial mechanism: "
                            "couple the angles of two spatial revolutes with "
                            "joints.AngleCoupler(revolute1, revolute2, ratio)")
        r1 = as_float(radius1, "radius1", positive=True)
        r2 = as_float(radius2, "radius2", positive=True)
        if not isinstance(internal, (bool, np.bool_)):
            raise TypeError(f"internal must be True or False, got {internal!r}")
        if carrier is None and isinstance(body1, Body):
            carrier = body1.mechanism.ground
        sign = -1.0 if internal else 1.0
        ph = as_float(phase, "phase")
        super().__init__((body1, body2, carrier), [r1, sign * r2, ph], name=name)

    @property
    def ratio(self) -> float:
        """Speed ratio ``|w2 / w1| = radius1 / radius2`` (relative to the carrier)."""
        return float(self._p[self.sl.radius1] / abs(self._p[self.sl.signed_radius2]))

    @property
    def internal(self) -> bool:
        return bool(self._p[self.sl.signed_radius2] < 0)

    def geometry(self) -> Geometry:
        """The two pitch circles, about where each gear turns on the carrier."""
        b1, b2, carrier = self._bodies
        joints = self._mechanism.joints if self._mechanism is not None else ()
        c1, c2 = centre_on(b1, carrier, joints), centre_on(b2, carrier, joints)
        r2 = self.param("signed_radius2")
        return Geometry(circles=[Circle(b1, c1, float(self.param("radius1")), False),
                                 Circle(b2, c2, float(abs(r2)), r2 < 0)],
                        anchor=[(b1, c1), (b2, c2)])

    @classmethod
    def _terms(cls, xp, P, X1, X2, Xc, jacobian=True):
        sl = cls.sl
        tc = Xc[..., 2]
        r1, r2 = P[..., sl.radius1], P[..., sl.signed_radius2]
        phi = (r1 * (X1[..., 2] - tc) + r2 * (X2[..., 2] - tc) - P[..., sl.phase],)
        if not jacobian:
            return phi, None
        return phi, (((0.0, 0.0, r1),), ((0.0, 0.0, r2),), ((0.0, 0.0, -(r1 + r2)),))

    @classmethod
    def _phi(cls, P, X1, X2, Xc):
        return phi_array(cls._terms(np, P, X1, X2, Xc, False)[0])

    @classmethod
    def _gamma(cls, P, X1, X2, Xc, V1, V2, Vc):
        return np.zeros(cls._phi(P, X1, X2, Xc).shape)  # linear in the angles

    @classmethod
    def _phi_p(cls, P, X1, X2, Xc):
        tc = Xc[..., 2]
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1], Xc.shape[:-1])
        out = np.empty(shape + (1, P.shape[-1]))
        out[..., 0, cls.sl.radius1] = X1[..., 2] - tc
        out[..., 0, cls.sl.signed_radius2] = X2[..., 2] - tc
        out[..., 0, cls.sl.phase] = -1.0
        return out

    @classmethod
    def _evaluate(cls, P, X1, X2, Xc):
        return evaluate_arrays(cls, *cls._terms(np, P, X1, X2, Xc))


class RackPinion(_TwoPointJoint, Joint):
    """Rack and pinion: the rack's slide along its axis follows the pinion's rotation.

    With ``u = R_rack axis`` and ``d = (r_rack + R_rack p_rack) - (r_pin + R_pin p_pin)``::

        Phi = u . d - radius (t_pinion - t_rack) - phase

    ``axis`` (rack coordinates) is the direction the rack moves when the pinion turns
    counter-clockwise relative to it, so a rack below the pinion has ``axis=(1, 0)`` and a rack
    above it ``axis=(-1, 0)``. Guide the rack with a :class:`Prismatic` and pin the pinion with a
    :class:`Revolute`; this joint only couples the two motions (1 equation).

    Parameters
    ----------
    pinion, rack : Body
    radius : float
        Pitch radius of the pinion (positive).
    pinion_point, rack_point : array_like, shape (2,), or str
        The pinion's centre (pinion coordinates) and a reference point on the rack (rack
        coordinates), or names of points of those bodies.
    axis : array_like, shape (2,)
        Rack direction in rack coordinates.
    phase : float
        Mesh constant (length).
    name : str, optional
    """

    n_equations = 1
    _trig_columns = True
    layout = (("point1", 2), ("point2", 2), ("axis", 2), ("radius", 1), ("phase", 1))
    equation_labels = ("mesh",)
    # No mirror: linear in the angles and the slide.

    def __init__(self, pinion: Body, rack: Body, radius: float, pinion_point=(0.0, 0.0),
                 rack_point=(0.0, 0.0), axis=(1.0, 0.0), *, phase: float = 0.0,
                 name: str | None = None) -> None:
        r = as_float(radius, "radius", positive=True)
        pp = _point(pinion_point, "pinion_point", pinion)
        rp = _point(rack_point, "rack_point", rack)
        u = as_direction(axis, "axis", 2)
        ph = as_float(phase, "phase")
        # slots: (rack, pinion); parameters laid out for _projection (point on body 1 first).
        super().__init__((rack, pinion), np.concatenate([rp, pp, u, [r, ph]]), name=name)

    def geometry(self) -> Geometry:
        """The rack's pitch line with teeth and the pinion's pitch circle."""
        (rack, rp), (pinion, pp) = self._ends()
        r = self.param("radius")
        return Geometry(points=[(rack, rp), (pinion, pp)], circles=[Circle(pinion, pp, r)],
                        racks=[Rack(rack, rp, self.param("axis"), pinion, pp, r)])

    @classmethod
    def _terms(cls, xp, P, Xr, Xp, jacobian=True):
        # _projection_terms gives u . (pinion - rack); the mesh uses u . (rack - pinion).
        v, (a, b, c), (d, e, f) = _projection_terms(xp, cls.sl, P, Xr, Xp, normal=False)
        r = P[..., cls.sl.radius]
        phi = (-v - r * (Xp[..., 2] - Xr[..., 2]) - P[..., cls.sl.phase],)
        if not jacobian:
            return phi, None
        return phi, (((-a, -b, r - c),), ((-d, -e, -f - r),))

    @classmethod
    def _phi(cls, P, Xr, Xp):
        return phi_array(cls._terms(np, P, Xr, Xp, False)[0])

    @classmethod
    def _evaluate(cls, P, Xr, Xp):
        return evaluate_arrays(cls, *cls._terms(np, P, Xr, Xp))

    @classmethod
    def _phi_p(cls, P, Xr, Xp):
        out = np.empty(_shape(P, Xr, Xp) + (1, P.shape[-1]))
        _projection_p(cls.sl, P, Xr, Xp, False, out[..., 0, :], sign=-1.0)
        out[..., 0, cls.sl.radius] = -(Xp[..., 2] - Xr[..., 2])
        out[..., 0, cls.sl.phase] = -1.0
        return out

    @classmethod
    def _gamma(cls, P, Xr, Xp, Vr, Vp):
        # Phi = -u . d + (linear in the angles).
        return -_projection_gamma(cls.sl, P, Xr, Xp, Vr, Vp, normal=False)[..., None]
