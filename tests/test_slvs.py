"""SolveSpace sketches as mechanisms (issue 31, item 1): ``ms.load("linkage.slvs")``.

The sketches under ``tests/data/slvs/`` are written in SolveSpace's text form (see
``tests/_slvs_cases.py``); the poses of the loaded mechanisms, solved with their drivers, are
checked against closed forms computed here from the dimensions, in millimetres, micrometres
and kilometres, and far from the origin.
"""

from __future__ import annotations

import math
import os
import pathlib
import re

import numpy as np
import pytest
from _slvs_cases import ORIGIN, sketch_text, transformed
from _urdf_cases import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve.files import ModelFileError, loads_slvs

DATA = pathlib.Path(__file__).parent / "data" / "slvs"
# SolveSpace writes the header's first three characters as Latin-1 bytes, the rest as UTF-8
# (ASCII here)
FOURBAR = (DATA / "fourbar.slvs").read_bytes().decode("latin-1")
SLIDER = (DATA / "slider-crank.slvs").read_bytes().decode("latin-1")
ANGLES = np.radians(np.arange(0.0, 361.0, 15.0))


def _circles(c1, r1, c2, r2):
    """The intersection of two circles left of the line from ``c1`` to ``c2``."""
    c1, c2 = np.asarray(c1, float), np.asarray(c2, float)
    d = np.linalg.norm(c2 - c1)
    a = (r1**2 - r2**2 + d**2) / (2 * d)
    e = (c2 - c1) / d
    return c1 + a * e + np.sqrt(r1**2 - a**2) * np.array([-e[1], e[0]])


def _close(got, want, size):
    assert np.max(np.abs(np.asarray(got) - np.asarray(want))) <= 1e-12 * size, (got, want)


# -- the four-bar ---------------------------------------------------------------------------
def _check_fourbar(mech, s=1.0):
    """Crank 30, coupler 70 (coupler point 40 from A and 50 from B), rocker 60, ground 80
    (times ``s``), driven by the angle dimension c010 between the ground line and the crank."""
    crank, coupler, rocker = mech.body("r005"), mech.body("r006"), mech.body("r009")
    drive = mech.joint("c010")
    a, b, c, d, ap, bp = (s * x for x in (30.0, 70.0, 60.0, 80.0, 40.0, 50.0))
    px = (ap**2 - bp**2 + b**2) / (2 * b)
    p_local = (px, np.sqrt(ap**2 - px**2))           # the coupler point, left of A -> B
    motion = mech.sweep(drive, ANGLES)
    A = a * np.column_stack([np.cos(ANGLES), np.sin(ANGLES)])
    B = np.array([_circles(p, b, (d, 0.0), c) for p in A])
    P = np.array([_circles(p, ap, q, bp) for p, q in zip(A, B)])
    _close(motion.point(crank, (a, 0.0)), A, d)
    _close(motion.point(crank, (0.0, 0.0)), np.zeros_like(A), d)
    _close(motion.point(coupler, (0.0, 0.0)), A, d)
    _close(motion.point(coupler, (b, 0.0)), B, d)
    _close(motion.point(coupler, p_local), P, d)
    _close(motion.point(rocker, (0.0, 0.0)), np.tile((d, 0.0), (len(A), 1)), d)
    _close(motion.point(rocker, (c, 0.0)), B, d)


def test_fourbar_bodies_joints_and_driver():
    mech = ms.load(DATA / "fourbar.slvs")
    assert mech.name == "fourbar"
    assert mech.units == {"length": "mm", "angle": "deg"}
    # the coupler triangle (requests 6, 7, 8) is one link; the ground line is the ground
    assert [b.name for b in mech.bodies] == ["r005", "r006", "r009"]
    kinds = [(j.name, type(j).__name__) for j in mech.joints]
    assert kinds == [("pin_00010001", "Revolute"), ("pin_00040002", "Revolute"),
                     ("pin_00050002", "Revolute"), ("pin_00060002", "Revolute"),
                     ("c010", "AngleDriver")]
    drive = mech.joint("c010")
    assert abs(drive.value - np.radians(60.0)) <= 4e-16
    assert mech.dof().free == 0
    mech.solve()
    _close(mech.body("r005").to_global((30.0, 0.0)),
           30.0 * np.array([np.cos(np.pi / 3), np.sin(np.pi / 3)]), 80.0)


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e6])
def test_fourbar_poses_match_the_closed_form(scale):
    text = FOURBAR if scale == 1.0 else transformed(FOURBAR, scale)
    _check_fourbar(loads_slvs(text, name="fourbar"), scale)


def test_fourbar_driver_value_moves_the_crank():
    mech = ms.load(DATA / "fourbar.slvs")
    drive = mech.joint("c010")
    for deg in (-170.0, 95.0, 200.0):
        drive.value = np.radians(deg)
        mech.solve()
        t = np.radians(deg)
        A = 30.0 * np.array([np.cos(t), np.sin(t)])
        _close(mech.body("r009").to_global((60.0, 0.0)), _circles(A, 70.0, (80.0, 0.0), 60.0),
               80.0)


def test_fourbar_round_trips_through_a_model_file(tmp_path):
    mech = ms.load(DATA / "fourbar.slvs")
    ms.save(mech, tmp_path / "fourbar.toml")
    _check_fourbar(ms.load(tmp_path / "fourbar.toml"))


# -- the slider-crank -----------------------------------------------------------------------
def _check_slider(mech, s=1.0, shift=(0.0, 0.0)):
    """Crank 25 about the locked point (100, 50), rod 90, its end on the rail 10 above the
    crank's pivot (times ``s``, moved by ``shift``); driven by the default driver."""
    x0, y0 = 100.0 * s + shift[0], 50.0 * s + shift[1]
    a, b, e = 25.0 * s, 90.0 * s, 10.0 * s
    crank, rod = mech.body("r005"), mech.body("r006")
    drive = mech.joint("crank")
    motion = mech.sweep(drive, ANGLES)
    A = np.column_stack([x0 + a * np.cos(ANGLES), y0 + a * np.sin(ANGLES)])
    B = np.column_stack([A[:, 0] + np.sqrt(b**2 - (y0 + e - A[:, 1])**2),
                         np.full(len(A), y0 + e)])
    _close(motion.point(crank, (a, 0.0)), A, b)
    _close(motion.point(rod, (0.0, 0.0)), A, b)
    _close(motion.point(rod, (b, 0.0)), B, b)


def test_slider_crank_bodies_and_default_driver():
    mech = ms.load(DATA / "slider-crank.slvs")
    assert [b.name for b in mech.bodies] == ["r005", "r006"]
    kinds = [(j.name, type(j).__name__) for j in mech.joints]
    assert kinds == [("pin_00050001", "Revolute"), ("pin_00050002", "Revolute"),
                     ("c007", "PointOnLine"), ("crank", "AngleDriver")]
    # the default driver holds the crank where it is drawn: 40 degrees
    assert abs(mech.joint("crank").value - np.radians(40.0)) <= 1e-14


@pytest.mark.parametrize("scale, shift", [(1.0, (0.0, 0.0)), (1e-3, (0.0, 0.0)),
                                          (1e6, (0.0, 0.0)), (1.0, (1e5, -3e5))])
def test_slider_crank_poses_match_the_closed_form(scale, shift):
    text = transformed(SLIDER, scale, shift)
    _check_slider(loads_slvs(text), scale, shift)


def test_the_header_as_solvespace_writes_it_or_as_utf8(tmp_path):
    raw = (DATA / "fourbar.slvs").read_bytes()
    assert raw.startswith(b"\xb1\xb2\xb3SolveSpaceREVa\n")
    utf8 = tmp_path / "utf8.slvs"
    utf8.write_bytes("\u00b1\u00b2\u00b3".encode("utf-8") + raw[3:])
    names = [b.name for b in ms.load(utf8).bodies]
    assert names == [b.name for b in ms.load(DATA / "fourbar.slvs").bodies]
    bad = tmp_path / "bad.slvs"
    bad.write_bytes(raw[:200] + b"\xff" + raw[200:])
    with pytest.raises(ModelFileError, match=r"not UTF-8 text \(byte 200\)"):
        ms.load(bad)


def test_cli_checks_a_sketch(capsys):
    from mechsolve.cli import main

    assert main(["check", str(DATA / "slider-crank.slvs")]) == 0
    assert "2 bodies, 4 joints" in capsys.readouterr().out


# -- what is refused, by name ---------------------------------------------------------------
def _entity_field(text, handle, field, value):
    """``text`` with ``Entity.<field>`` of entity ``handle`` set to ``value``."""
    block = re.compile(rf"(Entity\.h\.v={handle}\n(?:Entity\.[^\n]*\n)*?Entity\.{field}=)"
                       r"[^\n]*")
    out, n = block.subn(rf"\g<1>{value}", text, count=1)
    assert n == 1
    return out


@pytest.mark.parametrize("value, name", [("13000", "CIRCLE"), ("12000", "CUBIC"),
                                         ("99999", "unknown type")])
def test_an_unmapped_entity_is_named(value, name):
    text = _entity_field(FOURBAR, "00050000", "type", value)
    with pytest.raises(ModelFileError, match=rf"entity 00050000 \({name}, type {value}\)"):
        loads_slvs(text)


def test_a_3d_entity_is_refused():
    text = _entity_field(FOURBAR, "00060000", "workplane.v", "00000000")
    with pytest.raises(ModelFileError, match=r"entity 00060000 \(LINE_SEGMENT, type 11000\): "
                                             r"a 3D entity"):
        loads_slvs(text)
    extra = "Entity.h.v=000a0001\nEntity.type=2000\nEntity.actPoint.z=5.0\nAddEntity\n\n"
    text = FOURBAR.replace("Entity.h.v=80020000", extra + "Entity.h.v=80020000")
    with pytest.raises(ModelFileError, match=r"entity 000a0001 \(POINT_IN_3D, type 2000\): "
                                             r"a 3D entity"):
        loads_slvs(text)


def test_a_truncated_sketch_is_refused():
    cut = FOURBAR[: FOURBAR.index("Entity.h.v=00060000") + 60]
    with pytest.raises(ModelFileError, match=r"the Entity block begun on line \d+ has no "
                                             r"AddEntity line \(a truncated file\?\)"):
        loads_slvs(cut)
    cut = FOURBAR[: FOURBAR.index("Group.remap={") + 14]
    with pytest.raises(ModelFileError, match="Group.remap list .* no closing"):
        loads_slvs(cut)


def test_other_faults_are_named(tmp_path):
    with pytest.raises(ModelFileError, match="line 1: expected the header"):
        loads_slvs("<?xml version='1.0'?>")
    with pytest.raises(ModelFileError, match=r"line \d+: expected a field"):
        loads_slvs(FOURBAR.replace("AddParam", "AddParm", 1))
    bad = FOURBAR.replace("Constraint.type=20\n", "Constraint.type=50\n", 1)
    with pytest.raises(ModelFileError, match=r"constraint c001 \(EQUAL_LENGTH_LINES, type "
                                             r"50\): not mapped"):
        loads_slvs(bad)
    bad = FOURBAR.replace("Constraint.valA=40.0", "Constraint.valA=41.0")
    with pytest.raises(ModelFileError, match=r"constraint c00b \(PT_PT_DISTANCE, type 30\): "
                                             r"the distance is 41.0, but the sketch has"):
        loads_slvs(bad)
    bad = FOURBAR.replace("Entity.actPoint.x=15.0", "Entity.actPoint.x=nan")
    with pytest.raises(ModelFileError, match=r"Entity.actPoint.x .*expected a finite number"):
        loads_slvs(bad)
    big = tmp_path / "big.slvs"
    big.write_bytes((DATA / "fourbar.slvs").read_bytes())
    with pytest.raises(ModelFileError, match="more than 100 bytes"):
        ms.load(big, max_bytes=100)
    (tmp_path / "folder.slvs").mkdir()
    with pytest.raises(ModelFileError, match="is a directory"):
        ms.load(tmp_path / "folder.slvs")
    with pytest.raises(ModelFileError, match="cannot be read"):
        ms.load(tmp_path / "missing.slvs")


def test_a_horizontal_bar_off_the_ground_is_refused():
    lines = [(4, (0.0, 0.0), (10.0, 0.0)), (5, (0.0, 0.0), (3.0, 4.0)),
             (6, (3.0, 4.0), (9.0, 4.0))]
    cons = [(20, dict(ptA=ORIGIN, ptB="00040001")), (80, dict(entityA="00040000")),
            (20, dict(ptA="00040001", ptB="00050001")),
            (20, dict(ptA="00050002", ptB="00060001")), (80, dict(entityA="00060000"))]
    with pytest.raises(ModelFileError, match=r"constraint c005 \(HORIZONTAL, type 80\): a "
                                             "horizontal or vertical constraint is read on a "
                                             "line segment pinned to the ground"):
        loads_slvs(sketch_text(lines, cons))


def test_reading_stops_at_the_bound(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    endless = tmp_path / "endless.slvs"
    endless.symlink_to("/dev/zero")
    with time_limit(5.0), pytest.raises(ModelFileError, match="more than 16777216 bytes"):
        ms.load(endless)


# -- fuzzed: loaded or refused by name, never anything else ---------------------------------
_LINES = [FOURBAR.splitlines(), SLIDER.splitlines()]


@st.composite
def _mutated(draw):
    lines = list(draw(st.sampled_from(_LINES)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "value", "value", "duplicate", "truncate",
                                   "insert"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "truncate":
            lines = lines[:i]
            break
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(["AddEntity", "AddConstraint", "}", "",
                                                  "Entity.type=2000", "Param.h.v.=zz",
                                                  "Constraint.type=120", "\u00b1"])))
        elif "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            value = draw(st.one_of(
                st.sampled_from(["0", "1", "-1", "nan", "inf", "1e308", "1e16", "00000000",
                                 "80020000", "00010001", "00040001", "00050000", "11000",
                                 "2001", "2000", "13000", "20", "30", "42", "120", "200", ""]),
                st.floats(allow_nan=True).map(repr), st.text(max_size=6)))
            lines[i] = f"{key}={value}"
    return "\n".join(lines)


@settings(derandomize=True, max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_sketches_load_or_are_refused_by_name(text):
    with time_limit(10.0):
        try:
            mech = loads_slvs(text)
        except ModelFileError as exc:
            assert str(exc).startswith("SolveSpace sketch '<string>'")
            return
        assert all(np.all(np.isfinite(b.position)) for b in mech.bodies)


def test_an_angle_between_two_moving_links_drives_the_pin_between_them():
    """The angle dimension between the crank and the coupler (not the ground line): the
    driver's sense of rotation follows the drawing, and the solve keeps the drawn pose."""
    mech = ms.load(DATA / "fourbar.slvs")
    mech.solve()
    crank, coupler = mech.body("r005"), mech.body("r006")
    drawn = math.degrees(coupler.angle - crank.angle)          # negative: clockwise
    text = _angle(FOURBAR, abs(drawn), "00050000", "00060000")
    other = loads_slvs(text)
    drive = other.joint("c010")
    assert [b.name for b in drive.joint.bodies] == ["r005", "r006"]
    assert abs(drive.value - math.radians(drawn)) <= 1e-14
    other.solve()
    for name in ("r005", "r006", "r009"):
        _close(other.body(name).position, mech.body(name).position, 80.0)
    # the dimension measured the other way round (-dA, other=1) gives the same driver
    flipped = _angle(FOURBAR, 180.0 - abs(drawn), "00050000", "00060000", other=1)
    assert abs(loads_slvs(flipped).joint("c010").value - drive.value) <= 1e-13


def _angle(text, degrees, a, b, other=0):
    """``text`` with its angle constraint c010 between the lines ``a`` and ``b``."""
    block = re.compile(r"Constraint\.h\.v=00000010\n.*?AddConstraint", re.S)
    new = ("Constraint.h.v=00000010\nConstraint.type=120\nConstraint.group.v=00000002\n"
           f"Constraint.workplane.v=80020000\nConstraint.valA={degrees!r}\n"
           f"Constraint.entityA.v={a}\nConstraint.entityB.v={b}\nConstraint.other={other}\n"
           "AddConstraint")
    out, n = block.subn(new, text)
    assert n == 1
    return out


def test_a_long_chain_loads_in_time_linear_in_it():
    """2000 links pinned in a row (each a link: nothing merges; 2000 degrees of freedom, so
    the default driver is chosen by Gruebler's count, not a rank analysis)."""
    n = 2000
    lines = [(4 + i, (float(i), 0.0), (float(i + 1), 0.0)) for i in range(n)]
    cons = [(20, dict(ptA=f"{4 + i:04x}0002", ptB=f"{5 + i:04x}0001")) for i in range(n - 1)]
    cons.append((20, dict(ptA=ORIGIN, ptB="00040001")))
    with time_limit(30.0):
        mech = loads_slvs(sketch_text(lines, cons))
    assert len(mech.bodies) == n and mech.joints[-1].name == "crank"


def test_a_triangulated_truss_is_one_rigid_link():
    """A strip of 40 triangles pinned at the origin: every bar merges into one link."""
    lines, by, r = [], {}, 4
    for i in range(40):
        b0, b1, t0, t1 = (float(i), 0.0), (i + 1.0, 0.0), (i + 0.5, 1.0), (i + 1.5, 1.0)
        for p, q in ((b0, b1), (b0, t0), (t0, b1)) + (((t0, t1),) if i < 39 else ()):
            lines.append((r, p, q))
            by.setdefault(p, []).append(f"{r:04x}0001")
            by.setdefault(q, []).append(f"{r:04x}0002")
            r += 1
    cons = [(20, dict(ptA=hs[0], ptB=x)) for hs in by.values() for x in hs[1:]]
    cons.append((20, dict(ptA=ORIGIN, ptB="00040001")))
    mech = loads_slvs(sketch_text(lines, cons))
    assert [b.name for b in mech.bodies] == ["r004"]
    assert len(mech.body("r004").points) == len(by)


def test_too_many_links_at_one_point_are_refused():
    lines = [(4 + i, (0.0, 0.0), (math.cos(i), math.sin(i))) for i in range(65)]
    cons = [(20, dict(ptA="00040001", ptB=f"{4 + i:04x}0001")) for i in range(1, 65)]
    with pytest.raises(ModelFileError, match=r"entity 00040001 \(POINT_IN_2D, type 2001\): 65 "
                                             r"line segments meet there, more than 64"):
        loads_slvs(sketch_text(lines, cons))
