"""Orientation: conversions against SciPy, group laws, EcOrientation semantics, rates."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mechsolve.spatial import Orientation

TOL = 1e-12


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def Rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def random_orientations(rng, n):
    # the Generator by position: SciPy 1.14 names the argument random_state, 1.15 rng
    return Orientation(Rotation.random(n, rng).as_quat(scalar_first=True))


# ---------------------------------------------------------------- hypothesis strategies
unit_quats = (
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4)
    .filter(lambda v: np.linalg.norm(v) > 0.1)
    .map(lambda v: Orientation(v, normalize=True))
)
vectors = st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3).map(np.array)


# ---------------------------------------------------------------- conversions vs SciPy
def test_euler321_matches_scipy_and_matrix_product(rng):
    psi, theta, phi = rng.uniform(-3, 3, 50), rng.uniform(-1.5, 1.5, 50), rng.uniform(-3, 3, 50)
    q = Orientation.from_euler321(psi, theta, phi)
    ref = Rotation.from_euler("ZYX", np.stack([psi, theta, phi], axis=1))
    np.testing.assert_allclose(q.as_matrix(), ref.as_matrix(), atol=TOL)
    np.testing.assert_allclose(q.as_matrix()[7], Rz(psi[7]) @ Ry(theta[7]) @ Rx(phi[7]), atol=TOL)
    np.testing.assert_allclose(q.as_euler321(), np.stack([psi, theta, phi], axis=1), atol=1e-10)


def test_euler123_matches_scipy_and_matrix_product(rng):
    phi, theta, psi = rng.uniform(-3, 3, 50), rng.uniform(-1.5, 1.5, 50), rng.uniform(-3, 3, 50)
    q = Orientation.from_euler123(phi, theta, psi)
    ref = Rotation.from_euler("XYZ", np.stack([phi, theta, psi], axis=1))
    np.testing.assert_allclose(q.as_matrix(), ref.as_matrix(), atol=TOL)
    np.testing.assert_allclose(q.as_matrix()[3], Rx(phi[3]) @ Ry(theta[3]) @ Rz(psi[3]), atol=TOL)
    np.testing.assert_allclose(q.as_euler123(), np.stack([phi, theta, psi], axis=1), atol=1e-10)


def test_euler231_is_y_then_z_then_x(rng):
    # EcOrientation: from231Euler(theta, psi, phi): pitch about y, yaw about z, roll about x,
    # R = Ry(theta) Rz(psi) Rx(phi) by the pattern of 321 and 123 (intrinsic 'YZX').
    theta, psi, phi = rng.uniform(-3, 3, 50), rng.uniform(-1.5, 1.5, 50), rng.uniform(-3, 3, 50)
    q = Orientation.from_euler231(theta, psi, phi)
    ref = Rotation.from_euler("YZX", np.stack([theta, psi, phi], axis=1))
    np.testing.assert_allclose(q.as_matrix(), ref.as_matrix(), atol=TOL)
    np.testing.assert_allclose(q.as_matrix()[5], Ry(theta[5]) @ Rz(psi[5]) @ Rx(phi[5]), atol=TOL)
    np.testing.assert_allclose(q.as_euler231(), np.stack([theta, psi, phi], axis=1), atol=1e-10)


@pytest.mark.parametrize("theta", [np.pi / 2, -np.pi / 2])
def test_euler321_gimbal_lock(theta):
    q = Orientation.from_euler321(0.7, theta, 0.3)
    psi2, theta2, phi2 = q.as_euler321()
    assert phi2 == 0.0
    assert theta2 == pytest.approx(theta, abs=1e-15)
    assert Orientation.from_euler321(psi2, theta2, phi2).approx_eq(q, 1e-14)
    # only psi - phi (theta=+pi/2) or psi + phi (theta=-pi/2) is determined
    expected = 0.7 - 0.3 if theta > 0 else 0.7 + 0.3
    assert psi2 == pytest.approx(expected, abs=1e-14)


def test_euler123_and_231_gimbal_lock():
    q = Orientation.from_euler123(0.4, np.pi / 2, 0.2)
    angles = q.as_euler123()
    assert angles[2] == 0.0
    assert Orientation.from_euler123(*angles).approx_eq(q, 1e-14)
    q = Orientation.from_euler231(0.4, -np.pi / 2, 0.2)
    angles = q.as_euler231()
    assert angles[2] == 0.0
    assert Orientation.from_euler231(*angles).approx_eq(q, 1e-14)


EULER = [
    ("321", Orientation.from_euler321, Orientation.as_euler321),
    ("123", Orientation.from_euler123, Orientation.as_euler123),
    ("231", Orientation.from_euler231, Orientation.as_euler231),
]


def _rebuild_error(build, convert, q):
    """Largest matrix-entry difference between ``q`` and the rotation rebuilt from its angles."""
    angles = convert(q)
    back = build(angles[..., 0], angles[..., 1], angles[..., 2])
    return np.abs(back.as_matrix() - q.as_matrix()).max()


def test_euler321_one_step_from_lock_round_trips():
    # SciPy treats |theta - pi/2| <= 1e-7 as locked and zeroes phi: 3e-8 rotation error.
    q = Orientation.from_euler321(0.7, np.pi / 2 - 1e-7, 0.3)
    angles = q.as_euler321()
    assert _rebuild_error(Orientation.from_euler321, Orientation.as_euler321, q) < 1e-15
    # so close to lock the angles themselves are recovered too (error ~ eps / 1e-7)
    np.testing.assert_allclose(angles, [0.7, np.pi / 2 - 1e-7, 0.3], atol=1e-8)


@pytest.mark.parametrize(("label", "build", "convert"), EULER, ids=[e[0] for e in EULER])
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_euler_round_trip_rotation_near_gimbal_lock(label, build, convert, side, rng):
    """Rebuilding from the angles gives the same rotation (1e-14) at every distance from lock.

    The outer angles may differ from the ones the rotation was built from (they are
    ill-conditioned near lock), but the rotation may not.
    """
    distances = np.concatenate([10.0 ** -np.arange(1.0, 18.0, 0.25), [0.0, 1e-300]])
    n = distances.size
    outer1 = rng.uniform(-np.pi, np.pi, (40, n))
    outer3 = rng.uniform(-np.pi, np.pi, (40, n))
    middle = side * (np.pi / 2 - distances)
    q = build(outer1, np.broadcast_to(middle, (40, n)), outer3)
    back = convert(q)
    assert back.shape == (40, n, 3)
    assert np.all(np.abs(back[..., 1]) <= np.pi / 2)
    assert np.all(np.abs(back[..., ::2]) <= np.pi)
    err = np.abs(build(*np.moveaxis(back, -1, 0)).as_matrix() - q.as_matrix()).max()
    assert err <= 1e-14, f"{label}: rebuilt rotation off by {err:.2e}"


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(EULER),
    st.floats(-np.pi, np.pi),
    st.floats(0.0, 1.0) | st.floats(0.0, 1e-6) | st.floats(0.0, 1e-12),
    st.sampled_from([1.0, -1.0]),
    st.floats(-np.pi, np.pi),
)
def test_euler_round_trip_rotation_property(seq, first, distance, side, third):
    _, build, convert = seq
    q = build(first, side * (np.pi / 2 - distance), third)
    assert _rebuild_error(build, convert, q) <= 1e-14


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(EULER), unit_quats)
def test_euler_round_trip_any_rotation(seq, q):
    _, build, convert = seq
    assert _rebuild_error(build, convert, q) <= 1e-14


def test_euler_angles_match_scipy_away_from_lock(rng):
    q = random_orientations(rng, 500)
    for seq, convert in (("ZYX", q.as_euler321), ("XYZ", q.as_euler123), ("YZX", q.as_euler231)):
        ref = Rotation.from_quat(q.quaternion, scalar_first=True).as_euler(seq)
        np.testing.assert_allclose(convert(), ref, atol=1e-12)


def test_angle_axis_and_rotvec_match_scipy(rng):
    axes = rng.normal(size=(40, 3))
    angles = rng.uniform(-2 * np.pi, 2 * np.pi, 40)
    q = Orientation.from_angle_axis(angles, axes)
    unit = axes / np.linalg.norm(axes, axis=1, keepdims=True)
    ref = Rotation.from_rotvec(angles[:, None] * unit)
    np.testing.assert_allclose(q.as_matrix(), ref.as_matrix(), atol=TOL)
    angle, axis = q.as_angle_axis()
    np.testing.assert_allclose(angle, ref.magnitude(), atol=1e-12)
    assert np.all((angle >= 0) & (angle <= np.pi))
    np.testing.assert_allclose(
        Orientation.from_angle_axis(angle, axis).as_matrix(), ref.as_matrix(), atol=TOL
    )
    np.testing.assert_allclose(q.as_rotvec(), ref.as_rotvec(), atol=1e-12)
    assert Orientation.from_rotvec(q.as_rotvec()).approx_eq(q).all()


def test_matrix_round_trip_and_scipy(rng):
    R = Rotation.random(30, rng).as_matrix()
    q = Orientation.from_matrix(R)
    np.testing.assert_allclose(q.as_matrix(), R, atol=TOL)
    ref = Rotation.from_matrix(R).as_quat(scalar_first=True)
    assert q.approx_eq(Orientation(ref)).all()


def test_dcm_rows_and_columns(rng):
    q = random_orientations(rng, 1)[0]
    R = q.as_matrix()
    r0, r1, r2 = q.as_dcm_rows()
    c0, c1, c2 = q.as_dcm_columns()
    np.testing.assert_allclose(np.cross(r0, r1), r2, atol=TOL)
    np.testing.assert_allclose(np.cross(c0, c1), c2, atol=TOL)
    np.testing.assert_allclose(np.stack([r0, r1, r2]), R, atol=TOL)
    np.testing.assert_allclose(np.stack([c0, c1, c2], axis=1), R, atol=TOL)
    np.testing.assert_allclose(q.x_axis, c0)
    np.testing.assert_allclose(q.y_axis, c1)
    np.testing.assert_allclose(q.z_axis, c2)
    assert Orientation.from_dcm_rows(r0, r1, r2).approx_eq(q)
    assert Orientation.from_dcm_columns(c0, c1, c2).approx_eq(q)


def test_rodrigues_matches_tan_half_angle(rng):
    q = random_orientations(rng, 50)
    rv = q.as_scipy().as_rotvec()
    angle = np.linalg.norm(rv, axis=1, keepdims=True)
    expected = rv / angle * np.tan(angle / 2)
    np.testing.assert_allclose(q.as_rodrigues(), expected, rtol=1e-10, atol=1e-12)
    assert Orientation.from_rodrigues(expected).approx_eq(q).all()


def test_rodrigues_at_180_degrees():
    q = Orientation.from_angle_axis(np.pi, (0, 0.6, 0.8))
    p = q.as_rodrigues()
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p / np.linalg.norm(p), [0, 0.6, 0.8], atol=1e-12)
    assert np.linalg.norm(p) > 1e14
    assert Orientation.from_rodrigues(p).approx_eq(q, 1e-12)


def test_axis_rotations_match_scipy():
    for factory, axis in (
        (Orientation.from_x_rotation, "x"),
        (Orientation.from_y_rotation, "y"),
        (Orientation.from_z_rotation, "z"),
    ):
        np.testing.assert_allclose(
            factory(0.83).as_matrix(), Rotation.from_euler(axis, 0.83).as_matrix(), atol=TOL
        )
    np.testing.assert_allclose(Orientation.from_x_rotation(0.3).as_matrix(), Rx(0.3), atol=TOL)
    np.testing.assert_allclose(Orientation.from_y_rotation(0.3).as_matrix(), Ry(0.3), atol=TOL)
    np.testing.assert_allclose(Orientation.from_z_rotation(0.3).as_matrix(), Rz(0.3), atol=TOL)


def test_scipy_interop_scalar_last():
    q = Orientation.from_euler321(0.1, 0.2, 0.3)
    r = q.as_scipy()
    np.testing.assert_allclose(r.as_quat(), np.roll(q.quaternion, -1))  # SciPy: x, y, z, w
    assert Orientation.from_scipy(r).approx_eq(q)
    assert Orientation.from_quaternion(r.as_quat(), scalar_first=False).approx_eq(q)


# ---------------------------------------------------------------- EcOrientation examples
def test_identity_and_named_quaternions():
    np.testing.assert_array_equal(Orientation.identity().quaternion, [1, 0, 0, 0])
    np.testing.assert_array_equal(Orientation().as_matrix(), np.eye(3))
    assert Orientation.w_quaternion() == Orientation.identity()
    for factory, diag in (
        (Orientation.x_quaternion, [1, -1, -1]),
        (Orientation.y_quaternion, [-1, 1, -1]),
        (Orientation.z_quaternion, [-1, -1, 1]),
    ):
        q = factory()
        np.testing.assert_allclose(q.as_matrix(), np.diag(diag), atol=TOL)
        angle, _ = q.as_angle_axis()
        assert angle == pytest.approx(np.pi)
    q = Orientation((0.5, 0.5, 0.5, 0.5))
    assert (q.w, q.x, q.y, q.z) == (0.5, 0.5, 0.5, 0.5)
    assert isinstance(q.w, float)


def test_actin_dcm_formula():
    w, x, y, z = Orientation((1, 2, 3, 4), normalize=True).quaternion
    expected = np.array(
        [
            [1 - 2 * y * y - 2 * z * z, 2 * x * y - 2 * w * z, 2 * x * z + 2 * w * y],
            [2 * x * y + 2 * w * z, 1 - 2 * x * x - 2 * z * z, 2 * y * z - 2 * w * x],
            [2 * x * z - 2 * w * y, 2 * y * z + 2 * w * x, 1 - 2 * x * x - 2 * y * y],
        ]
    )
    np.testing.assert_allclose(Orientation((w, x, y, z)).as_matrix(), expected, atol=TOL)


@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (-1, 2, 2)])
def test_180_degree_cases(axis):
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    q = Orientation.from_angle_axis(np.pi, axis)
    R = 2 * np.outer(k, k) - np.eye(3)
    np.testing.assert_allclose(q.as_matrix(), R, atol=TOL)
    back = Orientation.from_matrix(R)
    assert back.approx_eq(q)
    angle, axis_out = back.as_angle_axis()
    assert angle == pytest.approx(np.pi, abs=1e-12)
    assert abs(abs(axis_out @ k) - 1) < 1e-12
    assert (q * q).approx_eq(Orientation.identity())


def test_approx_eq_treats_q_and_minus_q_as_equal():
    q = Orientation.from_euler321(0.3, -0.2, 1.0)
    minus = Orientation(-q.quaternion)
    assert q.approx_eq(minus)
    assert not q == minus
    assert not q.approx_eq(Orientation.from_euler321(0.3, -0.2, 1.0 + 1e-6))
    assert q.approx_eq(Orientation.from_euler321(0.3, -0.2, 1.0 + 1e-6), tol=1e-5)


def test_mul_rotates_vectors_and_composes(rng):
    a, b = random_orientations(rng, 2)
    v = rng.normal(size=3)
    np.testing.assert_allclose((a * b) * v, a * (b * v), atol=TOL)
    np.testing.assert_allclose(a * v, a.as_matrix() @ v, atol=TOL)
    np.testing.assert_allclose(a * list(v), a.rotate(v), atol=TOL)
    np.testing.assert_allclose(a.inverse() * (a * v), v, atol=TOL)


def test_stack_indexing_and_len(rng):
    qs = random_orientations(rng, 5)
    assert len(qs) == 5 and qs.shape == (5,)
    assert qs[2].shape == ()
    np.testing.assert_array_equal(qs[1:3].quaternion, qs.quaternion[1:3])
    with pytest.raises(TypeError):
        len(qs[0])


def test_quaternion_is_read_only():
    q = Orientation.identity()
    with pytest.raises(ValueError):
        q.quaternion[0] = 2.0


# ---------------------------------------------------------------- group laws (hypothesis)
@settings(max_examples=60, deadline=None)
@given(unit_quats, unit_quats, unit_quats)
def test_associativity(a, b, c):
    assert ((a * b) * c).approx_eq(a * (b * c), 1e-12)


@settings(max_examples=60, deadline=None)
@given(unit_quats, vectors)
def test_identity_inverse_and_sign(a, v):
    e = Orientation.identity()
    assert (a * e).approx_eq(a, 1e-15) and (e * a).approx_eq(a, 1e-15)
    assert (a * a.inverse()).approx_eq(e, 1e-12)
    assert (a.inverse() * a).approx_eq(e, 1e-12)
    minus = Orientation(-a.quaternion)
    assert a.approx_eq(minus, 1e-15)
    np.testing.assert_allclose(minus * v, a * v, atol=1e-12)
    np.testing.assert_allclose(minus.as_matrix(), a.as_matrix(), atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(unit_quats, unit_quats)
def test_matrix_homomorphism(a, b):
    np.testing.assert_allclose((a * b).as_matrix(), a.as_matrix() @ b.as_matrix(), atol=1e-12)
    assert Orientation.from_matrix(a.as_matrix()).approx_eq(a, 1e-12)


# ---------------------------------------------------------------- between, slerp, average
def test_angle_axis_between():
    a = Orientation.from_euler321(0.3, 0.2, 0.1)
    d = Orientation.from_angle_axis(0.4, (1, 2, 2))
    angle, axis = a.angle_axis_between(a * d)
    assert angle == pytest.approx(0.4, abs=1e-12)
    np.testing.assert_allclose(axis, np.array([1, 2, 2]) / 3, atol=1e-12)
    angle, _ = a.angle_axis_between(Orientation(-(a * d).quaternion))
    assert angle == pytest.approx(0.4, abs=1e-12)


def test_slerp_endpoints_midpoint_extrapolation(rng):
    a, b = random_orientations(rng, 2)
    assert a.slerp(b, 0.0).approx_eq(a, 1e-12)
    assert a.slerp(b, 1.0).approx_eq(b, 1e-12)
    angle_ab, axis = a.angle_axis_between(b)
    for t in (0.25, 0.5, -0.5, 1.7):
        # same great circle: a * exp(t * angle * axis), extrapolating outside [0, 1]
        expected = a.as_scipy() * Rotation.from_rotvec(t * angle_ab * axis)
        np.testing.assert_allclose(a.slerp(b, t).as_matrix(), expected.as_matrix(), atol=1e-12)
    angle, _ = a.angle_axis_between(a.slerp(b, 0.5))
    assert angle == pytest.approx(angle_ab / 2, abs=1e-12)
    # shortest path regardless of the sign of b's quaternion
    assert a.slerp(Orientation(-b.quaternion), 0.3).approx_eq(a.slerp(b, 0.3), 1e-12)
    stack = a.slerp(b, np.linspace(0, 1, 5))
    assert stack.shape == (5,)


def test_slerp_matches_scipy(rng):
    from scipy.spatial.transform import Slerp

    a, b = random_orientations(rng, 2)
    times = np.linspace(0, 1, 7)
    ref = Slerp([0, 1], Rotation.concatenate([a.as_scipy(), b.as_scipy()]))(times)
    np.testing.assert_allclose(a.slerp(b, times).as_matrix(), ref.as_matrix(), atol=1e-12)


def test_average_and_std(rng):
    center = Orientation.from_euler321(0.5, -0.3, 1.2)
    small = rng.normal(scale=1e-3, size=(200, 3))
    qs = Orientation.from_rotvec(small) * center
    signs = rng.choice([-1.0, 1.0], size=(200, 1))
    flipped = Orientation(qs.quaternion * signs)
    avg, std = Orientation.average_and_std(flipped)
    assert avg.approx_eq(center, 5e-4)
    expected_std = np.sqrt(np.mean(np.sum(small**2, axis=1)))
    assert std == pytest.approx(expected_std, rel=0.05)
    avg2, _ = Orientation.average_and_std([flipped[i] for i in range(200)])
    assert avg2.approx_eq(avg, 1e-12)
    # exact for symmetric spreads about one axis
    avg3, std3 = Orientation.average_and_std(
        [Orientation.from_z_rotation(a) * center for a in (-0.01, 0.0, 0.01)]
    )
    assert avg3.approx_eq(center, 1e-12)
    assert std3 == pytest.approx(0.01 * np.sqrt(2 / 3), rel=1e-9)
    with pytest.raises(ValueError, match="at least one"):
        Orientation.average_and_std([])


# ---------------------------------------------------------------- align_z
def test_align_z_general(rng):
    for q in random_orientations(rng, 20):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        R = q.align_z(d)
        np.testing.assert_allclose(R * q.z_axis, d, atol=1e-12)
        np.testing.assert_allclose((R * q).z_axis, d, atol=1e-12)
        # the smallest rotation: its axis is perpendicular to both z-axes
        _, axis = R.as_angle_axis()
        assert abs(axis @ d) < 1e-9 and abs(axis @ q.z_axis) < 1e-9
    q = random_orientations(rng, 1)[0]
    assert q.align_z(q.z_axis).approx_eq(Orientation.identity(), 1e-12)


def test_align_z_opposite_axes_uses_x_or_y_rotation():
    e = Orientation.identity()
    # desired -z: |d.x| == |d.y| == 0 -> x rotation by pi
    assert e.align_z((0, 0, -1)).approx_eq(Orientation.x_quaternion(), 1e-12)
    # z-axis along +x, desired -x: more perpendicular to y -> pure y rotation
    q = Orientation.from_y_rotation(np.pi / 2)
    R = q.align_z((-1, 0, 0))
    assert R.approx_eq(Orientation.y_quaternion(), 1e-12)
    np.testing.assert_allclose(R * q.z_axis, [-1, 0, 0], atol=1e-12)
    # z-axis along +y, desired -y: more perpendicular to x -> pure x rotation
    q = Orientation.from_x_rotation(-np.pi / 2)
    R = q.align_z((0, -1, 0))
    assert R.approx_eq(Orientation.x_quaternion(), 1e-12)
    # oblique opposite case: still exact
    q = Orientation.from_euler321(0.3, 0.4, 0.5)
    R = q.align_z(-q.z_axis)
    np.testing.assert_allclose(R * q.z_axis, -q.z_axis, atol=1e-12)
    assert R.as_angle_axis()[0] == pytest.approx(np.pi)


def _toward_opposite(z, offset, direction):
    """Unit vector at angle ``pi - offset`` from ``z``, tilted towards ``direction``."""

    def unit(v):
        return v / np.linalg.norm(v, axis=-1, keepdims=True)

    z = unit(z)
    return unit(-np.cos(offset) * z + np.sin(offset) * unit(np.cross(z, direction)))


# |R z - d| is at rounding level for every d: a few ulps of the rotation itself (measured
# maximum 2.1e-15 over 2e5 random near-opposite cases; 4.4e-5 before the fix).
ALIGN_TOL = 4e-15


def test_align_z_nearly_opposite_repro():
    # Actin's |z . d + 1| < 1e-9 test snapped this to a plain flip: error 3.0e-5.
    d = np.array([3e-5, 0.0, -1.0]) / np.hypot(3e-5, 1.0)
    R = Orientation.identity().align_z(d)
    assert np.linalg.norm(R * (0.0, 0.0, 1.0) - d) <= 1e-15
    angle, axis = R.as_angle_axis()
    assert angle == pytest.approx(np.pi - np.arctan2(3e-5, 1.0), abs=1e-15)
    np.testing.assert_allclose(axis, [0.0, 1.0, 0.0], atol=1e-15)


def test_align_z_dense_sweep_near_opposite(rng):
    q = random_orientations(rng, 64)
    z = q.z_axis
    for offset in np.concatenate([np.logspace(-8, -3, 300), np.logspace(-15, -8, 60)]):
        d = _toward_opposite(z, offset, rng.normal(size=(64, 3)))
        R = q.align_z(d)
        err = np.linalg.norm(R * z - d, axis=-1).max()
        assert err <= ALIGN_TOL, f"offset {offset:.3g}: |R z - d| = {err:.2e}"
        assert np.linalg.norm((R * q).z_axis - d, axis=-1).max() <= ALIGN_TOL
        # still the smallest rotation: angle pi - offset
        np.testing.assert_allclose(R.as_angle_axis()[0], np.pi - offset, atol=1e-14)


@settings(max_examples=300, deadline=None)
@given(
    unit_quats,
    st.floats(-17.0, 0.0),
    st.lists(st.floats(-1, 1), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 0.1),
    st.booleans(),
)
def test_align_z_exact_for_every_direction(q, log_offset, direction, opposite):
    """Exact near opposite (offset 1e-17..1 from -z) and near equal (from +z) alike."""
    z = q.z_axis
    if np.linalg.norm(np.cross(z, direction)) < 1e-3:
        direction = np.eye(3)[np.argmin(np.abs(z))]
    d = _toward_opposite(z, 10.0**log_offset, direction)
    if not opposite:
        d = _toward_opposite(z, np.pi - 10.0**log_offset, direction)
    R = q.align_z(d)
    assert np.linalg.norm(R * z - d) <= ALIGN_TOL
    assert np.linalg.norm((R * q).z_axis - d) <= ALIGN_TOL
    # the alignment axis is perpendicular to z (a pure change of direction of z)
    angle, axis = R.as_angle_axis()
    if angle > 1e-12:
        assert abs(axis @ z) <= 1e-14


def test_align_z_fallback_only_when_opposite_to_rounding():
    e = Orientation.identity()
    # a rounding-level tilt is still "opposite": Actin's pure x rotation
    assert e.align_z((0.0, 1e-17, -1.0)).approx_eq(Orientation.x_quaternion(), 1e-15)
    assert e.align_z((1e-17, 0.0, -1.0)).approx_eq(Orientation.y_quaternion(), 1e-15)
    # inside Actin's EcNANO band but well above rounding: the exact smallest rotation
    d = np.array([0.0, 1e-6, -1.0]) / np.hypot(1e-6, 1.0)
    R = e.align_z(d)
    np.testing.assert_allclose(R * (0.0, 0.0, 1.0), d, atol=1e-16)
    assert R.approx_eq(Orientation.from_x_rotation(-(np.pi - np.arctan(1e-6))), 1e-15)


# ---------------------------------------------------------------- rates and integration
def _q_of_t(t):
    return Orientation.from_euler321(np.sin(t), 0.5 * np.cos(2 * t), 0.3 * t * t + 0.1)


def _derivs(f, t, h=1e-3):
    """First and second derivatives by 5-point stencils (errors ~h^4 and ~eps/h^2)."""
    fm2, fm1, f0, fp1, fp2 = (np.asarray(f(t + k * h)) for k in (-2, -1, 0, 1, 2))
    d1 = (fm2 - 8 * fm1 + 8 * fp1 - fp2) / (12 * h)
    d2 = (-fm2 + 16 * fm1 - 30 * f0 + 16 * fp1 - fp2) / (12 * h * h)
    return d1, d2


def _vex(M):
    return 0.5 * np.array([M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]])


@pytest.mark.parametrize("t", [0.0, 0.7, -1.3])
def test_quaternion_rates_against_finite_differences(t):
    q = _q_of_t(t)
    qdot, qddot = _derivs(lambda s: _q_of_t(s).quaternion, t)
    Rdot, Rddot = _derivs(lambda s: _q_of_t(s).as_matrix(), t)
    R = q.as_matrix()
    w_local = _vex(R.T @ Rdot)  # independent of the quaternion formulas
    w_ref = _vex(Rdot @ R.T)
    a_local = _vex(R.T @ Rddot)  # skew part of R^T R'' is [alpha]x
    a_ref = R @ a_local
    np.testing.assert_allclose(q.local_angular_velocity(qdot), w_local, atol=1e-9)
    np.testing.assert_allclose(q.reference_angular_velocity(qdot), w_ref, atol=1e-9)
    np.testing.assert_allclose(q.quaternion_rate_from_local(w_local), qdot, atol=1e-9)
    np.testing.assert_allclose(q.quaternion_rate_from_reference(w_ref), qdot, atol=1e-9)
    np.testing.assert_allclose(
        q.quaternion_acceleration_from_local(w_local, a_local), qddot, atol=1e-7
    )
    np.testing.assert_allclose(
        q.quaternion_acceleration_from_reference(w_ref, a_ref), qddot, atol=1e-7
    )
    np.testing.assert_allclose(q.local_angular_acceleration(qddot), a_local, atol=1e-7)
    np.testing.assert_allclose(q.reference_angular_acceleration(qddot), a_ref, atol=1e-7)


def test_actin_reference_rate_matrix():
    Q0, Q1, Q2, Q3 = Orientation((1, -2, 0.5, 3), normalize=True).quaternion
    w = np.array([0.3, -1.1, 2.0])
    M = 0.5 * np.array([[-Q1, -Q2, -Q3], [Q0, Q3, -Q2], [-Q3, Q0, Q1], [Q2, -Q1, Q0]])
    q = Orientation((Q0, Q1, Q2, Q3))
    np.testing.assert_allclose(q.quaternion_rate_from_reference(w), M @ w, atol=1e-15)


def test_integrate_angular_velocity():
    q0 = Orientation.from_euler321(0.2, 0.1, -0.4)
    w = np.array([0.3, -0.7, 1.1])
    # local: q(t) = q0 exp(w t); its local angular velocity is w
    q1 = q0.integrate_local_angular_velocity(w, 0.25)
    qdot, _ = _derivs(lambda s: q0.integrate_local_angular_velocity(w, s).quaternion, 0.25)
    np.testing.assert_allclose(q1.local_angular_velocity(qdot), w, atol=1e-10)
    # reference: q(t) = exp(w t) q0; its reference angular velocity is w
    q2 = q0.integrate_reference_angular_velocity(w, 0.25)
    qdot, _ = _derivs(lambda s: q0.integrate_reference_angular_velocity(w, s).quaternion, 0.25)
    np.testing.assert_allclose(q2.reference_angular_velocity(qdot), w, atol=1e-10)
    # many small steps == one big step for constant w
    q = q0
    for _ in range(100):
        q = q.integrate_local_angular_velocity(w, 0.0025)
    assert q.approx_eq(q1, 1e-12)
    assert q0.integrate_local_angular_velocity(q0.inverse() * w, 0.25).approx_eq(q2, 1e-12)


# ---------------------------------------------------------------- validation
def test_non_unit_quaternion_raises_unless_normalized():
    with pytest.raises(
        ValueError,
        match=r"^quaternion must have unit norm \(got \[1.0, 1.0, 0.0, 0.0\] with norm 1.41421\); "
        r"pass normalize=True to rescale$",
    ):
        Orientation((1, 1, 0, 0))
    # in a stack, the worst quaternion is named by its index
    with pytest.raises(ValueError, match=r"got norm 3 at index \[1, 0\]"):
        Orientation([[(1, 0, 0, 0), (1.5, 0, 0, 0)], [(0, 3, 0, 0), (0, 0, 1, 0)]])
    with pytest.raises(ValueError, match=r"^quaternion\[2\] must be non-zero to be normalized"):
        Orientation([(1, 0, 0, 0), (1, 1, 0, 0), (0, 0, 0, 0)], normalize=True)
    q = Orientation((2, 0, 0, 0), normalize=True)
    np.testing.assert_array_equal(q.quaternion, [1, 0, 0, 0])
    # within tolerance: accepted and renormalized exactly
    q = Orientation((1 + 1e-8, 0, 0, 0))
    assert q.w == 1.0
    with pytest.raises(ValueError, match="non-zero"):
        Orientation((0, 0, 0, 0), normalize=True)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (
            lambda: Orientation((1, 0, 0)),
            ValueError,
            r"Expected quaternion with shape \(\.\.\., 4\), got array-like object with "
            r"shape \(3,\)",
        ),
        (lambda: Orientation((np.nan, 0, 0, 0)), ValueError, "quaternion contains non-finite"),
        (lambda: Orientation("abcd"), TypeError, "quaternion"),
        (
            lambda: Orientation.from_angle_axis(1.0, (0, 0, 0)),
            ValueError,
            "axis must be a non-zero vector",
        ),
        (lambda: Orientation.from_angle_axis(1.0, (0, 1)), ValueError, r"Expected axis with shape"),
        (lambda: Orientation.from_angle_axis(np.inf, (0, 0, 1)), ValueError, "angle"),
        (lambda: Orientation.from_euler321("a", 0, 0), TypeError, "psi"),
        (
            lambda: Orientation.from_euler321([0.1, 0.2], [0.1, 0.2, 0.3], 0.0),
            ValueError,
            r"^Expected psi, theta and phi with shapes that broadcast together, "
            r"got psi \(2,\), theta \(3,\), phi \(\)$",
        ),
        (
            lambda: Orientation.from_euler123(np.zeros((2, 2)), 0.0, np.zeros(4)),
            ValueError,
            r"^Expected phi, theta and psi .* got phi \(2, 2\), theta \(\), psi \(4,\)$",
        ),
        (
            lambda: Orientation.from_euler231(np.zeros(2), np.zeros(3), 0.0),
            ValueError,
            r"^Expected theta, psi and phi .* got theta \(2,\), psi \(3,\), phi \(\)$",
        ),
        (
            lambda: Orientation.from_dcm_rows(np.eye(3)[[0, 0]], np.eye(3)[[1, 1, 1]], (0, 0, 1)),
            ValueError,
            r"Expected row0, row1 and row2 with batch shapes .* got row0 \(2, 3\), row1 \(3, 3\)",
        ),
        (lambda: Orientation.from_matrix(np.ones((3, 3))), ValueError, "rotation matrix"),
        (
            lambda: Orientation.from_matrix(np.diag([1.0, 1.0, -1.0])),
            ValueError,
            r"^matrix must be a rotation matrix .* determinant -1$",
        ),
        (
            # the offending matrix is reported, not the first one
            lambda: Orientation.from_matrix(
                np.stack([np.eye(3), np.eye(3), np.diag([1.0, 1.0, -1.0]), 2 * np.eye(3)])
            ),
            ValueError,
            r"^matrix\[2\] must be a rotation matrix \(orthonormal with determinant \+1\), "
            r"got orthogonality error 0 and determinant -1 \(2 of 4 matrices are not rotations\)$",
        ),
        (
            lambda: Orientation.from_matrix(
                np.stack([[np.eye(3), np.eye(3)], [np.eye(3), np.diag([1.0, -1.0, 1.0])]])
            ),
            ValueError,
            r"^matrix\[1, 1\] must be a rotation matrix .* determinant -1 \(1 of 4",
        ),
        (lambda: Orientation.from_matrix(np.eye(4)), ValueError, "matrix with shape"),
        (lambda: Orientation.identity().align_z((0, 0, 0)), ValueError, "desired_z"),
        (lambda: Orientation.identity() * (1, 2), ValueError, "vector with shape"),
        (lambda: Orientation.identity().approx_eq((1, 0, 0, 0)), TypeError, "Orientation"),
        (
            lambda: Orientation.identity().quaternion_rate_from_local((1, 2)),
            ValueError,
            "angular_velocity",
        ),
    ],
)
def test_validation_messages(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_foreign_types_return_not_implemented():
    q = Orientation.identity()
    assert q.__mul__("x") is NotImplemented
    with pytest.raises(TypeError):
        q * "x"
    with pytest.raises(TypeError):
        2 * q
    assert (q == 3) is False
