"""Joints and drivers.

Planar joints: :class:`Revolute`, :class:`Prismatic`, :class:`Fixed`, :class:`Distance`,
:class:`PointOnLine`, :class:`Gear`, :class:`RackPinion`. Drivers: :class:`Driver`,
:class:`AngleDriver`, :class:`SlideDriver`, :class:`DistanceDriver`. Write a new joint by
subclassing :class:`Joint` (see its docstring).

End effectors (Actin's goal kinds, one class each: :class:`FrameEndEffector`,
:class:`PointEndEffector`, ...) constrain a frame of a body relative to a target that can be
changed between solves; link joints (:class:`RevoluteLink`, :class:`PrismaticLink`,
:class:`DHLink`, :class:`CircleJoint`, :class:`SerialChain`) carry their joint value as a
coordinate of their own.

Spatial joints (bodies of a ``Mechanism(dim=3)``, placed by a Frame on each body whose z axis
is the joint axis): :class:`Spherical`, :class:`Cylindrical`, :class:`Universal`,
:class:`Planar`, :class:`PointOnPlane`, :class:`ParallelAxes`, :class:`PerpendicularAxes`,
:class:`GenericJoint`, and the spatial forms :class:`SpatialRevolute`,
:class:`SpatialPrismatic`, :class:`SpatialFixed`, :class:`SpatialDistance`,
:class:`SpatialPointOnLine`, :class:`SpatialDistanceLimit` and the drivers
:class:`SpatialDriver`, :class:`SpatialAngleDriver`, :class:`SpatialSlideDriver`,
:class:`SpatialDistanceDriver`. ``Revolute``, ``Prismatic``, ``Fixed``, ``Distance``,
``PointOnLine``, ``DistanceLimit`` and the four drivers build the joint of their bodies'
mechanism: the planar class, or its spatial form from the bodies of a spatial mechanism
(``isinstance`` with the planar name holds for both; each class's docstring gives both calls).
:class:`CoordinateCoupling` ties one joint coordinate to a polynomial of another (MuJoCo's
joint equality).

Every public name comes from the ``__all__`` of its module: a joint is added by writing its
class (and its test builder in ``tests/_joint_cases.py``), nothing else.
"""

from . import (
    _couplings,
    _drivers,
    _end_effectors,
    _limits_only,
    _links,
    _momentum,
    _planar,
    _spatial,
    base,
)
from ._couplings import *  # noqa: F403
from ._drivers import *  # noqa: F403
from ._end_effectors import *  # noqa: F403
from ._limits_only import *  # noqa: F403
from ._links import *  # noqa: F403
from ._momentum import *  # noqa: F403
from ._planar import *  # noqa: F403
from ._spatial import *  # noqa: F403
from .base import *  # noqa: F403

# Actin's velocity-level kind: a goal of Mechanism.velocity, not a Joint
_end_effectors.END_EFFECTOR_KINDS["spatialMomentumEndEffector"] = (
    _momentum.SpatialMomentumEndEffector)

__all__ = [*base.__all__, *_planar.__all__, *_limits_only.__all__, *_drivers.__all__,
           *_spatial.__all__, *_couplings.__all__, *_end_effectors.__all__, *_momentum.__all__,
           *_links.__all__]
