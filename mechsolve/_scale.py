"""The characteristic length of a mechanism: the unit in which the solver measures lengths.

Tolerances, rank and singularity decisions, step limits and random kicks are all taken on
lengths divided by this scale (angles as they are), so that a model behaves the same in
micrometres, millimetres, metres or kilometres.
"""

from __future__ import annotations

import numpy as np

__all__ = ["characteristic_length"]


def _diameter(points: np.ndarray) -> float:
    """Diagonal of the bounding box of ``points (k, dim)`` (0 for fewer than two points)."""
    pts = points[np.all(np.isfinite(points), axis=1)]
    if len(pts) < 2:
        return 0.0
    return float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))


def characteristic_length(mech) -> float:
    """The size of a mechanism from its geometry, independent of its current pose.

    The largest of: the diameter of ground's joint points (with ground's origin), the diameter
    of every moving body's joint points (with the body's origin), and the lengths the joints
    carry themselves (rod lengths, an arm's reach). Mechanisms without any of these (bodies
    held only by drivers) take the spread of their bodies' positions; if that is zero too, 1.

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve._scale import characteristic_length
    >>> characteristic_length(ms.models.fourbar().mechanism)   # the ground pivots 4 apart
    4.0
    """
    dim = mech.dim
    per_body: dict[int, list] = {}
    hints = [0.0]
    for j in mech.joints:
        for body, point in j.attachments():
            per_body.setdefault(id(body), [np.zeros(dim)]).append(
                np.asarray(point, dtype=float).reshape(dim))
        hints.append(float(j.length_hint()))
    sizes = [_diameter(np.array(pts)) for pts in per_body.values()]
    size = max(sizes + hints)
    if not (size > 0.0 and np.isfinite(size)):
        positions = np.array([np.zeros(dim)] + [b.position for b in mech.bodies])
        size = _diameter(positions)
    return size if size > 0.0 and np.isfinite(size) else 1.0
