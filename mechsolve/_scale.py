"""The characteristic length of a mechanism: the unit in which the solver measures lengths.

Tolerances, rank and singularity decisions, step limits and random kicks are all taken on
lengths divided by this scale (angles as they are), so that a model behaves the same in
micrometres, millimetres, metres or kilometres.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .joints.base import Joint

__all__ = ["characteristic_length"]


def _diameter(points: np.ndarray) -> float:
    """Diagonal of the bounding box of ``points (k, dim)`` (0 for fewer than two points)."""
    pts = points[np.all(np.isfinite(points), axis=1)]
    if len(pts) < 2:
        return 0.0
    return float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))


def characteristic_length(mech, groups=None) -> float:
    """The size of a mechanism from its geometry, independent of its current pose.

    The largest of: the diameter of ground's joint points, the diameter of every moving body's
    joint points (with the body's origin), and the lengths the joints carry themselves (rod
    lengths, an arm's reach). Mechanisms without any of these (bodies held only by drivers)
    take the spread of their bodies' positions; if that is zero too, 1.

    Nothing here depends on where the mechanism is placed: ground's origin (the world's) is
    not one of ground's points, and a moving body's points are in its own coordinates. A
    four-bar of size 4 drawn at ``(1e4, 1e4)`` has size 4, as at the origin.

    ``groups`` are the compiled system's joint groups (``cls``, ``joints``, stacked
    parameters ``P`` and body ``slots``, ground numbered after the moving bodies), which spare
    stacking the parameters again; joints whose class declares
    :attr:`~mechsolve.joints.Joint.attachment_parameters` are read in one pass per class.

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve._scale import characteristic_length
    >>> characteristic_length(ms.models.fourbar().mechanism)   # the ground pivots 4 apart
    4.0
    >>> far = ms.Mechanism()
    >>> crank = far.add_link("crank", O=(1e4, 1e4), A=(1e4 + 1.0, 1e4))
    >>> _ = far.add(ms.joints.Revolute.at(far.ground, crank, (1e4, 1e4)))
    >>> characteristic_length(far)   # the crank's length, not its distance to the origin
    1.0
    """
    dim = mech.dim
    n_bodies = len(mech.bodies)
    if groups is None:
        groups = _groups_of(mech.joints, n_bodies)
    keys, points, hints = [], [], [0.0]
    for g in groups:
        cls = g.cls
        if cls.attachment_parameters is not None and cls.attachments is Joint.attachments:
            for slot, sl in cls.attachment_parameters:
                idx = g.slots[slot]
                keys.append(np.where(idx == n_bodies, _GROUND, idx + 1))
                points.append(g.P[:, sl])
        else:
            for j in g.joints:
                for body, point in j.attachments():
                    keys.append([_GROUND if body.is_ground else body.index + 1])
                    points.append(np.asarray(point, dtype=float).reshape(1, dim))
        if cls.length_hint is not Joint.length_hint:
            hints.extend(j.length_hint() for j in g.joints)
    size = 0.0
    if keys:
        size = _largest_diameter(np.concatenate(keys).astype(np.intp),
                                 np.concatenate(points).reshape(-1, dim))
    size = max(size, float(max(hints)))
    if not (size > 0.0 and np.isfinite(size)):
        size = _diameter(np.array([b.position for b in mech.bodies]).reshape(-1, dim))
    return size if size > 0.0 and np.isfinite(size) else 1.0


#: The key of ground's points: the only body whose origin is not taken with its points (the
#: world's origin says where the mechanism is, not how large it is).
_GROUND = 0


class _Group(NamedTuple):
    cls: type
    joints: list
    P: np.ndarray
    slots: list


def _groups_of(joints, n_bodies: int) -> list:
    """The joints by class, with stacked parameters and body slots (ground = ``n_bodies``)."""
    by_class: dict[type, list] = {}
    for j in joints:
        by_class.setdefault((type(j), j._p.size, len(j.bodies)), []).append(j)
    out = []
    for (cls, _, n_slots), members in by_class.items():
        flat = [b._index for j in members for b in j._bodies]
        slots = np.array([n_bodies if i is None else i for i in flat],
                         dtype=np.intp).reshape(len(members), n_slots)
        out.append(_Group(cls, members, np.array([j._p for j in members]).reshape(len(members), -1),
                          [slots[:, s] for s in range(n_slots)]))
    return out


def _largest_diameter(keys: np.ndarray, points: np.ndarray) -> float:
    """The largest bounding-box diagonal of the groups of ``points (k, dim)`` that share a key,
    each moving body's group taken with the origin (its body's origin), ground's (key
    ``_GROUND``) without, in one vectorized pass."""
    finite = np.all(np.isfinite(points), axis=1)
    keys, points = keys[finite], points[finite]
    if not keys.size:
        return 0.0
    order = np.argsort(keys, kind="stable")
    keys, points = keys[order], points[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lo = np.minimum.reduceat(points, starts, axis=0)
    hi = np.maximum.reduceat(points, starts, axis=0)
    # a moving body's points are taken with its origin: its bounds include zero
    moving = (keys[starts] != _GROUND)[:, None]
    lo = np.where(moving, np.minimum(lo, 0.0), lo)
    hi = np.where(moving, np.maximum(hi, 0.0), hi)
    return float(np.sqrt(np.max(np.sum((hi - lo) ** 2, axis=1))))
