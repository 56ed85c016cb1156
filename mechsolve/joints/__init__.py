"""Joints and drivers.

Planar joints: :class:`Revolute`, :class:`Prismatic`, :class:`Fixed`, :class:`Distance`,
:class:`PointOnLine`, :class:`Gear`, :class:`RackPinion`. Drivers: :class:`Driver`,
:class:`AngleDriver`, :class:`SlideDriver`, :class:`DistanceDriver`. Write a new joint by
subclassing :class:`Joint` (see its docstring).
"""

from ._drivers import AngleDriver, DistanceDriver, Driver, SlideDriver
from ._planar import Distance, Fixed, Gear, PointOnLine, Prismatic, RackPinion, Revolute
from .base import DriverJoint, Joint

__all__ = [
    "Joint", "DriverJoint",
    "Revolute", "Prismatic", "Fixed", "Distance", "PointOnLine", "Gear", "RackPinion",
    "Driver", "AngleDriver", "SlideDriver", "DistanceDriver",
]
