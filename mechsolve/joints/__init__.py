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
is the joint axis): :class:`Revolute`, :class:`Prismatic`, :class:`Fixed`, :class:`Distance`,
:class:`PointOnLine` (the same classes: the dimension is taken from the bodies), and
:class:`Spherical`, :class:`Cylindrical`, :class:`Universal`, :class:`Planar`,
:class:`PointOnPlane`, :class:`ParallelAxes`, :class:`PerpendicularAxes`,
:class:`GenericJoint`; the drivers work on spatial joints too. :class:`CoordinateCoupling` ties
one joint coordinate to a polynomial of another (MuJoCo's joint equality).
"""

from ._couplings import CoordinateCoupling
from ._drivers import AngleDriver, CoordinateDriver, DistanceDriver, Driver, SlideDriver
from ._end_effectors import (
    END_EFFECTOR_KINDS,
    AccelerometerEndEffector,
    AxisRotateEndEffector,
    CenterOfMassEndEffector,
    CoordinatedJointEndEffector,
    DirectionalFrameEndEffector,
    EndEffector,
    FrameEndEffector,
    FreeSpinInZEndEffector,
    GeneralSpatialEndEffector,
    LinearConstraintEndEffector,
    LookAtEndEffector,
    OneDofGripperEndEffector,
    OrientationEndEffector,
    PlanarEndEffector,
    PointDistanceEndEffector,
    PointEndEffector,
    PointRotateEndEffector,
    ProjectedCenterOfMassEndEffector,
    RcmEndEffector,
    SewAngleEndEffector,
    SlideXSpinZEndEffector,
    SlidingEndEffector,
    XEndEffector,
    XYEndEffector,
)
from ._limits_only import DistanceLimit
from ._links import CircleJoint, DHLink, LinkJoint, PrismaticLink, RevoluteLink, SerialChain
from ._momentum import SpatialMomentumEndEffector
from ._planar import Distance, Fixed, Gear, PointOnLine, Prismatic, RackPinion, Revolute
from ._spatial import (
    AngleCoupler,
    Cylindrical,
    GenericJoint,
    ParallelAxes,
    PerpendicularAxes,
    Planar,
    PointOnPlane,
    Spherical,
    Universal,
)
from .base import DriverJoint, Joint

# Actin's velocity-level kind: a goal of Mechanism.velocity, not a Joint
END_EFFECTOR_KINDS["spatialMomentumEndEffector"] = SpatialMomentumEndEffector

__all__ = [
    "Joint", "DriverJoint",
    "Revolute", "Prismatic", "Fixed", "Distance", "PointOnLine", "Gear", "RackPinion",
    "DistanceLimit",
    "Driver", "AngleDriver", "SlideDriver", "DistanceDriver", "CoordinateDriver",
    "Spherical", "Cylindrical", "Universal", "Planar", "PointOnPlane", "ParallelAxes",
    "PerpendicularAxes", "GenericJoint", "AngleCoupler", "CoordinateCoupling",
    "EndEffector", "PointEndEffector", "FrameEndEffector", "DirectionalFrameEndEffector",
    "OrientationEndEffector", "AccelerometerEndEffector", "XEndEffector", "XYEndEffector",
    "LinearConstraintEndEffector", "PointDistanceEndEffector", "AxisRotateEndEffector",
    "LookAtEndEffector", "FreeSpinInZEndEffector", "SlidingEndEffector",
    "SlideXSpinZEndEffector", "PointRotateEndEffector", "PlanarEndEffector",
    "GeneralSpatialEndEffector", "RcmEndEffector", "CenterOfMassEndEffector",
    "ProjectedCenterOfMassEndEffector", "SewAngleEndEffector", "CoordinatedJointEndEffector",
    "OneDofGripperEndEffector", "SpatialMomentumEndEffector", "END_EFFECTOR_KINDS",
    "LinkJoint", "RevoluteLink", "PrismaticLink", "DHLink", "CircleJoint", "SerialChain",
]
