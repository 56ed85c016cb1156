"""Array kernels in mechsolve.spatial._quat against SciPy's Rotation (scalar-last!)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechsolve.spatial import _quat as qk

RNG_SEED = 20240601


def random_quats(rng, n):
    return qk.quat_normalize(rng.normal(size=(n, 4)))


def scipy_rot(q):
    return Rotation.from_quat(q, scalar_first=True)


@pytest.fixture
def rng():
    return np.random.default_rng(RNG_SEED)


def test_multiply_matches_scipy_composition(rng):
    a, b = random_quats(rng, 200), random_quats(rng, 200)
    expected = (scipy_rot(a) * scipy_rot(b)).as_matrix()
    np.testing.assert_allclose(qk.quat_to_matrix(qk.quat_multiply(a, b)), expected, atol=1e-12)


def test_to_matrix_matches_scipy(rng):
    q = random_quats(rng, 500)
    np.testing.assert_allclose(qk.quat_to_matrix(q), scipy_rot(q).as_matrix(), atol=1e-12)


def test_from_matrix_round_trip_canonical(rng):
    q = random_quats(rng, 500)
    back = qk.quat_from_matrix(qk.quat_to_matrix(q))
    assert np.all(back[:, 0] >= 0)
    np.testing.assert_allclose(back, qk.quat_canonical(q), atol=1e-12)


@pytest.mark.parametrize("ours", [False, True])
def test_from_matrix_projects_onto_the_nearest_rotation(rng, monkeypatch, ours):
    """A rotation times a symmetric positive definite stretch S near I has that rotation as
    its nearest one (the polar decomposition R S): its quaternion comes back to round-off, on
    every SciPy (before 1.16 SciPy's own conversion was off by about the stretch, 1e-6 at
    1e-6), in stacks that mix orthonormal and stretched matrices (issue 26). ``ours``: the
    projection mechsolve does for SciPy before 1.16, forced on whatever SciPy is installed."""
    if ours:
        monkeypatch.setattr(qk, "_scipy_projects", lambda: False)
    q = random_quats(rng, 40).reshape(2, 20, 4)
    A = rng.normal(size=(2, 20, 3, 3))
    size = np.array([0.0, 1e-9, 1e-7, 1e-6])[rng.integers(0, 4, size=(2, 20))]
    S = np.eye(3) + size[..., None, None] * (A + np.swapaxes(A, -1, -2))
    back = qk.quat_from_matrix(qk.quat_to_matrix(q) @ S)
    assert back.shape == (2, 20, 4) and np.all(back[..., 0] >= 0)
    np.testing.assert_allclose(back, qk.quat_canonical(q), rtol=0, atol=1e-14)


def test_rotate_stack_and_single(rng):
    q = random_quats(rng, 300)
    v = rng.normal(size=(300, 3))
    np.testing.assert_allclose(qk.quat_rotate(q, v), scipy_rot(q).apply(v), atol=1e-12)
    # one quaternion, many vectors: matrix path
    np.testing.assert_allclose(qk.quat_rotate(q[0], v), scipy_rot(q[0]).apply(v), atol=1e-12)
    np.testing.assert_allclose(qk.quat_rotate_inverse(q, qk.quat_rotate(q, v)), v, atol=1e-12)


def test_broadcasting_shapes(rng):
    q = random_quats(rng, 6).reshape(2, 3, 4)
    v = rng.normal(size=(5, 1, 1, 3))
    out = qk.quat_rotate(q, v)
    assert out.shape == (5, 2, 3, 3)
    np.testing.assert_allclose(out[4, 1, 2], scipy_rot(q[1, 2]).apply(v[4, 0, 0]), atol=1e-12)
    assert qk.quat_multiply(q[:, :1], q).shape == (2, 3, 4)
    assert qk.quat_to_matrix(q).shape == (2, 3, 3, 3)
    assert qk.quat_exp(v).shape == (5, 1, 1, 4)


def test_exp_log_match_scipy_rotvec(rng):
    rv = rng.normal(size=(400, 3))
    rv *= (rng.uniform(0, np.pi, 400) / np.linalg.norm(rv, axis=1))[:, None]
    q = qk.quat_exp(rv)
    np.testing.assert_allclose(q, scipy_rot(q).as_quat(scalar_first=True), atol=1e-15)
    np.testing.assert_allclose(
        qk.quat_to_matrix(q), Rotation.from_rotvec(rv).as_matrix(), atol=1e-12
    )
    np.testing.assert_allclose(qk.quat_log(q), rv, atol=1e-12)
    np.testing.assert_allclose(qk.quat_log(-q), rv, atol=1e-12)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-8, 1e-5, 9.9e-5, 1.01e-4, 1e-3])
def test_exp_log_small_angles(angle):
    axis = np.array([0.48, -0.6, 0.64])
    rv = angle * axis
    q = qk.quat_exp(rv)
    expected = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
    np.testing.assert_allclose(q, expected, rtol=1e-15, atol=1e-18)
    np.testing.assert_allclose(qk.quat_log(q), rv, rtol=1e-12, atol=1e-20)


def test_frame_compose_inverse_apply(rng):
    t1, t2 = rng.normal(size=(2, 50, 3))
    q1, q2 = random_quats(rng, 50), random_quats(rng, 50)
    p = rng.normal(size=(50, 3))
    t, q = qk.frame_compose(t1, q1, t2, q2)
    np.testing.assert_allclose(
        qk.frame_apply(t, q, p), qk.frame_apply(t1, q1, qk.frame_apply(t2, q2, p)), atol=1e-12
    )
    ti, qi = qk.frame_inverse(t, q)
    np.testing.assert_allclose(qk.frame_apply(ti, qi, qk.frame_apply(t, q, p)), p, atol=1e-12)


def test_cross_matches_numpy(rng):
    a, b = rng.normal(size=(2, 100, 3))
    np.testing.assert_allclose(qk.cross(a, b), np.cross(a, b), atol=1e-14)


def test_canonical_ties():
    q = np.array([[0.0, -1.0, 0.0, 0.0], [0.0, 0.0, -0.6, 0.8], [-0.5, 0.5, 0.5, 0.5]])
    out = qk.quat_canonical(q)
    np.testing.assert_array_equal(out, [[0, 1, 0, 0], [0, 0, 0.6, -0.8], [0.5, -0.5, -0.5, -0.5]])
