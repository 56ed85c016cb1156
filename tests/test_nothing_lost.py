"""Nothing lost on failure and every call bounded (issue 18): a public method either completes
or leaves the mechanism exactly as it was -- state, time, driver values and profiles --
including when a user callback raises or a time limit stops it."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.newton import OutOfTimeError, _check_time, deadline


def _limited_fourbar():
    """A non-Grashof four-bar (crank 2.8, coupler 3, rocker 3.5, ground 4): its crank cannot
    reach pi (the crank pin would be 6.8 from the rocker pivot, past 3 + 3.5)."""
    model = ms.models.fourbar(ground=4.0, crank=2.8, coupler=3.0, rocker=3.5)
    return model.mechanism, model.driver


def _snapshot(mech):
    return (mech.state, mech.time,
            [(d.name, d._p.copy(), d.profile) for d in mech.drivers])


def _assert_unchanged(mech, before):
    q, t, drivers = before
    np.testing.assert_array_equal(mech.state, q)
    assert mech.time == t
    for (name, p, profile), d in zip(drivers, mech.drivers):
        assert d.name == name
        np.testing.assert_array_equal(d._p, p)
        assert d.profile is profile


def _raise(*args, **kwargs):
    raise RuntimeError("a user callback failed")


@pytest.fixture
def timed_fourbar():
    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    motor.value = ms.profiles.ConstantSpeed(2.0, start=0.5)
    mech.solve(t=0.25)
    return mech, motor


# -- every public method, driven into failure ---------------------------------------------------
def test_a_failed_solve_keeps_time_and_driver_values():
    mech, motor = _limited_fourbar()
    motor.value = ms.profiles.ConstantSpeed(1.0, start=0.0)
    mech.solve(t=0.0)
    before = _snapshot(mech)
    with pytest.raises(ms.SolveError):
        mech.solve(t=np.pi)          # the profile asks for pi, out of reach
    _assert_unchanged(mech, before)
    assert mech.solve(t=0.1).success


def test_a_failed_branch_search_keeps_everything():
    mech, _ = _limited_fourbar()
    mech.solve()
    before = _snapshot(mech)
    with pytest.raises(ms.SolveError):
        mech.solve(branch=lambda m: False)
    _assert_unchanged(mech, before)


def test_a_sweep_that_cannot_start_leaves_the_driver_where_it_was():
    mech, motor = _limited_fourbar()
    mech.solve()
    before = _snapshot(mech)
    with pytest.raises(ms.SweepError):
        mech.sweep(motor, [np.pi, np.pi + 0.1])
    _assert_unchanged(mech, before)
    assert mech.solve().success        # the next solve is not left with an unreachable value


def test_a_sweep_stopped_half_way_keeps_its_motion_and_the_mechanism():
    mech, motor = _limited_fourbar()
    mech.solve()
    before = _snapshot(mech)
    with pytest.raises(ms.SweepError) as err:
        mech.sweep(motor, np.linspace(0.0, np.pi, 19))
    assert len(err.value.motion.states) >= 1
    _assert_unchanged(mech, before)


@pytest.mark.parametrize("batch", [True, False])
def test_a_raising_progress_callback_leaves_the_sweep_undone(timed_fourbar, batch):
    mech, motor = timed_fourbar
    before = _snapshot(mech)
    with pytest.raises(RuntimeError, match="a user callback failed"):
        mech.sweep(motor, np.linspace(0.1, 1.0, 5), progress=_raise, batch=batch)
    _assert_unchanged(mech, before)
    assert isinstance(motor.profile, ms.profiles.ConstantSpeed)


def test_a_raising_progress_callback_leaves_the_time_sweep_undone(timed_fourbar):
    mech, _ = timed_fourbar
    before = _snapshot(mech)
    with pytest.raises(RuntimeError, match="a user callback failed"):
        mech.sweep_time(np.linspace(0.0, 1.0, 5), progress=_raise)
    _assert_unchanged(mech, before)


def test_a_failed_batch_keeps_everything():
    mech, motor = _limited_fourbar()
    mech.solve()
    before = _snapshot(mech)
    with pytest.raises(ms.SolveError, match="batch items did not converge"):
        mech.solve_batch(values={motor: [0.1, np.pi]})
    _assert_unchanged(mech, before)


# -- time limits --------------------------------------------------------------------------------
def test_a_solve_stops_at_its_time_limit_and_says_so():
    model = ms.models.fourbar_chain(2000)
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.values[1] + 1.0
    before = _snapshot(mech)
    with pytest.raises(ms.SolveError, match=r"solve stopped at its time limit of 1e-06 s "
                                            r"\(time_limit=\)"):
        mech.solve(time_limit=1e-6)
    _assert_unchanged(mech, before)
    assert mech.solve(time_limit=600.0).success


def test_sweep_batch_and_ik_take_a_time_limit():
    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    with pytest.raises(ms.SolveError, match="sweep stopped at its time limit"):
        mech.sweep(motor, np.linspace(0, 6, 360), time_limit=1e-9)
    with pytest.raises(ms.SolveError, match="solve_batch stopped at its time limit"):
        mech.solve_batch(values={motor: np.linspace(0, 6, 50)}, time_limit=1e-9)
    arm = ms.robots.ur5()
    target = arm.forward_matrix(np.full(6, 0.3))
    with pytest.raises(ms.SolveError, match="ik stopped at its time limit"):
        arm.ik(target, np.zeros(6), time_limit=1e-9)
    assert arm.ik(target, np.full(6, 0.25), time_limit=60.0).success
    with pytest.raises(ValueError, match="time_limit must be positive"):
        mech.solve(time_limit=0.0)


def test_nested_deadlines_keep_the_earlier_end():
    with deadline(1e-9):
        with deadline(600.0):
            with pytest.raises(OutOfTimeError) as err:
                _check_time()
    assert err.value.seconds == 1e-9
    with deadline(600.0), deadline(None):
        _check_time()                # no raise: a long budget, nothing spent
