"""Sweeps keep the assembly branch: position sweeps (sequential and batched) and time sweeps.

Each case checks poses against closed forms (tests/closed_form.py) or the geometry of the
mechanism, so that a jump onto the other assembly branch cannot pass unnoticed.
"""

import numpy as np
import pytest
from closed_form import fourbar as fourbar_exact

import mechsolve as ms
from mechsolve.profiles import ConstantSpeed


def _coupler_pin(model):
    mech = model.mechanism
    return mech.body("coupler"), (1.5, 0.0)


def _toggle_fourbar():
    """The crank-rocker four-bar driven by its rocker angle, and the rocker's toggle angle."""
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    drive = mech.add(ms.joints.Driver(rocker, "angle", rocker.angle, name="rocker drive"))
    # toggle: |B| = crank + coupler = 4 and |B - O4| = 3.5
    bx = (16 + 16 - 3.5**2) / 8
    return mech, rocker, drive, float(np.arctan2(-np.sqrt(16 - bx**2), 4 - bx))


@pytest.mark.parametrize("upper", [True, False])
def test_one_long_step_does_not_jump_branch(upper):
    # A single step of a full turn: the determinant changes sign only if the step lands on the
    # other closure, which must be rejected (the step is retried shorter).
    model = ms.models.fourbar(upper=upper)
    motion = model.mechanism.sweep(model.driver, [0.0, 2 * np.pi])
    _, B, _, _ = fourbar_exact(np.array([0.0, 2 * np.pi]), upper=upper)
    np.testing.assert_allclose(motion.point(*_coupler_pin(model)), B, atol=1e-9)
    assert motion.singular == []


@pytest.mark.parametrize("batch", [True, False])
def test_random_coarse_grids_keep_the_branch(batch):
    rng = np.random.default_rng(7)
    for trial in range(24):
        upper = bool(trial % 2)
        model = ms.models.fourbar(upper=upper)
        n = int(rng.integers(16, 40)) if batch else int(rng.integers(2, 8))
        values = np.concatenate([[0.0], rng.uniform(-7.0, 7.0, n)])
        motion = model.mechanism.sweep(model.driver, values, batch=batch)
        _, B, _, _ = fourbar_exact(values, upper=upper)
        np.testing.assert_allclose(motion.point(*_coupler_pin(model)), B, atol=1e-8)
        assert motion.residuals.max() <= 1e-10
        assert motion.singular == []


@pytest.mark.parametrize("n", range(3, 18))
def test_batched_sweep_refines_every_pose_on_the_branch(n):
    # Few poses over a full turn: every segment is long, and the last pose too must end on the
    # lower closure and be solved to the tolerance (not left at the coarse tolerance).
    model = ms.models.fourbar(upper=False)
    values = np.linspace(0.0, 2 * np.pi, n)
    motion = model.mechanism.sweep(model.driver, values)
    _, B, _, _ = fourbar_exact(values, upper=False)
    np.testing.assert_allclose(motion.point(*_coupler_pin(model)), B, atol=1e-9)
    assert motion.residuals.max() <= 1e-10


@pytest.mark.parametrize("start", [np.pi / 2, 0.3])
def test_time_sweep_passes_change_points_on_its_branch(start):
    # A parallelogram driven at 1 rad/s through its change points (all links flat, at crank
    # angles pi and 2 pi): it stays a parallelogram (coupler level, both cranks turning
    # together at 1 rad/s) and the times of the change points are reported.
    model = ms.models.parallelogram(2)
    mech = model.mechanism
    model.driver.value = ConstantSpeed(1.0, start=start)
    times = np.linspace(0.0, 2 * np.pi, 181)
    motion = mech.sweep_time(times)
    coupler = mech.body("coupler")
    assert np.max(np.abs(motion.pose(coupler)[:, 2])) < 1e-4
    assert motion.residuals.max() <= 1e-10
    crossings = np.array([np.pi, 2 * np.pi]) - start
    np.testing.assert_allclose(motion.singular, crossings, atol=1e-3)
    for name in ("crank1", "crank2"):
        omega = motion.body_velocity(mech.body(name))[:, 2]
        np.testing.assert_allclose(omega, 1.0, atol=1e-6)
    # the coupler translates on a circle of radius 1 at 1 rad/s
    speed = np.linalg.norm(motion.velocity(coupler), axis=1)
    np.testing.assert_allclose(speed, 1.0, atol=1e-6)
    # away from the change points the coupler does not turn; at a change point hit exactly,
    # the acceleration along the singular direction is only estimated from the previous step
    alpha = motion.body_acceleration(coupler)[:, 2]
    at = np.isin(times, motion.singular)
    np.testing.assert_allclose(alpha[~at], 0.0, atol=1e-6)
    np.testing.assert_allclose(alpha[at], 0.0, atol=1e-2)


def test_time_sweep_stops_at_a_toggle_and_reports_it():
    mech, rocker, drive, limit = _toggle_fourbar()
    drive.value = ConstantSpeed(-1.0, start=rocker.angle)
    t_limit = rocker.angle - limit
    with pytest.raises(ms.SweepError, match="cannot follow its drivers past t") as info:
        mech.sweep_time(np.linspace(0.0, 2.0, 50))
    err = info.value
    assert err.index == int(np.searchsorted(np.linspace(0.0, 2.0, 50), t_limit))
    assert err.motion.singular[-1] == pytest.approx(t_limit, abs=1e-5)
    assert len(err.motion.singular) == 1


def test_velocity_at_a_toggle_is_an_error_naming_the_driver():
    mech, rocker, drive, limit = _toggle_fourbar()
    drive.value = ConstantSpeed(1.0, start=limit)
    mech.solve(t=0.0)
    with pytest.raises(ms.SolveError, match="velocity is not defined at this pose") as info:
        mech.velocity()
    assert "Driver 'rocker drive' on rocker" in str(info.value)
    # at rest there the velocity is defined (zero)
    drive.value = ConstantSpeed(0.0, start=limit)
    np.testing.assert_allclose(mech.velocity(), 0.0, atol=1e-12)


def test_point_velocity_follows_the_state_not_a_stale_cache():
    model = ms.models.fourbar()
    mech = model.mechanism
    model.driver.value = ConstantSpeed(1.0)
    times = np.linspace(0.0, 1.0, 11)
    motion = mech.sweep_time(times)
    coupler = mech.body("coupler")
    mech.point_velocity(coupler, (1.5, 0.0))           # cached at the last pose
    for k in (3, 7):
        motion.apply(k)
        np.testing.assert_allclose(mech.point_velocity(coupler, (1.5, 0.0)),
                                   motion.velocity(coupler, (1.5, 0.0))[k], atol=1e-12)
        np.testing.assert_allclose(mech.point_acceleration(coupler, (1.5, 0.0)),
                                   motion.acceleration(coupler, (1.5, 0.0))[k], atol=1e-12)
    # changing the state by hand or the time invalidates it too
    mech.state = motion.states[2]
    mech.set_time(times[2])
    np.testing.assert_allclose(mech.point_velocity(coupler, (1.5, 0.0)),
                               motion.velocity(coupler, (1.5, 0.0))[2], atol=1e-12)


def test_time_sweep_that_cannot_start_names_the_first_time():
    mech, rocker, drive, limit = _toggle_fourbar()
    drive.value = ConstantSpeed(1.0, start=limit - 0.5)   # beyond the rocker's swing at t = 0
    with pytest.raises(ms.SweepError, match=r"cannot be assembled at times\[0\] = 0: could not "
                                            r"assemble the mechanism") as info:
        mech.sweep_time(np.linspace(0.0, 1.0, 5))
    assert info.value.index == 0 and len(info.value.motion) == 0


@pytest.mark.parametrize("first, second", [(False, False), (False, True), (True, False),
                                           (True, True)])
def test_a_sweep_starting_where_the_last_ended_at_a_change_point(first, second):
    """A parallelogram swept a full turn ends at its change point (crank angle 2 pi); the
    next sweep starts there (found rank deficient at that pose) and leaves it along the
    parallelogram branch like the first, with no free-motion warning: the system is regular
    next to the pose."""
    import warnings

    m = ms.models.parallelogram(n_cranks=2)
    mech, drive = m.mechanism, m.driver
    values = np.linspace(0, 2 * np.pi, 361)
    mech.sweep(drive, values, batch=first)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        motion = mech.sweep(drive, values, batch=second)
    np.testing.assert_allclose(motion.singular, [0.0, np.pi, 2 * np.pi], rtol=0, atol=1e-9)
    # the parallelogram branch: the coupler translates, its angle stays a whole turn
    # (to the square root of the tolerance at the change points, a double root)
    angle = motion.pose(mech.body("coupler"))[:, 2]
    assert np.max(np.abs(np.angle(np.exp(1j * angle)))) < 1e-6


def _scaled_parallelogram(scale):
    m = ms.models.parallelogram(n_cranks=2)
    mech = m.mechanism
    p = mech.parameters()
    mech.set_parameters({k: v * scale for k, v in p.items()
                         if k.endswith(("point1", "point2"))})
    for b in mech.bodies:
        b.position = b.position * scale
    mech.solve()
    return m, mech


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1e-2, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("first, second", [(False, True), (True, False), (True, True)])
def test_a_sweep_from_a_change_point_where_the_last_ended_keeps_its_branch_at_any_scale(
        scale, first, second):
    # the end pose of the first sweep is at the change point to round-off only: its offset
    # from the crossing is noise, so the branch is the one the first sweep arrived on
    m, mech = _scaled_parallelogram(scale)
    values = np.linspace(0, 2 * np.pi, 361)
    mech.sweep(m.driver, values, batch=first)
    motion = mech.sweep(m.driver, values, batch=second)
    angle = motion.pose(mech.body("coupler"))[:, 2]
    assert np.max(np.abs(np.angle(np.exp(1j * angle)))) < 1e-6
    np.testing.assert_allclose(motion.singular, [0.0, np.pi, 2 * np.pi], rtol=0, atol=1e-9)


@pytest.mark.parametrize("batch", [False, True])
def test_a_sweep_from_where_the_last_ended_carries_on_along_the_crossed_branch(batch):
    # the first sweep follows the anti-parallelogram (the second crank turning back) into the
    # change point at pi; the next sweep, leaving pi, stays on it
    model = ms.models.parallelogram(2)
    mech = model.mechanism
    c1, c2, coupler = (mech.body(n) for n in ("crank1", "crank2", "coupler"))
    d = 0.5
    c1.angle, c1.position = np.pi + d, 0.5 * np.array([np.cos(np.pi + d), np.sin(np.pi + d)])
    c2.angle, c2.position = np.pi - d, (2.0 + 0.5 * np.cos(np.pi - d), 0.5 * np.sin(np.pi - d))
    coupler.position = (1.0 + 0.5 * np.cos(np.pi + d), 0.0)
    model.driver.value = np.pi + d
    mech.solve()
    mech.sweep(model.driver, np.linspace(np.pi + d, np.pi, 21), batch=batch)
    values = np.linspace(np.pi, np.pi - 1.0, 21)
    motion = mech.sweep(model.driver, values, batch=batch)
    crank2 = motion.pose(c2)[:, 2]
    assert np.all(np.diff(crank2) > 0)   # turning against the first crank
    pins = motion.point(coupler, (1.0, 0.0)) - motion.point(c2, (0.5, 0.0))
    np.testing.assert_allclose(np.linalg.norm(pins, axis=1), 0.0, atol=1e-12)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_a_time_sweep_starting_on_a_change_point_leaves_it_along_its_branch(scale):
    # the first time sweep ends at the change point (crank angle pi); the next starts there,
    # with the velocity of the parallelogram branch (both cranks at 1 rad/s, the coupler
    # translating) rather than failing on the singular Jacobian
    m, mech = _scaled_parallelogram(scale)
    m.driver.value = ConstantSpeed(1.0, start=np.pi / 2)
    mech.solve()
    mech.sweep_time(np.linspace(0.0, np.pi / 2, 46))
    motion = mech.sweep_time(np.linspace(np.pi / 2, np.pi, 46))
    np.testing.assert_allclose(motion.singular, [np.pi / 2], rtol=0, atol=1e-12)
    angle = motion.pose(mech.body("coupler"))[:, 2]
    assert np.max(np.abs(np.angle(np.exp(1j * angle)))) < 1e-6
    for name in ("crank1", "crank2"):
        omega = motion.body_velocity(mech.body(name))[:, 2]
        np.testing.assert_allclose(omega, 1.0, atol=1e-6)
    speed = np.linalg.norm(motion.velocity(mech.body("coupler")), axis=1)
    np.testing.assert_allclose(speed, scale, rtol=1e-6)


@pytest.mark.parametrize("step_deg", [10, 20])
def test_a_batched_sweep_of_the_3d_slider_crank_keeps_its_assembly(step_deg):
    # its two assemblies (slider on either side of the crank) have the same sign of det J:
    # the coarse pass jumped 160 -> 320 degrees onto the other one, and from 260 degrees the
    # slider came back at x = a cos t - sqrt(...), 5.6 off. The trapezoidal defect of every
    # step is bounded now, whether a sign of det J is watched or not
    model = ms.models.spatial.slider_crank_3d()
    t = np.radians(np.arange(0, 361, step_deg))
    motion = model.mechanism.sweep(model.driver, t)
    a, rod, (y0, z0) = 1.0, 3.0, (0.5, 0.8)
    x = a * np.cos(t) + np.sqrt(rod**2 - (y0 - a * np.sin(t)) ** 2 - z0**2)
    slider = motion.point(model.output, (0.0, 0.0, 0.0))   # its origin, on the guide
    np.testing.assert_allclose(slider[:, 0], x, rtol=0, atol=1e-12)
