"""Reading model files: the TOML text parsed, checked key by key and built into a mechanism.

Private: :mod:`mechsolve.files` is the public face and describes the format; the writer
(:mod:`._writer`) holds what both directions share (the format version, the bounds, the
sweep and robot entries).
"""

from __future__ import annotations

import difflib
import inspect
import math
import os
import pathlib
import sys

import numpy as np

from .. import profiles
from ..io._expressions import check, parse
from ..io._files import allowed_roots, confine, read_bytes
from ..io._joint_codecs import (
    CODECS,
    class_by_name,
    driver_is_angle,
    limits_are_angles,
    symbolic_spec,
)
from ..joints import AngleDriver, CoordinateDriver, Driver
from ..joints.base import SPATIAL_VARIANTS
from ..mechanism import Mechanism
from ..robots import SerialArm, load_urdf
from ..spatial import Frame, MassProperties, Orientation
from ._writer import (
    FORMAT_VERSION,
    MAX_MAGNITUDE,
    MAX_SWEEP_VALUES,
    PROFILES,
    NamedSweep,
    RobotEntry,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["load", "loads", "ModelFileError", "SCHEMA_PATH", "MAX_CHARACTERS",
           "MAX_FILE_EQUATIONS", "MAX_FILE_TOKENS"]

#: Longest model file read by default, in bytes (4 MiB: some 20 000 bodies, each with a
#: joint; TOML reads about 1.5 MiB a second here). ``load(path, max_bytes=...)`` reads longer
#: ones.
MAX_CHARACTERS = 4 * 2**20
#: Most equations (``phi`` entries) of all the ``joint_types`` of a file together. Each is
#: differentiated twice by SymPy when its type is built, which takes up to a second or two
#: for an expression at the bounds of :mod:`mechsolve.io._expressions`.
MAX_FILE_EQUATIONS = 64
#: Most tokens of all the expressions of a file together (``phi`` and ``Expression``
#: profiles; the spatial circle joint of :mod:`mechsolve.symbolic.catalog` has 16 368).
MAX_FILE_TOKENS = 50000
#: The JSON Schema of the format.
SCHEMA_PATH = pathlib.Path(__file__).with_name("model.schema.json")

_TOP_KEYS = ("mechsolve", "name", "dimension", "length_scale", "time", "units", "joint_types",
             "ground", "bodies", "robots",
             "joints", "sweeps")
_UNIT_KEYS = ("length", "angle")
_BODY_KEYS = ("name", "position", "angle", "orientation", "points", "link")
_SWEEP_KEYS = ("name", "driver", "values", "output")
_ROBOT_KEYS = ("name", "dh", "prismatic", "theta", "urdf", "tip", "mount", "base", "q",
               "target", "drivers")
_TYPE_KEYS = ("name", "bodies", "params", "coordinates", "time", "labels", "defaults", "phi")


class ModelFileError(ValueError):
    """A fault of a model file: the message names the file and the key path or line."""


# -- reading ------------------------------------------------------------------------------------
class _Reader:
    """One file being read: its name for messages, its units, and what is built so far."""

    def __init__(self, source: str, base_dir=None, allow=()) -> None:
        self.source = source
        self.base_dir = None if base_dir is None else pathlib.Path(os.fspath(base_dir))
        self.allow = allow       # absolute paths outside base_dir that files may be read from
        self.tokens = 0          # the tokens of the expressions read so far
        self.equations = 0       # the equations of the joint types read so far
        self.sweep_values = 0    # the values of the sweeps read so far
        self.deg = False
        self.dim = 2
        self.mech = None
        self.types: dict = {}    # joint classes the file defines (joint_types), by name

    def fail(self, path: str, what: str):
        where = f": {path}" if path else ""
        return ModelFileError(f"model file {self.source}{where}: {what}")

    # values
    def number(self, v, path: str, kind: str = "number") -> float:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise self.fail(path, f"expected a number, found {_shown(v)}")
        x = float(v)
        if not math.isfinite(x) or abs(x) > MAX_MAGNITUDE:
            raise self.fail(path, f"expected a finite number of magnitude at most "
                                  f"{MAX_MAGNITUDE:g}, found {_shown(v)}")
        return math.radians(x) if kind == "angle" and self.deg else x

    def vector(self, v, n: int | None, path: str, kind: str = "number") -> np.ndarray:
        if not isinstance(v, list) or (n is not None and len(v) != n):
            count = f"{n} numbers" if n is not None else "an array of numbers"
            raise self.fail(path, f"expected {count}, found {_shown(v)}")
        return np.array([self.number(x, f"{path}[{i}]", kind) for i, x in enumerate(v)])

    def array(self, v, path: str, depth: int = 0) -> np.ndarray:
        """A nested array of numbers (at most 3 levels), rectangular."""
        if isinstance(v, list) and v and isinstance(v[0], list) and depth < 3:
            rows = [self.array(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v)]
            if len({r.shape for r in rows}) != 1:
                raise self.fail(path, "expected a rectangular array (rows of equal shape)")
            return np.stack(rows)
        return self.vector(v, None, path)

    def string(self, v, path: str) -> str:
        if not isinstance(v, str) or not v:
            raise self.fail(path, f"expected a non-empty string, found {_shown(v)}")
        return v

    def table(self, v, path: str, keys) -> dict:
        if not isinstance(v, dict):
            raise self.fail(path, f"expected a table, found {_shown(v)}")
        unknown = [k for k in v if k not in keys]
        if unknown:
            raise self.fail(f"{path}.{unknown[0]}" if path else unknown[0],
                            f"unknown key; expected one of {', '.join(keys)}")
        return v

    def array_of_tables(self, v, path: str) -> list:
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise self.fail(path, f"expected an array of tables ([[{path}]]), found "
                                  f"{_shown(v)}")
        return v

    def body(self, v, path: str):
        name = self.string(v, path)
        if name == "ground":
            return self.mech.ground
        found = self.mech.body_names.get(name)
        if found is None:
            known = ", ".join(repr(b.name) for b in self.mech.bodies[:8])
            raise self.fail(path, f"no body named {name!r} (bodies: 'ground'"
                                  f"{', ' + known if known else ''})")
        return found

    def joint(self, v, path: str):
        name = self.string(v, path)
        found = self.mech.joint_names.get(name)
        if found is None:
            raise self.fail(path, f"no joint named {name!r} before this one (a joint can "
                                  "refer only to joints listed above it)")
        return found

    def quaternion(self, v, path: str):
        q = self.vector(v, 4, path)
        n = float(np.linalg.norm(q))
        if not n > 0.0:
            raise self.fail(path, "expected a quaternion [w, x, y, z] of non-zero length, "
                                  f"found {_shown(v)}")
        return Orientation(q if abs(n - 1.0) <= 4e-16 else q / n)

    def frame(self, v, path: str):
        if isinstance(v, list):
            return self.vector(v, 3, path)
        if isinstance(v, str):
            return self.string(v, path)     # a named point, the body's orientation
        t = self.table(v, path, ("position", "orientation", "axis"))
        p = self.vector(t["position"], 3, f"{path}.position") if "position" in t else \
            np.zeros(3)
        if "orientation" in t and "axis" in t:
            raise self.fail(path, "give orientation or axis, not both")
        if "axis" in t:
            u = self.vector(t["axis"], 3, f"{path}.axis")
            if not np.linalg.norm(u) > 0.0:
                raise self.fail(f"{path}.axis", f"expected a non-zero direction, found "
                                                f"{_shown(t['axis'])}")
            return Frame(p, Orientation.identity().align_z(u / np.linalg.norm(u)))
        o = self.quaternion(t["orientation"], f"{path}.orientation") \
            if "orientation" in t else Orientation.identity()
        return Frame(p, o)

    def value(self, kind: str, v, path: str, angle_value: bool = False):
        """A constructor argument of the given kind (see _joint_codecs) from the file."""
        if kind == "body":
            return self.body(v, path)
        if kind == "bodies":
            if not isinstance(v, list) or not v:
                raise self.fail(path, f"expected an array of body names, found {_shown(v)}")
            return [self.body(x, f"{path}[{i}]") for i, x in enumerate(v)]
        if kind == "joint":
            return self.joint(v, path)
        if kind in ("length", "number"):
            return self.number(v, path)
        if kind == "angle":
            return self.number(v, path, "angle")
        if kind == "value":
            return self.number(v, path, "angle" if angle_value else "number")
        if kind == "limits":
            unit = "angle" if angle_value else "number"
            if isinstance(v, list) and len(v) == 2:
                return tuple(self.number(x, f"{path}[{i}]", unit) for i, x in enumerate(v))
            if isinstance(v, dict) and v and set(v) <= {"lower", "upper"}:
                return tuple(self.number(v[k], f"{path}.{k}", unit) if k in v else None
                             for k in ("lower", "upper"))
            raise self.fail(path, f"expected [lower, upper] or a table with lower and/or "
                                  f"upper, found {_shown(v)}")
        if kind == "points" and isinstance(v, str):
            return self.string(v, path)     # a named point of the body (Body.points)
        if kind in ("points", "direction"):
            return self.vector(v, None, path)
        if kind == "frame":
            return self.frame(v, path)
        if kind == "bool":
            if not isinstance(v, bool):
                raise self.fail(path, f"expected true or false, found {_shown(v)}")
            return v
        if kind == "int":
            if isinstance(v, bool) or not isinstance(v, int) or abs(v) > 2**31:
                raise self.fail(path, f"expected an integer, found {_shown(v)}")
            return v
        if kind == "string":
            return self.string(v, path)
        if kind == "pointlist":
            if not isinstance(v, list) or not v:
                raise self.fail(path, f"expected an array of points, found {_shown(v)}")
            return [self.vector(x, None, f"{path}[{i}]") for i, x in enumerate(v)]
        if kind == "array":
            return self.array(v, path)
        if kind in ("coordinates", "coordinates1"):
            items = [v] if kind == "coordinates1" else v
            if not isinstance(items, list):
                raise self.fail(path, f"expected an array of joint names, found {_shown(v)}")
            refs = []
            for i, it in enumerate(items):
                at = path if kind == "coordinates1" else f"{path}[{i}]"
                if isinstance(it, list) and len(it) == 2 and isinstance(it[1], int) \
                        and not isinstance(it[1], bool):
                    refs.append((self.joint(it[0], f"{at}[0]"), it[1]))
                else:
                    refs.append(self.joint(it, at))
            return refs[0] if kind == "coordinates1" else refs
        if kind == "masses":
            if not isinstance(v, list) or not v:
                raise self.fail(path, f"expected an array of masses, found {_shown(v)}")
            out = []
            for i, m in enumerate(v):
                if isinstance(m, dict):
                    self.table(m, f"{path}[{i}]", ("mass", "center"))
                    if "mass" not in m:
                        raise self.fail(f"{path}[{i}].mass", "missing")
                    mass = self.number(m["mass"], f"{path}[{i}].mass")
                    c = self.vector(m.get("center", [0.0, 0.0, 0.0]), 3, f"{path}[{i}].center")
                    if not mass > 0:
                        raise self.fail(f"{path}[{i}].mass", f"expected a positive mass, "
                                                             f"found {mass!r}")
                    out.append(MassProperties(mass, mass * c))
                else:
                    out.append(self.number(m, f"{path}[{i}]"))
            return out
        if kind == "components":
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise self.fail(path, f"expected an array of strings, found {_shown(v)}")
            return tuple(v)
        raise AssertionError(kind)  # pragma: no cover


def _shown(v, most: int = 60) -> str:
    """A short text of a value found in a file, with its TOML type."""
    kinds = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
             dict: "table"}
    kind = next((name for t, name in kinds.items() if type(v) is t), type(v).__name__)
    text = repr(v)
    if len(text) > most:
        text = text[:most - 3] + "..."
    return f"{kind} {text}"


def _parse(text: str, r: _Reader) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # the parser's message ends with "(at line L, column C)"
        raise r.fail("", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise r.fail("", "not valid TOML: nested too deeply") from None


def loads(text: str, *, source: str = "<string>", base_dir=None, allow_paths=None,
          max_bytes: int = MAX_CHARACTERS):
    """Build a mechanism from the text of a model file (see :mod:`mechsolve.files`).

    Parameters
    ----------
    text : str
        The file's content.
    source : str
        What messages call the file.
    base_dir : path-like, optional
        The directory that file names in the text (a robot's ``urdf``) are taken from, and
        that they must lie in (default: the current directory).
    allow_paths : path-like or sequence of path-likes, optional
        Folders (or files) outside ``base_dir`` that the text may refer to too (see
        :func:`load`).
    max_bytes : int
        Longest text read, in characters (default :data:`MAX_CHARACTERS`).

    Returns
    -------
    Mechanism

    Examples
    --------
    >>> from mechsolve.files import loads
    >>> mech = loads('''
    ... mechsolve = 1
    ... [[bodies]]
    ... name = "arm"
    ... position = [0.5, 0.0]
    ... [[joints]]
    ... type = "Revolute"
    ... bodies = ["ground", "arm"]
    ... point2 = [-0.5, 0.0]
    ... [[joints]]
    ... type = "Driver"
    ... name = "motor"
    ... body = "arm"
    ... coordinate = "angle"
    ... ''')
    >>> [b.name for b in mech.bodies], mech.joint("motor").value
    (['arm'], 0.0)
    """
    limit = _max_bytes(max_bytes)
    allow = allowed_roots(allow_paths)
    r = _Reader(repr(str(source)), os.getcwd() if base_dir is None else base_dir, allow)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > limit:
        raise r.fail("", f"longer than {limit} characters (loads(text, max_bytes=...) reads "
                         "longer texts)")
    return _build(_parse(text.lstrip("\ufeff"), r), r)


def _max_bytes(max_bytes) -> int:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise TypeError(f"max_bytes must be a positive int, got {type(max_bytes).__name__} "
                        f"{max_bytes!r}")
    return max_bytes


def load(path, *, allow_paths=None, max_bytes: int = MAX_CHARACTERS):
    """Build a mechanism from a model file (TOML, see :mod:`mechsolve.files`).

    ``ms.load(path)`` is this function. The mechanism keeps the file's units
    (:attr:`Mechanism.units`) and named sweeps (:attr:`Mechanism.sweeps`) for
    :func:`save`.

    Parameters
    ----------
    path : path-like
    allow_paths : path-like or sequence of path-likes, optional
        Folders (or files) outside the model file's folder that the file may refer to. A
        file the model names (a robot's ``urdf``) is read only from the model file's folder
        and below, symbolic links resolved, unless it lies in one of these.
    max_bytes : int
        Longest file read, in bytes (default :data:`MAX_CHARACTERS`); reading stops after
        ``max_bytes + 1`` bytes.

    Raises
    ------
    ModelFileError
        (a ValueError) naming the file and the key at fault; a file longer than
        ``max_bytes``; a file named outside the allowed folders (the message does not say
        whether it exists).
    TypeError
        For ``allow_paths`` or ``max_bytes`` of the wrong type.
    """
    limit = _max_bytes(max_bytes)
    allow = allowed_roots(allow_paths)
    p = pathlib.Path(os.fspath(path))
    source = repr(str(path))
    try:
        data = read_bytes(p, limit)
    except IsADirectoryError:
        raise ModelFileError(f"model file {source}: is a directory, not a file") from None
    except OSError as exc:
        raise ModelFileError(f"model file {source}: cannot be read ({exc.strerror or exc})") \
            from None
    if len(data) > limit:
        raise ModelFileError(f"model file {source}: more than {limit} bytes, the most a model "
                             f"file may have (load(path, max_bytes=...) reads longer files)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"model file {source}: not UTF-8 text (byte {exc.start})") \
            from None
    r = _Reader(source, p.parent, allow)
    return _build(_parse(text.lstrip("\ufeff"), r), r)


def _build(data: dict, r: _Reader):
    r.table(data, "", _TOP_KEYS)
    if "mechsolve" not in data:
        raise r.fail("mechsolve", f"missing: a model file starts with mechsolve = "
                                  f"{FORMAT_VERSION} (the format version)")
    version = data["mechsolve"]
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise r.fail("mechsolve", f"expected the format version {FORMAT_VERSION}, found "
                                  f"{_shown(version)}")
    dim = data.get("dimension", 2)
    if isinstance(dim, bool) or dim not in (2, 3):
        raise r.fail("dimension", f"expected 2 (planar) or 3 (spatial), found {_shown(dim)}")
    r.dim = dim
    units = r.table(data.get("units", {}), "units", _UNIT_KEYS)
    angle = units.get("angle", "rad")
    if angle not in ("rad", "deg"):
        raise r.fail("units.angle", f"expected \"rad\" or \"deg\", found {_shown(angle)}")
    r.deg = angle == "deg"
    length = r.string(units["length"], "units.length") if "length" in units else None
    name = r.string(data["name"], "name") if "name" in data else None
    scale = r.number(data["length_scale"], "length_scale") if "length_scale" in data else None
    if scale is not None and not scale > 0:
        raise r.fail("length_scale", f"expected a positive number, found {scale!r}")
    mech = r.mech = Mechanism(dim, name=name, length_scale=scale)
    mech.units = {k: v for k, v in (("length", length), ("angle", angle)) if v is not None}
    for i, t in enumerate(r.array_of_tables(data.get("joint_types", []), "joint_types")):
        _read_joint_type(t, f"joint_types[{i}]", r)
    if "ground" in data:     # the ground's named points
        g = r.table(data["ground"], "ground", ("points",))
        pts = g.get("points", {})
        if not isinstance(pts, dict):
            raise r.fail("ground.points", f"expected a table of named points, found "
                                          f"{_shown(pts)}")
        for k, v in pts.items():
            _call(r, f"ground.points.{k}", mech.ground.add_point, k,
                  r.vector(v, r.dim, f"ground.points.{k}"))
    for i, b in enumerate(r.array_of_tables(data.get("bodies", []), "bodies")):
        _read_body(b, f"bodies[{i}]", r)
    for i, t in enumerate(r.array_of_tables(data.get("robots", []), "robots")):
        _read_robot(t, f"robots[{i}]", r)
    joints = r.array_of_tables(data.get("joints", []), "joints")
    coordinates = []
    for i, j in enumerate(joints):
        joint, coords = _read_joint(j, i, r)
        if coords is not None:
            coordinates.append((joint, coords))
    for joint, (values, path) in coordinates:
        if len(values) != joint.n_coordinates:
            raise r.fail(path, f"expected {joint.n_coordinates} numbers (the joint's "
                               f"coordinates), found {len(values)}")
        joint.coordinates = values
    if "time" in data:
        mech.time = r.number(data["time"], "time")
    for i, s in enumerate(r.array_of_tables(data.get("sweeps", []), "sweeps")):
        _read_sweep(s, f"sweeps[{i}]", r)
    return mech


def _read_body(t: dict, path: str, r: _Reader) -> None:
    r.table(t, path, _BODY_KEYS)
    if "name" not in t:
        raise r.fail(f"{path}.name", "missing: every body has a name")
    name = r.string(t["name"], f"{path}.name")
    path = f"{path} ({name!r})"
    if name == "ground" or name in r.mech.body_names:
        raise r.fail(f"{path}.name", f"a body named {name!r} already exists"
                                     + (" (ground is built in)" if name == "ground" else ""))
    kw = {}
    if "position" in t:
        kw["position"] = r.vector(t["position"], r.dim, f"{path}.position")
    if r.dim == 2:
        if "orientation" in t:
            raise r.fail(f"{path}.orientation", "a planar body has an angle, not an "
                                                "orientation")
        if "angle" in t:
            kw["angle"] = r.number(t["angle"], f"{path}.angle", "angle")
    else:
        if "angle" in t:
            raise r.fail(f"{path}.angle", "a spatial body has an orientation [w, x, y, z], "
                                          "not an angle")
        if "orientation" in t:
            kw["orientation"] = r.quaternion(t["orientation"], f"{path}.orientation")
    if "link" in t:
        # a body made from named global points (Mechanism.add_link): origin at the first
        # point, x axis towards the second (planar), unless angle / orientation are given
        if "position" in t or "points" in t:
            raise r.fail(f"{path}.link", "a body given by its global points (link) takes no "
                                         "position or local points")
        pts = t["link"]
        if not isinstance(pts, dict) or not pts:
            raise r.fail(f"{path}.link", f"expected a table of named global points, found "
                                         f"{_shown(pts)}")
        glob = {k: r.vector(v, r.dim, f"{path}.link.{k}") for k, v in pts.items()}
        for k in glob:
            if k in ("name", "angle", "orientation"):
                raise r.fail(f"{path}.link.{k}", f"a point may not be named {k!r}")
        body = _call(r, path, r.mech.add_link, name, **kw, **glob)
    else:
        body = _call(r, path, r.mech.add_body, name, **kw)
    if "points" in t:
        pts = r.table(t["points"], f"{path}.points", list(t["points"]) if
                      isinstance(t["points"], dict) else ())
        add = getattr(body, "add_point", None)
        if add is None:  # pragma: no cover - bodies without named points
            raise r.fail(f"{path}.points", "named points are not supported")
        for k, v in pts.items():
            _call(r, f"{path}.points.{k}", add, k, r.vector(v, r.dim, f"{path}.points.{k}"))


def _call(r: _Reader, path: str, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``; its ValueError or TypeError becomes a ModelFileError at
    ``path``."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        raise r.fail(path, str(exc)) from None


#: What other tools call some joints (lower case) -> mechsolve's class.
_JOINT_SYNONYMS = {"hinge": "Revolute", "pin": "Revolute", "pinned": "Revolute",
                   "rotational": "Revolute", "slider": "Prismatic", "sliding": "Prismatic",
                   "translational": "Prismatic", "ball": "Spherical", "socket": "Spherical",
                   "weld": "Fixed", "rigid": "Fixed", "universal_joint": "Universal",
                   "motor": "Driver"}


def _unknown_type(kind: str, names: list, own: list) -> str:
    """The message for a joint ``type`` that names no class: the closest names (a spelling
    slip, another case), else a few of the classes and where the rest are listed."""
    candidates = names + own
    by_case = {n.lower(): n for n in candidates}
    close = [by_case[kind.lower()]] if kind.lower() in by_case else []
    synonym = _JOINT_SYNONYMS.get(kind.lower())
    if synonym in names and synonym not in close:
        close.append(synonym)
    close += [n for n in difflib.get_close_matches(kind, candidates, n=3, cutoff=0.6)
              if n not in close]
    if not close:   # another case with a slip: "revolut"
        lowered = difflib.get_close_matches(kind.lower(), list(by_case), n=3, cutoff=0.6)
        close = [by_case[n] for n in lowered]
    if close:
        options = " or ".join(repr(n) for n in close)
        return f"unknown joint type {kind!r}; did you mean {options}?"
    own_text = f", or a name of joint_types ({', '.join(own)})" if own else \
        ", or a name of joint_types"
    return (f"unknown joint type {kind!r}; expected a class of mechsolve.joints such as "
            f"Revolute, Prismatic, Spherical, Driver (the API reference of mechsolve.joints "
            f"lists all {len(names)}){own_text}")


def _read_joint(t: dict, i: int, r: _Reader):
    path = f"joints[{i}]"
    if not isinstance(t, dict):
        raise r.fail(path, f"expected a table, found {_shown(t)}")
    if "type" not in t:
        raise r.fail(f"{path}.type", "missing: every joint has a type (a class of "
                                     "mechsolve.joints, such as \"Revolute\")")
    kind = r.string(t["type"], f"{path}.type")
    cls, spec = r.types.get(kind, (None, None))
    if cls is None:
        cls, spec = class_by_name(kind, r.dim)
    if cls is None:
        names = sorted({c.__name__ for c in CODECS if not c.__name__.startswith(("Spatial",
                                                                                  "_"))})
        raise r.fail(f"{path}.type", _unknown_type(kind, names, list(r.types)))
    name = r.string(t["name"], f"{path}.name") if "name" in t else None
    label = f"{path} ({kind}{' ' + repr(name) if name else ''})"
    keys = [k for k, *_ in spec] + ["type", "name", "coordinates"]
    if any(k == "value" for k, *_ in spec):
        keys.append("profile")
    if r.dim == 3 and any(k == "frame1" for k, *_ in spec):
        keys.append("axis")
    r.table(t, label, keys)
    kwargs = {}
    angle_value = False
    params = _constructor_parameters(cls, r.dim) if kind not in r.types else \
        [f"body{k + 1}" for k in range(len(cls.definition.bodies))]
    for key, k, _, default in spec:
        if key not in t:
            if default is None and key in ("bodies", "body", "link", "joint", "revolute1",
                                           "revolute2", "pinion", "rack", "coordinate",
                                           "radius1", "radius2", "ratio", "radius",
                                           "components"):
                raise r.fail(f"{label}.{key}", "missing")
            continue
        if k == "value":
            angle_value = _value_is_angle(cls, t, kwargs, r)
        if k == "limits":
            angle_value = limits_are_angles(cls, kwargs)
        v = r.value(k, t[key], f"{label}.{key}", angle_value)
        if key == "bodies" and "bodies" not in params:
            names = [p for p in params if p.startswith("body")] or ["body1", "body2"]
            if len(v) != len(names):
                raise r.fail(f"{label}.bodies", f"expected {len(names)} body names, found "
                                                f"{len(v)}")
            kwargs.update(zip(names, v))
        else:
            kwargs[key] = v
    if "axis" in t and "axis" not in [k for k, *_ in spec]:
        kwargs["axis"] = r.vector(t["axis"], 3, f"{label}.axis")
    if "profile" in t:
        kwargs["value"] = _read_profile(t["profile"], f"{label}.profile", r,
                                        _value_is_angle(cls, t, kwargs, r))
    if kind in r.types:   # a symbolic joint: bodies first, then its parameters by name
        bodies = [kwargs.pop(p) for p in [p for p in params if p.startswith("body")]]
        joint = _call(r, label, lambda: cls(*bodies, name=name, **kwargs))
    else:
        joint = _call(r, label, _construct, cls, params[0], kwargs, name)
    _call(r, label, r.mech.add, joint)
    coords = None
    if "coordinates" in t:
        coords = (r.vector(t["coordinates"], None, f"{label}.coordinates"),
                  f"{label}.coordinates")
    return joint, coords


def _read_robot(t: dict, path: str, r: _Reader) -> None:
    """A serial arm by DH table or URDF file, placed on a body (see :class:`RobotEntry`)."""
    if r.dim != 3:
        raise r.fail(path, "robots belong to a spatial model (dimension = 3)")
    r.table(t, path, _ROBOT_KEYS)
    if "name" not in t:
        raise r.fail(f"{path}.name", "missing")
    name = r.string(t["name"], f"{path}.name")
    path = f"{path} ({name!r})"
    if name in r.mech.robots:
        raise r.fail(f"{path}.name", f"a robot named {name!r} already exists")
    if ("dh" in t) == ("urdf" in t):
        raise r.fail(path, "give the arm by a DH table (dh = [[d, a, alpha], ...]) or a URDF "
                           "file (urdf = \"arm.urdf\"), one of the two")
    spec = {"name": name}
    if "dh" in t:
        rows = t["dh"]
        if not isinstance(rows, list) or not 1 <= len(rows) <= 64:
            raise r.fail(f"{path}.dh", f"expected 1 to 64 rows [d, a, alpha], found "
                                       f"{_shown(rows)}")
        dh = []
        for k, row in enumerate(rows):
            v = r.vector(row, 3, f"{path}.dh[{k}]")
            v[2] = r.number(row[2], f"{path}.dh[{k}][2]", "angle")
            dh.append(v)
        n = len(dh)
        pris = t.get("prismatic", [False] * n)
        if not isinstance(pris, list) or len(pris) != n or not all(
                isinstance(x, bool) for x in pris):
            raise r.fail(f"{path}.prismatic", f"expected {n} booleans, found {_shown(pris)}")
        theta = r.vector(t["theta"], n, f"{path}.theta", "angle") if "theta" in t else \
            np.zeros(n)
        spec.update(dh=[list(map(float, d)) for d in dh], prismatic=list(pris),
                    theta=[float(x) for x in theta])
        arm = _call(r, f"{path}.dh", SerialArm.from_dh, dh, prismatic=pris, theta=theta,
                    name=name)
    else:
        rel = r.string(t["urdf"], f"{path}.urdf")
        where = confine(rel, r.base_dir, r.allow)
        if where is None:
            # the same words whether or not the file exists: nothing outside is looked at
            raise r.fail(f"{path}.urdf", f"{rel!r} is outside the model file's folder; a "
                                         "model file refers only to files in its folder and "
                                         "below (ms.load(path, allow_paths=[...]) allows "
                                         "other places)")
        tip = r.string(t["tip"], f"{path}.tip") if "tip" in t else None
        try:
            arm = _call(r, f"{path}.urdf", load_urdf, where, tip=tip, name=name)
        except OSError as exc:
            raise r.fail(f"{path}.urdf", f"URDF file {str(where)!r} cannot be read "
                                         f"({exc.strerror or exc})") from None
        spec.update(urdf=rel, tip=tip)
    if "base" in t:
        spec["base"] = base = r.frame(t["base"], f"{path}.base")
        if not isinstance(base, Frame):
            base = Frame(base)
        arm = type(arm)(arm.joints, base=base * arm.base, tool=arm.tool, name=name)
    mount = r.body(t["mount"], f"{path}.mount") if "mount" in t else r.mech.ground
    spec["mount"] = mount.name
    n = arm.n_joints
    q = np.zeros(n)
    if "q" in t:
        q = r.vector(t["q"], n, f"{path}.q")
        for k, kind in enumerate(arm._kinds):
            if kind == 0.0:
                q[k] = r.number(t["q"][k], f"{path}.q[{k}]", "angle")
    target = r.frame(t["target"], f"{path}.target") if "target" in t else None
    drivers = t.get("drivers", False)
    if not isinstance(drivers, bool):
        raise r.fail(f"{path}.drivers", f"expected true or false, found {_shown(drivers)}")
    spec["drivers"] = drivers
    before_b, before_j = len(r.mech.bodies), len(r.mech.joints)
    model = _call(r, path, arm.mechanism, q, target=target, mech=r.mech, mount=mount,
                  prefix=f"{name}.")
    made = []
    if drivers:
        for j, v in zip(model.joints, q):
            made.append(_call(r, path, r.mech.add, CoordinateDriver(j, float(v),
                                                                    name=f"{j.name}_drive")))
    r.mech.robots[name] = RobotEntry(
        spec, arm, [b.name for b in r.mech.bodies[before_b:]],
        [j.name for j in r.mech.joints[before_j:]], model.end_effector, made)


def _read_joint_type(t: dict, path: str, r: _Reader) -> None:
    """A joint class from SymPy expressions (see :func:`mechsolve.symbolic.symbolic_joint`):
    its Phi as texts over the body coordinates (``x1, y1, theta1``, ...; spatial ``x1, y1,
    z1, qw1, qx1, qy1, qz1``), its parameters, own coordinates and time symbol, parsed by
    :func:`mechsolve.io._expressions.parse` (no code from the file is run)."""
    # SymPy is imported when a file defines joint types, not when mechsolve is
    import sympy as sp

    from ..symbolic import PlanarBodySymbols, SpatialBodySymbols, body_symbols, symbolic_joint

    r.table(t, path, _TYPE_KEYS)
    for key in ("name", "bodies", "phi"):
        if key not in t:
            raise r.fail(f"{path}.{key}", "missing")
    name = r.string(t["name"], f"{path}.name")
    if not name.isidentifier() or name in r.types:
        raise r.fail(f"{path}.name", f"{name!r} must be an identifier not defined above")
    path = f"{path} ({name!r})"
    n = t["bodies"]
    labels_ok = isinstance(n, list) and 1 <= len(n) <= 8 and all(
        isinstance(x, str) and x.isidentifier() for x in n) and len(set(n)) == len(n)
    if not labels_ok and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8):
        raise r.fail(f"{path}.bodies", f"expected the number of bodies (1 to 8) or their "
                                       f"labels (distinct names), found {_shown(n)}")

    def names(key):
        v = t.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x.isidentifier()
                                              for x in v):
            raise r.fail(f"{path}.{key}", f"expected an array of names, found {_shown(v)}")
        return [sp.Symbol(x, real=True) for x in v]

    if isinstance(n, int):
        bodies = body_symbols(n, dim=r.dim)
    else:
        make = PlanarBodySymbols if r.dim == 2 else SpatialBodySymbols
        bodies = tuple(make(label) for label in n)
    params, coords = names("params"), names("coordinates")
    time = None
    if "time" in t:
        time = sp.Symbol(r.string(t["time"], f"{path}.time"), real=True)
    symbols = {str(s): s for b in bodies for s in b.coordinates}
    for s in params + coords + ([time] if time is not None else []):
        if str(s) in symbols:
            raise r.fail(path, f"the name {str(s)!r} is used twice")
        symbols[str(s)] = s
    phi = t["phi"]
    if not isinstance(phi, list) or not phi or len(phi) > 64:
        raise r.fail(f"{path}.phi", f"expected an array of 1 to 64 expressions, found "
                                    f"{_shown(phi)}")
    r.equations += len(phi)
    if r.equations > MAX_FILE_EQUATIONS:
        raise r.fail(f"{path}.phi", f"the joint types up to this one have {r.equations} "
                                    f"equations, more than the {MAX_FILE_EQUATIONS} a model "
                                    "file may define (each is derived symbolically)")
    exprs = []
    for i, e in enumerate(phi):
        _expression_tokens(r, f"{path}.phi[{i}]", e, symbols)
        exprs.append(_call(r, f"{path}.phi[{i}]", parse, e, symbols))
    labels = t.get("labels")
    if labels is not None and (not isinstance(labels, list)
                               or not all(isinstance(x, str) for x in labels)):
        raise r.fail(f"{path}.labels", f"expected an array of strings, found {_shown(labels)}")
    defaults = {}
    if "defaults" in t:
        d = r.table(t["defaults"], f"{path}.defaults", [str(s) for s in params + coords])
        defaults = {k: r.number(v, f"{path}.defaults.{k}") for k, v in d.items()}
    cls = _call(r, path, symbolic_joint, name, bodies=bodies, phi=exprs, params=params,
                coordinates=coords, time=time, labels=labels, defaults=defaults)
    # the texts as written: saving writes them again (SymPy's printing of the parsed
    # expressions may order or group terms differently)
    cls.phi_text = tuple(phi)
    r.types[name] = (cls, symbolic_spec(cls))


def _expression_tokens(r: _Reader, path: str, text, symbols) -> None:
    """Check an expression's text against the bounds of :mod:`mechsolve.io._expressions`
    before SymPy sees it, and add its tokens to the file's (:data:`MAX_FILE_TOKENS`)."""
    r.tokens += _call(r, path, check, text, symbols)
    if r.tokens > MAX_FILE_TOKENS:
        raise r.fail(path, f"the expressions up to this one have {r.tokens} tokens, more than "
                           f"the {MAX_FILE_TOKENS} a model file may have")


def _construct(cls, first: str, kwargs: dict, name):
    # the first argument positionally: the joint classes pick their spatial twin from it
    if first in kwargs:
        return cls(kwargs.pop(first), name=name, **kwargs)
    return cls(name=name, **kwargs)


def _constructor_parameters(cls, dim: int) -> list:
    built = SPATIAL_VARIANTS.get(cls, cls) if dim == 3 else cls
    return list(inspect.signature(built.__init__).parameters)[1:]


def _value_is_angle(cls, t, kwargs, r) -> bool:
    """Whether the driver being read takes an angle (before it is built)."""
    if issubclass(cls, AngleDriver):
        return True
    if issubclass(cls, Driver):
        return r.dim == 2 and t.get("coordinate") == "angle"
    if issubclass(cls, CoordinateDriver) and "joint" in kwargs:
        probe = CoordinateDriver.__new__(CoordinateDriver)
        probe.joint, probe.index = kwargs["joint"], t.get("index", 0)
        try:
            return driver_is_angle(probe)
        except (IndexError, TypeError):
            return False
    return False


def _read_profile(t, path: str, r: _Reader, angle: bool):
    if not isinstance(t, dict) or "type" not in t:
        raise r.fail(path, f"expected a table with a type (one of {', '.join(PROFILES)}), "
                           f"found {_shown(t)}")
    kind = t["type"]
    if kind not in PROFILES:
        raise r.fail(f"{path}.type", f"expected one of {', '.join(PROFILES)}, found "
                                     f"{_shown(kind)}")
    unit = "angle" if angle else "number"
    if kind == "Expression":
        # a SymPy expression of time (in the driver's unit: degrees in a file in degrees),
        # parsed under the whitelist of mechsolve.io._expressions (SymPy imported here, when
        # a file has such a profile, not when mechsolve is)
        import sympy as sp

        r.table(t, path, ("type", "expression", "t"))
        if "expression" not in t:
            raise r.fail(f"{path}.expression", "missing")
        tname = r.string(t.get("t", "t"), f"{path}.t")
        if not tname.isidentifier():
            raise r.fail(f"{path}.t", f"expected a name, found {_shown(tname)}")
        ts = sp.Symbol(tname, real=True)
        text = r.string(t["expression"], f"{path}.expression")
        _expression_tokens(r, f"{path}.expression", text, {tname: ts})
        expr = _call(r, f"{path}.expression", parse, text, {tname: ts})
        if angle and r.deg:
            expr = expr * sp.pi / 180
        profile = _call(r, path, profiles.Expression, expr, ts)
        profile.source_text = (text, tname, bool(angle and r.deg))
        return profile
    if kind == "ConstantSpeed":
        r.table(t, path, ("type", "speed", "start", "t0"))
        kw = {k: r.number(t[k], f"{path}.{k}", "number" if k == "t0" else unit)
              for k in ("speed", "start", "t0") if k in t}
        if "speed" not in kw:
            raise r.fail(f"{path}.speed", "missing")
    else:
        r.table(t, path, ("type", "t0", "t1", "v0", "v1"))
        missing = [k for k in ("t0", "t1", "v0", "v1") if k not in t]
        if missing:
            raise r.fail(f"{path}.{missing[0]}", "missing")
        kw = {k: r.number(t[k], f"{path}.{k}", unit if k in ("v0", "v1") else "number")
              for k in ("t0", "t1", "v0", "v1")}
    return _call(r, path, getattr(profiles, kind), **kw)


def _read_sweep(t: dict, path: str, r: _Reader) -> None:
    r.table(t, path, _SWEEP_KEYS)
    for key in ("name", "driver", "values"):
        if key not in t:
            raise r.fail(f"{path}.{key}", "missing")
    name = r.string(t["name"], f"{path}.name")
    if name in r.mech.sweeps:
        raise r.fail(f"{path}.name", f"a sweep named {name!r} already exists")
    driver = r.joint(t["driver"], f"{path}.driver")
    if not hasattr(driver, "value"):
        raise r.fail(f"{path}.driver", f"{driver.describe()} is not a driver")
    unit = "angle" if driver_is_angle(driver) else "number"
    v = t["values"]
    if isinstance(v, dict):
        r.table(v, f"{path}.values", ("start", "stop", "num"))
        if set(v) != {"start", "stop", "num"}:
            raise r.fail(f"{path}.values", "expected a table {start, stop, num} or an array")
        num = v["num"]
        if isinstance(num, bool) or not isinstance(num, int) or \
                not 2 <= num <= MAX_SWEEP_VALUES:
            raise r.fail(f"{path}.values.num", f"expected an integer from 2 to "
                                               f"{MAX_SWEEP_VALUES}, found {_shown(num)}")
        r.sweep_values += num
        if r.sweep_values > MAX_SWEEP_VALUES:
            raise r.fail(f"{path}.values.num", f"the sweeps up to this one have "
                                               f"{r.sweep_values} values, more than the "
                                               f"{MAX_SWEEP_VALUES} a model file may have")
        values = np.linspace(r.number(v["start"], f"{path}.values.start", unit),
                             r.number(v["stop"], f"{path}.values.stop", unit), num)
    else:
        values = r.vector(v, None, f"{path}.values", unit)
        if values.size == 0:
            raise r.fail(f"{path}.values", "expected at least one value")
        r.sweep_values += values.size
    output = ()
    if "output" in t:
        out = t["output"]
        if not isinstance(out, list):
            raise r.fail(f"{path}.output", f"expected an array of body names, found "
                                           f"{_shown(out)}")
        output = tuple(r.body(x, f"{path}.output[{i}]").name for i, x in enumerate(out))
    r.mech.sweeps[name] = NamedSweep(driver.name, values, output)

