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

The specs are derived from each class's constructor signature and parameter layout
(:attr:`mechsolve.joints.Joint.layout`): the bodies (``body1, body2, ...`` as ``bodies``), a
driven ``joint`` and a driver's ``value``, ``limits``, every argument named like a part of the
layout (``point1``, ``axis``, ``length``...: its kind from :data:`PART_KINDS`), and the frames
``frame1``, ``frame2``, ``precursor``, ``frame``, ``reference`` (the origin and quaternion
parts they fill, :data:`FRAME_PARTS`). What does not follow from them is listed here as the
exceptions (:data:`OVERRIDES`: arguments read otherwise, such as a gear's ``internal`` from the
sign of its second radius; :data:`SPECS`: classes whose arguments are not their parameters,
such as a centre of mass's bodies and masses). A new joint class whose constructor takes its
layout's parts by name is written and read with nothing added here.

Every joint class of :mod:`mechsolve.joints` has a spec; a joint made from SymPy expressions
takes its bodies and parameters (:func:`symbolic_spec`), its class is written in the file's
``joint_types``. A Joint subclass written in Python has no file form: :func:`codec_of` says so
by name. Further kinds: ``"pointlist"`` (points), ``"array"`` (a nested array of numbers),
``"coordinates"`` (joint coordinates: a joint's name, or ``[name, index]``) and ``"masses"``
(numbers or ``{mass, center}``).
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import joints
from ..joints import _end_effectors as _ee
from ..joints import _spatial as _sp
from ..spatial import Frame, Orientation

__all__ = ["CODECS", "codec_of", "driver_is_angle", "class_by_name", "limits_are_angles",
           "symbolic_spec", "spec_of", "PART_KINDS", "FRAME_PARTS", "OVERRIDES", "SPECS"]


def _frame(p: np.ndarray, q: np.ndarray) -> Frame:
    return Frame(np.array(p, dtype=float), Orientation(np.array(q, dtype=float), normalize=True))


def _bodies(j):
    return [b.name for b in j.bodies]


def _b(i):
    return lambda j: j.bodies[i].name


_IDENTITY = Frame()

#: The kind of each layout part a constructor argument of the same name fills.
PART_KINDS = {"point1": "points", "point2": "points", "axis": "direction", "length": "length",
              "radius": "length", "radius1": "length", "phase": "length", "d": "length",
              "a": "length", "angle": "angle", "theta": "angle", "alpha": "angle",
              "offset": "angle", "ratio": "number", "prismatic": "bool"}
#: Constructor arguments that place a frame: the layout parts (origin, quaternion) they fill.
FRAME_PARTS = {"frame1": ("point1", "frame1"), "frame2": ("point2", "frame2"),
               "precursor": ("precursor_point", "precursor_frame"), "frame": ("point", "frame"),
               "reference": ("reference_point", "reference_frame")}
#: Constructor arguments that are not written: shorthands for other arguments (a frame joint's
#: ``axis``), a link joint's starting value (the file's ``coordinates``), a mask given as axes,
#: the parameters a subclass appends (an end effector's ``extra``).
_NOT_WRITTEN = ("name", "axis", "s0", "mask", "extra")
#: Frames are written first, after the bodies, in this order (then the file reads as the
#: joint is placed); these arguments last.
_FIRST = ("frame1", "frame2", "precursor")
_LAST = ("center", "axes", "components")


def driver_is_angle(joint) -> bool:
    """Whether a driver's value is an angle (radians in Python, the file's angle unit in a
    model file) rather than a length."""
    if isinstance(joint, joints.AngleDriver):
        return True
    if isinstance(joint, joints.Driver):
        return joint.dim == 2 and joint.coordinate == "angle"
    if isinstance(joint, joints.CoordinateDriver):
        owner = joint.joint
        if isinstance(owner, joints.RevoluteLink | joints.CircleJoint):
            return True
        if isinstance(owner, joints.DHLink):
            return owner.param("prismatic") == 0.0
        lengths = getattr(owner, "coordinate_lengths", None)
        return lengths is not None and not bool(np.asarray(lengths)[joint.index])
    return False


def limits_are_angles(cls, kwargs) -> bool:
    """Whether the ``limits`` of a joint of class ``cls`` built from ``kwargs`` are angles
    (written in the file's angle unit) rather than lengths."""
    if cls.limit_quantity == "coordinate":
        if issubclass(cls, joints.DHLink):
            return not kwargs.get("prismatic", False)
        return not issubclass(cls, joints.PrismaticLink)
    return cls.limit_quantity in ("angle", "cone")


# -- the exceptions ------------------------------------------------------------------------------
def _prismatic_axis2(j):
    offset = j.param("offset")
    if offset == 0.0:
        return None
    a = j.param("axis")
    given = getattr(j, "_axis2", None)
    # the direction the joint was made with (read from a file, say), while it still gives the
    # offset: a file then reads back as written, where the direction of the angle could read
    # back an ulp away (about 1 in 100 random directions on NumPy 2.4, 1 in 20 on 1.24)
    if given is not None and np.arctan2(a[1], a[0]) - np.arctan2(given[1], given[0]) == offset:
        return given.copy()
    t = np.arctan2(a[1], a[0]) - offset
    return np.array([np.cos(t), np.sin(t)])


def _ee_target(j):
    kind = j._target_kind
    if kind == "scalar":
        return float(j.target)
    if kind == "point" and np.all(j.param("target_quaternion") == (1.0, 0.0, 0.0, 0.0)):
        return j.param("target_translation")
    return j.target_frame


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
            ("target", "points", lambda j: j.param("target_translation"), (0.0, 0.0, 0.0)),
            ("masses", "masses", _masses, None),
            ("relative_to", "body", lambda j: j.bodies[0].name, "ground"),
            ("reference", "frame", lambda j: _frame(j.param("reference_point"),
                                                    j.param("reference_frame")), _IDENTITY)]


def _ee_target_kind(kind):
    return {"target": (kind, _ee_target, None)}


#: Constructor arguments read otherwise than from a layout part of their name, by class (a
#: class's entry holds for its subclasses): ``{argument: (kind, read, default)}``; the default
#: ``...`` keeps the constructor's.
OVERRIDES: dict = {
    joints.Prismatic: {"axis2": ("direction", _prismatic_axis2, None)},
    joints.Gear: {"radius2": ("length", lambda j: abs(j.param("signed_radius2")), None),
                  "internal": ("bool", lambda j: bool(j.param("signed_radius2") < 0), False),
                  "carrier": ("body", _b(2), "ground")},
    joints.RackPinion: {"pinion": ("body", _b(1), None), "rack": ("body", _b(0), None),
                        "pinion_point": ("points", lambda j: j.param("point2"), (0.0, 0.0)),
                        "rack_point": ("points", lambda j: j.param("point1"), (0.0, 0.0))},
    joints.Driver: {"coordinate": ("string", lambda j: j.coordinate, None)},
    joints.SpatialDriver: {"coordinate": ("string", lambda j: j.coordinate, None)},
    joints.CoordinateDriver: {"index": ("int", lambda j: j.index, 0)},
    joints.AngleCoupler: {"revolute1": ("joint", lambda j: j.revolutes[0].name, None),
                          "revolute2": ("joint", lambda j: j.revolutes[1].name, None)},
    joints.GenericJoint: {"components": ("components", lambda j: list(type(j)._rows), None)},
    _ee._LinkEndEffector: {"link": ("body", lambda j: j.link.name, None),
                           "relative_to": ("body", lambda j: j.relative_to.name, "ground"),
                           **_ee_target_kind("frame")},
    joints.LinearConstraintEndEffector: _ee_target_kind("length"),
    joints.AxisRotateEndEffector: _ee_target_kind("angle"),
    joints.PointDistanceEndEffector: {**_ee_target_kind("length"),
                                      "center": ("points", lambda j: j.center, ...)},
    joints.GeneralSpatialEndEffector: {"axes": ("components",
                                                lambda j: list(type(j)._rows_spec), None)},
}

#: Classes whose constructor arguments are not their parameters: their specs in full.
SPECS: dict = {
    joints.CenterOfMassEndEffector: _com_end_effector(),
    joints.ProjectedCenterOfMassEndEffector: _com_end_effector(),
    joints.SewAngleEndEffector: [
        ("shoulder", "body", _b(0), None), ("elbow", "body", _b(1), None),
        ("wrist", "body", _b(2), None),
        ("target", "angle", lambda j: j.param("target_value"), 0.0),
        ("points", "pointlist", lambda j: [j.param(f"{k}_point")
                                           for k in ("shoulder", "elbow", "wrist")],
         [(0.0, 0.0, 0.0)] * 3),
        ("reference", "direction", lambda j: j.param("reference"), (0.0, 0.0, 1.0))],
    joints.CoordinatedJointEndEffector: [
        ("joints", "coordinates", lambda j: _coordinate_refs(j._refs), None),
        ("target", "points", lambda j: j.target, None)],
    joints.OneDofGripperEndEffector: [
        ("master", "coordinates1", lambda j: _coordinate_refs(j._refs[:1])[0], None),
        ("slaves", "coordinates", lambda j: _coordinate_refs(j._refs[1:]), []),
        ("target", "number", lambda j: j.target, 0.0),
        ("ratios", "points", lambda j: j.param("ratios_offsets")[:len(j._refs) - 1], None),
        ("offsets", "points", lambda j: j.param("ratios_offsets")[len(j._refs) - 1:], None)],
    joints.CoordinateCoupling: [
        ("joint1", "coordinates1", lambda j: _coordinate_refs(j._refs[:1])[0], None),
        ("joint2", "coordinates1", lambda j: _coordinate_refs(j._refs[1:])[0]
         if len(j._refs) > 1 else None, None),
        ("coefficients", "points", lambda j: j.param("coefficients"), None),
        ("reference1", "number", lambda j: j.param("reference1"), 0.0),
        ("reference2", "number", lambda j: j.param("reference2"), 0.0)],
    joints.SerialChain: [
        ("base", "body", _b(0), None),
        ("geometry", "array", lambda j: SerialChain_split(j)[0], None),
        ("kinds", "points", lambda j: SerialChain_split(j)[1], None),
        ("target", "frame", lambda j: j.target, _IDENTITY)],
}


def SerialChain_split(j):  # noqa: N802 (names the class it reads)
    geom, kinds, _ = joints.SerialChain._split(j._p, j.n_joints)
    return geom.copy(), kinds.copy()


# -- the derivation ------------------------------------------------------------------------------
def _override(cls, arg):
    for c in cls.__mro__:
        entry = OVERRIDES.get(c, {})
        if arg in entry:
            return entry[arg]
    return None


def _scalar_read(name, kind):
    if kind == "bool":
        return lambda j: bool(j.param(name))
    return lambda j: float(j.param(name))


def _argument(cls, param: inspect.Parameter, dim: int):
    """``(key, kind, read, default)`` of one constructor argument, or ``None`` for one that
    is not written; a TypeError for one the class's layout does not name."""
    arg = param.name
    default = None if param.default is param.empty else param.default
    layout = dict(cls.layout)
    override = _override(cls, arg)
    if override is not None:
        kind, read, given = override
        return arg, kind, read, default if given is ... else given
    if arg == "joint":
        return arg, "joint", lambda j: j.joint.name, None
    if arg == "body":
        return arg, "body", _b(0), None
    if arg == "value":
        return arg, "value", lambda j: j.value, default
    if arg == "limits":
        return arg, "limits", lambda j: j.limits, None
    if arg in FRAME_PARTS and all(part in layout for part in FRAME_PARTS[arg]):
        point, quaternion = FRAME_PARTS[arg]
        return (arg, "frame", lambda j: _frame(j.param(point), j.param(quaternion)),
                _IDENTITY if default is None else default)
    if arg in layout:
        kind = PART_KINDS.get(arg, "number" if layout[arg] == 1 else "points")
        if layout[arg] == 1:
            return arg, kind, _scalar_read(arg, kind), default
        size = layout[arg]
        return (arg, kind, lambda j: j.param(arg),
                (0.0,) * size if default is None and kind == "points" else default)
    if arg in _NOT_WRITTEN:
        return None
    raise TypeError(f"{cls.__name__}: the constructor argument {arg!r} is not a part of its "
                    "parameter layout: give it a kind and a read in OVERRIDES")


def spec_of(cls) -> list:
    """The argument specs of a joint class (see the module notes), derived from its
    constructor and its layout unless :data:`SPECS` lists it."""
    for c in cls.__mro__:
        if c in SPECS:
            return SPECS[c]
    dim = cls.dims[0]
    params = [p for p in inspect.signature(cls.__init__).parameters.values()][1:]
    bodies = [p.name for p in params if p.name.startswith("body") and p.name[4:].isdigit()]
    spec = []
    if bodies:
        n = len(bodies)
        spec.append(("bodies", "bodies", lambda j: _bodies(j)[:n], None))
    rest = [p for p in params if p.name not in bodies
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    rest.sort(key=lambda p: _FIRST.index(p.name) if p.name in _FIRST
              else len(_FIRST) + (p.name in _LAST))
    return spec + [e for e in (_argument(cls, p, dim) for p in rest) if e is not None]


def _file_classes() -> list:
    """Every joint class a file names (by its own name or its dispatching planar name)."""
    found = [getattr(joints, n) for n in joints.__all__]
    found = [c for c in found if isinstance(c, type) and issubclass(c, joints.Joint)
             and c not in (joints.Joint, joints.DriverJoint, joints.EndEffector,
                           joints.LinkJoint)]
    return found + [_sp._SharedCarrierCoupler]


#: ``{class: [(key, kind, read, default), ...]}`` -- see the module docstring.
CODECS: dict[type, list] = {cls: spec_of(cls) for cls in _file_classes()}


def _public_name(cls: type) -> str:
    """The name under which a class is written: the planar class for a spatial form (the
    constructor builds it from spatial bodies), ``GenericJoint`` for its subsets."""
    from ..joints.base import SPATIAL_VARIANTS

    for planar, spatial in SPATIAL_VARIANTS.items():
        if spatial is cls:
            return planar.__name__
    if issubclass(cls, joints.GenericJoint):
        return "GenericJoint"
    if issubclass(cls, joints.GeneralSpatialEndEffector):
        return "GeneralSpatialEndEffector"
    if cls is _sp._SharedCarrierCoupler:
        return "AngleCoupler"
    return cls.__name__


def symbolic_spec(cls) -> list:
    """Argument specs of a joint class made by :func:`mechsolve.symbolic.symbolic_joint`: its
    bodies, then its parameters by name (numbers, written as they are)."""
    defaults = {str(k): v for k, v in cls.definition.defaults.items()}
    return [("bodies", "bodies", _bodies, None)] + [
        (nm, "number", (lambda j, nm=nm: j.param(nm)), defaults.get(nm))
        for nm in cls.params]


def codec_of(joint):
    """``(type name, argument specs)`` of a joint, or a ValueError naming what cannot be
    saved yet."""
    from ..symbolic._joint import SymbolicJoint

    cls = type(joint)
    if isinstance(joint, SymbolicJoint):
        return cls.__name__, symbolic_spec(cls)
    spec = CODECS.get(cls)
    if spec is None and issubclass(cls, joints.GenericJoint):
        spec = CODECS[joints.GenericJoint]
    if spec is None and issubclass(cls, joints.GeneralSpatialEndEffector):
        spec = CODECS[joints.GeneralSpatialEndEffector]
    if spec is None:
        raise ValueError(f"{joint.describe()}: a {cls.__name__} cannot be written to a model "
                         "file (a joint class of your own has no file form; supported: "
                         f"{', '.join(sorted({_public_name(c) for c in CODECS}))})")
    return _public_name(cls), spec


def class_by_name(name: str, dim: int):
    """The joint class a file's ``type`` names in a mechanism of dimension ``dim``, with the
    argument specs of the class the constructor builds there (a planar class's spatial form
    from spatial bodies); ``(None, None)`` for a name that is not a class that can be read."""
    from ..joints.base import SPATIAL_VARIANTS

    cls = getattr(joints, name, None) if name in joints.__all__ else None
    if cls is None or not isinstance(cls, type):
        return None, None
    built = SPATIAL_VARIANTS.get(cls, cls) if dim == 3 else cls
    spec = CODECS.get(built)
    return (cls, spec) if spec is not None else (None, None)
