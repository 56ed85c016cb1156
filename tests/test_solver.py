"""Solver behaviour against closed forms, convergence rate, and the three system shapes."""

import numpy as np
import pytest
from closed_form import fourbar as fourbar_exact
from closed_form import slider_crank as slider_exact
from closed_form import wrap

import mechsolve as ms
from mechsolve import joints
from mechsolve.models import fourbar, parallelogram, slider_crank


def rough_fourbar():
    """The four-bar of the design document, bodies placed roughly."""
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0)))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, crank, coupler, rocker, drive


def check_fourbar_pose(mech, t, upper, atol=1e-10):
    A, B, phi, psi = fourbar_exact(t, upper=upper)
    crank, coupler, rocker = mech.bodies
    np.testing.assert_allclose(crank.to_global((0.5, 0)), A, atol=atol)
    np.testing.assert_allclose(coupler.to_global((1.5, 0)), B, atol=atol)
    assert abs(wrap(coupler.angle - phi)) < atol
    assert abs(wrap(rocker.angle - psi)) < atol


def test_rough_start_assembles_and_satisfies_closed_form():
    mech, crank, coupler, rocker, drive = rough_fourbar()
    result = mech.solve()
    assert result.success and result.rank_status == "regular"
    upper = coupler.to_global((1.5, 0))[1] > 0
    check_fourbar_pose(mech, 0.0, upper)
    drive.value = np.pi / 4
    mech.solve()
    check_fourbar_pose(mech, np.pi / 4, upper)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("batch", [True, False])
def test_fourbar_sweep_matches_closed_form_and_keeps_branch(upper, batch):
    model = fourbar(upper=upper)
    mech = model.mechanism
    t = np.linspace(0, 2 * np.pi, 361)
    motion = mech.sweep(model.driver, t, batch=batch)
    crank, coupler, rocker = mech.bodies
    A, B, phi, psi = fourbar_exact(t, upper=upper)
    np.testing.assert_allclose(motion.point(crank, (0.5, 0)), A, atol=1e-10)
    np.testing.assert_allclose(motion.point(coupler, (1.5, 0)), B, atol=1e-10)
    assert np.max(np.abs(wrap(motion.pose(coupler)[:, 2] - phi))) < 1e-10
    assert np.max(np.abs(wrap(motion.pose(rocker)[:, 2] - psi))) < 1e-10
    assert np.all(motion.residuals <= 1e-10)
    assert motion.point(coupler, (0.0, 1.0)).shape == (361, 2)


def test_slider_crank_sweep_matches_closed_form():
    model = slider_crank(crank=1.0, rod=3.0, offset=0.5)
    mech = model.mechanism
    t = np.linspace(0, 4 * np.pi, 721)
    motion = mech.sweep(model.driver, t)
    crank, rod, slider = mech.bodies
    x, rod_angle = slider_exact(t)
    np.testing.assert_allclose(motion.pose(slider)[:, 0], x, atol=1e-10)
    np.testing.assert_allclose(motion.pose(slider)[:, 1], 0.5, atol=1e-10)
    assert np.max(np.abs(wrap(motion.pose(rod)[:, 2] - rod_angle))) < 1e-10


def test_quadratic_convergence():
    model = fourbar()
    mech = model.mechanism
    model.driver.value = 0.6  # a 0.6 rad jump from the assembled pose
    result = mech.solve(tol=1e-14)
    h = np.array(result.history)
    assert result.success and len(h) >= 4
    # e_{k+1} <= C e_k^2 once in the basin: the ratio stays bounded while e_k shrinks fast.
    ratios = h[2:-1] / h[1:-2] ** 2
    assert np.all(ratios < 10.0), h
    assert h[-2] < 1e-5 and h[-1] < 1e-14


def test_redundant_parallelogram_reports_and_solves():
    model = parallelogram(3)
    mech = model.mechanism
    report = mech.dof()
    assert report.gruebler == 0
    assert report.dof == 1
    assert len(report.redundant) == 1
    assert report.redundant[0].joint.name == "A3"
    assert "redundant equations" in str(report) and "'A3'" in str(report)
    model.driver.value = np.pi / 2 + 0.7
    result = mech.solve()
    assert result.success and result.rank_status == "redundant"
    assert [r.joint.name for r in result.redundant] == ["A3"]
    for crank in mech.bodies[:3]:
        assert abs(crank.angle - (np.pi / 2 + 0.7)) < 1e-10
    motion = mech.sweep(model.driver, model.values)
    path = motion.point(mech.body("coupler"), (0, 0))
    t = model.values
    exact = np.stack([2 + np.cos(t), np.sin(t)], axis=1)
    # With the cranks along the ground line the parallelogram is at a change point (it could
    # fold into an anti-parallelogram): the pose there is fixed only to second order, so a
    # residual of 1e-10 pins it to about 1e-5. Everywhere else it is exact.
    change = np.abs(np.sin(t)) < 1e-6
    np.testing.assert_allclose(path[~change], exact[~change], atol=1e-10)
    np.testing.assert_allclose(path[change], exact[change], atol=1e-4)


def test_fewer_drivers_than_dof_takes_minimum_norm_steps():
    model = fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    q0 = mech.state
    mech.state = q0 + 1e-3 * np.arange(q0.size)
    result = mech.solve()
    assert result.success
    assert result.rank_status == "underdetermined" and result.free_dof == 1
    assert np.max(np.abs(mech.residuals())) <= 1e-10
    assert mech.dof().free == 1


def test_inconsistent_driver_raises_with_named_joints():
    model = fourbar(ground=4.0, crank=1.0, coupler=3.0, rocker=3.5)
    mech = model.mechanism
    q0 = mech.state
    # A y-driver the crank pin cannot reach: the crank is 1 long.
    mech.add(joints.Driver(mech.body("coupler"), "y", 50.0, name="impossible"))
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    msg = str(info.value)
    assert "could not assemble" in msg
    # The linkage is followed to where the driver stops (a limit position); there the joints
    # hold and the driver's residual is what is missing: the message names it and its body.
    assert "Driver 'impossible' on coupler cannot reach 50" in msg
    assert "Driver 'impossible' on coupler: y=-48.6" in msg
    result = info.value.result
    assert result.success is False and result.residual_abs == pytest.approx(48.6, abs=0.05)
    np.testing.assert_allclose(mech.system().phi(result.state)[:-1], 0.0, atol=1e-9)
    np.testing.assert_array_equal(mech.state, q0)  # never a silently wrong pose


def test_inconsistent_joints_name_joints_bodies_and_residuals():
    # Link lengths that cannot close: the rocker pin can never reach the coupler.
    mech = ms.Mechanism()
    a = mech.add_body("a", position=(0.5, 0))
    b = mech.add_body("b", position=(3.0, 0))
    mech.add(joints.Revolute(mech.ground, a, (0, 0), (-0.5, 0), name="O"))
    mech.add(joints.Revolute(a, b, (0.5, 0), (-1, 0), name="A"))
    mech.add(joints.Revolute(b, mech.ground, (1, 0), (10, 0), name="far"))
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    msg = str(info.value)
    assert "the joints cannot be assembled even without the drivers" in msg
    assert "Revolute 'far' between b and ground: x=" in msg
    assert info.value.result.residual_abs > 1


def test_unreachable_driver_value_names_driver_and_limit():
    # Non-Grashof: the input link cannot turn fully.
    model = fourbar(ground=4.0, crank=3.0, coupler=3.0, rocker=3.5)
    mech = model.mechanism
    model.driver.value = np.pi
    with pytest.raises(ms.SolveError, match="Driver 'motor' on crank cannot reach 3.14159"):
        mech.solve()


def test_sweep_stops_at_dead_point_with_first_unreachable_value():
    model = fourbar(ground=4.0, crank=3.0, coupler=3.0, rocker=3.5)
    mech = model.mechanism
    values = np.radians(np.arange(0, 361, 1.0))
    # The limit is where A is 6.5 from O4: |A - O4| = 6.5 -> cos t = (9 + 16 - 42.25) / 24.
    limit = np.arccos((9 + 16 - 6.5**2) / 24)
    first_bad = int(np.argmax(values > limit))
    for batch in (True, False):
        with pytest.raises(ms.SweepError) as info:
            mech.sweep(model.driver, values, batch=batch)
        err = info.value
        assert err.index == first_bad
        assert err.value == pytest.approx(values[first_bad])
        assert f"values[{first_bad}]" in str(err)
        assert len(err.motion) == first_bad
        A, B, phi, psi = fourbar_exact(err.motion.values, a=3.0, b=3.0, c=3.5, d=4.0)
        np.testing.assert_allclose(err.motion.point(mech.bodies[1], (1.5, 0)), B, atol=1e-9)
        model.driver.value = 0.0
        mech.solve()


def test_driver_kinds_reach_their_values():
    model = slider_crank()
    mech = model.mechanism
    mech.remove(model.driver)
    slide = mech.add(joints.SlideDriver(mech.joint("rail"), 3.2))
    mech.solve()
    assert mech.body("slider").x == pytest.approx(3.2, abs=1e-10)
    assert slide.measure() == pytest.approx(3.2, abs=1e-10)

    model = fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    ang = mech.add(joints.AngleDriver(mech.joint("O2"), 0.8))
    mech.solve()
    assert mech.body("crank").angle == pytest.approx(0.8, abs=1e-10)
    ang.value = 1.1
    mech.solve()
    assert mech.body("crank").angle == pytest.approx(1.1, abs=1e-10)

    mech.remove(ang)
    dist = mech.add(joints.DistanceDriver(mech.ground, mech.body("coupler"), (0, 0), (1.5, 0),
                                          3.0))
    mech.solve()
    assert np.linalg.norm(mech.body("coupler").to_global((1.5, 0))) == pytest.approx(3.0,
                                                                                     abs=1e-10)
    assert dist.measure() == pytest.approx(3.0, abs=1e-10)


def test_gear_train_ratios():
    model = ms.models.gear_train()
    mech = model.mechanism
    t = np.linspace(0, 2 * np.pi, 50)
    motion = mech.sweep(model.driver, t)
    g2 = motion.pose(mech.body("gear2"))[:, 2]
    g3 = motion.pose(mech.body("gear3"))[:, 2]
    ring = motion.pose(mech.body("ring"))[:, 2]
    rack = -motion.pose(mech.body("rack"))[:, 1]
    np.testing.assert_allclose(g2, -t / 2, atol=1e-12)
    np.testing.assert_allclose(g3, t * 2, atol=1e-12)
    np.testing.assert_allclose(ring, t * 2 * 0.5 / 1.5, atol=1e-12)
    np.testing.assert_allclose(rack, t * 1.0, atol=1e-12)


def test_result_reports_per_joint_residuals():
    model = fourbar()
    result = model.mechanism.solve()
    assert set(result.joint_residuals) == set(model.mechanism.joints)
    assert result.iterations == 0 and result.residual_abs <= 1e-10


def test_solve_batch_many_driver_values_at_once():
    model = fourbar()
    mech = model.mechanism
    t = np.linspace(0, 1.0, 7)
    out = mech.solve_batch(values={model.driver: t})
    assert out.success.all() and np.all(out.residual <= 1e-10)
    A, B, phi, psi = fourbar_exact(t)
    np.testing.assert_allclose(out.states[:, 5], phi, atol=1e-10)
    with pytest.raises(ValueError, match="batch sizes disagree"):
        mech.solve_batch(values={model.driver: t}, states=np.zeros((3, 9)))
    # the second item's ground pivot is out of reach of its links
    with pytest.raises(ms.SolveError, match="1 of 2 batch items did not converge"):
        mech.solve_batch(params={"O4.point2": [[4.0, 0.0], [40.0, 0.0]]})


def test_solve_batch_lands_where_solve_lands_from_each_start():
    # a start far off the assembly: Newton alone fails there, solve() assembles the joints
    # first; the batch item goes the same way
    model = fourbar()
    mech = model.mechanism
    starts = np.array([mech.state, mech.state + 50.0])
    out = mech.solve_batch(values={model.driver: [0.0, 0.1]}, states=starts, max_iterations=3)
    for b, value in enumerate([0.0, 0.1]):
        mech.state = starts[b]
        model.driver.value = value
        mech.solve(max_iterations=3)
        np.testing.assert_allclose(out.states[b], mech.state, rtol=0, atol=1e-13)
    assert out.success.all()


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e5, 1e6])
def test_solve_batch_judges_residuals_in_the_model_size(scale):
    # a four-bar scaled by 1e5 at 9 driver values: items converged to 3e-15 of the size came
    # back success=False (the residual compared in absolute units)
    model = ms.models.fourbar(ground=4.0 * scale, crank=1.0 * scale, coupler=3.0 * scale,
                              rocker=3.5 * scale)
    mech = model.mechanism
    mech.solve()
    t = np.linspace(0.1, 1.0, 9)
    out = mech.solve_batch(values={model.driver: t})
    assert out.success.all() and np.all(out.residual <= 1e-14)
    _, _, _, psi = fourbar_exact(t)
    for b in range(len(t)):
        mech.state = out.states[b]
        assert abs(wrap(mech.body("rocker").angle - psi[b])) <= 1e-13


def test_sweep_from_a_rough_sketch_assembles_first():
    mech, crank, coupler, rocker, drive = rough_fourbar()
    motion = mech.sweep(drive, np.linspace(0, 2 * np.pi, 73))
    assert np.all(motion.residuals <= 1e-10)
    upper = motion.point(coupler, (1.5, 0))[0, 1] > 0
    A, B, phi, psi = fourbar_exact(motion.values, upper=upper)
    np.testing.assert_allclose(motion.point(coupler, (1.5, 0)), B, atol=1e-10)
