"""The geometry of a planar drawing: body poses, outlines, arrow templates.

Where a joint sits and what draws it is the joint's own (:meth:`mechsolve.joints.Joint.geometry`);
here are the outline through a body's joint points and the templates of the driver arrows.
Numbers only: no matplotlib.
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ._base import _nan_join


# -- poses -------------------------------------------------------------------------------------
def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 3)`` of ``body`` in the states ``(N, n)`` (the layout of Motion.pose)."""
    if body.is_ground:
        return np.zeros((len(states), 3))
    return states[:, body.mechanism.layout.body_slice(body)]


def _transform(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Global coordinates ``(N, k, 2)`` of local points ``(k, 2)`` at poses ``(N, 3)``."""
    c = np.cos(X[:, 2])[:, None]
    s = np.sin(X[:, 2])[:, None]
    gx = X[:, 0, None] + c * pts[None, :, 0] - s * pts[None, :, 1]
    gy = X[:, 1, None] + s * pts[None, :, 0] + c * pts[None, :, 1]
    return np.stack([gx, gy], axis=-1)


# -- outlines --------------------------------------------------------------------------------
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

