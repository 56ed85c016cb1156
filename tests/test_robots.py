"""Serial arms: DH and URDF models, forward kinematics, IK through the ordinary solver."""

import pathlib

import numpy as np
import pytest
from _round_off import assert_same_to_round_off

import mechsolve as ms
from mechsolve import joints

DATA = pathlib.Path(__file__).parent / "data"
IIWA_DH = [(0.34, 0.0, -np.pi / 2), (0.0, 0.0, np.pi / 2), (0.4, 0.0, np.pi / 2),
           (0.0, 0.0, -np.pi / 2), (0.4, 0.0, -np.pi / 2), (0.0, 0.0, np.pi / 2),
           (0.126, 0.0, 0.0)]
Q_UR5 = np.array([0.4, -1.1, 1.3, -0.6, 1.2, 0.3])


def rz(angle):
    c, s = np.cos(angle), np.sin(angle)
    M = np.eye(4)
    M[:2, :2] = [[c, -s], [s, c]]
    return M


def dh_matrix(d, a, alpha, theta):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                     [0, sa, ca, d], [0, 0, 0, 1]])


def test_dh_forward_kinematics_matches_the_textbook_product():
    arm = ms.robots.ur5()
    rng = np.random.default_rng(1)
    Q = rng.uniform(-np.pi, np.pi, size=(5, 6))
    T = arm.forward_matrix(Q)
    for q, Tq in zip(Q, T):
        ref = np.eye(4)
        for (d, a, alpha), th in zip(ms.robots.UR5_DH, q):
            ref = ref @ dh_matrix(d, a, alpha, th)
        np.testing.assert_allclose(Tq, ref, atol=1e-12)
    F = arm.forward(Q)
    np.testing.assert_allclose(F.translation, T[:, :3, 3], atol=1e-12)


def test_urdf_ur5_matches_the_dh_model():
    """The URDF base_link is the DH base turned half a turn about z, and the URDF ee_link is
    a constant rotation of DH frame 6: T_urdf(q) = Rz(pi) T_dh(q) B for every q."""
    urdf = ms.robots.load_urdf(DATA / "ur5.urdf")
    dh = ms.robots.ur5()
    assert urdf.joint_names == ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                                "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    assert urdf.joints[2].limits == (-np.pi, np.pi) and urdf.joints[5].limits is None
    rng = np.random.default_rng(2)
    Q = rng.uniform(-np.pi, np.pi, size=(6, 6))
    Tu, Td = urdf.forward_matrix(Q), dh.forward_matrix(Q)
    B = np.linalg.inv(rz(np.pi) @ Td) @ Tu
    np.testing.assert_allclose(B, np.broadcast_to(B[0], B.shape), atol=1e-12)
    np.testing.assert_allclose(B[0][:3, 3], 0.0, atol=1e-12)   # same tool point
    # the same file read from text, and its chain to an inner link
    text = (DATA / "ur5.urdf").read_text()
    inner = ms.robots.SerialArm.from_urdf(text, tip="forearm_link")
    assert inner.n_joints == 3


def test_urdf_errors():
    bad = '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="floating">' \
          '<parent link="a"/><child link="b"/></joint></robot>'
    with pytest.raises(ValueError, match="only revolute, continuous, prismatic and fixed"):
        ms.robots.load_urdf(bad)
    branch = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
              '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/>'
              '<axis xyz="0 0 1"/></joint><joint name="j2" type="prismatic"><parent link="a"/>'
              '<child link="c"/><axis xyz="1 0 0"/></joint></robot>')
    with pytest.raises(ValueError, match="branches"):
        ms.robots.load_urdf(branch)
    arm = ms.robots.load_urdf(branch, tip="c")
    assert arm.joints[0].kind == "prismatic"
    np.testing.assert_allclose(arm.forward_matrix([0.3])[:3, 3], [0.3, 0, 0], atol=1e-15)


def urdf_one_joint(joint_body, joint_type="revolute"):
    return ('<robot name="r"><link name="a"/><link name="b"/>'
            f'<joint name="j1" type="{joint_type}">{joint_body}</joint></robot>')


@pytest.mark.parametrize("body, message", [
    ('<child link="b"/><axis xyz="0 0 1"/>',
     r"URDF: joint 'j1' has no <parent> element \(expected <parent link=\"...\"/>\)"),
    ('<parent link="a"/><axis xyz="0 0 1"/>', r"URDF: joint 'j1' has no <child> element"),
    ('<parent/><child link="b"/>', r"URDF: the <parent> element of joint 'j1' has no link "
                                   r"attribute"),
    ('<parent link="a"/><child link="c"/>', r"URDF: joint 'j1' names child link 'c', which is "
                                            r"not a <link> of the robot"),
    ('<parent link="a"/><child link="b"/><axis xyz="0 1"/>',
     r"URDF: axis xyz of joint 'j1' must be 3 finite numbers, got '0 1'"),
    ('<parent link="a"/><child link="b"/><axis xyz="0 0 0"/>',
     r"URDF: joint 'j1' has a zero axis '0 0 0'"),
    ('<parent link="a"/><child link="b"/><origin xyz="0 0 x"/>',
     r"URDF: origin xyz of joint 'j1' must be 3 finite numbers, got '0 0 x'"),
    ('<parent link="a"/><child link="b"/><limit lower="-1"/>',
     r"URDF: limit upper of joint 'j1' must be 1 finite number, got None"),
])
def test_urdf_malformed_elements_are_value_errors_naming_the_joint(body, message):
    with pytest.raises(ValueError, match=message):
        ms.robots.load_urdf(urdf_one_joint(body))


def test_urdf_unnamed_elements():
    with pytest.raises(ValueError, match=r"URDF: <joint> element 1 has no name attribute"):
        ms.robots.load_urdf('<robot name="r"><link name="a"/><link name="b"/>'
                            '<joint type="fixed"><parent link="a"/><child link="b"/></joint>'
                            '</robot>')
    with pytest.raises(ValueError, match=r"URDF: <link> element 2 has no name attribute"):
        ms.robots.load_urdf('<robot name="r"><link name="a"/><link/></robot>')


def test_geometric_jacobian_matches_finite_differences():
    arm = ms.robots.load_urdf(DATA / "ur5.urdf")
    q = Q_UR5
    J = arm.jacobian(q)
    h = 1e-6
    for i in range(6):
        dq = np.zeros(6)
        dq[i] = h
        Tp, Tm = arm.forward_matrix(q + dq), arm.forward_matrix(q - dq)
        np.testing.assert_allclose(J[:3, i], (Tp[:3, 3] - Tm[:3, 3]) / (2 * h), atol=1e-8)
        W = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h) @ arm.forward_matrix(q)[:3, :3].T
        np.testing.assert_allclose(J[3:, i], [W[2, 1], W[0, 2], W[1, 0]], atol=1e-8)


def random_targets(arm, n, seed):
    rng = np.random.default_rng(seed)
    Q = rng.uniform(-np.pi, np.pi, size=(n, arm.n_joints))
    start = Q + rng.uniform(-0.2, 0.2, size=Q.shape)
    return Q, arm.forward(Q), start


def test_six_joint_ik_three_ways_agree():
    arm = ms.robots.ur5()
    Q, targets, start = random_targets(arm, 8, 3)
    T7 = np.concatenate([targets.translation, targets.quaternion], axis=1)
    # 1. arm.ik (Newton on the core, all targets at once)
    res = arm.ik(targets, start)
    assert res.success.all()
    np.testing.assert_allclose(arm.forward_matrix(res.q), arm.forward_matrix(Q), atol=1e-9)
    # 2. the compact serial-chain joint through solve_batch
    mech, chain = arm.chain_mechanism()
    out = mech.solve_batch(start, params={chain: chain.params_for(T7)})
    assert out.success.all()
    # near a singular pose (elbow almost straight) plain Newton may land on the neighbouring
    # branch: compare the tool frames, and the joint values where the branches agree
    np.testing.assert_allclose(arm.forward_matrix(out.states), arm.forward_matrix(Q), atol=1e-9)
    same = np.all(np.abs(out.states - res.q) < 1e-6, axis=1)
    assert same.sum() >= 6
    np.testing.assert_allclose(out.states[same], res.q[same], atol=1e-8)
    # ... and one at a time through mech.solve()
    chain.coordinates = start[0]
    chain.target = ms.Frame(targets.translation[0], ms.Orientation(targets.quaternion[0]))
    mech.solve()
    np.testing.assert_allclose(arm.forward_matrix(chain.coordinates), arm.forward_matrix(Q[0]),
                               atol=1e-9)
    # 3. the multibody model with a frame end effector
    for k in range(3):
        model = arm.mechanism(start[k], target=ms.Frame(targets.translation[k],
                                                        ms.Orientation(targets.quaternion[k])))
        assert model.mechanism.n_dof_coordinates == 42
        model.mechanism.solve()
        np.testing.assert_allclose(arm.forward_matrix(model.q), arm.forward_matrix(Q[k]),
                                   atol=1e-9)
        assert model.tool_frame().approx_eq(model.end_effector.target, 1e-9)


def test_ik_target_changes_between_solves_like_a_driver():
    arm = ms.robots.ur5()
    model = arm.mechanism(Q_UR5, target=arm.forward(Q_UR5))
    sys = model.mechanism.system()
    for dx in (0.02, 0.04, 0.06):
        goal = arm.forward(Q_UR5) * ms.Frame((dx, 0.0, 0.0))
        model.end_effector.target = goal
        model.mechanism.solve()
        assert model.tool_frame().approx_eq(goal, 1e-9)
    assert model.mechanism.system() is sys


def test_redundant_seven_joint_arm_with_sew_angle():
    arm = ms.robots.dh_arm(IIWA_DH, name="iiwa")
    q_true = np.array([0.3, 0.8, 0.2, -1.2, 0.4, 0.9, -0.5])
    goal = arm.forward(q_true)
    start = q_true + np.random.default_rng(4).uniform(-0.1, 0.1, 7)
    model = arm.mechanism(start, target=goal)
    mech = model.mechanism
    links = model.links
    # shoulder fixed on the base, elbow and wrist at the origins of links 4 and 6
    sew = mech.add(joints.SewAngleEndEffector(mech.ground, links[3], links[5], 0.0,
                                              points=[(0, 0, 0.34), (0, 0, 0), (0, 0, 0)],
                                              name="elbow"))
    model_true = arm.mechanism(q_true)
    psi = joints.SewAngleEndEffector(model_true.mechanism.ground, model_true.links[3],
                                     model_true.links[5], 0.0,
                                     points=[(0, 0, 0.34), (0, 0, 0), (0, 0, 0)]).angle()
    sew.target = psi
    assert mech.n_dof_coordinates == 49 and len(mech.residuals()) == 49
    mech.solve()
    np.testing.assert_allclose(model.q, q_true, atol=1e-8)
    # the elbow swings by 0.4 rad while the tool stays on its target
    elbow_before = links[3].position
    sew.target = psi + 0.4
    mech.solve()
    assert sew.angle() == pytest.approx(psi + 0.4, abs=1e-9)
    assert model.tool_frame().approx_eq(goal, 1e-9)
    assert np.linalg.norm(links[3].position - elbow_before) > 0.05
    np.testing.assert_allclose(arm.forward_matrix(model.q), _mat(model.tool_frame()),
                               atol=1e-9)
    # without the arm angle the dedicated solver takes minimum-norm steps and still converges
    res = arm.ik(goal, start)
    assert res.success and res.position_error < 1e-9


def _mat(frame):
    M = np.eye(4)
    M[:3, :3] = frame.orientation.as_matrix()
    M[:3, 3] = frame.translation
    return M


def test_surgical_tool_with_remote_centre_of_motion():
    arm = ms.robots.ur5()
    q_true = Q_UR5
    flange = arm.forward(q_true)
    axis = flange.orientation.as_matrix()[:, 2]
    trocar = flange.translation + 0.12 * axis
    tip = flange.translation + 0.25 * axis + np.array([0.0, 0.0, 0.0])
    start = q_true + np.random.default_rng(5).uniform(-0.05, 0.05, 6)
    model = arm.mechanism(start)
    mech = model.mechanism
    rcm = mech.add(joints.RcmEndEffector(model.links[-1], model.tool, target=trocar,
                                         name="trocar"))
    point = mech.add(joints.PointEndEffector(model.links[-1], model.tool * ms.Frame((0, 0,
                                                                                       0.25)),
                                             target=tip, name="tip"))
    spin = mech.add(joints.CoordinatedJointEndEffector([model.joints[5]], [q_true[5]]))
    mech.solve()
    tool = model.tool_frame()
    z = tool.orientation.as_matrix()[:, 2]
    np.testing.assert_allclose(np.cross(z, trocar - tool.translation), 0.0, atol=1e-9)
    np.testing.assert_allclose(tool.translation + 0.25 * z, tip, atol=1e-9)
    # move the tip: the tool pivots about the trocar
    point.target = tip + [0.02, -0.01, 0.015]
    mech.solve()
    tool = model.tool_frame()
    z = tool.orientation.as_matrix()[:, 2]
    np.testing.assert_allclose(np.cross(z, trocar - tool.translation), 0.0, atol=1e-9)
    assert np.max(np.abs(rcm.residual())) < 1e-9 and spin.residual()[0] == pytest.approx(0)


def test_camera_looks_at_a_point():
    mech = ms.Mechanism(dim=3)
    pan = mech.add_body("pan", position=(0, 0, 1.0))
    cam = mech.add_body("camera", position=(0, 0, 1.1),
                        orientation=ms.Orientation.from_rotvec([0, np.pi / 2, 0]))
    mech.add(joints.RevoluteLink(mech.ground, pan, (0, 0, 1.0), name="pan"))
    tilt = mech.add(joints.RevoluteLink(pan, cam, (0, 0, 0.1), axis=(0, 1, 0), s0=np.pi / 2,
                                        name="tilt"))
    look = mech.add(joints.LookAtEndEffector(cam, target=(2.0, 1.0, 0.5), name="view"))
    for target in ((2.0, 1.0, 0.5), (-1.0, 2.0, 2.0), (0.5, -3.0, 0.0)):
        look.target = target
        mech.solve()
        u = np.asarray(target) - cam.position
        assert cam.rotation[:, 2] @ u / np.linalg.norm(u) == pytest.approx(1.0, abs=1e-12)
    assert tilt.value != pytest.approx(np.pi / 2)


def test_unreachable_targets_fail_clearly_and_never_succeed_falsely():
    arm = ms.robots.ur5()
    far = ms.Frame((2.0, 0.5, 0.3))
    model = arm.mechanism(Q_UR5, target=far)
    with pytest.raises(ms.SolveError, match=r"FrameEndEffector 'tool' on joint6_link "
                                            r"\(target \(2, 0.5, 0.3\)\)") as info:
        model.mechanism.solve()
    assert not info.value.result.success
    with pytest.raises(ms.SolveError, match=r"misses its target by 1\.\d+ m"):
        arm.ik(far, Q_UR5)
    res = arm.ik(far, Q_UR5, raise_on_failure=False)
    assert not res.success and res.position_error > 1.0
    mech, chain = arm.chain_mechanism(Q_UR5, target=far)
    with pytest.raises(ms.SolveError, match="SerialChain 'ur5' on ground"):
        mech.solve()
    # a batch with one unreachable item names it
    Q, targets, start = random_targets(arm, 4, 6)
    T7 = np.concatenate([targets.translation, targets.quaternion], axis=1)
    T7[2, :3] = [0.0, 0.0, 2.5]
    with pytest.raises(ms.SolveError, match=r"1 of 4 batch items did not converge \(items "
                                            r"\[2\]\)"):
        mech.solve_batch(start, params={chain: chain.params_for(T7)})
    with pytest.raises(ms.SolveError, match=r"failed for 1 of 4 targets \(items \[2\]\)"):
        arm.ik(T7, start)


def test_hand_given_quaternions_must_be_unit():
    """A (..., 7) target whose quaternion is scaled by 0.5 used to give success=True with the
    tool 0.68 off the target: it is a ValueError naming the argument and the norm found."""
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    goal = arm.forward(q)
    T7 = np.concatenate([goal.translation, goal.quaternion])
    bad = T7.copy()
    bad[3:] *= 0.5
    message = (r"targets: the quaternion \(w, x, y, z\) must have norm 1 within 1e-06, found "
               r"norm 0\.5")
    with pytest.raises(ValueError, match=message):
        arm.ik(bad, q + 0.05)
    with pytest.raises(ValueError, match=message + r" \(item 1\)"):
        arm.ik(np.array([T7, bad]), np.array([q, q]) + 0.05)
    mech, chain = arm.chain_mechanism()
    with pytest.raises(ValueError, match=r"SerialChain\.params_for targets: .*found norm 0\.5"):
        chain.params_for(bad[None])
    model = arm.mechanism(q, target=goal)
    with pytest.raises(ValueError, match=r"FrameEndEffector\.params_for targets: .*norm 0\.5"):
        model.end_effector.params_for(bad[None])
    # within 1e-6 of unit norm: normalized, and the solves reach the (normalized) target
    near = T7.copy()
    near[3:] *= 1.0 + 8e-7
    res = arm.ik(near, q + 0.05)
    assert res.success
    np.testing.assert_allclose(arm.forward_matrix(res.q), arm.forward_matrix(q), atol=1e-9)
    out = mech.solve_batch(q[None] + 0.05, params={chain: chain.params_for(near[None])})
    assert out.success.all()
    np.testing.assert_allclose(arm.forward_matrix(out.states[0]), arm.forward_matrix(q),
                               atol=1e-9)


def test_matrix_targets_must_be_rigid_transforms():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    M = arm.forward_matrix(q)
    sheared = M.copy()
    sheared[:3, :3] *= 1.1
    with pytest.raises(ValueError, match=r"targets: a 4x4 target must be a rigid transform "
                                         r".*, found \|R\^T R - I\| = 0\.21"):
        arm.ik(sheared, q)
    mirrored = M.copy()
    mirrored[:3, 0] *= -1.0
    with pytest.raises(ValueError, match=r"determinant \+1.*\(item 1\), found determinant -1"):
        arm.ik(np.stack([M, mirrored]), np.stack([q, q]))
    lifted = M.copy()
    lifted[3, 2] = 0.5
    with pytest.raises(ValueError, match=r"found last row \[0\.0, 0\.0, 0\.5, 1\.0\]"):
        arm.ik(lifted, q)
    assert arm.ik(M, q + 0.05).success


# -- inverse kinematics on the Newton core: Newton, Levenberg–Marquardt, seeded restarts --------
PUMA560_DH = [(0.0, 0.0, np.pi / 2), (0.0, 0.4318, 0.0), (0.15005, 0.0203, -np.pi / 2),
              (0.4318, 0.0, np.pi / 2), (0.0, 0.0, -np.pi / 2), (0.0, 0.0, 0.0)]


def puma560():
    return ms.robots.dh_arm(PUMA560_DH, name="puma560")


def goal_errors(arm, q, T):
    """Length of the position error and angle of the rotation between the tool frames at
    ``q`` (forward kinematics) and the 4x4 targets ``T``, computed independently of ``ik``."""
    M = arm.forward_matrix(q)
    pos = np.linalg.norm(M[..., :3, 3] - T[..., :3, 3], axis=-1)
    R = np.swapaxes(T[..., :3, :3], -1, -2) @ M[..., :3, :3]
    axis = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                     R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    cos = 0.5 * (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0)
    return pos, np.arctan2(0.5 * np.linalg.norm(axis, axis=-1), cos)


def ik_case(arm, start, n=100, seed=11):
    """Reachable targets (forward kinematics of random joint vectors) and starts: all-zero,
    unrelated random vectors, or within 0.2 rad of the true joint vector."""
    rng = np.random.default_rng(seed)
    Q = rng.uniform(-np.pi, np.pi, size=(n, arm.n_joints))
    starts = {"zero": np.zeros_like(Q), "random": rng.uniform(-np.pi, np.pi, size=Q.shape),
              "near": Q + rng.uniform(-0.2, 0.2, size=Q.shape)}
    return Q, arm.forward_matrix(Q), starts[start]


@pytest.mark.parametrize("make_arm", [ms.robots.ur5, puma560], ids=["ur5", "puma560"])
@pytest.mark.parametrize("start", ["zero", "random", "near"])
def test_ik_reaches_every_reachable_target_batch_and_one_at_a_time(make_arm, start):
    arm = make_arm()
    Q, T, Q0 = ik_case(arm, start)
    batch = arm.ik(T, Q0, raise_on_failure=False)
    ones = [arm.ik(T[i], Q0[i], raise_on_failure=False) for i in range(len(T))]
    for how, q, success, pos_reported, ang_reported in (
            ("batch", batch.q, batch.success, batch.position_error, batch.orientation_error),
            ("one at a time", np.array([r.q for r in ones]), np.array([r.success for r in ones]),
             np.array([r.position_error for r in ones]),
             np.array([r.orientation_error for r in ones]))):
        pos, ang = goal_errors(arm, q, T)
        met = (pos <= 1e-10) & (ang <= 1e-10)
        assert met.all(), (f"{arm.name} from {start} starts, {how}: {int(met.sum())}/100 "
                           f"met; worst {pos.max():.3g} m, {ang.max():.3g} rad")
        assert success.all()
        np.testing.assert_allclose(pos_reported, pos, atol=1e-13)
        np.testing.assert_allclose(ang_reported, ang, atol=1e-13)


def test_ik_puma_regression_tool_was_left_seven_centimetres_off():
    """Newton with a line search stopped 0.07 m off this target (a start 0.2 rad away, next to
    a singular pose); Levenberg–Marquardt from the start reaches it."""
    arm = puma560()
    q_true = [2.7422, .6406, 1.5417, .4104, -.5085, -2.736]
    T = arm.forward_matrix(q_true)
    q0 = [2.8761, .4881, 1.7079, .2583, -.4177, -2.7769]
    res = arm.ik(T, q0, raise_on_failure=False)
    assert res.success
    pos, ang = goal_errors(arm, res.q, T)
    assert pos <= 1e-10 and ang <= 1e-10
    # the restarts are seeded: the same call gives the same joint values, and so does a batch
    again = arm.ik(T, q0)
    assert_same_to_round_off(again.q, res.q, np.max(np.abs(res.q)))     # (issue 26)
    both = arm.ik(np.stack([T, T]), np.stack([q0, q0]))
    assert both.success.all()
    np.testing.assert_allclose(both.q, [res.q, res.q], atol=1e-12)


def test_ik_success_is_the_goals_own_measure_and_never_claimed_on_a_miss():
    """Success means |p_tool - p_target| <= tol * L and a rotation angle <= tol from the forward
    kinematics of the returned q: a residual met row by row is not enough (the error could
    be sqrt(3) * tol long)."""
    arm = ms.robots.ur5()
    assert arm.length_scale == pytest.approx(0.089159 + 0.425 + 0.39225 + 0.10915 + 0.09465
                                             + 0.0823)
    res = arm.ik(arm.forward(Q_UR5), Q_UR5 + 0.1)
    assert isinstance(res, ms.newton.Result) and isinstance(res, ms.robots.IKResult)
    assert res.success and res.residual == max(res.position_error / arm.length_scale,
                                               res.orientation_error)
    assert repr(res).startswith("IKResult(1 targets, 1 reached, largest residual")
    # within the arm's stretched-out reach but out of its workspace (straight up, past the
    # shoulder): every restart is tried, and the closest pose is returned as a failure
    up = ms.Frame((0.0, 0.0, 1.1))
    with pytest.raises(ms.SolveError, match=r"misses its target by 0\.\d+ m"):
        arm.ik(up, np.zeros(6))
    res = arm.ik(up, np.zeros(6), raise_on_failure=False)
    T_up = np.eye(4)
    T_up[:3, 3] = up.translation
    pos, ang = goal_errors(arm, res.q, T_up)
    assert not res.success and res.position_error == pytest.approx(pos, abs=1e-12) \
        and pos > 0.1
    # a loose tolerance: success is claimed exactly where the errors are within it
    Q, T, Q0 = ik_case(arm, "zero", n=20, seed=13)
    for tol in (1e-3, 1e-10):
        out = arm.ik(T, Q0, tol=tol, max_iterations=3, restarts=0, raise_on_failure=False)
        pos, ang = goal_errors(arm, out.q, T)
        np.testing.assert_array_equal(out.success,
                                      (pos <= tol * arm.length_scale) & (ang <= tol))


def test_ik_orientation_rows_are_regular_at_a_half_turn():
    """The orientation rows are the rotation vector (as the end effectors'): from a start
    whose tool is a half turn about its z axis from the target, Levenberg–Marquardt steps
    straight back; on the ``2 v`` rows (the quaternion's vector part, which SerialArm.ik used
    before) the gradient vanishes there and it stalls."""
    from mechsolve.newton import STATIONARY, levenberg_marquardt
    from mechsolve.robots._ik import _IKProblem

    arm = ms.robots.ur5()
    T = arm.forward_matrix(Q_UR5)
    start = Q_UR5 + [0.0, 0.0, 0.0, 0.0, 0.0, np.pi]
    base = arm._fast.start(arm._targets(T)[None])
    for log in (True, False):
        prob = _IKProblem(arm._fast, base, arm._col_scale, arm.length_scale, log=log)
        lm = levenberg_marquardt(prob, start[None], tol=1e-10)
        if log:
            assert lm.success[0]
        else:
            assert lm.status[0] == STATIONARY and lm.iterations[0] == 0
    res = arm.ik(T, start)
    np.testing.assert_allclose(arm.forward_matrix(res.q), T, atol=1e-12)


def test_ik_arms_with_a_prismatic_joint_and_with_seven_joints():
    stanford = ms.robots.dh_arm([(0.412, 0, -np.pi / 2), (0.154, 0, np.pi / 2), (0.0, 0, 0),
                                 (0, 0, -np.pi / 2), (0, 0, np.pi / 2), (0.263, 0, 0)],
                                prismatic=[0, 0, 1, 0, 0, 0], name="stanford")
    iiwa = ms.robots.dh_arm(IIWA_DH, name="iiwa")
    for arm in (stanford, iiwa):
        Q, T, Q0 = ik_case(arm, "zero", n=30, seed=14)
        if arm is stanford:
            Q[:, 2] = np.random.default_rng(15).uniform(0.2, 0.8, len(Q))
            T = arm.forward_matrix(Q)
        res = arm.ik(T, Q0)
        pos, ang = goal_errors(arm, res.q, T)
        assert res.success.all() and pos.max() <= 1e-10 and ang.max() <= 1e-10


def test_one_matrix_target_matches_the_stacked_conversion():
    """A single 4x4 target is checked and converted in floats; it must give the quaternion of
    the stacked path (scipy's projection and Shepperd's method) to round-off, at half turns
    about every axis, the identity, random poses and rotations orthonormal only to 1e-8."""
    from mechsolve.spatial._quat import quat_from_matrix

    arm = ms.robots.ur5()
    rng = np.random.default_rng(41)
    M = list(arm.forward_matrix(rng.uniform(-np.pi, np.pi, size=(300, 6))))
    for R in (np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]),
              np.diag([-1.0, -1.0, 1.0]), np.eye(3)):
        m = np.eye(4)
        m[:3, :3] = R
        m[:3, 3] = rng.normal(size=3)
        M.append(m)
    nearly = M[0].copy()
    nearly[:3, :3] += 1e-8 * rng.normal(size=(3, 3))
    M.append(nearly)
    M = np.array(M)
    one = np.array([arm._targets(m) for m in M])
    R = M[:, :3, :3]
    U, _, Vt = np.linalg.svd(R)
    projected = np.where(np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max(axis=(1, 2))[:, None,
                                                                                      None]
                         > 1e-12, U @ Vt, R)
    expected = np.concatenate([M[:, :3, 3], quat_from_matrix(projected)], axis=1)
    np.testing.assert_allclose(one, expected, rtol=0, atol=4e-16)
    assert np.all(one[:, 3] >= 0.0)
    with pytest.raises(ValueError, match="must contain only finite numbers"):
        arm._targets(np.full((4, 4), np.inf))
    flipped = np.diag([1.0, 1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="determinant"):
        arm._targets(flipped)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
def test_ik_is_exact_in_any_length_unit(scale):
    # the PUMA 560 of the issue in micrometres ... kilometres: targets from its forward
    # kinematics (the closed form), reached from the zero start one at a time (Newton, then
    # Levenberg-Marquardt and restarts) and from near starts in a batch; the tool lands on
    # every target to round-off of the arm's size, and the rotation to round-off
    table = [(0, 0, np.pi / 2), (0, .4318, 0), (.15005, .0203, -np.pi / 2), (.4318, 0, np.pi / 2),
             (0, 0, -np.pi / 2), (0, 0, 0)]
    arm = ms.robots.dh_arm([(d * scale, a * scale, alpha) for d, a, alpha in table])
    rng = np.random.default_rng(4)
    q = rng.uniform(-np.pi, np.pi, size=(6, 6))
    targets = arm.forward_matrix(q)

    def check(qs):
        M = arm.forward_matrix(qs)
        pos = np.linalg.norm(M[..., :3, 3] - targets[..., :3, 3], axis=-1)
        assert np.all(pos <= 1e-12 * scale), pos / scale
        np.testing.assert_allclose(M[..., :3, :3], targets[..., :3, :3], rtol=0, atol=1e-12)

    check(np.array([arm.ik(targets[k], np.zeros(6)).q for k in range(len(q))]))
    check(arm.ik(targets, q + rng.uniform(-0.2, 0.2, size=q.shape)).q)


def test_shepperd_quaternions_match_scipy_at_half_turns_and_everywhere():
    # the IK rows' quaternion of an error frame near a half turn: Shepperd's method in NumPy
    # (quat_from_rotation) agrees with scipy's from_matrix (and its sign convention) to
    # round-off, including rotations exactly a half turn about an axis, where the sign is
    # decided by x, y, z; quat_from_rotation takes it near half turns, the trace formula
    # elsewhere (a few ulps of w >= 0.2 divided into each component)
    from mechsolve.spatial._quat import (
        _shepperd,
        quat_from_matrix,
        quat_from_rotation,
        quat_to_matrix,
    )

    rng = np.random.default_rng(20)
    q = rng.standard_normal((600, 4))
    q[:200, 0] = rng.uniform(-1e-3, 1e-3, 200)      # near half turns
    q[200:220, 0] = 0.0                             # half turns
    q[220:226] = np.vstack([np.eye(4)[1:], -np.eye(4)[1:]])
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    R = quat_to_matrix(q)
    wv = _shepperd(R)
    np.testing.assert_allclose(wv, quat_from_matrix(R), rtol=0, atol=1e-15)
    np.testing.assert_allclose(quat_to_matrix(wv), R, rtol=0, atol=1e-15)
    mixed = quat_from_rotation(R)
    near = 0.5 * np.sqrt(np.maximum(1.0 + np.trace(R, axis1=1, axis2=2), 0.0)) < 0.2
    assert near[:226].all() and not near.all()
    np.testing.assert_array_equal(mixed[near], wv[near])
    np.testing.assert_allclose(mixed, quat_from_matrix(R), rtol=0, atol=1e-14)
