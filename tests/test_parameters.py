"""Named design parameters: Mechanism.parameters / set_parameters (mechsolve.design)."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms


def test_names_follow_joints_and_layouts():
    mech = ms.models.fourbar().mechanism
    p = mech.parameters()
    assert list(p) == ["O2.point1", "O2.point2", "A.point1", "A.point2", "B.point1",
                       "B.point2", "O4.point1", "O4.point2", "motor.value"]
    np.testing.assert_array_equal(p["O4.point2"], [4.0, 0.0])
    p["O4.point2"][0] = 99.0                       # a copy
    assert mech.parameters()["O4.point2"][0] == 4.0


def test_unnamed_joints_are_named_by_their_place():
    mech = ms.Mechanism()
    b = mech.add_body("b", position=(1.0, 0.0))
    mech.add(ms.joints.Revolute(mech.ground, b, (0, 0), (-1.0, 0.0)))
    assert "joints[0].point2" in mech.parameters()


@pytest.mark.parametrize("ground", [3.6, 4.0, 4.4])
def test_a_new_pivot_moves_the_solved_pose_as_the_closed_form_says(ground):
    """Rocker pivot at (g, 0): the coupler-rocker pin B from the poses against the
    two-circle intersection (crank 1, coupler 3, rocker 3.5), at crank angle 0.7."""
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.set_parameters({"O4.point2": (ground, 0.0), "motor.value": 0.7})
    assert model.driver.value == 0.7
    mech.solve()
    A = np.array([np.cos(0.7), np.sin(0.7)])
    d = np.array([ground, 0.0]) - A
    e = np.hypot(*d)
    phi = np.arctan2(d[1], d[0]) + np.arccos((9.0 + e * e - 3.5**2) / (6.0 * e))
    B = A + 3.0 * np.array([np.cos(phi), np.sin(phi)])
    np.testing.assert_allclose(mech.body("coupler").to_global((1.5, 0.0)), B, rtol=1e-12)
    np.testing.assert_allclose(mech.body("rocker").to_global((1.75, 0.0)), (ground, 0.0),
                               rtol=0, atol=1e-12)


def test_parameters_in_every_unit_scale_alike():
    for s in (1e-6, 1.0, 1e6):
        m = ms.models.fourbar(ground=4 * s, crank=s, coupler=3 * s, rocker=3.5 * s)
        m.mechanism.set_parameters({"O4.point2": (4.2 * s, 0.0)})
        m.mechanism.solve()
        np.testing.assert_allclose(m.mechanism.body("rocker").to_global((1.75 * s, 0.0)),
                                   (4.2 * s, 0.0), rtol=0, atol=1e-12 * s)
        assert m.mechanism.length_scale == pytest.approx(
            ms.models.fourbar(ground=4.2 * s, crank=s, coupler=3 * s,
                              rocker=3.5 * s).mechanism.length_scale, rel=0.2)


def test_bad_values_leave_the_mechanism_as_it_was():
    mech = ms.models.fourbar().mechanism
    before = mech.parameters()
    with pytest.raises(ValueError, match=r"no parameter named 'O4.pont2'; did you mean "
                                         r"'O4.point2'"):
        mech.set_parameters({"O2.point2": (0.1, 0.0), "O4.pont2": (1, 2)})
    with pytest.raises(ValueError, match="O4.point2"):
        mech.set_parameters({"O2.point2": (0.1, 0.0), "O4.point2": (1, 2, 3)})
    with pytest.raises(ValueError, match="O4.point2"):
        mech.set_parameters({"O2.point2": (0.1, 0.0), "O4.point2": (np.nan, 0.0)})
    with pytest.raises(TypeError, match="mapping"):
        mech.set_parameters([("O4.point2", (1, 2))])
    after = mech.parameters()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])


def test_lengths_quaternions_and_directions_are_checked():
    model = ms.models.spatial.rssr()
    mech = model.mechanism
    with pytest.raises(ValueError, match="rod.length must be positive"):
        mech.set_parameters({"rod.length": -1.0})
    with pytest.raises(ValueError, match="input.frame1 must be a unit quaternion"):
        mech.set_parameters({"input.frame1": (2.0, 0.0, 0.0, 0.0)})
    q = np.array([1.0, 1e-9, 0.0, 0.0])
    mech.set_parameters({"input.frame1": q})
    assert np.linalg.norm(mech.parameters()["input.frame1"]) == pytest.approx(1.0, abs=1e-15)


def test_drivers_expose_only_their_value():
    mech = ms.models.parallelogram().mechanism
    names = [n for n in mech.parameters() if not n.endswith(("point1", "point2"))]
    assert all(n.endswith(".value") for n in names), names
