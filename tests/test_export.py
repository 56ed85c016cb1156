"""Drawings out (issue 31, item 4): ``ms.plot.export(mech, "links.svg" | "links.dxf")`` and
``mechsolve export``. The files are read back (SVG with xml.etree, DXF with ezdxf) and their
hole centres, link lengths and traced paths compared with the model's, to 1e-12 relative, in
a model in millimetres and one in metres."""

from __future__ import annotations

import math
import pathlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.cli import main

DATA = pathlib.Path(__file__).parent / "data" / "slvs"
SVG = "{http://www.w3.org/2000/svg}"


def _mm_fourbar():
    """The SolveSpace four-bar (mm): crank 30, coupler 70 (a triangle), rocker 60, ground 80."""
    mech = ms.load(DATA / "fourbar.slvs")
    mech.solve()
    return mech, {"r005": 30.0, "r009": 60.0, "r006": 70.0}


def _m_fourbar():
    """The built-in four-bar, declared in metres: crank 1, coupler 3, rocker 3.5."""
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.units = {**mech.units, "length": "m"}
    mech.joint("motor").value = 0.7
    mech.solve()
    return mech, {"crank": 1.0, "coupler": 3.0, "rocker": 3.5}


def _pins(mech):
    """Every pin of every body, in global coordinates: ``{body name: [(x, y), ...]}``."""
    out = {}
    for j in mech.joints:
        if isinstance(j, ms.joints.Revolute):
            for b, p in zip(j.bodies, (j.param("point1"), j.param("point2"))):
                out.setdefault(b.name, []).append(b.to_global(p))
    return out


def _read_svg(path):
    root = ET.parse(path).getroot()
    holes, outlines = {}, {}
    for g in root.iter(f"{SVG}g"):
        holes[g.get("id")] = np.array([(float(c.get("cx")), -float(c.get("cy")))
                                       for c in g.iter(f"{SVG}circle")]).reshape(-1, 2)
        outlines[g.get("id")] = [p.get("d") for p in g.iter(f"{SVG}path")]
    traces = [np.array([[float(v) for v in xy.split(",")] for xy in pl.get("points").split()])
              * (1.0, -1.0) for pl in root.iter(f"{SVG}polyline")]
    return root, holes, outlines, traces


def _same_points(got, want, size):
    got, want = np.asarray(got), np.asarray(want)
    assert len(got) == len(want)
    for w in want:
        assert np.min(np.hypot(*(got - w).T)) <= 1e-12 * size, (got, w)


@pytest.mark.parametrize("make, unit, size", [(_mm_fourbar, "mm", 80.0), (_m_fourbar, "m", 4.0)])
def test_svg_holes_are_the_models_pins(make, unit, size, tmp_path):
    mech, lengths = make()
    out = ms.plot.export(mech, tmp_path / "links.svg", width=0.1 * size, hole=0.04 * size)
    root, holes, outlines, _ = _read_svg(out)
    pins = _pins(mech)
    for name, want in pins.items():
        _same_points(holes[name], _unique(want, size), size)
    for name, length in lengths.items():
        h = holes[name]
        assert abs(np.hypot(*(h[-1] - h[0])) - length) <= 1e-12 * length
        assert outlines[name] and outlines[name][0].startswith("M ")
    # true scale: the document's size in an absolute unit, its user unit the model's
    w = float(root.get("viewBox").split()[2])
    number, svg_unit = re.fullmatch(r"([0-9.e+-]+)([a-z]*)", root.get("width")).groups()
    assert svg_unit == "mm"
    assert abs(float(number) - w * (1000.0 if unit == "m" else 1.0)) <= 1e-12 * float(number)


def _unique(points, size):
    out = []
    for p in points:
        if all(np.hypot(*(p - q)) > 1e-9 * size for q in out):
            out.append(p)
    return out


def test_svg_outline_is_the_hull_grown_by_half_the_width(tmp_path):
    mech, _ = _mm_fourbar()
    out = ms.plot.export(mech, tmp_path / "links.svg", width=10.0, hole=4.0)
    _, _, outlines, _ = _read_svg(out)
    d = outlines["r005"][0]
    numbers = [float(x) for x in re.findall(r"-?[0-9][0-9.e+-]*", d)]
    # the crank: a stadium, two sides and two half circles of radius 5 about its pins
    assert d.count("L ") == 2 and d.count("A ") == 2
    arcs = re.findall(r"A ([0-9.e+-]+) ([0-9.e+-]+) 0 [01] 0", d)
    assert all(float(a) == 5.0 and float(b) == 5.0 for a, b in arcs)
    crank = mech.body("r005")
    ends = [crank.to_global((0.0, 0.0)), crank.to_global((30.0, 0.0))]
    corners = np.array(numbers[:2]).reshape(1, 2) * (1, -1)
    assert min(abs(np.hypot(*(corners[0] - e)) - 5.0) for e in ends) <= 1e-12 * 80


def test_the_coupler_curve_is_a_polyline_of_the_sweep(tmp_path):
    mech, _ = _mm_fourbar()
    coupler = mech.body("r006")
    p = coupler.point("p00070002")
    motion = mech.sweep(mech.joint("c010"), np.radians(np.arange(0.0, 361.0, 10.0)))
    out = ms.plot.export(mech, tmp_path / "curve.svg", motion=motion, trace=(coupler, p))
    *_, traces = _read_svg(out)
    (path,) = traces
    want = motion.point(coupler, p)
    assert np.max(np.abs(path - want)) <= 1e-12 * 80


def test_parts_layout_keeps_every_links_holes(tmp_path):
    mech, lengths = _mm_fourbar()
    out = ms.plot.export(mech, tmp_path / "parts.svg", layout="parts")
    _, holes, _, _ = _read_svg(out)
    for name, length in lengths.items():
        h = holes[name]
        assert abs(np.hypot(*(h[-1] - h[0])) - length) <= 1e-12 * length


@pytest.mark.parametrize("make, unit, size, code", [(_mm_fourbar, "mm", 80.0, 4),
                                                    (_m_fourbar, "m", 4.0, 6)])
def test_dxf_holes_layers_and_units(make, unit, size, code, tmp_path):
    ezdxf = pytest.importorskip("ezdxf", reason="DXF needs ezdxf (the dxf extra)")
    mech, lengths = make()
    motion = mech.sweep(mech.joints[-1], np.linspace(0.0, 1.0, 11))
    body = mech.bodies[1]
    out = ms.plot.export(mech, tmp_path / "links.dxf", motion=motion,
                         trace=[(body, (0.0, 0.0))], hole=0.03 * size)
    doc = ezdxf.readfile(out)
    assert doc.header["$INSUNITS"] == code
    msp = doc.modelspace()
    pins = _pins(mech)
    for name, want in pins.items():
        circles = [c for c in msp.query("CIRCLE") if c.dxf.layer == name]
        assert all(abs(c.dxf.radius - 0.015 * size) <= 1e-15 * size for c in circles)
        _same_points([(c.dxf.center.x, c.dxf.center.y) for c in circles],
                     _unique(want, size), size)
    for name, length in lengths.items():
        c = [(e.dxf.center.x, e.dxf.center.y) for e in msp.query("CIRCLE")
             if e.dxf.layer == name]
        assert abs(math.dist(c[0], c[-1]) - length) <= 1e-12 * length
        (outline,) = [e for e in msp.query("LWPOLYLINE") if e.dxf.layer == name]
        assert outline.closed
    (trace,) = [e for e in msp.query("LWPOLYLINE") if e.dxf.layer == "trace"]
    got = np.array([(x, y) for x, y, *_ in trace.get_points()])
    assert np.max(np.abs(got - motion.point(body, (0.0, 0.0)))) <= 1e-12 * size


def test_cli_export_writes_both(tmp_path, capsys):
    svg, dxf = tmp_path / "l.svg", tmp_path / "l.dxf"
    argv = ["export", str(DATA / "fourbar.slvs"), "--svg", str(svg),
            "--trace", "r006:28.5,28", "--driver", "c010", "--values", "0:360:10"]
    try:
        import ezdxf  # noqa: F401  (the dxf extra)
        argv += ["--dxf", str(dxf)]
    except ImportError:
        pass
    assert main(argv) == 0
    assert "wrote 3 links" in capsys.readouterr().out
    _, holes, _, traces = _read_svg(svg)
    assert len(traces) == 1 and len(traces[0]) == 37
    assert sorted(holes) == ["ground", "r005", "r006", "r009"]


@pytest.mark.parametrize("argv, message", [
    (["export", "FILE"], "say what to write with --dxf PATH and/or --svg PATH"),
    (["export", "FILE", "--svg", "x.svg", "--trace", "r006"], "expected BODY:X,Y"),
    (["export", "FILE", "--svg", "x.svg", "--trace", "nobody:0,0"], "no body named 'nobody'"),
])
def test_cli_export_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [str(DATA / "fourbar.slvs") if a == "FILE" else a for a in argv]
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_export_refuses_what_it_cannot_draw(tmp_path):
    mech, _ = _mm_fourbar()
    with pytest.raises(ValueError, match=r"path must name a \.svg or \.dxf file"):
        ms.plot.export(mech, tmp_path / "links.png")
    with pytest.raises(ValueError, match="hole must be a positive diameter less than width"):
        ms.plot.export(mech, tmp_path / "l.svg", width=2.0, hole=3.0)
    with pytest.raises(ValueError, match="width must be a positive length"):
        ms.plot.export(mech, tmp_path / "l.svg", width=-1.0)
    with pytest.raises(ValueError, match="trace needs motion="):
        ms.plot.export(mech, tmp_path / "l.svg", trace=(mech.bodies[0], (0.0, 0.0)))
    with pytest.raises(ValueError, match="layout must be 'assembly' or 'parts'"):
        ms.plot.export(mech, tmp_path / "l.svg", layout="exploded")
    spatial = ms.models.spatial.rssr().mechanism
    with pytest.raises(ValueError, match="export draws planar mechanisms"):
        ms.plot.export(spatial, tmp_path / "l.svg")
