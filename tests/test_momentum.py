"""The velocity-level spatial momentum goal (Actin's spatialMomentumEndEffector)."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.profiles import ConstantSpeed


def _rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _momentum_planar(mech, pairs, nu, about):
    """(px, py, Lz) from the body velocities, written out independently of the goal."""
    p, L = np.zeros(2), 0.0
    for body, mp in pairs:
        i = body.index
        v, w = nu[3 * i:3 * i + 2], nu[3 * i + 2]
        th = body.angle
        c = mp.center_of_mass[:2]
        r = np.array([np.cos(th) * c[0] - np.sin(th) * c[1], np.sin(th) * c[0] + np.cos(th) * c[1]])
        vc = v + w * np.array([-r[1], r[0]])
        d = body.position + r - about
        p += mp.mass * vc
        L += mp.inertia_at_center_of_mass[2, 2] * w + mp.mass * (d[0] * vc[1] - d[1] * vc[0])
    return np.array([p[0], p[1], L])


def _momentum_spatial(mech, pairs, nu, about):
    p, L = np.zeros(3), np.zeros(3)
    for body, mp in pairs:
        i = body.index
        v, w = nu[6 * i:6 * i + 3], nu[6 * i + 3:6 * i + 6]
        R = _rotation(body.quaternion)
        r = R @ mp.center_of_mass
        vc = v + np.cross(w, r)
        p += mp.mass * vc
        L += R @ mp.inertia_at_center_of_mass @ R.T @ w + mp.mass * np.cross(
            body.position + r - about, vc)
    return np.concatenate([p, L])


def test_a_floating_planar_pair_conserves_its_momentum():
    """Two links, pinned together and nowhere else, their hinge opening at 1 rad/s: with
    momentum zero (a swimmer from rest) the velocities are unique."""
    rng = np.random.default_rng(3)
    mech = ms.Mechanism()
    a = mech.add_body("a", position=(0.0, 0.0), angle=0.2)
    b = mech.add_body("b", position=(1.0, 0.3), angle=0.9)
    hinge = mech.add(joints.Revolute(a, b, (0.5, 0.0), (-0.5, 0.0)))
    mech.add(joints.AngleDriver(hinge, ConstantSpeed(1.0, start=0.7)))
    mech.solve()
    pairs = [(a, ms.MassProperties.from_center_of_mass(1.5, (0.1, 0.05, 0.0),
                                                       np.diag([0.1, 0.2, 0.3]))),
             (b, ms.MassProperties.from_center_of_mass(0.7, (-0.2, 0.1, 0.0),
                                                       np.diag([0.05, 0.1, 0.15])))]
    about = rng.normal(size=2)
    goal = joints.SpatialMomentumEndEffector(pairs, about=about)
    nu = mech.velocity(goals=[goal])
    np.testing.assert_allclose(_momentum_planar(mech, pairs, nu, about), 0.0, atol=1e-13)
    assert nu[5] - nu[2] == pytest.approx(1.0, abs=1e-13)    # the hinge opens at its rate
    # a target other than zero, and the goal's own evaluation agrees
    goal.target = np.array([0.3, -0.2, 0.5])
    nu = mech.velocity(goals=[goal])
    np.testing.assert_allclose(_momentum_planar(mech, pairs, nu, about), goal.target,
                               atol=1e-13)
    np.testing.assert_allclose(goal.momentum(mech, nu), goal.target, atol=1e-13)


def test_a_floating_spatial_pair_takes_a_given_momentum():
    rng = np.random.default_rng(7)
    mech = ms.Mechanism(dim=3)
    q1 = rng.normal(size=4)
    a = mech.add_body("a", position=rng.normal(size=3), orientation=ms.Orientation(
        q1 / np.linalg.norm(q1)))
    b = mech.add_body("b", position=a.position + (1.0, 0.0, 0.0))
    hinge = mech.add(joints.Revolute.at(a, b, a.position + (0.5, 0.0, 0.0), (0.0, 0.3, 1.0)))
    mech.add(joints.AngleDriver(hinge, ConstantSpeed(0.8)))
    mech.solve()

    def mass(m):
        A = rng.normal(size=(3, 3))
        return ms.MassProperties.from_center_of_mass(m, rng.normal(size=3) * 0.1,
                                                     A @ A.T + np.eye(3))

    pairs = [(a, mass(2.0)), (b, mass(1.2))]
    about = rng.normal(size=3)
    target = rng.normal(size=6)
    goal = joints.SpatialMomentumEndEffector(pairs, target=target, about=about)
    nu = mech.velocity(goals=[goal])
    np.testing.assert_allclose(_momentum_spatial(mech, pairs, nu, about), target, atol=1e-12)
    # only some components: the linear momentum along z, the rest left to the minimum norm
    part = joints.SpatialMomentumEndEffector(pairs, target=[0.4], components=["z"])
    nu = mech.velocity(goals=[part])
    assert _momentum_spatial(mech, pairs, nu, np.zeros(3))[2] == pytest.approx(0.4, abs=1e-12)


def test_a_goal_that_conflicts_with_the_drivers_says_so():
    model = ms.models.fourbar()
    mech = model.mechanism
    model.driver.value = ConstantSpeed(1.0)
    mech.solve()
    goal = joints.SpatialMomentumEndEffector([mech.body("crank")], masses=[1.0], target=[5.0],
                                             components=["rz"], name="spin")
    with pytest.raises(ms.SolveError, match="SpatialMomentumEndEffector 'spin'.*conflict"):
        mech.velocity(goals=[goal])


def test_arguments_are_checked():
    model = ms.models.fourbar()
    mech = model.mechanism
    crank = mech.body("crank")
    with pytest.raises(ValueError, match="no mass properties"):
        joints.SpatialMomentumEndEffector([crank])
    with pytest.raises(ValueError, match="components must be"):
        joints.SpatialMomentumEndEffector([crank], masses=[1.0], components=["z"])
    with pytest.raises(ValueError, match="target"):
        joints.SpatialMomentumEndEffector([crank], masses=[1.0], target=[1.0, 2.0])
    with pytest.raises(TypeError, match="velocity-level goals"):
        mech.velocity(goals=[object()])
