"""Time sweeps of small mechanisms through the batch axis (``sweep_time(batch=...)``).

The batched path refines the poses together as a position sweep does and solves the
velocities and accelerations of the regular poses together; it must give the poses, velocities
and accelerations of the pose-by-pose path, and both must match closed forms derived by hand.
"""

import math

import numpy as np
import pytest
from closed_form import planar_state_error, slider_crank_state

import mechsolve as ms
from mechsolve.profiles import ConstantSpeed, Function, Quintic


def _slider_x_derivatives(theta, a=1.0, b=3.0, e=0.5):
    """dx/dtheta and d2x/dtheta2 of the offset slider-crank's slider (tests/closed_form.py):
    x = a cos(theta) + S, S = sqrt(b^2 - u^2), u = e - a sin(theta)."""
    u = e - a * np.sin(theta)
    du = -a * np.cos(theta)
    ddu = a * np.sin(theta)
    S = np.sqrt(b**2 - u**2)
    dS = -u * du / S
    ddS = -(du**2 + u * ddu) / S - (u * du) ** 2 / S**3
    return -a * np.sin(theta) + dS, -a * np.cos(theta) + ddS


@pytest.mark.parametrize("batch", [True, False])
def test_slider_crank_time_sweep_matches_its_closed_form(batch):
    model = ms.models.slider_crank()
    mech = model.mechanism
    model.driver.value = Quintic(0.0, 2.0, 0.0, 2 * np.pi)
    times = np.linspace(0.0, 2.0, 121)
    motion = mech.sweep_time(times, batch=batch)
    theta, w, alpha = model.driver.profile(times)
    pos, ang = planar_state_error(motion.states, slider_crank_state(theta), 3.0)
    assert pos <= 1e-10 and ang <= 1e-10
    slider = mech.body("slider")
    d1, d2 = _slider_x_derivatives(theta)
    v = motion.body_velocity(slider)[:, 0]
    a = motion.body_acceleration(slider)[:, 0]
    np.testing.assert_allclose(v, d1 * w, rtol=0, atol=1e-9 * np.max(np.abs(d1 * w)))
    exact_a = d2 * w**2 + d1 * alpha
    np.testing.assert_allclose(a, exact_a, rtol=0, atol=1e-9 * np.max(np.abs(exact_a)))
    np.testing.assert_allclose(motion.body_velocity(mech.body("crank"))[:, 2], w,
                               rtol=0, atol=1e-12 * np.max(w))


def _both(make, times, profile):
    out = []
    for batch in (True, False):
        model = make()
        model.driver.value = profile
        out.append((model.mechanism, model.mechanism.sweep_time(times, batch=batch)))
    return out


def _assert_same(a, b, mech, loose=()):
    """The same poses (to 1e-12 of the model's size), velocities and accelerations (1e-10 of
    their largest); at the poses ``loose`` (on a singular position, where the residual
    tolerance determines a pose only to about its square root) to 1e-5."""
    sys = mech.system()
    tight = np.ones(len(a.states), dtype=bool)
    tight[list(loose)] = False
    dq = np.max(np.abs(sys.difference(a.states, b.states) / sys.col_scale), axis=1)
    assert dq[tight].max() <= 1e-12 and dq.max() <= 1e-5
    for x, y in ((a.velocities, b.velocities), (a.accelerations, b.accelerations)):
        big = np.max(np.abs(y))
        np.testing.assert_allclose(x[tight], y[tight], rtol=0, atol=1e-10 * big)
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-5 * big)
    np.testing.assert_allclose(a.singular, b.singular, rtol=0, atol=1e-12)
    assert a.residuals.max() <= 1e-10 and b.residuals.max() <= 1e-10


@pytest.mark.parametrize("make", [
    ms.models.fourbar,                                   # planar, square
    ms.models.watt_sixbar,
    ms.models.spatial.rssr,                              # spatial, square
    ms.models.spatial.spherical_fourbar,                 # redundant equations (not square)
], ids=["fourbar", "watt", "rssr", "spherical"])
def test_batched_time_sweep_is_the_pose_by_pose_one(make):
    times = np.linspace(0.0, 1.0, 90)
    (mech, a), (_, b) = _both(make, times, Quintic(0.0, 1.0, 0.0, 2 * np.pi))
    _assert_same(a, b, mech)


def test_batched_time_sweep_through_change_points_is_the_pose_by_pose_one():
    # the parallelogram's change points hit exactly by the grid: the velocity there is that
    # of the branch it arrived on, in both paths, and the times reported are the grid's
    times = np.linspace(0.0, 2 * np.pi, 181)
    (mech, a), (_, b) = _both(lambda: ms.models.parallelogram(2), times,
                              ConstantSpeed(1.0, start=np.pi / 2))
    assert a.singular == b.singular == [times[45], times[135]]   # pi and 2 pi of the crank
    _assert_same(a, b, mech, loose=[45, 46, 135, 136])


def test_batched_time_sweep_stops_at_a_toggle_like_the_pose_by_pose_one():
    errors = []
    for batch in (True, False):
        model = ms.models.fourbar()
        mech = model.mechanism
        mech.remove(model.driver)
        rocker = mech.body("rocker")
        drive = mech.add(ms.joints.Driver(rocker, "angle", rocker.angle, name="rocker drive"))
        drive.value = ConstantSpeed(-1.0, start=rocker.angle)
        with pytest.raises(ms.SweepError, match="cannot follow its drivers past t") as info:
            mech.sweep_time(np.linspace(0.0, 2.0, 50), batch=batch)
        errors.append(info.value)
    a, b = errors
    assert a.index == b.index
    assert a.motion.states.shape == b.motion.states.shape
    np.testing.assert_allclose(a.motion.velocities, b.motion.velocities, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.motion.singular, b.motion.singular, rtol=0, atol=1e-9)


def test_a_profile_written_for_one_time_at_a_time_serves_the_batch():
    times = np.linspace(0.0, 1.0, 40)
    scalar = Function(lambda t: 0.5 + 2.0 * math.sin(t), lambda t: 2.0 * math.cos(t),
                      lambda t: -2.0 * math.sin(t))
    (mech, a), (_, b) = _both(ms.models.fourbar, times, scalar)
    _assert_same(a, b, mech)
    np.testing.assert_allclose(a.body_velocity(mech.body("crank"))[:, 2], 2.0 * np.cos(times),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("batch", [True, False])
def test_a_profile_value_that_is_not_finite_is_named_in_either_path(batch):
    model = ms.models.fourbar()
    model.driver.value = Function(lambda t: np.where(np.asarray(t) > 0.5, np.nan, t),
                                  lambda t: 1.0, lambda t: 0.0)
    with pytest.raises(ValueError, match=r"motion profile of .*motor.* gives nan at t = 0\.5"):
        model.mechanism.sweep_time(np.linspace(0.0, 1.0, 41), batch=batch)


def test_batch_option_is_checked():
    model = ms.models.fourbar()
    model.driver.value = ConstantSpeed(1.0)
    with pytest.raises(TypeError, match="batch must be True, False or 'auto', got 'yes'"):
        model.mechanism.sweep_time(np.linspace(0.0, 1.0, 20), batch="yes")


def test_a_batched_time_sweep_leaves_the_rates_of_its_last_pose():
    model = ms.models.fourbar()
    mech = model.mechanism
    model.driver.value = Quintic(0.0, 1.0, 0.0, 1.0)
    motion = mech.sweep_time(np.linspace(0.0, 0.9, 30))
    assert mech.time == 0.9
    np.testing.assert_allclose(mech.velocity(), motion.velocities[-1], rtol=0, atol=1e-13)
    np.testing.assert_allclose(mech.acceleration(), motion.accelerations[-1], rtol=0,
                               atol=1e-12)


def test_an_under_driven_time_sweep_stays_pose_by_pose():
    # free motion: the minimum-norm path depends on the steps taken (the batched path ends
    # up 1e-2 away), so "auto" keeps the pose-by-pose path and its answers
    out = []
    for batch in ("auto", False):
        model = ms.models.five_bar()
        model.driver.value = ConstantSpeed(1.0)
        with pytest.warns(ms.FreeMotionWarning):
            out.append(model.mechanism.sweep_time(np.linspace(0.0, 1.0, 30), batch=batch))
    np.testing.assert_allclose(out[0].states, out[1].states, rtol=0, atol=1e-9)
    np.testing.assert_allclose(out[0].velocities, out[1].velocities, rtol=0, atol=1e-9)
