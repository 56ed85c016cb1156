"""Writing SolveSpace sketches in the ``.slvs`` text form, for the tests of the reader.

The files under ``tests/data/slvs/`` were written with :func:`sketch_text`, the header's
first three characters as the Latin-1 bytes B1 B2 B3 as SolveSpace writes them
(:func:`sketch_bytes`): the blocks SolveSpace 3.x saves for a new file (the ``#references``
group and its three workplanes, the sketch group in the XY plane, whose workplane is entity
80020000), a request per line segment (``Request.type=200``) with its entities (the line,
``type=11000``, and its two points, ``type=2001``, with their parameters), then the
constraints. Handles and fields follow SolveSpace's ``src/sketch.h`` and ``src/file.cpp``.
"""

from __future__ import annotations

import re

HEADER = "\u00b1\u00b2\u00b3SolveSpaceREVa"
WORKPLANE = "80020000"
ORIGIN = "00010001"


def _num(x: float) -> str:
    return f"{x:.20f}" if abs(x) < 1e15 else repr(x)


def _block(kind: str, fields: list) -> str:
    return "\n".join(f"{kind}.{k}={v}" for k, v in fields) + f"\nAdd{kind}\n\n"


def _groups() -> str:
    common = [("skipFirst", 0), ("predef.swapUV", 0), ("predef.negateU", 0),
              ("predef.negateV", 0), ("visible", 1), ("suppress", 0),
              ("relaxConstraints", 0), ("allowRedundant", 0), ("allDimsReference", 0),
              ("scale", _num(1.0)), ("remap", "{\n}")]
    return (_block("Group", [("h.v", "00000001"), ("type", 5000), ("name", "#references"),
                             ("color", "ff000000"), *common])
            + _block("Group", [("h.v", "00000002"), ("type", 5001), ("order", 1),
                               ("name", "sketch-in-plane"),
                               ("activeWorkplane.v", WORKPLANE), ("color", "ff000000"),
                               ("subtype", 6000), ("predef.q.w", _num(1.0)),
                               ("predef.origin.v", ORIGIN), *common]))


_REFERENCE_NORMALS = {1: (1.0, 0.0, 0.0, 0.0), 2: (0.5, 0.5, 0.5, 0.5),
                      3: (0.5, -0.5, -0.5, -0.5)}


def sketch_text(lines: list, constraints: list) -> str:
    """The text of a sketch in the XY plane.

    ``lines``: ``(request, (x0, y0), (x1, y1))`` for each line segment (request numbers from
    4 up; its points are entities ``rrrr0001`` and ``rrrr0002``). ``constraints``:
    ``(type, {field: value})`` with fields such as ``ptA``, ``ptB``, ``entityA``,
    ``entityB`` (handles as 8 hex digits), ``valA`` and ``other``.
    """
    out = [HEADER + "\n\n\n", _groups()]
    for r, q in _REFERENCE_NORMALS.items():       # the reference planes' parameters
        for i in range(3):
            out.append(_block("Param", [("h.v.", f"{r:04x}{0x10 + i:04x}")]))
        for i, v in enumerate(q):
            out.append(_block("Param", [("h.v.", f"{r:04x}{0x20 + i:04x}")]
                              + ([("val", _num(v))] if v else [])))
    for r, p0, p1 in lines:
        for k, p in ((0x10, p0), (0x13, p1)):
            out.append(_block("Param", [("h.v.", f"{r:04x}{k:04x}"), ("val", _num(p[0]))]))
            out.append(_block("Param", [("h.v.", f"{r:04x}{k + 1:04x}"),
                                        ("val", _num(p[1]))]))
    for r in (1, 2, 3):
        out.append(_block("Request", [("h.v", f"{r:08x}"), ("type", 100),
                                      ("group.v", "00000001"), ("construction", 0)]))
    for r, _, _ in lines:
        out.append(_block("Request", [("h.v", f"{r:08x}"), ("type", 200),
                                      ("workplane.v", WORKPLANE), ("group.v", "00000002"),
                                      ("construction", 0)]))
    for r, q in _REFERENCE_NORMALS.items():
        out.append(_block("Entity", [("h.v", f"{r:04x}0000"), ("type", 10000),
                                     ("construction", 0), ("point[0].v", f"{r:04x}0001"),
                                     ("normal.v", f"{r:04x}0020"), ("actVisible", 1)]))
        out.append(_block("Entity", [("h.v", f"{r:04x}0001"), ("type", 2000),
                                     ("construction", 0), ("actVisible", 1)]))
        names = ("w", "vx", "vy", "vz")
        out.append(_block("Entity", [("h.v", f"{r:04x}0020"), ("type", 3000),
                                     ("construction", 0)]
                          + [(f"actNormal.{n}", _num(v)) for n, v in zip(names, q) if v]
                          + [("actVisible", 1)]))
    for r, p0, p1 in lines:
        out.append(_block("Entity", [("h.v", f"{r:04x}0000"), ("type", 11000),
                                     ("construction", 0), ("point[0].v", f"{r:04x}0001"),
                                     ("point[1].v", f"{r:04x}0002"),
                                     ("workplane.v", WORKPLANE), ("actVisible", 1)]))
        for i, p in ((1, p0), (2, p1)):
            out.append(_block("Entity", [("h.v", f"{r:04x}{i:04x}"), ("type", 2001),
                                         ("construction", 0), ("workplane.v", WORKPLANE),
                                         ("actPoint.x", _num(p[0])),
                                         ("actPoint.y", _num(p[1])), ("actVisible", 1)]))
    out.append(_block("Entity", [("h.v", WORKPLANE), ("type", 10000), ("construction", 0),
                                 ("point[0].v", "80020002"), ("normal.v", "80020001"),
                                 ("actVisible", 1)]))
    out.append(_block("Entity", [("h.v", "80020001"), ("type", 3010), ("construction", 0),
                                 ("actNormal.w", _num(1.0)), ("actVisible", 1)]))
    out.append(_block("Entity", [("h.v", "80020002"), ("type", 2012), ("construction", 0),
                                 ("actVisible", 1)]))
    for i, (t, f) in enumerate(constraints, start=1):
        fields = [("h.v", f"{i:08x}"), ("type", t), ("group.v", "00000002"),
                  ("workplane.v", WORKPLANE)]
        if "valA" in f:
            fields.append(("valA", _num(f["valA"])))
        for k in ("ptA", "ptB", "entityA", "entityB"):
            if k in f:
                fields.append((f"{k}.v", f[k]))
        fields += [("other", f.get("other", 0)), ("other2", 0),
                   ("reference", f.get("reference", 0))]
        if "comment" in f:
            fields.append(("comment", f["comment"]))
        fields += [("disp.offset.x", _num(5.0)), ("disp.offset.y", _num(5.0))]
        out.append(_block("Constraint", fields))
    return "".join(out)


_LENGTHS = re.compile(r"^((?:Entity\.actPoint\.[xy])|(?:Param\.val)|"
                      r"(?:Constraint\.valA))=(.*)$", re.M)


def transformed(text: str, scale: float = 1.0, shift=(0.0, 0.0), *,
                distances_only: bool = False) -> str:
    """The sketch ``text`` with every length multiplied by ``scale`` and every point moved
    by ``shift`` (points only: not the workplane's origin); angles (``valA`` of the angle
    constraints) are kept."""
    angle_blocks = set()
    for m in re.finditer(r"Constraint\.type=120\n(?:Constraint\.[^\n]*\n)*?"
                         r"Constraint\.valA=", text):
        angle_blocks.add(m.end())

    def repl(m):
        key, value = m.group(1), float(m.group(2))
        if key == "Constraint.valA":
            if m.start(2) in angle_blocks:
                return m.group(0)
            return f"{key}={_num(value * scale)}"
        if key == "Param.val":
            return f"{key}={_num(value * scale)}"
        k = 0 if key.endswith("x") else 1
        return f"{key}={_num(value * scale + shift[k])}"

    return _LENGTHS.sub(repl, text)


def sketch_bytes(text: str) -> bytes:
    """A sketch's text as SolveSpace writes it: the header's first three characters in
    Latin-1, the rest in UTF-8."""
    return text[:3].encode("latin-1") + text[3:].encode("utf-8")
