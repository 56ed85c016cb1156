"""Serial arms: joint limits set after construction, ``limits=`` of the built-in arms, the
wrapping of IK answers, argument checks and the singular LM step of issue 26."""

import math

import numpy as np
import pytest
from _round_off import assert_same_to_round_off
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve.robots import SerialArm
from mechsolve.robots._serial import _wrap_into, _wrap_pi

# the UR5 target of issue 26: tool pointing down at (0.4, 0.2, 0.3)
ISSUE_TARGET = np.eye(4)
ISSUE_TARGET[:3, :3] = np.diag([1.0, -1.0, -1.0])
ISSUE_TARGET[:3, 3] = (0.4, 0.2, 0.3)


def ur5_base_angles(T):
    """The two base angles of the UR5 that put its tool on ``T`` (closed form: the wrist
    centre ``p5 = p - d6 z`` lies in the plane of the shoulder offset ``d4``)."""
    d4, d6 = ms.robots.UR5_DH[3][0], ms.robots.UR5_DH[5][0]
    p5 = T[:3, 3] - d6 * T[:3, 2]
    phi = math.atan2(p5[1], p5[0])
    psi = math.acos(d4 / math.hypot(p5[0], p5[1]))
    return phi + psi + math.pi / 2, phi - psi + math.pi / 2


def turns_apart(a, b):
    """Distance of the angles ``a`` and ``b`` on the circle."""
    return abs(math.remainder(a - b, 2 * math.pi))


def assert_on_target(arm, q, T, tol=1e-10):
    """The forward kinematics of ``q`` puts the tool on ``T`` within ``tol`` (position in the
    model's unit, every entry of the rotation matrix)."""
    M = arm.forward_matrix(q)
    assert np.max(np.abs(M[:3, 3] - T[:3, 3])) <= tol
    assert np.max(np.abs(M[:3, :3] - T[:3, :3])) <= tol


def assert_within(arm, q):
    for j, v in zip(arm.joints, q):
        if j.limits is not None:
            lo, hi = j.limits
            assert (lo is None or v >= lo) and (hi is None or v <= hi), (j.name, v, j.limits)


# -- limits set on an existing arm ----------------------------------------------------------------
def test_issue_ur5_elbow_limits_set_after_construction_are_kept():
    free = ms.robots.ur5().ik(ISSUE_TARGET, np.zeros(6))
    assert free.success and free.q[2] > 0.0          # the first answer bends the elbow up
    arm = ms.robots.ur5()
    arm.joints[2].limits = (ms.rad(-170), 0.0)
    r = arm.ik(ISSUE_TARGET, np.zeros(6))
    assert r.success
    assert ms.rad(-170) <= r.q[2] <= 0.0
    assert_on_target(arm, r.q, ISSUE_TARGET)
    # exactly what the same limits given at construction give
    built = ms.robots.ur5(limits=[None, None, (ms.rad(-170), 0.0), None, None, None])
    again = built.ik(ISSUE_TARGET, np.zeros(6))
    assert again.iterations == r.iterations
    assert_same_to_round_off(again.q, r.q)          # to round-off of the angles (issue 26)


def test_issue_ur5_base_locked_after_construction_fails_honestly():
    arm = ms.robots.ur5()
    arm.joints[0].limits = (ms.rad(90), ms.rad(90))
    reachable = ur5_base_angles(ISSUE_TARGET)        # 192.4 and 40.7 degrees: not 90
    assert min(turns_apart(a, ms.rad(90)) for a in reachable) > 0.8
    out = arm.ik(ISSUE_TARGET, np.zeros(6), raise_on_failure=False)
    assert not out.success
    assert out.q[0] == ms.rad(90)                    # the locked joint never moved
    assert out.position_error > 0.1
    with pytest.raises(ms.SolveError, match=r"reachable only outside the joint limits \(joint "
                                            r"'joint1' would be at (\S+), beyond its (lower|upper) "
                                            r"limit 1.5708 by") as info:
        arm.ik(ISSUE_TARGET, np.zeros(6))
    would_be = float(str(info.value).split("would be at ")[1].split(",")[0])
    assert min(turns_apart(would_be, a) for a in reachable) < 1e-5


def test_limits_edited_back_and_forth_take_effect_each_time():
    arm = ms.robots.ur5()
    first = arm.ik(ISSUE_TARGET, np.zeros(6))
    arm.joints[2].limits = (ms.rad(-170), 0.0)
    assert arm.ik(ISSUE_TARGET, np.zeros(6)).q[2] <= 0.0
    arm.joints[2].limits = None
    back = arm.ik(ISSUE_TARGET, np.zeros(6))
    assert_same_to_round_off(back.q, first.q)       # to round-off of the angles (issue 26)
    arm.joints[0].limits = (ms.rad(90), ms.rad(90))
    with pytest.raises(ms.SolveError, match="joint 'joint1'"):
        arm.ik(ISSUE_TARGET, np.zeros(6))
    assert arm.ik(ISSUE_TARGET, np.zeros(6), limits=False).success


def test_prismatic_limits_set_later_change_the_length_scale_as_at_construction():
    rows = [(0.0, 0.5, 0.0), (0.0, 0.0, -np.pi / 2), (0.1, 0.0, 0.0)]
    later = ms.robots.dh_arm(rows, prismatic=[False, True, False])
    built = ms.robots.dh_arm(rows, prismatic=[False, True, False],
                             limits=[None, (-0.25, 0.75), None])
    assert later.length_scale != built.length_scale
    later.joints[1].limits = (-0.25, 0.75)
    assert later.length_scale == built.length_scale
    q = np.array([0.4, 0.6, -0.3])
    T = built.forward_matrix(q)
    a, b = later.ik(T, np.zeros(3)), built.ik(T, np.zeros(3))
    assert_same_to_round_off(a.q, b.q)              # to round-off (issue 26)
    assert_on_target(built, a.q, T)
    assert_within(built, a.q)


def test_joint_attributes_are_checked_when_assigned():
    arm = ms.robots.ur5()
    with pytest.raises(ValueError, match=r"joint 'joint3': limits: lower must not exceed "
                                         r"upper, got \(1, -1\)"):
        arm.joints[2].limits = (1.0, -1.0)
    with pytest.raises(TypeError, match=r"joint 'joint3': limits must be \(lower, upper\)"):
        arm.joints[2].limits = 1.0
    with pytest.raises(ValueError, match="joint 'joint3': limits upper must be finite"):
        arm.joints[2].limits = (0.0, np.nan)
    with pytest.raises(ValueError, match="joint 'joint1': kind must be"):
        arm.joints[0].kind = "spherical"
    with pytest.raises(ValueError, match="joint 'joint1': axis must be a non-zero 3-vector"):
        arm.joints[0].axis = (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="read-only"):
        arm.joints[0].axis[0] = 1.0
    assert arm.joints[2].limits is None              # nothing was changed by the failures
    with pytest.raises(AttributeError):
        arm.joints = []


def test_geometry_assigned_later_is_used_too():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    flipped = ms.robots.ur5()
    flipped.joints[3].axis = (0.0, 0.0, -1.0)        # the wrist 1 turning the other way
    assert np.allclose(flipped.forward_matrix(q * [1, 1, 1, -1, 1, 1]), arm.forward_matrix(q),
                       rtol=0, atol=1e-14)
    lifted = ms.robots.ur5()
    lifted.base = ms.Frame((0.0, 0.0, 2.0))
    assert np.allclose(lifted.forward_matrix(q)[:3, 3] - arm.forward_matrix(q)[:3, 3],
                       [0.0, 0.0, 2.0], rtol=0, atol=1e-14)


# -- limits= of the built-in arms -----------------------------------------------------------------
def test_ur5_and_dh_arm_take_limits():
    lim = [(-2 * np.pi, 2 * np.pi)] * 5 + [None]
    arm = ms.robots.ur5(limits=lim)
    assert [j.limits for j in arm.joints] == lim
    arm = ms.robots.dh_arm(ms.robots.UR5_DH, limits=[(None, 1.0)] + [None] * 5)
    assert arm.joints[0].limits == (None, 1.0) and arm.joints[1].limits is None
    assert all(j.limits is None for j in ms.robots.ur5(limits=None).joints)


@pytest.mark.parametrize("limits, error, message", [
    ([None] * 5, ValueError, r"limits must have one entry per joint.*expected 6, got 5"),
    (1.0, TypeError, r"limits must be a sequence of 6 entries"),
    ("abc", TypeError, r"limits must be a sequence of 6 entries"),
    ([None, (1.0, -1.0)] + [None] * 4, ValueError,
     r"limits\[1\] \(joint 'joint2'\): lower must not exceed upper, got \(1, -1\)"),
    ([None, None, 0.5] + [None] * 3, TypeError,
     r"limits\[2\] \(joint 'joint3'\) must be \(lower, upper\) or None, got 0.5"),
    ([(0.0, 1.0, 2.0)] + [None] * 5, TypeError,
     r"limits\[0\] \(joint 'joint1'\) must be \(lower, upper\)"),
    ([None] * 5 + [(np.nan, 1.0)], ValueError,
     r"limits\[5\] \(joint 'joint6'\) lower must be finite"),
    ([None] * 5 + [("a", 1.0)], TypeError,
     r"limits\[5\] \(joint 'joint6'\) lower must be a real number"),
])
def test_limits_argument_is_checked_naming_the_joint(limits, error, message):
    with pytest.raises(error, match=message):
        ms.robots.ur5(limits=limits)
    with pytest.raises(error, match=message):
        ms.robots.dh_arm(ms.robots.UR5_DH, limits=limits)


# -- wrapping of the answers ----------------------------------------------------------------------
def test_issue_answers_come_back_wrapped_and_on_target():
    arm = ms.robots.ur5()
    r = arm.ik(ISSUE_TARGET, np.zeros(6))
    assert r.success
    assert np.all(r.q > -np.pi) and np.all(r.q <= np.pi)       # were 528.8 and -409.3 degrees
    assert_on_target(arm, r.q, ISSUE_TARGET)
    assert min(turns_apart(r.q[0], a) for a in ur5_base_angles(ISSUE_TARGET)) < 1e-12


def test_answers_of_arms_without_limits_are_in_minus_pi_to_pi():
    arm = ms.robots.ur5()
    rng = np.random.default_rng(26)
    Q = rng.uniform(-np.pi, np.pi, (40, 6))
    T = arm.forward_matrix(Q)
    starts = Q + 2 * np.pi * rng.integers(-3, 4, Q.shape) + rng.normal(0, 0.05, Q.shape)
    out = arm.ik(T, starts)
    assert out.success.all()
    assert np.all(out.q > -np.pi) and np.all(out.q <= np.pi)
    for q, M in zip(out.q, T):
        assert_on_target(arm, q, M)
    # one target at a time, from far away
    one = arm.ik(T[0], starts[0])
    assert one.success and np.all(np.abs(one.q) <= np.pi)
    assert_on_target(arm, one.q, T[0])


def test_answers_of_limited_joints_are_the_angle_within_the_limits():
    # joint 6 limited to [0, 2 pi): its answer is the representative there; a joint with
    # limits wider than a turn comes back at the angle nearest to the start
    wide = (-3 * np.pi, 3 * np.pi)
    arm = ms.robots.ur5(limits=[None, None, None, wide, None, (0.0, 2 * np.pi - 1e-9)])
    rng = np.random.default_rng(7)
    Q = rng.uniform(-np.pi, np.pi, (30, 6))
    T = arm.forward_matrix(Q)
    starts = Q + rng.normal(0, 0.05, Q.shape)
    starts[:, 3] += 2 * np.pi * rng.integers(-1, 2, len(Q))
    out = arm.ik(T, starts)
    assert out.success.all()
    assert np.all(out.q[:, 5] >= 0.0) and np.all(out.q[:, 5] <= 2 * np.pi)
    assert np.all(np.abs(out.q[:, 3] - starts[:, 3]) <= np.pi)
    assert np.all(np.abs(out.q[:, [0, 1, 2, 4]]) <= np.pi)
    for q, M in zip(out.q, T):
        assert_on_target(arm, q, M)


def test_prismatic_answers_are_not_wrapped():
    # a slider far along its axis: 7.5 is not an angle
    arm = ms.robots.dh_arm([(0.0, 0.0, 0.0), (0.0, 0.3, 0.0)], prismatic=[True, False])
    T = arm.forward_matrix([7.5, 0.4])
    r = arm.ik(T, [7.0, 0.0])
    assert r.success and abs(r.q[0] - 7.5) < 1e-12 and abs(r.q[1] - 0.4) < 1e-12


def test_start_outside_limits_moves_by_whole_turns_first():
    # the start 2 pi - 0.1 is the angle -0.1, within (-pi/2, pi/2): no clipping to pi/2
    arm = ms.robots.dh_arm([(0.0, 1.0, 0.0), (0.0, 1.0, 0.0)],
                           limits=[(-np.pi / 2, np.pi / 2), None])
    T = arm.forward_matrix([-0.1, 0.5])
    r = arm.ik(T, [2 * np.pi - 0.1, 0.5], restarts=0)
    assert r.success and r.iterations <= 1
    assert abs(r.q[0] + 0.1) < 1e-12


angles = st.floats(-50.0, 50.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(angles)
def test_wrap_pi_is_a_whole_number_of_turns_into_minus_pi_to_pi(q):
    w = float(_wrap_pi(np.array([q]))[0])
    assert -np.pi < w <= np.pi
    assert abs(math.remainder(w - q, 2 * np.pi)) <= 1e-13
    if -np.pi < q <= np.pi:
        assert w == q


@settings(max_examples=300, deadline=None)
@given(angles, angles, st.floats(-10.0, 10.0), st.floats(0.0, 15.0))
def test_wrap_into_limits_moves_by_turns_into_them(q, ref, lo, width):
    hi = lo + width
    lo_a, hi_a = np.array([lo]), np.array([hi])
    w = float(_wrap_into(np.array([[q]]), np.array([[ref]]), lo_a, hi_a)[0, 0])
    assert abs(math.remainder(w - q, 2 * np.pi)) <= 1e-12
    inside = [q + 2 * np.pi * k for k in range(-20, 21) if lo <= q + 2 * np.pi * k <= hi]
    if lo <= q <= hi:
        assert lo <= w <= hi
    if inside:
        assert lo - 1e-12 <= w <= hi + 1e-12
        if width >= 2 * np.pi:      # the one nearest to the start
            assert abs(w - ref) <= min(abs(v - ref) for v in inside) + 1e-12
        elif lo <= q <= hi:
            assert w == q
    else:                           # the one nearest to the range
        gap = max(lo - w, w - hi)
        assert gap <= min(max(lo - v, v - hi) for v in (w - 2 * np.pi, w + 2 * np.pi)) + 1e-12


def test_wrap_into_one_sided_limits():
    w = _wrap_into(np.array([[10.0, -10.0]]), np.array([[0.0, 0.0]]), np.array([0.0, -np.inf]),
                   np.array([np.inf, 0.0]))[0]
    assert abs(w[0] - (10.0 - 2 * np.pi)) < 1e-14 and abs(w[1] + 10.0 - 2 * np.pi) < 1e-14


# -- argument checks ------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_joint_values_are_value_errors_naming_the_argument(bad):
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, bad, -0.3, 1.5, 0.2])
    T = arm.forward_matrix(np.zeros(6))
    with pytest.raises(ValueError, match=r"q0 must contain only finite joint values, got "
                                         r".* at q0\[2\]"):
        arm.ik(T, q)
    with pytest.raises(ValueError, match=r"q0 must contain only finite.* at q0\[1, 2\]"):
        arm.ik(np.stack([T, T]), np.stack([np.zeros(6), q]))
    for f in (arm.forward, arm.forward_matrix, arm.jacobian, arm.link_frames, arm.mechanism):
        with pytest.raises(ValueError, match=r"q must contain only finite joint values.* "
                                             r"at q\[2\]"):
            f(q)


def test_joint_values_of_the_wrong_shape_are_named():
    arm = ms.robots.ur5()
    with pytest.raises(ValueError, match=r"q0: joint values must have shape \(\.\.\., 6\)"):
        arm.ik(arm.forward_matrix(np.zeros(6)), np.zeros(5))
    with pytest.raises(TypeError, match="q must be joint values"):
        arm.forward("abc")


def test_dh_arm_without_rows_and_mismatched_options():
    with pytest.raises(ValueError, match="an arm needs at least one joint"):
        ms.robots.dh_arm([])
    with pytest.raises(ValueError, match=r"prismatic must have one entry per DH row: expected "
                                         r"2, got 1"):
        ms.robots.dh_arm([(0, 1, 0), (0, 1, 0)], prismatic=[True])
    with pytest.raises(ValueError, match=r"theta must have one entry per DH row: expected 2, "
                                         r"got 3"):
        ms.robots.dh_arm([(0, 1, 0), (0, 1, 0)], theta=[0, 0, 0])
    with pytest.raises(TypeError, match=r"joints\[1\] must be an ArmJoint"):
        SerialArm([ms.robots.ArmJoint("a"), "b"])


# -- the singular Levenberg–Marquardt step (issue 26) ---------------------------------------------
# Seven joints, the second and third prismatic along parallel axes (alpha = 0 between them):
# two equal Jacobian columns, so that the damped normal matrix is singular in floats once the
# damping has shrunk below round-off of its diagonal.
PARALLEL_SLIDERS = [(-0.079, 0.347, -np.pi / 2), (0.234, -0.165, 0.0), (0.070, 0.436, -np.pi / 2),
                    (0.027, -0.278, 0.0), (0.121, 0.318, 0.0), (0.216, -0.323, 0.0),
                    (-0.012, -0.369, np.pi / 2)]
SLIDERS_TARGET = np.array([[0.0, 0.0, -1.0, -0.64], [1.0, 0.0, 0.0, 0.45],
                           [0.0, -1.0, 0.0, -0.46], [0.0, 0.0, 0.0, 1.0]])


def parallel_sliders_arm():
    arm = SerialArm.from_dh(PARALLEL_SLIDERS, prismatic=[False, True, True] + [False] * 4)
    for j in arm.joints:
        j.limits = (-1.0, 1.0) if j.kind == "revolute" else (-0.3, 0.3)
    return arm


def test_parallel_sliders_really_are_parallel():
    arm = parallel_sliders_arm()
    J = arm.jacobian(np.full(7, 0.3))
    assert np.array_equal(J[:, 1], J[:, 2])


def test_ik_with_parallel_sliders_reports_and_never_raises_linalg_error():
    arm = parallel_sliders_arm()
    out = arm.ik(SLIDERS_TARGET, np.zeros(7), raise_on_failure=False)
    assert_within(arm, out.q)
    if out.success:
        assert_on_target(arm, out.q, SLIDERS_TARGET)
    else:
        with pytest.raises(ms.SolveError, match="inverse kinematics of 'arm' failed"):
            arm.ik(SLIDERS_TARGET, np.zeros(7))
    free = arm.ik(SLIDERS_TARGET, np.zeros(7), raise_on_failure=False, limits=False)
    if free.success:
        assert_on_target(arm, free.q, SLIDERS_TARGET)


def random_arms_with_limits(count, seed=0):
    """``count`` seeded random DH arms of 1 to 7 joints, about a third prismatic, most joints
    with limits, and a target each that is reachable within them."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 8))
        rows = [(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-np.pi, np.pi))
                for _ in range(n)]
        pris = list(rng.random(n) < 0.3)
        limits = []
        for _ in range(n):
            if rng.random() < 0.7:
                a, b = rng.uniform(-3, 3, 2)
                limits.append((min(a, b), max(a, b)))
            else:
                limits.append(None)
        arm = ms.robots.dh_arm(rows, prismatic=pris, limits=limits)
        lo = np.array([-2.0 if lim is None else lim[0] for lim in limits])
        hi = np.array([2.0 if lim is None else lim[1] for lim in limits])
        yield arm, arm.forward_matrix(rng.uniform(lo, hi))


def test_ik_on_random_arms_with_limits_never_raises_linalg_error():
    reached = 0
    for arm, T in random_arms_with_limits(30):
        out = arm.ik(T, np.zeros(arm.n_joints), raise_on_failure=False, restarts=8)
        assert_within(arm, out.q)
        if out.success:
            reached += 1
            assert_on_target(arm, out.q, T, tol=1e-10 * arm.length_scale)
    assert reached >= 25
