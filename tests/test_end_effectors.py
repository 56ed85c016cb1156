"""End effectors and link kinematics: Jacobians against finite differences, solves, targets."""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.spatial._quat import quat_exp


def random_frame(rng, scale=1.0):
    return ms.Frame(scale * rng.normal(size=3), ms.Orientation(quat_exp(rng.normal(size=3))))


def random_poses(rng, shape):
    X = np.empty(shape + (7,))
    X[..., :3] = rng.normal(size=shape + (3,))
    X[..., 3:] = quat_exp(rng.normal(size=shape + (3,)) * 2.0)
    return X


def build_all(rng):
    """One instance of every kind in a 3-body mechanism, with links and a serial chain."""
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a", position=rng.normal(size=3))
    b = mech.add_body("b", position=rng.normal(size=3))
    c = mech.add_body("c", position=rng.normal(size=3))
    f = lambda: random_frame(rng)  # noqa: E731
    p = lambda: rng.normal(size=3)  # noqa: E731
    rev = joints.RevoluteLink(a, b, f(), f(), axis=p(), precursor=f(), s0=0.3)
    pri = joints.PrismaticLink(a, c, f(), f(), axis=p(), s0=-0.2)
    arm = ms.robots.ur5()
    chain = arm.chain_joint(mech.ground, target=random_frame(rng))
    mp = ms.MassProperties.from_point_mass(2.0, (0.1, 0.2, -0.3))
    return {
        "point": joints.PointEndEffector(b, f(), target=p()),
        "point relative": joints.PointEndEffector(b, f(), target=p(), relative_to=a,
                                                  reference=f()),
        "frame": joints.FrameEndEffector(b, f(), target=f()),
        "frame relative": joints.FrameEndEffector(b, f(), target=f(), relative_to=a,
                                                  reference=f()),
        "directional": joints.DirectionalFrameEndEffector(b, f(), target=f(), relative_to=a),
        "orientation": joints.OrientationEndEffector(b, f(), target=f(), relative_to=c),
        "accelerometer": joints.AccelerometerEndEffector(b, f(), target=f().orientation),
        "x": joints.XEndEffector(b, f(), target=f(), relative_to=a),
        "xy": joints.XYEndEffector(b, f(), target=p()),
        "linear": joints.LinearConstraintEndEffector(b, f(), 0.4, relative_to=a, reference=f()),
        "pointDistance": joints.PointDistanceEndEffector(b, f(), 1.3, center=p(),
                                                         relative_to=a),
        "axisRotate": joints.AxisRotateEndEffector(b, f(), 0.7, relative_to=a, reference=f()),
        "lookAt": joints.LookAtEndEffector(b, f(), target=p(), relative_to=a),
        "freeSpinInZ": joints.FreeSpinInZEndEffector(b, f(), target=f(), relative_to=a),
        "sliding": joints.SlidingEndEffector(b, f(), target=f(), relative_to=a),
        "slideXSpinZ": joints.SlideXSpinZEndEffector(b, f(), target=f(), relative_to=a),
        "pointRotate": joints.PointRotateEndEffector(b, f(), target=f(), relative_to=a),
        "planar": joints.PlanarEndEffector(b, f(), target=f(), relative_to=a),
        "generalSpatial": joints.GeneralSpatialEndEffector(b, f(), f(), mask=[1, 0, 1, 0, 1, 1],
                                                           relative_to=a),
        "rcm": joints.RcmEndEffector(b, f(), target=p(), relative_to=a),
        "centerOfMass": joints.CenterOfMassEndEffector([(b, mp), c], p(), masses=[None, 1.5],
                                                       relative_to=a, reference=f()),
        "projectedCenterOfMass": joints.ProjectedCenterOfMassEndEffector(
            [(b, mp), (c, 3.0)], p(), reference=f()),
        "sewAngle": joints.SewAngleEndEffector(a, b, c, 0.3, points=[p(), p(), p()],
                                               reference=p()),
        "revoluteLink": rev,
        "prismaticLink": pri,
        "dhLink": joints.DHLink(b, c, d=0.3, a=-0.4, alpha=1.1, theta=0.2, s0=0.5),
        "dhLink prismatic": joints.DHLink(b, c, d=0.3, a=-0.4, alpha=1.1, theta=0.2,
                                          prismatic=True, s0=0.5),
        "circle": joints.CircleJoint(a, c, 1.7, f(), f(), precursor=f(), s0=0.4),
        "serialChain": chain,
        "coordinatedJoint": joints.CoordinatedJointEndEffector([rev, (chain, 2), pri],
                                                               [0.1, 0.2, 0.3]),
        "oneDofGripper": joints.OneDofGripperEndEffector(rev, [pri, (chain, 4)], 0.2,
                                                         ratios=[0.5, -1.0]),
    }


KINDS = list(build_all(np.random.default_rng(0)))


def near_a_jump(joint, P, X, phi, margin=1e-3):
    """Samples ``(..., k)`` within ``margin`` of a jump of the residual, where a central
    difference straddles it: angle rows at +-pi, rotation-vector rows at a half turn."""
    near = np.zeros(phi.shape[:-1], dtype=bool)
    labels = [joint.equation_label(i) for i in range(joint.n_equations)]
    for i, label in enumerate(labels):
        if label in ("angle", "sew angle"):
            near |= np.abs(phi[..., i]) > np.pi - margin
    if {"rx", "ry", "rz"} & set(labels):
        # every end effector with rotation rows has the parameter layout of FrameEndEffector,
        # whose last three rows are the full rotation vector (its norm is the angle)
        theta = np.linalg.norm(joints.FrameEndEffector._phi(P, *X)[..., 3:], axis=-1)
        near |= theta > np.pi - margin
    return near


def test_every_actin_kind_is_covered():
    kinds = joints.END_EFFECTOR_KINDS
    assert len(kinds) == 25
    missing = {k for k, c in kinds.items() if c is None}
    assert missing == {"sagEndEffector"}
    # the velocity-level kind is a goal of Mechanism.velocity, not a joint
    assert kinds["spatialMomentumEndEffector"] is joints.SpatialMomentumEndEffector
    counts = {"pointEndEffector": 3, "frameEndEffector": 6, "directionalFrameEndEffector": 6,
              "orientationEndEffector": 3, "xEndEffector": 1, "xyEndEffector": 2,
              "linearConstraintEndEffector": 1, "pointDistanceEndEffector": 1,
              "axisRotateEndEffector": 1, "lookAtEndEffector": 2, "freeSpinInZEndEffector": 5,
              "slidingEndEffector": 5, "slideXSpinZEndEffector": 4, "pointRotateEndEffector": 4,
              "planarEndEffector": 3, "centerOfMassEndEffector": 3,
              "projectedCenterOfMassEndEffector": 2, "rcmEndEffector": 2,
              "sewAngleEndEffector": 1, "accelerometerEndEffector": 3}
    for kind, n in counts.items():
        assert kinds[kind].n_equations == n, kind


# -- solves -------------------------------------------------------------------------------------
def free_body():
    """A free-floating body (6 DOF, no joints): goals alone decide its pose."""
    mech = ms.Mechanism(dim=3)
    body = mech.add_body("tool", position=(0.3, 0.2, 0.5),
                         orientation=ms.Orientation.from_rotvec([0.1, -0.2, 0.3]))
    return mech, body


def solve_and_check(mech, ee, extra=()):
    mech.solve()
    assert np.max(np.abs(ee.residual())) < 1e-9
    for e in extra:
        assert np.max(np.abs(e.residual())) < 1e-9


def test_frame_goal_solves_and_target_changes_without_recompiling():
    mech, body = free_body()
    target = ms.Frame((0.5, -0.1, 0.8), ms.Orientation.from_rotvec([0.4, 0.1, -0.2]))
    ee = mech.add(joints.FrameEndEffector(body, ms.Frame((0, 0, 0.1)), target=target,
                                          name="tcp"))
    mech.solve()
    assert body.frame.approx_eq(target * ms.Frame((0, 0, 0.1)).inverse(), 1e-9)
    sys = mech.system()
    ee.target = ms.Frame((0.2, 0.3, 0.4), ms.Orientation.from_rotvec([0.0, 2.5, 0.0]))
    mech.solve()
    assert mech.system() is sys
    got = body.frame * ms.Frame((0, 0, 0.1))
    assert got.approx_eq(ee.target, 1e-9)
    assert "FrameEndEffector 'tcp' on tool" in ee.describe()


def test_orientation_goal_has_no_half_turn_false_root():
    mech, body = free_body()
    ee = mech.add(joints.OrientationEndEffector(body, target=ms.Orientation.identity()))
    body.orientation = ms.Orientation.from_rotvec([0, 0, np.pi])   # a half turn away
    assert np.linalg.norm(ee.residual()) == pytest.approx(np.pi)   # the rotation vector
    mech.add(joints.PointEndEffector(body, target=(0, 0, 0)))
    body.orientation = ms.Orientation.from_rotvec([0, 0.3, 2.8])
    mech.solve()
    np.testing.assert_allclose(body.rotation, np.eye(3), atol=1e-9)


@pytest.mark.parametrize("axis", [(0, 0, 1), (1, 0, 0), (0.36, -0.48, 0.8)])
@pytest.mark.parametrize("kind", ["frame", "orientation", "directional", "sliding"])
def test_a_goal_exactly_a_half_turn_away_is_reached(kind, axis):
    """At exactly a half turn the rotation-vector rows still have a regular Jacobian (the
    ``2 v`` rows do not: the solve used to stop with "constraints are inconsistent")."""
    mech = ms.Mechanism(dim=3)
    body = mech.add_body("tool", position=(0.3, 0.2, 0.5))
    goal = ms.Frame((0.3, 0.2, 0.5), ms.Orientation.from_angle_axis(np.pi, axis))
    make = {
        "frame": lambda: joints.FrameEndEffector(body, target=goal),
        "orientation": lambda: joints.OrientationEndEffector(body, target=goal.orientation),
        "directional": lambda: joints.DirectionalFrameEndEffector(body, target=goal),
        "sliding": lambda: joints.SlidingEndEffector(body, target=goal),
    }
    ee = mech.add(make[kind]())
    assert np.linalg.norm(ee.residual()[-3:]) == pytest.approx(np.pi)
    result = mech.solve()
    assert result.success and result.iterations <= 2   # the Newton step is the half turn
    np.testing.assert_allclose(body.rotation, goal.orientation.as_matrix(), atol=1e-12)


def test_rotation_rows_are_the_rotation_vector_and_the_short_way():
    rng = np.random.default_rng(21)
    mech, body = free_body()
    ee = mech.add(joints.OrientationEndEffector(body, target=ms.Orientation.identity()))
    for _ in range(5):
        rotvec = rng.normal(size=3)
        rotvec *= rng.uniform(0.0, np.pi) / np.linalg.norm(rotvec)
        body.orientation = ms.Orientation.from_rotvec(rotvec)
        np.testing.assert_allclose(ee.residual(), rotvec, atol=1e-12)
        # a turn by theta > pi about k is the turn by 2 pi - theta about -k
        body.orientation = ms.Orientation.from_rotvec(rotvec * (1 - 2 * np.pi /
                                                                np.linalg.norm(rotvec)))
        np.testing.assert_allclose(ee.residual(), rotvec, atol=1e-9)


def test_quaternions_given_by_hand_must_be_unit():
    """A scaled quaternion is a ValueError naming the argument and the norm; a quaternion
    within 1e-6 of unit norm is normalized."""
    rng = np.random.default_rng(22)
    mech, body = free_body()
    ee = joints.FrameEndEffector(body, target=ms.Frame())
    goal = random_frame(rng)
    row = np.concatenate([goal.translation, goal.quaternion])
    bad = row.copy()
    bad[3:] *= 0.5
    with pytest.raises(ValueError, match=r"FrameEndEffector\.params_for targets: the quaternion "
                                         r"\(w, x, y, z\) must have norm 1 within 1e-06, "
                                         r"found norm 0\.5 \(item 1\)"):
        ee.params_for(np.array([row, bad]))
    near = row.copy()
    near[3:] *= 1.0 + 5e-7
    P = ee.params_for(near[None])
    np.testing.assert_allclose(np.linalg.norm(P[0, 17:21]), 1.0, rtol=0, atol=1e-15)
    com = joints.CenterOfMassEndEffector([(body, 1.0)], (0, 0, 0))
    with pytest.raises(ValueError, match=r"CenterOfMassEndEffector\.params_for targets: .* "
                                         r"found norm 0\.5"):
        com.params_for(bad[None])
    ori = joints.OrientationEndEffector(body, target=ms.Orientation.identity())
    with pytest.raises(ValueError, match=r"OrientationEndEffector target: .* found norm 2"):
        ori.target = [2.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"targets, item 0: .* found norm 2;"):
        ori.params_for(np.array([[2.0, 0.0, 0.0, 0.0]]))
    ori.target = [0.0, 0.0, 0.0, 1.0 - 1e-7]
    np.testing.assert_allclose(ori.target.quaternion, [0, 0, 0, 1], atol=1e-15)
    # the solve then goes to the rotation the normalized quaternion describes
    mech.add(ori)
    mech.solve()
    np.testing.assert_allclose(body.rotation, np.diag([-1.0, -1.0, 1.0]), atol=1e-9)


def test_target_text_gives_the_angle_of_any_quaternion():
    """Messages compute the angle as 2 atan2(|v|, |w|), right for any norm (arccos of a
    clipped |w| said "turned 0 deg" for a quaternion with |w| > 1)."""
    from mechsolve.joints._end_effectors import _frame_text

    q = np.array([np.cos(np.pi / 6), 0.0, 0.0, np.sin(np.pi / 6)])     # 60 deg about z
    assert _frame_text(np.zeros(3), q).endswith("turned 60 deg")
    assert _frame_text(np.zeros(3), 2.0 * q).endswith("turned 60 deg")
    assert _frame_text(np.zeros(3), -0.5 * q).endswith("turned 60 deg")
    assert _frame_text(np.ones(3), [0.0, 1.0, 0.0, 0.0]).endswith("turned 180 deg")


@pytest.mark.parametrize("kind", ["x", "xy", "linear", "pointDistance", "axisRotate", "lookAt",
                                  "freeSpinInZ", "sliding", "slideXSpinZ", "pointRotate",
                                  "planar", "generalSpatial", "rcm", "directional",
                                  "accelerometer"])
def test_partial_goals_hold_after_a_solve(kind):
    """Each goal alone on a free-floating body (6 unknowns, no other constraint): with fewer
    equations than unknowns the solver takes minimum-norm steps, and the goal must hold
    exactly afterwards (``directional`` has all 6 rows and must reach the goal frame). For
    lookAt, directional and rcm the geometric meaning is checked as well."""
    mech, body = free_body()
    f = ms.Frame((0.05, 0.02, 0.1), ms.Orientation.from_rotvec([0.1, 0.0, 0.2]))
    g = ms.Frame((0.4, 0.1, 0.6), ms.Orientation.from_rotvec([0.3, -0.2, 0.5]))
    make = {
        "x": lambda: joints.XEndEffector(body, f, target=g.translation),
        "xy": lambda: joints.XYEndEffector(body, f, target=g.translation),
        "linear": lambda: joints.LinearConstraintEndEffector(body, f, 0.9),
        "pointDistance": lambda: joints.PointDistanceEndEffector(body, f, 0.2,
                                                                 center=(0.4, 0.3, 0.6)),
        "axisRotate": lambda: joints.AxisRotateEndEffector(body, f, 1.0),
        "lookAt": lambda: joints.LookAtEndEffector(body, f, target=(1.0, 2.0, 3.0)),
        "freeSpinInZ": lambda: joints.FreeSpinInZEndEffector(body, f, target=g),
        "sliding": lambda: joints.SlidingEndEffector(body, f, target=g),
        "slideXSpinZ": lambda: joints.SlideXSpinZEndEffector(body, f, target=g),
        "pointRotate": lambda: joints.PointRotateEndEffector(body, f, target=g),
        "planar": lambda: joints.PlanarEndEffector(body, f, target=g),
        "generalSpatial": lambda: joints.GeneralSpatialEndEffector(body, f, g,
                                                                   axes=("y", "rx", "rz")),
        "rcm": lambda: joints.RcmEndEffector(body, f, target=(0.5, 0.5, 0.5)),
        "directional": lambda: joints.DirectionalFrameEndEffector(body, f, target=g),
        "accelerometer": lambda: joints.AccelerometerEndEffector(body, f,
                                                                 target=g.orientation),
    }
    ee = mech.add(make[kind]())
    result = mech.solve()
    assert result.success
    assert np.max(np.abs(ee.residual())) < 1e-9
    if kind == "lookAt":   # really looking at the target, not away from it
        e = body.frame * f
        u = np.array([1.0, 2.0, 3.0]) - e.translation
        assert e.orientation.as_matrix()[:, 2] @ u / np.linalg.norm(u) == pytest.approx(1.0)
    if kind == "directional":
        assert (body.frame * f).approx_eq(g, 1e-9)
    if kind == "rcm":
        e = body.frame * f
        d = np.array([0.5, 0.5, 0.5]) - e.translation
        z = e.orientation.as_matrix()[:, 2]
        np.testing.assert_allclose(np.cross(z, d), 0.0, atol=1e-9)


def two_link_arm():
    """Ground - shoulder (revolute link about z) - upper (revolute about y) - lower (about y)."""
    mech = ms.Mechanism(dim=3)
    upper = mech.add_body("upper", position=(0.0, 0.0, 0.5))
    lower = mech.add_body("lower", position=(0.0, 0.0, 1.5))
    j1 = mech.add(joints.RevoluteLink(mech.ground, upper, (0, 0, 0.5), axis=(0, 1, 0), s0=0.1,
                                      name="shoulder"))
    j2 = mech.add(joints.RevoluteLink(upper, lower, (0, 0, 1.0), axis=(0, 1, 0), s0=0.2,
                                      name="elbow"))
    return mech, upper, lower, j1, j2


def test_point_goal_on_a_two_link_arm_and_batch_targets():
    mech, upper, lower, j1, j2 = two_link_arm()
    ee = mech.add(joints.XYEndEffector(lower, (0, 0, 1.0), target=(0.0, 0.0, 0.0),
                                       name="hand"))
    ee2 = mech.add(joints.LinearConstraintEndEffector(lower, (0, 0, 1.0), 1.5))
    ee.target = (1.2, 0.0, 0.0)
    mech.solve()
    tip = lower.to_global((0, 0, 1.0))
    np.testing.assert_allclose(tip[[0, 2]], [1.2, 1.5], atol=1e-9)
    # many targets at once through the batch axis
    xs = np.linspace(0.8, 1.3, 5)
    out = mech.solve_batch(params={ee: ee.params_for([(x, 0, 0) for x in xs])})
    assert out.success.all()
    for q, x in zip(out.states, xs):
        mech.state = q
        np.testing.assert_allclose(lower.to_global((0, 0, 1.0))[[0, 2]], [x, 1.5], atol=1e-9)
    del ee2


def test_center_of_mass_goals():
    mech, upper, lower, j1, j2 = two_link_arm()
    masses = [(upper, ms.MassProperties.from_point_mass(2.0, (0, 0, 0.5))),
              (lower, ms.MassProperties.from_point_mass(1.0, (0, 0, 0.5)))]
    com = mech.add(joints.ProjectedCenterOfMassEndEffector(masses, (0.6, 0.0, 0.0)))
    drive = mech.add(joints.CoordinateDriver(j2, 0.8))
    mech.solve()
    c = com.center_of_mass()
    expected = (2 * upper.to_global((0, 0, 0.5)) + lower.to_global((0, 0, 0.5))) / 3
    np.testing.assert_allclose(c, expected, atol=1e-12)
    assert c[0] == pytest.approx(0.6, abs=1e-9)
    mech.remove(com)
    mech.remove(drive)
    full = mech.add(joints.CenterOfMassEndEffector(masses, c + [0.0, 0.0, 0.0]))
    j1.value, j2.value = 0.0, 0.1
    mech.solve()
    np.testing.assert_allclose(full.center_of_mass(), c, atol=1e-9)
    with pytest.raises(ValueError, match="has no mass properties"):
        joints.CenterOfMassEndEffector([upper], (0, 0, 0))


def test_coordinated_joint_and_gripper_goals():
    mech, upper, lower, j1, j2 = two_link_arm()
    cj = mech.add(joints.CoordinatedJointEndEffector([j1, j2], [0.3, -0.4], name="pose"))
    mech.solve()
    assert (j1.value, j2.value) == (pytest.approx(0.3), pytest.approx(-0.4))
    assert "on shoulder, elbow" in cj.describe()
    cj.target = [0.1, 0.2]
    mech.solve()
    assert j2.value == pytest.approx(0.2)
    mech.remove(cj)
    grip = mech.add(joints.OneDofGripperEndEffector(j1, [j2], 0.25, ratios=[-2.0],
                                                    offsets=[0.1]))
    mech.solve()
    assert j1.value == pytest.approx(0.25) and j2.value == pytest.approx(-0.4)
    assert grip.n_equations == 2


def test_sew_angle_measures_the_arm_plane():
    mech = ms.Mechanism(dim=3)
    s = mech.add_body("s", position=(0, 0, 0))
    e = mech.add_body("e", position=(0.5, 0.0, 0.5))
    w = mech.add_body("w", position=(0, 0, 1.0))
    sew = joints.SewAngleEndEffector(s, e, w, 0.0, reference=(1, 0, 0))
    assert sew.angle() == pytest.approx(0.0)
    e.position = (0.0, 0.5, 0.5)      # elbow turned 90 degrees about the shoulder-wrist line
    assert sew.angle() == pytest.approx(np.pi / 2)


def test_link_joints_follow_their_coordinate():
    mech = ms.Mechanism(dim=3)
    b1 = mech.add_body("b1", position=(0.1, 0.0, 0.0))
    b2 = mech.add_body("b2", position=(0.0, 0.3, 0.2))
    dh = mech.add(joints.DHLink(mech.ground, b1, d=0.2, a=0.5, alpha=np.pi / 2, s0=0.1))
    pr = mech.add(joints.PrismaticLink(b1, b2, axis=(1, 0, 0), s0=0.0))
    mech.add(joints.CoordinateDriver(dh, np.pi / 3))
    mech.add(joints.CoordinateDriver(pr, 0.25))
    mech.solve()
    c, s = np.cos(np.pi / 3), np.sin(np.pi / 3)
    np.testing.assert_allclose(b1.position, [0.5 * c, 0.5 * s, 0.2], atol=1e-10)
    np.testing.assert_allclose(b1.rotation[:, 2], [s, -c, 0.0], atol=1e-10)  # z1 = Rz Rx(90) z
    np.testing.assert_allclose(b2.position, b1.to_global((0.25, 0, 0)), atol=1e-10)
    assert dh.relative_transform().approx_eq(
        ms.Frame((0.5 * c, 0.5 * s, 0.2),
                 ms.Orientation.from_rotvec([0, 0, np.pi / 3]) *
                 ms.Orientation.from_rotvec([np.pi / 2, 0, 0])), 1e-12)


def test_circle_joint_velocity_and_acceleration_match_the_seed():
    mech = ms.Mechanism(dim=3)
    car = mech.add_body("car", position=(0.1, 2.0, 0.1))
    pre = ms.Frame((0.3, -0.2, 0.5), ms.Orientation.from_rotvec([np.pi / 2, 0, 0]))
    circle = mech.add(joints.CircleJoint(mech.ground, car, 2.0, precursor=pre, s0=0.1))
    # s(t) = 0.5 + 0.7 t + 0.6 t^2: speed and acceleration both non-zero
    prof = ms.profiles.Function(lambda t: 0.5 + 0.7 * t + 0.6 * t * t, lambda t: 0.7 + 1.2 * t,
                                lambda t: 1.2)
    mech.add(joints.CoordinateDriver(circle, prof))
    t = 0.8
    mech.solve(t=t)
    s, sd, sdd = 0.5 + 0.7 * t + 0.6 * t * t, 0.7 + 1.2 * t, 1.2
    assert circle.value == pytest.approx(s)
    R_A = pre.orientation.as_matrix()
    v_seed = circle.calculate_velocity(s, sd)
    a_seed = circle.calculate_acceleration(s, sd, sdd)
    np.testing.assert_allclose(mech.point_velocity(car, (0, 0, 0)), R_A @ v_seed.linear,
                               atol=1e-10)
    np.testing.assert_allclose(mech.velocity()[3:6], R_A @ v_seed.angular, atol=1e-10)
    np.testing.assert_allclose(mech.point_acceleration(car, (0, 0, 0)), R_A @ a_seed.linear,
                               atol=1e-10)
    np.testing.assert_allclose(mech.acceleration()[3:6], R_A @ a_seed.angular, atol=1e-10)
    # the generic rates of the link kinematics agree with the seed's closed form
    gv = circle.relative_velocity(sd)
    np.testing.assert_allclose(gv.linear, v_seed.linear, atol=1e-12)
    np.testing.assert_allclose(gv.angular, v_seed.angular, atol=1e-12)
    # the position is on the circle, x axis radial
    local = pre.inverse_transform_point(car.position)
    assert np.hypot(local[0], local[1]) == pytest.approx(2.0) and local[2] == pytest.approx(0)
    np.testing.assert_allclose(pre.orientation.as_matrix().T @ car.rotation[:, 0],
                               local / 2.0, atol=1e-9)


def test_user_link_joint_with_transform_only_gets_numeric_rates():
    class Helix(joints.LinkJoint):
        """Screw: rotation s about z and translation 0.1 s along z (pitch 0.1 per radian)."""

        @classmethod
        def _transform_only(cls, L, s):
            q = np.stack([np.cos(s / 2), 0 * s, 0 * s, np.sin(s / 2)], axis=-1)
            t = np.stack([0 * s, 0 * s, 0.1 * s], axis=-1)
            return t, q

    mech = ms.Mechanism(dim=3)
    nut = mech.add_body("nut", position=(0, 0, 0.05))
    screw = mech.add(Helix(mech.ground, nut, s0=0.2))
    mech.add(joints.CoordinateDriver(screw, 2.0))
    mech.solve()
    assert nut.position[2] == pytest.approx(0.2)
    np.testing.assert_allclose(screw.relative_velocity(1.0).angular, [0, 0, 1], atol=1e-8)


def test_validation_messages():
    mech, body = free_body()
    with pytest.raises(ValueError, match="must be a moving body, got ground"):
        joints.PointEndEffector(mech.ground, target=(0, 0, 0))
    with pytest.raises(ValueError, match="mask must have 6 entries"):
        joints.GeneralSpatialEndEffector(body, None, None, mask=[1, 0])
    with pytest.raises(ValueError, match="activates no axis"):
        joints.GeneralSpatialEndEffector(body, None, None, mask=[0] * 6)
    with pytest.raises(TypeError, match="coordinates of their own"):
        joints.CoordinatedJointEndEffector([joints.Spherical(mech.ground, body)], [0.0])
    planar = ms.Mechanism()
    b = planar.add_body("b")
    with pytest.raises(TypeError, match="spatial"):
        joints.PointEndEffector(b, target=(0, 0, 0))


def test_bad_arguments_are_value_errors_naming_the_end_effector():
    mech, body = free_body()
    other = mech.add_body("other", position=(1.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"CenterOfMassEndEffector: masses must have one entry "
                                         r"per body \(2 bodies.*got 1"):
        joints.CenterOfMassEndEffector([body, other], masses=[1.0])
    with pytest.raises(ValueError, match=r"CenterOfMassEndEffector: body 'tool' has mass "
                                         r"properties both in its pair and in masses="):
        joints.CenterOfMassEndEffector([(body, 1.0), other], masses=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"CenterOfMassEndEffector mass of body 'other' must "
                                         r"be positive"):
        joints.CenterOfMassEndEffector([body, other], masses=[1.0, -2.0])
    with pytest.raises(ValueError, match=r"PointDistanceEndEffector target is a distance and "
                                         r"must be non-negative, got -1"):
        joints.PointDistanceEndEffector(body, target=-1)
    dist = joints.PointDistanceEndEffector(body, target=0.5)
    with pytest.raises(ValueError, match="must be non-negative, got -0.2"):
        dist.target = -0.2
    with pytest.raises(ValueError, match="must be non-negative, got -0.1"):
        dist.params_for([0.3, -0.1])
    assert dist.target == 0.5
    with pytest.raises(ValueError, match=r"PointEndEffector target must have shape \(3,\)"):
        joints.PointEndEffector(body, target=(1.0, 2.0))
    with pytest.raises(ValueError, match=r"FrameEndEffector frame must have shape \(3,\)"):
        joints.FrameEndEffector(body, (1.0, 2.0), target=ms.Frame())
    with pytest.raises(ValueError, match=r"XEndEffector reference must have shape \(3,\)"):
        joints.XEndEffector(body, target=(0, 0, 0), reference=(1.0,))
    with pytest.raises(ValueError, match=r"PointDistanceEndEffector center must have shape"):
        joints.PointDistanceEndEffector(body, target=1.0, center=(0, 0))
    with pytest.raises(TypeError, match=r"AxisRotateEndEffector target must be a real number"):
        joints.AxisRotateEndEffector(body, target="up")
    with pytest.raises(ValueError, match=r"OrientationEndEffector target must have shape "
                                         r"\(4,\)"):
        joints.OrientationEndEffector(body, target=(1.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"GeneralSpatialEndEffector target must have shape"):
        joints.GeneralSpatialEndEffector(body, None, (0.0, 1.0), axes=("x",))
    with pytest.raises(ValueError, match=r"SewAngleEndEffector: points must be three points"):
        joints.SewAngleEndEffector(mech.ground, body, other, points=[(0, 0, 0)])
    with pytest.raises(ValueError, match=r"SewAngleEndEffector elbow point must have shape"):
        joints.SewAngleEndEffector(mech.ground, body, other, points=[(0, 0, 0), (1, 2),
                                                                     (0, 0, 0)])
    with pytest.raises(ValueError, match=r"SewAngleEndEffector reference must be a non-zero"):
        joints.SewAngleEndEffector(mech.ground, body, other, reference=(0, 0, 0))
    with pytest.raises(ValueError, match=r"CenterOfMassEndEffector target must have shape"):
        joints.CenterOfMassEndEffector([(body, 1.0)], (0.0, 0.0))


def test_sew_angle_residual_is_the_angle_still_to_go():
    """Phi is psi - target reduced to (-pi, pi]: slope 1 everywhere, no jump where psi itself
    wraps (psi near +-pi with a target near pi), and the only jump at the antipode."""
    mech = ms.Mechanism(dim=3)
    s = mech.add_body("s", position=(0, 0, 0))
    e = mech.add_body("e", position=(0.5, 0.0, 0.5))
    w = mech.add_body("w", position=(0, 0, 1.0))
    sew = joints.SewAngleEndEffector(s, e, w, 0.0, reference=(1, 0, 0))
    for target in (3.1, -3.1, 0.7, np.pi):
        sew.target = target
        for psi in np.linspace(-np.pi + 1e-3, np.pi, 25):
            e.position = (0.5 * np.cos(psi), 0.5 * np.sin(psi), 0.5)
            expected = np.remainder(psi - target + np.pi, 2 * np.pi) - np.pi
            if abs(abs(expected) - np.pi) < 1e-9:
                continue
            assert sew.residual()[0] == pytest.approx(expected, abs=1e-12)
    # across psi's own branch cut (psi from just below pi to just above -pi) with a target
    # near pi the residual is continuous
    sew.target = 3.1
    vals = []
    for psi in (np.pi - 0.01, np.pi + 0.01):
        e.position = (0.5 * np.cos(psi), 0.5 * np.sin(psi), 0.5)
        vals.append(sew.residual()[0])
    assert vals[1] - vals[0] == pytest.approx(0.02, abs=1e-9)


def test_sew_angle_drives_the_elbow_across_pi():
    """The arm angle driven from near -pi to a target near pi: the Newton step goes the
    short way across psi's branch cut."""
    mech = ms.Mechanism(dim=3)
    s = mech.add_body("s", position=(0, 0, 0))
    e = mech.add_body("e", position=(0.5 * np.cos(-3.0), 0.5 * np.sin(-3.0), 0.5))
    w = mech.add_body("w", position=(0, 0, 1.0))
    mech.add(joints.FrameEndEffector(s, target=ms.Frame()))       # shoulder and its r0 fixed
    mech.add(joints.PointEndEffector(w, target=(0, 0, 1.0)))
    # the elbow on the circle of radius 0.5 at height 0.5 about the shoulder-wrist line
    mech.add(joints.LinearConstraintEndEffector(e, target=0.5))
    mech.add(joints.PointDistanceEndEffector(e, target=0.5, center=(0, 0, 0.5)))
    sew = mech.add(joints.SewAngleEndEffector(s, e, w, 3.0, reference=(1, 0, 0)))
    mech.solve()
    assert sew.angle() == pytest.approx(3.0, abs=1e-9)
    np.testing.assert_allclose(e.position, [0.5 * np.cos(3.0), 0.5 * np.sin(3.0), 0.5],
                               atol=1e-9)


def test_accelerometer_is_a_full_orientation_goal_as_the_actin_table_says():
    """The Actin guide's table gives accelerometerEndEffector the placement element
    orientation and 3 degrees of constraint; the two-row direction goal is
    GeneralSpatialEndEffector with axes rx, ry (spin about the target z free)."""
    assert joints.AccelerometerEndEffector.n_equations == 3
    mech, body = free_body()
    goal = ms.Orientation.from_rotvec([0.3, -0.2, 0.5])
    acc = mech.add(joints.AccelerometerEndEffector(body, target=goal))
    mech.add(joints.PointEndEffector(body, target=(0, 0, 0)))
    mech.solve()
    np.testing.assert_allclose(body.rotation, goal.as_matrix(), atol=1e-9)
    mech.remove(acc)
    down = mech.add(joints.GeneralSpatialEndEffector(body, None, ms.Frame((0, 0, 0), goal),
                                                     axes=("rx", "ry")))
    assert down.n_equations == 2
    for spin in (0.0, 1.0, 3.0):       # a start turned about the target z: still a solution
        body.orientation = goal * ms.Orientation.from_rotvec([0.0, 0.0, spin])
        assert np.max(np.abs(down.residual())) < 1e-12
    body.orientation = ms.Orientation.from_rotvec([1.0, 0.5, -0.4])
    mech.solve()
    np.testing.assert_allclose(body.rotation[:, 2], goal.as_matrix()[:, 2], atol=1e-9)


def test_submodules_are_attributes_of_the_package():
    """``import mechsolve`` alone gives ms.profiles, ms.symbolic and the other submodules
    (a fresh interpreter: inside the test session another test may have imported them)."""
    import subprocess
    import sys

    code = ("import sys, mechsolve as ms\n"
            "assert 'sympy' not in sys.modules, 'import mechsolve must stay light'\n"
            "for name in ('profiles', 'models', 'models_spatial', 'robots', 'plot', 'joints',\n"
            "             'symbolic'):\n"
            "    assert getattr(ms, name).__name__ == 'mechsolve.' + name, name\n"
            "assert callable(ms.profiles.ConstantSpeed) and 'profiles' in dir(ms)\n"
            "try:\n"
            "    ms.no_such_thing\n"
            "except AttributeError as exc:\n"
            "    assert 'no_such_thing' in str(exc)\n"
            "else:\n"
            "    raise AssertionError('no AttributeError')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
