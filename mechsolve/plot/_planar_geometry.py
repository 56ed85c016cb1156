"""The geometry of a planar drawing: body poses, where joints sit, outlines, arrow templates.

Where a planar joint attaches to its bodies (its two points, a gear's centre, the pivot of a
driven angle, its ground pivot, the points that locate it for a red note), the outline through a
body's joint points, and the templates of the driver arrows. Numbers only: no matplotlib.
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ..joints._drivers import AngleDriver, Driver, SlideDriver
from ..joints._planar import Distance, Fixed, Gear, PointOnLine, Prismatic, RackPinion, Revolute
from ..joints.base import DriverJoint, Joint
from ._base import _nan_join


# -- poses -------------------------------------------------------------------------------------
def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 3)`` of ``body`` in the states ``(N, n)`` (the layout of Motion.pose)."""
    if body.is_ground:
        return np.zeros((len(states), 3))
    i = 3 * body.index
    return states[:, i:i + 3]


def _transform(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Global coordinates ``(N, k, 2)`` of local points ``(k, 2)`` at poses ``(N, 3)``."""
    c = np.cos(X[:, 2])[:, None]
    s = np.sin(X[:, 2])[:, None]
    gx = X[:, 0, None] + c * pts[None, :, 0] - s * pts[None, :, 1]
    gy = X[:, 1, None] + s * pts[None, :, 0] + c * pts[None, :, 1]
    return np.stack([gx, gy], axis=-1)


# -- where a joint sits ------------------------------------------------------------------------
def _two_point(joint: Joint):
    """``[(body, local point), ...]`` of a joint with a point on each of its two bodies.

    Built-in joints are read from their parameters; any other joint class can say where it
    attaches by defining ``plot_points(self) -> [(body, (x, y)), ...]`` (body coordinates).
    """
    if isinstance(joint, (Revolute, Fixed, Distance, Prismatic, PointOnLine, RackPinion)):
        b1, b2 = joint.bodies[:2]
        return [(b1, joint.param("point1")), (b2, joint.param("point2"))]
    hook = getattr(joint, "plot_points", None)
    if callable(hook):
        return [(b, np.asarray(p, dtype=float).reshape(2)) for b, p in hook()]
    return []


def _outline(points: np.ndarray) -> tuple[np.ndarray, bool]:
    """Order joint points into an outline: sorted polyline if collinear, else a polygon."""
    if len(points) <= 2:
        return points, False
    c = points.mean(axis=0)
    d = points - c
    _, sv, vt = np.linalg.svd(d, full_matrices=False)
    if sv[1] <= 1e-9 * max(sv[0], 1e-300):
        return points[np.argsort(d @ vt[0])], False
    return points[np.argsort(np.arctan2(d[:, 1], d[:, 0]))], True


def _centre_on(body: Body, carrier: Body, joints) -> np.ndarray:
    """A gear's centre: its point of a revolute to the carrier, else its origin."""
    for j in joints:
        if isinstance(j, Revolute) and set(map(id, j.bodies)) == {id(body), id(carrier)}:
            return _two_point(j)[0 if j.bodies[0] is body else 1][1]
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            return _two_point(j)[0 if j.bodies[0] is body else 1][1]
    return np.zeros(2)


def _pivot_of(body: Body, joints):
    """Where a driven angle is marked: the body's pin to ground, else any pin, else origin."""
    fallback = None
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            first, second = _two_point(j)
            mine, other = (first, second) if first[0] is body else (second, first)
            if other[0].is_ground:
                return other
            fallback = fallback or mine
    return fallback or (body, np.zeros(2))


def _ground_points(j: Joint) -> list:
    """Ground-side point of a joint that pins or welds a body to ground (a hatched pivot)."""
    if isinstance(j, (Revolute, Fixed, Distance)) and not isinstance(j, DriverJoint):
        (b1, p1), (b2, p2) = _two_point(j)
        if b1.is_ground and not b2.is_ground:
            return [p1]
        if b2.is_ground and not b1.is_ground:
            return [p2]
    return []


def _anchor_parts(j: Joint, joints):
    """Body points that locate a joint on the drawing (its two points, a gear's centres...)."""
    parts = _two_point(j)
    if parts:
        return parts
    if isinstance(j, Gear):
        b1, b2, carrier = j.bodies
        return [(b1, _centre_on(b1, carrier, joints)), (b2, _centre_on(b2, carrier, joints))]
    if isinstance(j, Driver):
        if j.coordinate == "angle":
            return [_pivot_of(j.bodies[0], joints)]
        return [(j.bodies[0], np.zeros(2))]
    if isinstance(j, (AngleDriver, SlideDriver)):
        return _two_point(j.joint)
    moving = [b for b in j.bodies if not b.is_ground] or list(j.bodies)
    if not moving and isinstance(getattr(j, "joint", None), Joint):  # e.g. CoordinateDriver
        return _anchor_parts(j.joint, joints)
    return [(b, np.zeros(2)) for b in moving]


# -- driver arrows -----------------------------------------------------------------------------
def _arrowhead(tip, direction, size) -> np.ndarray:
    """An open arrowhead (a 'V') at ``tip`` pointing along ``direction``."""
    d = np.asarray(direction, float)
    d = d / np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    back = np.asarray(tip) - size * d
    return np.array([back + 0.6 * size * n, tip, back - 0.6 * size * n])


def _arc_arrow(radius: float, head: float) -> np.ndarray:
    """A counter-clockwise arc arrow around the origin (the mark of a driven angle)."""
    t = np.linspace(np.radians(-60), np.radians(200), 40)
    arc = radius * np.stack([np.cos(t), np.sin(t)], axis=1)
    tangent = np.array([-np.sin(t[-1]), np.cos(t[-1])])
    return _nan_join([arc, _arrowhead(arc[-1], tangent, head)])


def _double_arrow(half: float, head: float) -> np.ndarray:
    """A double-headed arrow along x, centred on the origin."""
    a, b = np.array([-half, 0.0]), np.array([half, 0.0])
    return _nan_join([np.array([a, b]), _arrowhead(b, (1, 0), head), _arrowhead(a, (-1, 0), head)])

