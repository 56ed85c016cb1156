"""Synthesis (mechsolve.design.synthesize): path, function and motion generation."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms


def _pins(mech):
    """The four-bar's geometry, whatever the body frames: the ground pivots, the link lengths
    and the coupler triangle (crank pin A, rocker pin B, traced point P)."""
    p = mech.parameters()
    crank = np.hypot(*(p["A.point1"] - p["O2.point2"]))
    coupler = np.hypot(*(p["B.point1"] - p["A.point2"]))
    rocker = np.hypot(*(p["O4.point1"] - p["B.point2"]))
    AP = np.hypot(*(np.array([0.0, 1.0]) - p["A.point2"]))
    BP = np.hypot(*(np.array([0.0, 1.0]) - p["B.point1"]))
    return np.concatenate([p["O2.point1"], p["O4.point2"], [crank, coupler, rocker, AP, BP]])


def test_path_generation_recovers_a_four_bar_from_its_own_coupler_curve():
    truth = ms.models.fourbar()
    theta = np.radians([0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0])
    targets = truth.mechanism.sweep(truth.driver, theta).point(
        truth.mechanism.body("coupler"), (0.0, 1.0))
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.2, 0.1), "B.point1": (1.4, 0.1),
                                    "A.point2": (-1.45, 0.05)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2", "B.point1", "A.point2",
                                                 "B.point2"],
                               driver="motor", path=targets, body="coupler",
                               point=(0.0, 1.0), driver_values=theta + 0.05, starts=2)
    assert res.success and res.error < 1e-9 * 4.0
    # checked from the poses of the mechanism returned: its coupler point at the driver values
    # found passes through every target
    mech = res.mechanism
    drive = mech.joint("motor")
    order = np.argsort(res.driver_values)
    path = mech.sweep(drive, res.driver_values[order]).point(mech.body("coupler"), (0.0, 1.0))
    np.testing.assert_allclose(path, targets[order], rtol=0, atol=1e-9 * 4.0)
    # the same linkage as the one the points came from (the coupler's own frame is free)
    np.testing.assert_allclose(_pins(mech), _pins(truth.mechanism), rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.driver_values, theta, rtol=0, atol=1e-9)
    assert start.mechanism.parameters()["O4.point2"][0] == 4.2      # the input is unchanged


def test_function_generation_with_a_free_offset():
    truth = ms.models.fourbar()
    inputs = np.radians(np.arange(0.0, 181.0, 30.0))
    motion = truth.mechanism.sweep(truth.driver, inputs)
    outputs = motion.pose(truth.mechanism.body("rocker"))[:, 2] + 0.3   # any zero
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.1, 0.0), "B.point2": (-1.7, 0.05)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2", "B.point2", "A.point1"],
                               driver="motor", function=(inputs, outputs), body="rocker",
                               starts=2)
    assert res.success      # this design, or another with the same function (and its offset)
    mech = res.mechanism
    got = mech.sweep(mech.joint("motor"), inputs).pose(mech.body("rocker"))[:, 2]
    np.testing.assert_allclose(got - res.offset, outputs, rtol=0, atol=1e-9)


def test_motion_generation_through_three_poses_and_bounds():
    truth = ms.models.fourbar()
    theta = np.radians([20.0, 70.0, 120.0])
    poses = truth.mechanism.sweep(truth.driver, theta).pose(truth.mechanism.body("coupler"))
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.15, -0.05)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2", "B.point2"], driver="motor",
                               poses=poses, body="coupler", driver_values=theta + 0.02,
                               bounds={"O4.point2": ([3.0, -0.5], [5.0, 0.5])}, starts=2)
    assert res.success
    mech = res.mechanism
    got = mech.sweep(mech.joint("motor"), res.driver_values).pose(mech.body("coupler"))
    np.testing.assert_allclose(got[:, :2], poses[:, :2], rtol=0, atol=1e-9 * 4.0)
    np.testing.assert_allclose(np.angle(np.exp(1j * (got[:, 2] - poses[:, 2]))), 0.0,
                               atol=1e-9)
    lo, hi = np.array([3.0, -0.5]), np.array([5.0, 0.5])
    assert np.all(res.parameters["O4.point2"] >= lo) and np.all(res.parameters["O4.point2"] <= hi)


def test_a_watt_six_bar_path_no_four_bar_can_follow():
    """Twelve points of the path of the Watt six-bar's link5 origin: the six-bar, started from
    a changed design, finds its way back through all of them (to round-off); a four-bar (all
    its pins free) does not pass through them from its starts: twelve points on a six-bar's
    path are generally on no four-bar coupler curve (nine points fix one). It comes close
    (this path is smooth), but its best is orders of magnitude off."""
    watt = ms.models.watt_sixbar()
    mech, drive = watt.mechanism, watt.driver
    link5 = mech.body("link5")
    theta = drive.value + np.radians(np.arange(0.0, 360.0, 30.0))
    targets = mech.sweep(drive, theta).point(link5, (0.0, 0.0))
    size = mech.length_scale

    changed = ms.models.watt_sixbar()
    changed.mechanism.set_parameters({"O6.point2": changed.mechanism.parameters()["O6.point2"]
                                      + (0.05, -0.03)})
    changed.mechanism.solve()
    res6 = ms.design.synthesize(changed.mechanism, ["O6.point2", "D.point2"],
                                driver="motor", path=targets, body="link5",
                                point=(0.0, 0.0), driver_values=theta, starts=1)
    assert res6.success and res6.error < 1e-9 * size
    # D.point2[1] moves no point of the path to first order: its column of round-off is
    # zeroed, not scaled up into a first step of 1e10 sizes (then 17 refused designs)
    assert res6.evaluations < 60

    four = ms.models.fourbar()
    res4 = ms.design.synthesize(four.mechanism, ["O2.point1", "O4.point2", "A.point2",
                                                 "B.point1", "B.point2", "A.point1"],
                                driver="motor", path=targets / size * 4.0, body="coupler",
                                point=(0.0, 1.0), starts=2, seed=1,
                                max_evaluations=150)
    assert not res4.success and res4.error > 1e-5 * 4.0 > 1e4 * res6.error


def test_prescribed_timing_single_components_and_the_traced_point():
    """Path generation with prescribed timing (``free_timing=False``): the driver values are
    the given ones; the unknowns are one component of the rocker pivot (the other keeps its
    value) and the traced point itself: both come back to the four-bar the points came from."""
    truth = ms.models.fourbar()
    theta = np.radians([10.0, 60.0, 110.0, 160.0, 210.0])
    targets = truth.mechanism.sweep(truth.driver, theta).point(
        truth.mechanism.body("coupler"), (0.0, 1.0))
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.15, 0.0)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2[0]", "point"], driver="motor",
                               path=targets, body="coupler", point=(0.1, 0.9),
                               driver_values=theta, free_timing=False, starts=2,
                               bounds={"O4.point2[0]": (3.5, 4.5), "point": (-2.0, 2.0)})
    assert res.success
    np.testing.assert_array_equal(res.driver_values, theta)
    assert res.parameters["O4.point2[0]"] == pytest.approx(4.0, abs=1e-9)
    np.testing.assert_allclose(res.parameters["point"], (0.0, 1.0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.point, (0.0, 1.0), rtol=0, atol=1e-9)
    assert res.mechanism.parameters()["O4.point2"][1] == 0.0        # the other component
    mech = res.mechanism
    path = mech.sweep(mech.joint("motor"), theta).point(mech.body("coupler"), res.point)
    np.testing.assert_allclose(path, targets, rtol=0, atol=1e-8)


def test_bounds_on_the_driver_values_of_free_timing():
    truth = ms.models.fourbar()
    theta = np.radians([20.0, 60.0, 100.0, 140.0])
    targets = truth.mechanism.sweep(truth.driver, theta).point(
        truth.mechanism.body("coupler"), (0.0, 1.0))
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.1, 0.05)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2"], driver="motor", path=targets,
                               body="coupler", point=(0.0, 1.0), driver_values=theta + 0.1,
                               bounds={"motor.value": (0.2, 3.0)}, starts=2)
    assert res.success
    assert np.all((res.driver_values >= 0.2) & (res.driver_values <= 3.0))
    np.testing.assert_allclose(res.driver_values, theta, rtol=0, atol=1e-8)


def test_arguments_are_checked():
    m = ms.models.fourbar()
    with pytest.raises(ValueError, match="exactly one of path=, function= or poses="):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor", body="coupler")
    with pytest.raises(ValueError, match="no parameter named 'O4.pont2'"):
        ms.design.synthesize(m.mechanism, ["O4.pont2"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1))
    with pytest.raises(TypeError, match="driver must be a driver of this mechanism or its name, "
                                        "got Revolute 'O4'"):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="O4", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1))
    with pytest.raises(ValueError, match="belongs to another mechanism"):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor",
                             body=ms.models.fourbar().mechanism.body("coupler"),
                             path=[[0.0, 0.0]], point=(0, 1))
    with pytest.raises(ValueError, match="traced point="):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]])
    with pytest.raises(ValueError, match="free_timing=False prescribes the driver values: give "
                                         "driver_values="):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1), free_timing=False)
    with pytest.raises(ValueError, match=r"driver_values= takes one value per target \(2\), "
                                         "got 3"):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor", body="coupler",
                             path=[[0.0, 0.0], [1.0, 0.0]], point=(0, 1), free_timing=False,
                             driver_values=[0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="'point' \\(the traced point\\) is an unknown of path "
                                         "generation only"):
        ms.design.synthesize(m.mechanism, ["point"], driver="motor", body="rocker",
                             function=([0.0], [0.0]))
    with pytest.raises(ValueError, match="'O4.point2\\[2\\]': 'O4.point2' has 2 components"):
        ms.design.synthesize(m.mechanism, ["O4.point2[2]"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1))
    with pytest.raises(ValueError, match="O4.point2\\[0\\] is named twice in params"):
        ms.design.synthesize(m.mechanism, ["O4.point2", "O4.point2[0]"], driver="motor",
                             body="coupler", path=[[0.0, 0.0]], point=(0, 1))
    with pytest.raises(ValueError, match="bounds: the lower bound must be below the upper one "
                                         "\\('O4.point2\\[1\\]'\\); leave a parameter out"):
        ms.design.synthesize(m.mechanism, ["O4.point2[1]"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1), bounds={"O4.point2[1]": (0, 0)})
    with pytest.raises(TypeError, match="parameter names are strings such as 'O4.point2', "
                                        "got 3"):
        ms.design.synthesize(m.mechanism, [3], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1))
    slider = ms.models.slider_crank()
    with pytest.raises(ValueError, match="'rail.axis\\[0\\]': a component of a unit vector "
                                         "cannot be chosen alone; give 'rail.axis'"):
        ms.design.synthesize(slider.mechanism, ["rail.axis[0]"], driver="motor", body="rod",
                             path=[[0.0, 0.0]], point=(0, 0))
    with pytest.raises(ValueError, match="bounds: 'motor.value' is not among params"):
        ms.design.synthesize(m.mechanism, ["O4.point2"], driver="motor", body="coupler",
                             path=[[0.0, 0.0]], point=(0, 1), free_timing=False,
                             driver_values=[0.0], bounds={"motor.value": (0, 1)})
