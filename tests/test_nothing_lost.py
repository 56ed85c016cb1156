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


# -- sweeps are bounded -------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, message", [
    (dict(progress=5), TypeError, r"progress must be a callable progress\(done, total\) or "
                                  r"None, got int 5"),
    (dict(batch="yes"), TypeError, r"batch must be True, False or 'auto', got 'yes'"),
])
def test_sweep_arguments_are_checked_before_anything_moves(timed_fourbar, kwargs, error,
                                                           message):
    mech, motor = timed_fourbar
    before = _snapshot(mech)
    with pytest.raises(error, match=message):
        mech.sweep(motor, [0.1, 0.2], **kwargs)
    _assert_unchanged(mech, before)


def test_an_absurd_sweep_value_is_refused():
    model = ms.models.fourbar()
    with pytest.raises(ValueError, match=r"values of Driver 'motor' \(an angle\) must be within "
                                         r"\+-1e\+06 rad, got 1e\+300"):
        model.mechanism.sweep(model.driver, [0.0, 1e300])


@pytest.mark.parametrize("batch", [True, False])
def test_a_sweep_between_far_values_stops_at_its_step_cap(batch):
    from mechsolve.analysis.continuation import MAX_STEPS

    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    before = _snapshot(mech)
    with pytest.raises(ms.SweepError, match=rf"did not reach value 1e\+06 \(values\[1\]\) in "
                                            rf"{MAX_STEPS} continuation steps from 0: .*give "
                                            r"intermediate values") as err, \
            pytest.warns(ms.DegreesWarning, match="spans 1e\\+06 rad"):
        mech.sweep(motor, [0.0, 1e6], batch=batch)
    assert err.value.index == 1 and len(err.value.motion.states) == 1
    _assert_unchanged(mech, before)
    # the same turns in intermediate values are followed
    values = np.linspace(0.0, 40 * np.pi, 81)
    assert np.allclose(mech.sweep(motor, values, batch=batch).values, values)


def test_a_large_batched_sweep_needs_memory_of_its_output_only():
    """A batched sweep refines its poses a chunk at a time: its peak memory is within three
    times its output (the poses, values, iterations and residuals of the Motion)."""
    import tracemalloc

    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    values = np.linspace(0.0, 6 * np.pi, 100_000)
    mech.sweep(motor, values[:50])
    tracemalloc.start()
    try:
        motion = mech.sweep(motor, values)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    output = sum(a.nbytes for a in (motion.states, motion.values, motion.iterations,
                                    motion.residuals))
    assert peak <= 3.0 * output, peak / output


@pytest.mark.parametrize("method", ["velocity", "acceleration", "jacobian", "dof",
                                    "free_motions"])
def test_analyses_at_an_unassembled_pose_fail_or_complete_without_changes(timed_fourbar,
                                                                          method):
    mech, _ = timed_fourbar
    mech.state = mech.state + 0.3         # not an assembly
    before = _snapshot(mech)
    try:
        getattr(mech, method)()
    except ms.SolveError as err:
        assert method in ("velocity", "acceleration")
        assert "needs an assembled mechanism" in str(err)
    _assert_unchanged(mech, before)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_a_branch_search_counts_each_assembly_once(scale):
    """A four-bar has two assemblies at a regular crank angle; the search counts an assembly
    turned by whole turns as the same one (campaign starts had it report 4 or 6), in any
    unit."""
    model = ms.models.fourbar(ground=4 * scale, crank=scale, coupler=3 * scale,
                              rocker=3.5 * scale)
    mech = model.mechanism
    model.driver.value = 0.7
    mech.solve()
    with pytest.raises(ms.SolveError, match=r"^found 2 assemblies of the mechanism from this "
                                            r"start, and none satisfies the branch condition$"):
        mech.solve(branch=lambda m: False)


def test_a_refused_step_over_a_few_ulps_ends_as_a_limit_not_a_zero_step(monkeypatch):
    """Between two values a few ulps apart, halving a refused step soon stops moving the value
    in floating point: the continuation then stops there (a limit, reported as a SweepError),
    never trying a step of length zero (whose corrector/predictor ratio divided by zero)."""
    from mechsolve.analysis import continuation

    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    v0 = 2.0
    motor.value = v0
    mech.solve()
    steps = []

    def refuse(self, state, v_b, tol=None, previous=None):
        steps.append(v_b - state.v)
        return None, ms.SolveResult(success=False, iterations=1, residual=1.0, message="no")

    monkeypatch.setattr(continuation._Continuation, "jump", refuse)
    with pytest.raises(ms.SweepError, match="values\\[1\\]"):
        mech.sweep(motor, [v0, v0 + 1e-9], batch=False, backend="numpy")   # the NumPy engine
    assert steps and all(h != 0.0 for h in steps)
