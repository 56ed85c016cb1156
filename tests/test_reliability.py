"""Regression tests of the reliability campaign (issue 18): each case as the issue wrote it."""

from __future__ import annotations

import numpy as np
import pytest
from _round_off import assert_same_states

import mechsolve as ms
from mechsolve import joints


# -- motion profiles survive the assembly phase -------------------------------------------------
def test_a_profile_survives_a_solve_through_assembly():
    m = ms.models.fourbar()
    mech, motor = m.mechanism, m.driver
    coupler, rocker = mech.body("coupler"), mech.body("rocker")
    coupler.position, coupler.angle = (2.0, 0.0), 0.0
    rocker.position, rocker.angle = (4.0, 1.0), 3.0
    motor.value = ms.profiles.ConstantSpeed(2.0, start=0.5)
    assert mech.solve(t=0.0).success
    assert isinstance(motor.profile, ms.profiles.ConstantSpeed)
    assert mech.velocity()[2] == pytest.approx(2.0, rel=1e-12)
    mech.solve(t=1.0)
    assert mech.body("crank").angle == pytest.approx(2.5, rel=1e-12)


# -- solve_batch arguments ----------------------------------------------------------------------
@pytest.fixture
def fourbar():
    m = ms.models.fourbar()
    return m.mechanism, m.driver


def test_solve_batch_takes_driver_names(fourbar):
    mech, motor = fourbar
    by_name = mech.solve_batch(values={"motor": [0.1, 0.2]})
    by_joint = mech.solve_batch(values={motor: [0.1, 0.2]})
    assert_same_states(mech, by_name.states, by_joint.states)   # to round-off (issue 26)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(values={"O2": [0.1]}), TypeError, r"Revolute 'O2' is not a driver"),
    (dict(values={"nope": [0.1]}), KeyError, r"no joint named 'nope'"),
    (dict(values={"motor": [0.1]}, max_iterations="x"), TypeError,
     r"max_iterations must be an integer, got str 'x'"),
    (dict(values={"motor": [0.1]}, tol=-1), ValueError, r"tol must be positive"),
    (dict(values={"motor": [0.1]}, max_iterations=0), ValueError,
     r"max_iterations must be at least 1"),
    (dict(values={"motor": []}), ValueError, r"non-empty 1-D array of driver values, got shape"),
    (dict(values={"motor": [[0.1, 0.2]]}), ValueError, r"got shape \(1, 2\)"),
    (dict(values={"motor": [np.nan]}), ValueError, r"only finite numbers"),
    (dict(values=[0.1]), TypeError, r"values must be a dict"),
    (dict(), ValueError, r"needs the batch"),
])
def test_solve_batch_arguments_are_named(fourbar, kwargs, error, message):
    mech, _ = fourbar
    with pytest.raises(error, match=message):
        mech.solve_batch(**kwargs)


def test_solve_batch_sizes_must_agree(fourbar):
    mech, _ = fourbar
    with pytest.raises(ValueError, match=r"batch sizes disagree: .*has 2, states has 3"):
        mech.solve_batch(np.repeat(mech.state[None], 3, axis=0), values={"motor": [0.1, 0.2]})


# -- states are poses ---------------------------------------------------------------------------
def test_a_state_with_a_non_unit_quaternion_is_refused():
    mech = ms.models.spatial.rssr().mechanism
    q = mech.state
    bad = q.copy()
    bad[3:7] = [5.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"state: the quaternion of body 'crank' must have "
                                         r"norm 1 \(within 1e-6\), got norm 5"):
        mech.state = bad
    np.testing.assert_array_equal(mech.state, q)
    with pytest.raises(ValueError, match=r"states: item 1: the quaternion of body 'crank'"):
        mech.solve_batch(np.array([q, bad]))
    nearly = q.copy()
    nearly[3:7] *= 1.0 + 1e-9          # within tolerance: normalized
    mech.state = nearly
    assert np.linalg.norm(mech.state[3:7]) == pytest.approx(1.0, abs=2e-16)


def test_an_absurd_angle_is_refused():
    mech = ms.Mechanism()
    with pytest.raises(ValueError, match=r"angle must be within \+-1e\+06 rad .*got 1e\+300"):
        mech.add_body("b", (0.0, 0.0), 1e300)
    b = mech.add_body("b")
    with pytest.raises(ValueError, match=r"angle must be within"):
        b.angle = -1e300
    q = mech.state
    q[2] = 1e7
    with pytest.raises(ValueError, match=r"the angle of body 'b' must be within"):
        mech.state = q


# -- remove, apply, models ----------------------------------------------------------------------
def test_a_driven_revolute_cannot_be_removed():
    mech = ms.Mechanism()
    crank = mech.add_body("crank", (0.5, 0.0))
    pin = mech.add(joints.Revolute(mech.ground, crank, (0, 0), (-0.5, 0), name="O"))
    mech.add(joints.AngleDriver(pin, 0.0, name="motor"))
    with pytest.raises(ValueError, match=r"Revolute 'O' cannot be removed while AngleDriver "
                                         r"'motor' drives it; remove the driver first"):
        mech.remove(pin)
    assert pin in mech.joints
    mech.remove(mech.joint("motor"))
    mech.remove(pin)
    assert not mech.joints


def test_motion_apply_names_a_bad_index(fourbar):
    mech, motor = fourbar
    motion = mech.sweep(motor, [0.1, 0.2])
    with pytest.raises(ValueError, match=r"pose index in \[-2, 2\) for a motion of 2 poses, "
                                         r"got 1000"):
        motion.apply(1000)
    with pytest.raises(TypeError, match=r"i must be an integer pose index"):
        motion.apply(0.5)
    motion.apply(-1)
    assert motor.value == pytest.approx(0.2)


def test_an_rssr_that_cannot_assemble_says_so():
    with pytest.raises(ValueError, match=r"RSSR with crank 1, rocker 0.1 and coupler 10 .* "
                                         r"cannot be assembled at crank angle 0"):
        ms.models.spatial.rssr(crank=1.0, rocker=0.1, coupler=10.0)
    with pytest.raises(ValueError, match=r"crank must be positive"):
        ms.models.spatial.rssr(crank=-1.0)


def test_the_namespace_holds_only_mechsolve_names():
    public = [n for n in dir(ms) if not n.startswith("_")]
    assert "annotations" not in public and "TYPE_CHECKING" not in public
    for name in public:
        value = getattr(ms, name)
        assert getattr(value, "__module__", getattr(value, "__name__", "")).startswith(
            "mechsolve"), name


def test_the_scipy_floor_has_what_mechsolve_uses():
    """pyproject's SciPy floor must have Rotation.as_quat(scalar_first=...) (SciPy 1.14)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "pyproject.toml").read_text()
    floor = tuple(int(v) for v in re.search(r'"scipy>=(\d+)\.(\d+)"', text).groups())
    assert floor >= (1, 14)
