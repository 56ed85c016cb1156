"""Linkage measures against closed forms: transmission angle, mechanical advantage, Grashof
classes, rotation ranges."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.models.planar import _place


def _angles_of(motion, model):
    mech = model.mechanism
    crank, coupler, rocker = (mech.body(n) for n in ("crank", "coupler", "rocker"))
    O2 = np.zeros((len(motion), 2))
    A = motion.point(crank, (0.5 * _len(mech, "O2", "A", crank), 0.0))
    B = motion.point(coupler, mech.joint("B").point1)
    O4 = motion.point(mech.ground, mech.joint("O4").point2)
    return O2, A, B, O4


def _len(mech, j1, j2, body):
    p = [mech.joint(j).point1 if mech.joint(j).bodies[0] is body else mech.joint(j).point2
         for j in (j1, j2)]
    return float(np.linalg.norm(p[0] - p[1]))


@pytest.mark.parametrize("dims", [(4.0, 1.0, 3.0, 3.5), (3.0, 1.2, 3.5, 2.5)])
def test_transmission_angle_follows_the_law_of_cosines(dims):
    d, a, b, c = dims
    model = ms.models.fourbar(*dims)
    values = np.linspace(0.0, 2 * np.pi, 73)
    motion = model.mechanism.sweep(model.driver, values)
    gamma = motion.transmission_angle("B")
    # cos(gamma) = (b^2 + c^2 - a^2 - d^2 + 2 a d cos(theta)) / (2 b c)
    expected = np.arccos((b * b + c * c - a * a - d * d + 2 * a * d * np.cos(values))
                         / (2 * b * c))
    np.testing.assert_allclose(gamma, expected, atol=1e-10)
    folded = motion.transmission_angle(model.mechanism.joint("B"), fold=True)
    np.testing.assert_allclose(folded, np.minimum(expected, np.pi - expected), atol=1e-10)
    assert folded.max() <= np.pi / 2


def test_mechanical_advantage_is_the_closed_form_velocity_ratio():
    model = ms.models.fourbar()
    mech = model.mechanism
    values = np.linspace(0.0, 2 * np.pi, 73)
    motion = mech.sweep(model.driver, values)
    O2, A, B, O4 = _angles_of(motion, model)
    t2 = np.arctan2(A[:, 1], A[:, 0])
    t3 = np.arctan2(*(B - A).T[::-1])
    t4 = np.arctan2(*(B - O4).T[::-1])
    a, c = 1.0, 3.5
    expected = c * np.sin(t4 - t3) / (a * np.sin(t2 - t3))     # w2 / w4
    ma = motion.mechanical_advantage(mech.body("rocker"))
    np.testing.assert_allclose(ma, expected, rtol=1e-9)
    # the rocker pivot as output: the rocker's angle against ground (body 2 minus body 1)
    np.testing.assert_allclose(motion.mechanical_advantage("O4"), -expected, rtol=1e-9)
    # and the velocity machinery agrees at one pose
    motion.apply(10)
    from mechsolve.profiles import ConstantSpeed
    model.driver.value = ConstantSpeed(speed=1.0, start=values[10])
    nu = mech.velocity()
    assert abs(1.0 / nu[3 * mech.body("rocker").index + 2] - ma[10]) <= 1e-9 * abs(ma[10])


@pytest.mark.parametrize("lengths, expected", [
    ((4.0, 1.0, 3.0, 3.5), "crank-rocker"),        # shortest the crank
    ((1.0, 3.0, 3.5, 4.0), "double-crank"),        # shortest the ground (drag link)
    ((4.0, 3.0, 1.0, 3.5), "double-rocker"),       # shortest the coupler
    ((4.0, 3.5, 3.0, 1.0), "rocker-crank"),        # shortest the rocker
    ((4.0, 2.6, 3.0, 3.5), "triple-rocker"),       # s + l > p + q
    ((4.0, 1.0, 4.0, 1.0), "change point"),        # parallelogram
    ((2.0, 3.0, 4.0, 3.0), "change point"),        # kite-like: 2 + 4 = 3 + 3
])
def test_grashof_classes_textbook_link_sets(lengths, expected):
    assert ms.analysis.grashof(*lengths) == expected


def test_grashof_checks_lengths_and_finds_the_loops_of_a_mechanism():
    with pytest.raises(ValueError, match="coupler must be a positive length"):
        ms.analysis.grashof(4, 1, -3, 3.5)
    loops = ms.analysis.fourbar_loops(ms.models.fourbar(crank=2.6).mechanism)
    assert len(loops) == 1
    assert [b.name for b in loops[0]["bodies"]] == ["ground", "crank", "coupler", "rocker"]
    np.testing.assert_allclose(loops[0]["lengths"], (4.0, 2.6, 3.0, 3.5))
    assert loops[0]["grashof"] == "triple-rocker"


def test_rotation_range_of_a_crank_rocker_is_a_full_turn():
    model = ms.models.fourbar()
    before = model.mechanism.state
    r = ms.analysis.rotation_range(model.mechanism, model.driver)
    assert r.full and r.high - r.low == pytest.approx(2 * np.pi)
    assert np.array_equal(model.mechanism.state, before)      # the mechanism is left as it was


def test_rotation_range_of_a_triple_rocker_ends_where_coupler_and_rocker_line_up():
    model = ms.models.fourbar(crank=2.6)
    r = ms.analysis.rotation_range(model.mechanism, "motor")
    lim = np.arccos((2.6**2 + 16 - 6.5**2) / (2 * 2.6 * 4))
    assert not r.full
    assert abs(r.high - lim) <= 1e-9 and abs(r.low + lim) <= 1e-9


def _double_rocker(theta=np.pi / 3):
    """Grashof double-rocker (ground 4, crank 3, coupler 1, rocker 3.5) at crank angle theta."""
    a, b, c, d = 3.0, 1.0, 3.5, 4.0
    mech = ms.Mechanism()
    A = a * np.array([np.cos(theta), np.sin(theta)])
    O4 = np.array([d, 0.0])
    e = np.linalg.norm(O4 - A)
    phi = np.arctan2(*(O4 - A)[::-1]) + np.arccos((b * b + e * e - c * c) / (2 * b * e))
    B = A + b * np.array([np.cos(phi), np.sin(phi)])
    g = mech.ground
    k1, k2, k3 = _place(mech, "crank", (0, 0), A), _place(mech, "coupler", A, B), \
        _place(mech, "rocker", B, O4)
    mech.add(joints.Revolute(g, k1, (0, 0), (-a / 2, 0), name="O2"))
    mech.add(joints.Revolute(k1, k2, (a / 2, 0), (-b / 2, 0), name="A"))
    mech.add(joints.Revolute(k2, k3, (b / 2, 0), (-c / 2, 0), name="B"))
    mech.add(joints.Revolute(k3, g, (c / 2, 0), (d, 0), name="O4"))
    motor = mech.add(joints.Driver(k1, "angle", theta, name="motor"))
    mech.solve()
    return mech, motor


def test_rotation_range_of_a_double_rocker_from_the_closed_form():
    mech, motor = _double_rocker()
    assert ms.analysis.fourbar_loops(mech)[0]["grashof"] == "double-rocker"
    r = ms.analysis.rotation_range(mech, motor)
    # limits where e = |A O4| = c - b (folded) and e = b + c (extended):
    # e^2 = a^2 + d^2 - 2 a d cos(theta)
    low = np.arccos((9 + 16 - 2.5**2) / 24)
    high = np.arccos((9 + 16 - 4.5**2) / 24)
    assert abs(r.low - low) <= 1e-9 and abs(r.high - high) <= 1e-9 and not r.full


def test_plot_measure_draws_the_mechanical_advantage():
    from matplotlib.figure import Figure

    model = ms.models.fourbar()
    motion = model.mechanism.sweep(model.driver, np.linspace(0, 1, 11))
    ax = ms.plot.plot_measure(motion, "mechanical_advantage", model.mechanism.body("rocker"),
                              ax=Figure().add_subplot())
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               motion.mechanical_advantage(model.mechanism.body("rocker")))
    assert ax.get_ylabel() == "mechanical advantage"
    with pytest.raises(ValueError, match="measure must be one of"):
        ms.plot.plot_measure(motion, "speed", "B", ax=Figure().add_subplot())
