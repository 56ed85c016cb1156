"""Joints that carry coordinates of their own (a track's arc length), and their drivers."""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints


class CircleTrack(joints.Joint):
    """Body 2's origin on a circle of radius R about point c of body 1, at arc length s, its
    x axis along the tangent: Phi = (r2 - c - R u(s/R), t2 - t1 - s/R - pi/2)."""

    n_equations = 3
    n_coordinates = 1

    def __init__(self, body1, body2, centre, radius, s0=0.0):
        self._coord_init = np.array([s0])
        super().__init__((body1, body2), [*centre, radius])

    @classmethod
    def _phi(cls, P, X1, X2, S):
        R = P[..., 2]
        a = S[..., 0] / R + X1[..., 2]
        c, s = np.cos(X1[..., 2]), np.sin(X1[..., 2])
        cx = X1[..., 0] + c * P[..., 0] - s * P[..., 1]
        cy = X1[..., 1] + s * P[..., 0] + c * P[..., 1]
        return np.stack([X2[..., 0] - cx - R * np.cos(a), X2[..., 1] - cy - R * np.sin(a),
                         X2[..., 2] - X1[..., 2] - S[..., 0] / R - np.pi / 2], axis=-1)


def build():
    mech = ms.Mechanism()
    car = mech.add_body("car", position=(2.1, 0.1), angle=1.5)
    track = mech.add(CircleTrack(mech.ground, car, (0.0, 0.0), 2.0, s0=0.05))
    drive = mech.add(joints.CoordinateDriver(track, 0.0, name="arc"))
    return mech, car, track, drive


def test_track_coordinate_solves_sweeps_and_reports():
    mech, car, track, drive = build()
    assert mech.n_dof_coordinates == 4
    report = mech.dof()
    assert report.dof == 1 and report.free == 0
    mech.solve()
    np.testing.assert_allclose(car.position, [2.0, 0.0], atol=1e-10)
    assert track.coordinates[0] == pytest.approx(0.0, abs=1e-12)
    drive.value = np.pi  # a quarter of the circle
    mech.solve()
    np.testing.assert_allclose(car.position, [0.0, 2.0], atol=1e-10)
    assert car.angle == pytest.approx(np.pi, abs=1e-10)
    motion = mech.sweep(drive, np.linspace(0, 4 * np.pi, 101))
    path = motion.point(car)
    np.testing.assert_allclose(np.linalg.norm(path, axis=1), 2.0, atol=1e-10)
    np.testing.assert_allclose(motion.states[:, -1], motion.values, atol=1e-10)


def test_coordinate_velocity_and_acceleration():
    mech, car, track, drive = build()
    drive.value = ms.profiles.ConstantSpeed(speed=3.0)
    mech.solve(t=0.4)
    nu = mech.velocity()
    nud = mech.acceleration()
    assert nu[-1] == pytest.approx(3.0)
    # CircleTrack has only Phi (a finite-difference Jacobian, accurate to about 1e-10), so
    # these checks use 1e-7; built-in joints are checked at 1e-9 in test_kinematics.
    speed = np.linalg.norm(mech.point_velocity(car, (0, 0)))
    assert speed == pytest.approx(3.0, abs=1e-7)
    # centripetal acceleration v^2 / R towards the centre
    acc = mech.point_acceleration(car, (0, 0))
    np.testing.assert_allclose(acc, -car.position / 2.0 * 9.0 / 2.0, atol=1e-6)
    assert nud[-1] == pytest.approx(0.0, abs=1e-12)


def test_numeric_jacobian_has_a_coordinate_block():
    rng = np.random.default_rng(4)
    P = np.array([[0.3, -0.2, 1.5]])
    X1, X2 = rng.normal(size=(2, 1, 3))
    S = rng.normal(size=(1, 1))
    phi, blocks = CircleTrack._evaluate(P, X1, X2, S)
    assert [b.shape for b in blocks] == [(1, 3, 3), (1, 3, 3), (1, 3, 1)]
    np.testing.assert_allclose(blocks[2][0, :, 0],
                               [2 * np.sin(S[0, 0] / 1.5 + X1[0, 2]) / 2,
                                -np.cos(S[0, 0] / 1.5 + X1[0, 2]), -1 / 1.5], atol=1e-8)


def test_removing_and_validating_coordinate_joints():
    mech, car, track, drive = build()
    with pytest.raises(ValueError, match="cannot be removed while CoordinateDriver 'arc'"):
        mech.remove(track)
    mech.remove(drive)
    mech.remove(track)
    assert mech.n_coordinates == 3
    with pytest.raises(TypeError, match="joint must be a joint with coordinates of its own"):
        joints.CoordinateDriver(joints.Revolute(mech.ground, car), 0.0)
    other = ms.Mechanism()
    b = other.add_body("b")
    t2 = CircleTrack(other.ground, b, (0, 0), 1.0)
    with pytest.raises(ValueError, match="not part of this mechanism"):
        mech.add(joints.CoordinateDriver(t2, 0.0))
