"""MovingFrame (Tasora): velocities and accelerations after >>, inverse and << against
finite differences in time of explicitly time-dependent poses."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mechsolve.spatial import Frame, FrameMismatchError, MovingFrame, Orientation
from mechsolve.spatial._quat import quat_multiply

H = 1e-3


def derivs(f, t, h=H):
    """First and second time derivatives by 5-point stencils."""
    fm2, fm1, f0, fp1, fp2 = (np.asarray(f(t + k * h), dtype=float) for k in (-2, -1, 0, 1, 2))
    d1 = (fm2 - 8 * fm1 + 8 * fp1 - fp2) / (12 * h)
    d2 = (-fm2 + 16 * fm1 - 30 * f0 + 16 * fp1 - fp2) / (12 * h * h)
    return d1, d2


def vex(M):
    return 0.5 * np.array([M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]])


# Three frames whose poses are explicit functions of time (Frame objects, no motion data).
def pose10(t):
    return Frame(
        (np.sin(t), 0.5 * np.cos(2 * t), 0.2 * t * t),
        Orientation.from_euler321(0.5 * np.sin(t), 0.3 * t, np.cos(t)),
        name="1",
        parent="0",
    )


def pose21(t):
    return Frame(
        (1 + 0.3 * t, np.sin(3 * t), -0.4),
        Orientation.from_rotvec((0.2 * t * t, -0.5 * np.sin(t), 0.7 * t)),
        name="2",
        parent="1",
    )


def pose32(t):
    return Frame(
        (0.1, np.cos(t), t**3 / 6),
        Orientation.from_euler123(t, 0.2, -np.sin(2 * t)),
        name="3",
        parent="2",
    )


def moving_from_pose(pose, t):
    """Differentiate a pose numerically; angular terms via R^T R' and R^T R'' only."""
    f = pose(t)
    v, a = derivs(lambda s: pose(s).translation, t)
    Rd, Rdd = derivs(lambda s: pose(s).orientation.as_matrix(), t)
    R = f.orientation.as_matrix()
    return MovingFrame(
        f.translation,
        f.orientation,
        v,
        vex(R.T @ Rd),
        a,
        vex(R.T @ Rdd),
        name=f.name,
        parent=f.parent,
    )


def assert_moving_close(actual, expected, atol=1e-7):
    assert actual.as_frame().approx_eq(expected.as_frame(), 1e-12)
    for name in ("velocity", "angular_velocity", "acceleration", "angular_acceleration"):
        np.testing.assert_allclose(
            getattr(actual, name), getattr(expected, name), atol=atol, err_msg=name
        )


TIMES = [0.0, 0.4, -1.1]


@pytest.mark.parametrize("t", TIMES)
def test_chain_against_finite_differences(t):
    m10, m21, m32 = (moving_from_pose(p, t) for p in (pose10, pose21, pose32))
    m30 = m32 >> m21 >> m10
    expected = moving_from_pose(lambda s: pose32(s) >> pose21(s) >> pose10(s), t)
    assert_moving_close(m30, expected)
    assert (m30.name, m30.parent) == ("3", "0")
    assert_moving_close(m10 * m21 * m32, expected)
    assert_moving_close(m32 >> (m21 >> m10), expected)


@pytest.mark.parametrize("t", TIMES)
def test_inverse_against_finite_differences(t):
    m10 = moving_from_pose(pose10, t)
    expected = moving_from_pose(lambda s: pose10(s).inverse(), t)
    inv = m10.inverse()
    assert_moving_close(inv, expected)
    assert (inv.name, inv.parent) == ("0", "1")
    assert_moving_close(inv.inverse(), m10, atol=1e-12)


@pytest.mark.parametrize("t", TIMES)
def test_lshift_against_finite_differences(t):
    m10, m21, m32 = (moving_from_pose(p, t) for p in (pose10, pose21, pose32))
    m30 = m32 >> m21 >> m10
    m32_again = m30 << m10 << m21
    assert_moving_close(m32_again, m32, atol=1e-10)
    assert (m32_again.name, m32_again.parent) == ("3", "2")
    m20 = m21 >> m10
    assert_moving_close(m20 << m10, m21, atol=1e-10)
    m12 = m10 << m20  # '1' in '0' << '2' in '0' -> '1' in '2'
    assert (m12.name, m12.parent) == ("1", "2")
    assert_moving_close(m12, moving_from_pose(lambda s: pose21(s).inverse(), t))


@pytest.mark.parametrize("t", TIMES)
def test_point_velocity_and_acceleration(t):
    m = moving_from_pose(pose21, t)
    p = np.array([0.3, -0.2, 0.9])
    v, a = derivs(lambda s: pose21(s) * p, t)
    np.testing.assert_allclose(m.point_velocity(p), v, atol=1e-8)
    np.testing.assert_allclose(m.point_acceleration(p), a, atol=1e-7)
    # a point through the chain goes by position only
    m10 = moving_from_pose(pose10, t)
    np.testing.assert_allclose(p >> m >> m10, pose10(t) * (pose21(t) * p), atol=1e-12)


def test_quaternion_derivative_composition_eqs_8_and_11():
    rng = np.random.default_rng(3)
    a = random_moving(rng)
    b = random_moving(rng)
    c = a >> b
    qa, qb = a.quaternion, b.quaternion
    qda, qdb = a.quaternion_rate, b.quaternion_rate
    qdda, qddb = a.quaternion_acceleration, b.quaternion_acceleration
    np.testing.assert_allclose(
        c.quaternion_rate, quat_multiply(qdb, qa) + quat_multiply(qb, qda), atol=1e-12
    )
    np.testing.assert_allclose(
        c.quaternion_acceleration,
        quat_multiply(qddb, qa) + 2 * quat_multiply(qdb, qda) + quat_multiply(qb, qdda),
        atol=1e-12,
    )


def random_moving(rng, **names):
    # the Generator by position: SciPy 1.14 names the argument random_state, 1.15 rng
    q = Rotation.random(None, rng).as_quat(scalar_first=True)
    return MovingFrame(rng.normal(size=3), q, *rng.normal(size=(4, 3)), **names)


# ---------------------------------------------------------------- group laws (hypothesis)
# Finite, well-scaled moving frames: every component in [-3, 3] (so accelerations after three
# compositions stay below ~1e4 and rounding below ~1e-11), rotations from any non-tiny
# quaternion.
_component = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
_vector = st.tuples(_component, _component, _component).map(np.array)
_rotation = (
    st.tuples(*[st.floats(-1.0, 1.0, allow_nan=False)] * 4)
    .filter(lambda v: np.linalg.norm(v) > 0.1)
    .map(lambda v: Orientation(v, normalize=True))
)
moving_frames = st.builds(MovingFrame, _vector, _rotation, _vector, _vector, _vector, _vector)
frames_at_rest = st.builds(Frame, _vector, _rotation)
GROUP = settings(max_examples=80, deadline=None)
IDENTITY = MovingFrame()


def assert_same_moving(actual, expected, rtol=1e-12):
    """Every part of two moving frames agrees to ``rtol`` times the frames' scale."""
    scale = 1.0 + max(np.abs(p).max() for p in (*actual._parts(), *expected._parts()))
    assert actual.approx_eq(expected, rtol * scale), (actual, expected)


@GROUP
@given(moving_frames, moving_frames, moving_frames)
def test_rshift_is_associative(a, b, c):
    assert_same_moving((a >> b) >> c, a >> (b >> c), 1e-12)


@GROUP
@given(moving_frames, frames_at_rest)
def test_identity_is_neutral(a, f):
    rest = MovingFrame.from_frame(f)
    for out, expected in (
        (a >> IDENTITY, a),
        (IDENTITY >> a, a),
        (f >> IDENTITY, rest),
        (IDENTITY >> f, rest),
        (a << IDENTITY, a),
    ):
        assert isinstance(out, MovingFrame)
        assert_same_moving(out, expected, 1e-15)
    assert IDENTITY.inverse().approx_eq(IDENTITY, 0.0)


@GROUP
@given(moving_frames)
def test_inverse_is_two_sided(a):
    assert_same_moving(a >> a.inverse(), IDENTITY, 1e-13)
    assert_same_moving(a.inverse() >> a, IDENTITY, 1e-13)
    assert_same_moving(a.inverse().inverse(), a, 1e-13)


@GROUP
@given(moving_frames, moving_frames)
def test_inverse_of_composition_reverses_order(a, b):
    assert_same_moving((a >> b).inverse(), b.inverse() >> a.inverse(), 1e-12)


@GROUP
@given(moving_frames, moving_frames, frames_at_rest)
def test_lshift_is_rshift_by_the_inverse(a, b, f):
    assert_same_moving(a << b, a >> b.inverse(), 1e-13)
    assert_same_moving((a >> b) << b, a, 1e-12)
    assert_same_moving((a << b) >> b, a, 1e-12)
    # a plain Frame on either side is a frame at rest
    rest = MovingFrame.from_frame(f)
    assert_same_moving(a << f, a << rest, 1e-15)
    assert_same_moving(f << a, rest << a, 1e-15)


@GROUP
@given(moving_frames, moving_frames)
def test_actin_product_is_reversed_rshift(a, b):
    assert (b * a) == (a >> b)


def test_frame_mixes_as_frame_at_rest():
    rng = np.random.default_rng(5)
    m = random_moving(rng)
    f = Frame((1, 2, 3), Orientation.from_x_rotation(0.4))
    rest = MovingFrame.from_frame(f)
    assert (m >> f).approx_eq(m >> rest, 1e-14)
    assert (f >> m).approx_eq(rest >> m, 1e-14)
    assert (m << f).approx_eq(m << rest, 1e-14)
    assert (f << m).approx_eq(rest << m, 1e-14)
    assert m.approx_eq(m.as_frame()) is False
    assert rest.approx_eq(f)


def test_angular_in_parent_and_accessors():
    q = Orientation.from_euler321(0.3, 0.2, 0.1)
    w_parent = np.array([0.1, 0.2, 0.3])
    al_parent = np.array([-1.0, 0.5, 0.25])
    m = MovingFrame(
        (0, 0, 0), q, angular_velocity=w_parent, angular_acceleration=al_parent, angular_in="parent"
    )
    np.testing.assert_allclose(m.angular_velocity_parent, w_parent, atol=1e-15)
    np.testing.assert_allclose(m.angular_acceleration_parent, al_parent, atol=1e-15)
    np.testing.assert_allclose(m.angular_velocity, q.inverse() * w_parent, atol=1e-15)
    with pytest.raises(ValueError, match="angular_in"):
        MovingFrame(angular_in="world")


def test_batch_moving_frames_match_loop():
    rng = np.random.default_rng(8)
    n = 10
    parts_a = [rng.normal(size=(n, 3)), Rotation.random(n, rng).as_quat(scalar_first=True)]
    parts_a += list(rng.normal(size=(4, n, 3)))
    parts_b = [rng.normal(size=(n, 3)), Rotation.random(n, rng).as_quat(scalar_first=True)]
    parts_b += list(rng.normal(size=(4, n, 3)))
    A, B = MovingFrame(*parts_a), MovingFrame(*parts_b)
    C = A >> B
    Ci = C.inverse()
    assert C.shape == (n,)
    for i in range(n):
        ai = MovingFrame(*(p[i] for p in parts_a))
        bi = MovingFrame(*(p[i] for p in parts_b))
        ci = ai >> bi
        assert ci.approx_eq(
            MovingFrame(
                C.translation[i],
                C.quaternion[i],
                C.velocity[i],
                C.angular_velocity[i],
                C.acceleration[i],
                C.angular_acceleration[i],
            ),
            1e-12,
        )
        np.testing.assert_allclose(ci.inverse().acceleration, Ci.acceleration[i], atol=1e-12)


def test_moving_name_checks():
    rng = np.random.default_rng(2)
    hand = random_moving(rng, name="hand", parent="arm")
    arm = random_moving(rng, name="arm", parent="base")
    belt = random_moving(rng, name="belt", parent="base")
    assert (hand >> arm).parent == "base"
    with pytest.raises(FrameMismatchError, match="frame 'arm' in 'base' >> frame 'hand' in"):
        arm >> hand
    with pytest.raises(
        FrameMismatchError, match="'hand' in 'arm' << frame 'belt' in 'base'.*'arm' and 'base'"
    ):
        hand << belt
    item = belt << arm  # belt seen from the arm
    assert (item.name, item.parent) == ("belt", "arm")
    named_frame = Frame(name="other", parent="x")
    with pytest.raises(FrameMismatchError, match="'hand' in 'arm' >> frame 'other' in 'x'"):
        hand >> named_frame


def test_validation_messages():
    with pytest.raises(ValueError, match=r"Expected velocity with shape \(\.\.\., 3\)"):
        MovingFrame(velocity=(1, 2))
    with pytest.raises(ValueError, match="angular_acceleration contains non-finite"):
        MovingFrame(angular_acceleration=(np.inf, 0, 0))
    m = MovingFrame()
    assert m.__rshift__(3) is NotImplemented
    with pytest.raises(TypeError):
        m >> "frame"
    with pytest.raises(TypeError, match="Expected frame to be a Frame"):
        MovingFrame.from_frame(Orientation.identity())
