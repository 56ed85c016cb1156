"""False failures: assemblable poses from fair starts that a solve refused (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints


def _five_bar_two_drivers(scale=1.0, offset=(0.0, 0.0)):
    """The five-bar of ms.models.five_bar (links 1, 1.6, 1.6, 1, ground 3) with both ground
    links driven, built at ``offset`` in units where its ground is ``3 * scale``."""
    o = np.asarray(offset, float)
    mech = ms.Mechanism()
    g = mech.ground
    a = mech.add_link("a", O=o, A=o + scale * np.array([0.0, 1.0]))
    b = mech.add_link("b", A=o + scale * np.array([0.0, 1.0]),
                      P=o + scale * np.array([1.5, 1.0 + np.sqrt(1.6**2 - 1.5**2)]))
    c = mech.add_link("c", P=b.to_global(b.point("P")), D=o + scale * np.array([3.0, 1.0]))
    d = mech.add_link("d", D=o + scale * np.array([3.0, 1.0]), O=o + scale * np.array([3.0, 0.0]))
    mech.add(joints.Revolute.at(g, a, o))
    mech.add(joints.Revolute(a, b, "A", "A"))
    mech.add(joints.Revolute(b, c, "P", "P"))
    mech.add(joints.Revolute(c, d, "D", "D"))
    mech.add(joints.Revolute.at(d, g, o + scale * np.array([3.0, 0.0])))
    m1 = mech.add(joints.Driver(a, "angle", np.pi / 2, name="motor1"))
    # d's x axis runs from its top pin D down to O: its angle is the crank angle - pi
    m2 = mech.add(joints.Driver(d, "angle", -np.pi / 2, name="motor2"))
    mech.solve()
    return mech, m1, m2, b


def _middle_pin(ta, td, scale, offset):
    """The pin between the two floating links, above the line from A to D (the assembly
    the five-bar is drawn in), from the crank angles."""
    A = scale * np.array([np.cos(ta), np.sin(ta)])
    D = scale * np.array([3.0 + np.cos(td), np.sin(td)])
    u = D - A
    e = np.linalg.norm(u)
    h = np.sqrt((1.6 * scale) ** 2 - (e / 2) ** 2)
    return np.asarray(offset) + A + u / 2 + h * np.array([-u[1], u[0]]) / e


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (1e4, -3e4)])
def test_two_drivers_changed_at_once_move_along_the_straight_path(scale, offset):
    # both values changed: moving them one at a time met a dead centre (A and D 3.2 apart,
    # the floating links in line) and reported a limit position, though the straight path
    # keeps |AD| <= 3.0 and the assembly exists
    offset = np.asarray(offset) * scale
    mech, m1, m2, b = _five_bar_two_drivers(scale, offset)
    ta, td = 1.7774311505033806, 3.0968866440649605
    s = np.linspace(0.0, 1.0, 201)
    a, d = np.pi / 2 + s * (ta - np.pi / 2), np.pi / 2 + s * (td - np.pi / 2)
    A = np.stack([np.cos(a), np.sin(a)])
    D = np.stack([3 + np.cos(d), np.sin(d)])
    assert np.linalg.norm(D - A, axis=0).max() <= 3.2 - 0.11   # away from every dead centre
    m1.value, m2.value = ta, td - np.pi
    mech.solve()
    P = b.to_global(b.point("P"))
    np.testing.assert_allclose(P, _middle_pin(ta, td, scale, offset),
                               rtol=0, atol=1e-13 * scale + 4e-16 * np.abs(offset).max())


def test_two_drivers_that_cannot_reach_together_say_so():
    mech, m1, m2, _ = _five_bar_two_drivers()
    start = mech.state
    m1.value, m2.value = np.pi / 2 + 1.2, -np.pi / 2 - 1.2   # A and D 4.3 apart: no assembly
    with pytest.raises(ms.SolveError, match="cannot reach"):
        mech.solve()
    np.testing.assert_array_equal(mech.state, start)


# -- small gaps: input the solver cannot honour is refused, naming it ---------------------------
def test_an_angle_driver_value_past_the_angle_bound_is_refused():
    # drive.value = 1e300 then solve() reported success with the crank "at" 1e300 rad
    model = ms.models.fourbar()
    with pytest.raises(ValueError, match=r"value of Driver 'motor' on crank must be within "
                                         r"\+-1e\+06 rad .* got 1e\+300"):
        model.driver.value = 1e300
    with pytest.raises(ValueError, match=r"value of Driver on crank must be within"):
        joints.Driver(model.mechanism.body("crank"), "angle", -1e300)
    model.driver.value = ms.profiles.ConstantSpeed(1e299)
    with pytest.raises(ValueError, match=r"motion profile's value at t = 10"):
        model.mechanism.set_time(10.0)
    model.driver.value = 0.3   # lengths are not angles: a far distance driver value is fine
    assert model.mechanism.solve().success


def test_add_link_refuses_coincident_first_and_second_points():
    mech = ms.Mechanism()
    with pytest.raises(ValueError, match=r"add_link\('rod'\): its first two points A and B "
                                         r"coincide at \(1.0, 2.0\).*give angle="):
        mech.add_link("rod", A=(1.0, 2.0), B=(1.0, 2.0), C=(3.0, 2.0))
    rod = mech.add_link("rod", A=(1.0, 2.0), B=(1.0, 2.0), angle=0.5)   # direction given
    assert rod.angle == 0.5
