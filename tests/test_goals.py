"""A failed solve with goals (end-effector targets, a serial chain's target) explains itself.

The joints hold at the pose closest to the goals, and the error names the goals with what they
still miss, not joints pulled apart by a least-squares compromise.
"""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints


def test_unreachable_arm_target_names_the_end_effector_and_its_true_miss():
    arm = ms.robots.ur5()
    q = np.array([0.4, -1.1, 1.3, -0.6, 1.2, 0.3])
    target = ms.Frame((2.0, 0.5, 0.3))
    model = arm.mechanism(q, target=target)
    mech = model.mechanism
    q0 = mech.state
    with pytest.raises(ms.SolveError, match="the goals cannot all be met") as info:
        mech.solve()
    text = str(info.value)
    assert "The joint with a residual:\n  FrameEndEffector 'tool' on joint6_link" in text
    result = info.value.result
    assert np.array_equal(mech.state, q0)            # the mechanism keeps its pose
    for joint, residual in result.joint_residuals.items():
        if joint is not model.end_effector:          # every link joint holds
            assert np.max(np.abs(residual)) < 1e-9, joint.describe()
    # the pose reported is a closest one: the goal's gradient has no component along the
    # motions the joints allow (stationary point of |W Phi_goal|^2 on the joints' manifold,
    # with every equation in its unit: the position rows in the model's size, so that the
    # closest pose is the same in any length unit)
    mech.state = result.state
    J = mech.jacobian(dense=True)
    system = mech.system()
    goal = np.zeros(system.m, dtype=bool)
    start = system.row_of(model.end_effector)
    goal[start:start + 6] = True
    _, s, Vt = np.linalg.svd(J[~goal])
    N = Vt[int(np.count_nonzero(s > 1e-9 * s[0])):].T
    w = 1.0 / system.eq_scale[goal]
    assert np.allclose(w, [1 / mech.length_scale] * 3 + [1.0] * 3)
    phi_goal = w * mech.residuals()[goal]
    Jg = w[:, None] * J[goal]
    gradient = N.T @ (Jg.T @ phi_goal)
    assert np.linalg.norm(gradient) < 1e-6 * np.linalg.norm(Jg) * np.linalg.norm(phi_goal)
    tip = model.tool_frame().translation
    assert np.linalg.norm(tip - target.translation) == pytest.approx(
        np.linalg.norm(result.joint_residuals[model.end_effector][:3]), rel=1e-9)
    assert np.linalg.norm(tip - target.translation) > 1.0   # 2.07 m away, reach about 1 m

def test_unreachable_point_goal_on_a_pinned_body():
    mech = ms.Mechanism(dim=3)
    body = mech.add_body("b", position=(0, 0, 1))
    pin = mech.add(joints.RevoluteLink(mech.ground, body, (0, 0, 1)))
    goal = mech.add(joints.PointEndEffector(body, (1, 0, 0), target=(0, 0, 5), name="pt"))
    with pytest.raises(ms.SolveError, match="the goals cannot all be met") as info:
        mech.solve()
    residuals = info.value.result.joint_residuals
    assert np.max(np.abs(residuals[pin])) < 1e-10
    # the body point (1, 0, 0) turns on a circle of radius 1 in z = 1: 4 below, 1 aside
    np.testing.assert_allclose(np.abs(residuals[goal]), [1.0, 0.0, 4.0], atol=1e-9)


def test_joints_that_cannot_hold_are_still_reported_as_joints():
    mech = ms.Mechanism(dim=3)
    body = mech.add_body("b", position=(0, 0, 1))
    mech.add(joints.Spherical(mech.ground, body, (0, 0, 0), (0, 0, -1)))
    mech.add(joints.Spherical(mech.ground, body, (0, 0, 5), (0, 0, 1)))   # 2 apart on the body
    mech.add(joints.PointEndEffector(body, (0, 0, 0), target=(0, 0, 1)))
    with pytest.raises(ms.SolveError, match="cannot be assembled even without the drivers"):
        mech.solve()


def test_reachable_target_from_a_hard_start_is_solved_not_called_unreachable():
    # Two of these starts (0.2 rad from a pose near a singularity) stall Newton's line search;
    # the goal-seeking fallback then reaches the target, and the solve must report success.
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    q_true = rng.uniform(-np.pi, np.pi, size=(100, 6))
    starts = q_true + rng.uniform(-0.2, 0.2, size=q_true.shape)
    mech, chain = arm.chain_mechanism()
    for i in (46, 90):
        target = arm.forward(q_true[i])
        chain.coordinates = starts[i]
        chain.target = target
        result = mech.solve()
        assert result.success and result.residual_abs <= 1e-10
        np.testing.assert_allclose(arm.forward_matrix(chain.coordinates),
                                   arm.forward_matrix(q_true[i]), atol=1e-9)
