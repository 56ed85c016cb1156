"""Drawings to cut links from: ``ms.plot.export(mech, "links.dxf" | "links.svg")``.

Every link of a planar mechanism is written as its outline -- the convex hull of the points
where its joints attach and of its named points (:attr:`Body.points <mechsolve.Body.points>`),
grown by half the link's ``width`` (straight sides, round ends) --
with a pin hole of diameter ``hole`` at each pin (a revolute's points, a slot's pin, a rod's
ends), at true scale in the model's length unit. A :class:`~mechsolve.joints.Distance` rod is
a link too (named after the joint). The ground gets its holes only (a base plate's pivots),
without an outline. With ``motion`` and ``trace``, the paths of the traced points (coupler
curves) are written as polylines.

* **SVG** is written here, without a dependency: one ``<g>`` per link (``id`` the body's name,
  ``class="link"``) holding a ``<path class="outline">`` (lines and circular arcs) and a
  ``<circle class="hole">`` per pin; ``<polyline class="trace">`` per traced point. The
  document's ``width`` and ``height`` carry the length unit (``mm``, ``cm``, ``in``; metres and
  micrometres are written as mm), so that the drawing prints at true scale; its user unit is
  the model's length unit. SVG's y axis points down: a model point ``(x, y)`` is written at
  ``(x, -y)``. Numbers are written to round-trip exactly.
* **DXF** is written with ``ezdxf`` (the optional extra ``pip install "mechsolve[dxf]"``): a
  layer per link (its name) with a closed ``LWPOLYLINE`` outline (arcs as bulges) and a
  ``CIRCLE`` per pin; ``$INSUNITS`` says the length unit; traces on layer ``trace`` as
  ``LWPOLYLINE``.

A slot (a pin in a slot of a link, :class:`~mechsolve.joints.PointOnLine`) is not cut: the
slotted link's outline reaches the slot's reference point, and the pin's link gets its hole.

``layout="assembly"`` (the default) draws the links where they are (the mechanism's pose, or
``state``); ``layout="parts"`` lays every link out in its own coordinates, side by side along
x, for cutting.
"""

from __future__ import annotations

import math
import os
import pathlib
import xml.etree.ElementTree as ET

import numpy as np

from ..joints import Distance

__all__ = ["export", "link_outlines"]

#: SVG's absolute units, in millimetres, and what a length unit is written as.
_SVG_UNITS = {"mm": ("mm", 1.0), "cm": ("cm", 1.0), "in": ("in", 1.0), "m": ("mm", 1e3),
              "um": ("mm", 1e-3), "km": ("mm", 1e6)}
#: ezdxf's ``units`` codes ($INSUNITS).
_DXF_UNITS = {"in": 1, "ft": 2, "mm": 4, "cm": 5, "m": 6, "km": 7, "um": 13}


class _Link:
    """One link's drawing in its own coordinates: ``points`` (the outline's vertices, (k, 2)),
    ``holes`` (pin centres, (h, 2)), and the body (or rod joint) it belongs to."""

    def __init__(self, name, owner, points, holes, place):
        self.name = name
        self.owner = owner
        self.points = points
        self.holes = holes
        self.place = place          # body coordinates -> the drawing's


def _unique(points, tol):
    out = []
    for p in points:
        if all(np.hypot(*(p - q)) > tol for q in out):
            out.append(np.asarray(p, dtype=float))
    return out


def link_outlines(mech, state=None) -> list:
    """``[(name, points, holes)]`` of every link of ``mech`` (and its ground, first, whose
    ``points`` are empty): the attachment points (outline vertices) and pin centres in the
    body's coordinates, and for :class:`~mechsolve.joints.Distance` rods in the first body's.

    Examples
    --------
    >>> import mechsolve as ms
    >>> links = link_outlines(ms.models.fourbar().mechanism)
    >>> [(name, len(points), len(holes)) for name, points, holes in links]
    [('ground', 0, 2), ('crank', 2, 2), ('coupler', 2, 2), ('rocker', 2, 2)]
    """
    return [(k.name, k.points, k.holes) for k in _links(mech, state)]


def _links(mech, state=None) -> list:
    if mech.dim != 2:
        raise ValueError("export draws planar mechanisms (Mechanism(dim=2)); this one is "
                         "spatial")
    tol = 1e-9 * mech.length_scale
    points = {id(b): [] for b in (mech.ground, *mech.bodies)}
    holes = {id(b): [] for b in (mech.ground, *mech.bodies)}
    rods = []
    with _At(mech, state):
        for joint in mech.joints:
            if isinstance(joint, Distance):
                rods.append(joint)
            g = joint.geometry()
            for body, p in g.points:
                if body.name is not None and id(body) in points:
                    points[id(body)].append(np.asarray(p, dtype=float))
            pins = [body.to_global(p) for body, p in g.pins]
            for rod in g.rods:
                pins += [rod.end1[0].to_global(rod.end1[1]), rod.end2[0].to_global(rod.end2[1])]
            for body, p in g.points:
                if id(body) in holes and any(np.hypot(*(body.to_global(p) - q)) <= tol
                                             for q in pins):
                    holes[id(body)].append(np.asarray(p, dtype=float))
        out = []
        for body in (mech.ground, *mech.bodies):
            place = _placement(body)
            pts = [] if body is mech.ground else _unique(
                points[id(body)] + list(body.points.values()), tol)
            out.append(_Link(body.name, body, np.array(pts).reshape(-1, 2),
                             np.array(_unique(holes[id(body)], tol)).reshape(-1, 2), place))
        for rod in rods:
            b1, b2 = rod.bodies
            e1 = np.asarray(rod.param("point1"), dtype=float)
            e2 = b1.to_local(b2.to_global(rod.param("point2"))) if b1 is not mech.ground \
                else b2.to_global(rod.param("point2"))
            ends = np.array([e1, e2])
            out.append(_Link(rod.name or "rod", b1, ends, ends, _placement(b1)))
    return out


class _At:
    """The mechanism at ``state`` for the block (its own pose when ``None``)."""

    def __init__(self, mech, state):
        self.cm = mech.trying_state(np.asarray(state, dtype=float)) if state is not None \
            else None

    def __enter__(self):
        if self.cm is not None:
            self.cm.__enter__()

    def __exit__(self, *exc):
        if self.cm is not None:
            return self.cm.__exit__(*exc)
        return False


def _placement(body):
    if body.position is None or body.name == "ground":
        return np.zeros(2), 0.0
    return np.array(body.position, dtype=float), float(body.angle)


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of ``points`` (k, 2), counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(map(tuple, points))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def _outline(points: np.ndarray, r: float) -> list:
    """The hull of ``points`` grown by ``r``: ``[(start, end, centre or None, sweep, r)]``, a
    closed loop of lines (``centre`` None) and counter-clockwise arcs of radius ``r`` about a
    hull vertex (``sweep`` their angle)."""
    hull = _hull(points)
    if len(hull) == 1:
        c = hull[0]
        p = c + (r, 0.0)
        q = c - (r, 0.0)
        return [(p, q, c, math.pi, r), (q, p, c, math.pi, r)]
    n = len(hull)
    normals = []
    for i in range(n):
        d = hull[(i + 1) % n] - hull[i]
        normals.append(np.array([d[1], -d[0]]) / np.hypot(*d))
    out = []
    for i in range(n):
        j = (i + 1) % n
        a, b = hull[i] + r * normals[i], hull[j] + r * normals[i]
        out.append((a, b, None, 0.0, r))
        nxt = hull[j] + r * normals[j]
        sweep = math.atan2(normals[i][0] * normals[j][1] - normals[i][1] * normals[j][0],
                           normals[i] @ normals[j])
        if n == 2:
            sweep = math.pi
        out.append((b, nxt, hull[j], sweep, r))
    return out


def _to_drawing(place, p):
    (x0, y0), t = place
    c, s = math.cos(t), math.sin(t)
    p = np.asarray(p, dtype=float)
    return np.array([x0 + c * p[..., 0] - s * p[..., 1], y0 + s * p[..., 0] + c * p[..., 1]]).T


def _placed(mech, links, layout, width):
    """``[(name, outline (loop, transformed), holes (h, 2))]`` in the drawing's coordinates."""
    r = width / 2
    out, x = [], 0.0
    for k in links:
        if layout == "parts":
            if not len(k.points) and not len(k.holes):
                continue
            every = np.vstack([k.points, k.holes]) if len(k.points) else k.holes
            lo = every.min(axis=0) - r
            hi = every.max(axis=0) + r
            place = (np.array([x - lo[0], -lo[1]]), 0.0)
            x += float(hi[0] - lo[0]) + width
        else:
            place = k.place
        loop = [] if not len(k.points) else [
            (_to_drawing(place, a), _to_drawing(place, b),
             None if c is None else _to_drawing(place, c), sw, rr)
            for a, b, c, sw, rr in _outline(k.points, r)]
        holes = _to_drawing(place, k.holes).reshape(-1, 2)
        out.append((k.name, loop, holes))
    return out


def _num(x: float) -> str:
    return repr(float(x))


def _svg(path, mech, parts, traces, hole, unit):
    every = [p for _, loop, holes in parts for seg in loop for p in seg[:2]] \
        + [h for _, _, holes in parts for h in holes] + [p for _, t in traces for p in t]
    pts = np.array(every).reshape(-1, 2)
    pad = hole
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    w, h = hi - lo
    svg_unit, factor = _SVG_UNITS.get(unit or "", ("", 1.0))
    root = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "version": "1.1",
        "width": f"{_num(w * factor)}{svg_unit}", "height": f"{_num(h * factor)}{svg_unit}",
        "viewBox": f"{_num(lo[0])} {_num(-hi[1])} {_num(w)} {_num(h)}"})
    ET.SubElement(root, "title").text = f"{mech.name or 'mechanism'}: links" \
        + (f" (lengths in {unit})" if unit else "")
    stroke = {"fill": "none", "stroke": "black", "stroke-width": _num(hole / 10)}
    for name, loop, holes in parts:
        g = ET.SubElement(root, "g", {"id": name, "class": "link"})
        if loop:
            a = loop[0][0]
            d = [f"M {_num(a[0])} {_num(-a[1])}"]
            for _, b, c, sweep, rr in loop:
                if c is None:
                    d.append(f"L {_num(b[0])} {_num(-b[1])}")
                else:
                    # counter-clockwise in the model is clockwise with y down: sweep flag 0
                    d.append(f"A {_num(rr)} {_num(rr)} 0 {int(abs(sweep) > math.pi)} 0 "
                             f"{_num(b[0])} {_num(-b[1])}")
            d.append("Z")
            ET.SubElement(g, "path", {"class": "outline", "d": " ".join(d), **stroke})
        for c in holes:
            ET.SubElement(g, "circle", {"class": "hole", "cx": _num(c[0]), "cy": _num(-c[1]),
                                        "r": _num(hole / 2), **stroke})
    for name, t in traces:
        ET.SubElement(root, "polyline", {
            "class": "trace", "id": name,
            "points": " ".join(f"{_num(x)},{_num(-y)}" for x, y in t), **stroke})
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _dxf(path, mech, parts, traces, hole, unit):
    try:
        import ezdxf  # optional (the dxf extra): imported when a DXF is written
    except ImportError:
        raise ImportError("writing DXF needs ezdxf: pip install \"mechsolve[dxf]\" (or "
                          "ezdxf); SVG needs nothing") from None
    doc = ezdxf.new("R2010")
    if unit in _DXF_UNITS:
        doc.units = _DXF_UNITS[unit]
    msp = doc.modelspace()
    for name, loop, holes in parts:
        if name not in doc.layers:
            doc.layers.add(name)
        if loop:
            verts = []
            for a, _, c, sweep, _r in loop:
                bulge = 0.0 if c is None else math.tan(sweep / 4)
                verts.append((float(a[0]), float(a[1]), 0.0, 0.0, bulge))
            msp.add_lwpolyline(verts, format="xyseb", close=True, dxfattribs={"layer": name})
        for c in holes:
            msp.add_circle((float(c[0]), float(c[1])), hole / 2, dxfattribs={"layer": name})
    if traces:
        doc.layers.add("trace")
        for _, t in traces:
            msp.add_lwpolyline([(float(x), float(y)) for x, y in t],
                               dxfattribs={"layer": "trace"})
    doc.saveas(path)


def export(mech, path, *, state=None, motion=None, trace=(), width: float | None = None,
           hole: float | None = None, layout: str = "assembly") -> pathlib.Path:
    """Write every link of a planar mechanism, with its pin holes, to a DXF or SVG drawing at
    true scale (see :mod:`mechsolve.plot.export`).

    Parameters
    ----------
    mech : Mechanism
        A planar mechanism.
    path : path-like
        The file to write: ``.svg`` or ``.dxf`` (DXF needs ``ezdxf``).
    state : array_like, optional
        The pose to draw (a state of ``mech``, e.g. ``motion.states[i]``); default its own.
    motion : Motion, optional
        A sweep whose ``trace`` points' paths are written as polylines.
    trace : (body, point) or sequence of them
        Points (body coordinates) whose paths over ``motion`` are written.
    width : float, optional
        Width of the links' outlines, in the model's length unit (default a tenth of the
        model's size, :attr:`Mechanism.length_scale`).
    hole : float, optional
        Diameter of the pin holes (default 0.4 ``width``); less than ``width``.
    layout : {"assembly", "parts"}
        The links where they are, or each in its own coordinates side by side along x.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import os, tempfile
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> out = os.path.join(tempfile.mkdtemp(), "links.svg")
    >>> ms.plot.export(model.mechanism, out, width=0.2).name
    'links.svg'
    """
    p = pathlib.Path(os.fspath(path))
    kind = p.suffix.lower()
    if kind not in (".svg", ".dxf"):
        raise ValueError(f"path must name a .svg or .dxf file, got {str(path)!r}")
    if layout not in ("assembly", "parts"):
        raise ValueError(f"layout must be 'assembly' or 'parts', got {layout!r}")
    links = _links(mech, state)
    size = mech.length_scale
    if width is None:
        width = 0.1 * size
    if isinstance(width, bool) or not isinstance(width, int | float) \
            or not math.isfinite(width) or not width > 0:
        raise ValueError(f"width must be a positive length, got {width!r}")
    if hole is None:
        hole = 0.4 * width
    if isinstance(hole, bool) or not isinstance(hole, int | float) \
            or not math.isfinite(hole) or not 0 < hole < width:
        raise ValueError(f"hole must be a positive diameter less than width ({width!r}), got "
                         f"{hole!r}")
    traced = [trace] if (isinstance(trace, tuple) and len(trace) == 2
                         and not isinstance(trace[0], tuple)) else list(trace)
    if traced and motion is None:
        raise ValueError("trace needs motion=: the sweep whose paths are written")
    traces = []
    for i, item in enumerate(traced):
        try:
            body, point = item
        except (TypeError, ValueError):
            raise TypeError(f"trace[{i}] must be (body, point), got {item!r}") from None
        path_xy = np.asarray(motion.point(body, point), dtype=float)
        if layout == "parts":
            raise ValueError("trace draws paths where the links move: use layout='assembly'")
        traces.append((f"trace-{body.name}-{i}", path_xy))
    parts = _placed(mech, links, layout, float(width))
    unit = mech.units.get("length")
    if kind == ".svg":
        _svg(p, mech, parts, traces, float(hole), unit)
    else:
        _dxf(p, mech, parts, traces, float(hole), unit)
    return p
