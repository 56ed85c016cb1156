"""What a joint looks like: the points, axes, rails and circles that draw it.

:meth:`Joint.geometry <mechsolve.joints.Joint.geometry>` returns a :class:`Geometry`: numbers
only, each tied to the body it moves with (body coordinates). The drawings
(:mod:`mechsolve.plot`) move them with the bodies' poses and draw each kind the same way
whatever joint gave it, so a joint class is drawn by its ``geometry`` alone:

* ``points``: where the joint attaches, ``(body, point)``: the vertices of the bodies' outlines
  (on ground: where the ground symbols go);
* ``pins`` and ``welds``: markers (a pin's circle, a weld's square); ``pivots``: ground points
  under which a planar drawing hatches a pivot;
* ``rods``: segments between two body points (``driven``: a driver's, drawn in its colour);
* ``axes``: a hinge's axis on each of its bodies, ``(body, point, direction)`` (spatial);
  ``hinge``: the axis a driven angle turns about, with the direction its arc starts from;
* ``rails``: lines a point of another body slides on; ``circles``: pitch circles; ``racks``:
  a rack's pitch line against its pinion;
* ``target``: an end effector's goal point, with the point that must reach it;
* ``legs``: the segment between a sliding joint's two frame origins, whatever the slide;
* ``housings``: short segments along a joint's axes (drawn with ``joint_axes=True``);
* ``drive``: what a driver's arrow shows (see :class:`Drive`); ``anchor``: where a note or a
  driver without a drawn arrow is placed;
* ``chain``: a serial chain's joints as a function of its coordinates, ``(body, function)``;
* ``mount``: where a link joint sits on its inboard body, ``(body, point, outboard body)``
  (the first joint of an arm off its mounting body's origin stands on a pedestal).

Planar geometry has 2-vectors, spatial 3-vectors. A joint class of one's own gets the points
its :meth:`~mechsolve.joints.Joint.attachments` gives (``plot_points``) unless it overrides
``geometry``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Geometry", "Rod", "Axis", "Rail", "Circle", "Rack", "Drive"]


class Rod(NamedTuple):
    """A segment between ``end1`` and ``end2``, each ``(body, point)``."""

    end1: tuple
    end2: tuple
    driven: bool = False


class Axis(NamedTuple):
    """A joint's axis on ``body``: through ``point`` along the unit ``direction``; ``x`` a unit
    direction normal to it (where a driven angle's arc starts)."""

    body: Any
    point: np.ndarray
    direction: np.ndarray
    x: np.ndarray | None = None


class Rail(NamedTuple):
    """A line of ``body`` through ``point`` along ``direction`` on which ``follower`` (``(body,
    point)``) slides. ``block``: the follower's slide direction in its own coordinates when it
    is a slider block (a prismatic), else ``None`` (a pin in a slot)."""

    body: Any
    point: np.ndarray
    direction: np.ndarray
    follower: tuple
    block: np.ndarray | None = None


class Circle(NamedTuple):
    """A pitch circle of ``body`` about ``centre``; ``ring``: an internal gear's."""

    body: Any
    centre: np.ndarray
    radius: float
    ring: bool = False


class Rack(NamedTuple):
    """A rack of ``body``: its pitch line through ``point`` along ``direction``, meshing with a
    pinion of ``radius`` about ``centre`` of ``pinion``."""

    body: Any
    point: np.ndarray
    direction: np.ndarray
    pinion: Any
    centre: np.ndarray
    radius: float


class Drive(NamedTuple):
    """What a driver drives, for its arrow.

    ``kind``: ``"angle"`` (an arc about ``at``; spatially about ``axis``), ``"slide"`` (a
    double arrow beside ``at`` along ``along = (body, direction)``, the direction in that body's
    coordinates; ``rail``: the rail it slides on, spatially), ``"length"`` (along the rod
    ``ends``), ``"coordinate"`` (a double arrow at ``at`` along the global ``along``).
    """

    kind: str
    at: tuple | None = None
    along: tuple | None = None
    axis: Axis | None = None
    ends: tuple | None = None
    rail: Rail | None = None


@dataclass
class Geometry:
    """The drawing of a joint in its bodies' coordinates (see the module notes)."""

    points: list = field(default_factory=list)
    pins: list = field(default_factory=list)
    welds: list = field(default_factory=list)
    pivots: list = field(default_factory=list)
    rods: list = field(default_factory=list)
    axes: list = field(default_factory=list)
    hinge: Axis | None = None
    rails: list = field(default_factory=list)
    circles: list = field(default_factory=list)
    racks: list = field(default_factory=list)
    target: tuple | None = None
    legs: list = field(default_factory=list)
    housings: list = field(default_factory=list)
    drive: Drive | None = None
    anchor: list = field(default_factory=list)
    chain: tuple | None = None
    mount: tuple | None = None

    def where(self) -> list:
        """``[(body, point), ...]`` that locate the joint on a drawing (a note's anchor): its
        ``anchor``, else its points (and its target), else its rods' ends."""
        if self.anchor:
            return list(self.anchor)
        parts = list(self.points)
        if self.target is not None:
            parts.append(self.target[1])
        if not parts:
            parts = [end for rod in self.rods for end in (rod.end1, rod.end2)]
        return parts


def perpendicular(u: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to the unit 3-vector ``u``."""
    a = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    v = np.cross(u, a)
    return v / np.linalg.norm(v)


def driven(joint, motion: str = "angle") -> Geometry:
    """The geometry of a driver of ``joint``'s free ``motion`` (``"angle"``: hinge first, then
    rail; ``"slide"``: only the rail): in space, its arrow turns about the joint's hinge or
    slides along its rail, and is marked at the hinge (or the rail's point); otherwise it is
    marked where the joint is (:meth:`~mechsolve.joints.Joint.anchor`)."""
    g = joint.geometry()
    anchor = joint.anchor() if joint.dim == 2 else None
    if joint.dim == 3 and g.hinge is not None:
        anchor = [(g.hinge.body, g.hinge.point)]
        if motion == "angle":
            return Geometry(anchor=anchor, drive=Drive("angle", axis=g.hinge))
    if joint.dim == 3 and g.rails:
        rail = g.rails[0]
        return Geometry(anchor=anchor or [(rail.body, rail.point)],
                        drive=Drive("slide", rail=rail))
    return Geometry(anchor=anchor or joint.anchor())
