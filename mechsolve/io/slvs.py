"""Reading SolveSpace sketches (``.slvs``) into plain data.

A ``.slvs`` file is text: the header ``\u00b1\u00b2\u00b3SolveSpaceREVa`` (its first three
characters written by SolveSpace as the bytes B1 B2 B3, Latin-1; the rest of a file is
UTF-8), then blocks of
``Kind.field=value`` lines, each block ended by a line ``AddKind`` (``AddGroup``,
``AddParam``, ``AddRequest``, ``AddEntity``, ``AddConstraint``; also ``AddStyle``), and at
the end optional ``Triangle``/``Surface``/``Curve`` lines of the exported mesh, which carry
no sketch and are skipped. A field left out is zero (SolveSpace does not write zeros).

:func:`read_slvs` returns a :class:`SlvsSketch`: the groups, requests, entities and
constraints by handle (an unsigned 32-bit number, written as 8 hexadecimal digits), each a
:class:`Record` holding the fields as they were written. Nothing is interpreted here: the
meaning of the type codes (:data:`ENTITY_TYPES`, :data:`CONSTRAINT_TYPES`) is used by
:mod:`mechsolve.files._slvs`, which builds a mechanism from the sketch.

The field names and type codes follow SolveSpace's own source (``src/sketch.h``: the enums
``Group::Type``, ``Request::Type``, ``EntityBase::Type`` and ``ConstraintBase::Type``, and
the handle layout ``hRequest::entity(i) = (request << 16) | i``; ``src/file.cpp``: the
``SAVED`` table of ``Entity.actPoint.x``, ``Constraint.valA``, ... fields), read from
github.com/solvespace/solvespace (commit e9e0fd6c of ``src/sketch.h``).

Every input is read or rejected with a :class:`ValueError` whose message starts with
``SolveSpace sketch <source>:`` and names the line at fault. Reading is linear in the text,
which is at most :data:`MAX_CHARACTERS` long, and keeps at most :data:`MAX_RECORDS`
records; numbers are finite and at most :data:`MAX_MAGNITUDE` in magnitude.

Examples
--------
>>> from mechsolve.io.slvs import read_slvs
>>> sketch = read_slvs('''\u00b1\u00b2\u00b3SolveSpaceREVa
...
... Entity.h.v=00040001
... Entity.type=2001
... Entity.workplane.v=80020000
... Entity.actPoint.x=10.00000000000000000000
... AddEntity
... ''')
>>> e = sketch.entities[0x00040001]
>>> e.type, e.number("actPoint.x"), e.handle("workplane.v")
(2001, 10.0, 2147614720)
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

__all__ = ["read_slvs", "SlvsSketch", "Record", "ENTITY_TYPES", "CONSTRAINT_TYPES",
           "GROUP_TYPES", "MAX_CHARACTERS", "MAX_RECORDS", "MAX_MAGNITUDE", "HEADER"]

#: The first line of every SolveSpace file since 2008 (``VERSION_STRING`` in ``file.cpp``).
HEADER = "\u00b1\u00b2\u00b3SolveSpaceREVa"
#: Longest sketch read, in characters (16 MiB: some 50 000 line segments).
MAX_CHARACTERS = 16 * 2**20
#: Most records (groups, params, requests, entities, constraints, styles together).
MAX_RECORDS = 500_000
#: Bound on the magnitude of every number (SolveSpace works in millimetres).
MAX_MAGNITUDE = 1e15

#: ``EntityBase::Type`` (``src/sketch.h``): code -> name.
ENTITY_TYPES = {
    2000: "POINT_IN_3D", 2001: "POINT_IN_2D", 2010: "POINT_N_TRANS",
    2011: "POINT_N_ROT_TRANS", 2012: "POINT_N_COPY", 2013: "POINT_N_ROT_AA",
    2014: "POINT_N_ROT_AXIS_TRANS",
    3000: "NORMAL_IN_3D", 3001: "NORMAL_IN_2D", 3010: "NORMAL_N_COPY", 3011: "NORMAL_N_ROT",
    3012: "NORMAL_N_ROT_AA",
    4000: "DISTANCE", 4001: "DISTANCE_N_COPY",
    5000: "FACE_NORMAL_PT", 5001: "FACE_XPROD", 5002: "FACE_N_ROT_TRANS",
    5003: "FACE_N_TRANS", 5004: "FACE_N_ROT_AA",
    10000: "WORKPLANE", 11000: "LINE_SEGMENT", 12000: "CUBIC", 12001: "CUBIC_PERIODIC",
    13000: "CIRCLE", 14000: "ARC_OF_CIRCLE", 15000: "TTF_TEXT", 16000: "IMAGE",
}
#: ``ConstraintBase::Type`` (``src/sketch.h``): code -> name.
CONSTRAINT_TYPES = {
    20: "POINTS_COINCIDENT", 30: "PT_PT_DISTANCE", 31: "PT_PLANE_DISTANCE",
    32: "PT_LINE_DISTANCE", 33: "PT_FACE_DISTANCE", 34: "PROJ_PT_DISTANCE",
    41: "PT_IN_PLANE", 42: "PT_ON_LINE", 43: "PT_ON_FACE", 50: "EQUAL_LENGTH_LINES",
    51: "LENGTH_RATIO", 52: "EQ_LEN_PT_LINE_D", 53: "EQ_PT_LN_DISTANCES", 54: "EQUAL_ANGLE",
    55: "EQUAL_LINE_ARC_LEN", 56: "LENGTH_DIFFERENCE", 60: "SYMMETRIC",
    61: "SYMMETRIC_HORIZ", 62: "SYMMETRIC_VERT", 63: "SYMMETRIC_LINE", 70: "AT_MIDPOINT",
    80: "HORIZONTAL", 81: "VERTICAL", 90: "DIAMETER", 100: "PT_ON_CIRCLE",
    110: "SAME_ORIENTATION", 120: "ANGLE", 121: "PARALLEL", 122: "PERPENDICULAR",
    123: "ARC_LINE_TANGENT", 124: "CUBIC_LINE_TANGENT", 125: "CURVE_CURVE_TANGENT",
    130: "EQUAL_RADIUS", 200: "WHERE_DRAGGED", 1000: "COMMENT",
}
#: ``Group::Type`` (``src/sketch.h``): code -> name.
GROUP_TYPES = {5000: "DRAWING_3D", 5001: "DRAWING_WORKPLANE", 5100: "EXTRUDE",
               5101: "LATHE", 5102: "REVOLVE", 5103: "HELIX", 5200: "ROTATE",
               5201: "TRANSLATE", 5300: "LINKED"}

_KINDS = ("Group", "Param", "Request", "Entity", "Constraint", "Style")
# the mesh and curves of the last group, written after the sketch (file.cpp SaveToFile)
_SKIPPED = ("Triangle ", "Surface ", "SCtrl ", "TrimBy ", "Curve ", "CCtrl ", "CurvePt ",
            "AddSurface", "AddCurve")
_LINE = re.compile(r"([A-Za-z]+)\.([A-Za-z0-9_.\[\]]+)=(.*)")


class Record(NamedTuple):
    """One block of a sketch: its kind (``"Entity"``, ...), the line it ended on, and its
    fields as written (``{"type": "2001", "actPoint.x": "10.0", ...}``)."""

    kind: str
    line: int
    fields: dict

    @property
    def type(self) -> int:
        """The ``type`` field as an int (0 when left out)."""
        return self.integer("type")

    def integer(self, field: str) -> int:
        text = self.fields.get(field, "0")
        if not re.fullmatch(r"[+-]?[0-9]{1,10}", text.strip()):
            raise ValueError(f"{self.kind}.{field} (block ending on line {self.line}): "
                             f"expected an integer, found {text[:40]!r}")
        return int(text)

    def handle(self, field: str) -> int:
        """A handle field (``h.v``, ``point[0].v``, ...): 8 hexadecimal digits, 0 when
        left out."""
        text = self.fields.get(field, "0").strip()
        if not re.fullmatch(r"[0-9a-fA-F]{1,8}", text):
            raise ValueError(f"{self.kind}.{field} (block ending on line {self.line}): "
                             f"expected a handle of up to 8 hexadecimal digits, found "
                             f"{text[:40]!r}")
        return int(text, 16)

    def number(self, field: str) -> float:
        text = self.fields.get(field, "0").strip()
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text) \
                or not math.isfinite(x) or abs(x) > MAX_MAGNITUDE:
            raise ValueError(f"{self.kind}.{field} (block ending on line {self.line}): "
                             f"expected a finite number of magnitude at most "
                             f"{MAX_MAGNITUDE:g}, found {text[:40]!r}")
        return x

    def flag(self, field: str) -> bool:
        return self.integer(field) != 0


class SlvsSketch(NamedTuple):
    """A SolveSpace file as plain data: records by handle (``h.v``), in file order."""

    groups: dict
    params: dict
    requests: dict
    entities: dict
    constraints: dict


def read_slvs(text: str, source: str = "<string>") -> SlvsSketch:
    """The records of the SolveSpace sketch ``text`` (see the module's description).

    Parameters
    ----------
    text : str
        The file's content.
    source : str
        What messages call the file.

    Raises
    ------
    ValueError
        ``SolveSpace sketch <source>: ...`` naming the line: a missing header, a line
        that is no field of a block, a block not ended by its ``Add`` line (a truncated
        file), a duplicated handle, a malformed handle or number.
    """
    where = f"SolveSpace sketch {source}"
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > MAX_CHARACTERS:
        raise ValueError(f"{where}: longer than {MAX_CHARACTERS} characters")
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != HEADER:
        first = lines[0][:40] if lines else ""
        raise ValueError(f"{where}: line 1: expected the header {HEADER!r} of a SolveSpace "
                         f"file, found {first!r}")
    out = {k: {} for k in _KINDS}
    kind, fields, opened = None, {}, 0
    count = 0
    in_map = 0          # the line a Group.remap={ ... } list began on, while in one
    for n, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if in_map:      # the entity map of a group: pairs of handles, skipped
            if line == "}":
                in_map = 0
            continue
        if not line or line.startswith(_SKIPPED):
            continue
        if line.startswith("Add") and line[3:] in _KINDS:
            ended = line[3:]
            if kind != ended:
                found = f"a {kind} block" if kind else "no open block"
                raise ValueError(f"{where}: line {n}: {line} ends {found}")
            rec = Record(kind, n, fields)
            try:
                h = rec.handle("h.v." if kind == "Param" and "h.v." in fields else "h.v")
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            table = out[kind]
            if h in table:
                raise ValueError(f"{where}: line {n}: {kind} {h:08x} defined twice (lines "
                                 f"{table[h].line} and {n})")
            count += 1
            if count > MAX_RECORDS:
                raise ValueError(f"{where}: more than {MAX_RECORDS} records")
            table[h] = rec
            kind, fields = None, {}
            continue
        m = _LINE.fullmatch(line)
        if m is None or m.group(1) not in _KINDS:
            raise ValueError(f"{where}: line {n}: expected a field 'Kind.name=value' of a "
                             f"Group, Param, Request, Entity, Constraint or Style, or its "
                             f"Add line, found {line[:60]!r}")
        k, name, value = m.groups()
        if kind is None:
            kind, opened = k, n
        elif k != kind:
            raise ValueError(f"{where}: line {n}: a {k} field inside the {kind} block begun "
                             f"on line {opened} (a block ends with its Add{kind} line)")
        if name == "remap" and value == "{":
            in_map = n
        if name in fields:
            raise ValueError(f"{where}: line {n}: {k}.{name} given twice in one block")
        fields[name] = value
    if in_map:
        raise ValueError(f"{where}: the Group.remap list begun on line {in_map} has no "
                         "closing '}' (a truncated file?)")
    if kind is not None:
        raise ValueError(f"{where}: the {kind} block begun on line {opened} has no Add{kind} "
                         "line (a truncated file?)")
    return SlvsSketch(out["Group"], out["Param"], out["Request"], out["Entity"],
                      out["Constraint"])
