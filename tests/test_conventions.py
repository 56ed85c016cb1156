"""Conventions said and checked: angles in radians (ms.rad, ms.deg), warnings on input that looks
like degrees, and on sweeps of mechanisms the drivers do not fully fix."""

import re
import warnings

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints

TURN = np.linspace(0.0, 2 * np.pi, 361)


def _pendulum():
    """One body on a ground pivot, driven in angle: fully driven."""
    mech = ms.Mechanism()
    arm = mech.add_body("arm", position=(0.5, 0.0))
    pivot = mech.add(joints.Revolute(mech.ground, arm, (0.0, 0.0), (-0.5, 0.0)))
    return mech, arm, pivot


def _readme_fourbar():
    """The README's four-bar, as the README builds it."""
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0)))
    mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0)))
    return mech, crank, coupler


def _only(record, category):
    """The one warning of ``category`` in ``record`` (a pytest.warns record)."""
    found = [w for w in record if issubclass(w.category, category)]
    assert len(found) == 1, [str(w.message) for w in record]
    return found[0]


# -- ms.rad and ms.deg --------------------------------------------------------------------------
def test_rad_and_deg_convert_like_numpy():
    assert ms.rad(45) == np.radians(45.0) and type(ms.rad(45)) is float
    assert ms.deg(np.pi) == 180.0 and type(ms.deg(np.float32(1.0))) is float
    assert type(ms.rad(np.int64(90))) is float
    a = ms.rad([[0, 90], [180, 360]])
    assert isinstance(a, np.ndarray) and a.shape == (2, 2) and a.dtype == float
    np.testing.assert_array_equal(a, np.radians([[0, 90], [180, 360]]))
    x = np.linspace(-7.0, 7.0, 15)
    np.testing.assert_allclose(ms.rad(ms.deg(x)), x, rtol=1e-15)


@pytest.mark.parametrize("bad", ["45", None, True, 1 + 2j, np.array([1j]), [1, "a"], {}])
def test_rad_and_deg_refuse_what_is_not_a_real_number(bad):
    with pytest.raises(TypeError, match=r"^degrees must be"):
        ms.rad(bad)
    with pytest.raises(TypeError, match=r"^radians must be"):
        ms.deg(bad)


def test_rad_refuses_a_ragged_sequence():
    with pytest.raises(ValueError, match=r"^degrees must be a real number or an array"):
        ms.rad([[1, 2], [3]])


# -- DegreesWarning -----------------------------------------------------------------------------
@pytest.mark.parametrize("value", [45, 90.0, -180, 360, 7])
def test_an_angle_value_that_looks_like_degrees_warns_at_the_users_line(value):
    mech, arm, _ = _pendulum()
    motor = mech.add(joints.Driver(arm, "angle", 0.0, name="motor"))
    with pytest.warns(ms.DegreesWarning, match=rf"motor.*value {value:g} looks like degrees.*"
                                                rf"ms\.rad\({value:g}\)") as record:
        motor.value = value
    assert _only(record, ms.DegreesWarning).filename == __file__
    assert motor.value == value   # a warning, not a refusal


def test_an_angle_driver_built_with_degrees_warns_at_the_users_line():
    mech, arm, pivot = _pendulum()
    with pytest.warns(ms.DegreesWarning, match="value 45 looks like degrees") as record:
        joints.Driver(arm, "angle", 45)
    assert _only(record, ms.DegreesWarning).filename == __file__
    with pytest.warns(ms.DegreesWarning, match="AngleDriver.*value 30 looks like") as record:
        joints.AngleDriver(pivot, 30.0)
    assert _only(record, ms.DegreesWarning).filename == __file__


def test_spatial_and_link_angle_drivers_warn_too():
    mech = ms.Mechanism(dim=3)
    door = mech.add_body("door", position=(0, 0, 1))
    hinge = mech.add(joints.Revolute(mech.ground, door, (0, 0, 1), (0, 0, 0), axis=(0, 0, 1)))
    with pytest.warns(ms.DegreesWarning) as record:
        joints.AngleDriver(hinge, 90)
    assert _only(record, ms.DegreesWarning).filename == __file__
    arm = ms.Mechanism(dim=3)
    link = arm.add_body("link", position=(0, 0, 0))
    rev = arm.add(joints.RevoluteLink(arm.ground, link))
    drive = arm.add(joints.CoordinateDriver(rev, 0.5))
    assert drive.is_angle
    with pytest.warns(ms.DegreesWarning):
        drive.value = 45


def test_lengths_and_radians_do_not_warn():
    mech, arm, pivot = _pendulum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        motor = mech.add(joints.Driver(arm, "angle", 0.5))
        for v in (0.5, 1, 6, -6, 3 * np.pi, 7.5, ms.rad(45), 1e6 - 0.5):
            motor.value = v   # radians, or no whole number above 2 pi
        motor.value = ms.profiles.ConstantSpeed(speed=100.0)   # a profile: a time's angle
        other = ms.Mechanism()
        b = other.add_body("b")
        assert not other.add(joints.Driver(b, "x", 45.0)).is_angle
        prism = other.add(joints.Prismatic(other.ground, b, (0, 0), (0, 0), axis=(1, 0)))
        slide = other.add(joints.SlideDriver(prism, 45.0))
        slide.value = 90
        c = other.add_body("c", position=(100, 0))
        other.add(joints.DistanceDriver(other.ground, c, value=100.0))
    assert motor.is_angle and not slide.is_angle


def test_a_sweep_over_more_than_twenty_turns_warns_once():
    mech, crank, _ = _readme_fourbar()
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    mech.solve()
    for batch in (True, False):
        with pytest.warns(ms.DegreesWarning, match=r"sweep of Driver 'motor'.*spans 360 rad "
                                                   r"\(57\.3 turns\).*ms\.rad") as record:
            motion = mech.sweep(drive, np.arange(0, 361), batch=batch)
        assert _only(record, ms.DegreesWarning).filename == __file__
        assert len(record) == 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            motion.apply(90)   # the swept values as they are: the sweep warned already
        assert drive.value == 90


def test_usual_sweeps_do_not_warn():
    mech, crank, coupler = _readme_fourbar()
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mech.solve()
        drive.value = np.pi / 4
        mech.solve()
        for batch in (True, False):
            motion = mech.sweep(drive, TURN, batch=batch)
            motion.point(coupler, (0.0, 1.0))
            mech.sweep(drive, np.linspace(0.0, 40 * np.pi, 801), batch=batch)   # 20 turns
        for model in (ms.models.slider_crank(), ms.models.watt_sixbar()):
            model.mechanism.sweep(model.driver, model.values)


# -- FreeMotionWarning --------------------------------------------------------------------------
def _dangling():
    """The README four-bar with a crank driver and one more body pinned to the coupler: one
    degree of freedom no driver fixes."""
    mech, crank, coupler = _readme_fourbar()
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    flap = mech.add_body("flap", position=(2.0, 2.0))
    mech.add(joints.Revolute(coupler, flap, (0.0, 1.0), (-0.5, 0.0)))
    return mech, drive


@pytest.mark.parametrize("batch", [True, False])
def test_a_sweep_with_free_dof_left_warns_at_the_users_line(batch):
    mech, drive = _dangling()
    with pytest.warns(ms.FreeMotionWarning, match=r"the sweep runs with 1 degree of freedom "
                                                  r"that no driver fixes.*Add a driver") as rec:
        motion = mech.sweep(drive, TURN, batch=batch)
    assert _only(rec, ms.FreeMotionWarning).filename == __file__
    assert len(motion.values) == 361   # a warning: the sweep goes ahead


def test_a_sweep_with_two_free_dof_says_two():
    mech, drive = _dangling()
    tail = mech.add_body("tail", position=(3.0, 2.0))
    mech.add(joints.Revolute(mech.body("flap"), tail, (0.5, 0.0), (-0.5, 0.0)))
    with pytest.warns(ms.FreeMotionWarning, match=r"2 degrees of freedom.*Add 2 drivers"):
        mech.sweep(drive, [0.0, 0.1])


def test_a_time_sweep_with_free_dof_left_warns():
    mech, drive = _dangling()
    drive.value = ms.profiles.ConstantSpeed(speed=1.0)
    with pytest.warns(ms.FreeMotionWarning, match=r"the time sweep runs with 1 degree") as rec:
        mech.sweep_time(np.linspace(0.0, 1.0, 11))
    assert _only(rec, ms.FreeMotionWarning).filename == __file__


def test_solve_stays_silent_and_reports_the_free_dof():
    mech, drive = _dangling()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = mech.solve()   # assembling before the drivers are added is common
    assert result.rank_status == "underdetermined" and result.free_dof == 1


def test_a_fully_driven_sweep_and_time_sweep_do_not_warn():
    mech, crank, _ = _readme_fourbar()
    drive = mech.add(joints.Driver(crank, "angle", 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mech.sweep(drive, TURN)
        drive.value = ms.profiles.ConstantSpeed(speed=1.0)
        mech.sweep_time(np.linspace(0.0, 1.0, 11))


def test_the_warnings_are_one_family():
    assert issubclass(ms.FreeMotionWarning, ms.MechsolveWarning)
    assert issubclass(ms.DegreesWarning, ms.MechsolveWarning)
    assert issubclass(ms.MechsolveWarning, UserWarning)
    for name in ("MechsolveWarning", "FreeMotionWarning", "DegreesWarning", "rad", "deg"):
        assert name in ms.__all__
    rule = re.sub(r"\s+", " ", ms.DegreesWarning.__doc__)
    assert "whole number larger than ``2 pi``" in rule and "20 turns" in rule


def test_the_readme_example_runs_without_warnings():
    import pathlib

    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.DOTALL).group(1)
    assert "mech.sweep(drive" in code
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace = {}
        exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["path"].shape == (361, 2)


def test_the_readme_states_the_conventions():
    import pathlib

    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("## Conventions"):readme.index("## What is there")]
    for words in ("Angles in radians", "ms.rad(45)", "ms.deg(", "body-local",
                  "frame's z", "Model files declare their units", "branch=",
                  "ms.DegreesWarning", "whole number larger than 2 pi", "20 turns",
                  "ms.FreeMotionWarning"):
        assert words in " ".join(section.split()), words
