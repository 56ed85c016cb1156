"""How each joint class is written in a model file and built from one.

A joint's table in a model file is its constructor call written out: ``type`` (the class name
a user imports from :mod:`mechsolve.joints`), ``name``, then the constructor's arguments by
their names, in the file's units. :data:`CODECS` gives, per class, the arguments as
``(key, kind, read, default)``:

* ``key`` -- the constructor argument (and the file key);
* ``kind`` -- how the value is written: ``"body"`` / ``"bodies"`` (names), ``"joint"`` /
  ``"joints"`` (names of joints earlier in the file), ``"length"``, ``"angle"`` (degrees in a
  file whose ``units.angle`` is ``"deg"``), ``"number"``, ``"points"`` (a vector of lengths),
  ``"direction"``, ``"frame"`` (a table ``{position, orientation}``), ``"bool"``, ``"int"``,
  ``"string"``, ``"value"`` (a driver value: an angle or a length, see
  :func:`driver_is_angle`), ``"components"`` (GenericJoint's list of strings), ``"limits"``
  (``[lower, upper]``, or ``{lower = ...}`` / ``{upper = ...}`` for one side; angles or
  lengths as :func:`limits_are_angles` says);
* ``read(joint)`` -- the argument's value from a built joint (for saving);
* ``default`` -- the constructor's default: a key whose value equals it is not written.

Every joint class of :mod:`mechsolve.joints` is listed; a joint made from SymPy expressions
takes its bodies and parameters (:func:`symbolic_spec`), its class is written in the file's
``joint_types``. A Joint subclass written in Python has no file form: :func:`codec_of` says so
by name. Further kinds: ``"pointlist"`` (points), ``"array"`` (a nested array of numbers),
``"coordinates"`` (joint coordinates: a joint's name, or ``[name, index]``) and ``"masses"``
(numbers or ``{mass, center}``).
"""

from __future__ import annotations

import numpy as np

from ..joints import (
    AngleCoupler,
    AngleDriver,
    CircleJoint,
    CoordinateCoupling,
    CoordinateDriver,
    Cylindrical,
    DHLink,
    Distance,
    DistanceDriver,
    DistanceLimit,
    Driver,
    Fixed,
    Gear,
    GenericJoint,
    ParallelAxes,
    PerpendicularAxes,
    Planar,
    PointOnLine,
    PointOnPlane,
    Prismatic,
    PrismaticLink,
    RackPinion,
    Revolute,
    RevoluteLink,
    SerialChain,
    SlideDriver,
    Spherical,
    Universal,
)
from ..joints import _end_effectors as _ee
from ..joints import _limits_only as _lo
from ..joints import _spatial as _sp
from ..spatial import Frame, Orientation

__all__ = ["CODECS", "codec_of", "driver_is_angle", "class_by_name"]


def _frame(p: np.ndarray, q: np.ndarray) -> Frame:
    return Frame(np.array(p, dtype=float), Orientation(np.array(q, dtype=float), normalize=True))


def _bodies(j):
    return [b.name for b in j.bodies]


def _b(i):
    return lambda j: j.bodies[i].name


def _p(sl):
    return lambda j: j._p[sl].copy()


def _p1(i):
    return lambda j: float(j._p[i])


def driver_is_angle(joint) -> bool:
    """Whether a driver's value is an angle (radians in Python, the file's angle unit in a
    model file) rather than a length."""
    if isinstance(joint, AngleDriver):
        return True
    if isinstance(joint, Driver):
        return joint.dim == 2 and joint.coordinate == "angle"
    if isinstance(joint, CoordinateDriver):
        owner = joint.joint
        if isinstance(owner, RevoluteLink | CircleJoint):
            return True
        if isinstance(owner, DHLink):
            return owner._p[25] == 0.0
        lengths = getattr(owner, "coordinate_lengths", None)
        return lengths is not None and not bool(np.asarray(lengths)[joint.index])
    return False


def _prismatic_axis2(j):
    if j._p[6] == 0.0:
        return None
    a = j._p[4:6]
    given = getattr(j, "_axis2", None)
    # the direction the joint was made with (read from a file, say), while it still gives the
    # offset: a file then reads back as written, where the direction of the angle could read
    # back an ulp away (about 1 in 100 random directions on NumPy 2.4, 1 in 20 on 1.24)
    if given is not None and np.arctan2(a[1], a[0]) - np.arctan2(given[1], given[0]) == j._p[6]:
        return given.copy()
    t = np.arctan2(a[1], a[0]) - j._p[6]
    return np.array([np.cos(t), np.sin(t)])


# frames of a two-frame spatial joint: point1, frame1 (quaternion), point2, frame2
def _frame1(j):
    return _frame(j._p[0:3], j._p[3:7])


def _frame2(j):
    return _frame(j._p[7:10], j._p[10:14])


_IDENTITY = Frame()

_PLANAR2 = [("bodies", "bodies", _bodies, None),
            ("point1", "points", _p(slice(0, 2)), (0.0, 0.0)),
            ("point2", "points", _p(slice(2, 4)), (0.0, 0.0))]
_FRAMES = [("bodies", "bodies", _bodies, None),
           ("frame1", "frame", _frame1, _IDENTITY),
           ("frame2", "frame", _frame2, _IDENTITY)]


def _link_joint(extra):
    """Link joints: ``frame1``, ``frame2`` (of the second body), the precursor, ``s0``."""
    return ([("bodies", "bodies", _bodies, None),
             ("frame1", "frame", _frame1, _IDENTITY),
             ("frame2", "frame", lambda j: _frame(j._p[14:17], j._p[17:21]), _IDENTITY),
             ("precursor", "frame", lambda j: _frame(j._p[7:10], j._p[10:14]), _IDENTITY)]
            + extra)


def _link_end_effector(target_kind, extra=()):
    """End effectors on a link: the target is a frame, or a point when its orientation is the
    identity and the kind takes a point, or a number (``target_kind`` "length" or "angle")."""
    return ([("link", "body", lambda j: j.link.name, None),
             ("frame", "frame", lambda j: _frame(j._p[7:10], j._p[10:14]), _IDENTITY),
             ("target", target_kind, _ee_target, None),
             ("relative_to", "body", lambda j: j.relative_to.name, "ground"),
             ("reference", "frame", lambda j: _frame(j._p[0:3], j._p[3:7]), _IDENTITY)]
            + list(extra))


def _ee_target(j):
    kind = j._target_kind
    if kind == "scalar":
        return float(j.target)
    if kind == "point" and np.all(j._p[17:21] == (1.0, 0.0, 0.0, 0.0)):
        return j._p[14:17].copy()
    return j.target_frame


def _limits(j):
    """``limits=``: ``None``, or ``(lower, upper)`` (``None`` for an open side)."""
    return j.limits


def limits_are_angles(cls, kwargs) -> bool:
    """Whether the ``limits`` of a joint of class ``cls`` built from ``kwargs`` are angles
    (written in the file's angle unit) rather than lengths."""
    if cls.limit_quantity == "coordinate":
        if issubclass(cls, DHLink):
            return not kwargs.get("prismatic", False)
        return not issubclass(cls, PrismaticLink)
    return cls.limit_quantity in ("angle", "cone")


_LIMITS = [("limits", "limits", _limits, None)]

#: ``{class: [(key, kind, read, default), ...]}`` -- see the module docstring.
CODECS: dict[type, list] = {
    Revolute: _PLANAR2 + _LIMITS,
    Fixed: _PLANAR2 + [("angle", "angle", _p1(4), 0.0)],
    DistanceLimit: _PLANAR2 + _LIMITS,
    _lo.SpatialDistanceLimit: [("bodies", "bodies", _bodies, None),
                               ("point1", "points", _p(slice(0, 3)), (0.0, 0.0, 0.0)),
                               ("point2", "points", _p(slice(3, 6)), (0.0, 0.0, 0.0))] + _LIMITS,
    Distance: _PLANAR2 + [("length", "length", _p1(4), 1.0)],
    PointOnLine: _PLANAR2 + [("axis", "direction", _p(slice(4, 6)), (1.0, 0.0))],
    Prismatic: _PLANAR2 + [("axis", "direction", _p(slice(4, 6)), (1.0, 0.0)),
                           ("axis2", "direction", _prismatic_axis2, None)] + _LIMITS,
    Gear: [("bodies", "bodies", lambda j: _bodies(j)[:2], None),
           ("radius1", "length", _p1(0), None),
           ("radius2", "length", lambda j: abs(float(j._p[1])), None),
           ("internal", "bool", lambda j: bool(j._p[1] < 0), False),
           ("carrier", "body", _b(2), "ground"),
           ("phase", "length", _p1(2), 0.0)],
    RackPinion: [("pinion", "body", _b(1), None), ("rack", "body", _b(0), None),
                 ("radius", "length", _p1(6), None),
                 ("pinion_point", "points", _p(slice(2, 4)), (0.0, 0.0)),
                 ("rack_point", "points", _p(slice(0, 2)), (0.0, 0.0)),
                 ("axis", "direction", _p(slice(4, 6)), (1.0, 0.0)),
                 ("phase", "length", _p1(7), 0.0)],
    Driver: [("body", "body", _b(0), None),
             ("coordinate", "string", lambda j: j.coordinate, None),
             ("value", "value", lambda j: j.value, 0.0)],
    AngleDriver: [("joint", "joint", lambda j: j.joint.name, None),
                  ("value", "value", lambda j: j.value, 0.0)],
    SlideDriver: [("joint", "joint", lambda j: j.joint.name, None),
                  ("value", "value", lambda j: j.value, 0.0)],
    DistanceDriver: [("bodies", "bodies", _bodies, None),
                     ("point1", "points", _p(slice(0, 2)), (0.0, 0.0)),
                     ("point2", "points", _p(slice(2, 4)), (0.0, 0.0)),
                     ("value", "value", lambda j: j.value, 1.0)],
    CoordinateDriver: [("joint", "joint", lambda j: j.joint.name, None),
                       ("value", "value", lambda j: j.value, 0.0),
                       ("index", "int", lambda j: j.index, 0)],
    AngleCoupler: [("revolute1", "joint", lambda j: j.revolutes[0].name, None),
                   ("revolute2", "joint", lambda j: j.revolutes[1].name, None),
                   ("ratio", "number", _p1(28), None),
                   ("offset", "angle", _p1(29), None)],
    Spherical: _FRAMES + _LIMITS, Cylindrical: _FRAMES, Universal: _FRAMES, Planar: _FRAMES,
    PointOnPlane: _FRAMES, ParallelAxes: _FRAMES, PerpendicularAxes: _FRAMES,
    _sp.SpatialRevolute: _FRAMES + _LIMITS, _sp.SpatialPrismatic: _FRAMES + _LIMITS,
    _sp.SpatialFixed: _FRAMES,
    _sp.SpatialPointOnLine: _FRAMES,
    GenericJoint: _FRAMES + [("components", "components", lambda j: list(type(j)._rows), None)],
    _sp.SpatialDistance: [("bodies", "bodies", _bodies, None),
                          ("point1", "points", _p(slice(0, 3)), (0.0, 0.0, 0.0)),
                          ("point2", "points", _p(slice(7, 10)), (0.0, 0.0, 0.0)),
                          ("length", "length", _p1(14), 1.0)],
    _sp.SpatialDistanceDriver: [("bodies", "bodies", _bodies, None),
                                ("point1", "points", _p(slice(0, 3)), (0.0, 0.0, 0.0)),
                                ("point2", "points", _p(slice(7, 10)), (0.0, 0.0, 0.0)),
                                ("value", "value", lambda j: j.value, 1.0)],
    RevoluteLink: _link_joint([("axis", "direction", _p(slice(21, 24)), (0.0, 0.0, 1.0))]
                              + _LIMITS),
    PrismaticLink: _link_joint([("axis", "direction", _p(slice(21, 24)), (0.0, 0.0, 1.0))]
                               + _LIMITS),
    DHLink: _link_joint([("d", "length", _p1(22), 0.0), ("a", "length", _p1(23), 0.0),
                         ("alpha", "angle", _p1(24), 0.0), ("theta", "angle", _p1(21), 0.0),
                         ("prismatic", "bool", lambda j: bool(j._p[25]), False)] + _LIMITS),
    CircleJoint: _link_joint([("radius", "length", _p1(21), 1.0)]),
}
for _cls in (_ee.PointEndEffector, _ee.FrameEndEffector, _ee.DirectionalFrameEndEffector,
             _ee.AccelerometerEndEffector, _ee.XEndEffector, _ee.XYEndEffector,
             _ee.LookAtEndEffector, _ee.FreeSpinInZEndEffector, _ee.SlidingEndEffector,
             _ee.SlideXSpinZEndEffector, _ee.PointRotateEndEffector, _ee.PlanarEndEffector,
             _ee.RcmEndEffector, _ee.OrientationEndEffector):
    CODECS[_cls] = _link_end_effector("frame")
CODECS[_ee.LinearConstraintEndEffector] = _link_end_effector("length")
CODECS[_ee.AxisRotateEndEffector] = _link_end_effector("angle")
CODECS[_ee.PointDistanceEndEffector] = _link_end_effector(
    "length", [("center", "points", lambda j: j.center, (0.0, 0.0, 0.0))])

def _coordinate_refs(refs):
    """Joint coordinates an end effector reads: a joint's name (its first coordinate) or
    ``[name, index]``."""
    return [j.name if k == 0 else [j.name, int(k)] for j, k in refs]


def _masses(j):
    """A center-of-mass end effector's bodies' masses: a number (a point mass at the body's
    origin) or ``{mass, center}``."""
    out = []
    for mp in j.masses:
        c = np.asarray(mp.center_of_mass, dtype=float)
        out.append(float(mp.mass) if not np.any(c) else
                   {"mass": float(mp.mass), "center": [float(x) for x in c]})
    return out


def _com_end_effector():
    return [("bodies", "bodies", lambda j: [b.name for b in j.bodies[1:]], None),
            ("target", "points", lambda j: j._p[7:10].copy(), (0.0, 0.0, 0.0)),
            ("masses", "masses", _masses, None),
            ("relative_to", "body", lambda j: j.bodies[0].name, "ground"),
            ("reference", "frame", lambda j: _frame(j._p[0:3], j._p[3:7]), _IDENTITY)]


CODECS[_ee.GeneralSpatialEndEffector] = _link_end_effector(
    "frame", [("axes", "components", lambda j: list(type(j)._rows_spec), None)])
CODECS[_ee.CenterOfMassEndEffector] = _com_end_effector()
CODECS[_ee.ProjectedCenterOfMassEndEffector] = _com_end_effector()
CODECS[_ee.SewAngleEndEffector] = [
    ("shoulder", "body", _b(0), None), ("elbow", "body", _b(1), None),
    ("wrist", "body", _b(2), None),
    ("target", "angle", lambda j: float(j._p[12]), 0.0),
    ("points", "pointlist", lambda j: [j._p[3 * k:3 * k + 3].copy() for k in range(3)],
     [(0.0, 0.0, 0.0)] * 3),
    ("reference", "direction", lambda j: j._p[9:12].copy(), (0.0, 0.0, 1.0))]
CODECS[_ee.CoordinatedJointEndEffector] = [
    ("joints", "coordinates", lambda j: _coordinate_refs(j._refs), None),
    ("target", "points", lambda j: j._p.copy(), None)]
CODECS[_ee.OneDofGripperEndEffector] = [
    ("master", "coordinates1", lambda j: _coordinate_refs(j._refs[:1])[0], None),
    ("slaves", "coordinates", lambda j: _coordinate_refs(j._refs[1:]), []),
    ("target", "number", lambda j: float(j._p[0]), 0.0),
    ("ratios", "points", lambda j: j._p[1:1 + len(j._refs) - 1].copy(), None),
    ("offsets", "points", lambda j: j._p[len(j._refs):].copy(), None)]
CODECS[CoordinateCoupling] = [
    ("joint1", "coordinates1", lambda j: _coordinate_refs(j._refs[:1])[0], None),
    ("joint2", "coordinates1", lambda j: _coordinate_refs(j._refs[1:])[0] if len(j._refs) > 1
     else None, None),
    ("coefficients", "points", lambda j: j._p[:5].copy(), None),
    ("reference1", "number", lambda j: float(j._p[5]), 0.0),
    ("reference2", "number", lambda j: float(j._p[6]), 0.0)]
CODECS[SerialChain] = [
    ("base", "body", _b(0), None),
    ("geometry", "array", lambda j: j._p[:(j._n + 2) * 12].reshape(-1, 3, 4).copy(), None),
    ("kinds", "points", lambda j: j._p[(j._n + 2) * 12:(j._n + 2) * 12 + j._n].copy(), None),
    ("target", "frame", lambda j: j.target, _IDENTITY)]

# the spatial twins of the drivers (same arguments as their planar classes)
CODECS[_sp.SpatialDriver] = CODECS[Driver]
CODECS[_sp.SpatialAngleDriver] = CODECS[AngleDriver]
CODECS[_sp.SpatialSlideDriver] = CODECS[SlideDriver]
CODECS[_sp._SharedCarrierCoupler] = CODECS[AngleCoupler]


def _public_name(cls: type) -> str:
    """The name under which a class is written: the planar class for a spatial twin (the
    constructor builds the twin from spatial bodies), ``GenericJoint`` for its subsets."""
    from ..joints.base import SPATIAL_VARIANTS

    for planar, twin in SPATIAL_VARIANTS.items():
        if twin is cls:
            return planar.__name__
    if issubclass(cls, GenericJoint):
        return "GenericJoint"
    if issubclass(cls, _ee.GeneralSpatialEndEffector):
        return "GeneralSpatialEndEffector"
    if cls is _sp._SharedCarrierCoupler:
        return "AngleCoupler"
    return cls.__name__


def symbolic_spec(cls) -> list:
    """Argument specs of a joint class made by :func:`mechsolve.symbolic.symbolic_joint`: its
    bodies, then its parameters by name (numbers, written as they are)."""
    defaults = {str(k): v for k, v in cls.definition.defaults.items()}
    return [("bodies", "bodies", _bodies, None)] + [
        (nm, "number", (lambda j, i=i: float(j._p[i])), defaults.get(nm))
        for i, nm in enumerate(cls.params)]


def codec_of(joint):
    """``(type name, argument specs)`` of a joint, or a ValueError naming what cannot be
    saved yet."""
    from ..symbolic._joint import SymbolicJoint

    cls = type(joint)
    if isinstance(joint, SymbolicJoint):
        return cls.__name__, symbolic_spec(cls)
    spec = CODECS.get(cls)
    if spec is None and issubclass(cls, GenericJoint):
        spec = CODECS[GenericJoint]
    if spec is None and issubclass(cls, _ee.GeneralSpatialEndEffector):
        spec = CODECS[_ee.GeneralSpatialEndEffector]
    if spec is None:
        raise ValueError(f"{joint.describe()}: a {cls.__name__} cannot be written to a model "
                         "file (a joint class of your own has no file form; supported: "
                         f"{', '.join(sorted({_public_name(c) for c in CODECS}))})")
    return _public_name(cls), spec


def class_by_name(name: str, dim: int):
    """The joint class a file's ``type`` names in a mechanism of dimension ``dim``, with the
    argument specs of the class the constructor builds there (a planar class's spatial twin
    from spatial bodies); ``(None, None)`` for a name that is not a class that can be read."""
    from .. import joints
    from ..joints.base import SPATIAL_VARIANTS

    cls = getattr(joints, name, None) if name in joints.__all__ else None
    if cls is None or not isinstance(cls, type):
        return None, None
    built = SPATIAL_VARIANTS.get(cls, cls) if dim == 3 else cls
    spec = CODECS.get(built)
    return (cls, spec) if spec is not None else (None, None)
