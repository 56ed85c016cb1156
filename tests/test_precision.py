"""Poses exact to round-off: reference mechanisms against closed forms, with default settings.

A pose is checked from the bodies themselves (positions, angles, joint points), never from the
solver's residual. Positions are compared relative to the mechanism's longest link, angles in
radians. The tolerances (1e-13 for the planar closed forms, 1e-12 for the spatial ones) are a
few hundred ulps: what Newton's method gives when it is iterated to round-off rather than
stopped at an absolute residual.
"""

import numpy as np
import pytest
from closed_form import fourbar_state, planar_state_error, slider_crank_state, wrap

import mechsolve as ms
from mechsolve.models import spatial as sm

FOURBAR = {"a": 1.0, "b": 3.0, "c": 3.5, "d": 4.0}      # crank, coupler, rocker, ground
SLIDER = {"a": 1.0, "b": 3.0, "e": 0.5}                  # crank, rod, offset
TOL_PLANAR = 1e-13
TOL_SPATIAL = 1e-12


def rough(state, length, rng):
    """A rough sketch near ``state`` (planar): 5 % of ``length`` and 0.05 rad off."""
    noise = rng.uniform(-0.05, 0.05, state.shape)
    noise.reshape(-1, 3)[:, :2] *= length
    return state + noise


def check(states, exact, length, tol=TOL_PLANAR):
    pos, ang = planar_state_error(states, exact, length)
    assert pos <= tol and ang <= tol, f"position error / length {pos:.2g}, angle error {ang:.2g}"


# -- planar: four-bar and offset slider-crank ------------------------------------------------
@pytest.mark.parametrize("upper", [True, False])
def test_fourbar_solve_from_rough_start(upper):
    rng = np.random.default_rng(11)
    model = ms.models.fourbar(upper=upper)
    mech = model.mechanism
    t = rng.uniform(-np.pi, np.pi, 8)
    states = []
    for v in t:
        model.driver.value = v
        mech.state = rough(fourbar_state(v, upper=upper), 4.0, rng)
        mech.solve()
        states.append(mech.state)
    check(states, fourbar_state(t, upper=upper), 4.0)


@pytest.mark.parametrize("batch", [True, False])
@pytest.mark.parametrize("upper", [True, False])
def test_fourbar_sweep(upper, batch):
    model = ms.models.fourbar(upper=upper)
    motion = model.mechanism.sweep(model.driver, model.values, batch=batch)
    check(motion.states, fourbar_state(model.values, upper=upper), 4.0)


def test_slider_crank_solve_from_rough_start():
    rng = np.random.default_rng(12)
    model = ms.models.slider_crank(crank=1.0, rod=3.0, offset=0.5)
    mech = model.mechanism
    t = rng.uniform(-np.pi, np.pi, 8)
    states = []
    for v in t:
        model.driver.value = v
        mech.state = rough(slider_crank_state(v), 3.0, rng)
        mech.solve()
        states.append(mech.state)
    check(states, slider_crank_state(t), 3.0)


@pytest.mark.parametrize("batch", [True, False])
def test_slider_crank_sweep(batch):
    model = ms.models.slider_crank(crank=1.0, rod=3.0, offset=0.5)
    t = np.linspace(0.0, 4 * np.pi, 721)
    motion = model.mechanism.sweep(model.driver, t, batch=batch)
    check(motion.states, slider_crank_state(t), 3.0)


# -- spatial: spherical four-bar, RSSR, Stewart platform, Bricard ------------------------------
def joint_angles(motion, joint):
    out = []
    for i in range(len(motion)):
        motion.apply(i)
        out.append(joint.angle())
    return np.array(out)


def test_spherical_fourbar_sweep():
    model = sm.spherical_fourbar()
    mech = model.mechanism
    bodies = mech.bodies
    centres = [-b.position for b in bodies]   # the axes' common point, in body coordinates
    theta = np.linspace(0, 2 * np.pi, 181)
    motion = mech.sweep(model.driver, theta)
    phi, _ = sm.spherical_fourbar_output(theta)
    angle = np.max(np.abs(wrap(joint_angles(motion, mech.joint("output")) - phi)))
    # the axes meet at the origin at every pose (unit-sphere linkage: lengths are ~1)
    centre = max(float(np.max(np.abs(motion.point(b, c)))) for b, c in zip(bodies, centres))
    assert angle <= TOL_SPATIAL and centre <= TOL_SPATIAL, \
        f"output angle error {angle:.2g}, joint centre off the origin by {centre:.2g}"


def test_rssr_sweep():
    model = sm.rssr()
    mech = model.mechanism
    theta = np.linspace(0, 2 * np.pi, 181)
    motion = mech.sweep(model.driver, theta)
    measured = joint_angles(motion, model.output_joint) + model.phi0
    err = np.max(np.abs(wrap(measured - sm.rssr_output(theta))))
    assert err <= TOL_SPATIAL, f"rocker angle error {err:.2g}"


def rotation_angle(R):
    """Angle of the rotation ``R`` (accurate near 0, unlike arccos of the trace)."""
    s = 0.5 * np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    c = 0.5 * (np.trace(R) - 1.0)
    return float(np.arctan2(s, c))


def test_stewart_solve_from_perturbed_start():
    rng = np.random.default_rng(13)
    size = 2.0   # the base radius
    pos_err = ang_err = 0.0
    for _ in range(4):
        target = ms.Frame((0.0, 0.0, 2.0) + rng.uniform(-0.2, 0.2, 3),
                          ms.Orientation.from_euler321(*rng.uniform(-0.2, 0.2, 3)))
        model = sm.stewart(target)   # legs from the target pose: the closed form
        platform = model.mechanism.body("platform")
        platform.position = target.translation + rng.uniform(-0.05, 0.05, 3)
        platform.orientation = ms.Orientation.from_euler321(*rng.uniform(-0.05, 0.05, 3)) \
            * target.orientation
        model.mechanism.solve()
        pos_err = max(pos_err, float(np.max(np.abs(platform.position - target.translation))))
        R = target.orientation.as_matrix().T @ platform.orientation.as_matrix()
        ang_err = max(ang_err, rotation_angle(R))
    assert pos_err / size <= TOL_PLANAR and ang_err <= TOL_PLANAR, \
        f"position error / size {pos_err / size:.2g}, orientation error {ang_err:.2g} rad"


@pytest.fixture(scope="module")
def bricard_motion():
    model = sm.bricard()
    motion = model.mechanism.sweep(model.driver, model.values)
    return model, motion


def revolute_frames(joint):
    """Joint frames (rotation, origin) on body 1 and body 2, in body coordinates."""
    p = joint._p
    R1 = ms.Orientation(p[3:7]).as_matrix()
    R2 = ms.Orientation(p[10:14]).as_matrix()
    return (R1, p[0:3]), (R2, p[7:10])


def body_transform(motion, body, k):
    if body.is_ground:
        return np.eye(3), np.zeros(3)
    X = motion.pose(body)[k]
    return ms.Orientation(X[3:7]).as_matrix(), X[:3]


def bricard_joint_angles(model, motion, k):
    """Angle of each revolute (x2 about z1 from x1), read off the body poses of pose k."""
    out = []
    for i in range(1, 7):
        j = model.mechanism.joint(f"R{i}")
        (F1, _), (F2, _) = revolute_frames(j)
        R1 = body_transform(motion, j.bodies[0], k)[0] @ F1
        R2 = body_transform(motion, j.bodies[1], k)[0] @ F2
        Rr = R1.T @ R2
        out.append(np.arctan2(Rr[1, 0], Rr[0, 0]))
    return np.array(out)


def test_bricard_symmetry(bricard_motion):
    # The line-symmetric linkage keeps its symmetry: joint i and joint i + 3 turn alike.
    model, motion = bricard_motion
    A = np.array([bricard_joint_angles(model, motion, k) for k in range(len(motion))])
    driven = np.max(np.abs(wrap(A[:, 0] - model.values)))
    sym = np.max(np.abs(wrap(A[:, :3] - A[:, 3:])))
    assert driven <= TOL_SPATIAL and sym <= TOL_SPATIAL, \
        f"driven angle error {driven:.2g}, |theta_i - theta_(i+3)| up to {sym:.2g}"


def test_bricard_loop_closure(bricard_motion):
    # The 6R loop equation: the product of the link transforms and of the joint rotations by
    # the angles read off the poses, taken round the loop, is the identity.
    model, motion = bricard_motion
    size = 0.0   # the farthest joint centre from the origin
    for i in range(1, 7):
        j = model.mechanism.joint(f"R{i}")
        R, x = body_transform(motion, j.bodies[0], 0)
        size = max(size, float(np.linalg.norm(x + R @ revolute_frames(j)[0][1])))
    rot_err = pos_err = 0.0
    for k in range(len(motion)):
        theta = bricard_joint_angles(model, motion, k)
        R, p = np.eye(3), np.zeros(3)
        for i in range(1, 7):
            (F1, o1), (F2, o2) = revolute_frames(model.mechanism.joint(f"R{i}"))
            c, s = np.cos(theta[i - 1]), np.sin(theta[i - 1])
            Rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            # next body = this body * joint frame 1 * Rz(theta) * joint frame 2^-1
            Rj = F1 @ Rz @ F2.T
            p = p + R @ (o1 - Rj @ o2)
            R = R @ Rj
        rot_err = max(rot_err, float(np.max(np.abs(R - np.eye(3)))))
        pos_err = max(pos_err, float(np.max(np.abs(p))))
    assert rot_err <= TOL_SPATIAL and pos_err / size <= TOL_SPATIAL, \
        f"loop rotation error {rot_err:.2g}, loop translation error / size {pos_err / size:.2g}"
