"""Joint limits: inequalities on a joint's relative angle, slide or coordinate, kept by solve,
sweeps, solve_batch and arm.ik (issue 17, item 1)."""

import numpy as np
import pytest
from _round_off import assert_same_states, assert_same_to_round_off
from scipy.optimize import brentq

import mechsolve as ms
from mechsolve import joints


# -- models and closed forms ----------------------------------------------------------------------
def fourbar(limits=None, driven=True):
    """The README four-bar; ``O4`` (rocker to ground) carries ``limits``."""
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    o4 = mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0), name="O4",
                                  limits=limits))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor")) if driven else None
    return mech, o4, drive


def rocker_angle(phi):
    """O4's relative angle (ground minus rocker) at crank angle ``phi``, in closed form."""
    B = np.array([np.cos(phi), np.sin(phi)])
    D = np.array([4.0, 0.0])
    d = np.linalg.norm(D - B)
    a = (3.0**2 - 3.5**2 + d * d) / (2 * d)
    h = np.sqrt(9.0 - a * a)
    u = (D - B) / d
    C = B + a * u + h * np.array([-u[1], u[0]])
    return -np.arctan2(D[1] - C[1], D[0] - C[0])


def slider_crank(limits=None):
    mech = ms.Mechanism()
    crank = mech.add_body("crank", position=(0.5, 0.0))
    rod = mech.add_body("rod", position=(2.5, 0.0))
    slider = mech.add_body("slider", position=(4.0, 0.0))
    mech.add(joints.Revolute(mech.ground, crank, (0, 0), (-0.5, 0)))
    mech.add(joints.Revolute(crank, rod, (0.5, 0), (-1.5, 0)))
    mech.add(joints.Revolute(rod, slider, (1.5, 0), (0, 0)))
    stroke = mech.add(joints.Prismatic(mech.ground, slider, (0, 0), (0, 0), axis=(1, 0),
                                       name="stroke", limits=limits))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, stroke, drive


def slider_x(phi):
    return np.cos(phi) + np.sqrt(9.0 - np.sin(phi) ** 2)


# -- arguments ------------------------------------------------------------------------------------
def test_limits_are_checked_and_named():
    mech, o4, _ = fourbar()
    with pytest.raises(ValueError, match="Revolute: limits: lower must be below upper"):
        o4.limits = (1.0, -1.0)
    with pytest.raises(TypeError, match=r"limits must be \(lower, upper\)"):
        o4.limits = 1.0
    with pytest.raises(TypeError, match="limits lower must be a real number"):
        o4.limits = ("a", 1.0)
    with pytest.raises(ValueError, match="limits upper must be finite"):
        o4.limits = (0.0, np.inf)
    rod = mech.add(joints.Distance(mech.body("crank"), mech.body("rocker"), length=3.0))
    with pytest.raises(TypeError, match="Distance takes no limits"):
        rod.limits = (0.0, 1.0)
    o4.limits = (None, 1.0)
    assert o4.limits == (None, 1.0)
    o4.limits = (None, None)
    assert o4.limits is None


# -- solve ----------------------------------------------------------------------------------------
def test_fourbar_rocker_stop_solve_names_the_limit_and_excess():
    mech, o4, drive = fourbar((None, 1.0))
    mech.solve()              # crank at 0: the rocker at 0.948, within its stop
    drive.value = 1.0         # Newton from there: the same assembly, the rocker at 1.116
    before = mech.state
    with pytest.raises(ms.SolveError, match=r"upper=1 of Revolute 'O4'") as info:
        mech.solve()
    lim = info.value.result.limits_broken[0]
    assert lim.joint is o4 and lim.side == "upper"
    assert lim.excess == pytest.approx(rocker_angle(1.0) - 1.0, abs=1e-9)
    assert f"{rocker_angle(1.0) - 1.0:.6g}" in str(info.value)
    assert np.array_equal(mech.state, before)          # left as it was
    drive.value = 3.0                                   # within the stop
    result = mech.solve()
    assert result.success and result.active_limits == []
    assert o4.limit_measure() == pytest.approx(rocker_angle(3.0), abs=1e-12)


def test_free_mechanism_is_held_at_its_limit():
    mech, o4, _ = fourbar(driven=False)
    mech.solve()   # no driver: one free DOF
    stop = o4.limit_measure() + 0.2     # the rocker swings over [-1.114, -0.524] there
    o4.limits = (stop, None)
    mech.solve()   # the rocker is held at its stop, the rest follows
    assert o4.limit_measure() == pytest.approx(stop, abs=1e-12)
    assert np.max(np.abs(mech.residuals())) < 1e-12
    res = mech.last_result
    assert [(a.joint, a.side) for a in res.active_limits] == [(o4, "lower")]
    o4.limits = (None, -1.5)            # beyond the rocker's swing: no pose holds it
    with pytest.raises(ms.SolveError, match="holding the joints at their limits leaves the "
                                            "other constraints unmet"):
        mech.solve()
    assert ("limits", res.phases[-1][1]) == res.phases[-1]


def test_models_without_limits_solve_exactly_as_before():
    for th in (0.3, 2.0, 4.5):
        plain, _, d1 = fourbar()
        wide, o4, d2 = fourbar((-3.0, 3.0))
        d1.value = d2.value = th
        r1, r2 = plain.solve(), wide.solve()
        assert r1.iterations == r2.iterations
        assert_same_states(plain, wide.state, plain.state)      # to round-off (issue 26)
        assert r1.active_limits == [] and r2.active_limits == []
        assert plain.system().limits is None


def test_spatial_revolute_limit():
    mech = ms.Mechanism(dim=3)
    link = mech.add_body("link", position=(0.5, 0.0, 0.0))
    hinge = mech.add(joints.Revolute(mech.ground, link, (0, 0, 0), (-0.5, 0, 0), axis=(0, 0, 1),
                                     limits=(-0.5, 2.0), name="hinge"))
    drive = mech.add(joints.AngleDriver(hinge, 1.5))
    mech.solve()
    assert hinge.limit_measure() == pytest.approx(1.5)
    drive.value = 2.5
    with pytest.raises(ms.SolveError, match="upper=2 of SpatialRevolute 'hinge'") as info:
        mech.solve()
    assert info.value.result.limits_broken[0].excess == pytest.approx(0.5)


# -- sweeps ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [False, True])
def test_fourbar_sweep_stops_at_the_rocker_stop(batch):
    mech, o4, drive = fourbar((None, 1.0))
    angles = np.linspace(0.0, 2 * np.pi, 73)
    with pytest.raises(ms.SweepError, match=r"reaches the limit upper=1 of Revolute 'O4' at "
                                            r"driver value 0\.16371941") as info:
        mech.sweep(drive, angles, batch=batch)
    err = info.value
    expected = brentq(lambda p: rocker_angle(p) - 1.0, 0.0, 0.5, xtol=1e-15)
    assert err.limit_value == pytest.approx(expected, abs=1e-9)
    assert err.limit.joint is o4 and err.limit.side == "upper"
    assert err.index == 2 and len(err.motion.values) == 2
    assert angles[1] < err.limit_value < angles[2]
    assert err.value == angles[2]
    assert drive.value == 0.0          # the mechanism is left as it was


def test_fourbar_sweep_stops_at_a_lower_stop():
    mech, o4, drive = fourbar((0.6, 1.2))
    before = mech.state
    with pytest.raises(ms.SweepError, match="lower=0.6 of Revolute 'O4'") as info:
        mech.sweep(drive, np.linspace(0.0, 2 * np.pi, 73))
    expected = brentq(lambda p: rocker_angle(p) - 0.6, 3.0, 4.0, xtol=1e-15)
    assert info.value.limit_value == pytest.approx(expected, abs=1e-9)
    assert np.array_equal(mech.state, before)


def test_slider_crank_stroke_cut_by_a_limit():
    mech, stroke, drive = slider_crank((2.5, None))
    mech.solve()
    assert stroke.limit_measure() == pytest.approx(4.0)
    with pytest.raises(ms.SweepError, match="lower=2.5 of Prismatic 'stroke'") as info:
        mech.sweep(drive, np.linspace(0.0, np.pi, 37))
    expected = brentq(lambda p: slider_x(p) - 2.5, 0.0, np.pi, xtol=1e-15)
    err = info.value
    assert err.limit_value == pytest.approx(expected, abs=1e-9)
    q = err.limit_state
    assert q[6] == pytest.approx(2.5, abs=1e-12)       # the slider's x at the limit
    # the motion up to the limit is the unlimited one
    free, _, d2 = slider_crank()
    whole = free.sweep(d2, np.linspace(0.0, np.pi, 37))
    assert np.allclose(err.motion.states, whole.states[: len(err.motion.values)], atol=1e-12)


def test_sweep_within_limits_is_unchanged():
    mech, _, drive = fourbar((0.4, 1.2))
    plain, _, d2 = fourbar()
    angles = np.linspace(0.0, 2 * np.pi, 37)
    m1 = mech.sweep(drive, angles)
    m2 = plain.sweep(d2, angles)
    assert_same_states(plain, m1.states, m2.states)     # to round-off (issue 26)


# -- batches --------------------------------------------------------------------------------------
def test_solve_batch_items_beyond_limits_fail_individually():
    mech, o4, drive = fourbar((None, 1.0))
    mech.solve()
    out = mech.solve_batch(values={drive: [0.0, 1.0, 3.0]}, raise_on_failure=False)
    assert out.success.tolist() == [True, False, True]
    assert out.reasons[0] is None and "upper=1 of Revolute 'O4'" in out.reasons[1]
    assert f"{rocker_angle(1.0) - 1.0:.6g}" in out.reasons[1]
    with pytest.raises(ms.SolveError, match=r"1 of 3 batch items failed \(items \[1\]\)"):
        mech.solve_batch(values={drive: [0.0, 1.0, 3.0]})


# -- inverse kinematics ---------------------------------------------------------------------------
URDF = """<robot name="two">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="tip"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1.0" upper="1.0" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="0.0" upper="2.0" effort="1" velocity="1"/></joint>
  <joint name="tool" type="fixed"><parent link="l2"/><child link="tip"/>
    <origin xyz="1 0 0"/></joint>
</robot>"""


def test_ik_target_reachable_only_outside_limits_fails_naming_the_joint():
    arm = ms.robots.load_urdf(URDF)
    assert arm.joints[1].limits == (0.0, 2.0)
    target = arm.forward([0.2, -0.5])       # the only solution bends the elbow below 0
    with pytest.raises(ms.SolveError, match=r"reachable only outside the joint limits "
                                            r"\(joint 'elbow' would be at -0.5, beyond its "
                                            r"lower limit 0 by 0.5\)"):
        arm.ik(target, [0.0, 0.5])
    free = arm.ik(target, [0.0, 0.5], limits=False)
    assert free.success and np.allclose(free.q, [0.2, -0.5])


def test_ik_within_limits_succeeds_and_stays_inside():
    arm = ms.robots.load_urdf(URDF)
    target = arm.forward([0.3, 1.2])
    for start in ([0.0, 0.5], [0.0, -0.5], [2.0, 3.0]):
        r = arm.ik(target, start)
        assert r.success and np.allclose(r.q, [0.3, 1.2], atol=1e-9)
    rng = np.random.default_rng(0)
    Q = np.column_stack([rng.uniform(-1, 1, 20), rng.uniform(0, 2, 20)])
    out = arm.ik(arm.forward(Q), np.zeros(2) + [0.0, 1.0])
    assert out.success.all()
    assert np.all(out.q >= [-1.0, 0.0]) and np.all(out.q <= [1.0, 2.0])


def test_arms_without_limits_ik_as_before():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    a = arm.ik(arm.forward(q), q + 0.1)
    b = arm.ik(arm.forward(q), q + 0.1, limits=False)
    # the same iterations, to round-off of the joint angles (issue 26)
    assert a.iterations == b.iterations
    assert_same_to_round_off(a.q, b.q, max(1.0, np.max(np.abs(b.q))))


def test_urdf_arm_mechanism_carries_the_limits():
    arm = ms.robots.load_urdf(URDF)
    model = arm.mechanism([0.2, 0.5])
    assert [j.limits for j in model.joints] == [(-1.0, 1.0), (0.0, 2.0)]
    assert all(j.limits is None for j in arm.mechanism([0.2, 0.5], limits=False).joints)
    mech = model.mechanism
    drive = mech.add(joints.CoordinateDriver(model.joints[1], 2.5))
    with pytest.raises(ms.SolveError, match="upper=2 of RevoluteLink 'elbow'"):
        mech.solve()
    drive.value = 1.5
    mech.solve()
    assert model.joints[1].value == pytest.approx(1.5)


# -- model files ----------------------------------------------------------------------------------
@pytest.mark.parametrize("units", [{}, {"angle": "deg"}])
def test_limits_round_trip_through_model_files(tmp_path, units):
    mech, _, _ = fourbar((None, 1.0))
    slider, _, _ = slider_crank((2.5, 3.5))
    for m, name in ((mech, "O4"), (slider, "stroke")):
        m.units = dict(units)
        ms.save(m, tmp_path / "m.toml")
        back = ms.load(tmp_path / "m.toml")
        assert back.joint(name).limits == pytest.approx(m.joint(name).limits) if None not in \
            m.joint(name).limits else back.joint(name).limits[0] is None
    spatial = ms.Mechanism(dim=3)
    b = spatial.add_body("b")
    c = spatial.add_body("c", position=(0, 0, 1))
    spatial.add(joints.DHLink(spatial.ground, b, d=0.1, prismatic=True, limits=(0, 0.5),
                              name="dh"))
    spatial.add(joints.RevoluteLink(b, c, limits=(-1, None), name="rl"))
    spatial.units = dict(units)
    ms.save(spatial, tmp_path / "s.toml")
    back = ms.load(tmp_path / "s.toml")
    assert back.joint("dh").limits == pytest.approx((0.0, 0.5))
    lo, hi = back.joint("rl").limits
    assert lo == pytest.approx(-1.0) and hi is None


def _coupler_point_distance(theta):
    """|P| of the README four-bar's coupler point (0, 1) (coupler frame at the middle of A-B)
    from the ground origin, by the closed form, at crank angle ``theta``."""
    A = np.array([np.cos(theta), np.sin(theta)])
    d = np.array([4.0, 0.0]) - A
    e = np.hypot(*d)
    phi = np.arctan2(d[1], d[0]) + np.arccos((9.0 + e * e - 3.5**2) / (6.0 * e))
    B = A + 3.0 * np.array([np.cos(phi), np.sin(phi)])
    P = (A + B) / 2 + np.array([-np.sin(phi), np.cos(phi)])
    return float(np.hypot(*P))


def test_a_distance_between_two_points_stops_a_sweep_where_the_closed_form_says():
    from scipy.optimize import brentq

    model = ms.models.fourbar()
    mech = model.mechanism
    reach = mech.add(joints.DistanceLimit(mech.ground, mech.body("coupler"), (0.0, 0.0),
                                          (0.0, 1.0), limits=(None, 2.5), name="reach"))
    assert reach.limit_is_length and reach.n_equations == 0
    with pytest.raises(ms.SweepError, match="limit upper=2.5 of DistanceLimit 'reach'") as info:
        mech.sweep(model.driver, np.linspace(0.0, 2 * np.pi, 73))
    exact = brentq(lambda t: _coupler_point_distance(t) - 2.5, 0.3, 0.7, xtol=1e-15)
    assert info.value.limit_value == pytest.approx(exact, abs=1e-9)
    # a fully driven pose beyond it: the excess named
    model.driver.value = 1.0
    with pytest.raises(ms.SolveError, match="reach") as info:
        mech.solve()
    assert f"{_coupler_point_distance(1.0) - 2.5:.3g}" in str(info.value)
    # spatial: the same between points of spatial bodies
    sm = ms.models.spatial.rssr()
    rod = sm.mechanism.joint("rod")
    lim = joints.DistanceLimit(rod.bodies[0], rod.bodies[1], rod.point1, rod.point2,
                               limits=(None, 100.0))
    assert type(lim).__name__ == "SpatialDistanceLimit"
    sm.mechanism.add(lim)
    sm.mechanism.solve()
    assert lim.limit_measure() == pytest.approx(rod.length, rel=1e-12)


def test_a_ball_joint_cone_limit():
    """A pendulum on a ball joint with a cone limit of 0.5 rad (MuJoCo's ball range), its
    orientation set by a frame goal: within the cone it solves, beyond it the error names the
    ball and the excess (0.8 - 0.5); the cone angle's gradient against differences."""
    from mechsolve.spatial._quat import quat_exp, quat_multiply

    mech = ms.Mechanism(dim=3)
    bob = mech.add_body("bob", position=(0.0, 0.0, -1.0))
    ball = mech.add(joints.Spherical(mech.ground, bob, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0),
                                     limits=(None, 0.5), name="ball"))
    tilt = ms.Orientation.from_angle_axis(0.3, (1.0, 0.0, 0.0))
    goal = mech.add(joints.OrientationEndEffector(bob, target=tilt, name="goal"))
    mech.solve()
    assert ball.limit_measure() == pytest.approx(0.3, abs=1e-12)
    goal.target = ms.Orientation.from_angle_axis(0.8, (1.0, 0.0, 0.0))
    with pytest.raises(ms.SolveError, match="ball") as info:
        mech.solve()
    assert "0.3" in str(info.value)
    # the gradient of the cone angle at a random pose
    rng = np.random.default_rng(2)
    P = ball._p[None]
    X1 = mech.ground.pose[None]
    X2 = np.concatenate([rng.normal(size=3), ms.Orientation.from_angle_axis(
        1.1, rng.normal(size=3)).quaternion])[None]
    _, (_, J2) = type(ball)._limit_measure(P, X1, X2)
    h = 1e-6
    for c in range(3, 6):
        w = np.zeros(3)
        w[c - 3] = h
        up = X2.copy()
        down = X2.copy()
        up[0, 3:] = quat_multiply(quat_exp(w), X2[0, 3:])
        down[0, 3:] = quat_multiply(quat_exp(-w), X2[0, 3:])
        num = (type(ball)._limit_measure(P, X1, up)[0] - type(ball)._limit_measure(
            P, X1, down)[0]) / (2 * h)
        assert num[0] == pytest.approx(J2[0, c], abs=1e-8)
