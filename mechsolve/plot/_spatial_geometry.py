"""The geometry of a spatial drawing: body poses, outlines, arrows.

Where a joint attaches and what draws it is the joint's own
(:meth:`mechsolve.joints.Joint.geometry`); here are the outline through a body's attachment
points (a sector for a link of a spherical linkage) and the templates of the driver arrows.
Numbers only: no matplotlib.
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ..joints._geometry import perpendicular as _perp
from ..spatial._quat import quat_rotate
from ._base import _nan_join

_EX, _EY, _EZ = np.eye(3)


# -- geometry ----------------------------------------------------------------------------------
def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 7)`` (position, quaternion) of ``body`` in the states ``(N, n)``."""
    if body.is_ground:
        out = np.zeros((len(states), 7))
        out[:, 3] = 1.0
        return out
    return states[:, body.mechanism.layout.body_slice(body)]


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
