"""The geometry of a spatial drawing: body poses, where joints attach, outlines, arrows.

Where a spatial joint attaches to its bodies (the origins of its joint frames, an end
effector's point and target, a revolute's axis, a slide's rail, the points that locate it for a
red note), the outline through a body's attachment points (a sector for a link of a spherical
linkage), and the templates of the driver arrows. Numbers only: no matplotlib.
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ..joints._end_effectors import PointDistanceEndEffector, _LinkEndEffector
from ..joints._links import DHLink, LinkJoint, PrismaticLink, RevoluteLink
from ..joints._spatial import (
    AngleCoupler,
    Cylindrical,
    SpatialDistance,
    SpatialDistanceDriver,
    SpatialPointOnLine,
    SpatialPrismatic,
    SpatialRevolute,
    Universal,
    _FrameJoint,
)
from ..joints.base import DriverJoint, Joint
from ..spatial._quat import frame_compose, quat_rotate
from ._base import _nan_join

_EX, _EY, _EZ = np.eye(3)


# -- geometry ----------------------------------------------------------------------------------
def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 7)`` (position, quaternion) of ``body`` in the states ``(N, n)``."""
    if body.is_ground:
        out = np.zeros((len(states), 7))
        out[:, 3] = 1.0
        return out
    i = 7 * body.index
    return states[:, i:i + 7]


def _transform(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Global coordinates ``(N, k, 3)`` of local points ``(k, 3)`` at poses ``(N, 7)``."""
    return X[:, None, :3] + quat_rotate(X[:, None, 3:], pts[None, :, :])


def _outline(points: np.ndarray) -> tuple[np.ndarray, bool, bool]:
    """Order attachment points into ``(vertices, closed, flat)``.

    Collinear points are sorted along their line (an open polyline); others go round their
    mean plane (a closed ring), ``flat`` when they lie in it (a polygon that can be filled).
    """
    if len(points) <= 2:
        return points, False, False
    c = points.mean(axis=0)
    d = points - c
    _, sv, vt = np.linalg.svd(d, full_matrices=False)
    if sv[1] <= 1e-9 * max(sv[0], 1e-300):
        return points[np.argsort(d @ vt[0])], False, False
    order = np.argsort(np.arctan2(d @ vt[1], d @ vt[0]))
    flat = len(sv) < 3 or sv[2] <= 1e-6 * sv[0]
    return points[order], True, bool(flat)


def _sector(centre: np.ndarray, axes: list, origin: np.ndarray, radius: float):
    """Outline of a link of a spherical linkage: its revolute axes meet at ``centre``.

    The link is the sector (two axes) or spherical polygon (more) on the sphere of ``radius``
    about ``centre``, between the points where the axes, turned towards the body's
    ``origin``, pierce it. Returns ``(vertices, closed, flat)`` like :func:`_outline`.
    """
    w = origin - centre
    r = float(radius)
    dirs = _directions([u if np.dot(u, w) >= 0.0 else -u for u in axes])
    if len(dirs) < 2:
        raise ValueError("a spherical link needs two joint axes that are not parallel")

    def arc(a, b, n=24):
        angle = np.arccos(np.clip(np.dot(a, b), -1.0, 1.0))
        t = np.linspace(0.0, 1.0, n)[:, None]
        return centre + r * (np.sin((1 - t) * angle) * a + np.sin(t * angle) * b) / np.sin(angle)

    if len(dirs) == 2:
        return np.concatenate([centre[None], arc(*dirs)]), True, True
    m = np.mean(dirs, axis=0)
    m = m / np.linalg.norm(m) if np.linalg.norm(m) > 1e-9 else dirs[0]
    e1 = _perp(m)
    e2 = np.cross(m, e1)
    dirs.sort(key=lambda u: np.arctan2(np.dot(u, e2), np.dot(u, e1)))
    ring = np.concatenate([arc(a, b)[:-1] for a, b in zip(dirs, dirs[1:] + dirs[:1])])
    return ring, True, False


def _directions(axes) -> list:
    """The unit vectors ``axes`` less those parallel to an earlier one."""
    dirs: list[np.ndarray] = []
    for u in axes:
        if not any(np.linalg.norm(np.cross(u, v)) <= 1e-6 for v in dirs):
            dirs.append(u)
    return dirs


def _perp(u: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to the unit vector ``u``."""
    a = _EX if abs(u[0]) < 0.9 else _EY
    v = np.cross(u, a)
    return v / np.linalg.norm(v)


def _arrowhead(tip, direction, normal, size) -> np.ndarray:
    """An open arrowhead (a 'V' in the plane of ``direction`` and ``normal``) at ``tip``."""
    back = tip - size * direction
    return np.array([back + 0.6 * size * normal, tip, back - 0.6 * size * normal])


def _arc_arrow(centre, axis, e1, radius, head) -> np.ndarray:
    """An arc arrow about ``axis`` through ``centre`` (the mark of a driven angle)."""
    e2 = np.cross(axis, e1)
    t = np.linspace(np.radians(-60), np.radians(200), 40)
    arc = centre + radius * (np.cos(t)[:, None] * e1 + np.sin(t)[:, None] * e2)
    tangent = -np.sin(t[-1]) * e1 + np.cos(t[-1]) * e2
    return _nan_join([arc, _arrowhead(arc[-1], tangent, np.cross(axis, tangent), head)],
                     dim=3)


def _double_arrow(centre, u, half, head) -> np.ndarray:
    """A double-headed arrow along the unit vector ``u``, centred on ``centre``."""
    n = _perp(u)
    a, b = centre - half * u, centre + half * u
    return _nan_join([np.array([a, b]), _arrowhead(b, u, n, head), _arrowhead(a, -u, n, head)],
                     dim=3)


# -- what a joint attaches to ------------------------------------------------------------------
def _rows(j: Joint) -> tuple:
    return tuple(getattr(type(j), "_rows", ()))


def _joint_frames(j: Joint) -> list:
    """``[(body, origin, quaternion), ...]`` of the joint frames of a frame or link joint."""
    p = j._p
    if isinstance(j, _FrameJoint):
        return [(j.bodies[0], p[0:3].copy(), p[3:7].copy()),
                (j.bodies[1], p[7:10].copy(), p[10:14].copy())]
    if isinstance(j, LinkJoint):
        pa, fa = frame_compose(p[0:3], p[3:7], p[7:10], p[10:14])  # frame1, then the precursor
        return [(j.bodies[0], pa, fa), (j.bodies[1], p[14:17].copy(), p[17:21].copy())]
    return []


def _slides(j: Joint) -> bool:
    """A prismatic or cylindrical joint: its body-2 point is anywhere on the rail."""
    rows = _rows(j)
    return isinstance(j, _FrameJoint) and "x" in rows and "y" in rows and "rx" in rows


def _attachments(j: Joint) -> list:
    """``[(body, local point), ...]`` where a joint attaches (the vertices of its bodies).

    Joints whose origins meet (revolute, spherical, universal, fixed), rods and link joints
    attach at both frame origins; a point-on-line or point-on-plane at its body-2 point;
    prismatic, cylindrical, planar and axis-only joints nowhere (their rails show them); an
    end effector at its point on the link. Any other joint class can say where it attaches by
    defining ``plot_points(self) -> [(body, (x, y, z)), ...]`` (body coordinates).
    """
    if isinstance(j, DriverJoint) and not isinstance(j, SpatialDistanceDriver):
        return []
    if isinstance(j, LinkJoint):
        return [(b, p) for b, p, _ in _joint_frames(j)]
    if isinstance(j, _FrameJoint):
        rows = _rows(j)
        frames = _joint_frames(j)
        if isinstance(j, SpatialDistance) or {"gx", "gy", "gz"} <= set(rows) or \
                {"x", "y", "z"} <= set(rows):
            return [(b, p) for b, p, _ in frames]
        if any(r in rows for r in ("x", "y", "z")) and not _slides(j) and \
                not {"rx", "ry"} <= set(rows):
            return [(frames[1][0], frames[1][1])]
        return []
    if isinstance(j, _LinkEndEffector):
        return [(j.bodies[1], j.param("point"))]
    hook = getattr(j, "plot_points", None)
    if callable(hook):
        out = []
        for b, p in hook():
            q = np.asarray(p, dtype=float)
            if q.shape != (3,):
                raise ValueError(f"{type(j).__name__}.plot_points must give (body, (x, y, z)) "
                                 f"pairs, got a point of shape {q.shape}")
            out.append((b, q))
        return out
    return []


def _pivot_axes(j: Joint) -> list:
    """``[(body, origin, axis), ...]`` (body coordinates) of a revolute-type joint's axes.

    Used to draw the links of spherical linkages, whose joint origins all coincide.
    """
    if isinstance(j, (SpatialRevolute, Cylindrical, Universal)):
        return [(b, c, quat_rotate(f, _EZ)) for b, c, f in _joint_frames(j)]
    if isinstance(j, RevoluteLink):
        return [(b, c, quat_rotate(f, j.param("axis"))) for b, c, f in _joint_frames(j)]
    return []


def _target(j: Joint):
    """``(reference body, local point)`` of an end effector's target, or None."""
    if not isinstance(j, _LinkEndEffector):
        return None
    if j._target_kind not in ("frame", "point") and not isinstance(j, PointDistanceEndEffector):
        return None
    pg, _ = frame_compose(j.param("reference_point"), j.param("reference_frame"),
                     j.param("target_translation"), j.param("target_quaternion"))
    return j.bodies[0], pg


def _axis_of(j: Joint):
    """``(body, centre, axis, x axis)`` (body-1 coordinates) of a revolute-type joint."""
    frames = _joint_frames(j)
    if isinstance(j, (SpatialRevolute, Cylindrical)):
        b, c, f = frames[0]
        return b, c, quat_rotate(f, _EZ), quat_rotate(f, _EX)
    if isinstance(j, RevoluteLink) or (isinstance(j, DHLink) and j.param("prismatic") == 0.0):
        b, c, f = frames[0]
        u = quat_rotate(f, j.param("axis") if isinstance(j, RevoluteLink) else _EZ)
        return b, c, u, _perp(u)
    return None


def _rail_of(j: Joint):
    """``(body 1, point, axis)`` (body-1 coordinates) of a joint that slides along a line."""
    if isinstance(j, (SpatialPrismatic, Cylindrical, SpatialPointOnLine)) or \
            (_slides(j) and isinstance(j, _FrameJoint)):
        b, c, f = _joint_frames(j)[0]
        return b, c, quat_rotate(f, _EZ)
    if isinstance(j, PrismaticLink) or (isinstance(j, DHLink) and j.param("prismatic") == 1.0):
        b, c, f = _joint_frames(j)[0]
        return b, c, quat_rotate(f, j.param("axis") if isinstance(j, PrismaticLink) else _EZ)
    return None


def _anchor_parts(j: Joint, ground: Body) -> list:
    """Body points that locate a joint on the drawing (for drivers and red notes)."""
    parts = list(_attachments(j))
    tgt = _target(j)
    if tgt is not None:
        parts.append(tgt)
    if parts:
        return parts
    if isinstance(j, SpatialDistanceDriver):
        return [(b, p) for b, p, _ in _joint_frames(j)]
    inner = getattr(j, "joint", None)
    if isinstance(inner, Joint):
        axis = _axis_of(inner) or _rail_of(inner)
        if axis is not None:
            return [(axis[0], axis[1])]
        return _anchor_parts(inner, ground)
    if isinstance(j, AngleCoupler):
        return [p for r in j.revolutes for p in _anchor_parts(r, ground)]
    frames = _joint_frames(j)
    if frames:
        return [(b, p) for b, p, _ in frames]
    moving = [b for b in j.bodies if not b.is_ground] or list(j.bodies)
    return [(b, np.zeros(3)) for b in moving] or [(ground, np.zeros(3))]
