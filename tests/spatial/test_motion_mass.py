"""General velocity / acceleration / force and mass properties (Actin)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechsolve.spatial import (
    Frame,
    GeneralAcceleration,
    GeneralForce,
    GeneralVelocity,
    MassProperties,
    MovingFrame,
    Orientation,
    second_moment_matrix,
)

TOL = 1e-12


@pytest.fixture
def rng():
    return np.random.default_rng(4242)


def random_frame(rng):
    # the Generator by position: SciPy 1.14 names the argument random_state, 1.15 rng
    return Frame(rng.normal(size=3), Rotation.random(None, rng).as_quat(scalar_first=True))


def point_cloud(rng, n=7):
    return rng.uniform(0.5, 2.0, n), rng.normal(size=(n, 3))


def direct_mass_properties(masses, points):
    h = masses @ points
    inertia = sum(
        m * (p @ p * np.eye(3) - np.outer(p, p)) for m, p in zip(masses, points, strict=True)
    )
    return masses.sum(), h, inertia


# ---------------------------------------------------------------- general motion
def test_arithmetic():
    a = GeneralVelocity((1, 2, 3), (4, 5, 6))
    b = GeneralVelocity((1, 1, 1), (0, 0, 1))
    assert a + b == GeneralVelocity((2, 3, 4), (4, 5, 7))
    assert a - b == GeneralVelocity((0, 1, 2), (4, 5, 5))
    assert 2 * a == a * 2 == GeneralVelocity((2, 4, 6), (8, 10, 12))
    assert a / 2 == GeneralVelocity((0.5, 1, 1.5), (2, 2.5, 3))
    assert -a == GeneralVelocity((-1, -2, -3), (-4, -5, -6))
    assert a.approx_eq(a + GeneralVelocity((1e-12, 0, 0)))
    np.testing.assert_array_equal(a.as_array(), [1, 2, 3, 4, 5, 6])
    assert GeneralVelocity.from_array(a.as_array()) == a
    f = GeneralForce((1, 0, 0), (0, 0, 0)).add_linear((1, 1, 1)).add_angular((0, 0, 2))
    assert f == GeneralForce((2, 1, 1), (0, 0, 2))
    assert a.with_linear((0, 0, 0)) == GeneralVelocity((0, 0, 0), (4, 5, 6))
    assert a.with_angular((0, 0, 0)) == GeneralVelocity((1, 2, 3), (0, 0, 0))
    with pytest.raises(TypeError):
        a + f
    with pytest.raises(TypeError):
        a * a
    with pytest.raises(TypeError, match="GeneralVelocity"):
        a.approx_eq(f)


def test_transform_by_frame_equals_rotation_then_shift(rng):
    f = random_frame(rng)
    v = GeneralVelocity(*rng.normal(size=(2, 3)))
    a = GeneralAcceleration(*rng.normal(size=(2, 3)))
    F = GeneralForce(*rng.normal(size=(2, 3)))
    for x in (v, a, F):
        direct = x.transform_by(f)
        stepwise = x.transform_by(f.orientation).transform_by(f.translation)
        assert direct.approx_eq(stepwise, TOL)
        assert direct.transform_by(f.inverse()).approx_eq(x, 1e-12)
    g = random_frame(rng)
    assert v.transform_by(g * f).approx_eq(v.transform_by(f).transform_by(g), 1e-12)
    assert F.transform_by(g * f).approx_eq(F.transform_by(f).transform_by(g), 1e-12)


def test_power_is_invariant(rng):
    f = random_frame(rng)
    v = GeneralVelocity(*rng.normal(size=(2, 3)))
    F = GeneralForce(*rng.normal(size=(2, 3)))
    v2, F2 = v.transform_by(f), F.transform_by(f)
    power = v.linear @ F.linear + v.angular @ F.angular
    assert v2.linear @ F2.linear + v2.angular @ F2.angular == pytest.approx(power, abs=1e-12)


def test_velocity_and_acceleration_shift_match_rigid_body(rng):
    """Move the point of application on a rotating body and compare with MovingFrame."""
    body = MovingFrame(
        (0, 0, 0), Rotation.random(None, rng).as_quat(scalar_first=True), *rng.normal(size=(4, 3))
    )
    p = rng.normal(size=3)  # a body-fixed point, body coordinates
    # quantities at the body origin, in parent coordinates
    vel = GeneralVelocity(body.velocity, body.angular_velocity_parent)
    acc = GeneralAcceleration(body.acceleration, body.angular_acceleration_parent)
    r = body.transform_direction(p)  # new point relative to old, parent coordinates
    np.testing.assert_allclose(vel.transform_by(-r).linear, body.point_velocity(p), atol=1e-12)
    np.testing.assert_allclose(
        acc.transform_by(-r, velocity=vel).linear, body.point_acceleration(p), atol=1e-12
    )
    # without the velocity only the alpha x r term is added
    np.testing.assert_allclose(
        acc.transform_by(-r).linear, body.acceleration + np.cross(acc.angular, r), atol=1e-12
    )


def test_force_moment_shift():
    F = GeneralForce((0, 0, -9.81), (0, 0, 0))
    moved = F.transform_by((2.0, 0, 0))
    np.testing.assert_allclose(moved.angular, np.cross([2.0, 0, 0], [0, 0, -9.81]))


def test_stacked_general_motion(rng):
    lin, ang = rng.normal(size=(2, 5, 3))
    v = GeneralVelocity(lin, ang)
    f = random_frame(rng)
    out = v.transform_by(f)
    for i in range(5):
        assert (
            GeneralVelocity(lin[i], ang[i])
            .transform_by(f)
            .approx_eq(GeneralVelocity(out.linear[i], out.angular[i]), TOL)
        )


def test_motion_validation():
    with pytest.raises(ValueError, match=r"Expected linear with shape \(\.\.\., 3\)"):
        GeneralVelocity((1, 2))
    with pytest.raises(ValueError, match="angular contains non-finite"):
        GeneralForce((0, 0, 0), (np.nan, 0, 0))
    with pytest.raises(TypeError, match="Expected transform to be a Frame"):
        GeneralVelocity().transform_by("x")
    with pytest.raises(TypeError, match="velocity"):
        GeneralAcceleration().transform_by((1, 0, 0), velocity=GeneralForce())
    with pytest.raises(
        ValueError,
        match=r"Expected linear and angular with batch shapes .* broadcast together, "
        r"got linear \(2, 3\), angular \(3, 3\)",
    ):
        GeneralVelocity(np.zeros((2, 3)), np.zeros((3, 3)))


# ---------------------------------------------------------------- mass properties
def test_sign_convention_for_products_of_inertia():
    body = MassProperties.from_point_mass(3.0, (1.0, 2.0, 0.5))
    jxx, jyy, jzz, jxy, jxz, jyz = body.second_moment_components
    assert (jxx, jyy, jzz) == pytest.approx((3 * (4 + 0.25), 3 * (1 + 0.25), 3 * (1 + 4)))
    assert (jxy, jxz, jyz) == pytest.approx((-3 * 2.0, -3 * 0.5, -3 * 1.0))
    again = MassProperties(3.0, body.first_moment, body.second_moment_components)
    assert again.approx_eq(body, TOL)
    np.testing.assert_array_equal(
        second_moment_matrix(*body.second_moment_components), body.second_moment
    )


def test_combination_matches_direct_point_sums(rng):
    masses, points = point_cloud(rng)
    total = sum(
        (MassProperties.from_point_mass(m, p) for m, p in zip(masses, points, strict=True)),
        MassProperties(0.0),
    )
    m, h, inertia = direct_mass_properties(masses, points)
    assert total.mass == pytest.approx(m)
    np.testing.assert_allclose(total.first_moment, h, atol=TOL)
    np.testing.assert_allclose(total.second_moment, inertia, atol=1e-11)
    np.testing.assert_allclose(total.center_of_mass, h / m, atol=TOL)
    removed = total - MassProperties.from_point_mass(masses[0], points[0])
    m2, h2, i2 = direct_mass_properties(masses[1:], points[1:])
    assert removed.approx_eq(MassProperties(m2, h2, i2), 1e-11)
    assert (2 * total).approx_eq(total + total, TOL)


def test_two_boxes_vs_direct_parallel_axis(rng):
    f1, f2 = random_frame(rng), random_frame(rng)
    b1 = MassProperties.from_box(2.0, (1.0, 0.5, 0.2), f1)
    b2 = MassProperties.from_box(3.0, (0.3, 0.3, 2.0), f2)
    total = b1 + b2
    expected = np.zeros((3, 3))
    for m, (a, b, c), f in ((2.0, (1.0, 0.5, 0.2), f1), (3.0, (0.3, 0.3, 2.0), f2)):
        R = f.orientation.as_matrix()
        ic = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        d = f.translation
        expected += R @ ic @ R.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    np.testing.assert_allclose(total.second_moment, expected, atol=1e-12)
    np.testing.assert_allclose(
        total.center_of_mass, (2 * f1.translation + 3 * f2.translation) / 5, atol=TOL
    )


def test_box_against_point_lattice():
    """A fine lattice of point masses (midpoint rule, exact for quadratics up to h^2/12)."""
    n = 20
    a, b, c = 1.0, 2.0, 0.5
    grid = [(np.arange(n) + 0.5) / n * s - s / 2 for s in (a, b, c)]
    pts = np.stack(np.meshgrid(*grid, indexing="ij"), axis=-1).reshape(-1, 3) + [0.3, -0.1, 1]
    masses = np.full(len(pts), 6.0 / len(pts))
    m, h, inertia = direct_mass_properties(masses, pts)
    box = MassProperties.from_box(6.0, (a, b, c), Frame((0.3, -0.1, 1)))
    # midpoint rule underestimates integral(x^2) by m s^2 / (12 n^2) per axis
    corr = 6.0 / (12 * n * n) * np.array([a * a, b * b, c * c])
    lattice = inertia + np.diag([corr[1] + corr[2], corr[0] + corr[2], corr[0] + corr[1]])
    np.testing.assert_allclose(box.second_moment, lattice, atol=1e-12)
    np.testing.assert_allclose(box.first_moment, h, atol=1e-12)


def test_transform_by_matches_moving_points(rng):
    masses, points = point_cloud(rng)
    body = MassProperties(*direct_mass_properties(masses, points))
    f = random_frame(rng)
    moved = MassProperties(*direct_mass_properties(masses, f * points))
    assert body.transform_by(f).approx_eq(moved, 1e-11)
    assert body.transform_by(f.orientation).approx_eq(
        MassProperties(*direct_mass_properties(masses, f.orientation * points)), 1e-11
    )
    assert body.transform_by(f.translation).approx_eq(
        MassProperties(*direct_mass_properties(masses, points + f.translation)), 1e-11
    )
    g = random_frame(rng)
    assert body.transform_by(g * f).approx_eq(body.transform_by(f).transform_by(g), 1e-11)


def test_principal_axes_reconstruct_inertia(rng):
    masses, points = point_cloud(rng)
    body = MassProperties(*direct_mass_properties(masses, points))
    moments, frame = body.principal_axes()
    R = frame.orientation.as_matrix()
    assert np.all(np.diff(moments) >= 0)
    assert np.linalg.det(R) == pytest.approx(1.0)
    np.testing.assert_allclose(
        R @ np.diag(moments) @ R.T, body.inertia_at_center_of_mass, atol=1e-12
    )
    np.testing.assert_allclose(frame.translation, body.center_of_mass, atol=TOL)
    # re-expressed in the principal frame the inertia is diagonal
    local = body.transform_by(frame.inverse())
    np.testing.assert_allclose(local.second_moment, np.diag(moments), atol=1e-11)
    np.testing.assert_allclose(local.first_moment, 0, atol=1e-12)


def test_newton_euler_matches_point_masses(rng):
    masses, points = point_cloud(rng)
    body = MassProperties(*direct_mass_properties(masses, points))
    vel = GeneralVelocity(*rng.normal(size=(2, 3)))
    acc = GeneralAcceleration(*rng.normal(size=(2, 3)))
    w, alpha, a0 = vel.angular, acc.angular, acc.linear
    acc_i = a0 + np.cross(alpha, points) + np.cross(w, np.cross(w, points))
    force = masses @ acc_i
    moment = np.sum(np.cross(points, masses[:, None] * acc_i), axis=0)
    result = body.calculate_force(vel, acc)
    np.testing.assert_allclose(result.linear, force, atol=1e-11)
    np.testing.assert_allclose(result.angular, moment, atol=1e-11)


def test_newton_euler_round_trip(rng):
    body = MassProperties.from_box(4.0, (0.2, 0.5, 1.0), random_frame(rng))
    for _ in range(10):
        vel = GeneralVelocity(*rng.normal(size=(2, 3)))
        acc = GeneralAcceleration(*rng.normal(size=(2, 3)))
        force = body.calculate_force(vel, acc)
        assert body.calculate_acceleration(vel, force).approx_eq(acc, 1e-10)
        F = GeneralForce(*rng.normal(size=(2, 3)))
        assert body.calculate_force(vel, body.calculate_acceleration(vel, F)).approx_eq(F, 1e-10)


def test_newton_euler_frame_invariance(rng):
    """Computing in another frame and transforming the force back gives the same answer."""
    body = MassProperties.from_box(4.0, (0.2, 0.5, 1.0), random_frame(rng))
    vel = GeneralVelocity(*rng.normal(size=(2, 3)))
    acc = GeneralAcceleration(*rng.normal(size=(2, 3)))
    f = random_frame(rng)  # express everything in frame A (f = B in A)
    force_b = body.calculate_force(vel, acc)
    force_a = body.transform_by(f).calculate_force(
        vel.transform_by(f), acc.transform_by(f, velocity=vel)
    )
    assert force_a.approx_eq(force_b.transform_by(f), 1e-10)


def test_mass_validation():
    with pytest.raises(ValueError, match="second_moment must be symmetric"):
        MassProperties(1.0, (0, 0, 0), [[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match=r"Expected second_moment with shape \(3, 3\)"):
        MassProperties(1.0, (0, 0, 0), np.eye(2))
    with pytest.raises(ValueError, match="mass must be finite"):
        MassProperties(np.nan)
    with pytest.raises(TypeError, match="mass"):
        MassProperties("heavy")
    with pytest.raises(ValueError, match=r"Expected first_moment with shape \(3,\)"):
        MassProperties(1.0, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="center_of_mass is undefined"):
        _ = MassProperties(0.0).center_of_mass
    with pytest.raises(ValueError, match="singular"):
        MassProperties(0.0).calculate_acceleration(GeneralVelocity(), GeneralForce())
    with pytest.raises(TypeError, match="Expected velocity to be a GeneralVelocity"):
        MassProperties(1.0).calculate_force(GeneralAcceleration(), GeneralAcceleration())
    assert MassProperties(1.0).__add__(3) is NotImplemented
    with pytest.raises(TypeError):
        MassProperties(1.0) + Orientation.identity()
