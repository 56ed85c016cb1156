"""Writing model files: a mechanism as TOML text (see :mod:`mechsolve.files` for the format).

This module reads only the objects it is given (bodies, joints, profiles, sweeps, arms placed
from a file): it imports no mechanism and no robot. Private: :mod:`mechsolve.files` is the
public face.
"""

from __future__ import annotations

import json
import math
import os
import pathlib

import numpy as np

from .. import profiles
from ..io._expressions import check
from ..io._joint_codecs import codec_of, driver_is_angle
from ..spatial import Frame

__all__ = ["dumps", "save", "NamedSweep", "RobotEntry", "FORMAT_VERSION", "MAX_MAGNITUDE",
           "MAX_SWEEP_VALUES"]

#: The format version this module writes and :mod:`mechsolve.files` reads (the file's
#: ``mechsolve`` key).
FORMAT_VERSION = 1
#: Bound on the magnitude of every number in a model file: the reader refuses larger ones,
#: so the writer refuses to write them.
MAX_MAGNITUDE = 1e15
#: Most sweep values a model file holds, all its sweeps together.
MAX_SWEEP_VALUES = 10**7
#: Motion profiles a model file holds, by class name (:mod:`mechsolve.profiles`).
PROFILES = ("ConstantSpeed", "Cubic", "Quintic", "Cycloidal", "Expression")


class NamedSweep:
    """A sweep kept with a mechanism (a model file's ``[[sweeps]]``): the driver's name and
    its values (radians for an angle driver)."""

    __slots__ = ("driver", "values", "output")

    def __init__(self, driver: str, values, output=()) -> None:
        self.driver = str(driver)
        self.values = np.array(values, dtype=float).reshape(-1)
        self.output = tuple(output)

    def __repr__(self) -> str:
        return (f"NamedSweep(driver={self.driver!r}, {len(self.values)} values from "
                f"{self.values[0]:g} to {self.values[-1]:g})" if len(self.values) else
                f"NamedSweep(driver={self.driver!r}, no values)")


class RobotEntry:
    """A serial arm placed in a mechanism from a model file's ``[[robots]]`` table: the table
    (``spec``, as read, in radians), the arm, and the names of the bodies and joints it made
    (which saving leaves out: it writes the table again, with the arm's current joint values).
    """

    __slots__ = ("spec", "arm", "bodies", "joints", "end_effector", "drivers")

    def __init__(self, spec, arm, bodies, joints, end_effector=None, drivers=()) -> None:
        self.spec = dict(spec)
        self.arm = arm
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.end_effector = end_effector
        self.drivers = tuple(drivers)

    def __repr__(self) -> str:
        return f"RobotEntry({self.arm!r}, links {list(self.bodies)})"


def _robot_table(entry: RobotEntry, mech, w: _Writer) -> dict:
    """The ``[[robots]]`` table of an arm placed from a model file, at its current joint
    values (and target)."""
    s = entry.spec
    out = {"name": s["name"]}
    if "dh" in s:
        out["dh"] = [[d, a, w.angle(alpha)] for d, a, alpha in s["dh"]]
        if any(s["prismatic"]):
            out["prismatic"] = list(s["prismatic"])
        if any(s["theta"]):
            out["theta"] = [w.angle(x) for x in s["theta"]]
    else:
        out["urdf"] = s["urdf"]
        if s.get("tip") is not None:
            out["tip"] = s["tip"]
    if s["mount"] != "ground":
        out["mount"] = s["mount"]
    if "base" in s:
        out["base"] = _write_value("frame", s["base"], w)
    link_joints = [mech.joint(n) for n in entry.joints[:entry.arm.n_joints]]
    if entry.drivers:
        q = [d.value for d in entry.drivers]
    else:
        q = [float(j.coordinates[0]) for j in link_joints]
    if any(q):
        out["q"] = [w.angle(v) if kind == 0.0 else float(v)
                    for v, kind in zip(q, entry.arm._kinds)]
    if entry.end_effector is not None:
        t = entry.end_effector.target_frame
        out["target"] = _write_value("frame", t if isinstance(t, Frame) else Frame(t), w)
    if entry.drivers:
        out["drivers"] = True
    return out


def _type_table(cls) -> dict:
    """The ``joint_types`` entry of a symbolic joint class."""
    d = cls.definition
    labels = [b.label for b in d.bodies]
    out = {"name": cls.__name__,
           "bodies": len(labels) if labels == [str(i + 1) for i in range(len(labels))]
           else labels}
    if d.params:
        out["params"] = [str(s) for s in d.params]
    if d.coordinates:
        out["coordinates"] = [str(s) for s in d.coordinates]
    if d.time is not None:
        out["time"] = str(d.time)
    if d.labels:
        out["labels"] = list(d.labels)
    if d.defaults:
        out["defaults"] = {str(k): float(v) for k, v in d.defaults.items()}
    out["phi"] = list(getattr(cls, "phi_text", None) or [str(e) for e in d.phi])
    return out


# -- writing ------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, mech) -> None:
        self.deg = mech.units.get("angle") == "deg"

    def angle(self, x: float) -> float:
        return float(f"{math.degrees(x):.15g}") if self.deg else float(x)


def _is_default(v, default) -> bool:
    if default is None:
        return v is None
    if isinstance(default, Frame):
        return isinstance(v, Frame) and bool(
            np.all(np.asarray(v.translation) == 0.0)
            and np.all(np.asarray(v.quaternion) == (1.0, 0.0, 0.0, 0.0)))
    if isinstance(v, Frame):
        return False
    if isinstance(default, str):
        return v == default
    try:
        return bool(np.array_equal(np.asarray(v, dtype=float), np.asarray(default, dtype=float)))
    except (TypeError, ValueError):
        return False


def _write_value(kind: str, v, w: _Writer, angle_value: bool = False):
    if kind in ("body", "joint", "string"):
        return v
    if kind in ("bodies", "components", "coordinates", "coordinates1", "masses"):
        return list(v) if isinstance(v, list | tuple) else v
    if kind == "pointlist":
        return [[float(x) for x in np.asarray(p, dtype=float)] for p in v]
    if kind == "array":
        return np.asarray(v, dtype=float).tolist()
    if kind in ("length", "number"):
        return float(v)
    if kind == "angle" or (kind == "value" and angle_value):
        return w.angle(v)
    if kind == "value":
        return float(v)
    if kind in ("points", "direction"):
        return [float(x) for x in np.asarray(v, dtype=float)]
    if kind == "frame":
        if not isinstance(v, Frame):
            return {"position": [float(x) for x in v]}
        out = {}
        t = np.asarray(v.translation, dtype=float)
        q = np.asarray(v.quaternion, dtype=float)
        if np.any(t != 0.0):
            out["position"] = [float(x) for x in t]
        if np.any(q != (1.0, 0.0, 0.0, 0.0)):
            out["orientation"] = [float(x) for x in q]
        return out
    if kind == "bool":
        return bool(v)
    if kind == "limits":
        lo, hi = (None if x is None else (w.angle(x) if angle_value else float(x)) for x in v)
        if lo is not None and hi is not None:
            return [lo, hi]
        return {"lower": lo} if lo is not None else {"upper": hi}
    if kind == "int":
        return int(v)
    raise AssertionError(kind)  # pragma: no cover


def _write_profile(p, angle: bool, w: _Writer) -> dict:
    kind = type(p).__name__
    if type(p) not in tuple(getattr(profiles, k) for k in PROFILES):
        raise ValueError(f"a {kind} profile cannot be written to a model file yet (supported: "
                         f"{', '.join(PROFILES)})")

    def val(x):
        return w.angle(x) if angle else float(x)

    if kind == "Expression":
        import sympy as sp  # only a profile made from SymPy expressions gets here

        expr, = p.expressions[:1]
        ts = sorted(expr.free_symbols, key=str)
        tname = str(ts[0]) if ts else "t"
        deg = angle and w.deg
        source = getattr(p, "source_text", None)
        if source is not None and source[2] == deg:
            text, tname = source[0], source[1]     # as it was read
        else:
            text = str(expr * 180 / sp.pi if deg else expr)
        out = {"type": kind, "expression": text}
        if tname != "t":
            out["t"] = tname
        return out

    if kind == "ConstantSpeed":
        out = {"type": kind, "speed": val(p.speed)}
        if p.start != 0.0:
            out["start"] = val(p.start)
        if p.t0 != 0.0:
            out["t0"] = float(p.t0)
        return out
    return {"type": kind, "t0": float(p.t0), "t1": float(p.t1), "v0": val(p.v0),
            "v1": val(p.v1)}


#: Which body slot a point argument belongs to (for writing it by the body's point name).
_POINT_SLOTS = {"point1": 0, "point2": 1, "frame1": 0, "frame2": 1}


def _named_point(joint, key, v):
    """The name of the body point that the point (or identity-oriented frame) ``v`` of the
    argument ``key`` is, or None: a joint built from named points is written with them."""
    slot = _POINT_SLOTS.get(key)
    if slot is None or slot >= len(joint.bodies):
        return None
    if isinstance(v, Frame):
        if np.any(np.asarray(v.quaternion) != (1.0, 0.0, 0.0, 0.0)):
            return None
        v = v.translation
    v = np.asarray(v, dtype=float)
    for name, p in getattr(joint.bodies[slot], "points", {}).items():
        if p.shape == v.shape and np.array_equal(p, v):
            return name
    return None


def _joint_table(joint, w: _Writer) -> dict:
    kind, spec = codec_of(joint)
    out = {"type": kind}
    if joint.name is not None:
        out["name"] = joint.name
    angle_value = driver_is_angle(joint)
    profile = getattr(joint, "profile", None)
    for key, k, read, default in spec:
        if key == "value" and profile is not None:
            continue
        v = read(joint)
        if _is_default(v, default):
            continue
        if k == "body" and key == "relative_to" and v == "ground":
            continue
        named = _named_point(joint, key, v) if k in ("points", "frame") else None
        if k == "limits":
            angle_value = joint.limit_quantity in ("angle", "cone") or (
                joint.limit_quantity == "coordinate" and not joint.limit_is_length)
        out[key] = named if named is not None else _write_value(k, v, w, angle_value)
    if profile is not None:
        out["profile"] = _write_profile(profile, angle_value, w)
    if joint.n_coordinates and np.any(joint.coordinates != 0.0):
        out["coordinates"] = [float(x) for x in joint.coordinates]
    return out


def _sweep_values(values: np.ndarray, angle: bool, w: _Writer):
    conv = [w.angle(x) if angle else float(x) for x in values]
    if len(values) >= 3:
        ref = np.linspace(values[0], values[-1], len(values))
        if np.array_equal(ref, values):
            return {"start": conv[0], "stop": conv[-1], "num": len(values)}
    return conv


def dumps(mech) -> str:
    """The model file of a mechanism, as text (see :func:`save`).

    Raises ValueError for what the reader would refuse (see :func:`save`).

    >>> import mechsolve as ms
    >>> print(ms.files.dumps(ms.models.fourbar().mechanism).splitlines()[0])
    mechsolve = 1
    """
    if not all(hasattr(mech, a) for a in ("bodies", "joints", "units", "state")):
        hint = (" (a model of ms.models: pass its .mechanism)" if hasattr(mech, "mechanism")
                else "")
        raise TypeError(f"mech must be a Mechanism, got {type(mech).__name__}{hint}")
    doc = _document(mech)
    _check_readable(doc)
    return _toml(doc)


def _label(key: str, i: int, item) -> str:
    """``joints[3] (Revolute 'O2')``, as the reader names an entry in its messages."""
    if not isinstance(item, dict):
        return f"{key}[{i}]"
    name = item.get("name")
    if key == "joints":
        return f"{key}[{i}] ({item.get('type')}{' ' + repr(name) if name else ''})"
    return f"{key}[{i}] ({name!r})" if isinstance(name, str) else f"{key}[{i}]"


def _check_readable(doc: dict) -> None:
    """Refuse a document the reader would refuse: a number beyond :data:`MAX_MAGNITUDE` (or
    not finite), sweeps of more than :data:`MAX_SWEEP_VALUES` values, an expression beyond
    the bounds of :mod:`mechsolve.io._expressions`; the message names the key."""
    def fail(path, what):
        return ValueError(f"cannot save the mechanism: {path}: {what} (mechsolve.load would "
                          "refuse the file)")

    stack = [(k, v, True) for k, v in doc.items()]
    while stack:
        path, v, top = stack.pop()
        if isinstance(v, dict):
            stack.extend((f"{path}.{k}", x, False) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((_label(path, i, x) if top else f"{path}[{i}]", x, False)
                         for i, x in enumerate(v))
        elif isinstance(v, float) and not (math.isfinite(v) and abs(v) <= MAX_MAGNITUDE):
            raise fail(path, f"{v!r} is beyond the bound of {MAX_MAGNITUDE:g} on the "
                             "magnitude of a model file's numbers")
    total = 0
    for i, s in enumerate(doc.get("sweeps", [])):
        vals = s["values"]
        total += vals["num"] if isinstance(vals, dict) else len(vals)
        if total > MAX_SWEEP_VALUES:
            raise fail(_label("sweeps", i, s) + ".values", f"the sweeps up to this one have "
                       f"{total} values, more than {MAX_SWEEP_VALUES}")
    for i, t in enumerate(doc.get("joint_types", [])):
        for k, text in enumerate(t["phi"]):
            try:
                check(text, None)
            except ValueError as exc:
                raise fail(f"{_label('joint_types', i, t)}.phi[{k}]", str(exc)) from None
    for i, j in enumerate(doc.get("joints", [])):
        prof = j.get("profile") if isinstance(j, dict) else None
        if isinstance(prof, dict) and prof.get("type") == "Expression":
            try:
                check(prof["expression"], None)
            except ValueError as exc:
                raise fail(f"{_label('joints', i, j)}.profile.expression", str(exc)) \
                    from None


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _key(k: str) -> str:
    return k if k and set(k) <= _BARE else _toml_value(k)


def _toml_value(v) -> str:
    """One value in TOML's inline syntax (the document holds only these types)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        # finite: the shortest text that reads back to the same float (-0.0 written as 0.0)
        return repr(v + 0.0)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)   # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")  # pragma: no cover


def _toml(doc: dict) -> str:
    """The model file's text: top-level values, then ``[units]``, then the arrays of tables
    (``[[bodies]]``, ``[[joints]]``, ``[[sweeps]]``), one ``key = value`` per line, nested
    tables inline."""
    def tables(v) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = [f"{_key(k)} = {_toml_value(v)}" for k, v in doc.items()
             if not (isinstance(v, dict) or tables(v))]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]"] + [f"{_key(a)} = {_toml_value(b)}"
                                             for a, b in v.items()]
    for k, v in doc.items():
        if tables(v):
            for item in v:
                lines += ["", f"[[{_key(k)}]]"] + [f"{_key(a)} = {_toml_value(b)}"
                                                   for a, b in item.items()]
    return "\n".join(lines) + "\n"


def _document(mech) -> dict:
    w = _Writer(mech)
    doc = {"mechsolve": FORMAT_VERSION}
    if mech.name is not None:
        doc["name"] = mech.name
    if mech.dim != 2:
        doc["dimension"] = mech.dim
    if mech.fixed_length_scale is not None:
        doc["length_scale"] = float(mech.fixed_length_scale)
    if mech.time != 0.0:
        doc["time"] = float(mech.time)
    units = {k: v for k, v in mech.units.items() if not (k == "angle" and v == "rad")}
    if units:
        doc["units"] = units
    types = {}
    # SymPy (under mechsolve.symbolic) is imported when a mechanism is saved, not when
    # mechsolve is
    from ..symbolic._joint import SymbolicJoint

    for j in mech.joints:
        if isinstance(j, SymbolicJoint):
            cls = type(j)
            seen = types.get(cls.__name__)
            if seen is not None and seen is not cls and seen.definition != cls.definition:
                raise ValueError(f"two different symbolic joint types are named "
                                 f"{cls.__name__!r}; rename one to save the mechanism")
            types.setdefault(cls.__name__, cls)
    clash = sorted(set(types) & {type(j).__name__ for j in mech.joints
                                 if not isinstance(j, SymbolicJoint)})
    if clash:
        raise ValueError(f"a symbolic joint type and a built-in joint are both named "
                         f"{clash[0]!r}; rename the symbolic type to save the mechanism")
    if types:
        doc["joint_types"] = [_type_table(c) for c in types.values()]
    ground_points = getattr(mech.ground, "points", None)
    if ground_points:
        doc["ground"] = {"points": {k: [float(x) for x in v] for k, v in ground_points.items()}}
    generated_bodies = {n for e in mech.robots.values() for n in e.bodies}
    generated_joints = {n for e in mech.robots.values() for n in e.joints}
    generated_joints |= {d.name for e in mech.robots.values() for d in e.drivers}
    bodies = []
    for b in mech.bodies:
        if b.name in generated_bodies:
            continue
        t = {"name": b.name}
        pos = [float(x) for x in b.position]
        if any(pos):
            t["position"] = pos
        if mech.dim == 2:
            if b.angle != 0.0:
                t["angle"] = w.angle(b.angle)
        else:
            q = [float(x) for x in b.quaternion]
            if q != [1.0, 0.0, 0.0, 0.0]:
                t["orientation"] = q
        points = getattr(b, "points", None)
        if points:
            t["points"] = {k: [float(x) for x in v] for k, v in points.items()}
        bodies.append(t)
    if bodies:
        doc["bodies"] = bodies
    if mech.robots:
        doc["robots"] = [_robot_table(e, mech, w) for e in mech.robots.values()]
    joints = []
    names = set()
    for j in mech.joints:
        if j.name is not None and j.name in generated_joints:
            continue
        if j.name is None and _needs_name(j, mech):
            raise ValueError(f"{j.describe()} is referred to by another joint or a sweep and "
                             "must have a name to be saved")
        names.add(j.name)
        joints.append(_joint_table(j, w))
    if joints:
        doc["joints"] = joints
    sweeps = []
    for name, s in mech.sweeps.items():
        d = mech.joint(s.driver)
        t = {"name": name, "driver": s.driver,
             "values": _sweep_values(s.values, driver_is_angle(d), w)}
        if s.output:
            t["output"] = list(s.output)
        sweeps.append(t)
    if sweeps:
        doc["sweeps"] = sweeps
    return doc


def _needs_name(joint, mech) -> bool:
    for other in mech.joints:
        refs = [getattr(other, "joint", None), *getattr(other, "revolutes", ())]
        if any(r is joint for r in refs):
            return True
    return False


def save(mech, path) -> None:
    """Write a mechanism to a model file (TOML, see :mod:`mechsolve.files`).

    ``ms.save(mech, path)`` is this function. The file has the mechanism's bodies at their current
    placement, its joints, drivers (with their values or profiles), end effectors with their
    targets, joint coordinates, time and named sweeps, in :attr:`Mechanism.units`.
    A joint that another joint refers to must have a name; classes that cannot be written yet
    raise a ValueError naming the joint. What the reader would refuse is not written either:
    a ValueError names the key of a number beyond :data:`MAX_MAGNITUDE` (a body placed at
    ``1.0000000000000002e15``), of sweeps of more than :data:`MAX_SWEEP_VALUES` values, or
    of an expression beyond the bounds of :mod:`mechsolve.io._expressions`.
    """
    text = dumps(mech)
    pathlib.Path(os.fspath(path)).write_text(text, encoding="utf-8")
