"""Spatial mechanisms against closed forms: spherical four-bar, RSSR, Stewart, Bricard."""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.models import spatial as sm


def wrap(a):
    return np.remainder(np.asarray(a) + np.pi, 2 * np.pi) - np.pi


def joint_angles(motion, joint):
    out = []
    for i in range(len(motion)):
        motion.apply(i)
        out.append(joint.angle())
    return np.array(out)


def test_spherical_fourbar_matches_closed_form():
    model = sm.spherical_fourbar()
    mech = model.mechanism
    report = mech.dof()
    assert (report.gruebler, report.dof, len(report.redundant)) == (-2, 1, 3)
    theta = np.linspace(0, 2 * np.pi, 181)
    # The residual tolerance bounds Phi; the output angle error is Phi times the (moderate)
    # sensitivity, so a 1e-10 comparison of angles asks for a slightly tighter tolerance.
    motion = mech.sweep(model.driver, theta, tol=1e-12)
    phi, _ = sm.spherical_fourbar_output(theta)
    measured = joint_angles(motion, mech.joint("output"))
    assert np.max(np.abs(wrap(measured - phi))) < 1e-10
    # the joint centre stays at the origin: every axis passes through it at every pose
    centre = motion.point(mech.body("coupler"), -motion.pose(mech.body("coupler"))[0, :3])
    assert np.max(np.abs(centre)) < 1e-9


def test_rssr_matches_closed_form():
    model = sm.rssr()
    mech = model.mechanism
    theta = np.linspace(0, 2 * np.pi, 181)
    motion = mech.sweep(model.driver, theta, tol=1e-12)
    phi = sm.rssr_output(theta)
    measured = joint_angles(motion, model.output_joint)
    assert np.max(np.abs(wrap(measured + model.phi0 - phi))) < 1e-10


def test_slider_crank_3d_matches_closed_form():
    model = sm.slider_crank_3d(crank=1.0, rod=3.0, offset=(0.5, 0.8))
    mech = model.mechanism
    theta = np.linspace(0, 2 * np.pi, 121)
    motion = mech.sweep(model.driver, theta)
    x = np.cos(theta) + np.sqrt(9.0 - (0.5 - np.sin(theta)) ** 2 - 0.8**2)
    np.testing.assert_allclose(motion.pose(mech.body("slider"))[:, 0], x, atol=1e-10)


def test_stewart_round_trip_legs_pose_legs():
    target = ms.Frame((0.1, -0.2, 2.1), ms.Orientation.from_euler321(0.2, -0.1, 0.15))
    legs = sm.stewart_legs(target)
    model = sm.stewart()  # assembled at the home pose
    mech = model.mechanism
    for driver, length in zip(model.legs, legs):
        driver.value = length
    result = mech.solve()
    assert result.success and result.rank_status == "regular"
    platform = mech.body("platform")
    assert platform.frame.approx_eq(target, 1e-10)
    np.testing.assert_allclose(sm.stewart_legs(platform.frame), legs, atol=1e-10)
    np.testing.assert_allclose([d.measure() for d in model.legs], legs, atol=1e-10)


def test_bricard_one_dof_and_sweeps():
    model = sm.bricard()
    mech = model.mechanism
    report = mech.dof()
    assert report.gruebler == 0 and report.dof == 1
    assert len(report.redundant) == 1
    assert "R6" in str(report)
    motion = mech.sweep(model.driver, model.values)
    assert np.all(motion.residuals <= 1e-10)
    assert len(motion) == len(model.values)
    R = motion.pose(mech.body("link1"))
    assert np.ptp(R[:, 0]) > 1e-3  # it really moves
    # The line-symmetric linkage keeps its symmetry as it moves: joint i and joint i + 3 turn
    # by the same angle (measured from the two joint frames of each revolute).
    revolutes = [mech.joint(f"R{i}") for i in range(1, 7)]

    def joint_angles(k):
        motion.apply(k)
        out = []
        for j in revolutes:
            b1, b2 = j.bodies
            R1 = b1.orientation.as_matrix() @ ms.Orientation(j._p[3:7]).as_matrix()
            R2 = b2.orientation.as_matrix() @ ms.Orientation(j._p[10:14]).as_matrix()
            Rr = R1.T @ R2
            out.append(np.arctan2(Rr[1, 0], Rr[0, 0]))
        return np.array(out)

    A = np.array([joint_angles(k) for k in range(len(motion))])
    np.testing.assert_allclose(A[:, 0], model.values, atol=1e-10)
    np.testing.assert_allclose(A[:, :3], A[:, 3:], atol=1e-9)


def test_all_revolute_spatial_fourbar_redundant_solves():
    # A planar four-bar built from spatial revolutes (parallel axes): redundant in space.
    mech = ms.Mechanism(dim=3)
    g = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0, 0))
    coupler = mech.add_body("coupler", position=(1.5, 1.4, 0))
    rocker = mech.add_body("rocker", position=(3.0, 1.4, 0))
    B = np.array([1.0 + 3 * np.cos(1.2455), 3 * np.sin(1.2455), 0])
    inp = mech.add(joints.Revolute(g, crank, (0, 0, 0), (-0.5, 0, 0), axis=(0, 0, 1)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0, 0), np.array([1.0, 0, 0]) -
                             coupler.position, axis=(0, 0, 1)))
    mech.add(joints.Revolute(coupler, rocker, B - coupler.position, B - rocker.position,
                             axis=(0, 0, 1)))
    mech.add(joints.Revolute(rocker, g, np.array([4.0, 0, 0]) - rocker.position, (4, 0, 0),
                             axis=(0, 0, 1)))
    drive = mech.add(joints.AngleDriver(inp, 0.0))
    result = mech.solve()
    assert result.success and "redundant" in result.rank_status
    report = mech.dof()
    assert report.dof == 1 and report.gruebler == -2
    motion = mech.sweep(drive, np.linspace(0, 2 * np.pi, 73))
    assert np.all(motion.residuals <= 1e-10)


def test_angle_driver_is_continuous_through_pi():
    model = sm.rssr()
    mech = model.mechanism
    for v in (3.0, 3.2, 6.0, 7.0, -4.0):
        if v == 7.0:   # a whole number above 2 pi looks like degrees
            with pytest.warns(ms.DegreesWarning):
                model.driver.value = v
        else:
            model.driver.value = v
        mech.solve()
        assert abs(wrap(mech.joint("input").angle() - v)) < 1e-10
        assert model.driver.measure() == pytest.approx(v, abs=1e-10)
