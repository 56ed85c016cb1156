"""Sweeps say what went wrong (issue 26, smaller gaps).

* ``mech.sweep(drive, np.linspace(0, 90, 91))`` (degrees meant) ran silently, while
  ``drive.value = 30`` warns: the values above 2 pi are all whole numbers, each of which would
  warn as a driver's value, so the sweep warns the same way (DegreesWarning, once).
* ``motion.velocity()`` on a position sweep said "it comes from a time sweep"; it now says the
  motion is a position sweep and how to get velocities (a motion profile and a time sweep).
* A sweep whose value is exactly a limit position said "cannot reach value 250 ... followed up
  to 250"; it now says the value is the limit position itself, and writes the value it was
  followed up to with the digits that tell the two apart.
"""

import warnings

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints


def _fourbar():
    model = ms.models.fourbar()
    return model.mechanism, model.driver


def _only(record, category):
    found = [w for w in record if issubclass(w.category, category)]
    assert len(found) == 1, [str(w.message) for w in record]
    return found[0]


# -- degrees ------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [True, False])
def test_a_sweep_in_whole_degrees_warns_like_a_value_in_degrees(batch):
    mech, drive = _fourbar()
    with pytest.warns(ms.DegreesWarning, match=r"value 30 looks like degrees"):
        drive.value = 30
    drive.value = 0.0
    with pytest.warns(ms.DegreesWarning,
                      match=r"the sweep of Driver 'motor' on crank: values up to 90 look like "
                            r"degrees \(every value above 2 pi is a whole number, 84 of them\); "
                            r"mechsolve takes angles in radians, 90 rad is 14\.3 turns\. Sweep "
                            r"ms\.rad\(values\) for values in degrees\.") as record:
        mech.sweep(drive, np.linspace(0, 90, 91), batch=batch)
    assert _only(record, ms.DegreesWarning).filename == __file__


def test_negative_whole_degrees_warn_too():
    mech, drive = _fourbar()
    with pytest.warns(ms.DegreesWarning, match=r"values up to -45 look like degrees"):
        mech.sweep(drive, np.arange(0, -46, -1))


def test_sweeps_in_radians_do_not_warn():
    mech, drive = _fourbar()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mech.sweep(drive, np.linspace(0, 2 * np.pi, 91))
        mech.sweep(drive, np.linspace(0, 20, 41))     # 7.5, 8.5, ...: not all whole numbers
        mech.sweep(drive, np.arange(0, 7))            # whole numbers, none above 2 pi
        mech.sweep(drive, ms.rad(np.linspace(0, 90, 91)))


def test_twenty_turns_still_warn_once_with_the_span():
    mech, drive = _fourbar()
    with pytest.warns(ms.DegreesWarning, match=r"spans 360 rad") as record:
        mech.sweep(drive, np.arange(0, 361))
    _only(record, ms.DegreesWarning)


# -- velocities of a position sweep --------------------------------------------------------------
def test_velocities_of_a_position_sweep_say_how_to_get_them():
    mech, drive = _fourbar()
    motion = mech.sweep(drive, np.linspace(0, 1, 5))
    crank = mech.body("crank")
    # issue 30: the coefficients per unit driver rate need no time, and the message says so
    text = (r"this motion has no {0} data: it is a position sweep of Driver 'motor' on crank "
            r"\(mech\.sweep\), poses at the driver's values with no time in them\. Its {0} "
            r"coefficients \(per unit rate of the driver, exact at every pose\) need no time: "
            r"motion\.{0}\(body, point, per=\"driver\"\)\. For velocities "
            r"and accelerations in time, sweep in time: give the driver a motion profile \(e\.g\. "
            r"drive\.value = ms\.profiles\.ConstantSpeed\(speed\)\) and call "
            r"mech\.sweep_time\(times\)")
    for call in (motion.velocity, motion.body_velocity):
        with pytest.raises(ValueError, match=text.format("velocity")):
            call(crank)
    with pytest.raises(ValueError, match=text.format("acceleration")):
        motion.body_acceleration(crank)
    # what it says works
    np.testing.assert_allclose(motion.body_velocity(crank, per="driver")[:, 2], 1.0, rtol=1e-14)
    drive.value = ms.profiles.ConstantSpeed(1.0)
    timed = mech.sweep_time(np.linspace(0, 1, 5))
    np.testing.assert_allclose(timed.body_velocity(crank)[:, 2], 1.0, atol=1e-12)


# -- a sweep ending exactly at a limit position ----------------------------------------------------
def _ram():
    """A slider-crank (crank 100, rod 150, no offset) driven by its slider's x: the slider
    stops at x = 250, crank and rod in line."""
    model = ms.models.slider_crank(crank=100.0, rod=150.0, offset=0.0)
    mech = model.mechanism
    model.driver.value = 1.0
    mech.solve()
    mech.remove(model.driver)
    slider = mech.body("slider")
    return mech, mech.add(joints.Driver(slider, "x", slider.position[0], name="ram"))


@pytest.mark.parametrize("batch", [True, False])
def test_a_sweep_to_exactly_the_limit_position_says_it_is_that(batch):
    mech, ram = _ram()
    text = (r"Driver 'ram' on slider cannot reach value 250 \(values\[50\]\) as a regular pose: "
            r"it is the limit position itself \(a dead point, located at 250\), where the motion "
            r"stops and turns back and the Jacobian is singular; the sweep was followed up to "
            r"249\.99\d*, \S+ short of it\. End the sweep short of the limit position")
    with pytest.raises(ms.SweepError, match=text) as info:
        mech.sweep(ram, np.linspace(200, 250, 51), batch=batch)
    assert "followed up to 250" not in str(info.value)
    assert info.value.motion.singular == [pytest.approx(250.0, abs=1e-9)]


def test_a_sweep_past_the_limit_position_says_where_it_stopped():
    mech, ram = _ram()
    with pytest.raises(ms.SweepError,
                       match=r"cannot reach value 256 \(values\[7\]\): the mechanism was followed "
                             r"up to 250 and cannot continue without leaving its assembly branch "
                             r"\(a limit or dead-centre position, or an unreachable value\)$"):
        mech.sweep(ram, np.linspace(200, 256, 8))


def test_a_sweep_to_exactly_the_toggle_of_a_fourbar():
    # the crank-rocker four-bar driven by its rocker angle, to its toggle (crank and coupler in
    # line: |B| = 4 and |B - O4| = 3.5)
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    drive = mech.add(joints.Driver(rocker, "angle", rocker.angle, name="rocker drive"))
    bx = (16 + 16 - 3.5**2) / 8
    toggle = float(np.arctan2(-np.sqrt(16 - bx**2), 4 - bx))
    with pytest.raises(ms.SweepError, match=r"cannot reach value -1\.117979\d* \(values\[6\]\) "
                                            r"as a regular pose: it is the limit position itself"):
        mech.sweep(drive, np.linspace(rocker.angle, toggle, 7))
