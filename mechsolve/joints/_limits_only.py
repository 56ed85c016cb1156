"""Limits on quantities no joint constrains: the distance between two body points.

A :class:`DistanceLimit` has no equations; it carries ``limits=(lower, upper)`` on the
distance between a point of each of two bodies (a cable that may not stretch past its length,
two parts that may not come closer than a clearance). The solver keeps it like any joint limit
(see :mod:`mechsolve._limits`): a pose the drivers fix beyond it raises
:class:`~mechsolve.SolveError` naming it and the excess, a sweep stops where it is reached.
"""

from __future__ import annotations

import numpy as np

from .._trig import angle_cos_sin
from .._validation import as_vector
from ..spatial._quat import cross, quat_rotate
from ._planar import _point
from .base import Joint, _is_spatial, dimension_dispatch

__all__ = ["DistanceLimit", "SpatialDistanceLimit"]


class DistanceLimit(Joint):
    """Limits on the distance between ``point1`` of ``body1`` and ``point2`` of ``body2``
    (body coordinates, or names of the bodies' points); no equations.

    Parameters
    ----------
    body1, body2 : Body
    point1, point2 : array_like or str
        The two points, in their bodies' coordinates (or point names).
    limits : (lower, upper)
        Bounds of the distance (either may be None), in the model's length unit.
    name : str, optional

    Notes
    -----
    ``joints.DistanceLimit`` builds the limit of its bodies' mechanism:

    * planar, this class::

        DistanceLimit(body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), *, limits=None,
                      name=None)

    * spatial, a :class:`~mechsolve.joints.SpatialDistanceLimit`::

        DistanceLimit(body1, body2, point1=(0.0, 0.0, 0.0), point2=(0.0, 0.0, 0.0), *,
                      limits=None, name=None)

    ``isinstance(limit, joints.DistanceLimit)`` holds for both.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> reach = mech.add(ms.joints.DistanceLimit(mech.ground, mech.body("coupler"),
    ...                                          (0.0, 0.0), (0.0, 1.0), limits=(None, 2.5),
    ...                                          name="reach"))
    >>> round(reach.limit_measure(), 6)        # the coupler point's distance from the origin
    1.820199
    """

    n_equations = 0
    layout = (("point1", 2), ("point2", 2))
    limit_quantity = "distance"
    attachment_points = ((0, "point1"), (1, "point2"))
    # No mirror: no equations.
    __new__ = dimension_dispatch("body1", "body2")

    def __init__(self, body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), *, limits=None,
                 name: str | None = None) -> None:
        if _is_spatial(body1) or _is_spatial(body2):
            raise TypeError("DistanceLimit is planar here: use joints.DistanceLimit with the "
                            "bodies of a planar mechanism, SpatialDistanceLimit in space")
        p1 = _point(point1, "point1", body1)
        p2 = _point(point2, "point2", body2)
        super().__init__((body1, body2), np.concatenate([p1, p2]), name=name)
        self._set_limits(limits)

    @classmethod
    def _phi(cls, P, X1, X2):
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
        return np.zeros(shape + (0,))

    @classmethod
    def _evaluate(cls, P, X1, X2):
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
        return np.zeros(shape + (0,)), [np.zeros(shape + (0, 3)), np.zeros(shape + (0, 3))]

    @classmethod
    def _gamma(cls, P, X1, X2, V1, V2):
        return cls._phi(P, X1, X2)

    @classmethod
    def _phi_p(cls, P, X1, X2):
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
        return np.zeros(shape + (0, P.shape[-1]))   # no equations

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        def arm(X, p):
            c, s = angle_cos_sin(X)
            return np.stack([c * p[..., 0] - s * p[..., 1], s * p[..., 0] + c * p[..., 1]], -1)

        a1, a2 = arm(X1, P[..., cls.sl.point1]), arm(X2, P[..., cls.sl.point2])
        d = X2[..., :2] + a2 - X1[..., :2] - a1
        L = np.sqrt(np.sum(d * d, axis=-1))
        u = d / np.maximum(L, 1e-300)[..., None]
        J1 = np.zeros(L.shape + (3,))
        J2 = np.zeros(L.shape + (3,))
        J1[..., :2] = -u
        J2[..., :2] = u
        # d(R p)/dtheta = (-a_y, a_x)
        J1[..., 2] = -(u[..., 1] * a1[..., 0] - u[..., 0] * a1[..., 1])
        J2[..., 2] = u[..., 1] * a2[..., 0] - u[..., 0] * a2[..., 1]
        return L, [J1, J2]


class SpatialDistanceLimit(Joint, variant_of=DistanceLimit):
    """Limits on the distance between ``point1`` of ``body1`` and ``point2`` of ``body2``, two
    bodies of a spatial mechanism; no equations. What ``joints.DistanceLimit`` builds from
    spatial bodies (see :class:`DistanceLimit`).

    Parameters
    ----------
    body1, body2 : SpatialBody
    point1, point2 : array_like (3,) or str
        The two points, in their bodies' coordinates (or point names).
    limits : (lower, upper)
        Bounds of the distance (either may be None), in the model's length unit.
    name : str, optional
    """

    n_equations = 0
    dims = (3,)
    layout = (("point1", 3), ("point2", 3))
    limit_quantity = "distance"
    attachment_points = ((0, "point1"), (1, "point2"))
    # No mirror: no equations.

    def __init__(self, body1, body2, point1=(0.0, 0.0, 0.0), point2=(0.0, 0.0, 0.0), *,
                 limits=None, name: str | None = None) -> None:
        p = [body.point(v) if isinstance(v, str) else as_vector(v, n, 3)
             for body, v, n in ((body1, point1, "point1"), (body2, point2, "point2"))]
        Joint.__init__(self, (body1, body2), np.concatenate(p), name=name)
        self._set_limits(limits)

    @classmethod
    def _evaluate(cls, P, X1, X2):
        shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
        return np.zeros(shape + (0,)), [np.zeros(shape + (0, 6)), np.zeros(shape + (0, 6))]

    # no equations: Phi, gamma and Phi_p are empty
    _phi = DistanceLimit.__dict__["_phi"]
    _gamma = DistanceLimit.__dict__["_gamma"]
    _phi_p = DistanceLimit.__dict__["_phi_p"]

    @classmethod
    def _limit_measure(cls, P, X1, X2):
        a1 = quat_rotate(X1[..., 3:7], P[..., cls.sl.point1])
        a2 = quat_rotate(X2[..., 3:7], P[..., cls.sl.point2])
        d = X2[..., :3] + a2 - X1[..., :3] - a1
        L = np.sqrt(np.sum(d * d, axis=-1))
        u = d / np.maximum(L, 1e-300)[..., None]
        J1 = np.concatenate([-u, -cross(a1, u)], axis=-1)
        J2 = np.concatenate([u, cross(a2, u)], axis=-1)
        return L, [J1, J2]
