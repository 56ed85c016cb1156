"""Free motions: followed along the constraints (not extrapolated), wiggled and animated."""

import gc

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

import mechsolve as ms
from mechsolve import joints
from mechsolve import plot as msplot
from mechsolve.analysis import free_motion_amplitude, free_motion_path, wiggle_free_motions
from mechsolve.models import fourbar
from mechsolve.models.spatial import spherical_fourbar

# Animations stepped by hand (anim._func) are never rendered by matplotlib itself.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
    gc.collect()


def _undriven(factory):
    """The model assembled at its first driver value, then its driver removed."""
    model = factory()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    return mech


def _five_bar(driven: bool = False):
    """A planar five-bar (two free motions; one with ``driven``)."""
    model = ms.models.five_bar()
    if not driven:
        model.mechanism.remove(model.driver)
    return model.mechanism


def _worst(mech, states) -> float:
    return float(np.max(np.abs(mech.system().phi(np.asarray(states)))))


def _gif_frames(path):
    with Image.open(path) as im:
        assert im.format == "GIF"
        frames = []
        for i in range(im.n_frames):
            im.seek(i)
            frames.append(np.asarray(im.convert("RGB"), dtype=float))
    return frames


# -- following the constraints -----------------------------------------------------------------
@pytest.mark.parametrize("factory", [fourbar, spherical_fourbar])
def test_wiggle_poses_satisfy_every_constraint_unlike_linear_extrapolation(factory):
    mech = _undriven(factory)
    q0 = mech.state
    wiggle = wiggle_free_motions(mech, frames=16)
    assert len(wiggle) == 16 and wiggle.values.max() > 0 > wiggle.values.min()
    assert _worst(mech, wiggle.states) <= 1e-9
    assert not any(wiggle.limited.values())
    # The straight line q0 (+) s b through the same s breaks the joints.
    system = mech.system()
    b = wiggle.basis[0]
    s = wiggle.values.max()
    assert _worst(mech, system.retract(q0, s * b)) > 1e-4
    # Back at s = 0 the wiggle is back at the start pose.
    np.testing.assert_allclose(wiggle.states[0], q0, atol=1e-12)
    np.testing.assert_allclose(wiggle.states[8], q0, atol=1e-9)


@pytest.mark.parametrize("factory", [fourbar, spherical_fourbar])
def test_small_displacements_are_along_the_basis_vector(factory):
    mech = _undriven(factory)
    q0 = mech.state
    b = mech.free_motions()[0]
    path = mech.free_motion_path(0, [1e-3, -1e-3, 1e-2])
    d = mech.system().difference(path.states, q0)
    cosine = d @ b / np.linalg.norm(d, axis=1)
    np.testing.assert_array_less(0.999, cosine * np.sign(path.values))
    np.testing.assert_allclose(d @ b, path.values, atol=1e-12)  # the chart coordinate is s
    assert _worst(mech, path.states) <= 1e-9


def test_two_free_motions_are_wiggled_one_after_the_other_each_alone():
    mech = _five_bar()
    q0 = mech.state
    wiggle = wiggle_free_motions(mech, frames=12)
    assert len(wiggle.basis) == 2 and len(wiggle) == 24
    assert wiggle.motion_index.tolist() == [0] * 12 + [1] * 12
    assert wiggle.labels[3].startswith("free motion 1 of 2: s = +")
    assert wiggle.labels[15].startswith("free motion 2 of 2: s = +")
    assert _worst(mech, wiggle.states) <= 1e-9
    chart = mech.system().difference(wiggle.states, q0) @ wiggle.basis.T
    np.testing.assert_allclose(chart[:12, 1], 0.0, atol=1e-12)  # the other motion held still
    np.testing.assert_allclose(chart[12:, 0], 0.0, atol=1e-12)
    np.testing.assert_allclose(chart[:12, 0], wiggle.values[:12], atol=1e-12)


def test_a_driver_left_in_place_is_held():
    mech = _five_bar(driven=True)
    motor = mech.joint("motor")
    wiggle = wiggle_free_motions(mech, frames=8)
    assert len(wiggle.basis) == 1 and len(wiggle) == 8
    angles = wiggle.pose(mech.body("a"))[:, 2]
    np.testing.assert_allclose(angles, motor.value, atol=1e-10)
    assert np.ptp(wiggle.pose(mech.body("c"))[:, 2]) > 0.1  # the rest moves


def test_a_limit_stops_that_wiggle_and_the_next_motion_still_runs():
    mech = _five_bar()
    q0 = mech.state
    wiggle = wiggle_free_motions(mech, frames=16, amplitude=[6.0, 0.2])
    assert wiggle.limited == {0: True, 1: False}
    lo, hi = wiggle.reached[0]
    assert -6.0 < lo < 0.0 < hi < 6.0
    first = wiggle.values[:16]
    assert first.max() == hi and first.min() == lo  # waits at the limit pose
    assert any(label.endswith("(limit)") for label in wiggle.labels[:16])
    assert not any(label.endswith("(limit)") for label in wiggle.labels[16:])
    np.testing.assert_allclose(np.abs(wiggle.values[16:]).max(), 0.2)
    assert _worst(mech, wiggle.states) <= 1e-9
    np.testing.assert_array_equal(mech.state, q0)


def test_free_motion_path_checks_its_arguments():
    mech = _undriven(fourbar)
    with pytest.raises(ValueError, match=r"index must be in 0\.\.0"):
        free_motion_path(mech, 1, [0.1])
    with pytest.raises(TypeError, match="index"):
        free_motion_path(mech, 0.5, [0.1])
    with pytest.raises(ValueError, match="amplitudes"):
        free_motion_path(mech, 0, [])
    with pytest.raises(ValueError, match="amplitude must be"):
        wiggle_free_motions(mech, amplitude=[0.1, 0.2])
    mech.state = mech.state + 0.1
    with pytest.raises(ms.SolveError, match="assembled"):
        free_motion_path(mech, 0, [0.1])


def test_default_amplitude_turns_a_body_by_about_two_tenths_of_a_radian():
    mech = _undriven(fourbar)
    b = mech.free_motions()[0]
    amplitude = free_motion_amplitude(mech, b)
    turn = np.max(np.abs(b[2::3])) * amplitude
    assert turn == pytest.approx(0.2)
    wiggle = wiggle_free_motions(mech, frames=8)
    swing = np.ptp(wiggle.states[:, 2::3], axis=0).max() / 2
    assert 0.15 < swing < 0.25
    # A sliding motion is sized by the mechanism's extent instead: 8 % of its diagonal.
    mech = ms.Mechanism()
    block = mech.add_body("block", position=(2.0, 1.0))
    mech.add(joints.Prismatic(mech.ground, block, (0, 1), (0, 0), axis=(1, 0)))
    mech.solve()
    (slide,) = mech.free_motions()
    np.testing.assert_allclose(np.abs(slide), [1, 0, 0], atol=1e-12)
    extent = np.hypot(2.0, 1.0)  # from the ground origin to the block
    assert free_motion_amplitude(mech, slide) == pytest.approx(0.08 * extent)
    assert free_motion_amplitude(mech, slide, [(block, (1.0, 2.0))]) == \
        pytest.approx(0.08 * np.hypot(3.0, 3.0))


# -- animation ---------------------------------------------------------------------------------
def test_fourbar_without_its_driver_animates_its_one_free_motion_as_a_gif(tmp_path):
    mech = _undriven(fourbar)
    q0 = mech.state
    assert mech.free_motions().shape == (1, 9)
    anim = msplot.animate_free_motions(mech, frames=20)
    assert len(anim.indices) == 20
    assert anim.motion.labels[0] == "free motion 1 of 1: s = 0"
    artists = anim._func(5)
    assert artists[-1].get_text().startswith("free motion 1 of 1: s = +")
    path = tmp_path / "free.gif"
    anim.save(path, dpi=40)
    frames = _gif_frames(path)
    assert len(frames) == 20
    assert np.abs(frames[0] - frames[5]).mean() > 0.05  # the mechanism moves
    np.testing.assert_array_equal(mech.state, q0)


def test_spherical_fourbar_without_its_driver_animates_in_3d(tmp_path):
    mech = _undriven(spherical_fourbar)
    q0 = mech.state
    anim = msplot.animate_free_motions(mech, frames=8)
    assert isinstance(anim.drawing, msplot.Drawing3D)
    rocker = mech.body("rocker")
    outlines = []
    for k in (0, 2, 6):
        anim._func(k)
        outlines.append(anim.drawing.outline(rocker).copy())
    assert np.abs(outlines[1] - outlines[0]).max() > 0.02
    assert np.abs(outlines[2] - outlines[0]).max() > 0.02
    path = tmp_path / "spherical.gif"
    anim.save(path, dpi=30)
    assert len(_gif_frames(path)) == 8
    assert _worst(mech, anim.motion.states) <= 1e-9
    np.testing.assert_array_equal(mech.state, q0)


def test_state_time_and_drivers_are_unchanged_afterwards():
    mech = _five_bar(driven=True)
    motor = mech.joint("motor")
    q0, value, t = mech.state, motor.value, mech.time
    anim = msplot.animate_free_motions(mech, frames=6, amplitude=5.0)  # runs into limits
    anim._func(3)
    mech.free_motion_path(0, np.linspace(-3, 3, 7))
    np.testing.assert_array_equal(mech.state, q0)
    assert motor.value == value and mech.time == t


def test_a_fully_driven_mechanism_has_no_free_motion_to_animate():
    model = fourbar()
    mech = model.mechanism
    mech.solve()
    assert mech.free_motions().shape == (0, 9)
    with pytest.raises(ValueError, match=r"four-bar is fully driven \(0 free motions\)"):
        msplot.animate_free_motions(mech)
    with pytest.raises(ValueError, match=r"fully driven \(0 free motions\)"):
        mech.free_motion_path(0, [0.1])


@pytest.mark.parametrize("factory", [fourbar, spherical_fourbar])
def test_chart_jacobian_matches_finite_differences(factory):
    # [J; B D] is the derivative of [Phi; B difference(q, q0)] with respect to the increment
    # (q <- q (+) dq); checked away from q0, where D differs from the identity for rotations.
    from mechsolve.analysis.free_motion import _Chart

    mech = _undriven(factory)
    system = mech.system()
    B = mech.free_motions()
    chart = _Chart(mech, B, 0, 1e-10, 25)
    rng = np.random.default_rng(3)
    q = system.retract(mech.state, 0.3 * rng.standard_normal(system.n))

    def f(x):
        return np.concatenate([system.phi(x), chart.chart(x)])

    _, vals = system.evaluate(q)
    analytic = chart._stacked(q, vals)
    h = 1e-6
    numeric = np.stack([(f(system.retract(q, h * e)) - f(system.retract(q, -h * e))) / (2 * h)
                        for e in np.eye(system.n)], axis=1)
    np.testing.assert_allclose(analytic, numeric, atol=1e-7 * max(1.0, np.abs(numeric).max()))
