"""Free motions named (issue 30, item 2): ``dof()`` lists each free motion in words, with the
bodies that move and how; ``free_motions()`` returns them labelled and still behaves as the
``(k, n)`` array it was; ``FreeMotionWarning`` names them.

The geometry is derived from the solved poses, not from the solver: a rod between two balls
spins about the line through the ball centres; in a five-bar with one link held, the links
turn about their pivots and the floating link about the instantaneous centre that Kennedy's
theorem gives (the intersection of the lines through the pivots of its neighbours).
"""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve.analysis import FreeMotions
from mechsolve.analysis.rates import point_velocity
from mechsolve.models.spatial import rssr_output

PLACES = [(1.0, (0.0, 0.0, 0.0)), (1e-6, (5.0, -3.0, 2.0)), (1e3, (5e4, -3e4, 2e4))]


def _frame(point, z):
    z = np.asarray(z, float)
    return ms.Frame(point, ms.Orientation.identity().align_z(z / np.linalg.norm(z)))


def rssr_rod(scale=1.0, offset=(0.0, 0.0, 0.0), theta=0.4, driven=True):
    """RSSR whose rod is a body between two spherical joints (crank 1, rocker 1.5 on a skew
    axis, rod 2.5; all lengths times ``scale``, moved by ``offset``)."""
    o = np.asarray(offset, float)
    a, c, rod_length = 1.0 * scale, 1.5 * scale, 2.5 * scale
    p2 = np.array([2.0, 0.0, 1.0]) * scale
    u2 = np.array([0.0, 1.0, 0.3]) / np.linalg.norm([0.0, 1.0, 0.3])
    e1 = np.cross(u2, [0.0, 0.0, 1.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u2, e1)
    phi = rssr_output(theta, a, c, rod_length, p2, u2)[0]
    B = a * np.array([np.cos(theta), np.sin(theta), 0.0])
    C = p2 + c * (np.cos(phi) * e1 + np.sin(phi) * e2)
    mech = ms.Mechanism(dim=3, name="RSSR")
    g = mech.ground
    crank = mech.add_body("crank", position=o + B / 2,
                          orientation=ms.Orientation.from_angle_axis(theta, (0, 0, 1)))
    rocker = mech.add_body("rocker", position=o + (p2 + C) / 2)
    rod = mech.add_body("rod", position=o + (B + C) / 2)
    inp = mech.add(joints.Revolute(g, crank, _frame(o, (0, 0, 1)),
                                   _frame((-a / 2, 0, 0), (0, 0, 1)), name="input"))
    mech.add(joints.Revolute(g, rocker, _frame(o + p2, u2), _frame((p2 - C) / 2, u2),
                             name="output"))
    mech.add(joints.Spherical(crank, rod, (a / 2, 0, 0), (B - C) / 2, name="ball_B"))
    mech.add(joints.Spherical(rocker, rod, (C - p2) / 2, (C - B) / 2, name="ball_C"))
    motor = mech.add(joints.AngleDriver(inp, theta, name="motor")) if driven else None
    mech.solve()
    return mech, motor


def _ball_centres(mech):
    rod = mech.body("rod")
    return [rod.to_global(mech.joint(name).attachments()[1][1]) for name in ("ball_B", "ball_C")]


def five_bar(scale=1.0, offset=(0.0, 0.0), driven=False):
    """The five-bar of ``ms.models.five_bar`` (pivots 3 apart, links 1, 1.6, 1.6, 1), lengths
    times ``scale``, moved by ``offset``."""
    o = np.asarray(offset, float)
    s = scale
    mech = ms.Mechanism(name="five-bar")
    g = mech.ground
    a = mech.add_body("a", position=o + s * np.array([0.0, 0.5]), angle=np.pi / 2)
    b = mech.add_body("b", position=o + s * np.array([0.8, 1.2]), angle=0.3)
    c = mech.add_body("c", position=o + s * np.array([2.2, 1.1]), angle=-0.3)
    d = mech.add_body("d", position=o + s * np.array([3.0, 0.5]), angle=np.pi / 2)
    mech.add(joints.Revolute(g, a, o, (-0.5 * s, 0)))
    mech.add(joints.Revolute(a, b, (0.5 * s, 0), (-0.8 * s, 0)))
    mech.add(joints.Revolute(b, c, (0.8 * s, 0), (-0.8 * s, 0)))
    mech.add(joints.Revolute(c, d, (0.8 * s, 0), (0.5 * s, 0)))
    mech.add(joints.Revolute(d, g, (-0.5 * s, 0), o + (3 * s, 0)))
    if driven:
        mech.add(joints.Driver(a, "angle", np.pi / 2, name="motor"))
    else:  # assembled with the driver, then left free
        motor = mech.add(joints.Driver(a, "angle", np.pi / 2, name="motor"))
        mech.solve()
        mech.remove(motor)
    mech.solve()
    return mech


def _intersection(p1, p2, q1, q2):
    """The point where the line through p1, p2 meets the line through q1, q2 (planar)."""
    A = np.column_stack([p2 - p1, q1 - q2])
    t = np.linalg.solve(A, q1 - p1)
    return p1 + t[0] * (p2 - p1)


def _tol(scale, offset) -> float:
    """1e-12 of the model's size, or the round-off of coordinates as far out as ``offset``
    (64 units in the last place) where that is more."""
    return 1e-12 * scale + 64 * np.finfo(float).eps * float(np.linalg.norm(offset))


def _close(a, b, tol):
    assert np.linalg.norm(np.asarray(a) - np.asarray(b)) <= tol, (a, b, tol)


# -- the rod spins about its own axis ---------------------------------------------------------
@pytest.mark.parametrize("scale, offset", PLACES)
def test_rssr_rod_between_two_balls_spins_about_the_line_through_their_centres(scale, offset):
    mech, _ = rssr_rod(scale, offset)
    B, C = _ball_centres(mech)
    axis = (C - B) / np.linalg.norm(C - B)
    report = mech.dof()
    assert (report.dof, report.free) == (2, 1)
    motions = mech.free_motions()
    assert isinstance(motions, FreeMotions) and motions.shape == (1, 18)
    (motion,) = motions.motions
    (part,) = motion.parts
    assert part.kind == "spin" and [b.name for b in motion.bodies] == ["rod"]
    assert abs(abs(part.axis @ axis) - 1.0) <= 1e-12
    # the axis is the line through both ball centres
    for P in (B, C):
        off = P - part.point
        assert np.linalg.norm(off - (off @ axis) * axis) <= _tol(scale, offset)
    # and the motion moves no point of the rod on that line, nor any other body
    rod = mech.body("rod")
    v = motions[0]
    for P in (B, C, 0.5 * (B + C)):
        assert np.linalg.norm(point_velocity(mech, rod, rod.to_local(P), v)) <= \
            _tol(scale, offset)
    assert np.abs(v[:12]).max() == 0.0   # crank and rocker still
    shown = "(" + ", ".join(f"{x:.3g}" for x in axis * np.sign(axis[0])) + ")"
    assert motions.labels == [f"rod spins about its own axis {shown}"]
    assert f"1. rod spins about its own axis {shown}" in str(report)


@settings(max_examples=12, deadline=None)
@given(theta=st.floats(0.0, 6.28), place=st.sampled_from(PLACES))
def test_the_rod_spins_about_the_line_through_its_balls_at_any_crank_angle(theta, place):
    scale, offset = place
    mech, _ = rssr_rod(scale, offset, theta=theta)
    B, C = _ball_centres(mech)
    axis = (C - B) / np.linalg.norm(C - B)
    (part,) = mech.free_motions().motions[0].parts
    assert part.kind == "spin" and abs(abs(part.axis @ axis) - 1.0) <= 1e-12
    off = B - part.point
    assert np.linalg.norm(off - (off @ axis) * axis) <= _tol(scale, offset)


def test_rssr_rod_the_same_words_in_micrometres_and_kilometres():
    labels = {tuple(rssr_rod(s, o)[0].free_motions().labels) for s, o in PLACES}
    assert len(labels) == 1


def test_rssr_without_its_driver_the_second_motion_turns_crank_and_rocker_on_their_axes():
    mech, _ = rssr_rod(driven=False)
    motions = mech.free_motions()
    assert len(motions) == 2
    assert motions.motions[0].parts[0].kind == "spin"
    crank, rocker = motions.motions[1].parts[:2]
    assert [b.name for b in crank.bodies] == ["crank"] and crank.kind == "turn"
    np.testing.assert_allclose(crank.axis, [0, 0, 1], atol=1e-12)
    assert crank.text == "crank turns about the axis (0, 0, 1) through (0, 0, 0) at joint 'input'"
    u2 = np.array([0.0, 1.0, 0.3]) / np.linalg.norm([0.0, 1.0, 0.3])
    assert abs(abs(rocker.axis @ u2) - 1.0) <= 1e-12
    off = rocker.point - np.array([2.0, 0.0, 1.0])
    assert np.linalg.norm(off - (off @ u2) * u2) <= 1e-10


# -- the five-bar: each motion holds one link ---------------------------------------------------
@pytest.mark.parametrize("scale, offset", [(1.0, (0.0, 0.0)), (1e-6, (7.0, -4.0)),
                                           (1e3, (4e4, 9e4))])
def test_underdriven_five_bar_names_two_motions_each_holding_one_ground_link(scale, offset):
    mech = five_bar(scale, offset)
    o = np.asarray(offset, float)
    motions = mech.free_motions()
    assert motions.shape == (2, 12) and mech.dof().free == 2
    J = mech.jacobian(dense=True)
    np.testing.assert_allclose(J @ np.asarray(motions).T, 0.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(motions, axis=1), 1.0)
    a, b, c, d = (mech.body(n) for n in "abcd")
    O1, O2 = o, o + (3 * scale, 0.0)
    Pab, Pbc, Pcd = a.to_global((0.5 * scale, 0)), b.to_global((0.8 * scale, 0)), \
        c.to_global((0.8 * scale, 0))
    held_a, held_d = motions.motions
    # 1: a held; b turns about its pin on a, d about its ground pivot, c about Kennedy's centre
    assert [x.name for x in held_a.bodies] == ["b", "c", "d"]
    centres = {p.bodies[0].name: p.point for p in held_a.parts}
    assert all(p.kind == "turn" for p in held_a.parts)
    tol = _tol(scale, offset)
    _close(centres["b"], Pab, tol)
    _close(centres["d"], O2, tol)
    _close(centres["c"], _intersection(Pab, Pbc, O2, Pcd), tol)
    # 2: d held; a about its pivot, c about its pin on d, b about Kennedy's centre
    assert [x.name for x in held_d.bodies] == ["a", "b", "c"]
    centres = {p.bodies[0].name: p.point for p in held_d.parts}
    _close(centres["a"], O1, tol)
    _close(centres["c"], Pcd, tol)
    _close(centres["b"], _intersection(O1, Pab, Pcd, Pbc), tol)
    # the held link does not move at all
    assert np.abs(motions[0][:3]).max() == 0.0 and np.abs(motions[1][9:]).max() == 0.0
    assert held_a.label.startswith("b turns about (") and "c turns about (" in held_a.label


def test_five_bar_words_at_unit_scale():
    mech = five_bar()
    assert mech.free_motions().labels == [
        "b turns about (0, 1) at its joint with a; c turns about (3.09, 2); "
        "d turns about (3, 0) at its joint with ground",
        "a turns about (0, 0) at its joint with ground; b turns about (0, 1.99); "
        "c turns about (3.04, 0.999) at its joint with d"]
    text = str(mech.dof())
    assert "free motions (the drivers held):\n  1. b turns about (0, 1)" in text
    assert "\n  2. a turns about (0, 0)" in text


def test_the_driven_five_bar_has_one_motion_with_the_driven_link_held():
    mech = five_bar(driven=True)
    (motion,) = mech.free_motions().motions
    assert [b.name for b in motion.bodies] == ["b", "c", "d"]


def test_bodies_that_move_as_one_are_named_together_and_slides_say_along():
    model = ms.models.parallelogram()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    (motion,) = mech.free_motions().motions
    slide = [p for p in motion.parts if p.kind == "slide"]
    assert [b.name for b in slide[0].bodies] == ["coupler"]
    assert "coupler slides along (1, 0)" in motion.label
    # a four-bar with crank and ground in line: coupler and rocker turn as one about the
    # rocker's pivot at that instant (the coupler's instantaneous centre is that pivot)
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    (motion,) = mech.free_motions().motions
    assert "coupler and rocker turn together about (4, 0)" in motion.label


def test_a_prismatic_block_slides():
    mech = ms.Mechanism()
    block = mech.add_body("block", position=(2.0, 1.0))
    mech.add(joints.Prismatic(mech.ground, block, (0, 1), (0, 0), axis=(1, 0)))
    mech.solve()
    motions = mech.free_motions()
    assert motions.labels == ["block slides along (1, 0)"]
    assert motions.motions[0].parts[0].kind == "slide"


def test_fully_driven_has_none_and_the_report_lists_none():
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.solve()
    motions = mech.free_motions()
    assert motions.shape == (0, 9) and motions.labels == []
    assert str(motions) == "no free motion: the joints and drivers fix every degree of freedom"
    assert "free motions" not in str(mech.dof())


# -- still the array it was ------------------------------------------------------------------
def test_the_labelled_result_is_still_the_array():
    mech = five_bar()
    B = mech.free_motions()
    assert isinstance(B, np.ndarray) and B.shape == (2, 12) and len(B) == 2
    for derived in (B[0], B[:, :3], B * 2.0, B @ np.ones(12), np.asarray(B), B.T, B + B,
                    B.reshape(-1), B.ravel(), B.transpose()):
        assert type(derived) is np.ndarray
    assert type(B.copy()) is FreeMotions and B.copy().labels == B.labels
    assert isinstance(float(B.sum()), float)
    again = pickle.loads(pickle.dumps(B))
    assert again.labels == B.labels
    np.testing.assert_array_equal(again, B)
    text = repr(B)
    assert text.startswith("FreeMotions([[") and "labels=[" in text and B.labels[0] in text
    assert str(B).startswith("2 free motions:\n  1. b turns about")
    # free_motion_path and the wiggle take it as before
    path = mech.free_motion_path(1, [0.05, -0.05])
    assert path.basis.labels == B.labels
    assert float(np.max(np.abs(mech.system().phi(path.states)))) <= 1e-9


# -- the warning names them --------------------------------------------------------------------
def test_free_motion_warning_names_the_rod_spin():
    mech, motor = rssr_rod()
    with pytest.warns(ms.FreeMotionWarning,
                      match=r"1 degree of freedom that no driver fixes \(rod spins about its own "
                            r"axis \(0\.98\d*, -0\.0\d+, 0\.1\d*\)\)"):
        mech.sweep(motor, np.linspace(0.4, 0.6, 5))


def test_free_motion_warning_numbers_two_motions():
    mech = five_bar()
    mech.add(joints.Driver(mech.body("b"), "angle", float(mech.body("b").angle), name="tilt"))
    tail = mech.add_body("tail", position=(4.0, 2.0))
    mech.add(joints.Revolute(mech.body("c"), tail, (0.8, 0.0), (-0.5, 0.0)))
    mech.solve()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mech.sweep("tilt", np.linspace(mech.joint("tilt").value, mech.joint("tilt").value + 0.1,
                                       3))
    (w,) = [r for r in rec if issubclass(r.category, ms.FreeMotionWarning)]
    text = str(w.message)
    assert "2 degrees of freedom that no driver fixes (1: " in text and "; 2: " in text
    assert "tail turns about" in text


def test_a_joints_own_coordinate_is_named_when_it_moves():
    from test_joint_coordinates import build

    mech, car, track, drive = build()
    mech.solve()
    mech.remove(drive)                       # the car runs free along its circular track
    (motion,) = mech.free_motions().motions
    turn, coordinate = motion.parts
    assert turn.bodies == (car,) and turn.kind == "turn"
    assert np.linalg.norm(turn.point) <= 1e-9          # the track's centre (solved to 1e-10)
    assert coordinate.kind == "coordinate" and coordinate.joint is track
    # the arc length runs at the radius times the car's turning rate
    assert coordinate.rate == pytest.approx(2.0 * turn.rate, rel=1e-9)
    assert motion.label == "car turns about (0, 0); CircleTrack's own coordinate changes"
