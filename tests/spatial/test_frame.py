"""Frame (Actin coordinate system transformation): composition, inverse, matrices, names."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import mechsolve as ms
from mechsolve.spatial import Frame, FrameMismatchError, MovingFrame, Orientation

TOL = 1e-12


@pytest.fixture
def rng():
    return np.random.default_rng(777)


def random_frame(rng, **names):
    # the Generator by position: SciPy 1.14 names the argument random_state, 1.15 rng
    q = Rotation.random(None, rng).as_quat(scalar_first=True)
    return Frame(rng.normal(size=3), Orientation(q), **names)


frames = st.tuples(
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3),
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4).filter(
        lambda v: np.linalg.norm(v) > 0.1
    ),
).map(lambda tq: Frame(tq[0], Orientation(tq[1], normalize=True)))


def test_lead_design_constructors():
    f = Frame()
    np.testing.assert_array_equal(f.translation, [0, 0, 0])
    assert f.orientation == Orientation.identity()
    f = Frame((0, 0, -0.5))
    np.testing.assert_array_equal(f * (0, 0, 0), [0, 0, -0.5])
    g = Frame((1, 2, 3), Orientation.from_angle_axis(0.1, (1, 0, 0)))
    assert g.orientation.approx_eq(Orientation.from_x_rotation(0.1))
    h = Frame((1, 2, 3), (1, 0, 0, 0))  # raw quaternion accepted
    assert h.orientation == Orientation.identity()


def test_composition_matches_homogeneous_matrices(rng):
    a, b = random_frame(rng), random_frame(rng)
    np.testing.assert_allclose((a * b).as_matrix(), a.as_matrix() @ b.as_matrix(), atol=TOL)
    np.testing.assert_allclose((b >> a).as_matrix(), a.as_matrix() @ b.as_matrix(), atol=TOL)
    p = rng.normal(size=3)
    np.testing.assert_allclose(a * p, (a.as_matrix() @ np.append(p, 1))[:3], atol=TOL)
    np.testing.assert_allclose(a.inverse().as_matrix(), np.linalg.inv(a.as_matrix()), atol=TOL)
    assert Frame.from_matrix(a.as_matrix()).approx_eq(a, TOL)


def test_chain_equivalence_three_forms(rng):
    """Chrono-style: v >> f32 >> f21 >> f10 == f10 * f21 * f32 * v == nested formula."""
    f10, f21, f32 = random_frame(rng), random_frame(rng), random_frame(rng)
    v = rng.normal(size=3)
    by_shift = v >> f32 >> f21 >> f10
    by_mul = f10 * f21 * f32 * v
    R = [f.orientation.as_matrix() for f in (f10, f21, f32)]
    t = [f.translation for f in (f10, f21, f32)]
    nested = t[0] + R[0] @ (t[1] + R[1] @ (t[2] + R[2] @ v))
    np.testing.assert_allclose(by_shift, nested, atol=TOL)
    np.testing.assert_allclose(by_mul, nested, atol=TOL)
    np.testing.assert_allclose(v >> (f32 >> f21 >> f10), nested, atol=TOL)
    np.testing.assert_allclose(tuple(v) >> f32 >> f21 >> f10, nested, atol=TOL)
    np.testing.assert_allclose(list(v) >> f32 >> f21 >> f10, nested, atol=TOL)
    # inverse direction with <<
    np.testing.assert_allclose(nested << f10 << f21 << f32, v, atol=TOL)


def test_lshift_is_inverse_composition(rng):
    f10, f21, f32 = random_frame(rng), random_frame(rng), random_frame(rng)
    f30 = f32 >> f21 >> f10
    assert (f30 << f10 << f21).approx_eq(f32, TOL)
    assert (f30 >> f10.inverse()).approx_eq((f30 << f10), TOL)


@settings(max_examples=50, deadline=None)
@given(frames, frames, frames)
def test_group_laws(a, b, c):
    assert ((a * b) * c).approx_eq(a * (b * c), 1e-11)
    assert ((a >> b) >> c).approx_eq(a >> (b >> c), 1e-11)
    e = Frame()
    assert (a * e).approx_eq(a, 1e-14) and (e * a).approx_eq(a, 1e-14)
    assert (a * a.inverse()).approx_eq(e, 1e-11)
    assert (a.inverse() * a).approx_eq(e, 1e-11)
    assert a.inverse().inverse().approx_eq(a, 1e-11)


def test_batch_compose_matches_loop(rng):
    n = 20
    t1, t2 = rng.normal(size=(2, n, 3))
    q1 = Rotation.random(n, rng).as_quat(scalar_first=True)
    q2 = Rotation.random(n, rng).as_quat(scalar_first=True)
    A, B = Frame(t1, Orientation(q1)), Frame(t2, q2)
    C = A * B
    assert C.shape == (n,)
    for i in range(n):
        single = Frame(t1[i], q1[i]) * Frame(t2[i], q2[i])
        assert single.approx_eq(Frame(C.translation[i], C.quaternion[i]), TOL)
    p = rng.normal(size=(n, 3))
    np.testing.assert_allclose(C * p, A * (B * p), atol=TOL)
    # broadcasting: one frame against a stack
    D = A * Frame((1, 0, 0))
    assert D.shape == (n,)
    assert np.all((A.inverse() * A).approx_eq(Frame(np.zeros((n, 3)))))
    assert Frame.from_matrix(C.as_matrix()).approx_eq(C, TOL).all()


def test_frame_broadcast_translation_and_orientation_stack():
    f = Frame((1, 2, 3), Orientation.from_z_rotation(np.linspace(0, 1, 4)))
    assert f.shape == (4,)
    np.testing.assert_array_equal(f.translation, np.tile([1, 2, 3], (4, 1)))


def test_points_and_directions(rng):
    f = random_frame(rng)
    p = rng.normal(size=(5, 3))
    np.testing.assert_allclose(f.transform_point(p), f * p, atol=TOL)
    np.testing.assert_allclose(f.inverse_transform_point(f * p), p, atol=TOL)
    np.testing.assert_allclose(f.transform_direction(p), f.orientation * p, atol=TOL)


def test_named_chain_and_names_of_results(rng):
    f10 = random_frame(rng, name="link1", parent="base")
    f21 = random_frame(rng, name="link2", parent="link1")
    f32 = random_frame(rng, name="tool", parent="link2")
    f30 = f32 >> f21 >> f10
    assert (f30.name, f30.parent) == ("tool", "base")
    g = f10 * f21 * f32
    assert (g.name, g.parent) == ("tool", "base")
    inv = f10.inverse()
    assert (inv.name, inv.parent) == ("base", "link1")
    f32b = f30 << f10 << f21
    assert (f32b.name, f32b.parent) == ("tool", "link2")
    # unnamed frames pass through without checks
    h = f32 >> Frame((1, 0, 0))
    assert (h.name, h.parent) == ("tool", None)


def test_name_mismatch_errors(rng):
    f10 = random_frame(rng, name="link1", parent="base")
    f21 = random_frame(rng, name="link2", parent="link1")
    f32 = random_frame(rng, name="tool", parent="link2")
    with pytest.raises(
        FrameMismatchError,
        match=r"cannot chain frame 'tool' in 'link2' >> frame 'link1' in 'base': the left "
        r"frame is expressed in 'link2' but the right frame is 'link1'",
    ):
        f32 >> f10
    with pytest.raises(FrameMismatchError, match=r"'link1' in 'base' \* frame 'tool' in 'link2'"):
        f10 * f32
    with pytest.raises(
        FrameMismatchError, match=r"<< frame 'link2' in 'link1'.*'base' and 'link1'"
    ):
        (f32 >> f21 >> f10) << f21
    with pytest.raises(FrameMismatchError, match="frame 'base' in 'link1' >> frame 'link2'"):
        f10.inverse() >> f21
    assert issubclass(FrameMismatchError, ValueError)


def test_validation(rng):
    with pytest.raises(ValueError, match=r"Expected translation with shape \(\.\.\., 3\)"):
        Frame((1, 2))
    with pytest.raises(ValueError, match="translation contains non-finite"):
        Frame((1, np.nan, 0))
    with pytest.raises(
        ValueError,
        match=r"^orientation quaternion must have unit norm \(got \[1.0, 1.0, 1.0, 1.0\] with "
        r"norm 2\); pass Orientation\(q, normalize=True\) to rescale$",
    ):
        Frame((0, 0, 0), (1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"^orientation quaternion .* norm 0.5 at index \[1\]"):
        Frame((0, 0, 0), [(1, 0, 0, 0), (0.5, 0, 0, 0)])
    with pytest.raises(
        ValueError,
        match=r"Expected translation and orientation with batch shapes .* broadcast together, "
        r"got translation \(2, 3\), orientation \(3, 4\)",
    ):
        Frame(np.zeros((2, 3)), np.tile([1.0, 0, 0, 0], (3, 1)))
    with pytest.raises(ValueError, match=r"got translation \(2, 3\), .* velocity \(3, 3\)"):
        MovingFrame(np.zeros((2, 3)), velocity=np.zeros((3, 3)))
    with pytest.raises(TypeError, match="orientation"):
        Frame((0, 0, 0), "identity")
    with pytest.raises(TypeError, match="name"):
        Frame(name=3)
    with pytest.raises(ValueError, match="last row"):
        Frame.from_matrix(np.ones((4, 4)))
    f = random_frame(rng)
    with pytest.raises(ValueError, match=r"Expected points with shape"):
        f * (1, 2)
    assert f.__mul__("x") is NotImplemented
    with pytest.raises(TypeError):
        f >> 3
    with pytest.raises(TypeError):
        f.approx_eq(Orientation.identity())


def test_add_body_names_the_orientation_argument():
    mech = ms.Mechanism(dim=3)
    with pytest.raises(
        ValueError,
        match=r"^orientation quaternion must have unit norm \(got \[2.0, 0.0, 0.0, 0.0\] with "
        r"norm 2\); pass ms.Orientation\(q, normalize=True\) to rescale$",
    ):
        mech.add_body("c", orientation=(2.0, 0.0, 0.0, 0.0))
    body = mech.add_body("d", orientation=(1.0 + 1e-9, 0.0, 0.0, 0.0))  # within 1e-6: rescaled
    np.testing.assert_array_equal(body.quaternion, [1.0, 0.0, 0.0, 0.0])


def test_numpy_array_on_left_defers_to_frame():
    f = Frame((1, 0, 0))
    p = np.zeros((2, 3))
    out = p >> f
    np.testing.assert_array_equal(out, [[1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(out << f, p)


def test_equality_and_repr():
    a = Frame((1, 2, 3), name="a", parent="b")
    assert a == Frame((1, 2, 3), name="a", parent="b")
    assert a != Frame((1, 2, 3))
    assert repr(Frame((0, 0, -0.5))) == (
        "Frame((0.0, 0.0, -0.5), Orientation(w=1.0, x=0.0, y=0.0, z=0.0))"
    )


def test_frame_mixes_with_moving_frame(rng):
    f = random_frame(rng)
    m = MovingFrame(rng.normal(size=3), velocity=(1, 0, 0), angular_velocity=(0, 0, 1))
    assert isinstance(f >> m, MovingFrame)
    assert isinstance(m >> f, MovingFrame)
    assert isinstance(f * m, MovingFrame)
    assert isinstance(m * f, MovingFrame)
    assert (f >> m).as_frame().approx_eq(f >> m.as_frame(), TOL)
    assert (m >> f).as_frame().approx_eq(m.as_frame() >> f, TOL)
    assert (f * m).approx_eq(m >> f, TOL)


def test_pickle_copy_and_with_names():
    import copy
    import pickle

    m = MovingFrame((1, 2, 3), Orientation.from_x_rotation(0.3), (1, 0, 0), name="a", parent="b")
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert clone == m
        assert not clone.velocity.flags.writeable
    renamed = m.with_names("c", "d")
    assert (renamed.name, renamed.parent) == ("c", "d")
    assert renamed.approx_eq(m)
    f = Frame((1, 0, 0)).with_names("x")
    assert (f.name, f.parent) == ("x", None)
