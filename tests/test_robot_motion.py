"""Arms in motion (issue 30, item 6): manipulability against closed forms, joint-space
trajectories against their polynomials, and the arm drawn and animated where its forward
kinematics puts it."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image
from scipy.integrate import trapezoid  # np.trapezoid is NumPy 2 only

import mechsolve as ms


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- manipulability ----------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
def test_planar_2r_manipulability_is_l1_l2_sin_q2(scale):
    """Yoshikawa's w of a planar 2R arm in its plane: det [[-l1 s1 - l2 s12, -l2 s12],
    [l1 c1 + l2 c12, l2 c12]] = l1 l2 sin q2. In micrometres, metres and kilometres, the
    base far from the origin and turned: w / (l1 l2) does not change."""
    l1, l2 = 0.7 * scale, 0.45 * scale
    base = ms.Frame(np.array([3e4, -2e4, 1e4]) * scale, ms.Orientation.from_angle_axis(
        0.4, (0.0, 0.0, 1.0)))
    arm = ms.robots.dh_arm([(0.0, l1, 0.0), (0.0, l2, 0.0)], base=base)
    rng = np.random.default_rng(0)
    q = rng.uniform(-np.pi, np.pi, size=(200, 2))
    w = arm.manipulability(q, axes=[0, 1])
    # x and y of the base frame: the base turns about z, so the rows x, y of the world give
    # the same w (a rotation of the plane does not change a determinant's magnitude)
    exact = l1 * l2 * np.abs(np.sin(q[:, 1]))
    assert w.shape == (200,)
    assert np.abs(w - exact).max() <= 1e-12 * l1 * l2
    assert np.abs(w / exact - 1).max() < 1e-12
    # stretched out or folded: singular
    assert arm.manipulability([0.3, 0.0], axes=[0, 1]) < 1e-15 * l1 * l2
    assert arm.manipulability([0.3, np.pi], axes=[0, 1]) < 1e-15 * l1 * l2


def test_ur5_manipulability_against_its_closed_form():
    """For the UR5's DH table det J = a2 a3 s3 s5 (a2 c2 + a3 c23 + d5 s234) (the wrist
    centre's distance from the base axis times the elbow's and the wrist's singular factors),
    so w = |det J| over the six rows."""
    arm = ms.robots.ur5()
    (_, _, _), (_, a2, _), (_, a3, _), _, (d5, _, _), _ = ms.robots.UR5_DH
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, size=(300, 6))
    q2, q3, q4, q5 = q[:, 1], q[:, 2], q[:, 3], q[:, 4]
    exact = np.abs(a2 * a3 * np.sin(q3) * np.sin(q5)
                   * (a2 * np.cos(q2) + a3 * np.cos(q2 + q3) + d5 * np.sin(q2 + q3 + q4)))
    w = arm.manipulability(q)
    regular = exact > 1e-3 * exact.max()    # near a singularity the relative error grows
    assert regular.sum() > 250
    assert np.abs(w[regular] / exact[regular] - 1).max() < 1e-12
    assert np.abs(w - exact).max() < 1e-14
    # the wrist singularity (q5 = 0) and the elbow's (q3 = 0) give 0
    assert arm.manipulability([0.1, -1.0, 1.2, 0.3, 0.0, 0.2]) < 1e-15
    assert arm.manipulability([0.1, -1.0, 0.0, 0.3, 1.0, 0.2]) < 1e-15
    assert isinstance(arm.manipulability(q[0]), float)
    # translation rows alone: w_t = sqrt(det(Jv Jv^T)) of the 3 x 6 block
    Jv = arm.jacobian(q[0])[:3]
    assert arm.manipulability(q[0], "translation") == pytest.approx(
        np.sqrt(np.linalg.det(Jv @ Jv.T)), rel=1e-12)


def test_manipulability_refuses_more_rows_than_joints():
    arm = ms.robots.dh_arm([(0.0, 1.0, 0.0), (0.0, 0.5, 0.0)])
    with pytest.raises(ValueError, match=r"6 task rows for 2 joints.*axes=\[0, 1\]"):
        arm.manipulability([0.1, 0.2])
    with pytest.raises(ValueError, match="axes must be 'all', 'translation', 'rotation'"):
        arm.manipulability([0.1, 0.2], axes="planar")
    with pytest.raises(ValueError, match=r"rows must be distinct and within 0..5"):
        arm.manipulability([0.1, 0.2], axes=[0, 7])
    with pytest.raises(ValueError, match=r"q: joint values must have shape \(\.\.\., 2\)"):
        arm.manipulability([0.1, 0.2, 0.3], axes=[0, 1])


# -- trajectories ------------------------------------------------------------------------------
def test_quintic_is_the_polynomial_with_rest_at_both_ends():
    rng = np.random.default_rng(2)
    q0, q1 = rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6)
    t = np.linspace(1.5, 4.0, 101)                 # need not start at 0
    traj = ms.robots.quintic(q0, q1, t)
    T, s = 2.5, (t - 1.5) / 2.5
    d = q1 - q0
    exact = q0 + np.outer(10 * s**3 - 15 * s**4 + 6 * s**5, d)
    np.testing.assert_allclose(traj.q, exact, rtol=0, atol=1e-14)
    np.testing.assert_allclose(traj.qd, np.outer(30 * s**2 * (1 - s) ** 2, d) / T, atol=1e-14)
    np.testing.assert_allclose(traj.qdd, np.outer(60 * s * (1 - s) * (1 - 2 * s), d) / T**2,
                               atol=1e-13)
    assert np.array_equal(traj.q[0], q0) and np.allclose(traj.q[-1], q1, rtol=0, atol=1e-15)
    for end in (0, -1):
        assert np.all(traj.qd[end] == 0) and np.all(traj.qdd[end] == 0)
    np.testing.assert_allclose(traj.qd[50], 15 / 8 * d / T, atol=1e-14)   # the peak, mid-way
    # the derivatives are the derivatives: central differences of q and qd
    h = t[1] - t[0]
    np.testing.assert_allclose((traj.q[2:] - traj.q[:-2]) / (2 * h), traj.qd[1:-1],
                               atol=2e-3 * np.abs(d).max())
    np.testing.assert_allclose((traj.qd[2:] - traj.qd[:-2]) / (2 * h), traj.qdd[1:-1],
                               atol=5e-3 * np.abs(d).max())
    assert len(traj) == 101


def test_trapezoidal_accelerates_cruises_and_brakes_in_step():
    q0 = np.array([0.0, 1.0, -0.5, 2.0])
    q1 = np.array([3.0, -1.0, -0.5, 2.5])          # joint 2 stays put
    t = np.linspace(0.0, 3.0, 301)
    traj = ms.robots.trapezoidal(q0, q1, t, speed=[1.5, 1.0, 1.0, 1.0 / 3.0])
    T = 3.0
    for i, (a, b, V) in enumerate(zip(q0, q1, [1.5, 1.0, 0.0, 1.0 / 3.0])):
        D = abs(b - a)
        if D == 0:
            assert np.all(traj.q[:, i] == a) and np.all(traj.qd[:, i] == 0)
            continue
        ta = T - D / V
        sign = np.sign(b - a)
        # closed form of the profile, phase by phase
        x = np.where(t < ta, 0.5 * V / ta * t**2,
                     np.where(t >= T - ta, D - 0.5 * V / ta * (T - t) ** 2, V * (t - ta / 2)))
        np.testing.assert_allclose(traj.q[:, i], a + sign * x, atol=1e-14)
        assert np.abs(traj.qd[:, i]).max() == pytest.approx(V, rel=1e-14)
        assert traj.q[-1, i] == b and traj.qd[-1, i] == 0 and traj.qd[0, i] == 0
        # the velocity integrates to the travel (trapezoid rule: exact on the linear pieces
        # except across the two switches)
        area = trapezoid(traj.qd[:, i], t)
        assert area == pytest.approx(b - a, abs=1e-4 * D)
    # joint 3 at speed 2 D / T: a triangle, braking from the middle on
    assert traj.qd[150, 3] == pytest.approx(1.0 / 3.0, rel=1e-12)
    assert np.all(traj.qdd[:150, 3] > 0) and np.all(traj.qdd[150:, 3] < 0)


def test_trapezoidal_default_speed_and_bad_speeds():
    traj = ms.robots.trapezoidal([0.0], [3.0], np.linspace(0.0, 3.0, 7))
    np.testing.assert_allclose(traj.qd[:, 0], [0.0, 0.75, 1.5, 1.5, 1.5, 0.75, 0.0])
    tri = ms.robots.trapezoidal([0.0], [2.0], np.linspace(0.0, 2.0, 5), speed=2.0)
    np.testing.assert_allclose(tri.qd[:, 0], [0.0, 1.0, 2.0, 1.0, 0.0])   # a triangle
    np.testing.assert_allclose(tri.q[:, 0], [0.0, 0.25, 1.0, 1.75, 2.0])
    with pytest.raises(ValueError, match=r"speed\[0\] = 1 cannot move joint 0 by 3 in 3: .*"
                                         r"above the mean speed 1 and at most twice it, 2"):
        ms.robots.trapezoidal([0.0], [3.0], [0.0, 3.0], speed=1.0)
    with pytest.raises(ValueError, match=r"speed\[1\] = 5"):
        ms.robots.trapezoidal([0.0, 0.0], [3.0, 1.0], [0.0, 3.0], speed=[1.5, 5.0])
    with pytest.raises(ValueError, match="t must be finite and increasing"):
        ms.robots.quintic([0.0], [1.0], [0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="q0 and q1 must have the same number of joints"):
        ms.robots.quintic([0.0], [1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="t must be at least two times"):
        ms.robots.quintic([0.0], [1.0], [0.0])


# -- drawing and animation ---------------------------------------------------------------------
def test_arm_plot_draws_where_the_forward_kinematics_puts_it():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    ax = arm.plot(q)
    d = ax.arm_drawing
    pts = np.array(d.links.get_data_3d()).T
    np.testing.assert_allclose(pts[0], arm.base.translation)
    np.testing.assert_allclose(pts[1:-1], arm.link_frames(q)[:, :3, 3], atol=1e-15)
    np.testing.assert_allclose(pts[-1], arm.forward(q).translation, atol=1e-15)
    tool = arm.forward_matrix(q)
    z = np.array(d.triad[2].get_data_3d()).T
    np.testing.assert_allclose(z[1] - z[0], d.triad_length * tool[:3, 2], atol=1e-15)
    # a figure of its own each time; limits set by hand only grow
    assert arm.plot(q).figure is not ax.figure
    ax2 = plt.figure().add_subplot(projection="3d")
    ax2.set_xlim(-5.0, 5.0)
    arm.plot(q, ax2, title="ur5")
    assert ax2.get_xlim() == (-5.0, 5.0) and ax2.get_title() == "ur5"
    with pytest.raises(ValueError, match="ax must be a 3D Axes"):
        arm.plot(q, plt.figure().add_subplot())
    with pytest.raises(ValueError, match=r"one set of joint values.*arm.animate"):
        arm.plot(np.zeros((2, 6)))


def test_arm_animation_follows_a_trajectory(tmp_path):
    arm = ms.robots.ur5()
    q1 = np.array([0.8, -1.4, 1.2, -0.6, 1.1, 0.4])
    traj = ms.robots.trapezoidal(np.zeros(6), q1, np.linspace(0.0, 2.0, 9))
    anim = arm.animate(traj)
    assert anim.q.shape == (9, 6)
    anim._func(8)
    d = anim.drawing
    np.testing.assert_allclose(np.array(d.links.get_data_3d()).T[-1],
                               arm.forward(q1).translation, atol=1e-14)
    np.testing.assert_allclose(np.array(d.trace.get_data_3d()).T,
                               arm.forward_matrix(traj.q)[:, :3, 3], atol=1e-14)
    gif = tmp_path / "arm.gif"
    anim.save(gif, writer="pillow", dpi=30)
    with Image.open(gif) as im:
        assert im.n_frames == 9
    anim = arm.animate(traj.q[:3], trace=False)      # plain arrays work too
    assert anim.drawing.trace is None
    anim.save(tmp_path / "short.gif", writer="pillow", dpi=20)
    with pytest.raises(ValueError, match=r"trajectory: joint values must have shape"):
        arm.animate(np.zeros((4, 5)))
